//! The safety gate: every acting tool asks it before pressing, clicking or typing.
//!
//! The built-in blocklist (the predecessor's, English and Hebrew) is always enforced; config and
//! environment can only add words ([`Gate::new`] takes extras, never removals). Both sides are
//! normalized as label matching does, plus every format character removed, then matched as whole
//! words: "Delete" blocks "Delete file" and "מְחַק" blocks "מחק", but "Format" does not block
//! "Information". Only the Hebrew prefixes ו and ה attached to a blocked word also match ("ושלח").
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
    // Hebrew base actions
    "מחק",
    "הסר",
    "שלח",
    "אשר",
    "אפשר",
    "שלם",
    "קנה",
    "פרסם",
    // Hebrew plural imperatives
    "מחקו",
    "הסירו",
    "שלחו",
    "אשרו",
    "אפשרו",
    "שלמו",
    "קנו",
    "פרסמו",
    // Hebrew inflected forms, verbal nouns, infinitives
    "מחיקה",
    "למחוק",
    "הסרה",
    "להסיר",
    "שליחה",
    "לשלוח",
    "אישור",
    "לאשר",
    "לאפשר",
    "תשלום",
    "לשלם",
    "קנייה",
    "לקנות",
    "פרסום",
    "לפרסם",
];

/// The only prefixes that, attached to a blocked Hebrew word, still match ("ושלח", "המחיקה").
const HEBREW_PREFIXES: &[char] = &['ו', 'ה'];

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
                    || (i == 0 && strip_hebrew_prefix(word) == Some(want.as_str()))
            })
    })
}

fn strip_hebrew_prefix(word: &str) -> Option<&str> {
    let mut chars = word.chars();
    let first = chars.next()?;
    HEBREW_PREFIXES
        .contains(&first)
        .then_some(chars.as_str())
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
