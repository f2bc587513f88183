//! The window map: each listed window's [`WindowEntry`] (what its id resolves to) and
//! everything kept of it ([`WindowState`]), dropped together when the window leaves the
//! listing or is found gone; and the live look-up of one window.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cu_core::element::SnapshotOptions;
use cu_core::geometry::Point;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};

use super::connected::{blocking, Connected, InputPath};
use super::list::AppWait;
use super::misplaced::Wrong;
use crate::sys::atspi::walk::{Placement, Walked};
use crate::sys::atspi::ObjRef;
use crate::sys::x11::X11;
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

impl Connected {
    pub(super) async fn entry(&self, id: &WindowId) -> Result<WindowEntry> {
        let cached = self.windows.entry(id);
        // A window listed without a tree may have registered one since (an app that was still
        // starting): listed again, so it is not treated as treeless for good.
        if let Some(e) = cached.filter(|e| e.frame.is_some()) {
            return Ok(e);
        }
        // The caller needs this window's tree: a busy app is waited for.
        let windows = self.list(AppWait::Patient).await?;
        self.windows.entry(id).ok_or_else(|| {
            let ids: Vec<String> = windows
                .iter()
                .map(|w| format!("{} ({})", w.id, w.title))
                .collect();
            Error::new(ErrorCode::WindowNotFound, format!("no window {id}"))
                .with_details(serde_json::json!({ "windows": ids }))
        })
    }
    /// The entry with fresh X11 geometry; `WINDOW_NOT_FOUND` if the window closed or its app died,
    /// a retryable `TIMEOUT` if its app does not answer (within the bus's method timeout).
    pub(super) async fn live_entry(&self, id: &WindowId) -> Result<WindowEntry> {
        self.live_entry_within(id, None).await
    }
    /// [`live_entry`](Self::live_entry), the app given `patience` (where set) to answer.
    pub(super) async fn live_entry_within(
        &self,
        id: &WindowId,
        patience: Option<Duration>,
    ) -> Result<WindowEntry> {
        let mut entry = self.entry(id).await?;
        // The X11 geometry and the accessibility liveness are asked at once.
        let described = async {
            match (entry.xid, &self.input) {
                (Some(xid), InputPath::X11(x)) => {
                    let x = x.clone();
                    Some(blocking(move || x.describe(xid)).await)
                }
                _ => None,
            }
        };
        let answers = async {
            let Some(frame) = &entry.frame else {
                return Ok(());
            };
            match patience {
                Some(within) => tokio::time::timeout(within, self.atspi.role(frame))
                    .await
                    .unwrap_or_else(|_| {
                        Err(Error::new(
                            ErrorCode::Timeout,
                            format!("no answer within {} ms", within.as_millis()),
                        ))
                    }),
                None => self.atspi.role(frame).await,
            }
            .map(|_| ())
        };
        let (described, answers) = futures_util::join!(described, answers);
        if let Some(described) = described {
            let xw = described.map_err(|_| {
                self.forget(id);
                Error::new(ErrorCode::WindowNotFound, format!("window {id} has closed"))
            })?;
            entry.described(xw);
        }
        let Err(e) = answers else {
            return Ok(entry);
        };
        // Busy or hung (its X11 window was described), not gone, while it is still on the bus:
        // a call to an app that died while it was asked also ends in no reply.
        let hung = match &entry.frame {
            Some(frame) if e.code == ErrorCode::Timeout => {
                self.atspi.still_connected(&frame.bus).await != Some(false)
            }
            _ => false,
        };
        if hung {
            return Err(Error::new(
                ErrorCode::Timeout,
                format!("the application of window {id} does not answer on the accessibility bus (busy or hung)"),
            )
            .with_suggestion("Observe it again in a moment: a busy app (loading, building a dialog) answers once done."));
        }
        self.forget(id);
        Err(Error::new(ErrorCode::WindowNotFound, format!("window {id} no longer answers on the accessibility bus (closed, or its application exited)")))
    }
    /// The X11 connection, the live entry and its X window, for input, capture and activation.
    pub(super) async fn x_target(
        &self,
        id: &WindowId,
        what: &str,
    ) -> Result<(Arc<X11>, WindowEntry, u32)> {
        let x = self.x11()?;
        let entry = self.live_entry(id).await?;
        let xid = entry.xid.ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!("this window has no X11 window to {what}"),
            )
        })?;
        Ok((x, entry, xid))
    }
    pub(super) fn forget(&self, id: &WindowId) {
        self.windows.forget(id);
    }
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
}
