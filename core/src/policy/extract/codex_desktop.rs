//! Codex desktop (the ChatGPT / Codex app): matched by app name (chatgpt, codex, codex desktop,
//! openai.codex) or a title containing "codex".
//!
//! Status comes from controls only, never from the prose of assistant turns: `working` while a
//! Stop control shows, `waiting` when an approval prompt shows with its approve and deny
//! buttons, `finished` when a turn's Copy and Good/Bad response buttons show, else `unknown`.
//! Details: `project`, `session`, `mode`, `projects` (≤ 8, corroborated by project action
//! controls), `recent_chats` (≤ 5, corroborated by pin/archive controls), `needs_attention`,
//! `next_step`, `failures`, `waiting_prompt` and `waiting_for_user`.

use serde_json::json;

use super::{after_prefix, approval_prompt, control, name_is, reading_order, visible, Extracted};
use super::{claude_code, Status};
use crate::model::element::Snapshot;
use crate::model::role::Role;

const APPS: &[&str] = &["chatgpt", "codex", "codex desktop", "openai.codex"];
const RATED: &[&str] = &["good response", "bad response"];

/// The app by name, or a title mentioning Codex.
pub fn matches(app: &str, title: &str) -> bool {
    APPS.contains(&app.trim_end_matches(".exe")) || title.contains("codex")
}

/// Reads the thread's text; `project` and `next_step` from plain lines.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = reading_order(snapshot, 0);
    let mut out = Extracted::new("codex_desktop", text);
    let project = out.text.iter().find_map(|line| {
        let at = crate::model::text::find_ignore_case(line, "what should we work on in ")?;
        let rest = line.get(at.end..)?;
        Some(rest.trim().trim_end_matches('?').trim().to_owned())
    });
    out.set("project", json!(project));
    let tail = out.text[out.text.len().saturating_sub(40)..].to_vec();
    out.add_failures_and_next_step(&tail);
    out
}

/// Status and the sidebar, mode and thread details from controls.
pub fn snapshot_details(snapshot: &Snapshot, out: &mut Extracted) {
    let prompt = approval_prompt(snapshot, claude_code::APPROVE, claude_code::REFUSE);
    let copy = control(snapshot, &["copy", "copy message"]).is_some();
    out.status = if control(snapshot, claude_code::STOP).is_some() {
        Status::Working
    } else if prompt.is_some() {
        Status::Waiting
    } else if copy && control(snapshot, RATED).is_some() {
        Status::Finished
    } else {
        Status::Unknown
    };
    if let Some(prompt) = prompt {
        out.set("waiting_prompt", json!(prompt));
        out.details.insert("waiting_for_user", json!(true));
    }
    let names: Vec<&str> = visible(snapshot)
        .filter(|(_, n)| n.role.is_interactive())
        .map(|(_, n)| n.name.as_str())
        .collect();
    if !out.details.contains_key("project") {
        out.set(
            "project",
            json!(after_prefix(names.iter().copied(), &["change project: "])),
        );
    }
    out.set(
        "mode",
        json!(after_prefix(
            names.iter().copied(),
            &["switch mode, current mode: "]
        )),
    );
    if names
        .iter()
        .any(|n| name_is(n, &["view activity, needs attention"]))
    {
        out.details.insert("needs_attention", json!(true));
    }
    let session = visible(snapshot)
        .find(|(_, n)| n.role == Role::Heading && !n.name.trim().is_empty())
        .map(|(_, n)| n.name.trim().to_owned());
    out.set("session", json!(session));
    out.set(
        "projects",
        json!(corroborated(
            &names,
            &["project actions for ", "new chat in ", "start new chat in "],
            8
        )),
    );
    out.set(
        "recent_chats",
        json!(corroborated(
            &names,
            &["pin chat ", "archive chat ", "pin ", "archive "],
            5
        )),
    );
}

/// Names of controls that another control refers to by a prefix ("Project actions for X"
/// corroborates a control named X), in order, at most `limit`.
fn corroborated(names: &[&str], prefixes: &[&str], limit: usize) -> Vec<String> {
    let referred: Vec<String> = names
        .iter()
        .filter_map(|n| {
            let lower = n.trim().to_lowercase();
            prefixes
                .iter()
                .find_map(|p| lower.strip_prefix(p).map(|rest| rest.trim().to_owned()))
        })
        .filter(|r| !r.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let clean = name.trim();
        if referred.contains(&clean.to_lowercase()) && !out.iter().any(|o| o == clean) {
            out.push(clean.to_owned());
        }
    }
    out.truncate(limit);
    out
}
