//! The profiles, in the order they are tried: the first whose matcher accepts the window's app
//! name and title reads it. `generic` accepts everything and stays last.

use super::{browser, generic, Extracted};
use crate::element::Snapshot;

/// One extractor profile.
pub struct Profile {
    /// Its name (`extractor` in answers).
    pub name: &'static str,
    /// Accepts a lower-cased app name and window title.
    pub matches: fn(app: &str, title: &str) -> bool,
    /// Reads the window.
    pub extract: fn(&Snapshot) -> Extracted,
}

/// Every profile, first match wins. (Issue 6 adds claude_code, codex_desktop and editor before
/// browser.)
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "browser",
        matches: browser::matches,
        extract: browser::extract,
    },
    Profile {
        name: "generic",
        matches: |_, _| true,
        extract: generic::extract,
    },
];

/// The profile for a window.
pub fn select(app: &str, title: &str) -> &'static Profile {
    let (app, title) = (app.to_lowercase(), title.to_lowercase());
    PROFILES
        .iter()
        .find(|p| (p.matches)(&app, &title))
        .unwrap_or(&PROFILES[PROFILES.len() - 1])
}
