//! The profiles, in the order they are tried: the first whose matcher accepts the window's app
//! name and title reads it. `generic` accepts everything and stays last.

use super::{browser, claude_code, codex_desktop, editor, generic, Extracted};
use crate::model::element::Snapshot;

/// One extractor profile.
pub struct Profile {
    /// Its name (`extractor` in answers).
    pub name: &'static str,
    /// Accepts a lower-cased app name and window title.
    pub matches: fn(app: &str, title: &str) -> bool,
    /// Reads the window's text (and what plain text can tell).
    pub extract: fn(&Snapshot) -> Extracted,
    /// Inspects the tree for status and more details (off with `MCP_CU_SNAPSHOT_DETAILS=0`).
    pub snapshot_details: Option<fn(&Snapshot, &mut Extracted)>,
}

/// Every profile, first match wins.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "claude_code",
        matches: claude_code::matches,
        extract: claude_code::extract,
        snapshot_details: Some(claude_code::snapshot_details),
    },
    Profile {
        name: "codex_desktop",
        matches: codex_desktop::matches,
        extract: codex_desktop::extract,
        snapshot_details: Some(codex_desktop::snapshot_details),
    },
    Profile {
        name: "editor",
        matches: editor::matches,
        extract: editor::extract,
        snapshot_details: Some(editor::snapshot_details),
    },
    Profile {
        name: "browser",
        matches: browser::matches,
        extract: browser::extract,
        snapshot_details: Some(browser::snapshot_details),
    },
    Profile {
        name: "generic",
        matches: |_, _| true,
        extract: generic::extract,
        snapshot_details: None,
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
