//! Outline rendering of arbitrary snapshots: no panic, ids that name nodes, and a limit that
//! holds.
#![no_main]

use arbitrary::Unstructured;
use cu_core::model::outline::{render, OutlineOptions, Place};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(all), Ok(place), Ok(max)) = (
        u.arbitrary::<bool>(),
        u.int_in_range(0..=2u8),
        u.int_in_range(0..=40usize),
    ) else {
        return;
    };
    let place = [Place::None, Place::Point, Place::Bounds][usize::from(place)];
    let Ok(query) = u.arbitrary::<Option<String>>() else {
        return;
    };
    let Ok(snapshot) = cu_fuzz::snapshot(&mut u, 64) else {
        return;
    };
    let options = OutlineOptions {
        all,
        max_elements: max,
        place,
        query,
        ..OutlineOptions::default()
    };
    let outline = render(&snapshot, &options);
    for (_, node) in &outline.ids {
        assert!(*node < snapshot.nodes.len(), "an id names a node");
    }
    assert!(
        outline.ids.len() <= snapshot.nodes.len(),
        "each node listed once at most"
    );
    for node in &snapshot.nodes {
        let _ = cu_core::model::outline::shown_name(&snapshot, node);
    }
});
