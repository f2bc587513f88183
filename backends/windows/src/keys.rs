//! `cu-core` keys to Windows virtual-key codes, and text to the UTF-16 units SendInput types
//! with `KEYEVENTF_UNICODE` (any script, independent of the keyboard layout).
//!
//! Values are the `VK_*` constants of `WinUser.h` as Microsoft's "Virtual-Key Codes" page lists
//! them. Keys on the navigation block need `KEYEVENTF_EXTENDEDKEY`, or they arrive as their
//! numeric-keypad twins.

use cu_core::model::keys::{Key, NamedKey};

/// How SendInput presses one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStroke {
    /// A virtual key; `extended` sets `KEYEVENTF_EXTENDEDKEY`.
    Virtual {
        /// The `VK_*` code.
        vk: u16,
        /// On the extended (navigation) block.
        extended: bool,
    },
    /// A character without a fixed key: the backend asks the layout (`VkKeyScanW`) and falls
    /// back to a `KEYEVENTF_UNICODE` unit.
    Char(char),
    /// A key Windows has no virtual key for (F25 and up, keypad "=").
    Unavailable,
}

/// The stroke for a key.
pub fn stroke(key: Key) -> KeyStroke {
    use NamedKey::*;
    let named = match key {
        Key::Char(c) => return char_stroke(c),
        Key::Named(named) => named,
    };
    let (vk, extended) = match named {
        Return => (0x0D, false),
        KpEnter => (0x0D, true),
        Tab => (0x09, false),
        Escape => (0x1B, false),
        Backspace => (0x08, false),
        Delete => (0x2E, true),
        Insert => (0x2D, true),
        Home => (0x24, true),
        End => (0x23, true),
        Left => (0x25, true),
        Up => (0x26, true),
        Right => (0x27, true),
        Down => (0x28, true),
        PageUp => (0x21, true),
        PageDown => (0x22, true),
        Menu => (0x5D, true),
        Print => (0x2C, true),
        CapsLock => (0x14, false),
        Shift => (0xA0, false),
        ShiftRight => (0xA1, false),
        Ctrl => (0xA2, false),
        CtrlRight => (0xA3, true),
        Alt => (0xA4, false),
        AltRight => (0xA5, true),
        Super => (0x5B, true),
        SuperRight => (0x5C, true),
        // VK_F1 = 0x70 … VK_F24 = 0x87; Windows has no F25 and up.
        F(n @ 1..=24) => (0x70 + u16::from(n) - 1, false),
        KpDigit(n @ 0..=9) => (0x60 + u16::from(n), false),
        KpMultiply => (0x6A, false),
        KpAdd => (0x6B, false),
        KpSeparator => (0x6C, false),
        KpSubtract => (0x6D, false),
        KpDecimal => (0x6E, false),
        KpDivide => (0x6F, true),
        NumLock => (0x90, true),
        ScrollLock => (0x91, false),
        Pause => (0x13, false),
        // The media and browser keys send E0-prefixed scan codes.
        BrowserBack => (0xA6, true),
        BrowserForward => (0xA7, true),
        BrowserRefresh => (0xA8, true),
        BrowserHome => (0xAC, true),
        VolumeMute => (0xAD, true),
        VolumeDown => (0xAE, true),
        VolumeUp => (0xAF, true),
        MediaNext => (0xB0, true),
        MediaPrevious => (0xB1, true),
        MediaStop => (0xB2, true),
        MediaPlayPause => (0xB3, true),
        _ => return KeyStroke::Unavailable,
    };
    KeyStroke::Virtual { vk, extended }
}

/// Letters and digits have layout-independent virtual keys (`'A'`..`'Z'`, `'0'`..`'9'`); a
/// space is `VK_SPACE`; anything else depends on the layout.
fn char_stroke(c: char) -> KeyStroke {
    match c {
        'a'..='z' => KeyStroke::Virtual {
            vk: c.to_ascii_uppercase() as u16,
            extended: false,
        },
        'A'..='Z' | '0'..='9' => KeyStroke::Virtual {
            vk: c as u16,
            extended: false,
        },
        ' ' => KeyStroke::Virtual {
            vk: 0x20,
            extended: false,
        },
        _ => KeyStroke::Char(c),
    }
}

/// Decodes `VkKeyScanW`'s answer: the virtual key in the low byte and the shift state in the
/// high byte (1 Shift, 2 Ctrl, 4 Alt); `None` for -1 (no key types it on this layout) or a
/// state that needs Ctrl or Alt (AltGr characters type more reliably as Unicode).
pub fn decode_vk_key_scan(scan: i16) -> Option<(u16, bool)> {
    if scan == -1 {
        return None;
    }
    let vk = (scan as u16) & 0xFF;
    let state = ((scan as u16) >> 8) & 0xFF;
    if state & !1 != 0 {
        return None;
    }
    Some((vk, state & 1 == 1))
}

/// The UTF-16 units that type `text` with `KEYEVENTF_UNICODE`; line breaks become `VK_RETURN`
/// (a `\r\n` pair once), since many controls ignore a Unicode CR.
pub fn text_strokes(text: &str) -> Vec<TextStroke> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(TextStroke::Virtual(0x0D));
            }
            '\t' => out.push(TextStroke::Virtual(0x09)),
            _ => {
                let mut units = [0u16; 2];
                out.extend(
                    c.encode_utf16(&mut units)
                        .iter()
                        .map(|u| TextStroke::Unit(*u)),
                );
            }
        }
    }
    out
}

/// One step of typing text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextStroke {
    /// A UTF-16 unit sent with `KEYEVENTF_UNICODE` (surrogate pairs as two units).
    Unit(u16),
    /// A virtual key pressed and released.
    Virtual(u16),
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::keys::parse_combo;

    fn strokes(combo: &str) -> Vec<KeyStroke> {
        parse_combo(combo)
            .unwrap()
            .into_iter()
            .map(stroke)
            .collect()
    }

    #[test]
    fn combos_become_virtual_keys_with_the_extended_flag_where_needed() {
        let v = |vk, extended| KeyStroke::Virtual { vk, extended };
        assert_eq!(
            strokes("ctrl+shift+t"),
            [v(0xA2, false), v(0xA0, false), v(0x54, false)]
        );
        assert_eq!(strokes("alt+F4"), [v(0xA4, false), v(0x73, false)]);
        assert_eq!(strokes("Delete"), [v(0x2E, true)]);
        assert_eq!(strokes("win+e"), [v(0x5B, true), v(0x45, false)]);
        assert_eq!(strokes("ctrl+1"), [v(0xA2, false), v(0x31, false)]);
        assert_eq!(strokes("F24"), [v(0x87, false)]);
        assert_eq!(strokes("ctrl++"), [v(0xA2, false), KeyStroke::Char('+')]);
        assert_eq!(strokes("kp_add"), [v(0x6B, false)]);
        assert_eq!(strokes("KP_0"), [v(0x60, false)]);
        assert_eq!(strokes("AudioPlay"), [v(0xB3, true)]);
        assert_eq!(strokes("F25"), [KeyStroke::Unavailable]);
        assert_eq!(strokes("KP_Equal"), [KeyStroke::Unavailable]);
    }

    #[test]
    fn vk_key_scan_answers_decode() {
        // '+' on a US layout: VK_OEM_PLUS (0xBB) with Shift.
        assert_eq!(decode_vk_key_scan(0x01BB), Some((0xBB, true)));
        assert_eq!(decode_vk_key_scan(0x00BD), Some((0xBD, false)));
        assert_eq!(decode_vk_key_scan(-1), None);
        // '@' on a German layout needs AltGr (Ctrl+Alt = 6): typed as Unicode instead.
        assert_eq!(decode_vk_key_scan(0x0651), None);
    }

    #[test]
    fn text_types_as_utf16_units_with_line_breaks_as_return() {
        use TextStroke::*;
        assert_eq!(
            text_strokes("ש1\r\n😀\t"),
            [
                Unit(0x05E9),
                Unit(0x31),
                Virtual(0x0D),
                Unit(0xD83D),
                Unit(0xDE00),
                Virtual(0x09)
            ]
        );
    }
}
