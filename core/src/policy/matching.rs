//! Label matching: which element of a window a visible label ("7", "Search", "שלח") names.
//!
//! Pure logic over [`Candidate`]s, so every rule is tested without a desktop. The hierarchy is
//! the predecessor's, tier by tier; a lower tier is only looked at when no element matches a
//! higher one:
//!
//! | tier | `how`                 | score      | rule                                               |
//! |------|-----------------------|------------|----------------------------------------------------|
//! | 1    | `exact`               | 1.0        | the name, character for character                  |
//! | 2    | `normalized`          | 0.95       | equal after [`text::normalize`]                    |
//! | 3    | `synonym` / `id`      | 0.9        | digit and operator synonyms (EN/HE), toolkit id    |
//! | 4    | `value` / `contains`  | 0.85 / 0.8 | the live value, or all words of one in the other   |
//! | 5    | `fuzzy`               | ≤ 0.8      | sequence similarity ≥ 0.80 (Ratcliff/Obershelp)    |
//!
//! Tiers 4–5 are weak: [`resolve`] never picks one of them by itself, it returns them as
//! candidates. Within a tier, elements that can act (buttons, fields, links, menu items) win
//! over static text, so "=" presses gnome-calculator's button, not the "=" of its history.
//! A role phrase ("button 7", "כפתור 7", "field Search", "שדה חיפוש") is also tried as a role
//! and a label; the reading that reaches the better tier wins, the whole label on a tie.
//!
//! Toolkit quirks (GTK 4's doubled names "7 7") are the backend's business, not this module's.

use serde::Serialize;

use crate::error::{Error, ErrorCode};
use crate::model::element::{State, StateSet};
use crate::model::role::Role;
use crate::model::text;

/// The longest label accepted, in characters.
pub const MAX_LABEL_CHARS: usize = 200;

/// At most this many candidates are returned with TARGET_AMBIGUOUS.
pub const MAX_CANDIDATES: usize = 5;

/// Fuzzy matches need at least this similarity.
pub const FUZZY_THRESHOLD: f64 = 0.80;

/// How a label matched an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// Character for character.
    Exact,
    /// Equal after normalization.
    Normalized,
    /// A digit or operator synonym ("seven", "שבע", "×").
    Synonym,
    /// The element's toolkit id.
    Id,
    /// The element's live value (weak).
    Value,
    /// All words of one contained in the other (weak).
    Contains,
    /// Similar enough (weak).
    Fuzzy,
}

impl How {
    /// The tier, 1 (best) to 5.
    pub const fn tier(self) -> u8 {
        match self {
            How::Exact => 1,
            How::Normalized => 2,
            How::Synonym | How::Id => 3,
            How::Value | How::Contains => 4,
            How::Fuzzy => 5,
        }
    }

    /// Weak matches never act by themselves.
    pub const fn is_weak(self) -> bool {
        self.tier() >= 4
    }
}

/// What [`resolve`] needs to know about one element.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The label a user sees (the accessible name, or a field's label).
    pub name: &'a str,
    /// The role.
    pub role: Role,
    /// The states.
    pub states: StateSet,
    /// The toolkit's id for the element.
    pub toolkit_id: Option<&'a str>,
    /// The live value or text content.
    pub value: Option<&'a str>,
}

impl Candidate<'_> {
    /// Buttons, fields, links, menu items…: what a click or typing is meant for.
    pub fn can_act(&self) -> bool {
        self.role.is_interactive()
    }

    /// Takes text: what `type_text` may write into.
    pub fn is_field(&self) -> bool {
        is_field(self.role, self.states)
    }
}

/// True for elements that take typed text: text inputs and areas, and editable combo boxes,
/// spin buttons, documents and spreadsheet cells.
pub fn is_field(role: Role, states: StateSet) -> bool {
    match role {
        Role::TextInput | Role::PasswordInput | Role::TextArea => true,
        Role::ComboBox | Role::SpinButton | Role::Document | Role::Cell => {
            states.contains(State::Editable)
        }
        _ => false,
    }
}

/// A kind of element named in a role phrase or a bare role word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RoleClass {
    /// Push and toggle buttons.
    Button,
    /// Any field that takes text.
    Field,
    /// Multi-line text.
    TextArea,
    /// Combo boxes.
    ComboBox,
    /// Documents.
    Document,
    /// Links.
    Link,
    /// Check boxes and switches.
    CheckBox,
    /// Radio buttons.
    Radio,
    /// Tabs.
    Tab,
    /// Menus and menu items.
    MenuItem,
}

impl RoleClass {
    /// Whether an element of `role` with `states` is of this class.
    pub fn admits(self, role: Role, states: StateSet) -> bool {
        match self {
            RoleClass::Button => matches!(role, Role::Button | Role::ToggleButton),
            RoleClass::Field => is_field(role, states),
            RoleClass::TextArea => {
                role == Role::TextArea
                    || (role == Role::Document && states.contains(State::Editable))
            }
            RoleClass::ComboBox => role == Role::ComboBox,
            RoleClass::Document => role == Role::Document,
            RoleClass::Link => role == Role::Link,
            RoleClass::CheckBox => {
                matches!(role, Role::CheckBox | Role::Switch | Role::CheckMenuItem)
            }
            RoleClass::Radio => matches!(role, Role::RadioButton | Role::RadioMenuItem),
            RoleClass::Tab => role == Role::Tab,
            RoleClass::MenuItem => matches!(
                role,
                Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem | Role::Menu
            ),
        }
    }
}

/// Role words, normalized, longest first where one starts another.
const ROLE_WORDS: &[(&str, RoleClass)] = &[
    ("radio button", RoleClass::Radio),
    ("radio", RoleClass::Radio),
    ("toggle button", RoleClass::Button),
    ("button", RoleClass::Button),
    ("כפתור", RoleClass::Button),
    ("לחצן", RoleClass::Button),
    ("text field", RoleClass::Field),
    ("textfield", RoleClass::Field),
    ("text box", RoleClass::Field),
    ("textbox", RoleClass::Field),
    ("search field", RoleClass::Field),
    ("searchfield", RoleClass::Field),
    ("input", RoleClass::Field),
    ("entry", RoleClass::Field),
    ("edit", RoleClass::Field),
    ("field", RoleClass::Field),
    ("שדה טקסט", RoleClass::Field),
    ("תיבת טקסט", RoleClass::Field),
    ("שדה", RoleClass::Field),
    ("text area", RoleClass::TextArea),
    ("textarea", RoleClass::TextArea),
    ("combo box", RoleClass::ComboBox),
    ("combobox", RoleClass::ComboBox),
    ("dropdown", RoleClass::ComboBox),
    ("document", RoleClass::Document),
    ("link", RoleClass::Link),
    ("קישור", RoleClass::Link),
    ("check box", RoleClass::CheckBox),
    ("checkbox", RoleClass::CheckBox),
    ("תיבת סימון", RoleClass::CheckBox),
    ("tab", RoleClass::Tab),
    ("לשונית", RoleClass::Tab),
    ("menu item", RoleClass::MenuItem),
    ("menu", RoleClass::MenuItem),
    ("פריט תפריט", RoleClass::MenuItem),
    ("תפריט", RoleClass::MenuItem),
];

/// The role class a whole label names when it is nothing but a role word ("textarea", "שדה").
pub fn bare_role_word(label: &str) -> Option<RoleClass> {
    let normalized = text::normalize(label);
    ROLE_WORDS
        .iter()
        .find(|(word, _)| *word == normalized)
        .map(|(_, class)| *class)
}

/// Splits a role phrase: "button 7" and "7 button" give `(Button, "7")`, "שדה חיפוש" gives
/// `(Field, "חיפוש")`. The rest keeps its original spelling (so it can still match exactly).
pub fn split_role_phrase(label: &str) -> Option<(RoleClass, String)> {
    let words: Vec<&str> = label.split_whitespace().collect();
    for (role_word, class) in ROLE_WORDS {
        let n = role_word.split(' ').count();
        if words.len() <= n {
            continue;
        }
        let head = text::normalize(&words[..n].join(" "));
        if head == *role_word {
            return Some((*class, words[n..].join(" ")));
        }
        let tail = text::normalize(&words[words.len() - n..].join(" "));
        if tail == *role_word {
            return Some((*class, words[..words.len() - n].join(" ")));
        }
    }
    None
}

/// Groups of labels that name the same calculator key, normalized. Every pair the predecessor
/// lists, plus the masculine Hebrew number forms and "by" variants Windows Calculator uses.
const SYNONYMS: &[&[&str]] = &[
    &["0", "zero", "אפס"],
    &["1", "one", "אחת", "אחד"],
    &["2", "two", "שתיים", "שניים", "שתים"],
    &["3", "three", "שלוש", "שלושה"],
    &["4", "four", "ארבע", "ארבעה"],
    &["5", "five", "חמש", "חמישה"],
    &["6", "six", "שש", "שישה"],
    &["7", "seven", "שבע", "שבעה"],
    &["8", "eight", "שמונה"],
    &["9", "nine", "תשע", "תשעה"],
    &["+", "plus", "ועוד", "add"],
    &["-", "\u{2212}", "minus", "פחות", "subtract"],
    &[
        "*",
        "×",
        "multiply",
        "multiply by",
        "times",
        "כפול",
        "הכפל ב",
        "הכפל",
    ],
    &["/", "÷", "divide", "divide by", "חלקי", "חלק ב", "חלק"],
    &["=", "equals", "שווה", "שווה ל"],
    &[
        ".",
        "decimal separator",
        "decimal point",
        "תו הפרדה עשרוני",
        "נקודה עשרונית",
    ],
    &["%", "percent", "אחוז"],
];

fn synonym_group(normalized: &str) -> Option<usize> {
    SYNONYMS
        .iter()
        .position(|group| group.contains(&normalized))
}

/// A label prepared once for matching against many elements.
#[derive(Debug, Clone)]
pub struct Query {
    raw: String,
    normalized: String,
    words: Vec<String>,
    synonyms: Option<usize>,
    chars: Vec<char>,
}

impl Query {
    /// Prepares `label`.
    pub fn new(label: &str) -> Query {
        let normalized = text::normalize(label);
        Query {
            raw: label.trim().to_owned(),
            words: text::words(&normalized)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            synonyms: synonym_group(&normalized),
            chars: normalized.chars().collect(),
            normalized,
        }
    }

    /// How this label matches `candidate`, best tier first; `None` when it does not.
    pub fn best(&self, candidate: &Candidate<'_>) -> Option<(How, f64)> {
        let name = candidate.name.trim();
        if !name.is_empty() && name == self.raw {
            return Some((How::Exact, 1.0));
        }
        let normalized = text::normalize(name);
        if !normalized.is_empty() && normalized == self.normalized {
            return Some((How::Normalized, 0.95));
        }
        if !normalized.is_empty()
            && self.synonyms.is_some()
            && synonym_group(&normalized) == self.synonyms
        {
            return Some((How::Synonym, 0.9));
        }
        if candidate
            .toolkit_id
            .is_some_and(|id| !id.is_empty() && text::normalize(id) == self.normalized)
        {
            return Some((How::Id, 0.9));
        }
        if candidate
            .value
            .is_some_and(|v| !v.trim().is_empty() && text::normalize(v) == self.normalized)
        {
            return Some((How::Value, 0.85));
        }
        if normalized.is_empty() || self.normalized.is_empty() {
            return None;
        }
        let words = text::words(&normalized);
        if contains_words(&words, &self.words) || contains_words(&self.word_refs(), &words) {
            return Some((How::Contains, 0.8));
        }
        let theirs: Vec<char> = normalized.chars().take(FUZZY_CHARS).collect();
        let ratio = similarity(&self.chars, &theirs);
        (ratio >= FUZZY_THRESHOLD).then(|| (How::Fuzzy, (ratio * 80.0).floor() / 100.0))
    }

    fn word_refs(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).collect()
    }
}

/// Names longer than this are compared by their start only (bounds the quadratic similarity).
const FUZZY_CHARS: usize = 256;

/// True when every word of `needle` (at least one) is among `haystack`'s words.
fn contains_words(haystack: &[&str], needle: &[impl AsRef<str>]) -> bool {
    !needle.is_empty()
        && needle.len() <= haystack.len()
        && needle.iter().all(|w| haystack.contains(&w.as_ref()))
}

/// Ratcliff/Obershelp similarity (Python's `difflib.SequenceMatcher.ratio`, without its junk
/// heuristic): twice the matched characters over the total length.
pub fn similarity(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(a, b) as f64 / total as f64
}

fn matched(a: &[char], b: &[char]) -> usize {
    let (i, j, k) = longest_common_run(a, b);
    if k == 0 {
        return 0;
    }
    k + matched(&a[..i], &b[..j]) + matched(&a[i + k..], &b[j + k..])
}

/// The longest common substring: `(start in a, start in b, length)`, earliest on ties.
fn longest_common_run(a: &[char], b: &[char]) -> (usize, usize, usize) {
    let mut best = (0, 0, 0);
    let mut previous = vec![0usize; b.len() + 1];
    let mut current = vec![0usize; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        for (j, cb) in b.iter().enumerate() {
            current[j + 1] = if ca == cb { previous[j] + 1 } else { 0 };
            if current[j + 1] > best.2 {
                best = (
                    i + 1 - current[j + 1],
                    j + 1 - current[j + 1],
                    current[j + 1],
                );
            }
        }
        std::mem::swap(&mut previous, &mut current);
    }
    best
}

/// One candidate's match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index into the candidates given to [`resolve`].
    pub index: usize,
    /// How it matched.
    pub how: How,
    /// The score of that tier.
    pub score: f64,
    /// It can act (wins over static text within a tier).
    pub can_act: bool,
    /// The label was read as a role phrase, and this is the role it named.
    pub role_phrase: Option<RoleClass>,
}

/// What a label names among the candidates.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// One element, by a strong match: act on it.
    One(Ranked),
    /// Several elements match equally well (strong tier): the best few, nothing done.
    Ambiguous(Vec<Ranked>),
    /// Only weak matches: the best few, nothing done.
    Weak(Vec<Ranked>),
    /// Nothing matches.
    NotFound,
}

/// Resolves `label` among `candidates`, considering only those `eligible` admits (all, for a
/// click; fields, for typing).
pub fn resolve(
    label: &str,
    candidates: &[Candidate<'_>],
    eligible: impl Fn(&Candidate<'_>) -> bool,
) -> Resolution {
    let whole = rank(&Query::new(label), candidates, &eligible, None);
    let phrase = split_role_phrase(label).map(|(class, rest)| {
        rank(
            &Query::new(&rest),
            candidates,
            &|c: &Candidate<'_>| eligible(c) && class.admits(c.role, c.states),
            Some(class),
        )
    });
    let best_tier = |r: &[Ranked]| r.first().map_or(u8::MAX, |m| m.how.tier());
    let ranked = match phrase {
        Some(p) if best_tier(&p) < best_tier(&whole) => p,
        _ => whole,
    };
    decide(ranked)
}

/// All matches, best first: tier, then elements that can act, then score, then document order.
fn rank(
    query: &Query,
    candidates: &[Candidate<'_>],
    eligible: &dyn Fn(&Candidate<'_>) -> bool,
    role_phrase: Option<RoleClass>,
) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| eligible(c))
        .filter_map(|(index, c)| {
            query.best(c).map(|(how, score)| Ranked {
                index,
                how,
                score,
                can_act: c.can_act(),
                role_phrase,
            })
        })
        .collect();
    ranked.sort_by(|a, b| {
        a.how
            .tier()
            .cmp(&b.how.tier())
            .then(b.can_act.cmp(&a.can_act))
            .then(b.score.total_cmp(&a.score))
            .then(a.index.cmp(&b.index))
    });
    ranked
}

fn decide(ranked: Vec<Ranked>) -> Resolution {
    let Some(first) = ranked.first().copied() else {
        return Resolution::NotFound;
    };
    let mut few: Vec<Ranked> = ranked.into_iter().take(MAX_CANDIDATES).collect();
    if first.how.is_weak() {
        return Resolution::Weak(few);
    }
    let peers = few
        .iter()
        .filter(|m| m.how.tier() == first.how.tier() && m.can_act == first.can_act)
        .count();
    if peers == 1 {
        Resolution::One(first)
    } else {
        few.truncate(peers);
        Resolution::Ambiguous(few)
    }
}

/// Checks a requested label: 1–200 characters, not blank, no control characters (no label
/// on screen has them), not an element reference (`@e3`).
pub fn validate_label(label: &str) -> Result<(), Error> {
    let chars = label.chars().count();
    if label.trim().is_empty() || chars > MAX_LABEL_CHARS {
        return Err(Error::new(
            ErrorCode::InvalidTarget,
            format!("a target label must be 1 to {MAX_LABEL_CHARS} characters (got {chars})"),
        )
        .with_suggestion("Pass the visible label of one element, as it reads on screen."));
    }
    if label.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::InvalidTarget,
            format!("the target label {label:?} contains control characters"),
        )
        .with_suggestion(
            "Pass the visible label as it reads on screen, without control characters.",
        ));
    }
    if is_element_ref(label.trim()) {
        return Err(Error::new(
            ErrorCode::InvalidTarget,
            format!("{label:?} is an element reference; click and type_text take visible labels"),
        )
        .with_suggestion(
            "Pass the visible label (\"Save\", \"7\"). Element ids belong to gui_action with a state_id.",
        ));
    }
    Ok(())
}

/// `@e3`, `@E12`, `ref=e3`: references from other tools' snapshots, never labels.
fn is_element_ref(label: &str) -> bool {
    let rest = label
        .strip_prefix('@')
        .or_else(|| label.strip_prefix("ref="))
        .unwrap_or("");
    let mut chars = rest.chars();
    matches!(chars.next(), Some('e' | 'E'))
        && !chars.as_str().is_empty()
        && chars.all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests;
