//! What a press lands on where a popup of the window's application covers it: a combo box's
//! open list (Qt draws it in an override-redirect window of its own, the list staying the combo
//! box's child in the tree), or a popup window beside the app's frames (GTK 3's menus,
//! LibreOffice's drop-down lists). The hit test runs inside the popup the point lies in, so
//! the item under the pointer is the receiver the gate judges, not the window beneath.

use cu_core::model::geometry::Point;
use cu_core::model::receiver::Probe;
use cu_core::model::window::WindowId;

use super::state::WindowEntry;
use super::Connected;
use crate::sys::atspi::{popups, probe, ObjRef};
use crate::translate::atspi_state;

impl Connected {
    /// The element of a showing popup of `entry`'s application at the window point `at`
    /// (`root` on screen), if a popup there holds one; `None` leaves the point unknown.
    pub(super) async fn popup_hit(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
        at: Point,
        root: Point,
    ) -> Option<Probe> {
        let frame = entry.frame.as_ref()?;
        let point = cu_core::model::geometry::Rect::new(root.x, root.y, 1, 1);
        let mut candidates = popups::showing_over(&self.atspi, frame, point).await;
        if let Some(walked) = self.walked(window) {
            candidates.extend(walked.popups.iter().cloned());
        }
        for popup in candidates {
            if !self.shows_at(&popup, root).await {
                continue;
            }
            let hit = probe::element_at(&self.atspi, &popup, entry.placement(), at, &|_| 0).await;
            match hit {
                Ok(probe) if probe.receiver().is_some() => return Some(probe),
                _ => continue,
            }
        }
        None
    }

    /// Whether `popup` is showing and its extents on screen hold `root`.
    async fn shows_at(&self, popup: &ObjRef, root: Point) -> bool {
        let (states, extents) =
            futures_util::join!(self.atspi.states(popup), self.atspi.extents(popup));
        let (Ok(states), Ok((x, y, w, h))) = (states, extents) else {
            return false;
        };
        states.has(atspi_state::SHOWING)
            && (x..x.saturating_add(w)).contains(&root.x)
            && (y..y.saturating_add(h)).contains(&root.y)
    }
}
