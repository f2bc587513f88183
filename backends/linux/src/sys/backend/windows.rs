//! One window looked up live (its entry with fresh geometry, its app proven to answer, a window
//! found gone forgotten; for what goes through the X server, its X window alone), and its
//! misplaced content pane (LibreOffice) found, remembered and checked again (`misplaced.rs`
//! says what is wrong with it).

use std::sync::Arc;
use std::time::Duration;

use cu_core::model::element::{ElementIdentity, Node};
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

use super::connected::{blocking, Connected, InputPath};
use super::misplaced::Wrong;
use super::state::{AppWait, WindowEntry};
use crate::sys::x11::X11;

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
            entry.described(described.map_err(|_| self.closed(id))?);
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
        let mut entry = self.entry(id).await?;
        let xid = entry.xid.ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!("this window has no X11 window to {what}"),
            )
        })?;
        // Only the X server is asked: input, capture and window changes go through it, and an
        // app still handling the last key answers the accessibility bus only once done (25-40
        // ms a Tab in Calc), which every typed piece waited for.
        let described = {
            let x = x.clone();
            blocking(move || x.describe(xid)).await
        };
        entry.described(described.map_err(|_| self.closed(id))?);
        Ok((x, entry, xid))
    }
    pub(super) fn forget(&self, id: &WindowId) {
        self.windows.forget(id);
    }
    /// `WINDOW_NOT_FOUND` for a window the X server no longer describes, forgotten.
    fn closed(&self, id: &WindowId) -> Error {
        self.forget(id);
        Error::new(ErrorCode::WindowNotFound, format!("window {id} has closed"))
    }

    /// Moves what a walk of `window` read if its pane is misplaced: a full walk finds out (and
    /// is remembered), a subtree walk of a moved element moves with the pane.
    pub(super) async fn place_misplaced(
        &self,
        window: &cu_core::model::window::WindowId,
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
    pub(super) fn misplaced_known(&self, window: &cu_core::model::window::WindowId) -> bool {
        self.windows.misplaced_known(window)
    }

    /// The remembered misplaced pane of `window`, if it is still reported misplaced now (once
    /// reported right, a window stays right: it is remembered as such).
    pub(super) async fn misplaced_now(
        &self,
        window: &cu_core::model::window::WindowId,
    ) -> Option<std::sync::Arc<Wrong>> {
        let wrong = self.windows.misplaced(window)?;
        if wrong.still(&self.atspi).await {
            return Some(wrong);
        }
        self.windows.set_misplaced(window, None);
        None
    }
}
