//! `cu-core` keys to macOS virtual key codes and modifier flags for CGEvents.
//!
//! Codes are the `kVK_*` constants of `HIToolbox/Events.h`. The `kVK_ANSI_*` codes name key
//! *positions* on a US keyboard, so `cmd+z` presses the key where Z is on a US layout, as most
//! automation tools do; characters without a key here are typed as Unicode strings instead.

use cu_core::model::keys::{Key, NamedKey};

/// `kCGEventFlagMaskShift`.
pub const FLAG_SHIFT: u64 = 0x0002_0000;
/// `kCGEventFlagMaskControl`.
pub const FLAG_CONTROL: u64 = 0x0004_0000;
/// `kCGEventFlagMaskAlternate` (Option).
pub const FLAG_OPTION: u64 = 0x0008_0000;
/// `kCGEventFlagMaskCommand`.
pub const FLAG_COMMAND: u64 = 0x0010_0000;

/// How one key of a combination is pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPress {
    /// A key code; `flag` is the modifier flag it adds while held (0 for ordinary keys), and
    /// `shift` says the character needs Shift on a US layout.
    Code {
        /// The `kVK_*` code.
        code: u16,
        /// The modifier flag this key contributes.
        flag: u64,
        /// Shift is needed for this character.
        shift: bool,
    },
    /// No key position: typed as a Unicode string on a key event.
    Text(char),
}

/// The press for a key.
pub fn press(key: Key) -> KeyPress {
    use NamedKey::*;
    let code = |code| KeyPress::Code {
        code,
        flag: 0,
        shift: false,
    };
    let modifier = |code, flag| KeyPress::Code {
        code,
        flag,
        shift: false,
    };
    let named = match key {
        Key::Char(c) => return char_press(c),
        Key::Named(named) => named,
    };
    match named {
        Return => code(0x24),
        KpEnter => code(0x4C),
        Tab => code(0x30),
        Escape => code(0x35),
        Backspace => code(0x33),
        Delete => code(0x75),
        Insert => code(0x72),
        Home => code(0x73),
        End => code(0x77),
        Left => code(0x7B),
        Right => code(0x7C),
        Down => code(0x7D),
        Up => code(0x7E),
        PageUp => code(0x74),
        PageDown => code(0x79),
        CapsLock => code(0x39),
        Shift => modifier(0x38, FLAG_SHIFT),
        ShiftRight => modifier(0x3C, FLAG_SHIFT),
        Ctrl => modifier(0x3B, FLAG_CONTROL),
        CtrlRight => modifier(0x3E, FLAG_CONTROL),
        Alt => modifier(0x3A, FLAG_OPTION),
        AltRight => modifier(0x3D, FLAG_OPTION),
        Super => modifier(0x37, FLAG_COMMAND),
        SuperRight => modifier(0x36, FLAG_COMMAND),
        F(n) => match F_KEYS.get(usize::from(n).wrapping_sub(1)) {
            Some(c) => code(*c),
            None => KeyPress::Text('\u{0}'),
        },
        KpDigit(n) => match KEYPAD_DIGITS.get(usize::from(n)) {
            Some(c) => code(*c),
            None => KeyPress::Text('\u{0}'),
        },
        // kVK_ANSI_Keypad*.
        KpDecimal => code(0x41),
        KpMultiply => code(0x43),
        KpAdd => code(0x45),
        KpDivide => code(0x4B),
        KpSubtract => code(0x4E),
        KpEqual => code(0x51),
        // kVK_ANSI_KeypadClear sits where Num Lock is on a PC keyboard.
        NumLock => code(0x47),
        // Media and browser keys are system-defined events on macOS, not key codes.
        _ => KeyPress::Text('\u{0}'),
    }
}

/// kVK_ANSI_Keypad0 … kVK_ANSI_Keypad9.
const KEYPAD_DIGITS: [u16; 10] = [0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5B, 0x5C];

/// kVK_F1 … kVK_F20.
const F_KEYS: [u16; 20] = [
    0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B, 0x71, 0x6A,
    0x40, 0x4F, 0x50, 0x5A,
];

/// US-position key codes of `a`..`z`.
const LETTERS: [u16; 26] = [
    0x00, 0x0B, 0x08, 0x02, 0x0E, 0x03, 0x05, 0x04, 0x22, 0x26, 0x28, 0x25, 0x2E, 0x2D, 0x1F, 0x23,
    0x0C, 0x0F, 0x01, 0x11, 0x20, 0x09, 0x0D, 0x07, 0x10, 0x06,
];

/// US-position key codes of `0`..`9`.
const DIGITS: [u16; 10] = [0x1D, 0x12, 0x13, 0x14, 0x15, 0x17, 0x16, 0x1A, 0x1C, 0x19];

/// Punctuation on a US layout: (unshifted, shifted, code).
const PUNCTUATION: [(char, char, u16); 11] = [
    ('=', '+', 0x18),
    ('-', '_', 0x1B),
    ('[', '{', 0x21),
    (']', '}', 0x1E),
    ('\'', '"', 0x27),
    (';', ':', 0x29),
    ('\\', '|', 0x2A),
    (',', '<', 0x2B),
    ('/', '?', 0x2C),
    ('.', '>', 0x2F),
    ('`', '~', 0x32),
];

fn char_press(c: char) -> KeyPress {
    let code = |code, shift| KeyPress::Code {
        code,
        flag: 0,
        shift,
    };
    match c {
        'a'..='z' => code(LETTERS[(c as u8 - b'a') as usize], false),
        'A'..='Z' => code(LETTERS[(c as u8 - b'A') as usize], true),
        '0'..='9' => code(DIGITS[(c as u8 - b'0') as usize], false),
        ' ' => code(0x31, false),
        _ => PUNCTUATION
            .iter()
            .find_map(|(plain, shifted, k)| {
                (c == *plain)
                    .then_some(code(*k, false))
                    .or((c == *shifted).then_some(code(*k, true)))
            })
            .unwrap_or(KeyPress::Text(c)),
    }
}

/// Text as runs typed as Unicode strings (`Some`) and line breaks pressed as Return (`None`);
/// `\r\n` is one break.
pub fn text_runs(text: &str) -> Vec<Option<&str>> {
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(None);
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !line.is_empty() {
            out.push(Some(line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::keys::parse_combo;

    fn presses(combo: &str) -> Vec<KeyPress> {
        parse_combo(combo).unwrap().into_iter().map(press).collect()
    }

    #[test]
    fn combos_become_key_codes_and_modifier_flags() {
        let k = |code, flag, shift| KeyPress::Code { code, flag, shift };
        assert_eq!(
            presses("cmd+shift+t"),
            [
                k(0x37, FLAG_COMMAND, false),
                k(0x38, FLAG_SHIFT, false),
                k(0x11, 0, false)
            ]
        );
        assert_eq!(
            presses("cmd+z"),
            [k(0x37, FLAG_COMMAND, false), k(0x06, 0, false)]
        );
        assert_eq!(presses("Return"), [k(0x24, 0, false)]);
        assert_eq!(presses("F5"), [k(0x60, 0, false)]);
        assert_eq!(
            presses("ctrl++"),
            [k(0x3B, FLAG_CONTROL, false), k(0x18, 0, true)]
        );
        assert_eq!(
            presses("alt+1"),
            [k(0x3A, FLAG_OPTION, false), k(0x12, 0, false)]
        );
        assert_eq!(presses("ש"), [KeyPress::Text('ש')]);
        assert_eq!(presses("F21"), [KeyPress::Text('\u{0}')]);
    }

    #[test]
    fn text_splits_into_unicode_runs_and_returns() {
        assert_eq!(
            text_runs("שלום\r\nworld\n"),
            [Some("שלום"), None, Some("world"), None]
        );
        assert_eq!(text_runs("one"), [Some("one")]);
        assert_eq!(text_runs("\n\n"), [None, None]);
    }
}
