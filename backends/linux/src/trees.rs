//! A window's tree kept between observations ([`KeptWalk`], one per window in the backend's
//! window map): its last walk, answered again while nothing says the window changed.
//!
//! A kept walk is given again only when all of these hold, so what it answers is what a walk
//! would read now:
//!
//! - the caller allows it (`SnapshotOptions::reuse`: the agent's observations; the gate, effect
//!   checks and waits always walk, and their walks of the whole window are kept for the next
//!   observation; a read of one element is never kept);
//! - the same options otherwise (same elements asked for);
//! - the same window as the window system describes it now (position, size, title, minimized):
//!   a resize moves elements without any event;
//! - the application sent no accessibility event since the walk *began* (its count in
//!   `sys/atspi/counts.rs` is the same), and the counts are current (the caller's barrier); or
//!   every event it sent since changed one element's own name, value, text or state
//!   ([`read_again`]), which the caller reads again, confirming every other drawn element in
//!   place ([`KeptWalk::behind`]);
//! - the window's place and size had not changed for [`SETTLE`] when the walk began: a toolkit
//!   lays out again after a resize without any event, a moment after the window system has the
//!   new size, so a walk made in that moment is used once and not kept;
//! - every drawn element inside a document is where the walk saw it ([`Held::places`], read again
//!   by the caller): a web page scrolls (its own view or an inner region) with no event but
//!   `object:bounds-changed` (Chromium sends hundreds per wheel turn), which is not registered,
//!   since every atk-bridge app would then send one for every widget it lays out. A scroll
//!   moves what it scrolls, so asking each element's place (one call each, pipelined) tells,
//!   at a fraction of a walk's cost.
//!
//! Pure: the caller reads the counts, the window and the places; the window map drops a
//! window's [`KeptWalk`] with everything else it keeps of the window.

use std::time::{Duration, Instant};

use cu_core::model::element::{ElementIdentity, Node, SnapshotOptions, State, Truncation};
use cu_core::model::geometry::Rect;
use cu_core::model::role::Role;
use cu_core::model::window::WindowInfo;

/// One window's last walk and what it depended on.
#[derive(Debug, Clone)]
pub struct Kept {
    /// What was asked of the walk.
    pub options: SnapshotOptions,
    /// The window when the walk began.
    pub window: WindowInfo,
    /// The application's event count when the walk began.
    pub count: u64,
    /// The walk.
    pub walk: Walk,
}

/// A walk's nodes in pre-order and what it left out.
pub type Walk = (Vec<Node>, Option<Truncation>);

/// One event as the change log keeps it (`sys/atspi/counts.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// The interface's last part ("Object", "Window", "Focus").
    pub kind: String,
    /// The signal ("StateChanged", "PropertyChange", "ChildrenChanged"…).
    pub member: String,
    /// Its first argument ("focused", "accessible-name", "add"…).
    pub detail: String,
    /// The element's object path.
    pub path: String,
}

/// Most elements read again instead of walking the window.
pub const MAX_READ_AGAIN: usize = 64;

/// States whose change touches the element alone: not what is drawn (showing, visible), not
/// whether it holds more (expanded, collapsed), not its life (defunct).
const OWN_STATES: &[&str] = &[
    "focused",
    "checked",
    "pressed",
    "armed",
    "selected",
    "indeterminate",
    "enabled",
    "sensitive",
    "active",
    "editable",
    "read-only",
    "busy",
    "invalid-entry",
    "required",
    "focusable",
    "selectable",
    // GTK 4 says an entry's orientation again when it takes focus.
    "horizontal",
    "vertical",
];

/// States a container passes down to what it holds without an event from each (GTK 3 makes a
/// box's children insensitive with it): their own only for an element that holds nothing.
const INHERITED_STATES: &[&str] = &["enabled", "sensitive"];

/// How far up a changed label's ancestors are read again, to the control it names.
const NAMED_BY_LABEL: usize = 3;

/// The elements of a kept walk (`nodes`, of the application at `bus`) to read again so that it
/// says what a walk would, given the events the application sent since it (`events`, oldest
/// first): each event's element, when every event changed one element's own name, description,
/// value, text or state (the own states listed in this module) and that element is in the
/// walk; for a name or text change of an element that is no control, also its ancestors up to
/// the control it may name (a GTK button takes its child label's name). `None` means walk the
/// window: an element came or went, something was drawn or hidden, a window opened, an event
/// named an element the walk does not hold, a container's sensitivity changed, or more than
/// [`MAX_READ_AGAIN`] elements changed. Where everything else now is, the caller confirms (a
/// longer label moves its neighbours without an event).
pub fn read_again(nodes: &[Node], bus: &str, events: &[Logged]) -> Option<Vec<usize>> {
    let own = |e: &Logged| match (e.kind.as_str(), e.member.as_str()) {
        ("Object", "PropertyChange") => matches!(
            e.detail.as_str(),
            "accessible-name" | "accessible-description" | "accessible-value"
        ),
        // The outline shows a field's text, not what of it is selected (GTK 4 sends both on
        // a focus move into an entry).
        ("Object", "TextChanged" | "TextSelectionChanged") => true,
        ("Object", "StateChanged") => OWN_STATES.contains(&e.detail.as_str()),
        ("Window", "Activate" | "Deactivate") | ("Focus", _) => true,
        _ => false,
    };
    let mut found: Vec<usize> = Vec::new();
    for event in events {
        if !own(event) {
            return None;
        }
        let identity = format!("{bus}|{}", event.path);
        let index = nodes.iter().position(|n| n.identity.0 == identity)?;
        let node = nodes.get(index)?;
        if INHERITED_STATES.contains(&event.detail.as_str()) && !node.children.is_empty() {
            return None;
        }
        let names = matches!(
            (event.member.as_str(), event.detail.as_str()),
            ("PropertyChange", "accessible-name") | ("TextChanged", _)
        );
        let mut changed = vec![index];
        if names && !node.role.is_interactive() {
            // The control it may name, and what lies between.
            let mut at = node.parent;
            for _ in 0..NAMED_BY_LABEL {
                let Some(up) = at.and_then(|p| nodes.get(p as usize).map(|n| (p, n))) else {
                    break;
                };
                changed.push(up.0 as usize);
                if up.1.role.is_interactive() {
                    break;
                }
                at = up.1.parent;
            }
        }
        for index in changed {
            if !found.contains(&index) {
                found.push(index);
            }
        }
        if found.len() > MAX_READ_AGAIN {
            return None;
        }
    }
    Some(found)
}

/// A kept walk that holds so far, and what the caller must still confirm.
#[derive(Debug, Clone)]
pub struct Held {
    /// The walk.
    pub walk: Walk,
    /// Each element inside a document (the document included) with the place the walk gave it:
    /// the walk holds only if every one is still there.
    pub places: Vec<(ElementIdentity, Option<Rect>)>,
}

/// The elements of `nodes` (pre-order, parents before children) inside a document, with their
/// places, except those the toolkit says are not drawn (marked offscreen by the walk, their
/// places not read): one that comes to be drawn says so with an event.
fn document_places(nodes: &[Node]) -> Vec<(ElementIdentity, Option<Rect>)> {
    let mut inside = vec![false; nodes.len()];
    let mut drawn = Vec::new();
    let mut undrawn = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let parent_inside = node
            .parent
            .and_then(|p| inside.get(p as usize).copied())
            .unwrap_or(false);
        inside[i] = parent_inside || node.role == Role::Document;
        if inside[i] {
            let place = (node.identity.clone(), node.bounds);
            if node.states.contains(State::Offscreen) {
                undrawn.push(place);
            } else {
                drawn.push(place);
            }
        }
    }
    // A document with nothing drawn (a covered browser window) confirms nothing by its drawn
    // elements: its undrawn ones are asked, whose places were not read, so it is walked again.
    if drawn.is_empty() {
        undrawn
    } else {
        drawn
    }
}

/// Whether `kept` was asked for the same elements as `options` asks: the same options but for
/// the time budget (a walk cut short by time is never kept) and whether it may be reused (the
/// gate's and the effect checks' live walks serve the next observation).
fn same_ask(kept: &Kept, options: &SnapshotOptions) -> bool {
    SnapshotOptions {
        reuse: options.reuse,
        time_budget_ms: options.time_budget_ms,
        ..kept.options.clone()
    } == *options
}

/// Where a window was last described, and when that place was first seen after another
/// (`None`: as first described, no change seen).
#[derive(Debug, Clone, Copy)]
struct Placed {
    bounds: Option<Rect>,
    changed: Option<Instant>,
}

/// How long a window's place and size must stay the same before a walk of it is kept.
pub const SETTLE: Duration = Duration::from_millis(500);

/// What is kept of one window's walks: the last one, and where the window was described.
#[derive(Debug, Default)]
pub struct KeptWalk {
    kept: Option<Kept>,
    /// The window's place and size as last described, and since when.
    placed: Option<Placed>,
}

impl KeptWalk {
    /// Notes where the window system says the window is at `now`: a place or size that differs
    /// from the one described before is timed from `now`.
    pub fn described(&mut self, window: &WindowInfo, now: Instant) {
        let changed = match self.placed {
            Some(p) if p.bounds == window.bounds => return,
            Some(_) => Some(now),
            None => None,
        };
        self.placed = Some(Placed {
            bounds: window.bounds,
            changed,
        });
    }

    /// Keeps `kept` as the window's last walk (replacing the one before), unless the window
    /// moved or was resized less than [`SETTLE`] before the walk `began`: then nothing is kept.
    pub fn keep(&mut self, kept: Kept, began: Instant) {
        let settled = self.placed.is_none_or(|p| {
            p.bounds == kept.window.bounds
                && p.changed
                    .is_none_or(|at| began.saturating_duration_since(at) >= SETTLE)
        });
        self.kept = settled.then_some(kept);
    }

    /// Whether a walk is kept (it may no longer hold).
    pub fn holds(&self) -> bool {
        self.kept.is_some()
    }

    /// The kept walk and its application's event count when it began, if only that count
    /// differs from `count` (asked with `options`, the window described as `window` now): the
    /// events between may say what to read again ([`read_again`]).
    pub fn behind(
        &self,
        window: &WindowInfo,
        options: &SnapshotOptions,
        count: u64,
    ) -> Option<(u64, Walk)> {
        let kept = self.kept.as_ref()?;
        (options.reuse && kept.count < count && same_ask(kept, options) && &kept.window == window)
            .then(|| (kept.count, kept.walk.clone()))
    }

    /// The kept walk if it still holds: asked with `options`, the window described as `window`
    /// now, its application's event count `count` now; the places of its documents' elements
    /// are for the caller to confirm.
    pub fn get(&self, window: &WindowInfo, options: &SnapshotOptions, count: u64) -> Option<Held> {
        let kept = self.kept.as_ref()?;
        (options.reuse && kept.count == count && same_ask(kept, options) && &kept.window == window)
            .then(|| Held {
                places: document_places(&kept.walk.0),
                walk: kept.walk.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::window::WindowId;

    fn window(x: i32, title: &str) -> WindowInfo {
        WindowInfo {
            id: WindowId("x11:0x1".into()),
            app: "qt6-fixture".into(),
            title: title.into(),
            pid: Some(7),
            bounds: Some(Rect::new(x, 10, 300, 200)),
            focused: false,
            minimized: false,
            no_tree: false,
        }
    }

    fn kept(count: u64) -> Kept {
        Kept {
            // Kept from a walk that had to be live (the gate's): it serves later observations.
            options: SnapshotOptions::default(),
            window: window(0, "Fixture"),
            count,
            walk: (
                vec![Node::new(Role::Window, ElementIdentity(":1.5|/a".into()))],
                None,
            ),
        }
    }

    #[test]
    fn a_kept_walk_holds_only_while_nothing_changed() {
        let mut trees = KeptWalk::default();
        let options = SnapshotOptions {
            reuse: true,
            ..SnapshotOptions::default()
        };
        let now = Instant::now();
        trees.keep(kept(3), now);
        let same = trees.get(&window(0, "Fixture"), &options, 3);
        assert_eq!(same.map(|held| held.walk.0.len()), Some(1));
        // An event from the application since the walk began.
        assert!(trees.get(&window(0, "Fixture"), &options, 4).is_none());
        // The window moved or was renamed (a resize moves elements without an event).
        assert!(trees.get(&window(5, "Fixture"), &options, 3).is_none());
        assert!(trees.get(&window(0, "Other"), &options, 3).is_none());
        // Other elements asked for.
        let cells_left_out = SnapshotOptions {
            read_cells: false,
            ..SnapshotOptions::default()
        };
        assert!(trees
            .get(&window(0, "Fixture"), &cells_left_out, 3)
            .is_none());
    }

    #[test]
    fn a_walk_soon_after_a_resize_is_not_kept() {
        let mut trees = KeptWalk::default();
        let options = SnapshotOptions {
            reuse: true,
            ..SnapshotOptions::default()
        };
        let start = Instant::now();
        // As first described, the window counts as settled.
        trees.described(&window(0, "Fixture"), start);
        trees.described(&window(0, "Fixture"), start + SETTLE);
        trees.keep(kept(3), start);
        assert!(trees.get(&window(0, "Fixture"), &options, 3).is_some());
        // Moved: a walk right after is used once, not kept, and the one before is dropped.
        let moved = start + SETTLE * 2;
        trees.described(&window(5, "Fixture"), moved);
        let mut soon = kept(3);
        soon.window = window(5, "Fixture");
        trees.keep(soon.clone(), moved + SETTLE / 2);
        assert!(trees.get(&window(5, "Fixture"), &options, 3).is_none());
        assert!(trees.get(&window(0, "Fixture"), &options, 3).is_none());
        // Settled: kept again.
        trees.keep(soon, moved + SETTLE);
        assert!(trees.get(&window(5, "Fixture"), &options, 3).is_some());
    }

    #[test]
    fn a_documents_elements_are_given_to_confirm_and_nothing_else() {
        let mut trees = KeptWalk::default();
        let options = SnapshotOptions {
            reuse: true,
            ..SnapshotOptions::default()
        };
        let mut page = kept(3);
        let node = |role, id: &str, parent: u32, bounds: Option<Rect>| {
            let mut n = Node::new(role, ElementIdentity(id.into()));
            n.parent = Some(parent);
            n.bounds = bounds;
            n
        };
        // window > [toolbar > button], [document > [link, offscreen paragraph]]
        page.walk.0.extend([
            node(
                Role::Toolbar,
                ":1.5|/bar",
                0,
                Some(Rect::new(0, 0, 300, 20)),
            ),
            node(Role::Button, ":1.5|/back", 1, Some(Rect::new(0, 0, 20, 20))),
            node(
                Role::Document,
                ":1.5|/doc",
                0,
                Some(Rect::new(0, 20, 300, 180)),
            ),
            node(Role::Link, ":1.5|/a", 3, Some(Rect::new(5, 40, 50, 10))),
            node(Role::Paragraph, ":1.5|/p", 3, None),
            {
                // Not drawn (a background tab's element): its place was not read.
                let mut hidden = node(Role::Button, ":1.5|/hidden", 3, None);
                hidden.states.insert(State::Offscreen);
                hidden
            },
        ]);
        trees.keep(page, Instant::now());
        let held = trees
            .get(&window(0, "Fixture"), &options, 3)
            .map(|h| h.places);
        assert_eq!(
            held,
            Some(vec![
                (
                    ElementIdentity(":1.5|/doc".into()),
                    Some(Rect::new(0, 20, 300, 180))
                ),
                (
                    ElementIdentity(":1.5|/a".into()),
                    Some(Rect::new(5, 40, 50, 10))
                ),
                (ElementIdentity(":1.5|/p".into()), None),
            ])
        );
        // A window without a document has nothing to confirm.
        trees.keep(kept(4), Instant::now());
        let plain = trees.get(&window(0, "Fixture"), &options, 4);
        assert_eq!(plain.map(|h| h.places.len()), Some(0));
    }

    fn logged(member: &str, detail: &str, path: &str) -> Logged {
        Logged {
            kind: "Object".into(),
            member: member.into(),
            detail: detail.into(),
            path: path.into(),
        }
    }

    #[test]
    fn events_that_change_one_element_each_name_what_to_read_again() {
        let node = |path: &str| Node::new(Role::Button, ElementIdentity(format!(":1.5|{path}")));
        let nodes = vec![node("/frame"), node("/entry"), node("/ok")];
        let typed = [
            logged("TextChanged", "insert", "/entry"),
            logged("PropertyChange", "accessible-value", "/entry"),
            logged("StateChanged", "focused", "/ok"),
            logged("TextChanged", "insert", "/entry"),
            logged("TextSelectionChanged", "", "/entry"),
        ];
        assert_eq!(read_again(&nodes, ":1.5", &typed), Some(vec![1, 2]));
        assert_eq!(read_again(&nodes, ":1.5", &[]), Some(vec![]));
        // Something came or went, was drawn or hidden, or is not in the walk: walk again.
        for walk in [
            logged("ChildrenChanged", "add", "/frame"),
            logged("StateChanged", "showing", "/ok"),
            logged("StateChanged", "expanded", "/ok"),
            logged("StateChanged", "focused", "/popup-item"),
            logged("BoundsChanged", "", "/ok"),
        ] {
            assert_eq!(
                read_again(&nodes, ":1.5", std::slice::from_ref(&walk)),
                None,
                "{walk:?}"
            );
        }
        // Another application's element of the same path is not this one.
        assert_eq!(read_again(&nodes, ":1.6", &typed[..1]), None);
        // A label's new name or text: the button it names is read again too.
        let mut labelled = vec![node("/frame"), node("/button"), node("/label")];
        labelled[1].parent = Some(0);
        labelled[1].children = vec![2];
        labelled[2].role = Role::Label;
        labelled[2].parent = Some(1);
        assert_eq!(
            read_again(
                &labelled,
                ":1.5",
                &[logged("PropertyChange", "accessible-name", "/label")]
            ),
            Some(vec![2, 1])
        );
        // A container made insensitive takes its children with it, without their events.
        assert_eq!(
            read_again(
                &labelled,
                ":1.5",
                &[logged("StateChanged", "sensitive", "/button")]
            ),
            None
        );
        assert_eq!(
            read_again(
                &labelled,
                ":1.5",
                &[logged("StateChanged", "sensitive", "/label")]
            ),
            Some(vec![2])
        );
        // Too many elements changed: walking is cheaper.
        let many: Vec<Node> = (0..=MAX_READ_AGAIN + 1)
            .map(|i| node(&format!("/{i}")))
            .collect();
        let events: Vec<Logged> = (0..=MAX_READ_AGAIN + 1)
            .map(|i| logged("StateChanged", "checked", &format!("/{i}")))
            .collect();
        assert_eq!(read_again(&many, ":1.5", &events), None);
    }

    #[test]
    fn a_kept_walk_behind_by_events_is_given_with_its_count_and_not_for_another_ask() {
        let mut trees = KeptWalk::default();
        let options = SnapshotOptions {
            reuse: true,
            ..SnapshotOptions::default()
        };
        // Kept from the effect check's live walk, with its own time budget.
        let mut live = kept(3);
        live.options.time_budget_ms = 1500;
        trees.keep(live, Instant::now());
        assert!(trees.get(&window(0, "Fixture"), &options, 3).is_some());
        assert_eq!(
            trees
                .behind(&window(0, "Fixture"), &options, 5)
                .map(|(count, _)| count),
            Some(3)
        );
        assert!(trees.behind(&window(0, "Fixture"), &options, 3).is_none());
        assert!(trees.behind(&window(5, "Fixture"), &options, 5).is_none());
        let deeper = SnapshotOptions {
            max_depth: Some(4),
            ..options.clone()
        };
        assert!(trees.behind(&window(0, "Fixture"), &deeper, 5).is_none());
    }
}
