//! Label matching rules, one test per rule, and property tests over any Unicode input.

use proptest::prelude::*;

use super::*;

fn button(name: &str) -> Candidate<'_> {
    Candidate {
        name,
        role: Role::Button,
        states: StateSet::EMPTY,
        toolkit_id: None,
        value: None,
    }
}

fn label(name: &str) -> Candidate<'_> {
    Candidate {
        role: Role::Label,
        ..button(name)
    }
}

fn field<'a>(name: &'a str, value: Option<&'a str>) -> Candidate<'a> {
    Candidate {
        role: Role::TextInput,
        value,
        ..button(name)
    }
}

fn one(label: &str, candidates: &[Candidate<'_>]) -> Option<(usize, How)> {
    match resolve(label, candidates, |_| true) {
        Resolution::One(m) => Some((m.index, m.how)),
        _ => None,
    }
}

#[test]
fn exact_beats_normalized_beats_synonym() {
    let c = [button("seven"), button("Seven"), button("7")];
    assert_eq!(one("Seven", &c), Some((1, How::Exact)));
    assert_eq!(
        one("SEVEN", &c[..2]),
        None,
        "two normalized matches are ambiguous"
    );
    assert_eq!(one("SEVEN", &[c[0], c[2]]), Some((0, How::Normalized)));
    assert_eq!(one("שבע", &[c[2]]), Some((0, How::Synonym)));
}

#[test]
fn calculator_synonyms_in_english_and_hebrew() {
    let keys = ["7", "×", "6", "=", "−", "+", "÷", "."];
    let c: Vec<Candidate<'_>> = keys.iter().map(|k| button(k)).collect();
    for (said, key) in [
        ("seven", "7"),
        ("שבע", "7"),
        ("multiply", "×"),
        ("כפול", "×"),
        ("*", "×"),
        ("הכפל ב", "×"),
        ("six", "6"),
        ("שש", "6"),
        ("equals", "="),
        ("שווה", "="),
        ("-", "−"),
        ("minus", "−"),
        ("פחות", "−"),
        ("plus", "+"),
        ("ועוד", "+"),
        ("/", "÷"),
        ("חלקי", "÷"),
        ("decimal separator", "."),
        ("תו הפרדה עשרוני", "."),
    ] {
        let found = one(said, &c).map(|(i, _)| keys[i]);
        assert_eq!(found, Some(key), "{said:?} should press {key:?}");
    }
}

#[test]
fn a_button_beats_static_text_of_the_same_tier() {
    // gnome-calculator after one calculation: the history repeats "=" as a label.
    let c = [
        label("7×6"),
        label("="),
        label("42"),
        button("="),
        button("7"),
    ];
    assert_eq!(one("=", &c), Some((3, How::Exact)));
    assert_eq!(one("equals", &c), Some((3, How::Synonym)));
}

#[test]
fn hebrew_points_maqaf_and_gershayim_match_normalized() {
    let c = [
        button("שְׁמוֹר"),
        button("צ׳ק־אין"),
        button("דו״ח"),
        button("שלח"),
    ];
    assert_eq!(one("שמור", &c), Some((0, How::Normalized)));
    assert_eq!(one("צ'ק אין", &c), Some((1, How::Normalized)));
    assert_eq!(one("דו\"ח", &c), Some((2, How::Normalized)));
    assert_eq!(one("שלח", &c), Some((3, How::Exact)));
}

#[test]
fn trailing_ellipsis_and_colon_are_ignored() {
    let c = [button("Save as…"), label("Name:")];
    assert_eq!(one("save as", &c), Some((0, How::Normalized)));
    assert_eq!(one("Save as...", &c), Some((0, How::Normalized)));
    assert_eq!(one("name", &c), Some((1, How::Normalized)));
}

#[test]
fn toolkit_id_matches_at_tier_three() {
    let c = [Candidate {
        toolkit_id: Some("num7Button"),
        ..button("")
    }];
    assert_eq!(one("num7Button", &c), Some((0, How::Id)));
}

#[test]
fn role_phrases_narrow_the_role() {
    let c = [
        label("7"),
        button("7"),
        field("Search", None),
        button("Search"),
    ];
    assert_eq!(one("button 7", &c), Some((1, How::Exact)));
    assert_eq!(one("כפתור 7", &c), Some((1, How::Exact)));
    assert_eq!(one("field Search", &c), Some((2, How::Exact)));
    assert_eq!(one("Search field", &c), Some((2, How::Exact)));
    let hebrew = [button("חיפוש"), field("חיפוש", None)];
    assert_eq!(one("שדה חיפוש", &hebrew), Some((1, How::Exact)));
    // A label that really is "Search field" wins over the role reading.
    let literal = [button("Search field"), field("Search", None)];
    assert_eq!(one("Search field", &literal), Some((0, How::Exact)));
}

#[test]
fn weak_matches_never_resolve_by_themselves() {
    let c = [
        button("Save report"),
        button("Open"),
        field("", Some("hello")),
    ];
    match resolve("report", &c, |_| true) {
        Resolution::Weak(m) => assert_eq!((m[0].index, m[0].how), (0, How::Contains)),
        other => panic!("expected weak candidates, got {other:?}"),
    }
    match resolve("hello", &c, |_| true) {
        Resolution::Weak(m) => assert_eq!((m[0].index, m[0].how), (2, How::Value)),
        other => panic!("expected a value match, got {other:?}"),
    }
    match resolve("Opne", &c, |_| true) {
        Resolution::Weak(m) => assert_eq!(m[0].how, How::Fuzzy),
        Resolution::NotFound => {} // "opne" vs "open": 0.75, under the threshold
        other => panic!("unexpected {other:?}"),
    }
    match resolve("Settngs", &[button("Settings")], |_| true) {
        Resolution::Weak(m) => {
            assert_eq!(m[0].how, How::Fuzzy);
            assert!(m[0].score <= 0.8 && m[0].score > 0.7, "{}", m[0].score);
        }
        other => panic!("expected a fuzzy match, got {other:?}"),
    }
}

#[test]
fn ties_are_ambiguous_with_at_most_five_candidates() {
    let names = ["OK"; 7];
    let c: Vec<Candidate<'_>> = names.iter().map(|n| button(n)).collect();
    match resolve("OK", &c, |_| true) {
        Resolution::Ambiguous(m) => assert_eq!(m.len(), MAX_CANDIDATES),
        other => panic!("expected ambiguity, got {other:?}"),
    }
}

#[test]
fn eligibility_limits_typing_to_fields() {
    let c = [button("Name"), field("Name", None)];
    match resolve("Name", &c, |c| c.is_field()) {
        Resolution::One(m) => assert_eq!(m.index, 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bare_role_words() {
    assert_eq!(bare_role_word("textarea"), Some(RoleClass::TextArea));
    assert_eq!(bare_role_word("Text field"), Some(RoleClass::Field));
    assert_eq!(bare_role_word("שדה"), Some(RoleClass::Field));
    assert_eq!(bare_role_word("searchfield"), Some(RoleClass::Field));
    assert_eq!(bare_role_word("Search"), None);
}

#[test]
fn labels_are_validated() {
    assert!(validate_label("7").is_ok());
    assert!(validate_label(&"א".repeat(200)).is_ok());
    for bad in ["", "   ", "@e3", "@E12", "ref=e4"] {
        let e = validate_label(bad).err().map(|e| e.code);
        assert_eq!(e, Some(ErrorCode::InvalidTarget), "{bad:?}");
    }
    assert_eq!(
        validate_label(&"x".repeat(201)).err().map(|e| e.code),
        Some(ErrorCode::InvalidTarget)
    );
    assert!(validate_label("@home").is_ok(), "an @ word is a label");
}

#[test]
fn similarity_is_difflib_ratio() {
    let s = |a: &str, b: &str| {
        similarity(
            &a.chars().collect::<Vec<_>>(),
            &b.chars().collect::<Vec<_>>(),
        )
    };
    // difflib.SequenceMatcher(None, a, b).ratio()
    assert!((s("settings", "settngs") - 0.9333).abs() < 1e-3);
    assert!((s("abcd", "bcda") - 0.75).abs() < 1e-9);
    assert_eq!(s("", ""), 1.0);
    assert_eq!(s("abc", "xyz"), 0.0);
}

fn role_strategy() -> impl Strategy<Value = Role> {
    prop_oneof![
        Just(Role::Button),
        Just(Role::Label),
        Just(Role::TextInput),
        Just(Role::Link),
        Just(Role::MenuItem),
    ]
}

proptest! {
    #[test]
    fn any_input_never_panics(label in "\\PC{0,60}", name in "\\PC{0,60}", value in "\\PC{0,20}") {
        let c = [Candidate { value: Some(&value), ..button(&name) }];
        let _ = resolve(&label, &c, |_| true);
        let _ = validate_label(&label);
        let _ = split_role_phrase(&label);
    }

    #[test]
    fn a_label_always_matches_itself_exactly(name in "\\PC{1,80}", role in role_strategy()) {
        prop_assume!(!name.trim().is_empty());
        let c = Candidate { role, ..button(&name) };
        prop_assert_eq!(Query::new(&name).best(&c).map(|m| m.0), Some(How::Exact));
    }

    #[test]
    fn a_better_tier_always_wins(name in "[a-zA-Zא-ת ]{1,30}", decoy in "\\PC{0,30}") {
        prop_assume!(!name.trim().is_empty());
        // The decoy comes first in document order and can act as well as the exact match.
        let c = [button(&decoy), button(&name)];
        match resolve(&name, &c, |_| true) {
            Resolution::One(m) => prop_assert!(m.how == How::Exact),
            Resolution::Ambiguous(m) => prop_assert!(m.iter().all(|r| r.how == How::Exact)),
            other => prop_assert!(false, "expected a strong match, got {:?}", other),
        }
    }

    #[test]
    fn tiers_order_the_candidates(label in "[a-z]{3,12}") {
        let upper = label.to_uppercase();
        let c = [button("zzzz"), button(&upper), button(&label)];
        match resolve(&label, &c, |_| true) {
            Resolution::One(m) => prop_assert_eq!((m.index, m.how), (2, How::Exact)),
            other => prop_assert!(false, "{:?}", other),
        }
        match resolve(&label, &c[..2], |_| true) {
            Resolution::One(m) => prop_assert_eq!((m.index, m.how), (1, How::Normalized)),
            other => prop_assert!(false, "{:?}", other),
        }
    }
}
