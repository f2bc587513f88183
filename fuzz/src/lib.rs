//! Generators the fuzz targets share: snapshots, JSON values and text built from the fuzzer's
//! bytes (`arbitrary::Unstructured`), always well-formed in shape (a tree in pre-order, as every
//! backend builds) and arbitrary in content (names, numbers, states, bounds).

use arbitrary::{Result, Unstructured};
use cu_core::model::element::{
    ActionKind, DesktopInstance, ElementIdentity, Node, Snapshot, State, StateSet,
};
use cu_core::model::geometry::Rect;
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};

/// Every role's wire name.
pub const ROLES: &[&str] = &[
    "window",
    "dialog",
    "alert",
    "button",
    "toggle_button",
    "check_box",
    "radio_button",
    "switch",
    "combo_box",
    "text_input",
    "password_input",
    "text_area",
    "spin_button",
    "slider",
    "scroll_bar",
    "progress_bar",
    "link",
    "menu_bar",
    "menu",
    "menu_item",
    "check_menu_item",
    "radio_menu_item",
    "list",
    "list_item",
    "tree",
    "tree_item",
    "table",
    "row",
    "cell",
    "column_header",
    "row_header",
    "tab_list",
    "tab",
    "tab_panel",
    "toolbar",
    "status_bar",
    "label",
    "heading",
    "paragraph",
    "image",
    "document",
    "form",
    "group",
    "scroll_pane",
    "separator",
    "tooltip",
    "canvas",
    "terminal",
    "application",
    "unknown",
];

/// Words that reach deep paths: blocked words, profile markers, mnemonics, confusables, case
/// folds of other lengths.
const WORDS: &[&str] = &[
    "Delete",
    "Send",
    "Submit",
    "Pay",
    "Remove",
    "Close",
    "OK",
    "Cancel",
    "_Delete",
    "&Save",
    "Next step:",
    "next step:",
    "Error",
    "failed",
    "İ",
    "K",
    "ß",
    "ﬃ",
    "\u{202e}",
    "\u{200b}",
    "Claude",
    "Visual Studio Code",
    " - ",
    "\n",
    "\t",
    "Löschen",
    "מחק",
    "é",
    "Ε",
    "…",
];

/// A piece of text: arbitrary, or words from [`WORDS`] joined.
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 2)? {
        let n = u.int_in_range(0..=4)?;
        let mut out = String::new();
        for _ in 0..n {
            out.push_str(u.choose(WORDS)?);
            if u.ratio(1, 2)? {
                out.push(' ');
            }
        }
        Ok(out)
    } else {
        u.arbitrary()
    }
}

/// A role.
pub fn role(u: &mut Unstructured<'_>) -> Result<Role> {
    let name = u.choose(ROLES)?;
    Ok(serde_json::from_value(serde_json::Value::from(*name)).unwrap_or(Role::Unknown))
}

/// A state set.
pub fn states(u: &mut Unstructured<'_>) -> Result<StateSet> {
    let mut set = StateSet::EMPTY;
    for state in State::ALL {
        if u.ratio(1, 6)? {
            set.insert(*state);
        }
    }
    Ok(set)
}

fn rect(u: &mut Unstructured<'_>) -> Result<Rect> {
    if u.ratio(1, 8)? {
        // Extremes: what a broken toolkit reports.
        return Ok(Rect::new(
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
        ));
    }
    Ok(Rect::new(
        u.int_in_range(-50..=2000)?,
        u.int_in_range(-50..=2000)?,
        u.int_in_range(-2..=800)?,
        u.int_in_range(-2..=600)?,
    ))
}

const ACTIONS: &[ActionKind] = &[
    ActionKind::Invoke,
    ActionKind::Toggle,
    ActionKind::SetText,
    ActionKind::SetValue,
    ActionKind::Focus,
    ActionKind::Select,
    ActionKind::Expand,
    ActionKind::ScrollIntoView,
];

fn node(u: &mut Unstructured<'_>, index: usize) -> Result<Node> {
    let mut node = Node::new(role(u)?, ElementIdentity(format!("n{index}")));
    node.name = text(u)?;
    if u.ratio(1, 3)? {
        node.value = Some(text(u)?);
    }
    if u.ratio(1, 6)? {
        node.description = Some(text(u)?);
    }
    if u.ratio(1, 8)? {
        node.toolkit_id = Some(text(u)?);
    }
    node.states = states(u)?;
    if u.ratio(4, 5)? {
        node.bounds = Some(rect(u)?);
    }
    for _ in 0..u.int_in_range(0..=2)? {
        node.actions.push(*u.choose(ACTIONS)?);
    }
    if u.ratio(1, 10)? {
        node.omitted_children = u.arbitrary()?;
    }
    Ok(node)
}

/// A snapshot of up to `max` nodes: a tree in pre-order with consistent parent and child links.
pub fn snapshot(u: &mut Unstructured<'_>, max: usize) -> Result<Snapshot> {
    let mut nodes = vec![node(u, 0)?];
    // Depth-first: each new node hangs under a node on the current path (pre-order holds).
    let mut path = vec![0usize];
    while nodes.len() < max && !u.is_empty() {
        let depth = u.int_in_range(1..=path.len())?;
        path.truncate(depth);
        let parent = path[depth - 1];
        let index = nodes.len();
        let mut child = node(u, index)?;
        child.parent = Some(parent as u32);
        nodes.push(child);
        nodes[parent].children.push(index as u32);
        path.push(index);
    }
    let window = WindowInfo {
        id: WindowId("x11:1".into()),
        app: text(u)?,
        title: text(u)?,
        pid: None,
        bounds: if u.ratio(3, 4)? { Some(rect(u)?) } else { None },
        focused: u.arbitrary()?,
        minimized: u.arbitrary()?,
        no_tree: false,
    };
    Ok(Snapshot {
        window,
        desktop: DesktopInstance("fuzz".into()),
        nodes,
        truncated: None,
        elapsed_ms: 0,
        read: Default::default(),
    })
}

/// Keys the tools' arguments use, so that generated objects reach past "unknown field".
const KEYS: &[&str] = &[
    "window_id",
    "state_id",
    "actions",
    "action",
    "id",
    "label",
    "text",
    "key",
    "keys",
    "x",
    "y",
    "to_x",
    "to_y",
    "value",
    "confirm_dangerous",
    "all",
    "max_elements",
    "bounds",
    "app",
    "question",
    "session",
    "subtree",
    "image",
    "button",
    "clear",
    "submit",
    "machine",
    "kind",
    "role",
    "delta",
    "direction",
    "amount",
    "include_image",
    "element",
    "double",
    "query",
];

/// A JSON value, nested at most `depth` deep; objects use the tools' own keys mostly.
pub fn json(u: &mut Unstructured<'_>, depth: u32) -> Result<serde_json::Value> {
    use serde_json::Value;
    let kind = u.int_in_range(0..=if depth == 0 { 4 } else { 6 })?;
    Ok(match kind {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => match u.int_in_range(0..=3)? {
            0 => Value::from(u.arbitrary::<i64>()?),
            1 => Value::from(u.arbitrary::<u64>()?),
            2 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
            _ => Value::from(u.int_in_range(-5i64..=2000)?),
        },
        3 | 4 => Value::String(text(u)?),
        5 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array((0..n).map(|_| json(u, depth - 1)).collect::<Result<_>>()?)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

/// A JSON object with the tools' keys mostly.
pub fn object(
    u: &mut Unstructured<'_>,
    depth: u32,
) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut map = serde_json::Map::new();
    for _ in 0..u.int_in_range(0..=5)? {
        let key = if u.ratio(7, 8)? {
            u.choose(KEYS)?.to_string()
        } else {
            u.arbitrary()?
        };
        map.insert(key, json(u, depth)?);
    }
    Ok(map)
}
