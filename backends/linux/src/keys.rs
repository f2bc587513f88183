//! Key names and characters to X keysyms: pure, so it is tested everywhere.

/// A key combination parsed into keysyms: modifiers first, the key last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo(pub Vec<u32>);

/// Parses `ctrl+shift+t`, `Return`, `alt+F4`, `ctrl++`, `שלום`-free single characters.
pub fn parse_combo(combo: &str) -> Result<Combo, String> {
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
    let mut syms = Vec::with_capacity(parts.len());
    for part in parts {
        let part = part.trim();
        syms.push(
            keysym_of_name(part).ok_or_else(|| format!("unknown key {part:?} in {combo:?}"))?,
        );
    }
    Ok(Combo(syms))
}

/// The keysym of a key name (`Return`, `ctrl`, `F5`, `a`, `א`), case-insensitive for names.
pub fn keysym_of_name(name: &str) -> Option<u32> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        return Some(keysym_of_char(c));
    }
    let lower = name.to_ascii_lowercase();
    let sym = match lower.as_str() {
        "return" | "enter" => 0xff0d,
        "kp_enter" => 0xff8d,
        "tab" => 0xff09,
        "escape" | "esc" => 0xff1b,
        "backspace" => 0xff08,
        "delete" | "del" => 0xffff,
        "insert" | "ins" => 0xff63,
        "home" => 0xff50,
        "left" => 0xff51,
        "up" => 0xff52,
        "right" => 0xff53,
        "down" => 0xff54,
        "page_up" | "pageup" | "prior" => 0xff55,
        "page_down" | "pagedown" | "next" => 0xff56,
        "end" => 0xff57,
        "menu" => 0xff67,
        "print" => 0xff61,
        "space" => 0x20,
        "plus" => 0x2b,
        "minus" => 0x2d,
        "shift" | "shift_l" => 0xffe1,
        "shift_r" => 0xffe2,
        "ctrl" | "control" | "control_l" | "ctrl_l" => 0xffe3,
        "control_r" | "ctrl_r" => 0xffe4,
        "caps_lock" | "capslock" => 0xffe5,
        "alt" | "alt_l" => 0xffe9,
        "alt_r" | "altgr" => 0xffea,
        "super" | "super_l" | "win" | "meta" | "cmd" | "command" => 0xffeb,
        "super_r" => 0xffec,
        _ => {
            let n: u32 = lower.strip_prefix('f')?.parse().ok()?;
            if (1..=35).contains(&n) {
                0xffbe + n - 1
            } else {
                return None;
            }
        }
    };
    Some(sym)
}

/// The keysym that types `c`: Latin-1 maps to itself, control characters to their keys, the
/// rest of Unicode to `0x0100_0000 + code point`.
pub fn keysym_of_char(c: char) -> u32 {
    match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        '\u{8}' => 0xff08,
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        _ => 0x0100_0000 + c as u32,
    }
}

/// True for keysyms that activate the focused element (Enter, Return, space): the safety gate
/// checks the focused element before sending them.
pub fn is_activating(keysym: u32) -> bool {
    matches!(keysym, 0xff0d | 0xff8d | 0x20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_parse() {
        assert_eq!(
            parse_combo("ctrl+shift+t"),
            Ok(Combo(vec![0xffe3, 0xffe1, 0x74]))
        );
        assert_eq!(parse_combo("Return"), Ok(Combo(vec![0xff0d])));
        assert_eq!(parse_combo("alt+F4"), Ok(Combo(vec![0xffe9, 0xffc1])));
        assert_eq!(parse_combo("ctrl++"), Ok(Combo(vec![0xffe3, 0x2b])));
        assert_eq!(parse_combo("+"), Ok(Combo(vec![0x2b])));
        assert!(parse_combo("ctrl+nosuchkey").is_err());
        assert!(parse_combo("").is_err());
    }

    #[test]
    fn characters_map_to_keysyms() {
        assert_eq!(keysym_of_char('a'), 0x61);
        assert_eq!(keysym_of_char('é'), 0xe9);
        assert_eq!(keysym_of_char('ש'), 0x0100_05e9);
        assert_eq!(keysym_of_char('😀'), 0x0101_f600);
        assert_eq!(keysym_of_char('\n'), 0xff0d);
        assert!(is_activating(keysym_of_char('\n')));
        assert!(!is_activating(keysym_of_char('a')));
    }
}
