//! The element tree of one window, as a flat arena.
//!
//! A [`Snapshot`] holds the nodes of one window in pre-order: index 0 is the root, every node
//! lists its children by index. Each node carries an [`ElementIdentity`] that the backend can
//! resolve again later, in another process, and the snapshot carries the [`DesktopInstance`]
//! that issued it, so an identity is never applied to another desktop.

use serde::{Deserialize, Serialize};

use crate::model::geometry::Rect;
use crate::model::role::Role;
use crate::model::window::WindowInfo;

pub(crate) use crate::model::node::is_false;
pub use crate::model::node::{
    ActionKind, DesktopInstance, ElementIdentity, GridView, Node, State, StateSet,
};

/// Why a snapshot is partial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TruncationReason {
    /// The node limit was reached.
    NodeLimit,
    /// The time budget ran out.
    TimeBudget,
    /// The depth limit was reached.
    DepthLimit,
    /// Some elements did not answer (the app is busy or went away mid-walk).
    Unresponsive,
}

/// What a partial snapshot left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Truncation {
    /// The first limit that cut the walk.
    pub reason: TruncationReason,
    /// Elements known to exist but not read (a lower bound).
    pub omitted: u32,
}

impl TruncationReason {
    /// Whether another walk of the same, unchanged window could read more: the time ran out or
    /// an element did not answer (a busy app), unlike a node or depth limit.
    pub fn depends_on_timing(self) -> bool {
        matches!(
            self,
            TruncationReason::TimeBudget | TruncationReason::Unresponsive
        )
    }
}

/// How a backend should walk a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotOptions {
    /// Stop after this many nodes.
    pub max_nodes: u32,
    /// Stop after this much time, in milliseconds.
    pub time_budget_ms: u64,
    /// Do not descend below this depth (root = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// Walk only this element's subtree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtree: Option<ElementIdentity>,
    /// Read text contents and values (costs one call per text element).
    pub read_text: bool,
    /// Read the cells of a table too large to read whole (a spreadsheet's cells on screen:
    /// LibreOffice Calc, 1,000 and more). Off where only controls matter (the gate looking for
    /// a default button or an access key).
    #[serde(default = "yes")]
    pub read_cells: bool,
    /// May be answered from the backend's last walk of the window, where the backend can prove
    /// nothing changed since (Linux: no accessibility event from the window's application). Only
    /// observations handed to the agent ask for it; the gate, effect checks and waits read live.
    #[serde(default)]
    pub reuse: bool,
}

fn yes() -> bool {
    true
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            max_nodes: 5000,
            time_budget_ms: 3000,
            max_depth: None,
            subtree: None,
            read_text: true,
            read_cells: true,
            reuse: false,
        }
    }
}

/// One observation of one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The window as it was when observed.
    pub window: WindowInfo,
    /// The desktop instance that issued this snapshot.
    pub desktop: DesktopInstance,
    /// Nodes in pre-order; index 0 is the root.
    pub nodes: Vec<Node>,
    /// Set when the walk stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// How long the walk took, in milliseconds.
    pub elapsed_ms: u64,
    /// How the window's tree was read.
    #[serde(default)]
    pub read: Read,
}

/// How a snapshot's tree was read: walked, or answered from the backend's last walk of the
/// window (as it was, or with the elements its application's events named read again).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Read {
    /// Walked: every element read.
    #[default]
    Walked,
    /// The last walk, nothing changed since (no event from the application).
    Kept,
    /// The last walk with the elements the application's events named read again.
    Events,
}

impl Snapshot {
    /// Whether the window is a dialog: its root is a dialog or an alert.
    pub fn is_dialog(&self) -> bool {
        self.nodes
            .first()
            .is_some_and(|root| matches!(root.role, Role::Dialog | Role::Alert))
    }

    /// A snapshot of `window` on `desktop` from a walk's result (the nodes in pre-order, and
    /// why it stopped early if it did), timed from `started`. Elements the toolkit reports but
    /// does not draw are marked [`State::Offscreen`] here, a combo box without a value takes
    /// its chosen item's name, an item's bounds are cut to its list's, and text takes its children's text where it marks them (U+FFFC),
    /// for every backend alike.
    pub fn new(
        window: WindowInfo,
        desktop: DesktopInstance,
        (mut nodes, truncated): (Vec<Node>, Option<Truncation>),
        started: std::time::Instant,
    ) -> Snapshot {
        crate::model::runs::merge_text_runs(&mut nodes);
        crate::model::runs::merge_inline_runs(&mut nodes);
        crate::model::chosen::fill_combo_values(&mut nodes);
        crate::model::clipped::clip_items(&mut nodes);
        crate::model::drawn::mark_undrawn(&mut nodes, window.bounds);
        Snapshot {
            window,
            desktop,
            nodes,
            truncated,
            elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            read: Default::default(),
        }
    }

    /// The window with only its web page: the first document on screen (a browser's active
    /// tab) under the root, without the browser's chrome. Its elements are numbered from the
    /// page alone, so they keep their ids while the page stays the same. `None` when no
    /// document is on screen.
    pub fn page(&self) -> Option<Snapshot> {
        let doc = self.nodes.iter().enumerate().skip(1).position(|(_, n)| {
            n.role == crate::model::role::Role::Document && !n.states.contains(State::Offscreen)
        })? + 1;
        Some(self.within(doc))
    }

    /// The window with only the element at `index` and what it holds under its root, numbered
    /// from that element alone. The whole window for the root or an index it does not have.
    pub fn within(&self, index: usize) -> Snapshot {
        let Some(first) = self
            .nodes
            .first()
            .filter(|_| index > 0 && index < self.nodes.len())
        else {
            return self.clone();
        };
        let mut order = Vec::new();
        let mut stack = vec![index as u32];
        while let Some(i) = stack.pop() {
            order.push(i);
            if let Some(n) = self.nodes.get(i as usize) {
                stack.extend(n.children.iter().rev());
            }
        }
        let mut new_index = std::collections::HashMap::with_capacity(order.len());
        for (new, old) in order.iter().enumerate() {
            new_index.insert(*old, new as u32 + 1);
        }
        let mut root = first.clone();
        root.children = vec![1];
        root.omitted_children = 0;
        let mut nodes = vec![root];
        nodes.extend(order.iter().filter_map(|old| {
            let mut n = self.nodes.get(*old as usize)?.clone();
            n.parent = Some(
                n.parent
                    .and_then(|p| new_index.get(&p).copied())
                    .unwrap_or(0),
            );
            n.children = n
                .children
                .iter()
                .filter_map(|c| new_index.get(c).copied())
                .collect();
            Some(n)
        }));
        Snapshot {
            window: self.window.clone(),
            desktop: self.desktop.clone(),
            nodes,
            truncated: self.truncated.clone(),
            elapsed_ms: self.elapsed_ms,
            read: self.read,
        }
    }

    /// The root node, if the snapshot is not empty.
    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
    }

    /// Gives the root the window's own size at the origin, for backends whose root element
    /// reports a slightly different rectangle than the window frame they place points in.
    pub fn pin_root_to_window(&mut self) {
        if let (Some(root), Some(b)) = (self.nodes.first_mut(), self.window.bounds) {
            root.bounds = Some(Rect::new(0, 0, b.width, b.height));
        }
    }

    /// Iterates over nodes whose name, after trimming, equals `name`.
    pub fn find_by_name<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (usize, &'a Node)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.name.trim() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_walk_cut_by_time_or_a_busy_app_could_read_more_next_time() {
        assert!(TruncationReason::TimeBudget.depends_on_timing());
        assert!(TruncationReason::Unresponsive.depends_on_timing());
        assert!(!TruncationReason::NodeLimit.depends_on_timing());
        assert!(!TruncationReason::DepthLimit.depends_on_timing());
    }

    #[test]
    fn state_set_round_trips_as_names() {
        let set: StateSet = [State::Focused, State::Checked, State::Editable]
            .into_iter()
            .collect();
        let json = serde_json::to_string(&set).unwrap_or_default();
        assert_eq!(json, r#"["focused","checked","editable"]"#);
        let back: StateSet = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, set);
        assert!(serde_json::from_str::<StateSet>(r#"["nope"]"#).is_err());
    }

    #[test]
    fn snapshot_round_trips_through_json_and_leaves_out_empty_fields() {
        use crate::model::geometry::Rect;
        use crate::model::window::{WindowId, WindowInfo};
        let mut root = Node::new(Role::Window, ElementIdentity(":1.5|/root".into()));
        root.name = "Calculator".into();
        root.children = vec![1];
        let mut button = Node::new(Role::Button, ElementIdentity(":1.5|/b7".into()));
        button.name = "7".into();
        button.parent = Some(0);
        button.bounds = Some(Rect::new(16, 300, 55, 40));
        button.actions = vec![ActionKind::Invoke, ActionKind::Focus];
        button.states = StateSet::EMPTY.with(State::Focusable);
        let snapshot = Snapshot {
            window: WindowInfo {
                id: WindowId("x11:0x800004".into()),
                app: "gnome-calculator".into(),
                title: "Calculator".into(),
                pid: Some(42),
                bounds: Some(Rect::new(1377, 304, 365, 508)),
                focused: true,
                minimized: false,
                no_tree: false,
            },
            desktop: DesktopInstance("linux-1".into()),
            nodes: vec![root, button],
            truncated: Some(Truncation {
                reason: TruncationReason::NodeLimit,
                omitted: 3,
            }),
            elapsed_ms: 12,
            read: Default::default(),
        };
        let json = serde_json::to_value(&snapshot).unwrap_or_default();
        assert!(
            json["window"].get("minimized").is_none(),
            "false flags are left out"
        );
        assert!(
            json["nodes"][0].get("value").is_none(),
            "null fields are left out"
        );
        assert!(
            json["nodes"][1].get("children").is_none(),
            "empty lists are left out"
        );
        assert_eq!(json["truncated"]["reason"], "node_limit");
        let back: Snapshot = serde_json::from_value(json).unwrap();
        assert_eq!(back, snapshot);
    }

    /// Of ~50 default lines of a Chromium window, 27–30 were its chrome, and the page's ids moved
    /// whenever the chrome did: `page()` is the window with the showing document alone.
    #[test]
    fn the_page_is_the_showing_document_under_the_window_numbered_alone() {
        use crate::model::window::{WindowId, WindowInfo};
        let node = |role, name: &str, parent: Option<u32>, children: &[u32]| {
            let mut n = Node::new(role, ElementIdentity(name.into()));
            n.name = name.into();
            n.parent = parent;
            n.children = children.to_vec();
            n
        };
        let mut background = node(Role::Document, "old tab", Some(0), &[3]);
        background.states.insert(State::Offscreen);
        let mut hidden_button = node(Role::Button, "Try Again", Some(2), &[]);
        hidden_button.states.insert(State::Offscreen);
        let snapshot = Snapshot {
            window: WindowInfo {
                id: WindowId("x11:0x1".into()),
                app: "firefox".into(),
                title: "Todo".into(),
                pid: None,
                bounds: None,
                focused: false,
                minimized: false,
                no_tree: false,
            },
            desktop: DesktopInstance("linux-1".into()),
            nodes: vec![
                node(Role::Window, "Todo", None, &[1, 2, 4]),
                node(Role::Button, "Reload", Some(0), &[]),
                background,
                hidden_button,
                node(Role::Document, "Todo", Some(0), &[5, 6]),
                node(Role::Heading, "Todo", Some(4), &[]),
                node(Role::Button, "Add", Some(4), &[]),
            ],
            truncated: None,
            elapsed_ms: 1,
            read: Default::default(),
        };
        let page = snapshot.page().unwrap_or_else(|| panic!("a page"));
        let names: Vec<_> = page
            .nodes
            .iter()
            .map(|n| (n.role, n.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (Role::Window, "Todo"),
                (Role::Document, "Todo"),
                (Role::Heading, "Todo"),
                (Role::Button, "Add")
            ]
        );
        assert_eq!(page.nodes[0].children, vec![1]);
        assert_eq!(page.nodes[1].children, vec![2, 3]);
        assert_eq!(page.nodes[3].parent, Some(1));
        let mut no_page = snapshot.clone();
        no_page.nodes.truncate(2);
        no_page.nodes[0].children = vec![1];
        assert!(no_page.page().is_none());
    }

    #[test]
    fn the_root_can_be_pinned_to_the_window_size() {
        use crate::model::geometry::Rect;
        use crate::model::window::{WindowId, WindowInfo};
        let mut root = Node::new(Role::Window, ElementIdentity("uia:1".into()));
        root.bounds = Some(Rect::new(-7, 0, 814, 607));
        let mut snapshot = Snapshot {
            window: WindowInfo {
                id: WindowId("hwnd:0x1".into()),
                app: "notepad".into(),
                title: "Untitled".into(),
                pid: None,
                bounds: Some(Rect::new(300, 200, 800, 600)),
                focused: false,
                minimized: false,
                no_tree: false,
            },
            desktop: DesktopInstance("windows-x-1".into()),
            nodes: vec![root],
            truncated: None,
            elapsed_ms: 1,
            read: Default::default(),
        };
        snapshot.pin_root_to_window();
        assert_eq!(snapshot.nodes[0].bounds, Some(Rect::new(0, 0, 800, 600)));
    }

    #[test]
    fn every_state_has_a_distinct_bit_and_name() {
        let mut seen = StateSet::EMPTY;
        for s in State::ALL {
            assert!(!seen.contains(*s), "{s:?} shares a bit");
            seen.insert(*s);
            assert_eq!(State::parse(s.as_str()), Some(*s));
        }
    }
}
