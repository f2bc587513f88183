//! Which keyboard input can activate a control, and how typed text is cut so the safety gate
//! sees each activating piece before it is sent.
//!
//! A space typed into a text field is text; sent to a focused button it presses the button. A
//! Return in a single-line field presses the dialog's default button. Tab and the arrows move
//! focus (so focus is read again before the next piece), an `alt+letter` presses whatever control
//! carries that access key, and in an open menu a plain letter does. What a piece does therefore
//! depends on the focused element at the moment it is sent: this module only says which kind of
//! piece each is ([`Reach`]); the service reads focus live and decides.

use crate::model::keys::{Key, NamedKey};

/// What one piece of keyboard input can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reach {
    /// Plain characters: text in a field; in an open menu, an item's access key.
    Chars,
    /// A space: text in a field, a press on any other focused control.
    Space,
    /// Return or Enter, with or without modifiers: a line break in a multi-line field, otherwise
    /// the focused control's activation (in a single-line field, the dialog's default button).
    Enter,
    /// `alt+letter` (no ctrl or super): presses the control with that access key anywhere in the
    /// window.
    AccessKey,
    /// The Delete key: deletes what is selected, outside text fields.
    DeleteKey,
    /// Tab, arrows and the like: moves focus, activates nothing.
    MovesFocus,
    /// Any other combination (shortcuts such as `ctrl+s`): not a control's activation.
    Other,
}

impl Reach {
    /// True when focus may be elsewhere after this piece, so it must be read again.
    pub const fn may_move_focus(self) -> bool {
        !matches!(self, Reach::Chars)
    }
}

/// Keys that a combination may hold at most (`ctrl+alt+shift+super+x` has five).
pub const MAX_COMBO_KEYS: usize = 6;

/// What a parsed combination can reach.
pub fn reach_of_combo(keys: &[Key]) -> Reach {
    let held = |k: NamedKey| keys.contains(&Key::Named(k));
    let ctrl = held(NamedKey::Ctrl) || held(NamedKey::CtrlRight);
    let alt = held(NamedKey::Alt) || held(NamedKey::AltRight);
    let sup = held(NamedKey::Super) || held(NamedKey::SuperRight);
    let Some(last) = keys
        .iter()
        .rev()
        .find(|k| !matches!(k, Key::Named(n) if n.is_modifier()))
    else {
        return Reach::Other;
    };
    match last {
        Key::Named(NamedKey::Return | NamedKey::KpEnter) | Key::Char('\n' | '\r') => Reach::Enter,
        Key::Char(' ') if !alt && !sup => Reach::Space,
        Key::Char(c) if alt && !ctrl && !sup && !c.is_whitespace() => Reach::AccessKey,
        Key::Char(_) if !ctrl && !alt && !sup => Reach::Chars,
        // Keypad digits and operators type their characters.
        Key::Named(
            NamedKey::KpDigit(_)
            | NamedKey::KpAdd
            | NamedKey::KpSubtract
            | NamedKey::KpMultiply
            | NamedKey::KpDivide
            | NamedKey::KpDecimal
            | NamedKey::KpEqual
            | NamedKey::KpSeparator,
        ) if !ctrl && !alt && !sup => Reach::Chars,
        Key::Named(NamedKey::Delete) if !ctrl && !alt && !sup => Reach::DeleteKey,
        Key::Named(
            NamedKey::Tab
            | NamedKey::Left
            | NamedKey::Right
            | NamedKey::Up
            | NamedKey::Down
            | NamedKey::Home
            | NamedKey::End
            | NamedKey::PageUp
            | NamedKey::PageDown
            | NamedKey::Escape
            | NamedKey::Menu
            | NamedKey::F(_),
        ) => Reach::MovesFocus,
        _ => Reach::Other,
    }
}

/// Typed text cut before and after every character that can activate or move focus: runs of
/// plain characters, and each space, line break (`\r\n` as one) and tab on its own. Joined, the
/// pieces give the text back.
pub fn split_text(text: &str) -> Vec<(&str, Reach)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let reach = match c {
            ' ' => Reach::Space,
            '\n' | '\r' => Reach::Enter,
            '\t' => Reach::MovesFocus,
            _ => continue,
        };
        if start < at {
            out.push((&text[start..at], Reach::Chars));
        }
        let mut end = at + c.len_utf8();
        if c == '\r' {
            if let Some((next, '\n')) = chars.peek().copied() {
                chars.next();
                end = next + 1;
            }
        }
        out.push((&text[at..end], reach));
        start = end;
    }
    if start < text.len() {
        out.push((&text[start..], Reach::Chars));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::keys::parse_combo;

    fn reach(combo: &str) -> Reach {
        reach_of_combo(&parse_combo(combo).unwrap_or_else(|e| panic!("{combo}: {e}")))
    }

    #[test]
    fn combos_are_classified() {
        for (combo, want) in [
            ("Return", Reach::Enter),
            ("KP_Enter", Reach::Enter),
            ("ctrl+Return", Reach::Enter),
            ("shift+Return", Reach::Enter),
            ("space", Reach::Space),
            ("shift+space", Reach::Space),
            ("ctrl+space", Reach::Space),
            ("alt+d", Reach::AccessKey),
            ("alt+shift+d", Reach::AccessKey),
            ("ctrl+alt+d", Reach::Other),
            ("d", Reach::Chars),
            ("shift+d", Reach::Chars),
            ("Delete", Reach::DeleteKey),
            ("shift+Delete", Reach::DeleteKey),
            ("ctrl+Delete", Reach::Other),
            ("Tab", Reach::MovesFocus),
            ("shift+Tab", Reach::MovesFocus),
            ("Down", Reach::MovesFocus),
            ("ctrl+s", Reach::Other),
            ("alt+F4", Reach::MovesFocus),
            ("ctrl", Reach::Other),
        ] {
            assert_eq!(reach(combo), want, "{combo}");
        }
    }

    #[test]
    fn text_is_cut_around_every_space_break_and_tab() {
        let pieces = split_text("ab c\t\r\nd\n");
        assert_eq!(
            pieces,
            vec![
                ("ab", Reach::Chars),
                (" ", Reach::Space),
                ("c", Reach::Chars),
                ("\t", Reach::MovesFocus),
                ("\r\n", Reach::Enter),
                ("d", Reach::Chars),
                ("\n", Reach::Enter),
            ]
        );
        assert_eq!(split_text(" "), vec![(" ", Reach::Space)]);
        assert!(split_text("").is_empty());
        let joined: String = split_text("héllo  wörld\r").iter().map(|p| p.0).collect();
        assert_eq!(joined, "héllo  wörld\r");
    }
}
