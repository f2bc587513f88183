//! What the backend keeps between calls: the window map (each listed window's entry and
//! everything kept of it, dropped together) and each application's frames at the last listing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cu_core::model::element::SnapshotOptions;
use cu_core::model::geometry::Point;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};

use super::misplaced::Wrong;
use crate::listing;
use crate::sys::atspi::walk::{Placement, Walked};
use crate::sys::atspi::ObjRef;
use crate::translate::Toolkit;
use crate::trees::{Held, Kept, KeptWalk};

/// What a window id resolves to.
#[derive(Debug, Clone)]
pub(super) struct WindowEntry {
    /// The window's accessible frame; `None` for a window listed from X11 alone (its app has no
    /// accessibility, or has not registered it yet).
    pub(super) frame: Option<ObjRef>,
    pub(super) xid: Option<u32>,
    pub(super) toolkit: Toolkit,
    pub(super) info: WindowInfo,
}

impl WindowEntry {
    /// The accessible frame, or the error that says the window has none.
    pub(super) fn frame(&self) -> Result<&ObjRef> {
        self.frame.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::NotSupported,
                format!(
                    "window {} exposes no accessibility tree: it has no elements",
                    self.info.id
                ),
            )
            .with_suggestion(
                "Look at it with gui_state screenshot=true and act by coordinates (each press asks for confirmation).",
            )
        })
    }

    /// Takes the window system's description of the window now.
    pub(super) fn described(&mut self, xw: crate::sys::x11::XWindow) {
        self.info.bounds = Some(xw.bounds);
        self.info.minimized = xw.minimized;
        self.info.title = xw.title;
    }

    /// How extents of this window's elements map to window-relative pixels.
    pub(super) fn placement(&self) -> Placement {
        Placement {
            origin: self
                .info
                .bounds
                .map(|b| Point::new(b.x, b.y))
                .unwrap_or(Point::new(0, 0)),
            toolkit: self.toolkit,
        }
    }
}

/// Everything kept of one listed window.
#[derive(Default)]
struct WindowState {
    entry: Option<WindowEntry>,
    /// Whether a full walk found its content pane reported a menu bar too high (LibreOffice),
    /// and where; `None` until a full walk has looked.
    misplaced: Option<Option<Arc<Wrong>>>,
    /// What its last full walk saw.
    walked: Option<Arc<Walked>>,
    /// Its last walk, answered again while its application sends no event.
    kept: KeptWalk,
}

/// The listed windows, each with what is kept of it.
#[derive(Default)]
pub(super) struct WindowMap(Mutex<HashMap<WindowId, WindowState>>);

impl WindowMap {
    /// Runs `f` on the state of `window`, if it is listed.
    fn with<R>(&self, window: &WindowId, f: impl FnOnce(&mut WindowState) -> R) -> Option<R> {
        self.0.lock().ok()?.get_mut(window).map(f)
    }

    /// A new listing: each window's entry is replaced, what is kept of a window still listed
    /// stays, every other window is dropped with everything kept of it.
    pub(super) fn listed(&self, entries: Vec<WindowEntry>) {
        let Ok(mut map) = self.0.lock() else {
            return;
        };
        let mut next: HashMap<WindowId, WindowState> = HashMap::with_capacity(entries.len());
        for entry in entries {
            let mut state = map.remove(&entry.info.id).unwrap_or_default();
            let id = entry.info.id.clone();
            state.entry = Some(entry);
            next.insert(id, state);
        }
        *map = next;
    }

    /// Drops `window` and everything kept of it.
    pub(super) fn forget(&self, window: &WindowId) {
        if let Ok(mut map) = self.0.lock() {
            map.remove(window);
        }
    }

    /// What `window`'s id resolved to at the last listing.
    pub(super) fn entry(&self, window: &WindowId) -> Option<WindowEntry> {
        self.with(window, |s| s.entry.clone()).flatten()
    }

    /// What the last full walk of `window` saw.
    pub(super) fn walked(&self, window: &WindowId) -> Option<Arc<Walked>> {
        self.with(window, |s| s.walked.clone()).flatten()
    }

    /// Notes what a full walk of `window` saw.
    pub(super) fn set_walked(&self, window: &WindowId, walked: Walked) {
        self.with(window, |s| s.walked = Some(Arc::new(walked)));
    }

    /// Whether a full walk of `window` has said whether its pane is misplaced.
    pub(super) fn misplaced_known(&self, window: &WindowId) -> bool {
        self.with(window, |s| s.misplaced.is_some())
            .unwrap_or(false)
    }

    /// `window`'s misplaced pane as last found.
    pub(super) fn misplaced(&self, window: &WindowId) -> Option<Arc<Wrong>> {
        self.with(window, |s| s.misplaced.clone())
            .flatten()
            .flatten()
    }

    /// Notes whether (and where) `window`'s pane is misplaced.
    pub(super) fn set_misplaced(&self, window: &WindowId, wrong: Option<Arc<Wrong>>) {
        self.with(window, |s| s.misplaced = Some(wrong));
    }

    /// Notes where the window system describes `window` at `now` (for [`KeptWalk`]).
    pub(super) fn described(&self, window: &WindowInfo, now: Instant) {
        self.with(&window.id, |s| s.kept.described(window, now));
    }

    /// Keeps a walk of its window (see [`KeptWalk::keep`]).
    pub(super) fn keep(&self, kept: Kept, began: Instant) {
        let id = kept.window.id.clone();
        self.with(&id, |s| s.kept.keep(kept, began));
    }

    /// Whether a walk of `window` is kept.
    pub(super) fn holds_kept(&self, window: &WindowId) -> bool {
        self.with(window, |s| s.kept.holds()).unwrap_or(false)
    }

    /// The kept walk of `window` and its event count, if only that count is behind (see
    /// [`KeptWalk::behind`]).
    pub(super) fn kept_behind(
        &self,
        window: &WindowInfo,
        options: &SnapshotOptions,
        count: u64,
    ) -> Option<crate::trees::Behind> {
        self.with(&window.id, |s| s.kept.behind(window, options, count))
            .flatten()
    }

    /// The kept walk of `window` if it still holds (see [`KeptWalk::get`]).
    pub(super) fn kept(
        &self,
        window: &WindowInfo,
        options: &SnapshotOptions,
        count: u64,
    ) -> Option<Held> {
        self.with(&window.id, |s| s.kept.get(window, options, count))
            .flatten()
    }
}

/// How long an application is given to answer a listing.
pub(super) const APP_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// How long an application that did not answer the last listing, and sent no event since, is
/// given.
pub(super) const SILENT_APP_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// How long a listing waits for each application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AppWait {
    /// [`Listed::wait`]: a listing of every window.
    Bounded,
    /// As long as the bus lets a call take: the caller needs one window's tree.
    Patient,
}

/// One application at the last listing.
#[derive(Clone)]
pub(super) struct Listed {
    pub(super) frames: Vec<Frame>,
    /// It answered (else `frames` are from before).
    pub(super) answered: bool,
    /// Its event count then.
    pub(super) count: Option<u64>,
}

impl Listed {
    /// How long an application is given to answer a listing, given how it did at the last one
    /// (`before`) and its event count now.
    pub(super) fn wait(before: Option<&Listed>, count: Option<u64>) -> std::time::Duration {
        let silent = before.is_some_and(|b| !b.answered && count.is_some() && b.count == count);
        if silent {
            SILENT_APP_WAIT
        } else {
            APP_WAIT
        }
    }
}

/// An accessible frame: where it is on the bus, how its toolkit reports extents, and what the
/// window join reads of it.
#[derive(Clone)]
pub(super) struct Frame {
    pub(super) obj: ObjRef,
    pub(super) toolkit: Toolkit,
    pub(super) facts: listing::FrameFacts,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> WindowEntry {
        WindowEntry {
            frame: None,
            xid: None,
            toolkit: Toolkit::default(),
            info: WindowInfo {
                id: WindowId(id.into()),
                app: "app".into(),
                title: id.into(),
                pid: None,
                bounds: None,
                focused: false,
                minimized: false,
                no_tree: false,
            },
        }
    }

    #[test]
    fn regression_forget_dropped_two_of_five_maps() {
        let map = WindowMap::default();
        map.listed(vec![entry("a"), entry("b")]);
        let a = WindowId("a".into());
        map.set_misplaced(&a, None);
        map.set_walked(&a, Walked::default());
        assert!(map.misplaced_known(&a) && map.walked(&a).is_some());
        // A new listing keeps what is known of a window still listed.
        map.listed(vec![entry("a"), entry("b")]);
        assert!(map.misplaced_known(&a) && map.walked(&a).is_some());
        // Forgotten: nothing of it is left, and it comes back as new.
        map.forget(&a);
        assert!(map.entry(&a).is_none() && map.walked(&a).is_none());
        map.listed(vec![entry("a")]);
        assert!(map.entry(&a).is_some());
        assert!(!map.misplaced_known(&a) && map.walked(&a).is_none());
        // A window that left the listing is dropped with what was kept of it.
        let b = WindowId("b".into());
        assert!(map.entry(&b).is_none());
        map.set_walked(&b, Walked::default());
        assert!(
            map.walked(&b).is_none(),
            "nothing is kept of a window not listed"
        );
    }

    fn listed(answered: bool, count: Option<u64>) -> Listed {
        Listed {
            frames: Vec::new(),
            answered,
            count,
        }
    }

    #[test]
    fn regression_one_hung_application_held_every_listing_for_3_s() {
        // Never listed, or it answered last time: the full wait.
        assert_eq!(Listed::wait(None, Some(4)), APP_WAIT);
        assert_eq!(
            Listed::wait(Some(&listed(true, Some(4))), Some(4)),
            APP_WAIT
        );
        // It did not answer, and sent nothing since: still silent, a short wait.
        assert_eq!(
            Listed::wait(Some(&listed(false, Some(4))), Some(4)),
            SILENT_APP_WAIT
        );
        // It sent events since (busy, not hung), or nothing is counted: the full wait again.
        assert_eq!(
            Listed::wait(Some(&listed(false, Some(4))), Some(9)),
            APP_WAIT
        );
        assert_eq!(Listed::wait(Some(&listed(false, None)), None), APP_WAIT);
    }
}
