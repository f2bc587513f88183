//! [`Wrong`]: a window whose content pane LibreOffice reports a menu bar too high, as a full
//! snapshot found it ([`crate::misplaced`] is the pure finding): what was moved, and by how
//! much. Subtree snapshots of those elements and the gate's hit test use the same shift, each
//! time after checking that the pane is still reported at the menu bar's place (the first
//! pointer motion over the window makes LibreOffice report it right, and then nothing moves);
//! `windows.rs` remembers it per window.

use std::collections::HashSet;

use cu_core::model::element::{ElementIdentity, Node};

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

    /// The same pane with `more` elements moved with it: those that came into it since the
    /// walk that found it (a new paragraph walked again from events).
    pub(super) fn and_moved(&self, more: impl IntoIterator<Item = ElementIdentity>) -> Wrong {
        let mut moved = self.moved.clone();
        moved.extend(more);
        Wrong {
            pane: self.pane.clone(),
            bar: self.bar.clone(),
            by: self.by,
            moved,
        }
    }

    /// Whether `element` was moved with the pane (the pane included): LibreOffice's own
    /// elements, which answer a hit test in the pane's misplaced coordinates, unlike the GTK
    /// widgets it hosts.
    pub(super) fn moved(&self, element: &ElementIdentity) -> bool {
        self.moved.contains(element)
    }
}
