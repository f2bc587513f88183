//! Claude (the desktop app, and Claude Code inside it): matched when "claude" is in the app name.
//!
//! Status: `working` while a Stop control shows, `finished` when the turn's controls (Copy,
//! Retry) show without it, else `unknown`; read from controls only, never from prose. Details:
//! `project`, `session` (chat title), `branch`, `folder`, `model`, `files`, `background_tasks`,
//! `context_used`, `waiting_for_user` and `waiting_prompt` (a prompt with approve and deny
//! buttons), `failures`, `next_step`, `asks_user` (the last message ends with a question).

use serde_json::json;

use super::{
    after_prefix, approval_prompt, control, is_within, label_of, name_is, reading_order, value_of,
    visible, Extracted, Status,
};
use crate::model::element::Snapshot;
use crate::model::role::Role;

/// Controls shown while Claude is answering.
pub(crate) const STOP: &[&str] = &[
    "stop",
    "stop response",
    "stop generating",
    "stop claude",
    "interrupt",
    "cancel response",
];
/// Controls under a finished turn.
const TURN_DONE: &[&str] = &["copy", "copy message", "copy response", "retry", "edit"];
/// Buttons that approve a pending tool use or command.
pub(crate) const APPROVE: &[&str] = &[
    "allow",
    "allow once",
    "always allow",
    "allow for this chat",
    "approve",
    "yes",
    "run",
    "accept",
];
/// Buttons that refuse it.
pub(crate) const REFUSE: &[&str] = &[
    "deny",
    "don't allow",
    "do not allow",
    "reject",
    "decline",
    "no",
    "cancel",
];

/// The Claude app by name (Windows, macOS and Linux builds all carry "claude").
pub fn matches(app: &str, _title: &str) -> bool {
    app.contains("claude")
}

/// Reads the conversation text and what its lines state plainly.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = reading_order(snapshot, 0);
    let lines: Vec<&str> = text.iter().map(String::as_str).collect();
    let mut out = Extracted::new("claude_code", text.clone());
    let session = snapshot
        .window
        .title
        .trim()
        .strip_suffix(" - Claude")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    out.set("session", json!(session));
    out.set(
        "project",
        json!(after_prefix(lines.iter().copied(), &["project: "])),
    );
    out.set(
        "branch",
        json!(after_prefix(
            lines.iter().copied(),
            &["branch: ", "on branch ", "⎇ "]
        )),
    );
    out.set(
        "folder",
        json!(after_prefix(
            lines.iter().copied(),
            &["folder: ", "working directory: ", "cwd: "]
        )),
    );
    out.set(
        "model",
        json!(after_prefix(lines.iter().copied(), &["model: "])),
    );
    out.set("context_used", json!(context_used(&lines)));
    out.set("background_tasks", json!(background_tasks(&lines)));
    out.add_failures_and_next_step(&text[text.len().saturating_sub(40)..]);
    if text.last().is_some_and(|l| l.trim_end().ends_with('?')) {
        out.details.insert("asks_user", json!(true));
    }
    out
}

/// Status from the Stop and turn controls; model, project, folder, changed files and a pending
/// approval from the tree.
pub fn snapshot_details(snapshot: &Snapshot, out: &mut Extracted) {
    if control(snapshot, STOP).is_some() {
        out.status = Status::Working;
    } else if control(snapshot, TURN_DONE).is_some() {
        out.status = Status::Finished;
    }
    if let Some(prompt) = approval_prompt(snapshot, APPROVE, REFUSE) {
        out.set("waiting_prompt", json!(prompt));
        out.details.insert("waiting_for_user", json!(true));
    }
    let valued = |names: &[&str]| {
        visible(snapshot)
            .filter(|(_, n)| matches!(n.role, Role::ComboBox | Role::Button | Role::MenuItem))
            .find(|(_, n)| name_is(&n.name, names))
            .and_then(|(i, _)| value_of(snapshot, i))
    };
    for (key, names) in [
        (
            "model",
            &["model", "model:*", "select model", "switch model*"][..],
        ),
        ("project", &["project", "project:*", "select project"][..]),
        (
            "folder",
            &["folder", "folder:*", "select folder", "working directory"][..],
        ),
        ("branch", &["branch", "branch:*"][..]),
    ] {
        if !out.details.contains_key(key) {
            out.set(key, json!(valued(names)));
        }
    }
    out.set("files", json!(changed_files(snapshot)));
}

/// The names listed under a "Files changed" heading or group (at most 8).
fn changed_files(snapshot: &Snapshot) -> Vec<String> {
    const HEADERS: &[&str] = &["files changed", "changed files", "files", "edited files"];
    let Some((header, node)) = visible(snapshot).find(|(_, n)| {
        matches!(n.role, Role::Heading | Role::Group | Role::List) && name_is(&n.name, HEADERS)
    }) else {
        return Vec::new();
    };
    // A heading names the list below it; a group or list holds the items itself.
    let container = match node.role {
        Role::Heading => list_below(snapshot, header),
        _ => Some(header),
    };
    let Some(container) = container else {
        return Vec::new();
    };
    visible(snapshot)
        .filter(|(i, n)| {
            *i != container
                && is_within(snapshot, *i, container)
                && matches!(n.role, Role::ListItem | Role::Link | Role::TreeItem)
        })
        .map(|(i, _)| label_of(snapshot, i))
        .filter(|label| !label.is_empty())
        .take(8)
        .collect()
}

/// The sibling list nearest below a heading: by position when the tree has bounds (toolkits
/// reorder siblings, GTK among them), else the next sibling.
fn list_below(snapshot: &Snapshot, heading: usize) -> Option<usize> {
    let node = snapshot.nodes.get(heading)?;
    let parent = snapshot.nodes.get(node.parent? as usize)?;
    let siblings: Vec<usize> = parent.children.iter().map(|c| *c as usize).collect();
    if let Some(top) = node.bounds.map(|b| b.y + b.height) {
        let below = siblings
            .iter()
            .filter_map(|i| Some((*i, snapshot.nodes.get(*i)?)))
            .filter(|(_, n)| matches!(n.role, Role::List | Role::Tree | Role::Group))
            .filter_map(|(i, n)| Some((i, n.bounds?.y)))
            .filter(|(_, y)| *y >= top - 2)
            .min_by_key(|(_, y)| *y);
        if let Some((i, _)) = below {
            return Some(i);
        }
    }
    let at = siblings.iter().position(|c| *c == heading)?;
    siblings.get(at + 1).copied()
}

/// "Context: 45% used", "45% context left"…: the percentage on a line about the context.
fn context_used(lines: &[&str]) -> Option<String> {
    lines.iter().find_map(|line| {
        let lower = line.to_lowercase();
        if !lower.contains("context") {
            return None;
        }
        let at = lower.find('%')?;
        let digits: String = lower[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        (!digits.is_empty()).then(|| {
            if lower.contains("left") || lower.contains("remaining") {
                format!("{digits}% left")
            } else {
                format!("{digits}%")
            }
        })
    })
}

/// "2 background tasks" / "Background tasks: 2".
fn background_tasks(lines: &[&str]) -> Option<u32> {
    lines.iter().find_map(|line| {
        let lower = line.to_lowercase();
        let at = lower.find("background task")?;
        let before = lower[..at].split_whitespace().last();
        let after = lower[at..]
            .split_once(':')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        before
            .and_then(|w| w.parse().ok())
            .or_else(|| after.and_then(|w| w.parse().ok()))
    })
}
