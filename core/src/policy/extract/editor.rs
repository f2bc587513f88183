//! VS Code-family editors (VS Code, Cursor, Antigravity IDE, Windsurf, VSCodium).
//!
//! Status: `waiting` when a modal prompt shows with its action buttons (workspace trust,
//! extension install, save changes), `error` when failures are found, else `unknown`. Details:
//! `project`, `file` (from the title, or the single active editor tab), `waiting_prompt` and
//! `waiting_for_user`, `failures` (diagnostics, the Problems counts, and only the last terminal
//! run: output before a newer prompt or test summary is superseded), `next_step`.

use serde_json::json;

use super::{approval_prompt, failures, next_step, reading_order, visible, Extracted, Status};
use crate::model::element::{Snapshot, State};
use crate::model::role::Role;

const APPS: &[&str] = &[
    "code",
    "code - oss",
    "code-oss",
    "code - insiders",
    "code-insiders",
    "visual studio code",
    "cursor",
    "antigravity",
    "antigravity ide",
    "windsurf",
    "vscodium",
    "codium",
];

/// What follows the file and project in a title, lower case.
const TITLE_MARKERS: &[&str] = &[
    " - visual studio code",
    " - code - insiders",
    " - cursor",
    " - antigravity ide",
    " - windsurf",
    " - vscodium",
    " - code - oss",
];

/// Buttons of the editor's real modal prompts.
const PROMPT_YES: &[&str] = &[
    "yes, i trust the authors",
    "trust folder & continue",
    "trust",
    "install",
    "save",
    "save all",
    "yes",
    "ok",
    "allow",
];
const PROMPT_NO: &[&str] = &[
    "no, i don't trust the authors",
    "don't trust",
    "don't save",
    "do not save",
    "cancel",
    "no",
    "deny",
];

/// An editor by app name or title.
pub fn matches(app: &str, title: &str) -> bool {
    APPS.contains(&app.trim_end_matches(".exe")) || TITLE_MARKERS.iter().any(|m| title.contains(m))
}

/// Splits "● main.rs - myproject - Visual Studio Code" into (file, project).
fn title_parts(title: &str) -> (Option<String>, Option<String>) {
    // Offsets into the title itself: a lower-cased copy has other offsets wherever a letter's
    // lower case has another length (a title with the KELVIN SIGN made this panic).
    let Some(at) = TITLE_MARKERS
        .iter()
        .filter_map(|m| crate::model::text::find_ignore_case(title, m).map(|r| r.start))
        .min()
    else {
        return (None, None);
    };
    let head = title[..at].trim().trim_start_matches('●').trim();
    let parts: Vec<&str> = head
        .split(" - ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    match parts.as_slice() {
        [] => (None, None),
        [project] => (None, Some((*project).to_owned())),
        [file, project, ..] => (Some((*file).to_owned()), Some((*project).to_owned())),
    }
}

/// Reads the editor: title facts, failures (last terminal run only), next step.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = reading_order(snapshot, 0);
    let mut out = Extracted::new("editor", text);
    let (file, project) = title_parts(&snapshot.window.title);
    out.set("file", json!(file));
    out.set("project", json!(project));
    // Terminal contents: their lines (for the last run), and each whole, collapsed as reading
    // order collapses it (to leave it out of the other text).
    let terminals: Vec<&str> = snapshot
        .nodes
        .iter()
        .filter(|n| n.role == Role::Terminal)
        .filter_map(|n| n.value.as_deref())
        .collect();
    let terminal: Vec<String> = terminals
        .iter()
        .flat_map(|v| v.lines().map(str::to_owned))
        .collect();
    let run = last_terminal_run(&terminal);
    let mut found = failures(&run);
    let terminal_blocks: Vec<String> = terminals
        .iter()
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let others: Vec<String> = out
        .text
        .iter()
        .filter(|l| !terminal_blocks.contains(l))
        .cloned()
        .collect();
    for failure in failures(&others) {
        if !found.contains(&failure) {
            found.push(failure);
        }
    }
    out.set("failures", json!(found));
    if let Some(step) = next_step(&out.text) {
        out.set("next_step", json!(step));
    }
    if out.details.contains_key("failures") {
        out.status = Status::Error;
    }
    out
}

/// A modal prompt, the Problems counts and the active tab from the tree.
pub fn snapshot_details(snapshot: &Snapshot, out: &mut Extracted) {
    if let Some(prompt) = approval_prompt(snapshot, PROMPT_YES, PROMPT_NO) {
        out.set("waiting_prompt", json!(prompt));
        out.details.insert("waiting_for_user", json!(true));
        out.status = Status::Waiting;
    }
    if let Some(errors) = visible(snapshot).find_map(|(_, n)| problem_errors(&n.name)) {
        if errors > 0 {
            let mut list: Vec<serde_json::Value> = out
                .details
                .get("failures")
                .and_then(|f| f.as_array().cloned())
                .unwrap_or_default();
            list.push(json!(format!("{errors} errors in Problems")));
            out.details.insert("failures", json!(list));
            if out.status == Status::Unknown {
                out.status = Status::Error;
            }
        }
    }
    if !out.details.contains_key("file") {
        let active: Vec<&str> = visible(snapshot)
            .filter(|(_, n)| n.role == Role::Tab && n.states.contains(State::Selected))
            .map(|(_, n)| n.name.trim())
            .filter(|n| n.contains('.'))
            .collect();
        if let [single] = active.as_slice() {
            out.set("file", json!(single.trim_start_matches('●').trim()));
        }
    }
}

/// The status bar's "Errors: 2, Warnings: 1" / "2 errors, 1 warning" → 2.
fn problem_errors(name: &str) -> Option<u32> {
    let lower = name.to_lowercase();
    if lower.contains("no problems") {
        return Some(0);
    }
    if let Some(rest) = lower.strip_prefix("errors:") {
        return rest
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())?
            .parse()
            .ok();
    }
    let at = lower.find(" error")?;
    if !lower.contains("warning") {
        return None;
    }
    lower[..at].split_whitespace().last()?.parse().ok()
}

/// A shell prompt line; `with_command` also requires something typed after it.
fn prompt(line: &str) -> Option<bool> {
    let t = line.trim_end();
    for marker in ["$ ", "❯ ", "➜ ", "> ", "# "] {
        if let Some(at) = t.find(marker) {
            let before = &t[..at];
            let looks = at == 0
                || before.ends_with([']', '~', ':', ')'])
                || before.starts_with("PS ")
                || before.contains('@');
            if looks {
                return Some(!t[at + marker.len()..].trim().is_empty());
            }
        }
    }
    (t.ends_with('$') || t.ends_with('>') || t.ends_with('❯')).then_some(false)
}

/// The output of the last command in a terminal: after the last prompt with a command, up to a
/// bare prompt; with no prompt at all, after the last test summary (older runs are superseded).
fn last_terminal_run(lines: &[String]) -> Vec<String> {
    let commands: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| prompt(l) == Some(true))
        .map(|(i, _)| i)
        .collect();
    if let Some(&start) = commands.last() {
        return lines[start + 1..]
            .iter()
            .take_while(|l| prompt(l).is_none())
            .cloned()
            .collect();
    }
    let summary = lines
        .iter()
        .rposition(|l| l.to_lowercase().starts_with("test result:"));
    match summary {
        Some(at) => {
            let before = lines[..at]
                .iter()
                .rposition(|l| l.to_lowercase().starts_with("test result:"))
                .map_or(0, |b| b + 1);
            lines[before..=at].to_vec()
        }
        None => lines.to_vec(),
    }
}
