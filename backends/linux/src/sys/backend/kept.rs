//! Answering an observation from the window's kept walk ([`crate::trees`]): only when its
//! application sent no event since, the window system describes the window as it was, and
//! every element of its documents is where the walk saw it.

use cu_core::model::element::{ElementIdentity, SnapshotOptions};
use cu_core::model::geometry::Rect;
use cu_core::model::window::WindowId;

use super::connected::{Connected, InputPath, CAUGHT_UP};
use super::state::WindowEntry;
use crate::sys::atspi::ObjRef;
use crate::trees::Walk;

impl Connected {
    /// The kept walk of `window` (see [`crate::trees`]) if its application sent no event since
    /// it began and X11 describes the window as it was, with the entry described now. `None`
    /// means walk: nothing kept, the window changed, or the counts could not be proven current.
    pub(super) async fn kept_walk(
        &self,
        window: &WindowId,
        options: &SnapshotOptions,
    ) -> Option<(WindowEntry, Walk)> {
        if !options.reuse || !self.windows.holds_kept(window) {
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
        let held = self.windows.kept(&entry.info, options, count)?;
        if !self.still_placed(window, &entry, &held.places).await {
            return None;
        }
        Some((entry, held.walk))
    }
    /// Whether every one of `places` (a document's elements) is where its kept walk saw it: the
    /// same extents, placed as a walk places them now (moved down as the walk moved them where
    /// LibreOffice still reports its content pane a menu bar too high). Asked all at once; any
    /// error says no.
    async fn still_placed(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
        places: &[(ElementIdentity, Option<Rect>)],
    ) -> bool {
        if places.is_empty() {
            return true;
        }
        let placement = entry.placement();
        let started = std::time::Instant::now();
        // The pane's check goes out with the extents: one round of calls, not two.
        let asked = places.iter().map(|(identity, _)| async move {
            let obj = ObjRef::from_identity(identity).ok()?;
            Some(placement.bounds(self.atspi.extents(&obj).await.ok()?))
        });
        let (wrong, now) = futures_util::join!(
            self.misplaced_now(window),
            futures_util::future::join_all(asked)
        );
        let wrong = wrong.as_deref();
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
            "document places confirmed"
        );
        same
    }
}
