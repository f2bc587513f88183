//! Answering an observation from the window's kept walk ([`crate::trees`]): as it is when its
//! application sent no event since, the window system describes the window as it was, and
//! every element of its documents is where the walk saw it; with the elements the events name
//! read again when each event changed one element's own name, value, text or state, the
//! subtrees they name walked again when elements came or went or were drawn or hidden, and
//! every other element drawn is where the walk saw it.

use cu_core::model::element::{ElementIdentity, SnapshotOptions};
use cu_core::model::geometry::Rect;
use cu_core::model::window::WindowId;

use cu_core::model::element::State;

use super::connected::{Connected, InputPath, CAUGHT_UP};
use super::misplaced::Wrong;
use super::state::WindowEntry;
use crate::sys::atspi::walk::{self, Walked};
use crate::sys::atspi::ObjRef;
use crate::trees::{read_again, splice, Again, Kept, Walk};

/// How an observation was answered from a kept walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FromKept {
    /// As it was: nothing changed since.
    Unchanged,
    /// With elements read again and subtrees walked again, as the application's events named
    /// them.
    ReadAgain,
}

impl Connected {
    /// The kept walk of `window` (see [`crate::trees`]) if its application sent no event since
    /// it began, or only events that change one element each ([`read_again`]: those elements
    /// are read again), and X11 describes the window as it was, with the entry described now.
    /// `None` means walk: nothing kept, the window changed, or the counts could not be proven
    /// current.
    pub(super) async fn kept_walk(
        &self,
        window: &WindowId,
        options: &SnapshotOptions,
    ) -> Option<(WindowEntry, Walk, FromKept)> {
        let started = std::time::Instant::now();
        if !options.reuse || !self.windows.holds_kept(window) {
            tracing::debug!(reuse = options.reuse, "kept walk: none kept");
            return None;
        }
        let mut entry = self.windows.entry(window)?;
        let (InputPath::X11(x), Some(xid), Some(bus)) = (
            &self.input,
            entry.xid,
            entry.frame.as_ref().map(|f| f.bus.clone()),
        ) else {
            return None;
        };
        // The barrier goes out first; the X requests (one round trip to the local X server,
        // tens of microseconds) are answered on this thread while it travels: a hop to a
        // blocking thread cost more than the round trip.
        let (caught_up, described) =
            futures_util::join!(self.atspi.caught_up(CAUGHT_UP), async { x.describe(xid) });
        if !caught_up {
            return None;
        }
        entry.described(described.ok()?);
        self.windows
            .described(&entry.info, std::time::Instant::now());
        let count = self.atspi.changes.count(&bus)?;
        if let Some(held) = self.windows.kept(&entry.info, options, count) {
            if !self.still_placed(window, &entry, &held.places).await {
                return None;
            }
            return Some((entry, held.walk, FromKept::Unchanged));
        }
        let Some((since, walk)) = self.windows.kept_behind(&entry.info, options, count) else {
            tracing::debug!(count, "kept walk: not for this window or ask");
            return None;
        };
        let Some(events) = self.atspi.changes.since(&bus, since, count) else {
            tracing::debug!(
                events = count - since,
                "kept walk behind: events no longer logged"
            );
            return None;
        };
        let Some(again) = read_again(&walk.0, &bus, &events) else {
            tracing::debug!(
                events = events.len(),
                all = ?events,
                "kept walk behind: an event changed more than one element"
            );
            return None;
        };
        let walk = self
            .read_elements_again(window, &entry, walk, &again, options)
            .await?;
        if !again.subtrees.is_empty() && options.read_cells {
            // Elements came: an event from one of them is the window's, a combo box's list
            // may be among them.
            self.windows.set_walked(window, Walked::of(&walk.0));
        }
        self.windows.keep(
            Kept {
                options: options.clone(),
                window: entry.info.clone(),
                count,
                walk: walk.clone(),
            },
            started,
        );
        Some((entry, walk, FromKept::ReadAgain))
    }

    /// `walk` with the elements `again` names read again and its subtrees walked again, if each
    /// element read again still holds the children the walk saw, every element the events
    /// named that the walk did not hold came with a subtree, and every other element drawn is
    /// where the walk saw it (a longer label moves its neighbours without an event); `None`
    /// means walk the window.
    async fn read_elements_again(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
        (mut nodes, truncation): Walk,
        again: &Again,
        options: &SnapshotOptions,
    ) -> Option<Walk> {
        let placement = entry.placement();
        let reads = again.elements.iter().map(|&i| {
            let kept = nodes.get(i);
            let obj = kept.and_then(|n| ObjRef::from_identity(&n.identity).ok());
            // Not placed by the walk because not drawn: not placed now either (drawn again, it
            // would have said so with an event).
            let hidden =
                kept.is_some_and(|n| n.bounds.is_none() && n.states.contains(State::Offscreen));
            async move {
                walk::read_one(&self.atspi, obj?, placement, options, hidden)
                    .await
                    .ok()
            }
        });
        let ends: Vec<(usize, usize)> = again
            .subtrees
            .iter()
            .map(|&at| (at, cu_core::model::walk::subtree_end(&nodes, at)))
            .collect();
        let walks = ends.iter().map(|&(at, _)| {
            let obj = nodes
                .get(at)
                .and_then(|n| ObjRef::from_identity(&n.identity).ok());
            // As deep as the walk of the window would have gone below it.
            let depth = std::iter::successors(nodes.get(at), |n| {
                n.parent.and_then(|p| nodes.get(p as usize))
            })
            .count()
            .saturating_sub(1) as u32;
            let below = SnapshotOptions {
                max_depth: options.max_depth.map(|d| d.saturating_sub(depth)),
                ..options.clone()
            };
            async move {
                walk::walk_again(&self.atspi, obj?, placement, &below)
                    .await
                    .ok()
            }
        });
        let walked_again = |i: usize| ends.iter().any(|&(at, end)| (at..end).contains(&i));
        let places: Vec<(ElementIdentity, Option<Rect>)> = nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                !again.elements.contains(i)
                    && !walked_again(*i)
                    && n.bounds.is_some()
                    && !n.states.contains(State::Offscreen)
            })
            .map(|(_, n)| (n.identity.clone(), n.bounds))
            .collect();
        // The pane's check goes out with the reads: one round of calls, not two.
        let (read, walks, wrong) = futures_util::join!(
            futures_util::future::join_all(reads),
            futures_util::future::join_all(walks),
            self.misplaced_now(window)
        );
        if !self.placed_as(entry, wrong.as_deref(), &places).await {
            return None;
        }
        for (&i, read) in again.elements.iter().zip(read) {
            let (mut node, children) = read?;
            let kept = nodes.get(i)?;
            let same_children = kept.omitted_children == 0
                && kept.children.len() == children.len()
                && kept.children.iter().zip(&children).all(|(k, c)| {
                    nodes
                        .get(*k as usize)
                        .is_some_and(|k| k.identity == c.identity())
                });
            if !same_children {
                return None;
            }
            // Where LibreOffice reports its pane a menu bar too high, moved as the walk moved it.
            if let (Some(wrong), Some(bounds)) = (wrong.as_deref(), node.bounds.as_mut()) {
                if wrong.moved(&node.identity) {
                    bounds.y += wrong.by;
                }
            }
            node.parent = kept.parent;
            node.children = kept.children.clone();
            node.omitted_children = kept.omitted_children;
            // Read as the walk read it (the bulk items carry a control's id only): an id
            // does not change with a name, text or state.
            node.toolkit_id = kept.toolkit_id.clone();
            nodes[i] = node;
        }
        // Elements that came into a pane LibreOffice reports misplaced would not be moved with
        // it: the walk of the window finds what the pane holds.
        if wrong.is_some() && !ends.is_empty() {
            return None;
        }
        let mut walk = (nodes, truncation);
        // Last first: a splice renumbers only what follows it.
        for (&(at, _), subtree) in ends.iter().zip(walks).rev() {
            walk = splice(walk, at, subtree?, options.max_nodes as usize)?;
        }
        // What the walk did not hold came with a subtree walked again, or the window is walked.
        let bus = entry.frame.as_ref().map(|f| f.bus.as_str())?;
        let held = |path: &String| {
            let identity = format!("{bus}|{path}");
            walk.0.iter().any(|n| n.identity.0 == identity)
        };
        if !again.unknown.iter().all(held) {
            tracing::debug!(unknown = ?again.unknown, "kept walk behind: an element came elsewhere");
            return None;
        }
        Some(walk)
    }
    /// Whether every one of `places` is where its kept walk saw it: the same extents, placed as
    /// a walk places them now (moved down as the walk moved them where LibreOffice still reports
    /// its content pane a menu bar too high). Asked all at once; any error says no.
    async fn still_placed(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
        places: &[(ElementIdentity, Option<Rect>)],
    ) -> bool {
        if places.is_empty() {
            return true;
        }
        let wrong = self.misplaced_now(window).await;
        self.placed_as(entry, wrong.as_deref(), places).await
    }

    /// [`Connected::still_placed`] with the pane's state already read (`wrong`).
    async fn placed_as(
        &self,
        entry: &WindowEntry,
        wrong: Option<&Wrong>,
        places: &[(ElementIdentity, Option<Rect>)],
    ) -> bool {
        if places.is_empty() {
            return true;
        }
        let placement = entry.placement();
        let started = std::time::Instant::now();
        let asked = places.iter().map(|(identity, _)| async move {
            let obj = ObjRef::from_identity(identity).ok()?;
            Some(placement.bounds(self.atspi.extents(&obj).await.ok()?))
        });
        let now = futures_util::future::join_all(asked).await;
        let same = places.iter().zip(now).all(|((identity, bounds), now)| {
            let Some(mut now) = now else {
                return false;
            };
            if let (Some(wrong), Some(now)) = (wrong.filter(|w| w.moved(identity)), now.as_mut()) {
                now.y += wrong.by;
            }
            now == *bounds
        });
        tracing::debug!(
            elements = places.len(),
            same,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "places confirmed"
        );
        same
    }
}
