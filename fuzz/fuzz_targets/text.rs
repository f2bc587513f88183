//! Text normalization, case-insensitive search, the safety gate's word matching, the split of
//! typed text into pieces, key combos and question checks: no panic, and the invariants each
//! promises (ranges on char boundaries that match, pieces that join back to the text).
#![no_main]

use cu_core::model::text;
use cu_core::policy::activation::split_text;
use cu_core::policy::safety::Gate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, String, Vec<String>)| {
    let (haystack, needle, extra) = input;
    let normal = text::normalize(&haystack);
    let strict = text::normalize_strict(&haystack);
    assert_eq!(text::normalize(&normal), normal, "normalize is idempotent");
    let _ = text::words(&strict);
    if let Some(range) = text::find_ignore_case(&haystack, &needle) {
        assert!(haystack.is_char_boundary(range.start) && haystack.is_char_boundary(range.end));
        assert!(range.start <= range.end && range.end <= haystack.len());
    }
    let gate = Gate::new(&extra);
    let whole = gate.check(&haystack);
    if !whole.is_allowed() {
        // Labels judged together are blocked when one of them is.
        assert!(!gate
            .check_all([needle.as_str(), haystack.as_str()])
            .is_allowed());
    }
    let pieces = split_text(&haystack);
    let joined: String = pieces.iter().map(|(p, _)| *p).collect();
    assert_eq!(joined, haystack, "the pieces of typed text join back to it");
    let _ = cu_core::model::keys::parse_combo(&needle);
    let _ = cu_core::policy::question::check(&haystack, 500);
    let _ = cu_core::policy::matching::validate_label(&needle);
    let _ = cu_core::policy::extract::next_step(std::slice::from_ref(&haystack));
    let _ = cu_core::policy::extract::last_message(&[haystack.clone(), needle.clone()]);
    let _ = cu_core::policy::extract::failures(std::slice::from_ref(&haystack));
});
