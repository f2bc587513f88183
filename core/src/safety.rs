//! The safety gate: every acting tool asks it before pressing, clicking or typing.
//!
//! The built-in blocklist (the predecessor's, English and Hebrew) is always enforced; config and
//! environment can only add words ([`Gate::new`] takes extras, never removals). Both sides are
//! normalized as label matching does, plus every format character removed, then matched as whole
//! words: "Delete" blocks "Delete file" and "מְחַק" blocks "מחק", but "Format" does not block
//! "Information"; lookalike letters and invisible characters cannot hide a word
//! ([`crate::text::normalize_strict`]). Hebrew verbs are listed in the forms a UI uses, and the
//! prefixes ו, ה, ל, ב, מ (and וה, ול, וב, ומ, מה) attached to a listed form also match
//! ("ולשלוח"), while everyday words that merely contain one stay allowed ("כאשר", "אפשרות").
//!
//! The gate returns a [`Decision`]; a policy (confirm flag, or a person's approval) decides what
//! happens with "needs confirmation".

use serde::{Deserialize, Serialize};

use crate::text;

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

/// The blocklist, normalized once.
#[derive(Debug, Clone)]
pub struct Gate {
    rules: Vec<(String, Vec<String>)>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new(&[])
    }
}

impl Gate {
    /// The built-in list plus `extra` words (extras only add).
    pub fn new(extra: &[String]) -> Gate {
        let rules = DEFAULT_BLOCKLIST
            .iter()
            .map(|w| (*w).to_owned())
            .chain(extra.iter().cloned())
            .filter_map(|rule| {
                let words: Vec<String> = text::words(&text::normalize_strict(&rule))
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                (!words.is_empty()).then_some((rule, words))
            })
            .collect();
        Gate { rules }
    }

    /// Checks one label (a requested target, an element's name, what lies under a point, or the
    /// focused element before an activating key).
    pub fn check(&self, label: &str) -> Decision {
        let normalized = text::normalize_strict(label);
        let words = text::words(&normalized);
        for (rule, rule_words) in &self.rules {
            if contains_phrase(&words, rule_words) {
                return Decision::NeedsConfirmation {
                    label: label.to_owned(),
                    matched_rule: rule.clone(),
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

fn contains_phrase(words: &[&str], phrase: &[String]) -> bool {
    if phrase.is_empty() || words.len() < phrase.len() {
        return false;
    }
    words.windows(phrase.len()).any(|window| {
        window
            .iter()
            .zip(phrase)
            .enumerate()
            .all(|(i, (word, want))| {
                *word == want.as_str()
                    || (i == 0 && strip_hebrew_prefix(word).any(|rest| rest == want.as_str()))
            })
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

    #[test]
    fn invisible_characters_cannot_hide_a_blocked_word() {
        assert_eq!(blocked("De\u{00AD}lete").as_deref(), Some("Delete"));
        assert_eq!(blocked("S\u{200B}end").as_deref(), Some("Send"));
        assert_eq!(blocked("\u{2067}Pay\u{2069} now").as_deref(), Some("Pay"));
        assert_eq!(blocked("Ｄｅｌｅｔｅ").as_deref(), Some("Delete"));
    }

    #[test]
    fn extras_only_add() {
        let gate = Gate::new(&["Wipe disk".to_owned(), "".to_owned()]);
        assert!(!gate.check("Wipe disk now").is_allowed());
        assert!(
            gate.check("Wipe").is_allowed(),
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
