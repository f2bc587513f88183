//! Extraction in code: what a window says, without a model (groundwork of `look_at_screen`).
//!
//! A window's snapshot becomes its text in reading order, then a profile — chosen first match
//! wins by app name and window title ([`profiles::PROFILES`]) — reads a top-level [`Status`] and
//! `details` from it. The conservative rule holds throughout: `unknown` rather than a guess from
//! prose.
//!
//! Each profile has two parts: `extract` reads the text (and what plain text can say), and
//! `snapshot_details` inspects the tree (buttons, dialogs, tabs, states) for status and more
//! details. `MCP_CU_SNAPSHOT_DETAILS=0` runs the first part only.
//!
//! Adding a profile: (1) register it in [`profiles::PROFILES`] at its place in the order; (2) add
//! anonymized fixtures under `tests/fixtures/extract/<profile>/` (recorded snapshots as JSON, or
//! hand-written [`outline_fixture`] files from the app's documented controls; no names, tokens
//! or local paths); (3) add at least three fixture tests (status, details, an edge case) in
//! `tests.rs`.

mod browser;
mod claude_code;
mod codex_desktop;
mod editor;
mod generic;
pub mod outline_fixture;
pub mod profiles;
mod renderer;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::element::{Node, Snapshot};
use crate::model::role::Role;

/// What a window's state is, as far as code can tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    #[default]
    Unknown,
}

/// What extraction found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The last message: the window's last lines of text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// Why the window says almost nothing, and the fix (Chromium/Electron without its tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
    /// The snapshot was partial.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// What a person reads in the window: its text without the labels of buttons, menu items
    /// and tabs (a calculator's "1" key says nothing about its display). Evidence for
    /// [`crate::policy::sanity::judge`]; not sent.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub readable: Vec<String>,
}

impl Extracted {
    /// A result with no details yet: `unknown` over `text`.
    pub fn new(extractor: &'static str, text: Vec<String>) -> Extracted {
        Extracted {
            extractor,
            status: Status::Unknown,
            details: BTreeMap::new(),
            text,
            last_message: None,
            hint: None,
            truncated: false,
            readable: Vec::new(),
        }
    }

    /// Sets a detail unless the value is empty (`""`, `[]`, `null`).
    pub fn set(&mut self, key: &'static str, value: serde_json::Value) {
        let empty = match &value {
            serde_json::Value::Null => true,
            serde_json::Value::String(s) => s.trim().is_empty(),
            serde_json::Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if !empty {
            self.details.insert(key, value);
        }
    }

    /// Adds `failures` and `next_step` found in `lines`.
    fn add_failures_and_next_step(&mut self, lines: &[String]) {
        self.set("failures", serde_json::json!(failures(lines)));
        if let Some(step) = next_step(lines) {
            self.set("next_step", serde_json::json!(step));
        }
    }
}

/// Reads one window with the profile its app and title select; `snapshot_details` false reads
/// the text only (no inspection of buttons, dialogs and states).
pub fn extract(snapshot: &Snapshot, snapshot_details: bool) -> Extracted {
    let profile = profiles::select(&snapshot.window.app, &snapshot.window.title);
    let mut out = (profile.extract)(snapshot);
    if snapshot_details {
        if let Some(inspect) = profile.snapshot_details {
            inspect(snapshot, &mut out);
        }
    }
    out.truncated = snapshot.truncated.is_some();
    out.hint = renderer::missing_tree_hint(snapshot, &out.text);
    // The last message is prose: text of elements outside any control (a terminal's output is
    // prose; a button's inner label is not).
    let prose_set = prose(snapshot);
    let prose: Vec<String> = out
        .text
        .iter()
        .filter(|l| prose_set.contains(l.as_str()))
        .cloned()
        .collect();
    out.last_message = last_message(&prose);
    out.readable = readable(snapshot);
    out
}

/// The text of visible elements, less the names of controls that only press or open something.
fn readable(snapshot: &Snapshot) -> Vec<String> {
    let pressable = |role: Role| {
        matches!(
            role,
            Role::Button
                | Role::ToggleButton
                | Role::CheckBox
                | Role::RadioButton
                | Role::Switch
                | Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::Menu
                | Role::Tab
        )
    };
    visible(snapshot)
        .flat_map(|(_, node)| {
            let mut text = own_text(snapshot, node);
            if pressable(node.role) {
                let name = node.name.split_whitespace().collect::<Vec<_>>().join(" ");
                text.retain(|t| *t != name);
            }
            text
        })
        .collect()
}

/// Text lines of elements that are not controls and not inside one. List items, rows, cells,
/// links and terminals hold content (chat turns, history, output), so they count as text.
fn prose(snapshot: &Snapshot) -> std::collections::HashSet<String> {
    let is_control = |n: &Node| {
        n.role.is_interactive()
            && !matches!(
                n.role,
                Role::Terminal | Role::ListItem | Role::TreeItem | Role::Cell | Role::Link
            )
    };
    let mut out = std::collections::HashSet::new();
    let mut stack = vec![0usize];
    while let Some(index) = stack.pop() {
        let Some(node) = snapshot.nodes.get(index) else {
            continue;
        };
        if is_control(node) {
            continue;
        }
        out.extend(own_text(snapshot, node));
        stack.extend(node.children.iter().map(|c| *c as usize));
    }
    out
}

/// The last message: up to the last 5 lines of prose, at most 400 characters, newest last.
pub fn last_message(lines: &[String]) -> Option<String> {
    let mut taken: Vec<&str> = Vec::new();
    let mut chars = 0;
    for line in lines.iter().rev().take(5) {
        chars += line.chars().count();
        if chars > 400 && !taken.is_empty() {
            break;
        }
        taken.push(line);
    }
    taken.reverse();
    let joined: String = taken.join("\n").chars().take(400).collect();
    (!joined.trim().is_empty()).then_some(joined)
}

/// Nodes a user can see (not marked offscreen), with their indexes.
pub(crate) fn visible(snapshot: &Snapshot) -> impl Iterator<Item = (usize, &Node)> {
    snapshot
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.states.contains(crate::model::element::State::Offscreen))
}

/// The first visible control whose name, lower-cased, is one of `names` (or starts with a name
/// ending in `*`).
pub(crate) fn control<'a>(snapshot: &'a Snapshot, names: &[&str]) -> Option<&'a Node> {
    visible(snapshot)
        .map(|(_, n)| n)
        .filter(|n| n.role.is_interactive())
        .find(|n| name_is(&n.name, names))
}

/// `name`, trimmed and lower-cased, is one of `names` (a trailing `*` matches a prefix).
pub(crate) fn name_is(name: &str, names: &[&str]) -> bool {
    let lower = name.trim().to_lowercase();
    names.iter().any(|n| match n.strip_suffix('*') {
        Some(prefix) => lower.starts_with(prefix),
        None => lower == *n,
    })
}

/// The rest of the first line (or control name) starting with `prefix` (case-insensitive).
pub(crate) fn after_prefix<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    prefixes: &[&str],
) -> Option<String> {
    lines.into_iter().find_map(|line| {
        let line = line.trim();
        prefixes.iter().find_map(|p| {
            crate::model::text::find_ignore_case(line, p)
                .filter(|r| r.start == 0)
                .and_then(|r| line.get(r.end..))
                .map(str::trim)
                .filter(|rest| !rest.is_empty())
                .map(|rest| rest.chars().take(200).collect())
        })
    })
}

/// What a user reads as an element's label: its name, or, for a nameless item (GTK list rows,
/// web list items), the text inside it.
pub(crate) fn label_of(snapshot: &Snapshot, index: usize) -> String {
    let Some(node) = snapshot.nodes.get(index) else {
        return String::new();
    };
    let name = node.name.trim();
    if !name.is_empty() {
        return name.to_owned();
    }
    reading_order(snapshot, index).join(" ")
}

/// A control's value: its own, a "Name: value" label's tail, or the choice shown inside it (a
/// combo box whose toolkit exposes the current item as its only, or selected, menu item).
pub(crate) fn value_of(snapshot: &Snapshot, index: usize) -> Option<String> {
    let node = snapshot.nodes.get(index)?;
    if let Some(v) = node
        .value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        return Some(v.to_owned());
    }
    if let Some((_, v)) = node.name.split_once(':') {
        let v = v.trim();
        if !v.is_empty() {
            return Some(v.to_owned());
        }
    }
    let items: Vec<&Node> = visible(snapshot)
        .filter(|(i, _)| *i != index && is_within(snapshot, *i, index))
        .map(|(_, n)| n)
        .filter(|n| matches!(n.role, Role::MenuItem | Role::ListItem) && !n.name.trim().is_empty())
        .collect();
    let chosen = items
        .iter()
        .find(|n| {
            n.states.contains(crate::model::element::State::Selected)
                || n.states.contains(crate::model::element::State::Checked)
        })
        .or(if items.len() == 1 {
            items.first()
        } else {
            None
        })?;
    Some(chosen.name.trim().to_owned())
}

/// `index` is `ancestor` or inside it.
pub(crate) fn is_within(snapshot: &Snapshot, index: usize, ancestor: usize) -> bool {
    let mut at = Some(index);
    while let Some(i) = at {
        if i == ancestor {
            return true;
        }
        at = snapshot
            .nodes
            .get(i)
            .and_then(|n| n.parent)
            .map(|p| p as usize);
    }
    false
}

/// A pending question the user must answer: the smallest dialog, alert or group holding both an
/// approving and a refusing button, and its text without the buttons' names.
pub(crate) fn approval_prompt(
    snapshot: &Snapshot,
    approve: &[&str],
    refuse: &[&str],
) -> Option<String> {
    let containers = visible(snapshot).filter(|(_, n)| {
        matches!(
            n.role,
            Role::Dialog | Role::Alert | Role::Group | Role::Form | Role::Window
        )
    });
    let mut best: Option<(usize, usize)> = None; // (subtree size, index)
    for (index, _) in containers {
        let inside: Vec<&Node> = visible(snapshot)
            .filter(|(i, _)| is_within(snapshot, *i, index))
            .map(|(_, n)| n)
            .collect();
        let has = |names: &[&str]| {
            inside
                .iter()
                .any(|n| n.role.is_interactive() && name_is(&n.name, names))
        };
        if has(approve) && has(refuse) && best.is_none_or(|(size, _)| inside.len() < size) {
            best = Some((inside.len(), index));
        }
    }
    let (_, index) = best?;
    let prompt: Vec<String> = reading_order(snapshot, index)
        .into_iter()
        .filter(|line| !name_is(line, approve) && !name_is(line, refuse))
        .filter(|line| snapshot.nodes.get(index).is_none_or(|c| c.name != *line))
        .collect();
    let prompt = prompt
        .iter()
        .find(|l| l.trim_end().ends_with('?'))
        .or(prompt.first())?;
    Some(prompt.chars().take(200).collect())
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
    // A scroll bar's value is a position, not text.
    if node.role == Role::ScrollBar {
        return Vec::new();
    }
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
        for marker in ["next steps:", "next step:", "השלב הבא:"] {
            if let Some(found) = crate::model::text::find_ignore_case(line, marker) {
                let rest = line[found.end..].trim();
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
