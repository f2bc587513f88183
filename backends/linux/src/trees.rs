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
//! - the same window as the window system describes it now (position, size, minimized): a
//!   resize moves elements without any event (a new title or focus reads the window's own
//!   element again);
//! - the application sent no accessibility event since the walk *began* (its count in
//!   `sys/atspi/counts.rs` is the same), and the counts are current (the caller's barrier); or
//!   the events it sent since say what changed ([`read_again`]): the elements they name are
//!   read again, the subtrees where elements came or went walked again and spliced in
//!   ([`splice`]), an element the walk does not hold followed up its parents to one it holds
//!   ([`Parent`]), and every other element placed read where it is now ([`KeptWalk::behind`],
//!   [`moved_to`]);
//! - the window's place and size had not changed for [`SETTLE`] when the walk began: a toolkit
//!   lays out again after a resize without any event, a moment after the window system has the
//!   new size, so a walk made in that moment is used once and not kept;
//! - every element inside a document is read where it is now ([`Held::places`]): a web page
//!   scrolls (its own view or an inner region) with no event but `object:bounds-changed`
//!   (Chromium sends hundreds per wheel turn), which is not registered, since every atk-bridge
//!   app would then send one for every widget it lays out. A scroll moves what it scrolls, so
//!   asking each element's place (one call each, pipelined) tells, at a fraction of a walk's
//!   cost, and what moved is moved ([`moved_to`]).
//!
//! Pure: the caller reads the counts, the window and the places; the window map drops a
//! window's [`KeptWalk`] with everything else it keeps of the window.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cu_core::model::element::{Node, SnapshotOptions, State, Truncation};
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

/// What to read again of a kept walk so that it says what a walk would now ([`read_again`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Again {
    /// Elements (indices into the walk) whose own name, value, text or state changed: each is
    /// read again alone.
    pub elements: Vec<usize>,
    /// Elements whose children came or went, or which were drawn or hidden, opened or closed:
    /// each is walked again with everything it holds, in pre-order; none holds another, and
    /// none of `elements` lies inside one.
    pub subtrees: Vec<usize>,
    /// Object paths of elements the walk does not hold, with no ancestor it holds within
    /// [`MAX_HOLDER_DEPTH`]: each must be found in one of the subtrees walked again (it came
    /// with them), else the window is walked.
    pub unknown: Vec<String>,
    /// Object paths of elements (the walk does not hold them) whose parent the caller is to
    /// ask before calling [`read_again`] again with the answers.
    pub ask: Vec<String>,
}

/// Where an element the walk did not hold is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parent {
    /// It no longer answers: it ended.
    Gone,
    /// Its parent's object path (the same application).
    At(String),
    /// It hangs nowhere (no parent) yet: Firefox makes an element before it hangs it while a
    /// page loads.
    Detached,
    /// Its parent is outside the application (it is the application's root), or it could not
    /// be told in time: an element in another of the application's windows, or a popup drawn
    /// over this one, which a walk grafts.
    Top,
}

/// What an event changed of the element it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Touches {
    /// Its own name, description, value, text or state.
    Itself,
    /// What it holds (children came or went) or whether it is drawn or open.
    Below,
    /// It ended or moved: what its parent holds changed.
    Parent,
}

/// What an event changed, or `None` when it can be anything (a window opened, a role changed):
/// then the window is walked.
fn touches(e: &Logged) -> Option<Touches> {
    let own = match (e.kind.as_str(), e.member.as_str()) {
        ("Object", "PropertyChange") => matches!(
            e.detail.as_str(),
            "accessible-name" | "accessible-description" | "accessible-value"
        ),
        // The outline shows a field's text, not what of it is selected (GTK 4 sends both on
        // a focus move into an entry).
        ("Object", "TextChanged" | "TextSelectionChanged" | "TextCaretMoved") => true,
        ("Object", "StateChanged") => OWN_STATES.contains(&e.detail.as_str()),
        ("Window", "Activate" | "Deactivate") | ("Focus", _) => true,
        _ => false,
    };
    if own {
        return Some(Touches::Itself);
    }
    match (e.kind.as_str(), e.member.as_str(), e.detail.as_str()) {
        ("Object", "ChildrenChanged", _) => Some(Touches::Below),
        ("Object", "StateChanged", detail) if DRAWN_STATES.contains(&detail) => {
            Some(Touches::Below)
        }
        // It ended, or it was hung elsewhere (a new element is hung before its parent says it
        // came): what its parent holds changed.
        ("Object", "StateChanged", "defunct")
        | ("Object", "PropertyChange", "accessible-parent") => Some(Touches::Parent),
        _ => None,
    }
}

/// States whose change draws or hides an element and what it holds, or opens or closes it.
const DRAWN_STATES: &[&str] = &["showing", "visible", "expanded", "collapsed"];

/// Most elements walked again inside subtrees, as a share of the walk (`1/n`): past it, walking
/// the whole window costs about as much and reads its popups too.
const SUBTREE_SHARE: usize = 2;

/// What to read again of a kept walk (`nodes`, of the application at `bus`) so that it says
/// what a walk would, given the events the application sent since it (`events`, oldest first):
///
/// - an element whose own name, description, value, text or state changed (the own states
///   listed in this module) is read again alone; for a name or text change of an element that
///   is no control, also its ancestors up to the control it may name (a GTK button takes its
///   child label's name);
/// - an element whose children came or went, or that was drawn, hidden, opened or closed, is
///   walked again with what it holds (an element that ended: its parent);
/// - an element the walk does not hold is followed up its parents (`parents`: the caller's
///   answers; those still to ask are listed in [`Again::ask`]): one that ended is passed over;
///   its nearest ancestor the walk holds is walked again (a new paragraph's document, the list
///   a row came into); one not hung yet, one that reaches the application's root without such
///   an ancestor (a popup over the window) or one followed deeper than [`MAX_HOLDER_DEPTH`]
///   must come with a subtree walked again, else the window is walked;
/// - an element hung elsewhere walks its old parent and its new one again.
///
/// A container whose sensitivity changed is walked again too (GTK 3 passes it to its children
/// without their events).
///
/// `None` means walk the window: a window opened, an event changed anything else, the window
/// itself is to be walked again, more than [`MAX_READ_AGAIN`] elements changed or are to be
/// followed, the subtrees hold more than half the window, or a subtree hangs below what is not
/// drawn. Where everything else now
/// is, the caller confirms (a longer label moves its neighbours without an event).
pub fn read_again(
    nodes: &[Node],
    bus: &str,
    events: &[Logged],
    parents: &HashMap<String, Parent>,
) -> Option<Again> {
    let mut again = Again::default();
    let at: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let (b, path) = n.identity.0.split_once('|')?;
            (b == bus).then_some((path, i))
        })
        .collect();
    for event in events {
        let touched = touches(event)?;
        let Some(&index) = at.get(event.path.as_str()) else {
            // An element the walk does not hold: gone already (passed over), new (LibreOffice
            // hangs a new paragraph without saying its parent's children changed), or below
            // what the walk does not read: its nearest ancestor the walk holds is walked again.
            match holder(&event.path, parents, &at) {
                Holder::Gone => {}
                Holder::Held(index) => again.subtrees.push(index),
                Holder::Ask(path) => {
                    if !again.ask.contains(&path) {
                        again.ask.push(path);
                    }
                }
                Holder::Unknown => {
                    if !again.unknown.contains(&event.path) {
                        again.unknown.push(event.path.clone());
                    }
                }
            }
            continue;
        };
        let node = nodes.get(index)?;
        match touched {
            Touches::Itself => {
                if INHERITED_STATES.contains(&event.detail.as_str()) && !node.children.is_empty() {
                    // What it holds changed with it, without events of its own.
                    again.subtrees.push(index);
                    continue;
                }
                let names = matches!(
                    (event.member.as_str(), event.detail.as_str()),
                    ("PropertyChange", "accessible-name") | ("TextChanged", _)
                );
                again.elements.push(index);
                if names && !node.role.is_interactive() {
                    again.elements.extend(named_by(nodes, index));
                }
            }
            Touches::Below => {
                again.subtrees.push(index);
                if !node.role.is_interactive() {
                    again.elements.extend(named_by(nodes, index));
                }
            }
            Touches::Parent => {
                again.subtrees.push(node.parent? as usize);
                // Hung elsewhere: where it hangs now holds it too (LibreOffice says nothing
                // more).
                if event.member == "PropertyChange" {
                    match holder(&event.path, parents, &at) {
                        Holder::Gone => {}
                        Holder::Held(index) => again.subtrees.push(index),
                        Holder::Ask(path) => {
                            if !again.ask.contains(&path) {
                                again.ask.push(path);
                            }
                        }
                        Holder::Unknown => return None,
                    }
                }
            }
        }
    }
    // The window itself, or a subtree under what is not drawn (whether the walk would ask its
    // places depends on the ancestor's role): walk the window.
    let under_undrawn = |i: usize| {
        nodes
            .get(i)
            .and_then(|n| n.parent)
            .and_then(|p| nodes.get(p as usize))
            .is_none_or(|p| p.states.contains(State::Offscreen))
    };
    if again.subtrees.iter().any(|&i| under_undrawn(i)) {
        return None;
    }
    // Outermost subtrees only; what they hold is read with them.
    let ends: Vec<(usize, usize)> = again
        .subtrees
        .iter()
        .map(|&i| (i, cu_core::model::walk::subtree_end(nodes, i)))
        .collect();
    let mut subtrees: Vec<usize> = ends
        .iter()
        .filter(|&&(at, _)| !ends.iter().any(|&(o, end)| o < at && at < end))
        .map(|&(at, _)| at)
        .collect();
    subtrees.sort_unstable();
    subtrees.dedup();
    let walked = |i: usize| {
        ends.iter()
            .any(|&(at, end)| subtrees.contains(&at) && (at..end).contains(&i))
    };
    let mut elements: Vec<usize> = Vec::new();
    for &i in &again.elements {
        if !walked(i) && !elements.contains(&i) {
            elements.push(i);
        }
    }
    let walked_again: usize = subtrees
        .iter()
        .map(|&at| cu_core::model::walk::subtree_end(nodes, at) - at)
        .sum();
    let too_many = elements.len() > MAX_READ_AGAIN
        || again.ask.len() > MAX_READ_AGAIN
        || walked_again * SUBTREE_SHARE > nodes.len();
    // What the walk does not hold can only have come with a subtree walked again, once the
    // parents asked for are known.
    if too_many || (again.ask.is_empty() && subtrees.is_empty() && !again.unknown.is_empty()) {
        return None;
    }
    Some(Again {
        elements,
        subtrees,
        unknown: again.unknown,
        ask: again.ask,
    })
}

/// `walk` with the subtree rooted at `at` replaced by `again`, that subtree walked again;
/// `None` when either left anything out (what a walk leaves out depends on the whole window:
/// its node limit is shared, a popup's are not counted) or the window holds, or would hold,
/// `max_nodes` (a walk decides what to leave out).
pub fn splice((nodes, truncation): Walk, at: usize, again: Walk, max_nodes: usize) -> Option<Walk> {
    let (subtree, cut) = again;
    if cut.is_some() || at >= nodes.len() || nodes.len() >= max_nodes {
        return None;
    }
    let end = cu_core::model::walk::subtree_end(&nodes, at);
    if nodes[at..end].iter().any(|n| n.omitted_children > 0) {
        return None;
    }
    let nodes = cu_core::model::walk::splice(nodes, at, subtree);
    (nodes.len() < max_nodes).then_some((nodes, truncation))
}

/// How far up an element the walk does not hold is followed to one it holds.
pub const MAX_HOLDER_DEPTH: usize = 8;

/// Where an element the walk does not hold hangs, as far as the parents asked so far say.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Holder {
    /// It, or an ancestor, no longer answers: it ended.
    Gone,
    /// Its nearest ancestor the walk holds (an index into the walk).
    Held(usize),
    /// This element's parent is still to be asked.
    Ask(String),
    /// No ancestor the walk holds within [`MAX_HOLDER_DEPTH`], or up to the application's
    /// root without one.
    Unknown,
}

/// The nearest ancestor of the element at `path` that the walk holds (`held`: path → index),
/// following the parents asked so far.
fn holder(path: &str, parents: &HashMap<String, Parent>, held: &HashMap<&str, usize>) -> Holder {
    let mut at = path;
    for _ in 0..MAX_HOLDER_DEPTH {
        match parents.get(at) {
            None => return Holder::Ask(at.to_owned()),
            Some(Parent::Gone) => return Holder::Gone,
            // Not hung yet (Firefox makes an element before it hangs it while a page loads):
            // where it will hang is not known.
            Some(Parent::Detached) => return Holder::Unknown,
            // Up to the application without passing this window: another window, or a popup
            // over this one; what holds it is not known.
            Some(Parent::Top) => return Holder::Unknown,
            Some(Parent::At(parent)) => {
                if let Some(&index) = held.get(parent.as_str()) {
                    return Holder::Held(index);
                }
                at = parent;
            }
        }
    }
    Holder::Unknown
}

/// The ancestors of `nodes[index]` up to the control its name or content may name (at most
/// [`NAMED_BY_LABEL`] levels up), and what lies between; none when no control is that near.
fn named_by(nodes: &[Node], index: usize) -> Vec<usize> {
    let mut up = Vec::new();
    let mut at = nodes.get(index).and_then(|n| n.parent);
    for _ in 0..NAMED_BY_LABEL {
        let Some((p, node)) = at.and_then(|p| nodes.get(p as usize).map(|n| (p as usize, n)))
        else {
            break;
        };
        up.push(p);
        if node.role.is_interactive() {
            return up;
        }
        at = node.parent;
    }
    Vec::new()
}

/// A kept walk that holds so far, and what the caller must still confirm.
#[derive(Debug, Clone)]
pub struct Held {
    /// The walk.
    pub walk: Walk,
    /// Each element inside a document (the document included), as indices into the walk: each
    /// is read where it is now, and one that moved is moved (a page scrolled).
    pub places: Vec<usize>,
}

/// The elements of `nodes` (pre-order, parents before children) inside a document whose place
/// the walk read: not those it left unplaced because they are not drawn (under a closed menu,
/// a background tab; one that comes to be drawn says so with an event). An element scrolled
/// out of view keeps its place, and is asked too: a page scrolls both ways.
fn document_places(nodes: &[Node]) -> Vec<usize> {
    let mut inside = vec![false; nodes.len()];
    let mut placed = Vec::new();
    let mut unplaced = Vec::new();
    let mut drawn = false;
    for (i, node) in nodes.iter().enumerate() {
        let parent_inside = node
            .parent
            .and_then(|p| inside.get(p as usize).copied())
            .unwrap_or(false);
        inside[i] = parent_inside || node.role == Role::Document;
        if inside[i] {
            drawn |= !node.states.contains(State::Offscreen);
            if was_placed(node) {
                placed.push(i);
            } else {
                unplaced.push(i);
            }
        }
    }
    // A document with nothing drawn (a covered browser window) confirms nothing by what it
    // placed: its unplaced elements are asked too, so it is walked again.
    if drawn {
        placed
    } else {
        placed.extend(unplaced);
        placed.sort_unstable();
        placed
    }
}

/// Whether the walk placed `node`: not when it left it unplaced because it is not drawn (GTK
/// 4's hidden stack pages are not marked offscreen, yet answer a place when asked).
pub fn was_placed(node: &Node) -> bool {
    node.bounds.is_some()
}

/// Moves each element of `nodes` at `places` (indices) to where it is now (`now`, in the same
/// order, placed as a walk places them) and says how many moved; `None` when one could not be
/// read, or one the walk left unplaced has a place now (a walk decides whether to place it).
pub fn moved_to(
    nodes: &mut [Node],
    places: &[usize],
    now: Vec<Option<Option<Rect>>>,
) -> Option<usize> {
    let mut moved = 0;
    for (&i, now) in places.iter().zip(now) {
        let now = now?;
        let node = nodes.get_mut(i)?;
        if node.bounds == now {
            continue;
        }
        if !was_placed(node) {
            return None;
        }
        node.bounds = now;
        moved += 1;
    }
    Some(moved)
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

/// A kept walk behind the application's events or the window's title ([`KeptWalk::behind`]).
#[derive(Debug, Clone)]
pub struct Behind {
    /// The application's event count when the walk began.
    pub count: u64,
    /// The walk.
    pub walk: Walk,
    /// The window's title or focus changed since: its element is read again.
    pub retitled: bool,
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

    /// The kept walk, if only its application's event count (now `count`) or the window's
    /// title or focus differ from when it began (asked with `options`, the window described as
    /// `window` now): the events between may say what to read again ([`read_again`]).
    pub fn behind(
        &self,
        window: &WindowInfo,
        options: &SnapshotOptions,
        count: u64,
    ) -> Option<Behind> {
        let kept = self.kept.as_ref()?;
        let retitled = kept.window.title != window.title || kept.window.focused != window.focused;
        let same_place = WindowInfo {
            title: window.title.clone(),
            focused: window.focused,
            ..kept.window.clone()
        } == *window;
        (options.reuse
            && (kept.count < count || retitled && kept.count == count)
            && same_ask(kept, options)
            && same_place)
            .then(|| Behind {
                count: kept.count,
                walk: kept.walk.clone(),
                retitled,
            })
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
    use cu_core::model::element::ElementIdentity;
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
        // The document and the link; not the paragraph without a size or the hidden button.
        assert_eq!(held, Some(vec![3, 4]));
        // A window without a document has nothing to confirm.
        trees.keep(kept(4), Instant::now());
        let plain = trees.get(&window(0, "Fixture"), &options, 4);
        assert_eq!(plain.map(|h| h.places.len()), Some(0));
    }

    /// What to read again, every element the walk does not hold hanging deeper than the
    /// holder is followed.
    fn plan(nodes: &[Node], bus: &str, events: &[Logged]) -> Option<Again> {
        let mut deep: HashMap<String, Parent> = events
            .iter()
            .map(|e| (e.path.clone(), Parent::At("/deep".into())))
            .collect();
        deep.insert("/deep".into(), Parent::At("/deep".into()));
        read_again(nodes, bus, events, &deep)
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
        let elements = |e: Vec<usize>| {
            Some(Again {
                elements: e,
                ..Again::default()
            })
        };
        assert_eq!(plan(&nodes, ":1.5", &typed), elements(vec![1, 2]));
        assert_eq!(plan(&nodes, ":1.5", &[]), elements(vec![]));
        // The window's own children changed, an event that may change anything: walk.
        for walk in [
            logged("ChildrenChanged", "add", "/frame"),
            logged("BoundsChanged", "", "/ok"),
            logged("PropertyChange", "accessible-role", "/ok"),
        ] {
            assert_eq!(
                plan(&nodes, ":1.5", std::slice::from_ref(&walk)),
                None,
                "{walk:?}"
            );
        }
        // Another application's element of the same path is not this one.
        assert_eq!(
            read_again(&nodes, ":1.6", &typed[..1], &HashMap::new()).map(|a| a.ask),
            Some(vec!["/entry".to_owned()])
        );
        // A label's new name or text: the button it names is read again too.
        let mut labelled = vec![node("/frame"), node("/button"), node("/label")];
        labelled[1].parent = Some(0);
        labelled[1].children = vec![2];
        labelled[2].role = Role::Label;
        labelled[2].parent = Some(1);
        assert_eq!(
            plan(
                &labelled,
                ":1.5",
                &[logged("PropertyChange", "accessible-name", "/label")]
            ),
            elements(vec![2, 1])
        );
        // A container made insensitive takes its children with it, without their events: it
        // is walked again (here half the window: the window is walked).
        let mut wider = labelled.clone();
        wider.extend([node("/a"), node("/b")]);
        wider[0].children = vec![1, 3, 4];
        assert_eq!(
            plan(
                &wider,
                ":1.5",
                &[logged("StateChanged", "sensitive", "/button")]
            )
            .map(|a| a.subtrees),
            Some(vec![1])
        );
        assert_eq!(
            plan(
                &labelled,
                ":1.5",
                &[logged("StateChanged", "sensitive", "/button")]
            ),
            None
        );
        assert_eq!(
            plan(
                &labelled,
                ":1.5",
                &[logged("StateChanged", "sensitive", "/label")]
            ),
            elements(vec![2])
        );
        // Too many elements changed: walking is cheaper.
        let many: Vec<Node> = (0..=MAX_READ_AGAIN + 1)
            .map(|i| node(&format!("/{i}")))
            .collect();
        let events: Vec<Logged> = (0..=MAX_READ_AGAIN + 1)
            .map(|i| logged("StateChanged", "checked", &format!("/{i}")))
            .collect();
        assert_eq!(plan(&many, ":1.5", &events), None);
    }

    /// `frame > [panel > [list > [row0, row1]], button > label, menu (hidden) > item]`.
    fn window_with_a_list() -> Vec<Node> {
        let spec: [(&str, Role, Option<u32>, &[u32]); 8] = [
            ("/frame", Role::Window, None, &[1, 4, 6]),
            ("/panel", Role::Group, Some(0), &[2]),
            ("/list", Role::List, Some(1), &[3]),
            ("/row0", Role::ListItem, Some(2), &[]),
            ("/button", Role::Button, Some(0), &[5]),
            ("/label", Role::Label, Some(4), &[]),
            ("/menu", Role::Menu, Some(0), &[7]),
            ("/item", Role::MenuItem, Some(6), &[]),
        ];
        spec.iter()
            .map(|(path, role, parent, children)| {
                let mut n = Node::new(*role, ElementIdentity(format!(":1.5|{path}")));
                n.parent = *parent;
                n.children = children.to_vec();
                if path.starts_with("/menu") || *path == "/item" {
                    n.states.insert(State::Offscreen);
                }
                n
            })
            .collect()
    }

    #[test]
    fn elements_that_came_or_went_walk_the_subtree_that_holds_them() {
        let nodes = window_with_a_list();
        // A row added to the list, and the new row's own events: the list is walked again.
        let grown = [
            logged("ChildrenChanged", "add", "/list"),
            logged("StateChanged", "showing", "/row1"),
            logged("ChildrenChanged", "add", "/row1"),
            logged("PropertyChange", "accessible-name", "/row1"),
            logged("StateChanged", "focused", "/row0"),
        ];
        assert_eq!(
            plan(&nodes, ":1.5", &grown),
            Some(Again {
                elements: vec![],
                subtrees: vec![2],
                unknown: vec!["/row1".into()],
                ask: vec![],
            })
        );
        // Only the outermost of two subtrees; an element read again elsewhere stays.
        let both = [
            logged("ChildrenChanged", "add", "/list"),
            logged("StateChanged", "showing", "/panel"),
            logged("PropertyChange", "accessible-name", "/label"),
        ];
        assert_eq!(
            plan(&nodes, ":1.5", &both),
            Some(Again {
                elements: vec![5, 4],
                subtrees: vec![1],
                unknown: vec![],
                ask: vec![],
            })
        );
        // An element that ended: its parent's subtree.
        assert_eq!(
            plan(
                &nodes,
                ":1.5",
                &[logged("StateChanged", "defunct", "/row0")]
            )
            .map(|a| a.subtrees),
            Some(vec![2])
        );
        // An element hung elsewhere: its old parent and its new one (asked).
        let moved = [logged("PropertyChange", "accessible-parent", "/row0")];
        let asked = read_again(&nodes, ":1.5", &moved, &HashMap::new());
        assert_eq!(asked.map(|a| a.ask), Some(vec!["/row0".to_owned()]));
        let now = HashMap::from([("/row0".to_owned(), Parent::At("/button".into()))]);
        assert_eq!(
            read_again(&nodes, ":1.5", &moved, &now).map(|a| a.subtrees),
            Some(vec![2, 4])
        );
        // A closed menu's item (under what is not drawn): the walk decides by the menu's role
        // whether to place it, so the window is walked.
        assert_eq!(
            plan(&nodes, ":1.5", &[logged("ChildrenChanged", "add", "/item")]),
            None
        );
        // A subtree of more than half the window: walked whole.
        assert_eq!(
            plan(
                &nodes,
                ":1.5",
                &[logged("StateChanged", "showing", "/panel")]
            )
            .map(|a| a.subtrees),
            Some(vec![1])
        );
        let mut small = nodes.clone();
        small.truncate(4);
        small[0].children = vec![1];
        assert_eq!(
            plan(
                &small,
                ":1.5",
                &[logged("StateChanged", "showing", "/panel")]
            ),
            None
        );
    }

    #[test]
    fn an_element_the_walk_does_not_hold_is_asked_for_its_parent() {
        let nodes = window_with_a_list();
        // LibreOffice hangs a new paragraph and types into it, saying nothing of its parent.
        let typed = [
            logged("PropertyChange", "accessible-parent", "/row1"),
            logged("TextChanged", "insert", "/row1"),
        ];
        let first = read_again(&nodes, ":1.5", &typed, &HashMap::new());
        assert_eq!(first.map(|a| a.ask), Some(vec!["/row1".to_owned()]));
        let answer = |parent: Parent| HashMap::from([("/row1".to_owned(), parent)]);
        // Under the list: the list is walked again.
        assert_eq!(
            read_again(&nodes, ":1.5", &typed, &answer(Parent::At("/list".into()))),
            Some(Again {
                subtrees: vec![2],
                ..Again::default()
            })
        );
        // A new row's check box: followed up through the new row to the list.
        let deeper = [logged("PropertyChange", "accessible-name", "/row1/box")];
        let mut chain = answer(Parent::At("/list".into()));
        let first = read_again(&nodes, ":1.5", &deeper, &chain).map(|a| a.ask);
        assert_eq!(first, Some(vec!["/row1/box".to_owned()]));
        chain.insert("/row1/box".into(), Parent::At("/row1".into()));
        assert_eq!(
            read_again(&nodes, ":1.5", &deeper, &chain).map(|a| a.subtrees),
            Some(vec![2])
        );
        // Gone: passed over.
        assert_eq!(
            read_again(&nodes, ":1.5", &typed, &answer(Parent::Gone)),
            Some(Again::default())
        );
        // Up to the application without passing this window (a popup over it, another
        // window), or not hung yet: not known, so the window is walked (a walk grafts the
        // popups drawn over it).
        for unknown in [Parent::Top, Parent::Detached] {
            assert_eq!(read_again(&nodes, ":1.5", &typed, &answer(unknown)), None);
        }
        // No ancestor the walk holds within the depth followed, and nothing walked again: walk
        // the window. With a subtree walked again, the caller looks for it there.
        let mut elsewhere = answer(Parent::At("/popup".into()));
        elsewhere.insert("/popup".into(), Parent::At("/popup".into()));
        assert_eq!(read_again(&nodes, ":1.5", &typed, &elsewhere), None);
        let with_list = [typed[0].clone(), logged("ChildrenChanged", "add", "/list")];
        assert_eq!(
            read_again(&nodes, ":1.5", &with_list, &elsewhere),
            Some(Again {
                subtrees: vec![2],
                unknown: vec!["/row1".into()],
                ..Again::default()
            })
        );
    }

    #[test]
    fn a_subtree_walked_again_is_spliced_only_when_nothing_is_left_out() {
        use cu_core::model::element::TruncationReason;
        let nodes = window_with_a_list();
        let cut = |reason, omitted| Some(Truncation { reason, omitted });
        let list = |rows: usize| {
            let mut list = vec![nodes[2].clone()];
            list[0].parent = None;
            list[0].children = (1..=rows as u32).collect();
            for r in 0..rows {
                let mut row = nodes[3].clone();
                row.identity = ElementIdentity(format!(":1.5|/row{r}"));
                row.parent = Some(0);
                list.push(row);
            }
            list
        };
        // Two rows more: spliced, what followed moves down; the window's truncation stays.
        let elsewhere = cut(TruncationReason::DepthLimit, 2);
        let walk = (nodes.clone(), elsewhere.clone());
        let Some((spliced, left_out)) = splice(walk.clone(), 2, (list(3), None), 100) else {
            panic!("a walk within its limits splices");
        };
        assert_eq!(spliced.len(), nodes.len() + 2);
        assert_eq!(spliced[0].children, [1, 6, 8]);
        assert_eq!(left_out, elsewhere);
        // The list walked again left something out, or had: the window is walked.
        let short = (list(3), cut(TruncationReason::NodeLimit, 1));
        assert!(splice(walk.clone(), 2, short, 100).is_none());
        let mut was_cut = nodes.clone();
        was_cut[2].omitted_children = 5;
        assert!(splice((was_cut, None), 2, (list(3), None), 100).is_none());
        // The window holds, or would hold, its node limit: a walk decides what to leave out.
        assert!(splice(walk.clone(), 2, (list(3), None), 10).is_none());
        assert!(splice(walk, 2, (list(3), None), 8).is_none());
    }

    #[test]
    fn elements_that_moved_without_an_event_are_moved() {
        let mut nodes = window_with_a_list();
        let at = |y| Some(Rect::new(0, y, 50, 10));
        nodes[4].bounds = at(40);
        nodes[5].bounds = at(40);
        // Below a list that grew: the button and its label moved down by a row.
        let now = vec![Some(at(50)), Some(at(50))];
        assert_eq!(moved_to(&mut nodes, &[4, 5], now), Some(2));
        assert_eq!((nodes[4].bounds, nodes[5].bounds), (at(50), at(50)));
        assert_eq!(moved_to(&mut nodes, &[4], vec![Some(at(50))]), Some(0));
        // One that did not answer, or a closed menu's item that has a place now: walk.
        assert_eq!(moved_to(&mut nodes, &[4], vec![None]), None);
        assert_eq!(moved_to(&mut nodes, &[7], vec![Some(at(5))]), None);
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
                .map(|b| (b.count, b.retitled)),
            Some((3, false))
        );
        // Only the title changed (a page's title says how many items it holds).
        assert_eq!(
            trees
                .behind(&window(0, "Todo (3)"), &options, 3)
                .map(|b| b.retitled),
            Some(true)
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
