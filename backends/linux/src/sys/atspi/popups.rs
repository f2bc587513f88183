//! Popup menus drawn over a window but kept outside its tree. GTK 3 gives a context menu (and a
//! combo box's open list) a top-level `window` of its own beside the app's frames: Thunar's
//! right-click menu never appeared in `gui_state`. A showing one that overlaps the window joins
//! its snapshot.

use cu_core::model::geometry::Rect;
use futures_util::future::join_all;

use super::{Atspi, ObjRef};
use crate::translate::{atspi_role, atspi_state};

/// The showing top-level `window`s of `frame`'s application, other than frames, that overlap
/// `over` (the window's rectangle on screen). Anything unreadable is left out.
pub(crate) async fn showing_over(atspi: &Atspi, frame: &ObjRef, over: Rect) -> Vec<ObjRef> {
    let Ok(tops) = atspi.children(&Atspi::app_root(&frame.bus)).await else {
        return Vec::new();
    };
    let looks = tops
        .into_iter()
        .filter(|top| top != frame)
        .map(|top| async move {
            let (role, states, extents) =
                futures_util::join!(atspi.role(&top), atspi.states(&top), atspi.extents(&top));
            let (Ok(role), Ok(states), Ok((x, y, w, h))) = (role, states, extents) else {
                return None;
            };
            let drawn = Rect::new(x, y, w.max(0), h.max(0));
            let overlaps = drawn.intersection(&over).is_some();
            (role == atspi_role::WINDOW && states.has(atspi_state::SHOWING) && overlaps)
                .then_some(top)
        });
    join_all(looks).await.into_iter().flatten().collect()
}
