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
//!   `sys/atspi/counts.rs` is the same), and the counts are current (the caller's barrier);
//! - the window's place and size had not changed for [`SETTLE`] when the walk began: a toolkit
//!   lays out again after a resize without any event, a moment after the window system has the
//!   new size, so a walk made in that moment is used once and not kept;
//! - every element inside a document is where the walk saw it ([`Held::places`], read again
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
    let mut places = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let parent_inside = node
            .parent
            .and_then(|p| inside.get(p as usize).copied())
            .unwrap_or(false);
        inside[i] = parent_inside || node.role == Role::Document;
        if inside[i] && !node.states.contains(State::Offscreen) {
            places.push((node.identity.clone(), node.bounds));
        }
    }
    places
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

    /// The kept walk if it still holds: asked with `options`, the window described as `window`
    /// now, its application's event count `count` now; the places of its documents' elements
    /// are for the caller to confirm.
    pub fn get(&self, window: &WindowInfo, options: &SnapshotOptions, count: u64) -> Option<Held> {
        let kept = self.kept.as_ref()?;
        let same_options = SnapshotOptions {
            reuse: options.reuse,
            ..kept.options.clone()
        } == *options;
        (options.reuse && kept.count == count && same_options && &kept.window == window).then(
            || Held {
                places: document_places(&kept.walk.0),
                walk: kept.walk.clone(),
            },
        )
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
}
