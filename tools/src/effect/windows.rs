//! The windows around a step: which were listed before its input ([`WindowsBefore`]), which
//! one it opened ([`Opened`]), and whether a closed window's application ended with it.

use std::time::{Duration, Instant};

use cu_core::model::window::{WindowId, WindowInfo};
use serde::Serialize;

use crate::service::Service;

/// How long an application's process may take to end after its last window closed before the
/// step is only `window_closed`.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A window that appeared while a step's effect was watched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Opened {
    /// Its id, for `gui_state`.
    pub window_id: WindowId,
    /// Its title.
    pub title: String,
}

/// The windows listed right before a step's input: a window missing here that is listed after
/// it, of the acted window's application, was opened by the step.
#[derive(Debug, Clone)]
pub(crate) struct WindowsBefore {
    owner: WindowInfo,
    ids: Vec<WindowId>,
}

impl WindowsBefore {
    /// The baseline from a listing taken before input; `None` when the acted window is not in it.
    pub(crate) fn new(window: &WindowId, listed: Vec<WindowInfo>) -> Option<WindowsBefore> {
        let owner = listed.iter().find(|w| &w.id == window)?.clone();
        Some(WindowsBefore {
            owner,
            ids: listed.into_iter().map(|w| w.id).collect(),
        })
    }

    /// Whether `now` lists another window of the acted window's application (by process).
    pub(crate) fn has_sibling(&self, window: &WindowId, now: &[WindowInfo]) -> bool {
        self.owner
            .pid
            .is_some_and(|pid| now.iter().any(|w| &w.id != window && w.pid == Some(pid)))
    }

    /// The first window of `now` that was not listed before and belongs to the same
    /// application: the same process where both are known, else the same application name.
    pub(crate) fn opened(&self, now: &[WindowInfo]) -> Option<Opened> {
        now.iter()
            .filter(|w| !self.ids.contains(&w.id))
            .find(|w| match (w.pid, self.owner.pid) {
                (Some(a), Some(b)) => a == b,
                _ => !w.app.is_empty() && w.app == self.owner.app,
            })
            .map(|w| Opened {
                window_id: w.id.clone(),
                title: w.title.clone(),
            })
    }
}

/// The windows listed now, as the baseline of the next step's effect watch (`None` when
/// the listing fails: then no window is reported as opened).
pub(crate) async fn windows_before(service: &Service, window: &WindowId) -> Option<WindowsBefore> {
    let listed = service.backend.shown_windows().await.ok()?;
    WindowsBefore::new(window, listed)
}

/// Whether a closed window's application ended with it: it has no window left and its
/// process has ended (within [`EXIT_GRACE`]).
pub(crate) async fn app_exited(
    service: &Service,
    windows: Option<&WindowsBefore>,
    listed: Option<&[WindowInfo]>,
) -> bool {
    let Some(pid) = windows.and_then(|w| w.owner.pid) else {
        return false;
    };
    if listed.is_some_and(|all| all.iter().any(|w| w.pid == Some(pid))) {
        return false;
    }
    let deadline = Instant::now() + EXIT_GRACE;
    loop {
        match service.backend.process_running(pid).await {
            Some(false) => return true,
            None => return false,
            Some(true) if Instant::now() >= deadline => return false,
            Some(true) => tokio::time::sleep(Duration::from_millis(25)).await,
        }
    }
}
