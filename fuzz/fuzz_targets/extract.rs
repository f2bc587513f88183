//! The extraction profiles (Claude Code, Codex, editors, browsers, generic) on arbitrary
//! snapshots, and the reading order they share: no panic, whatever the window says.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

const TITLES: &[&str] = &[
    "Notes - Visual Studio Code",
    "Claude",
    "Codex",
    "Mozilla Firefox",
    "Chromium",
    "Terminal",
    "gedit",
    "Claude Code",
    "",
];

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(title) = u.choose(TITLES).map(|t| t.to_string()) else {
        return;
    };
    let Ok(mut snapshot) = cu_fuzz::snapshot(&mut u, 48) else {
        return;
    };
    if u.ratio(1, 2).unwrap_or(false) {
        snapshot.window.title = title;
    }
    let details = u.arbitrary().unwrap_or(false);
    let extracted = cu_core::policy::extract::extract(&snapshot, details);
    let _ = serde_json::to_string(&extracted);
    let lines = cu_core::policy::extract::reading_order(&snapshot, 0);
    let _ = cu_core::policy::extract::next_step(&lines);
    let _ = cu_core::policy::extract::last_message(&lines);
    let _ = cu_core::policy::extract::failures(&lines);
});
