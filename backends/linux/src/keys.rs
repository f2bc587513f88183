//! `cu-core` keys to X keysyms: pure, so it is tested everywhere.

use cu_core::model::keys::{self, Key, NamedKey};

/// A combination's keysyms: modifiers first, the key last.
pub fn keysyms(combo: &keys::Combo) -> Vec<u32> {
    combo.keys().iter().copied().map(keysym_of_key).collect()
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
