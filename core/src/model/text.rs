//! Label normalization, shared by label matching and the safety gate so both see text the same
//! way: "Delete…", "DELETE" and "delete" are one label, "מְחַק" and "מחק" are one word.

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

/// Bidi and zero-width marks removed by [`normalize`] (and nothing else of category Cf).
fn is_listed_mark(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Hebrew points and cantillation (U+0591–U+05C7, maqaf aside, which becomes a space first).
fn is_hebrew_mark(c: char) -> bool {
    ('\u{0591}'..='\u{05C7}').contains(&c) && c != '\u{05BE}'
}

/// The normalized form of a label (matching tier 2): maqaf to space, mnemonic markers stripped
/// ("_Save", "~Save", "&Save"), a lone "&" read as "and", NFKC, full case folding, Hebrew niqqud
/// and cantillation stripped, dashes to "-", typographic quotes and geresh/gershayim to ASCII
/// quotes, the listed bidi and zero-width marks removed, a trailing `…`, `...` or `:` stripped,
/// whitespace collapsed. So a label reads the way people type it: "Excel 2007-365" is
/// "Excel 2007–365", "Find & Replace" is "Find and Replace".
pub fn normalize(label: &str) -> String {
    normalize_with(label, is_listed_mark)
}

/// What the safety gate compares, so no invisible or lookalike character can hide a blocked word:
/// [`normalize`], then every format character (category Cf: bidi overrides and isolates,
/// zero-width characters, tags) removed, letters decomposed and their marks dropped (combining
/// grapheme joiner and variation selectors included: "Délete" is "delete"), invisible letters
/// (Hangul fillers, the blank Braille pattern) dropped, and lookalike letters mapped to their
/// Latin skeleton ([`crate::model::confusables`]: Cyrillic "е" is "e").
pub fn normalize_strict(label: &str) -> String {
    let base = normalize_with(label, |c| {
        get_general_category(c) == GeneralCategory::Format
    });
    let stripped: String = base
        .nfd()
        .filter(|c| {
            !matches!(
                get_general_category(*c),
                GeneralCategory::NonspacingMark
                    | GeneralCategory::EnclosingMark
                    | GeneralCategory::Format
            ) && !crate::model::confusables::is_invisible_letter(*c)
        })
        .map(crate::model::confusables::skeleton_char)
        .collect();
    stripped
        .nfc()
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `label` with the toolkits' mnemonic markers removed and a lone "&" spelled "and": GTK's "_",
/// LibreOffice's "~" and Qt's and Windows' "&" before a letter or digit at the start of a word
/// (inside a word they are text: "file_name", "R&D").
fn unmark(label: &str) -> String {
    let chars: Vec<char> = label.chars().collect();
    let mut out = String::with_capacity(label.len());
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let before = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let word_start = before.is_none_or(char::is_whitespace);
        let marks_next = next.is_some_and(char::is_alphanumeric);
        match c {
            '&' | '_' | '~' if marks_next && word_start => {}
            '&' if word_start && next.is_none_or(char::is_whitespace) => out.push_str("and"),
            '\u{05BE}' => out.push(' '),
            other => out.push(other),
        }
    }
    out
}

/// Dashes and typographic quotes as people type them.
fn plain_punctuation(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{05F3}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{05F4}' => '"',
        other => other,
    }
}

/// [`normalize_pass`] until nothing changes: stripping one mark can expose another (a marker
/// behind a zero-width space, "&" before a trailing "..."), and normalizing twice must change
/// nothing.
fn normalize_with(label: &str, drop: impl Fn(char) -> bool) -> String {
    let mut out = normalize_pass(label, &drop);
    for _ in 0..8 {
        let again = normalize_pass(&out, &drop);
        if again == out {
            break;
        }
        out = again;
    }
    out
}

fn normalize_pass(label: &str, drop: &impl Fn(char) -> bool) -> String {
    let spaced = unmark(label);
    let composed: String = spaced.nfkc().collect();
    // Folding can leave text that is no longer normalized, and dropping marks can let the marks
    // around them compose: normalize after each, so normalizing twice changes nothing.
    let folded: String = caseless::default_case_fold_str(&composed).nfkc().collect();
    let cleaned: String = folded
        .chars()
        .filter(|c| !is_hebrew_mark(*c) && !drop(*c))
        .map(plain_punctuation)
        .collect::<String>()
        .nfc()
        .collect();
    let mut out = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    // Every trailing mark, so that normalizing twice changes nothing ("Name::", "Save as…:").
    while let Some(stripped) = ["...", "…", ":"]
        .iter()
        .find_map(|suffix| out.strip_suffix(suffix))
    {
        out = stripped.trim_end().to_owned();
    }
    out
}

/// Where `needle` occurs in `haystack`, ignoring case, as a byte range of `haystack` itself.
///
/// The one way to search case-insensitively and then slice the original: offsets found in a
/// lower-cased copy are wrong wherever a character's lower case has another length ("İ", the
/// KELVIN SIGN), and slicing with them panicked or cut the wrong text.
pub fn find_ignore_case(haystack: &str, needle: &str) -> Option<std::ops::Range<usize>> {
    let want: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    if want.is_empty() {
        return Some(0..0);
    }
    for (start, _) in haystack.char_indices() {
        let mut matched = 0;
        for (offset, c) in haystack[start..].char_indices() {
            let lower: Vec<char> = c.to_lowercase().collect();
            if want.get(matched..matched + lower.len()) != Some(&lower[..]) {
                break;
            }
            matched += lower.len();
            if matched == want.len() {
                return Some(start..start + offset + c.len_utf8());
            }
        }
    }
    None
}

/// Where a suffix of `haystack` equals `needle` ignoring case: the byte offset in `haystack` at
/// which it starts (see [`find_ignore_case`] for why offsets come from the original).
pub fn suffix_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    let want: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    haystack
        .char_indices()
        .map(|(i, _)| i)
        .chain([haystack.len()])
        .find(|start| {
            haystack[*start..]
                .chars()
                .flat_map(char::to_lowercase)
                .eq(want.iter().copied())
        })
}

/// Splits normalized text into words: runs of letters, marks and digits.
pub fn words(normalized: &str) -> Vec<&str> {
    normalized
        .split(|c: char| {
            !(c.is_alphanumeric() || get_general_category(c) == GeneralCategory::NonspacingMark)
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_folding_is_full_not_just_lowercase() {
        assert_eq!(normalize("STRASSE"), normalize("straße"));
        assert_eq!(normalize("  Delete   File… "), "delete file");
        assert_eq!(normalize("Save as..."), "save as");
        assert_eq!(normalize("Name:"), "name");
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/text.rs`): "::" normalized to ":", and again to "".
    #[test]
    fn fuzz_normalize_twice_changes_nothing() {
        for label in [
            "::",
            "Save as…:",
            "Name ::",
            "a...…",
            // Folding and dropped marks left text that composed on a second pass.
            "@eeë\u{301}\u{308}\u{301}\u{360}",
            "e\u{5B0}\u{301}",
        ] {
            let once = normalize(label);
            assert_eq!(normalize(&once), once, "{label:?}");
        }
        assert_eq!(normalize("Save as…:"), "save as");
    }

    /// Issue 40: "Excel 2007-365" did not match the label's en dash, "Find & Replace" did not
    /// match "Find and Replace".
    #[test]
    fn labels_read_as_people_type_them() {
        assert_eq!(normalize("Excel 2007–365"), normalize("Excel 2007-365"));
        assert_eq!(normalize("Excel 2007—365"), "excel 2007-365");
        assert_eq!(normalize("Find & Replace"), normalize("Find and Replace"));
        assert_eq!(normalize("“Quoted” it’s"), "\"quoted\" it's");
        assert_eq!(normalize("Save As…"), normalize("Save As..."));
        // Mnemonic markers of GTK, LibreOffice and Qt.
        for marked in ["_Save As", "~Save As", "&Save As", "Save &As", "Save _As"] {
            assert_eq!(normalize(marked), "save as", "{marked:?}");
        }
        // Not markers: inside a word, or a doubled "&".
        assert_eq!(normalize("file_name"), "file_name");
        assert_eq!(normalize("R&D"), "r&d");
        assert_eq!(normalize("&&Save"), "&&save");
        // Found while writing: stripping one mark exposed another on a second pass.
        for label in [
            "\u{200B}_Save",
            "x &...",
            "\u{FF06}Save",
            "a _&b",
            "&\u{200B}",
        ] {
            let once = normalize(label);
            assert_eq!(normalize(&once), once, "{label:?}");
        }
    }

    #[test]
    fn hebrew_points_maqaf_and_geresh() {
        assert_eq!(normalize("מְחַק"), "מחק");
        assert_eq!(normalize("הסר־התקנה"), "הסר התקנה");
        assert_eq!(normalize("צ׳ק"), "צ'ק");
        assert_eq!(normalize("דו״ח"), "דו\"ח");
    }

    #[test]
    fn only_listed_marks_go_in_normalize_but_all_format_characters_in_strict() {
        assert_eq!(normalize("De\u{200B}lete"), "delete");
        // U+00AD SOFT HYPHEN is Cf but not listed: kept by normalize, dropped by strict.
        assert_eq!(normalize("De\u{00AD}lete"), "de\u{00AD}lete");
        assert_eq!(normalize_strict("De\u{00AD}lete"), "delete");
        assert_eq!(normalize_strict("\u{2067}Send\u{2069}"), "send");
    }

    #[test]
    fn strict_form_drops_marks_joiners_selectors_fillers_and_lookalikes() {
        for evasive in [
            "Dеlеtе",         // Cyrillic е
            "DΕLΕTΕ",         // Greek Ε
            "De\u{034F}lete", // combining grapheme joiner
            "Del\u{FE0F}ete", // variation selector
            "De\u{3164}lete", // Hangul filler
            "Dé\u{0301}lete", // combining acute
            "Délete",
            "ᴅᴇʟᴇᴛᴇ", // small capitals
            "De1ete",
            "\u{202E}Delete\u{202C}",
            "Dele\u{E0041}te", // tag character
        ] {
            assert_eq!(normalize_strict(evasive), "delete", "{evasive:?}");
        }
        assert_eq!(normalize_strict("מְחַק"), "מחק");
    }

    #[test]
    fn nfkc_unifies_compatibility_forms() {
        assert_eq!(normalize("Ｄｅｌｅｔｅ"), "delete");
        assert_eq!(normalize("ﬁle"), "file");
    }

    #[test]
    fn regression_case_insensitive_find_returns_offsets_into_the_original() {
        let line = "İ next step:é";
        let r = find_ignore_case(line, "NEXT STEP:").unwrap_or(0..0);
        assert_eq!(&line[r.clone()], "next step:");
        assert_eq!(&line[r.end..], "é");
        let line = "İİ next step: do it é";
        let r = find_ignore_case(line, "next step:").unwrap_or(0..0);
        assert_eq!(line[r.end..].trim(), "do it é");
        assert_eq!(find_ignore_case("\u{212A}elvin", "kelvin"), Some(0..8));
        assert_eq!(find_ignore_case("abc", "x"), None);
        assert_eq!(
            suffix_ignore_case("\u{212A} - Mozilla FIREFOX", " - mozilla firefox"),
            Some(3)
        );
        assert_eq!(suffix_ignore_case("page", " - mozilla firefox"), None);
        assert_eq!(find_ignore_case("", ""), Some(0..0));
    }

    #[test]
    fn words_split_on_punctuation() {
        assert_eq!(words("delete-file now!"), vec!["delete", "file", "now"]);
        assert_eq!(words("מחק את הקובץ"), vec!["מחק", "את", "הקובץ"]);
    }
}
