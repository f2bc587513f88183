//! Browsers (Chrome, Edge, Brave, Firefox, Chromium): the page, not the browser's chrome.
//!
//! `error` when the page is a network error page; otherwise `unknown`. Details: `page_title`
//! (and `title`), `url`, `tab`, up to 5 `headings`, `failures` and `next_step` from the page.

use serde_json::json;

use super::{is_within, reading_order, Extracted, Status};
use crate::model::element::{Snapshot, State};
use crate::model::role::Role;

const APPS: &[&str] = &[
    "chrome",
    "google chrome",
    "msedge",
    "edge",
    "microsoft edge",
    "brave",
    "firefox",
    "mozilla firefox",
    "chromium",
    "chromium-browser",
];

/// Title suffixes of browser windows, lower case ("—" is Firefox's own dash on Linux).
const SUFFIXES: &[&str] = &[
    " - google chrome",
    " - microsoft edge",
    " - mozilla firefox",
    " — mozilla firefox",
    " - brave",
    " - chromium",
];

/// Text of network error pages (Chromium, Firefox, Edge).
const NETWORK_ERRORS: &[&str] = &[
    "this site can’t be reached",
    "this site can't be reached",
    "err_",
    "dns_probe",
    "unable to connect",
    "the proxy server is refusing connections",
    "server not found",
    "no internet",
    "hmm. we’re having trouble finding that site",
    "connection was refused",
    "took too long to respond",
    "can’t connect to the server",
    "can't connect to the server",
];

/// A browser by app name or title suffix.
pub fn matches(app: &str, title: &str) -> bool {
    APPS.contains(&app)
        || SUFFIXES.iter().any(|s| title.ends_with(s))
        || title.contains("microsoft edge")
}

fn page_title(title: &str) -> String {
    let cut = SUFFIXES
        .iter()
        .find_map(|s| crate::model::text::suffix_ignore_case(title, s))
        .unwrap_or(title.len());
    // Edge profiles: "Page - Profile 1 - Microsoft Edge" keeps only the page.
    let page = title.get(..cut).unwrap_or(title);
    page.split(" - Profile ")
        .next()
        .unwrap_or(page)
        .trim()
        .to_owned()
}

/// The web document's node: the visible one with a size, else the first.
fn document(snapshot: &Snapshot) -> Option<usize> {
    let nodes = &snapshot.nodes;
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.role == Role::Document)
        .find(|(_, n)| {
            !n.states.contains(State::Offscreen) && n.bounds.is_some_and(|b| !b.is_empty())
        })
        .or_else(|| {
            nodes
                .iter()
                .enumerate()
                .find(|(_, n)| n.role == Role::Document)
        })
        .map(|(i, _)| i)
}

/// Reads a browser window: the page's text, its title, failures, next step, network errors.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = document(snapshot)
        .map(|d| reading_order(snapshot, d))
        .unwrap_or_default();
    let mut out = Extracted::new("browser", text);
    let title = page_title(&snapshot.window.title);
    out.set("page_title", json!(title));
    out.set("title", json!(title));
    let text = out.text.clone();
    out.add_failures_and_next_step(&text);
    let network_error = text.iter().any(|l| {
        let l = l.to_lowercase();
        NETWORK_ERRORS.iter().any(|m| l.contains(m))
    });
    if network_error {
        out.status = Status::Error;
    }
    out
}

/// The address bar's URL, the active tab and the page's headings, from the tree.
pub fn snapshot_details(snapshot: &Snapshot, out: &mut Extracted) {
    let nodes = &snapshot.nodes;
    let document = document(snapshot);
    let in_document = |index: usize| document.is_some_and(|d| is_within(snapshot, index, d));
    let url = nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| !in_document(*i) && matches!(n.role, Role::TextInput | Role::ComboBox))
        .filter_map(|(_, n)| n.value.as_deref())
        .find(|v| v.contains("://") || v.contains('/') || v.contains('.'));
    out.set("url", json!(url));
    let tab = nodes
        .iter()
        .find(|n| n.role == Role::Tab && n.states.contains(State::Selected))
        .map(|n| {
            n.name
                .split(" - Memory usage")
                .next()
                .unwrap_or(&n.name)
                .trim()
                .to_owned()
        });
    // The active tab's label usually repeats the page title: only a different one is news.
    let title = out.details.get("page_title").and_then(|t| t.as_str());
    out.set("tab", json!(tab.filter(|t| Some(t.as_str()) != title)));
    let headings: Vec<&str> = nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| n.role == Role::Heading && !n.name.trim().is_empty() && in_document(*i))
        .map(|(_, n)| n.name.trim())
        .take(5)
        .collect();
    out.set("headings", json!(headings));
}
