//! Answering an observation from the window's kept walk ([`crate::trees`]) while the window
//! system describes the window at the same place and size: as it is when its application sent
//! no event since (its documents' elements read where they are now, what moved moved); else
//! brought up to date from the events it sent: the elements whose own name, value, text or
//! state changed read again, the subtrees where elements came or went walked again and spliced
//! in, and every other element placed read where it is now.

use std::collections::HashMap;
use std::sync::Arc;

use cu_core::model::element::{ElementIdentity, Node, SnapshotOptions};
use cu_core::model::geometry::Rect;
use cu_core::model::window::WindowId;
use cu_core::ErrorCode;

use cu_core::model::element::State;

use super::connected::{Connected, InputPath, CAUGHT_UP};
use super::misplaced::Wrong;
use super::state::WindowEntry;
use crate::sys::atspi::walk::{self, Walked};
use crate::sys::atspi::ObjRef;
use crate::trees::{
    moved_to, read_again, splice, was_placed, Again, Behind, Kept, Logged, Parent, Walk,
    MAX_HOLDER_DEPTH,
};

/// How an observation was answered from a kept walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FromKept {
    /// As it was: nothing changed since.
    Unchanged,
    /// With something read again: elements and subtrees the application's events named, or
    /// places that moved (a page scrolled).
    ReadAgain,
}

impl Connected {
    /// The kept walk of `window` (see [`crate::trees`]) with what moved since moved, if its
    /// application sent no event since it began, or brought up to date from the events it sent
    /// ([`read_again`]), and X11 describes the window at the same place and size; with the entry
    /// described now. `None` means walk: nothing kept, the window changed, the events do not say
    /// what changed, or the counts could not be proven current.
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
        // A walk brought up to date serves the next observation as a walk would.
        let keep = |entry: &WindowEntry, walk: &Walk| {
            let kept = Kept {
                options: options.clone(),
                window: entry.info.clone(),
                count,
                walk: walk.clone(),
            };
            self.windows.keep(kept, started);
        };
        if let Some(held) = self.windows.kept(&entry.info, options, count) {
            let (mut nodes, truncation) = held.walk;
            let (_, now) = self.places_now(window, &entry, &nodes, &held.places).await;
            let moved = moved_to(&mut nodes, &held.places, now)?;
            let walk = (nodes, truncation);
            if moved == 0 {
                return Some((entry, walk, FromKept::Unchanged));
            }
            // A page scrolled: what moved is where it is now.
            keep(&entry, &walk);
            return Some((entry, walk, FromKept::ReadAgain));
        }
        let Some(Behind {
            count: since,
            walk,
            retitled,
        }) = self.windows.kept_behind(&entry.info, options, count)
        else {
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
        let Some(mut again) = self.what_to_read_again(&walk.0, &bus, &events).await else {
            tracing::debug!(
                events = events.len(),
                all = ?events,
                "kept walk behind: the events do not say what changed"
            );
            return None;
        };
        // The window's element says its title and whether it is active.
        if retitled && !again.elements.contains(&0) {
            again.elements.push(0);
        }
        // A depth limit counts from the walk's roots, a popup's own among them (grafted one
        // level down): a subtree walked again would be cut elsewhere.
        if options.max_depth.is_some() && !again.subtrees.is_empty() {
            return None;
        }
        tracing::debug!(
            elements = again.elements.len(),
            subtrees = ?again
                .subtrees
                .iter()
                .map(|&at| cu_core::model::walk::subtree_end(&walk.0, at) - at)
                .collect::<Vec<_>>(),
            ?events,
            "kept walk behind: reading again"
        );
        let Some(walk) = self
            .read_elements_again(window, &entry, walk, &again, options)
            .await
        else {
            tracing::debug!(all = ?events, "kept walk behind: read again, walking");
            return None;
        };
        if !again.subtrees.is_empty() && options.read_cells {
            // Elements came: an event from one of them is the window's, a combo box's list
            // may be among them.
            self.windows.set_walked(window, Walked::of(&walk.0));
        }
        keep(&entry, &walk);
        Some((entry, walk, FromKept::ReadAgain))
    }

    /// What to read again of `nodes`, a kept walk of the application at `bus`, given the events
    /// it sent since (`trees::read_again`), each element the walk does not hold followed up
    /// its parents (one level a round, all asked at once) to the nearest one the walk holds.
    async fn what_to_read_again(
        &self,
        nodes: &[Node],
        bus: &str,
        events: &[Logged],
    ) -> Option<Again> {
        let mut parents = HashMap::new();
        let mut again = read_again(nodes, bus, events, &parents)?;
        for _ in 0..MAX_HOLDER_DEPTH {
            if again.ask.is_empty() {
                return Some(again);
            }
            let asked = again.ask.iter().map(|path| async move {
                let obj = ObjRef::from_identity(&ElementIdentity(format!("{bus}|{path}")));
                let parent = match obj {
                    Ok(obj) => self.atspi.parent_of(&obj).await,
                    Err(e) => Err(e),
                };
                let parent = match parent {
                    Ok(Some(p)) if p.bus == bus => Parent::At(p.path.to_string()),
                    // The application's root: its parent is the desktop.
                    Ok(Some(_)) => Parent::Top,
                    Ok(None) => Parent::Detached,
                    // Not told in time is not told at all.
                    Err(e) if e.code == ErrorCode::Timeout => Parent::Top,
                    Err(_) => Parent::Gone,
                };
                (path.clone(), parent)
            });
            parents.extend(futures_util::future::join_all(asked).await);
            again = read_again(nodes, bus, events, &parents)?;
        }
        again.ask.is_empty().then_some(again)
    }

    /// `walk` with the elements `again` names read again, its subtrees walked again and spliced
    /// in, and every other element placed read where it is now (a longer label moves its
    /// neighbours without an event), if each element read again still holds the children the
    /// walk saw, every element still unknown came with a subtree, and no place is asked of what
    /// the walk left unplaced; `None` means walk the window.
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
            // Read as the window's walk reads (with the bulk items where the toolkit has them:
            // what they say is not drawn is left unplaced); no depth limit (see above).
            async move { walk::walk(&self.atspi, obj?, placement, options).await.ok() }
        });
        let walked_again = |i: usize| ends.iter().any(|&(at, end)| (at..end).contains(&i));
        // Every other element the walk placed, read where it is now: one that moved (below a
        // list that grew, beside a label that got longer) sent no event.
        let places: Vec<usize> = nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| !again.elements.contains(i) && !walked_again(*i) && was_placed(n))
            .map(|(i, _)| i)
            .collect();
        // One round: the reads, the walks, the places and the pane's state, all at once.
        let (read, walks, (wrong, now)) = futures_util::join!(
            futures_util::future::join_all(reads),
            futures_util::future::join_all(walks),
            self.places_now(window, entry, &nodes, &places)
        );
        let moved = moved_to(&mut nodes, &places, now)?;
        tracing::debug!(moved, "kept walk behind: elements moved without an event");
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
        let mut walk = (nodes, truncation);
        let mut came = Vec::new();
        // Last first: a splice renumbers only what follows it.
        for (&(at, end), subtree) in ends.iter().zip(walks).rev() {
            let (mut subtree, cut) = subtree?;
            // Where LibreOffice reports its pane a menu bar too high, what came into a subtree
            // the walk moved with the pane moves with it, as a snapshot of that subtree does;
            // a subtree holding, or now hosting, a branch GTK places itself is left to the
            // walk of the window.
            if let Some(wrong) = wrong.as_deref() {
                let old = walk.0.get(at..end)?;
                if crate::misplaced::hosts_gtk(&subtree, wrong.by) {
                    return None;
                }
                if old.iter().all(|n| wrong.moved(&n.identity)) {
                    for node in &mut subtree {
                        if let Some(b) = node.bounds.as_mut() {
                            b.y += wrong.by;
                        }
                        came.push(node.identity.clone());
                    }
                } else if old.iter().any(|n| wrong.moved(&n.identity)) {
                    return None;
                }
            }
            walk = splice(walk, at, (subtree, cut), options.max_nodes as usize)?;
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
        if let Some(wrong) = wrong.filter(|_| !came.is_empty()) {
            let wider = wrong.and_moved(came);
            self.windows.set_misplaced(window, Some(Arc::new(wider)));
        }
        Some(walk)
    }
    /// Where each element of `nodes` at `places` (indices) is now, placed as a walk places it
    /// (moved down as the walk moved it where LibreOffice still reports its content pane a menu
    /// bar too high, which is asked beside the places: the pane's state, and the places).
    /// Asked all at once; `None` for one that did not answer.
    async fn places_now(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
        nodes: &[Node],
        places: &[usize],
    ) -> (Option<Arc<Wrong>>, Vec<Option<Option<Rect>>>) {
        let placement = entry.placement();
        let started = std::time::Instant::now();
        let asked = places.iter().map(|&i| async move {
            let obj = ObjRef::from_identity(&nodes.get(i)?.identity).ok()?;
            Some(placement.bounds(self.atspi.extents(&obj).await.ok()?))
        });
        let (wrong, mut now) = futures_util::join!(
            self.misplaced_now(window),
            futures_util::future::join_all(asked)
        );
        if let Some(wrong) = wrong.as_deref() {
            for (&i, now) in places.iter().zip(&mut now) {
                let moved = nodes.get(i).is_some_and(|n| wrong.moved(&n.identity));
                if let (true, Some(Some(now))) = (moved, now.as_mut()) {
                    now.y += wrong.by;
                }
            }
        }
        tracing::debug!(
            elements = places.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "places read"
        );
        (wrong, now)
    }
}
