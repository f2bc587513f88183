//! Key combinations as agents write them (`ctrl+shift+t`, `Return`, `alt+F4`, `ctrl++`), parsed
//! once where they enter (the wire, the CLI) into a [`Combo`] of platform-free [`Key`]s that
//! travels typed to the backends; each maps the keys to its own codes (X keysyms, Windows
//! virtual keys, macOS key codes).

use std::fmt;
use std::str::FromStr;

/// A key that has a name rather than a character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum NamedKey {
    Return,
    KpEnter,
    Tab,
    Escape,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    Left,
    Up,
    Right,
    Down,
    PageUp,
    PageDown,
    Menu,
    Print,
    CapsLock,
    Shift,
    ShiftRight,
    Ctrl,
    CtrlRight,
    Alt,
    AltRight,
    /// The Windows key, Command on macOS, Super on Linux.
    Super,
    SuperRight,
    /// F1 to F35.
    F(u8),
    /// A keypad digit, 0 to 9 (`KP_0`).
    KpDigit(u8),
    KpAdd,
    KpSubtract,
    KpMultiply,
    KpDivide,
    KpDecimal,
    KpEqual,
    KpSeparator,
    NumLock,
    ScrollLock,
    Pause,
    VolumeMute,
    VolumeDown,
    VolumeUp,
    MediaPlayPause,
    MediaStop,
    MediaNext,
    MediaPrevious,
    BrowserBack,
    BrowserForward,
    BrowserRefresh,
    BrowserHome,
}

impl NamedKey {
    /// True for the media, volume and browser keys (XF86 keysyms on X11).
    pub const fn is_media(self) -> bool {
        use NamedKey::*;
        matches!(
            self,
            VolumeMute
                | VolumeDown
                | VolumeUp
                | MediaPlayPause
                | MediaStop
                | MediaNext
                | MediaPrevious
                | BrowserBack
                | BrowserForward
                | BrowserRefresh
                | BrowserHome
        )
    }

    /// True for Shift, Ctrl, Alt and Super (either side).
    pub const fn is_modifier(self) -> bool {
        use NamedKey::*;
        matches!(
            self,
            Shift | ShiftRight | Ctrl | CtrlRight | Alt | AltRight | Super | SuperRight
        )
    }
}

/// One key of a combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A named key.
    Named(NamedKey),
    /// The key that types this character.
    Char(char),
}

impl Key {
    /// True for keys that activate the focused element (Enter, Return, space): the safety gate
    /// checks the focused element before sending them.
    pub const fn is_activating(self) -> bool {
        matches!(
            self,
            Key::Named(NamedKey::Return | NamedKey::KpEnter) | Key::Char(' ' | '\n' | '\r')
        )
    }
}

/// Modifier keys held down while a pointer event is sent (ctrl+click, shift+drag,
/// ctrl+scroll), either side the same.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Modifiers {
    /// Control.
    #[serde(default)]
    pub ctrl: bool,
    /// Shift.
    #[serde(default)]
    pub shift: bool,
    /// Alt (Option on macOS).
    #[serde(default)]
    pub alt: bool,
    /// Super (the Windows key, Command on macOS).
    #[serde(default, rename = "super")]
    pub super_key: bool,
}

impl Modifiers {
    /// The modifiers of `combo`; an error names a key that is not one.
    pub fn of(combo: &Combo) -> Result<Modifiers, String> {
        let mut held = Modifiers::default();
        for key in combo.keys() {
            match key {
                Key::Named(NamedKey::Ctrl | NamedKey::CtrlRight) => held.ctrl = true,
                Key::Named(NamedKey::Shift | NamedKey::ShiftRight) => held.shift = true,
                Key::Named(NamedKey::Alt | NamedKey::AltRight) => held.alt = true,
                Key::Named(NamedKey::Super | NamedKey::SuperRight) => held.super_key = true,
                other => {
                    return Err(format!(
                        "{} is not a modifier (ctrl, shift, alt, super)",
                        name_of(*other)
                    ))
                }
            }
        }
        Ok(held)
    }

    /// True when none is held.
    pub fn is_empty(self) -> bool {
        self == Modifiers::default()
    }

    /// The keys to hold, in the order they go down.
    pub fn keys(self) -> Vec<NamedKey> {
        [
            (self.ctrl, NamedKey::Ctrl),
            (self.shift, NamedKey::Shift),
            (self.alt, NamedKey::Alt),
            (self.super_key, NamedKey::Super),
        ]
        .into_iter()
        .filter_map(|(held, key)| held.then_some(key))
        .collect()
    }
}

/// A key combination: modifiers first, the key last, as written. Parsed once from text
/// ([`FromStr`], and so from JSON, where it is a string) and shown in canonical names
/// ([`Display`](fmt::Display)), which parse back to the same keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Combo(Vec<Key>);

impl Combo {
    /// The combination of one key.
    pub fn key(key: Key) -> Combo {
        Combo(vec![key])
    }

    /// `modifier` held while `key` is pressed (`ctrl` + `a`).
    pub fn with(modifier: NamedKey, key: Key) -> Combo {
        Combo(vec![Key::Named(modifier), key])
    }

    /// Its keys, modifiers first.
    pub fn keys(&self) -> &[Key] {
        &self.0
    }
}

impl FromStr for Combo {
    type Err = String;

    fn from_str(text: &str) -> Result<Combo, String> {
        parse_combo(text).map(Combo)
    }
}

impl fmt::Display for Combo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(&name_of(*key))?;
        }
        Ok(())
    }
}

impl serde::Serialize for Combo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Combo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Combo, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(|e: String| {
            serde::de::Error::custom(format!(
                "{e}; use names such as Return, Tab, ctrl+s, alt+F4"
            ))
        })
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Combo {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Combo".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

/// The canonical name of a key, which [`key_of_name`] reads back.
pub fn name_of(key: Key) -> std::borrow::Cow<'static, str> {
    use NamedKey::*;
    let named = match key {
        Key::Char(' ') => "space",
        Key::Char('+') => "plus",
        Key::Char(c) => return c.to_string().into(),
        Key::Named(named) => match named {
            Return => "Return",
            KpEnter => "KP_Enter",
            Tab => "Tab",
            Escape => "Escape",
            Backspace => "BackSpace",
            Delete => "Delete",
            Insert => "Insert",
            Home => "Home",
            End => "End",
            Left => "Left",
            Up => "Up",
            Right => "Right",
            Down => "Down",
            PageUp => "Page_Up",
            PageDown => "Page_Down",
            Menu => "Menu",
            Print => "Print",
            CapsLock => "Caps_Lock",
            Shift => "shift",
            ShiftRight => "Shift_R",
            Ctrl => "ctrl",
            CtrlRight => "Control_R",
            Alt => "alt",
            AltRight => "Alt_R",
            Super => "super",
            SuperRight => "Super_R",
            F(n) => return format!("F{n}").into(),
            KpDigit(n) => return format!("KP_{n}").into(),
            KpAdd => "KP_Add",
            KpSubtract => "KP_Subtract",
            KpMultiply => "KP_Multiply",
            KpDivide => "KP_Divide",
            KpDecimal => "KP_Decimal",
            KpEqual => "KP_Equal",
            KpSeparator => "KP_Separator",
            NumLock => "Num_Lock",
            ScrollLock => "Scroll_Lock",
            Pause => "Pause",
            VolumeMute => "AudioMute",
            VolumeDown => "AudioLowerVolume",
            VolumeUp => "AudioRaiseVolume",
            MediaPlayPause => "AudioPlay",
            MediaStop => "AudioStop",
            MediaNext => "AudioNext",
            MediaPrevious => "AudioPrev",
            BrowserBack => "Back",
            BrowserForward => "Forward",
            BrowserRefresh => "Refresh",
            BrowserHome => "HomePage",
        },
    };
    named.into()
}

/// Parses a combination into its keys, modifiers first and the key last as written.
pub fn parse_combo(combo: &str) -> Result<Vec<Key>, String> {
    let combo = combo.trim();
    if combo.is_empty() {
        return Err("empty key combination".into());
    }
    let mut parts: Vec<&str> = combo.split('+').collect();
    // "ctrl++" means ctrl and the plus key.
    if combo.ends_with("++") {
        parts.truncate(parts.len().saturating_sub(2));
        parts.push("+");
    } else if combo == "+" {
        parts = vec!["+"];
    }
    parts
        .into_iter()
        .map(|part| {
            let part = part.trim();
            key_of_name(part).ok_or_else(|| format!("unknown key {part:?} in {combo:?}"))
        })
        .collect()
}

/// The key a name means (`Return`, `ctrl`, `F5`, `a`, `א`), case-insensitive for names.
pub fn key_of_name(name: &str) -> Option<Key> {
    use NamedKey::*;
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        return Some(key_of_char(c));
    }
    let lower = name.to_ascii_lowercase();
    let named = match lower.as_str() {
        "return" | "enter" => Return,
        "kp_enter" => KpEnter,
        "tab" => Tab,
        "escape" | "esc" => Escape,
        "backspace" => Backspace,
        "delete" | "del" => Delete,
        "insert" | "ins" => Insert,
        "home" => Home,
        "left" => Left,
        "up" => Up,
        "right" => Right,
        "down" => Down,
        "page_up" | "pageup" | "prior" => PageUp,
        "page_down" | "pagedown" | "next" => PageDown,
        "end" => End,
        "menu" => Menu,
        "print" => Print,
        "space" => return Some(Key::Char(' ')),
        "plus" => return Some(Key::Char('+')),
        "minus" => return Some(Key::Char('-')),
        "shift" | "shift_l" => Shift,
        "shift_r" => ShiftRight,
        "ctrl" | "control" | "control_l" | "ctrl_l" => Ctrl,
        "control_r" | "ctrl_r" => CtrlRight,
        "caps_lock" | "capslock" => CapsLock,
        "alt" | "alt_l" | "option" => Alt,
        "alt_r" | "altgr" => AltRight,
        "super" | "super_l" | "win" | "meta" | "cmd" | "command" => Super,
        "super_r" => SuperRight,
        "kp_add" | "kp_plus" => KpAdd,
        "kp_subtract" | "kp_minus" => KpSubtract,
        "kp_multiply" => KpMultiply,
        "kp_divide" => KpDivide,
        "kp_decimal" => KpDecimal,
        "kp_equal" => KpEqual,
        "kp_separator" => KpSeparator,
        "num_lock" | "numlock" => NumLock,
        "scroll_lock" | "scrolllock" => ScrollLock,
        "pause" | "break" => Pause,
        "audiomute" | "volume_mute" | "mute" => VolumeMute,
        "audiolowervolume" | "volume_down" => VolumeDown,
        "audioraisevolume" | "volume_up" => VolumeUp,
        "audioplay" | "media_play_pause" | "play_pause" => MediaPlayPause,
        "audiostop" | "media_stop" => MediaStop,
        "audionext" | "media_next" | "media_next_track" => MediaNext,
        "audioprev" | "media_prev" | "media_previous" | "media_prev_track" => MediaPrevious,
        "back" | "browser_back" => BrowserBack,
        "forward" | "browser_forward" => BrowserForward,
        "refresh" | "browser_refresh" => BrowserRefresh,
        "homepage" | "browser_home" => BrowserHome,
        _ => {
            // XF86 names as xdotool writes them ("XF86AudioPlay").
            if let Some(rest) = lower.strip_prefix("xf86") {
                return key_of_name(rest).filter(|k| matches!(k, Key::Named(n) if n.is_media()));
            }
            if let Some(digit) = lower.strip_prefix("kp_") {
                let n: u8 = digit.parse().ok().filter(|n| *n <= 9)?;
                return Some(Key::Named(KpDigit(n)));
            }
            let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
            if (1..=35).contains(&n) {
                F(n)
            } else {
                return None;
            }
        }
    };
    Some(Key::Named(named))
}

/// The key that types `c`: line breaks, tabs and backspace are their named keys.
pub fn key_of_char(c: char) -> Key {
    match c {
        '\n' | '\r' => Key::Named(NamedKey::Return),
        '\t' => Key::Named(NamedKey::Tab),
        '\u{8}' => Key::Named(NamedKey::Backspace),
        _ => Key::Char(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NamedKey::*;

    #[test]
    fn combos_parse_into_keys() {
        assert_eq!(
            parse_combo("ctrl+shift+t"),
            Ok(vec![Key::Named(Ctrl), Key::Named(Shift), Key::Char('t')])
        );
        assert_eq!(parse_combo("Return"), Ok(vec![Key::Named(Return)]));
        assert_eq!(
            parse_combo("alt+F4"),
            Ok(vec![Key::Named(Alt), Key::Named(F(4))])
        );
        assert_eq!(
            parse_combo("ctrl++"),
            Ok(vec![Key::Named(Ctrl), Key::Char('+')])
        );
        assert_eq!(parse_combo("+"), Ok(vec![Key::Char('+')]));
        assert_eq!(
            parse_combo("cmd+space"),
            Ok(vec![Key::Named(Super), Key::Char(' ')])
        );
        assert!(parse_combo("ctrl+nosuchkey").is_err());
        assert!(parse_combo("F36").is_err());
        assert!(parse_combo("").is_err());
    }

    #[test]
    fn a_combo_shows_in_names_that_parse_back_to_it() {
        for text in [
            "ctrl+shift+t",
            "Return",
            "alt+F4",
            "ctrl++",
            "cmd+space",
            "KP_Enter",
            "shift_r+page_down",
            "ctrl+א",
            "BackSpace",
            "F35",
            "-",
            "KP_Add",
            "KP_7",
            "kp_multiply",
            "AudioPlay",
            "XF86AudioRaiseVolume",
            "ctrl+Back",
            "Num_Lock",
            "F24",
        ] {
            let combo: Combo = text.parse().unwrap();
            let shown = combo.to_string();
            assert_eq!(
                shown.parse::<Combo>(),
                Ok(combo.clone()),
                "{text} -> {shown}"
            );
            let json = serde_json::to_value(&combo).unwrap();
            assert_eq!(json, serde_json::json!(shown));
            assert_eq!(serde_json::from_value::<Combo>(json).unwrap(), combo);
        }
        assert_eq!("ctrl++".parse::<Combo>().unwrap().to_string(), "ctrl+plus");
        let bad = serde_json::from_value::<Combo>(serde_json::json!("ctrl+nosuchkey"));
        assert!(bad
            .unwrap_err()
            .to_string()
            .contains("unknown key \"nosuchkey\""));
    }

    /// Issue 40 (cua-auto-harness): keypad keys other than KP_Enter had no name.
    #[test]
    fn regression_kp_add_was_an_invalid_argument() {
        assert_eq!(parse_combo("kp_add"), Ok(vec![Key::Named(KpAdd)]));
        assert_eq!(parse_combo("KP_0"), Ok(vec![Key::Named(KpDigit(0))]));
        assert!(parse_combo("KP_10").is_err());
        assert!(
            parse_combo("XF86Return").is_err(),
            "only media keys take the XF86 prefix"
        );
        assert_eq!(
            parse_combo("XF86AudioMute"),
            Ok(vec![Key::Named(VolumeMute)])
        );
    }

    #[test]
    fn held_modifiers_come_from_a_combination_of_modifiers_only() {
        let held = |text: &str| Modifiers::of(&text.parse::<Combo>().unwrap());
        assert_eq!(
            held("ctrl+shift_r"),
            Ok(Modifiers {
                ctrl: true,
                shift: true,
                ..Modifiers::default()
            })
        );
        assert_eq!(
            held("ctrl+shift").map(Modifiers::keys),
            Ok(vec![Ctrl, Shift])
        );
        assert!(held("ctrl+a").is_err());
        assert!(held("ctrl").is_ok_and(|m| !m.is_empty()));
    }

    #[test]
    fn activating_keys_are_known() {
        assert!(key_of_char('\n').is_activating());
        assert!(Key::Char(' ').is_activating());
        assert!(!Key::Char('a').is_activating());
        assert!(Ctrl.is_modifier() && !Return.is_modifier());
    }
}
