//! The glue of [`crate::misplaced`]: a window whose content pane LibreOffice reports a menu bar
//! too high. A full snapshot finds it, moves what it reports, and remembers which elements it
//! moved; subtree snapshots of those elements and the gate's hit test then use the same shift,
//! each time after checking that the pane is still reported at the menu bar's place (the first
//! pointer motion over the window makes LibreOffice report it right, and then nothing moves).

use std::collections::HashSet;

use cu_core::element::{ElementIdentity, Node};

use crate::misplaced::{self, Misplaced};
use crate::sys::atspi::{Atspi, ObjRef};

/// What a full snapshot found out about a window's misplaced pane.
pub(super) struct Wrong {
    pane: ObjRef,
    bar: ObjRef,
    /// How far too high the pane is reported.
    pub(super) by: i32,
    /// The pane and every element moved with it.
    moved: HashSet<ElementIdentity>,
}

impl Wrong {
    /// After a full walk: moves the misplaced pane of `nodes` (window-relative, pre-order) to
    /// where it is drawn and says what was done; `None` when nothing is misplaced.
    pub(super) fn place(nodes: &mut [Node], window_height: i32) -> Option<Wrong> {
        let m: Misplaced = misplaced::find(nodes, window_height)?;
        let kept = misplaced::placed_by_gtk(nodes, m);
        let moved = misplaced::move_down(nodes, m, &kept);
        tracing::debug!(
            by = m.by,
            moved = moved.len(),
            kept = kept.len(),
            "content pane reported a menu bar too high; moved"
        );
        Some(Wrong {
            pane: ObjRef::from_identity(&nodes[m.pane].identity).ok()?,
            bar: ObjRef::from_identity(&nodes[m.bar].identity).ok()?,
            by: m.by,
            moved: moved.iter().map(|&i| nodes[i].identity.clone()).collect(),
        })
    }

    /// Whether the pane is still reported at the menu bar's place (read now).
    pub(super) async fn still(&self, atspi: &Atspi) -> bool {
        let (pane, bar) = tokio::join!(atspi.extents(&self.pane), atspi.extents(&self.bar));
        matches!((pane, bar), (Ok((_, p, _, _)), Ok((_, b, _, _))) if p == b)
    }

    /// Whether `element` was moved with the pane (the pane included): LibreOffice's own
    /// elements, which answer a hit test in the pane's misplaced coordinates, unlike the GTK
    /// widgets it hosts.
    pub(super) fn moved(&self, element: &ElementIdentity) -> bool {
        self.moved.contains(element)
    }
}

impl super::connected::Connected {
    /// Moves what a walk of `window` read if its pane is misplaced: a full walk finds out (and
    /// is remembered), a subtree walk of a moved element moves with the pane.
    pub(super) async fn place_misplaced(
        &self,
        window: &cu_core::window::WindowId,
        window_height: i32,
        subtree: Option<&ElementIdentity>,
        nodes: &mut [Node],
    ) {
        match subtree {
            None => {
                let found = Wrong::place(nodes, window_height).map(std::sync::Arc::new);
                self.windows.set_misplaced(window, found);
            }
            Some(root) => {
                let Some(wrong) = self.misplaced_now(window).await else {
                    return;
                };
                if wrong.moved(root) {
                    for b in nodes.iter_mut().filter_map(|n| n.bounds.as_mut()) {
                        b.y += wrong.by;
                    }
                }
            }
        }
    }

    /// Whether a full walk of `window` has said whether its pane is misplaced.
    pub(super) fn misplaced_known(&self, window: &cu_core::window::WindowId) -> bool {
        self.windows.misplaced_known(window)
    }

    /// The remembered misplaced pane of `window`, if it is still reported misplaced now (once
    /// reported right, a window stays right: it is remembered as such).
    pub(super) async fn misplaced_now(
        &self,
        window: &cu_core::window::WindowId,
    ) -> Option<std::sync::Arc<Wrong>> {
        let wrong = self.windows.misplaced(window)?;
        if wrong.still(&self.atspi).await {
            return Some(wrong);
        }
        self.windows.set_misplaced(window, None);
        None
    }
}
