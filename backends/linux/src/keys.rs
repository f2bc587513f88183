//! `cu-core` keys to X keysyms: pure, so it is tested everywhere.

use cu_core::model::keys::{self, Key, Modifiers, NamedKey};

/// A combination's keysyms: modifiers first, the key last; 0 for a key X has no keysym for
/// (none today).
pub fn keysyms(combo: &keys::Combo) -> Vec<u32> {
    combo.keys().iter().copied().map(keysym_of_key).collect()
}

/// The keysyms of held modifiers, in the order they go down.
pub fn modifier_keysyms(held: Modifiers) -> Vec<u32> {
    held.keys()
        .into_iter()
        .map(|k| keysym_of_key(Key::Named(k)))
        .collect()
}

/// The keysym of a key.
pub fn keysym_of_key(key: Key) -> u32 {
    use NamedKey::*;
    let named = match key {
        Key::Char(c) => return keysym_of_printable(c),
        Key::Named(named) => named,
    };
    match named {
        Return => 0xff0d,
        KpEnter => 0xff8d,
        Tab => 0xff09,
        Escape => 0xff1b,
        Backspace => 0xff08,
        Delete => 0xffff,
        Insert => 0xff63,
        Home => 0xff50,
        Left => 0xff51,
        Up => 0xff52,
        Right => 0xff53,
        Down => 0xff54,
        PageUp => 0xff55,
        PageDown => 0xff56,
        End => 0xff57,
        Menu => 0xff67,
        Print => 0xff61,
        Shift => 0xffe1,
        ShiftRight => 0xffe2,
        Ctrl => 0xffe3,
        CtrlRight => 0xffe4,
        CapsLock => 0xffe5,
        Alt => 0xffe9,
        AltRight => 0xffea,
        Super => 0xffeb,
        SuperRight => 0xffec,
        F(n) => 0xffbe + u32::from(n) - 1,
        KpDigit(n) => 0xffb0 + u32::from(n.min(9)),
        KpMultiply => 0xffaa,
        KpAdd => 0xffab,
        KpSeparator => 0xffac,
        KpSubtract => 0xffad,
        KpDecimal => 0xffae,
        KpDivide => 0xffaf,
        KpEqual => 0xffbd,
        NumLock => 0xff7f,
        ScrollLock => 0xff14,
        Pause => 0xff13,
        // XF86 keysyms (XF86keysym.h).
        VolumeDown => 0x1008_ff11,
        VolumeMute => 0x1008_ff12,
        VolumeUp => 0x1008_ff13,
        MediaPlayPause => 0x1008_ff14,
        MediaStop => 0x1008_ff15,
        MediaPrevious => 0x1008_ff16,
        MediaNext => 0x1008_ff17,
        BrowserHome => 0x1008_ff18,
        BrowserBack => 0x1008_ff26,
        BrowserForward => 0x1008_ff27,
        BrowserRefresh => 0x1008_ff29,
        _ => 0,
    }
}

/// The keysym that types `c`: Latin-1 maps to itself, control characters to their keys, the
/// rest of Unicode to `0x0100_0000 + code point`.
pub fn keysym_of_char(c: char) -> u32 {
    keysym_of_key(keys::key_of_char(c))
}

fn keysym_of_printable(c: char) -> u32 {
    match c {
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        _ => 0x0100_0000 + c as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syms(combo: &str) -> Vec<u32> {
        keysyms(&combo.parse().unwrap())
    }

    #[test]
    fn combos_become_keysyms() {
        assert_eq!(syms("ctrl+shift+t"), [0xffe3, 0xffe1, 0x74]);
        assert_eq!(syms("Return"), [0xff0d]);
        assert_eq!(syms("alt+F4"), [0xffe9, 0xffc1]);
        assert_eq!(syms("ctrl++"), [0xffe3, 0x2b]);
        assert_eq!(syms("+"), [0x2b]);
        assert_eq!(syms("kp_add"), [0xffab]);
        assert_eq!(syms("KP_7"), [0xffb7]);
        assert_eq!(syms("F24"), [0xffd5]);
        assert_eq!(syms("AudioPlay"), [0x1008_ff14]);
        let held = Modifiers::of(&"shift+ctrl".parse().unwrap()).unwrap();
        assert_eq!(modifier_keysyms(held), [0xffe3, 0xffe1]);
    }

    #[test]
    fn characters_map_to_keysyms() {
        assert_eq!(keysym_of_char('a'), 0x61);
        assert_eq!(keysym_of_char('é'), 0xe9);
        assert_eq!(keysym_of_char('ש'), 0x0100_05e9);
        assert_eq!(keysym_of_char('😀'), 0x0101_f600);
        assert_eq!(keysym_of_char('\n'), 0xff0d);
        assert_eq!(keysym_of_char('\t'), 0xff09);
    }
}
