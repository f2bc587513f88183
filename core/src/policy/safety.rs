//! The safety gate: every acting tool asks it before pressing, clicking or typing.
//!
//! The built-in blocklist (the predecessor's English and Hebrew words, the verbs that destroy,
//! send or pay that it missed, and their translations in German, French, Spanish, Portuguese,
//! Russian, Chinese, Japanese and Arabic taken from the toolkits' own catalogs,
//! [`crate::policy::safety_words`]) is always enforced, in every language at once; config and
//! environment can only add words ([`Gate::new`] takes extras, never removals). Both sides are
//! normalized as label matching does, plus every format character removed, then matched as whole
//! words: "Delete" blocks "Delete file" and "מְחַק" blocks "מחק", but "Format" does not block
//! "Information". Chinese and Japanese, written without spaces, match inside a label ("删除文件").
//! A rule with `…` lets up to [`MAX_GAP`] words stand there ("Place … order" blocks "Place this
//! order now?").
//!
//! A label is read in every way a person may see it, and any reading that holds a blocked word
//! decides: as written ([`crate::model::text::normalize_strict`]: lookalike letters of the common
//! scripts, invisible characters), as displayed under a bidi override (a reversed run reads
//! forwards), without the space-like characters other than a plain space ("De\u{2009}lete"), and
//! as its Unicode TS #39 skeleton (`unicode-security`: every confusable letter of every script).
//! Hebrew verbs are listed in the forms a UI uses, and the
//! prefixes ו, ה, ל, ב, מ (and וה, ול, וב, ומ, מה) attached to a listed form also match
//! ("ולשלוח"), while everyday words that merely contain one stay allowed ("כאשר", "אפשרות").
//!
//! The gate returns a [`Decision`]; a policy (confirm flag, or a person's approval) decides what
//! happens with "needs confirmation".

use serde::{Deserialize, Serialize};

use crate::model::text;

/// Words a `…` in a rule may stand for, at most.
pub const MAX_GAP: usize = 3;

/// The built-in blocklist. Words here can never be removed by configuration.
pub const DEFAULT_BLOCKLIST: &[&str] = &[
    // English
    "Delete",
    "Remove",
    "Send",
    "Allow",
    "Approve",
    "Accept",
    "Pay",
    "Buy",
    "Purchase",
    "Submit",
    "Confirm",
    "Publish",
    "Merge",
    "Uninstall",
    "Format",
    // English verbs that destroy, send or pay, beyond the predecessor's.
    "Move … to … Trash",
    "Move … to … Bin",
    "Discard",
    "Don't Save",
    "Close without Saving",
    "Erase",
    "Empty … Trash",
    "Empty … Bin",
    "Overwrite",
    "Post",
    "Reply",
    "Forward",
    "Share",
    "Checkout",
    "Check out",
    "Place … order",
    "Order now",
    "Transfer",
    "Install",
    "Wipe",
    "Destroy",
    "Shred",
    "Permanently",
    // Hebrew multi-word
    "הסר התקנה",
    // Hebrew, per verb: masculine, feminine and plural imperatives, infinitive, verbal noun
    // (absolute and construct, singular and plural), present tense; both spellings where
    // Hebrew writes the vowel letters or leaves them out. A form that is also an everyday word is
    // left out on purpose (the table in the tests says which and why).
    // delete
    "מחק",
    "מחקי",
    "מחקו",
    "למחוק",
    "מחיקה",
    "מחיקת",
    "מחיקות",
    "מוחק",
    "מוחקת",
    // remove
    "הסר",
    "הסירי",
    "הסירו",
    "להסיר",
    "הסרה",
    "הסרת",
    "הסרות",
    // send
    "שלח",
    "שלחי",
    "שלחו",
    "לשלוח",
    "לשלח",
    "שליחה",
    "שליחת",
    // approve / confirm
    "אשר",
    "אשרי",
    "אשרו",
    "לאשר",
    "אישור",
    "אשור",
    "אישורים",
    "אישורי",
    "אישרו",
    // allow
    "אפשר",
    "אפשרו",
    "לאפשר",
    "אפשור",
    "איפשור",
    // pay
    "שלם",
    "שלמי",
    "שלמו",
    "לשלם",
    "תשלום",
    "תשלומים",
    "תשלומי",
    // buy
    "קנה",
    "קני",
    "קנו",
    "לקנות",
    "קנייה",
    "קניה",
    "קניית",
    // publish
    "פרסם",
    "פרסמי",
    "פרסמו",
    "לפרסם",
    "פרסום",
    "פירסום",
];

/// The Hebrew prefixes that, attached to a blocked Hebrew form, still match: and (ו), the (ה), to
/// (ל), in/with (ב), from (מ), and their usual combinations ("ושלח", "המחיקה", "לתשלום",
/// "ולאשר"). Others are left out on purpose: כ and ש would block everyday words ("כאשר",
/// "when").
const HEBREW_PREFIXES: &[&str] = &["ו", "ה", "ל", "ב", "מ", "וה", "ול", "וב", "ומ", "מה"];

/// What the gate says about one label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Nothing on the blocklist.
    Allowed,
    /// A blocked word is in the label: act only with confirmation.
    NeedsConfirmation {
        /// The label as it was checked (what would be activated).
        label: String,
        /// The blocklist entry that matched.
        matched_rule: String,
    },
}

impl Decision {
    /// True for [`Decision::Allowed`].
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed)
    }
}

/// One blocklist entry, normalized once.
#[derive(Debug, Clone)]
struct Rule {
    /// As written (what a refusal names).
    text: String,
    /// Its words in the strict form, in segments that `…` separates.
    segments: Vec<Vec<String>>,
    /// The same from its TS #39 skeleton.
    skeleton: Vec<Vec<String>>,
    /// Written in a script without spaces (Chinese, Japanese): matched inside a label, as this.
    unspaced: Option<String>,
}

impl Rule {
    fn new(text: &str) -> Option<Rule> {
        let segments: Vec<Vec<String>> = text
            .split(['…'])
            .map(|part| owned_words(&text::normalize_strict(part)))
            .filter(|w| !w.is_empty())
            .collect();
        if segments.is_empty() {
            return None;
        }
        let skeleton = text
            .split(['…'])
            .map(|part| owned_words(&skeleton_of(part)))
            .filter(|w| !w.is_empty())
            .collect();
        let unspaced = text.chars().any(is_unspaced_script).then(|| {
            text::normalize_strict(text)
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '…')
                .collect()
        });
        Some(Rule {
            text: text.to_owned(),
            segments,
            skeleton,
            unspaced,
        })
    }
}

/// The blocklist, normalized once.
#[derive(Debug, Clone)]
pub struct Gate {
    rules: Vec<Rule>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new(&[])
    }
}

impl Gate {
    /// The built-in list (every language) plus `extra` words (extras only add).
    pub fn new(extra: &[String]) -> Gate {
        let rules = builtin_words()
            .map(str::to_owned)
            .chain(extra.iter().cloned())
            .filter_map(|rule| Rule::new(&rule))
            .collect();
        Gate { rules }
    }

    /// Checks one label (a requested target, an element's name, what lies under a point, or the
    /// focused element before an activating key), in every reading a person may see.
    pub fn check(&self, label: &str) -> Decision {
        let readings = readings(label);
        let skeleton = owned_words(&skeleton_of(label));
        for rule in &self.rules {
            let hit = readings.iter().any(|r| {
                let words = text::words(r);
                matches_segments(&words, &rule.segments, true)
                    || rule.unspaced.as_ref().is_some_and(|u| {
                        r.chars()
                            .filter(|c| !c.is_whitespace())
                            .collect::<String>()
                            .contains(u.as_str())
                    })
            }) || matches_segments(
                &skeleton.iter().map(String::as_str).collect::<Vec<_>>(),
                &rule.skeleton,
                false,
            );
            if hit {
                return Decision::NeedsConfirmation {
                    label: label.to_owned(),
                    matched_rule: rule.text.clone(),
                };
            }
        }
        Decision::Allowed
    }

    /// Checks several labels; the first that needs confirmation decides.
    pub fn check_all<'a>(&self, labels: impl IntoIterator<Item = &'a str>) -> Decision {
        labels
            .into_iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| self.check(l))
            .find(|d| !d.is_allowed())
            .unwrap_or(Decision::Allowed)
    }
}

/// Rules that spend money: a control whose label holds one is judged even where its role says
/// it only sets an option (a web page decides its own roles: a `role="checkbox"` "Pay now").
const MONEY: &[&str] = &[
    "Pay",
    "Buy",
    "Purchase",
    "Checkout",
    "Check out",
    "Place … order",
    "Order now",
    "Transfer",
];

/// Whether `rule` (a matched rule as [`Decision::NeedsConfirmation`] names it) spends money: one
/// of the money rules (Pay, Buy, Purchase, Checkout, Place … order, Transfer…) or a catalog
/// translation of one.
pub fn spends_money(rule: &str) -> bool {
    MONEY.contains(&rule)
        || crate::policy::safety_words::TRANSLATED
            .iter()
            .any(|(_, source, word, _)| *word == rule && MONEY.contains(source))
}

/// English verbs whose catalog translations are not taken: they are not on the English list
/// either (resetting a setting, the Trash folder, a number's sign), and in other languages they
/// are everyday words of settings dialogs and file managers.
const NOT_TRANSLATED: &[&str] = &["Reset", "Trash", "Sign"];

/// Every built-in word: the list above and the catalogs' translations
/// ([`crate::policy::safety_words`]), except Hebrew, whose forms are chosen by hand above (the catalogs
/// give everyday words such as "תגובה", a comment, for Reply).
fn builtin_words() -> impl Iterator<Item = &'static str> {
    DEFAULT_BLOCKLIST.iter().copied().chain(
        crate::policy::safety_words::TRANSLATED
            .iter()
            .filter(|(lang, source, _, _)| *lang != "he" && !NOT_TRANSLATED.contains(source))
            .map(|(_, _, word, _)| *word),
    )
}

fn owned_words(normalized: &str) -> Vec<String> {
    text::words(normalized)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Chinese and Japanese scripts, written without spaces between words.
fn is_unspaced_script(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// The label's TS #39 skeleton, case-folded as the strict form is. Hebrew, Arabic, Chinese and
/// Japanese letters are kept: their prototypes are Latin marks and apostrophes (a yod is "'"),
/// which would cut their words apart, and their lookalikes are not what hides a Latin word.
fn skeleton_of(label: &str) -> String {
    let folded = text::normalize_strict(label);
    let mut skeleton = String::with_capacity(folded.len());
    let mut buf = [0u8; 4];
    for c in folded.chars() {
        if is_unspaced_script(c)
            || matches!(c, '\u{0590}'..='\u{06FF}' | '\u{0750}'..='\u{077F}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
        {
            skeleton.push(c);
        } else {
            skeleton.extend(unicode_security::skeleton(c.encode_utf8(&mut buf)));
        }
    }
    text::normalize_strict(&skeleton)
}

/// The strict forms of every way a label may be read: as written, as displayed under a bidi
/// override (the run reversed), and without space-like characters other than U+0020.
fn readings(label: &str) -> Vec<String> {
    let mut out = vec![text::normalize_strict(label)];
    if let Some(shown) = displayed(label) {
        out.push(text::normalize_strict(&shown));
    }
    if label.chars().any(|c| c.is_whitespace() && c != ' ') {
        let despaced: String = label
            .chars()
            .filter(|c| !c.is_whitespace() || *c == ' ')
            .collect();
        out.push(text::normalize_strict(&despaced));
    }
    out.dedup();
    out
}

/// The label as displayed when it holds a right-to-left override (U+202E): each overridden run,
/// up to its POP DIRECTIONAL FORMATTING (or isolate end, or the end), reversed.
fn displayed(label: &str) -> Option<String> {
    if !label.contains('\u{202E}') {
        return None;
    }
    let mut out = String::new();
    let mut run: Option<Vec<char>> = None;
    for c in label.chars() {
        match c {
            '\u{202E}' => {
                if let Some(r) = run.take() {
                    out.extend(r.iter().rev());
                }
                run = Some(Vec::new());
            }
            '\u{202C}' | '\u{2069}' if run.is_some() => {
                if let Some(r) = run.take() {
                    out.extend(r.iter().rev());
                }
            }
            c => match &mut run {
                Some(r) => r.push(c),
                None => out.push(c),
            },
        }
    }
    if let Some(r) = run {
        out.extend(r.iter().rev());
    }
    Some(out)
}

/// The segments occur in order in `words`, each as a whole phrase, at most [`MAX_GAP`] words
/// after the previous one; `hebrew` lets a listed prefix stand before a segment's first word.
fn matches_segments(words: &[&str], segments: &[Vec<String>], hebrew: bool) -> bool {
    fn from(
        words: &[&str],
        segments: &[Vec<String>],
        start: usize,
        end: usize,
        hebrew: bool,
    ) -> bool {
        let Some((first, rest)) = segments.split_first() else {
            return true;
        };
        (start..=end.min(words.len())).any(|at| {
            phrase_at(words, at, first, hebrew)
                && from(
                    words,
                    rest,
                    at + first.len(),
                    at + first.len() + MAX_GAP,
                    hebrew,
                )
        })
    }
    !segments.is_empty() && from(words, segments, 0, words.len(), hebrew)
}

/// `phrase` stands in `words` at `at`.
fn phrase_at(words: &[&str], at: usize, phrase: &[String], hebrew: bool) -> bool {
    let Some(window) = words.get(at..at + phrase.len()) else {
        return false;
    };
    !phrase.is_empty()
        && window
            .iter()
            .zip(phrase)
            .enumerate()
            .all(|(i, (word, want))| {
                *word == want.as_str()
                    || (hebrew
                        && i == 0
                        && strip_hebrew_prefix(word).any(|rest| rest == want.as_str()))
            })
}

/// The forms `word` can be with one of [`HEBREW_PREFIXES`] taken off.
fn strip_hebrew_prefix(word: &str) -> impl Iterator<Item = &str> {
    HEBREW_PREFIXES
        .iter()
        .filter_map(move |p| word.strip_prefix(p))
        .filter(|rest| !rest.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(label: &str) -> Option<String> {
        match Gate::default().check(label) {
            Decision::Allowed => None,
            Decision::NeedsConfirmation { matched_rule, .. } => Some(matched_rule),
        }
    }

    #[test]
    fn whole_words_in_any_case_and_form() {
        assert_eq!(blocked("Delete").as_deref(), Some("Delete"));
        assert_eq!(blocked("Delete file").as_deref(), Some("Delete"));
        assert_eq!(blocked("DELETE…").as_deref(), Some("Delete"));
        assert_eq!(blocked("Send message").as_deref(), Some("Send"));
        assert_eq!(
            blocked("Information"),
            None,
            "Format must not match inside Information"
        );
        assert_eq!(blocked("Sender"), None);
        assert_eq!(blocked("Close"), None);
        assert_eq!(blocked("7"), None);
    }

    #[test]
    fn hebrew_with_points_and_prefixes() {
        assert_eq!(blocked("מְחַק").as_deref(), Some("מחק"));
        assert_eq!(blocked("ושלח").as_deref(), Some("שלח"));
        assert_eq!(blocked("המחיקה").as_deref(), Some("מחיקה"));
        assert_eq!(
            blocked("כאשר"),
            None,
            "other prefixes would block common words"
        );
        assert_eq!(blocked("הסר־התקנה").as_deref(), Some("הסר התקנה"));
        assert_eq!(blocked("סגור"), None);
    }

    /// Hebrew forms a UI uses, each decision written down: `true` must ask for confirmation.
    const HEBREW_TABLE: &[(&str, bool, &str)] = &[
        ("מחק", true, "delete! (m.)"),
        ("מחקי", true, "delete! (f.)"),
        ("מחקו", true, "delete! (pl.)"),
        ("ומחק", true, "and delete"),
        ("למחוק", true, "to delete"),
        ("ולמחוק", true, "and to delete"),
        ("מחיקה", true, "deletion"),
        ("המחיקה", true, "the deletion"),
        ("במחיקה", true, "in the deletion"),
        ("מחיקת", true, "deletion of (construct)"),
        ("מחיקות", true, "deletions"),
        ("מוחק", true, "deletes (present)"),
        ("מְחַק", true, "with niqqud"),
        ("הסר", true, "remove!"),
        ("והסר", true, "and remove"),
        ("הסירו", true, "remove! (pl.)"),
        ("להסיר", true, "to remove"),
        ("הסרה", true, "removal"),
        ("בהסרה", true, "in the removal"),
        ("הסרת", true, "removal of"),
        ("הסר התקנה", true, "uninstall"),
        ("הסר־התקנה", true, "uninstall, with maqaf"),
        ("שלח", true, "send!"),
        ("ושלח", true, "and send"),
        ("שלחי", true, "send! (f.)"),
        ("לשלוח", true, "to send"),
        ("שליחה", true, "sending"),
        ("בשליחה", true, "in sending"),
        ("שליחת", true, "sending of"),
        (
            "אשר",
            true,
            "approve! (also 'which': the predecessor blocks it)",
        ),
        ("אשרו", true, "approve! (pl.)"),
        ("לאשר", true, "to approve"),
        ("ולאשר", true, "and to approve"),
        ("אישור", true, "approval, plene spelling"),
        ("אשור", true, "approval, defective spelling"),
        ("לאישור", true, "for approval"),
        ("מאשר", true, "approves (present)"),
        (
            "באשר",
            true,
            "'regarding' is also ב + אשר: blocked, rare in a UI",
        ),
        (
            "אפשר",
            true,
            "allow! (also 'possible': the predecessor blocks it)",
        ),
        ("לאפשר", true, "to allow"),
        ("איפשור", true, "allowing, plene"),
        ("אפשור", true, "allowing, defective"),
        ("שלם", true, "pay!"),
        ("לשלם", true, "to pay"),
        ("תשלום", true, "payment"),
        ("לתשלום", true, "to payment"),
        ("מהתשלום", true, "from the payment"),
        ("קנה", true, "buy!"),
        ("לקנות", true, "to buy"),
        ("קנייה", true, "purchase, plene"),
        ("קניה", true, "purchase, defective"),
        ("פרסם", true, "publish!"),
        ("לפרסם", true, "to publish"),
        ("פרסום", true, "publication"),
        ("פירסום", true, "publication, plene"),
        // Everyday words that contain a blocked form but are not one.
        ("כאשר", false, "when: כ is not a listed prefix"),
        ("אשראי", false, "credit"),
        ("אשרה", false, "visa"),
        ("מאושר", false, "happy"),
        ("מחקר", false, "research"),
        ("מחקרים", false, "studies"),
        ("אפשרות", false, "possibility"),
        ("אפשרויות", false, "options (a settings button)"),
        (
            "אפשרי",
            false,
            "possible: also 'allow! (f.)', left out as the everyday word",
        ),
        ("הסרט", false, "the movie"),
        ("הסרטון", false, "the video"),
        ("הסבר", false, "explanation"),
        ("שלום", false, "hello"),
        ("בשלום", false, "in peace"),
        ("שלמות", false, "wholeness"),
        ("השלמה", false, "completion"),
        ("משלוח", false, "shipping"),
        ("שליח", false, "courier"),
        ("שולחן", false, "table"),
        ("קניון", false, "mall"),
        ("קנקן", false, "jug"),
        ("פרסה", false, "horseshoe"),
        ("פרסומת", false, "an advertisement"),
        ("תשלובת", false, "a conglomerate"),
        ("סגור", false, "close (not blocked by default)"),
    ];

    #[test]
    fn hebrew_forms_table() {
        let blocked_count = HEBREW_TABLE.iter().filter(|r| r.1).count();
        let allowed_count = HEBREW_TABLE.len() - blocked_count;
        assert!(blocked_count >= 40 && allowed_count >= 20);
        let gate = Gate::default();
        let wrong: Vec<String> = HEBREW_TABLE
            .iter()
            .filter(|(word, want_blocked, _)| gate.check(word).is_allowed() == *want_blocked)
            .map(|(word, want, why)| format!("{word} ({why}): want blocked={want}"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn lookalikes_and_invisibles_cannot_hide_a_blocked_word() {
        for evasive in [
            "Dеlеtе",
            "ΡΑΥ",
            "S\u{034F}end",
            "Pa\u{FE0F}y",
            "Sub\u{3164}mit",
            "\u{202E}Delete\u{202C}",
            "\u{2066}Send\u{2069} now",
            "ᴅᴇʟᴇᴛᴇ",
            "Dèlete",
            "A11ow",
        ] {
            assert!(!Gate::default().check(evasive).is_allowed(), "{evasive:?}");
        }
        assert!(Gate::default().check("Information").is_allowed());
        assert!(Gate::default().check("Sender").is_allowed());
    }

    /// Issue 39: buttons that read "Delete" on screen but are spelled otherwise.
    #[test]
    fn regression_reversed_runs_spaces_inside_words_and_other_scripts_lookalikes() {
        for evasive in [
            "\u{202E}eteleD\u{202C}",
            "\u{202E}eteleD",
            "Click \u{202E}dnes\u{202C} now",
            "De\u{2009}lete",
            "De\u{200A}lete",
            "S\u{3000}end",
            "Pa\u{205F}y",
            "Dеlеtе",
            "Ꭰelete",
            "Dеl\u{0435}te",
            "ꓓelete",
            "Ѕеnd",
            "Ρау",
        ] {
            assert!(!Gate::default().check(evasive).is_allowed(), "{evasive:?}");
        }
        for harmless in [
            "Replace All",
            "Find Next",
            "Sender",
            "Information",
            "Sort order",
            "Order",
        ] {
            assert!(Gate::default().check(harmless).is_allowed(), "{harmless:?}");
        }
    }

    #[test]
    fn gaps_in_multi_word_rules_and_unspaced_scripts() {
        assert_eq!(
            blocked("Place this order now?").as_deref(),
            Some("Place … order")
        );
        assert_eq!(
            blocked("Place your order").as_deref(),
            Some("Place … order")
        );
        assert_eq!(
            blocked("Move 3 items to the Trash?").as_deref(),
            Some("Move … to … Trash")
        );
        assert_eq!(
            blocked("Move to Trash").as_deref(),
            Some("Move … to … Trash")
        );
        assert_eq!(blocked("Place it in the sort order"), None, "too far apart");
        assert_eq!(blocked("Don’t Save").as_deref(), Some("Don't Save"));
        let gate = Gate::new(&["删除".to_owned()]);
        assert!(!gate.check("删除文件").is_allowed());
        assert!(gate.check("文件").is_allowed());
    }

    #[test]
    fn invisible_characters_cannot_hide_a_blocked_word() {
        assert_eq!(blocked("De\u{00AD}lete").as_deref(), Some("Delete"));
        assert_eq!(blocked("S\u{200B}end").as_deref(), Some("Send"));
        assert_eq!(blocked("\u{2067}Pay\u{2069} now").as_deref(), Some("Pay"));
        assert_eq!(blocked("Ｄｅｌｅｔｅ").as_deref(), Some("Delete"));
    }

    #[test]
    fn extras_only_add() {
        let gate = Gate::new(&["Nuke disk".to_owned(), "".to_owned()]);
        assert!(!gate.check("Nuke disk now").is_allowed());
        assert!(
            gate.check("Nuke").is_allowed(),
            "multi-word rules need the whole phrase"
        );
        assert!(!gate.check("Delete").is_allowed(), "built-ins stay");
    }

    #[test]
    fn check_all_reports_the_first_blocked_label() {
        let d = Gate::default().check_all(["Information", "", "Delete the file?"]);
        assert_eq!(
            d,
            Decision::NeedsConfirmation {
                label: "Delete the file?".into(),
                matched_rule: "Delete".into()
            }
        );
    }
}
