//! Extraction in code: what a window says, without a model (groundwork of `look_at_screen`).
//!
//! A window's snapshot becomes its text in reading order, then a profile — chosen first match
//! wins by app name and window title ([`profiles::PROFILES`]) — reads a top-level [`Status`] and
//! `details` from it. The conservative rule holds throughout: `unknown` rather than a guess from
//! prose.
//!
//! Adding a profile: (1) register it in [`profiles::PROFILES`] at its place in the order; (2) add
//! anonymized snapshot fixtures under `tests/fixtures/extract/`; (3) add at least three fixture
//! tests (status, details, an edge case) next to the profile.

mod browser;
mod generic;
pub mod profiles;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::element::{Node, Snapshot};
use crate::role::Role;

/// What a window's state is, as far as code can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Busy.
    Working,
    /// Done.
    Finished,
    /// Waiting for the user.
    Waiting,
    /// Showing an error.
    Error,
    /// Code cannot tell.
    Unknown,
}

/// What extraction found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extracted {
    /// The profile that read the window.
    pub extractor: &'static str,
    /// The status.
    pub status: Status,
    /// Profile-specific facts (`page_title`, `url`, `failures`…); empty ones left out.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<&'static str, serde_json::Value>,
    /// The text the status and details came from, last lines last (for the model).
    pub text: Vec<String>,
    /// The snapshot was partial.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Reads one window with the profile its app and title select.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let profile = profiles::select(&snapshot.window.app, &snapshot.window.title);
    let mut out = (profile.extract)(snapshot);
    out.truncated = snapshot.truncated.is_some();
    out
}

/// The text of the subtree at `root` in reading order (document order): names and values of
/// text-bearing elements, without a label that repeats its control's name, whitespace collapsed,
/// consecutive duplicates dropped.
pub fn reading_order(snapshot: &Snapshot, root: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut stack = vec![root];
    while let Some(index) = stack.pop() {
        let Some(node) = snapshot.nodes.get(index) else {
            continue;
        };
        for line in own_text(snapshot, node) {
            if lines.last() != Some(&line) {
                lines.push(line);
            }
        }
        stack.extend(node.children.iter().rev().map(|c| *c as usize));
    }
    lines
}

fn own_text(snapshot: &Snapshot, node: &Node) -> Vec<String> {
    let clean = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let parent_name = node
        .parent
        .and_then(|p| snapshot.nodes.get(p as usize))
        .map(|p| clean(&p.name))
        .unwrap_or_default();
    let mut out = Vec::new();
    let name = clean(&node.name);
    let carries_text =
        node.role.is_text() || node.role.is_interactive() || node.role == Role::Heading;
    if carries_text && !name.is_empty() && name != parent_name {
        out.push(name.clone());
    }
    if let Some(value) = node
        .value
        .as_deref()
        .map(clean)
        .filter(|v| !v.is_empty() && *v != name)
    {
        out.push(value);
    }
    out
}

/// Lines that report a failure: error and exception lines, failed tests, panics.
pub fn failures(lines: &[String]) -> Vec<String> {
    const MARKERS: &[&str] = &[
        "error:",
        "error[",
        "exception",
        "traceback",
        "panicked",
        "failed",
        "failure",
        "fatal:",
        " err_",
        "✗",
        "❌",
    ];
    lines
        .iter()
        .filter(|line| {
            let lower = format!(" {}", line.to_lowercase());
            MARKERS.iter().any(|m| lower.contains(m))
                && !lower.contains(" 0 failed")
                && !lower.contains("no errors")
        })
        .map(|line| line.chars().take(300).collect())
        .collect()
}

/// Lines after a "Next steps:" / "השלב הבא:" marker, or the marker line's own rest.
pub fn next_step(lines: &[String]) -> Option<String> {
    for (i, line) in lines.iter().enumerate() {
        let lower = line.to_lowercase();
        for marker in ["next steps:", "next step:", "השלב הבא:"] {
            if let Some(at) = lower.find(marker) {
                let rest = line[at + marker.len()..].trim();
                let text = if rest.is_empty() {
                    lines.get(i + 1).map(String::as_str).unwrap_or("")
                } else {
                    rest
                };
                if !text.is_empty() {
                    return Some(text.chars().take(300).collect());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
