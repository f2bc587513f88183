//! Label matching: a label against arbitrary candidates. No panic; a unique answer names a
//! candidate that exists.
#![no_main]

use arbitrary::Unstructured;
use cu_core::policy::matching::{resolve, Candidate, Resolution};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(label) = cu_fuzz::text(&mut u) else {
        return;
    };
    let mut owned = Vec::new();
    for _ in 0..u.int_in_range(0..=8).unwrap_or(0) {
        let (Ok(name), Ok(role), Ok(states)) = (
            cu_fuzz::text(&mut u),
            cu_fuzz::role(&mut u),
            cu_fuzz::states(&mut u),
        ) else {
            break;
        };
        let value = cu_fuzz::text(&mut u)
            .ok()
            .filter(|_| u.ratio(1, 3).unwrap_or(false));
        let id = cu_fuzz::text(&mut u)
            .ok()
            .filter(|_| u.ratio(1, 4).unwrap_or(false));
        owned.push((name, role, states, value, id));
    }
    let candidates: Vec<Candidate<'_>> = owned
        .iter()
        .map(|(name, role, states, value, id)| Candidate {
            name,
            role: *role,
            states: *states,
            toolkit_id: id.as_deref(),
            value: value.as_deref(),
        })
        .collect();
    let _ = cu_core::policy::matching::split_role_phrase(&label);
    let _ = cu_core::policy::matching::bare_role_word(&label);
    let chars: Vec<char> = label.chars().collect();
    for c in &candidates {
        let other: Vec<char> = c.name.chars().collect();
        let s = cu_core::policy::matching::similarity(&chars, &other);
        assert!((0.0..=1.0).contains(&s), "similarity {s}");
    }
    match resolve(&label, &candidates, |_| true) {
        Resolution::One(r) => assert!(r.index < candidates.len()),
        Resolution::Ambiguous(rs) | Resolution::Weak(rs) => {
            assert!(rs.iter().all(|r| r.index < candidates.len()))
        }
        Resolution::NotFound => {}
    }
    let _ = resolve(&label, &candidates, |c| c.is_field());
});
