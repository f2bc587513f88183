//! From what an agent says to what the tools act on: `app` to one window, and a snapshot to the
//! labelled candidates that label matching chooses from. Pure functions over backend data.

use cu_core::model::element::{Node, Snapshot, State};
use cu_core::model::geometry::Rect;
use cu_core::model::outline;
use cu_core::model::role::Role;
use cu_core::model::text;
use cu_core::model::window::WindowInfo;
use cu_core::policy::matching::{self, Candidate, Ranked};
use cu_core::{Error, ErrorCode, Result};
use serde_json::json;

/// The one window `app` names: a window id, an application name or a window title (exact, then
/// normalized, then as whole words: "calculator" finds "gnome-calculator", "firefox" finds
/// "fixture — Mozilla Firefox"). Several equally good windows are ambiguous; none lists the
/// windows that exist.
pub fn resolve_app<'w>(app: &str, windows: &'w [WindowInfo]) -> Result<&'w WindowInfo> {
    let app = app.trim();
    if app.is_empty() {
        return Err(Error::new(ErrorCode::InvalidArgument, "app is empty")
            .with_suggestion("Pass an application name or window title from gui_list."));
    }
    if let Some(w) = windows.iter().find(|w| w.id.as_str() == app) {
        return Ok(w);
    }
    let wanted = text::normalize(app);
    let wanted_words = text::words(&wanted);
    let tier = |w: &WindowInfo| -> Option<u8> {
        if w.title == app || w.app == app {
            return Some(1);
        }
        let (title, name) = (text::normalize(&w.title), text::normalize(&w.app));
        if title == wanted || name == wanted {
            return Some(2);
        }
        let has_words = |s: &str| {
            let words = text::words(s);
            !wanted_words.is_empty()
                && words
                    .windows(wanted_words.len())
                    .any(|run| run == wanted_words.as_slice())
        };
        (has_words(&title) || has_words(&name)).then_some(3)
    };
    let ranked: Vec<(u8, &WindowInfo)> = windows
        .iter()
        .filter_map(|w| tier(w).map(|t| (t, w)))
        .collect();
    let Some(best) = ranked.iter().map(|(t, _)| *t).min() else {
        return Err(Error::new(
            ErrorCode::AppNotFound,
            format!("no window matches app {app:?}"),
        )
        .with_suggestion(
            "Use an app name or window title from details.windows (or launch the app with `mcp-computer-use open`).",
        )
        .with_details(json!({ "windows": window_list(windows.iter()) })));
    };
    let top: Vec<&WindowInfo> = ranked
        .iter()
        .filter(|(t, _)| *t == best)
        .map(|(_, w)| *w)
        .collect();
    match top.as_slice() {
        [one] => Ok(one),
        several => Err(Error::new(
            ErrorCode::TargetAmbiguous,
            format!("{} windows match app {app:?}", several.len()),
        )
        .with_suggestion("Pass the exact window title, or the window id, as app.")
        .with_details(json!({ "windows": window_list(several.iter().copied()) }))),
    }
}

fn window_list<'w>(windows: impl Iterator<Item = &'w WindowInfo>) -> Vec<serde_json::Value> {
    windows
        .map(|w| json!({ "window_id": w.id, "app": w.app, "title": w.title }))
        .collect()
}

/// Which elements [`Candidates::reached`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// On screen.
    OnScreen,
    /// Off screen, but on screen after a scroll.
    BelowTheFold,
}

/// The elements of a snapshot a label may name, with the label a user sees for each.
pub struct Candidates {
    /// Snapshot indexes, parallel to `labels`.
    pub nodes: Vec<usize>,
    /// What a user sees as each element's label.
    pub labels: Vec<String>,
}

impl Candidates {
    /// Shown elements (not marked offscreen; on screen, when the tree has positions) that have a label, a value or a
    /// toolkit id, except an interactive element inside another of the same name (one button,
    /// not two), and an element exposed twice at one place (the same label, role and bounds: a
    /// GTK file-type list showed each item twice) which is one candidate. A field without a
    /// name takes its form label ("Name:"): see [`field_label`].
    pub fn of(snapshot: &Snapshot) -> Candidates {
        Candidates::reached(snapshot, Reach::OnScreen)
    }

    /// Like [`Candidates::of`], the elements that are not on screen but would be by scrolling
    /// ([`outline::scrollable_to`]: below the fold of the document or list on screen, not in a
    /// closed menu or a background tab). A label that names nothing on screen is looked up among
    /// them, as a person scrolls to what they read about; the step scrolls it into view.
    pub fn below_the_fold(snapshot: &Snapshot) -> Candidates {
        Candidates::reached(snapshot, Reach::BelowTheFold)
    }

    fn reached(snapshot: &Snapshot, reach: Reach) -> Candidates {
        let nodes = &snapshot.nodes;
        let window = nodes
            .first()
            .and_then(|root| root.bounds)
            .filter(|b| !b.is_empty())
            .map(|b| Rect::new(0, 0, b.width, b.height));
        let mut out = Candidates {
            nodes: Vec::new(),
            labels: Vec::new(),
        };
        let mut borrowed_from = std::collections::HashSet::new();
        let mut placed = std::collections::HashSet::new();
        for (index, node) in nodes.iter().enumerate().skip(1) {
            let on_screen = !node.states.contains(State::Offscreen)
                && window.is_none_or(|window| {
                    node.bounds
                        .filter(|b| !b.is_empty())
                        .and_then(|b| b.intersection(&window))
                        .is_some()
                });
            let reached = match reach {
                Reach::OnScreen => on_screen,
                Reach::BelowTheFold => !on_screen && outline::scrollable_to(snapshot, node),
            };
            if !reached {
                continue;
            }
            let label = if node.name.trim().is_empty() && matching::is_field(node.role, node.states)
            {
                field_label(snapshot, index).unwrap_or_default()
            } else if node.name.trim().is_empty() {
                // An unnamed checkbox takes its row's name, as the outline shows it; the row
                // then names nothing else (one "Write report", the checkbox).
                let label = cu_core::model::outline::shown_name(snapshot, node);
                if !label.is_empty() {
                    // The row it was named by, through the unnamed boxes between them.
                    let row = std::iter::successors(node.parent, |p| {
                        snapshot.nodes.get(*p as usize).and_then(|n| n.parent)
                    })
                    .take(3)
                    .find(|p| {
                        snapshot.nodes.get(*p as usize).is_some_and(|n| {
                            cu_core::model::outline::shown_name(snapshot, n) == label
                        })
                    });
                    borrowed_from.extend(row.map(|p| p as usize));
                }
                label
            } else {
                node.name.clone()
            };
            let has_text = !label.trim().is_empty()
                || node.toolkit_id.is_some()
                || node.value.as_deref().is_some_and(|v| !v.trim().is_empty());
            if !has_text || repeats_interactive_ancestor(snapshot, node) {
                continue;
            }
            if let Some(at) = node.bounds.filter(|b| !b.is_empty()) {
                if !placed.insert((label.clone(), node.role, at)) {
                    continue;
                }
            }
            out.nodes.push(index);
            out.labels.push(label);
        }
        let (nodes, labels) = out
            .nodes
            .into_iter()
            .zip(out.labels)
            .filter(|(index, _)| !borrowed_from.contains(index))
            .unzip();
        Candidates { nodes, labels }
    }

    /// The candidates in the form label matching takes.
    pub fn view<'s>(&'s self, snapshot: &'s Snapshot) -> Vec<Candidate<'s>> {
        self.nodes
            .iter()
            .zip(&self.labels)
            .filter_map(|(index, label)| {
                let node = snapshot.nodes.get(*index)?;
                Some(Candidate {
                    name: label,
                    role: node.role,
                    states: node.states,
                    toolkit_id: node.toolkit_id.as_deref(),
                    value: node.value.as_deref(),
                })
            })
            .collect()
    }

    /// One candidate as the agent sees it in TARGET_AMBIGUOUS details.
    pub fn describe(&self, snapshot: &Snapshot, m: &Ranked) -> serde_json::Value {
        let node = self.nodes.get(m.index).and_then(|i| snapshot.nodes.get(*i));
        let label = self.labels.get(m.index).map(String::as_str).unwrap_or("");
        let mut answer = json!({
            "name": label,
            "role": node.map(|n| n.role),
            "how": m.how,
            "score": m.score,
            "at": node.and_then(|n| n.bounds).map(|b| b.center()),
        });
        // Two "Help"s that read the same are told apart by where they are.
        let within = node
            .map(|n| cu_core::model::outline::context(snapshot, n))
            .unwrap_or_default();
        if !within.is_empty() {
            answer["in"] = json!(within);
        }
        answer
    }

    /// The labels of elements that can act, for ELEMENT_NOT_FOUND (at most `limit`).
    pub fn actionable_labels(&self, snapshot: &Snapshot, limit: usize) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.nodes
            .iter()
            .zip(&self.labels)
            .filter(|(i, label)| {
                snapshot
                    .nodes
                    .get(**i)
                    .is_some_and(|n| n.role.is_interactive())
                    && !label.trim().is_empty()
            })
            .map(|(_, label)| label.trim().to_owned())
            .filter(|label| seen.insert(label.clone()))
            .take(limit)
            .collect()
    }
}

/// A form label for an unnamed field: the nearest label on the same row (either side, so
/// right-to-left layouts work), else the nearest one just above it; without positions, the
/// label right before it among its siblings.
fn field_label(snapshot: &Snapshot, index: usize) -> Option<String> {
    let field = snapshot.nodes.get(index)?;
    let Some(at) = field.bounds.filter(|b| !b.is_empty()) else {
        return preceding_label(snapshot, index);
    };
    let labels = snapshot.nodes.iter().filter_map(|n| {
        let b = n.bounds.filter(|b| !b.is_empty())?;
        (n.role == Role::Label && !n.name.trim().is_empty()).then_some((n, b))
    });
    let (top, bottom) = (at.y, at.y + at.height);
    let (left, right) = (at.x, at.x + at.width);
    let mut best: Option<(i32, &Node)> = None;
    for (node, b) in labels {
        let middle = b.y + b.height / 2;
        let gap = if (top..bottom).contains(&middle) {
            // Same row: the horizontal gap to either side.
            (b.x - right).max(left - (b.x + b.width)).max(0)
        } else if b.y + (b.height) <= top && b.x < right && b.x + b.width > left {
            // Above, overlapping horizontally: counted as farther than any label on the row.
            MAX_LABEL_GAP + (top - (b.y + b.height))
        } else {
            continue;
        };
        if gap <= 2 * MAX_LABEL_GAP && best.is_none_or(|(g, _)| gap < g) {
            best = Some((gap, node));
        }
    }
    best.map(|(_, n)| n.name.clone())
}

/// How far (px) a form label may sit from its field.
const MAX_LABEL_GAP: i32 = 160;

/// The static text right before a field among its siblings (a form label).
fn preceding_label(snapshot: &Snapshot, index: usize) -> Option<String> {
    let node = snapshot.nodes.get(index)?;
    let parent = snapshot.nodes.get(node.parent? as usize)?;
    let position = parent.children.iter().position(|c| *c as usize == index)?;
    parent.children[..position]
        .iter()
        .rev()
        .filter_map(|c| snapshot.nodes.get(*c as usize))
        .find(|n| !n.name.trim().is_empty() || n.role.is_interactive())
        .filter(|n| n.role == Role::Label)
        .map(|n| n.name.clone())
}

/// True when an interactive ancestor has the same name (GTK's button inside a button).
fn repeats_interactive_ancestor(snapshot: &Snapshot, node: &Node) -> bool {
    if !node.role.is_interactive() && node.role != Role::Label {
        return false;
    }
    let mut parent = node.parent;
    while let Some(p) = parent.and_then(|p| snapshot.nodes.get(p as usize)) {
        if p.role.is_interactive() {
            return !node.name.is_empty()
                && text::normalize(&p.name) == text::normalize(&node.name);
        }
        parent = p.parent;
    }
    false
}

/// Why an element cannot take input now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unusable {
    /// The element is disabled.
    Disabled,
    /// The element cannot be edited (only when typing).
    ReadOnly,
}

impl Unusable {
    /// The wire error for this reason: a read-only field is `NOT_EDITABLE`.
    pub fn code(self) -> cu_core::ErrorCode {
        match self {
            Unusable::Disabled => cu_core::ErrorCode::ActionFailed,
            Unusable::ReadOnly => cu_core::ErrorCode::NotEditable,
        }
    }

    /// The words that follow the element in a message ("is disabled").
    pub fn describe(self) -> &'static str {
        match self {
            Unusable::Disabled => "is disabled",
            Unusable::ReadOnly => "is read-only",
        }
    }
}

/// Whether an element can take input now: not disabled, and for typing not read-only.
pub fn usable(node: &Node, typing: bool) -> std::result::Result<(), Unusable> {
    if node.states.contains(State::Disabled) {
        return Err(Unusable::Disabled);
    }
    if typing && node.states.contains(State::ReadOnly) {
        return Err(Unusable::ReadOnly);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use cu_core::model::element::{DesktopInstance, ElementIdentity, Node};
    use cu_core::model::window::WindowId;

    use super::*;

    fn window(id: &str, app: &str, title: &str) -> WindowInfo {
        WindowInfo {
            id: WindowId(id.into()),
            app: app.into(),
            title: title.into(),
            pid: None,
            bounds: None,
            focused: false,
            minimized: false,
            no_tree: false,
        }
    }

    fn windows() -> Vec<WindowInfo> {
        vec![
            window("w1", "gnome-calculator", "Calculator"),
            window("w2", "gnome-calculator", "מחשבון"),
            window("w3", "Firefox", "fixture — Mozilla Firefox"),
            window("w4", "zenity", "Confirm delete"),
            window("w5", "zenity", "Details"),
        ]
    }

    fn found(app: &str) -> Result<String> {
        let all = windows();
        resolve_app(app, &all).map(|w| w.id.0.clone())
    }

    #[test]
    fn app_by_title_name_or_id_including_localized_titles() {
        assert_eq!(found("Calculator").ok().as_deref(), Some("w1"));
        assert_eq!(found("מחשבון").ok().as_deref(), Some("w2"));
        assert_eq!(found("firefox").ok().as_deref(), Some("w3"));
        assert_eq!(found("mozilla firefox").ok().as_deref(), Some("w3"));
        assert_eq!(found("w4").ok().as_deref(), Some("w4"));
        assert_eq!(found("confirm DELETE").ok().as_deref(), Some("w4"));
    }

    #[test]
    fn several_windows_of_one_app_are_ambiguous() {
        let e = found("zenity").err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::TargetAmbiguous));
        let listed = e
            .and_then(|e| e.details)
            .map(|d| d["windows"].as_array().map_or(0, Vec::len));
        assert_eq!(listed, Some(2));
    }

    #[test]
    fn an_unknown_app_lists_the_windows_that_exist() {
        let e = found("Photoshop").err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::AppNotFound));
        let titles: Vec<String> = e
            .and_then(|e| e.details)
            .and_then(|d| d["windows"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|w| w["title"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert!(titles.contains(&"מחשבון".to_owned()), "{titles:?}");
        assert_eq!(titles.len(), 5);
    }

    fn node(role: Role, name: &str, parent: Option<u32>, bounds: Option<Rect>) -> Node {
        let mut n = Node::new(role, ElementIdentity(format!("{role}:{name}")));
        n.name = name.into();
        n.parent = parent;
        n.bounds = bounds;
        n
    }

    fn snapshot(mut nodes: Vec<Node>) -> Snapshot {
        for i in 0..nodes.len() {
            if let Some(p) = nodes[i].parent {
                nodes[p as usize].children.push(i as u32);
            }
        }
        Snapshot {
            window: window("w", "app", "title"),
            desktop: DesktopInstance("d".into()),
            nodes,
            truncated: None,
            elapsed_ms: 0,
            read: Default::default(),
        }
    }

    #[test]
    fn candidates_skip_hidden_nested_duplicates_and_label_fields() {
        let r = |x, y| Some(Rect::new(x, y, 20, 10));
        let s = snapshot(vec![
            node(Role::Window, "Form", None, Some(Rect::new(0, 0, 200, 100))),
            node(Role::Label, "Name:", Some(0), r(0, 0)),
            node(Role::TextInput, "", Some(0), r(30, 0)),
            node(Role::Button, "OK", Some(0), r(0, 20)),
            node(Role::Label, "OK", Some(3), r(0, 20)),
            node(Role::Button, "Hidden", Some(0), None),
            node(Role::Button, "Scrolled away", Some(0), r(500, 500)),
        ]);
        let c = Candidates::of(&s);
        let labels: Vec<&str> = c.labels.iter().map(String::as_str).collect();
        assert_eq!(labels, ["Name:", "Name:", "OK"]);
        assert_eq!(c.nodes, [1, 2, 3]);
        assert_eq!(c.actionable_labels(&s, 10), ["Name:", "OK"]);
    }

    /// Issue 40: a Save dialog's file-type list exposed each item twice at the same point, and
    /// every label answered TARGET_AMBIGUOUS with two candidates of identical names.
    #[test]
    fn regression_an_item_exposed_twice_at_one_place_was_ambiguous() {
        let at = Some(Rect::new(10, 40, 120, 20));
        let s = snapshot(vec![
            node(Role::Window, "Save", None, Some(Rect::new(0, 0, 300, 200))),
            node(Role::ListItem, "ODF Spreadsheet", Some(0), at),
            node(Role::ListItem, "ODF Spreadsheet", Some(0), at),
            // The same name elsewhere is another candidate.
            node(
                Role::ListItem,
                "ODF Spreadsheet",
                Some(0),
                Some(Rect::new(10, 80, 120, 20)),
            ),
        ]);
        let c = Candidates::of(&s);
        assert_eq!(c.nodes, [1, 3]);
        let view = c.view(&s);
        let resolved = matching::resolve("ODF Spreadsheet", &view, |_| true);
        assert!(
            matches!(resolved, matching::Resolution::Ambiguous(ref m) if m.len() == 2),
            "{resolved:?}"
        );
    }

    /// Issue 40 (TodoMVC's own markup): each row's check box is unnamed, its words a sibling
    /// `<label>` inside an unnamed `<div class="view">`; the check box takes the row's words,
    /// and the row then names nothing else (it was ambiguous with its own check box).
    #[test]
    fn regression_a_public_apps_row_check_box_was_unnamed() {
        let r = |y| Some(Rect::new(10, y, 300, 40));
        let mut label = node(Role::Label, "", Some(2), r(40));
        label.value = Some("Call Alice".into());
        let s = snapshot(vec![
            node(
                Role::Window,
                "TodoMVC",
                None,
                Some(Rect::new(0, 0, 400, 300)),
            ),
            node(Role::ListItem, "", Some(0), r(40)),
            node(Role::Group, "", Some(1), r(40)),
            label,
            node(Role::CheckBox, "", Some(2), Some(Rect::new(12, 50, 20, 20))),
        ]);
        let c = Candidates::of(&s);
        let view = c.view(&s);
        let found = matching::resolve("Call Alice", &view, |_| true);
        let one = match found {
            matching::Resolution::One(m) => c.nodes.get(m.index).copied(),
            other => panic!("{other:?}"),
        };
        assert_eq!(one, Some(4));
    }

    #[test]
    fn an_unnamed_field_takes_the_label_on_its_row_whatever_the_tree_order() {
        // GTK 3 grids list children last-first, and right-to-left forms put the label right.
        let s = snapshot(vec![
            node(Role::Window, "Form", None, Some(Rect::new(0, 0, 400, 200))),
            node(
                Role::TextInput,
                "",
                Some(0),
                Some(Rect::new(20, 40, 150, 24)),
            ),
            node(
                Role::Label,
                "Status: ready",
                Some(0),
                Some(Rect::new(0, 0, 300, 20)),
            ),
            node(
                Role::Label,
                "שם:",
                Some(0),
                Some(Rect::new(180, 44, 30, 16)),
            ),
            node(
                Role::TextInput,
                "",
                Some(0),
                Some(Rect::new(20, 120, 150, 24)),
            ),
            node(
                Role::Label,
                "Notes",
                Some(0),
                Some(Rect::new(20, 100, 60, 16)),
            ),
        ]);
        let c = Candidates::of(&s);
        let fields: Vec<&str> = c
            .nodes
            .iter()
            .zip(&c.labels)
            .filter(|(i, _)| s.nodes[**i].role == Role::TextInput)
            .map(|(_, l)| l.as_str())
            .collect();
        assert_eq!(fields, ["שם:", "Notes"]);
    }
}
