//! Lookalike letters mapped to one skeleton, so "Dеlеtе" written with Cyrillic е is the word
//! "delete" to the safety gate.
//!
//! The table follows Unicode TS #39's confusables for the scripts whose letters pass for Latin
//! ones (Cyrillic, Greek, Latin small capitals and dotless forms, the digits 0 and 1), applied
//! after case folding, so each entry is a lower-case letter. It is deliberately one way and
//! letter by letter: it only ever makes the gate stricter, it never changes what is typed or shown.

/// The Latin letter `c` passes for, or `c` itself.
pub fn skeleton_char(c: char) -> char {
    match c {
        // Cyrillic (lower case, after folding; capitals fold onto these).
        'а' => 'a',
        'в' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' => 'e',
        'һ' | 'н' => 'h',
        'і' | 'ї' | 'ӏ' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'м' => 'm',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' => 't',
        'у' | 'ү' => 'y',
        'ԝ' => 'w',
        'х' => 'x',
        // Greek.
        'α' => 'a',
        'β' => 'b',
        'ε' => 'e',
        'η' => 'h',
        'ι' => 'i',
        'ϳ' => 'j',
        'κ' => 'k',
        'μ' => 'm',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'y',
        'χ' => 'x',
        'ζ' => 'z',
        'γ' => 'y',
        'ω' => 'w',
        // Latin lookalikes NFKC leaves alone: dotless letters, script l, small capitals.
        'ı' | 'ɩ' | 'ɪ' => 'i',
        'ȷ' | 'ᴊ' => 'j',
        'ℓ' | 'ʟ' => 'l',
        'ɑ' | 'ᴀ' => 'a',
        'ɡ' | 'ɢ' => 'g',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ʜ' => 'h',
        'ᴋ' => 'k',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        // Digits that pass for letters inside a word.
        '0' => 'o',
        '1' => 'l',
        other => other,
    }
}

/// Characters that show as nothing but are letters or symbols, not format characters: Hangul
/// fillers and the blank Braille pattern. The gate drops them.
pub fn is_invisible_letter(c: char) -> bool {
    matches!(
        c,
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookalikes_fold_onto_latin() {
        let skeleton: String = "dеlеtе".chars().map(skeleton_char).collect();
        assert_eq!(skeleton, "delete");
        let greek: String = "ραγ".chars().map(skeleton_char).collect();
        assert_eq!(greek, "pay");
        assert_eq!(skeleton_char('ש'), 'ש');
        assert!(is_invisible_letter('\u{3164}'));
        assert!(!is_invisible_letter('a'));
    }
}
