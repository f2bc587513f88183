//! One element as the outline writes it, and what every part of the outline shares: the name a
//! person reads on an element ([`shown_name`]), its line (`button "Save" focused`, with its
//! [`Place`] when asked for), the names of its containers ([`context`]), quoting that keeps
//! window text inside its quotes, the ids handed out (kept ones first), and what an element is
//! known by across observations ([`key`]).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::element::{ElementIdentity, Node, Snapshot, State};
use crate::model::role::Role;

/// Which rows of which table to print ([`crate::model::outline::OutlineOptions::table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRows {
    /// The table, or an element of it.
    pub element: ElementIdentity,
    /// The first data row, 1-based.
    pub first: usize,
    /// The last data row, 1-based (clamped to the rows there are).
    pub last: usize,
}

/// Where each listed element is, in window-relative pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Place {
    /// Not said: elements are acted on by id (the default, 4–5 tokens a line less).
    #[default]
    None,
    /// The point a click at the element's centre would use: `@432,235`.
    Point,
    /// The whole rectangle: `402,224 61x22`.
    Bounds,
}

/// What an element is known by from one observation to the next: its identity, or for a
/// spreadsheet's cell its sheet and name (`B7`), since LibreOffice makes new cell objects
/// whenever the sheet changes.
pub fn key(snapshot: &Snapshot, node: &Node) -> String {
    let sheet = node
        .parent
        .and_then(|p| snapshot.nodes.get(p as usize))
        .filter(|p| p.grid.is_some());
    match sheet {
        Some(sheet) if node.role == Role::Cell && !node.name.trim().is_empty() => {
            format!("{}#{}", sheet.identity.0, node.name.trim())
        }
        _ => node.identity.0.clone(),
    }
}

/// Hands out ids: kept ones first, then fresh numbers above every kept one.
pub(crate) struct Ids<'a> {
    keep: &'a HashMap<String, String>,
    next: usize,
}

impl<'a> Ids<'a> {
    pub(crate) fn new(keep: &'a HashMap<String, String>) -> Ids<'a> {
        let highest = keep
            .values()
            .filter_map(|id| id.strip_prefix('e')?.parse::<usize>().ok())
            .max()
            .unwrap_or(0);
        Ids {
            keep,
            next: highest + 1,
        }
    }

    pub(crate) fn of(&mut self, snapshot: &Snapshot, node: &Node) -> String {
        if let Some(id) = self.keep.get(&key(snapshot, node)) {
            return id.clone();
        }
        let id = format!("e{}", self.next);
        self.next += 1;
        id
    }
}

/// Named containers shown after a query's match, nearest last.
const QUERY_CONTEXT: usize = 3;

/// A rendered outline and the mapping from short ids to snapshot nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// The text shown to the agent.
    pub text: String,
    /// `(short id, index into Snapshot::nodes)` for every listed element.
    pub ids: Vec<(String, usize)>,
    /// For each entry of `ids`, its line without indentation and id (`button "7"`): what
    /// [`crate::model::changes`] compares between observations.
    pub bodies: Vec<String>,
    /// Elements that qualified but were cut by `max_elements`.
    pub omitted: usize,
}

/// States worth showing: the ones that change what an action does.
const SHOWN_STATES: &[State] = &[
    State::Focused,
    State::Disabled,
    State::Checked,
    State::Mixed,
    State::Pressed,
    State::Selected,
    State::Expanded,
    State::Collapsed,
    State::ReadOnly,
    State::Modal,
    State::Offscreen,
];

/// The element's name without the padding around it (GTK 3 menu items pad theirs to align
/// the accelerators: "Undo      "), or for an unnamed control the name of its label child (a
/// GTK 4 button whose only content is the label "π").
pub fn shown_name(snapshot: &Snapshot, node: &Node) -> String {
    if node.name.trim().is_empty()
        && matches!(
            node.role,
            Role::CheckBox | Role::RadioButton | Role::Switch | Role::ToggleButton
        )
    {
        // An unnamed checkbox in a list row or table cell is named by its row ("Buy milk"),
        // also through the unnamed boxes between them (TodoMVC's `<div class="view">`), and
        // a row without a name of its own by the one label it holds.
        let row = std::iter::successors(node.parent, |p| {
            snapshot.nodes.get(*p as usize).and_then(|n| n.parent)
        })
        .take(3)
        .filter_map(|p| snapshot.nodes.get(p as usize))
        .take_while(|p| {
            matches!(
                p.role,
                Role::ListItem | Role::Row | Role::Cell | Role::TreeItem
            ) || (p.name.trim().is_empty() && p.role.is_container())
        })
        .find(|p| {
            matches!(
                p.role,
                Role::ListItem | Role::Row | Role::Cell | Role::TreeItem
            )
        });
        if let Some(row) = row {
            let name = shown_name(snapshot, row);
            if !name.is_empty() {
                return name;
            }
            let value = row.value.as_deref().unwrap_or_default().trim();
            if !value.is_empty() {
                return value.to_owned();
            }
            return label_inside(snapshot, row).unwrap_or_default();
        }
    }
    if node.name.trim().is_empty() && node.role.is_interactive() {
        // An icon button without a name is known by its tooltip ("Move to next match").
        if let Some(tip) = node.description.as_deref().map(str::trim) {
            if !tip.is_empty() {
                return tip.to_owned();
            }
        }
    }
    // A list bullet ("• ") names nothing a user would say; an unnamed list item is known by
    // the one label it holds (a web page's `<li>one</li>`: its marker "•" and its text "one").
    if !is_bullet(&node.name) || !node.role.is_interactive() {
        return node.name.trim().to_owned();
    }
    label_inside(snapshot, node).unwrap_or_default()
}

/// Whether a text is only a list marker ("•", "◦ "), or nothing at all.
fn is_bullet(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || matches!(c, '•' | '◦' | '▪' | '‣' | '■' | '□' | '○' | '●'))
}

/// A text element that only shows a list item's marker: the browsers' "•" before each item.
pub(crate) fn is_marker(node: &Node) -> bool {
    node.role.is_text()
        && node.children.is_empty()
        && !node.name.trim().is_empty()
        && is_bullet(&node.name)
        && node.value.as_deref().is_none_or(is_bullet)
}

/// The one label a control holds, directly or inside unnamed structure (GTK 4's column header
/// button holds its "Modified" two panels down); `None` when it holds none or several.
fn label_inside(snapshot: &Snapshot, node: &Node) -> Option<String> {
    let mut found = None;
    let mut stack: Vec<(u32, u8)> = node.children.iter().map(|c| (*c, 0)).collect();
    while let Some((index, depth)) = stack.pop() {
        let Some(child) = snapshot.nodes.get(index as usize) else {
            continue;
        };
        let name = child.name.trim();
        // Chromium gives a `<label>`'s words as its value, its name empty.
        let text = if name.is_empty() {
            child.value.as_deref().unwrap_or_default().trim()
        } else {
            name
        };
        if child.role == Role::Label && !text.is_empty() && !is_marker(child) {
            if found.is_some() {
                return None;
            }
            found = Some(text.to_owned());
        } else if depth < 3 && name.is_empty() && child.role.is_container() {
            stack.extend(child.children.iter().map(|c| (*c, depth + 1)));
        }
    }
    found
}

/// One element as the default outline line shows it, without id: `button "Save" focused`.
pub fn describe(snapshot: &Snapshot, node: &Node) -> String {
    body(node, &shown_name(snapshot, node), Place::None)
}

/// [`describe`] for a control inside a table row, whose row line says once whether it is on
/// screen: without its `offscreen` state.
pub(crate) fn describe_in_row(snapshot: &Snapshot, node: &Node) -> String {
    let mut shown = node.clone();
    shown.states.remove(State::Offscreen);
    body(&shown, &shown_name(snapshot, node), Place::None)
}

/// Replaces a query match's line break with the names of its nearest named containers
/// (` in toolbar "Standard" › group "Files"`, outermost first; the window itself, and
/// containers that only repeat its title, left out).
pub(crate) fn containers(text: &mut String, snapshot: &Snapshot, node: &Node) {
    let within = context(snapshot, node);
    if !within.is_empty() && text.ends_with('\n') {
        text.pop();
        let _ = writeln!(text, " in {within}");
    }
}

/// The names of a node's nearest named containers, outermost first (`toolbar "Standard" ›
/// group "Files"`; the window itself, and containers that only repeat its title, left out): what
/// tells two elements of the same name apart. Empty when none is named.
pub fn context(snapshot: &Snapshot, node: &Node) -> String {
    let mut named = Vec::new();
    let mut at = node.parent;
    while let (Some(i), true) = (at, named.len() < QUERY_CONTEXT) {
        let Some(parent) = snapshot
            .nodes
            .get(i as usize)
            .filter(|p| p.parent.is_some())
        else {
            break;
        };
        let name = shown_name(snapshot, parent);
        if !name.trim().is_empty() && name != snapshot.window.title {
            named.push(format!("{} {}", parent.role, quote(&name)));
        }
        at = parent.parent;
    }
    named.reverse();
    named.join(" › ")
}

pub(crate) fn line(text: &mut String, id: &str, body: &str, depth: usize) {
    let _ = writeln!(text, "{:indent$}{id} {body}", "", indent = depth);
}

/// One element's line after its id: role, name, value, place, shown states.
pub(crate) fn body(node: &Node, name: &str, place: Place) -> String {
    let mut text = node.role.to_string();
    if !name.is_empty() {
        let _ = write!(text, " {}", quote(name));
    }
    // A combo box's value that only repeats its name (GTK 3 names it by its choice) says
    // nothing; a field's value never goes (it may hold its own label's words).
    let repeats = |v: &str| node.role == Role::ComboBox && v.trim() == name.trim();
    if let Some(value) = node
        .value
        .as_deref()
        .filter(|v| !v.is_empty() && !repeats(v))
    {
        let _ = write!(text, " ={}", quote(value));
    }
    match (node.bounds, place) {
        (Some(b), Place::Bounds) => {
            let _ = write!(text, " {},{} {}x{}", b.x, b.y, b.width, b.height);
        }
        (Some(b), Place::Point) => {
            let c = b.center();
            let _ = write!(text, " @{},{}", c.x, c.y);
        }
        (None, _) | (_, Place::None) => {}
    }
    // Text is read-only by nature: the state says something only of what could be edited.
    let shown = |s: &State| !(node.role.is_text() && *s == State::ReadOnly);
    for state in SHOWN_STATES
        .iter()
        .filter(|s| node.states.contains(**s) && shown(s))
    {
        let _ = write!(text, " {}", state.as_str());
    }
    if let Some(g) = node.grid {
        let _ = write!(
            text,
            " rows {}-{} of {}, columns {}-{} of {} on screen (empty cells not listed)",
            g.first_row + 1,
            g.last_row + 1,
            g.rows,
            g.first_column + 1,
            g.last_column + 1,
            g.columns
        );
    }
    text
}

/// Quotes a name for the outline, shortened to 80 characters. Window text cannot forge a line
/// or leave its quotes: backslashes and quotes are escaped, and so is every line break (`\n`,
/// `\r`, U+0085, U+2028, U+2029).
pub(crate) fn quote(text: &str) -> String {
    let mut s: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        s.push('…');
    }
    let mut quoted = String::with_capacity(s.len() + 2);
    quoted.push('"');
    for c in s.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\u{85}' | '\u{2028}' | '\u{2029}' => {
                quoted.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}
