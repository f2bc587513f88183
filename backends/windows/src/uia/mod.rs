//! [`WindowsBackend`]: UI Automation on a COM thread the backend owns, plus Win32 for windows,
//! input (SendInput) and capture (PrintWindow), behind the `Backend` trait.
//!
//! Nothing connects until the first GUI call. Every call first checks the desktop can be
//! driven ([`crate::session`]): a locked workstation or a disconnected Remote Desktop session
//! answers `GUI_UNAVAILABLE` with the fix instead of hanging or acting on nothing.

mod capture;
mod input;
mod probe;
mod thread;
mod tree;
mod watch;
mod win32;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use cu_core::model::backend::{
    Backend, BackendInfo, Capabilities, HealthCheck, InputEvent, SemanticAction, Watch,
    WindowChange, WindowImage,
};
use cu_core::model::element::{DesktopInstance, ElementIdentity, Snapshot, SnapshotOptions};
use cu_core::model::geometry::Point;
use cu_core::model::receiver::Probe;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::queued::Heard;
use cu_core::{Error, ErrorCode, Result};

use crate::{dpi, ids, listing};
use thread::ComThread;
use win32::Listed;

/// How long one semantic action may take on the COM thread.
const ACTION_TIMEOUT: Duration = Duration::from_secs(10);

/// The Windows desktop backend (UI Automation + Win32).
pub struct WindowsBackend {
    /// The COM thread, started on first use and replaced after a job hangs on it.
    com: Mutex<Option<Arc<ComThread>>>,
    desktop: DesktopInstance,
    clipboard: Arc<cu_clipboard::Clipboard>,
    /// Per window (`HWND` and its process, as handles are reused): whether it was seen
    /// sending events to this process.
    heard: Mutex<HashMap<(isize, u32), Heard>>,
}

impl Default for WindowsBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl WindowsBackend {
    /// A backend that has not connected to anything yet.
    pub fn new() -> WindowsBackend {
        let computer = std::env::var("COMPUTERNAME").unwrap_or_default();
        WindowsBackend {
            com: Mutex::new(None),
            desktop: DesktopInstance(format!("windows-{computer}-{}", win32::session_id())),
            clipboard: Arc::default(),
            heard: Mutex::default(),
        }
    }

    /// The COM thread, started on first use.
    async fn com(&self) -> Result<Arc<ComThread>> {
        if let Some(com) = self.com.lock().ok().and_then(|c| c.clone()) {
            return Ok(com);
        }
        let started = Arc::new(blocking(ComThread::start).await?);
        let mut slot = self
            .com
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "the COM thread slot is poisoned"))?;
        Ok(slot.get_or_insert(started).clone())
    }

    /// Runs a UI Automation job. A job that times out leaves its thread stuck inside the hung
    /// application, so the thread is let go (it ends once the call returns) and the next call
    /// starts a fresh one: one hung app costs one `TIMEOUT`, not every later call.
    async fn uia<T: Send + 'static>(
        &self,
        timeout: Duration,
        job: impl FnOnce(&uiautomation::UIAutomation) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let com = self.com().await?;
        let result = com.run(timeout, job).await;
        if result.as_ref().is_err_and(|e| e.code == ErrorCode::Timeout) {
            if let Ok(mut slot) = self.com.lock() {
                if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, &com)) {
                    *slot = None;
                }
            }
        }
        result
    }

    /// Window `hwnd` of process `pid`: its record of having sent events.
    fn heard(&self, hwnd: isize, pid: u32) -> Heard {
        self.heard
            .lock()
            .map(|mut all| all.entry((hwnd, pid)).or_default().clone())
            .unwrap_or_default()
    }

    /// The window as Win32 sees it now, after checking the desktop can be driven.
    async fn window(&self, id: &WindowId) -> Result<Listed> {
        let hwnd = ids::parse_window_id(id)?;
        blocking(move || {
            win32::ready()?;
            win32::describe(hwnd, win32::foreground()).ok_or_else(|| {
                Error::new(ErrorCode::WindowNotFound, "the window has closed")
                    .with_suggestion("Call gui_list and use a current window id.")
            })
        })
        .await
    }
}

/// Where a listed window is, for making element bounds window-relative.
fn frame_of(listed: &Listed) -> tree::Frame {
    tree::Frame {
        physical: listed.frame,
        dpi: listed.dpi,
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("blocking task failed: {e}")))?
}

fn info_of(l: &Listed) -> WindowInfo {
    WindowInfo {
        id: ids::window_id(l.hwnd),
        app: listing::app_name(&l.top),
        title: l.top.title.clone(),
        pid: Some(l.pid),
        bounds: Some(dpi::to_logical(l.frame, l.dpi)),
        focused: l.focused,
        minimized: l.minimized,
        no_tree: false,
    }
}

#[async_trait]
impl Backend for WindowsBackend {
    async fn info(&self) -> Result<BackendInfo> {
        self.com().await?;
        Ok(BackendInfo {
            name: "windows-uia".into(),
            capabilities: Capabilities {
                accessibility_tree: true,
                semantic_actions: true,
                pointer_input: true,
                keyboard_input: true,
                capture: true,
                window_positions: true,
            },
            desktop: self.desktop.clone(),
        })
    }

    async fn health(&self) -> Vec<HealthCheck> {
        let uia = self.com().await;
        let desktop = blocking(win32::ready).await;
        vec![
            HealthCheck::from_result(
                "ui_automation",
                &uia.map(|_| ()),
                "UI Automation client running on its COM thread",
            ),
            HealthCheck::from_result(
                "desktop",
                &desktop,
                "the input desktop is the user's, and the session is connected",
            ),
        ]
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        let listed = blocking(|| {
            win32::ready()?;
            win32::app_windows()
        })
        .await?;
        Ok(listed.iter().map(info_of).collect())
    }

    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        let listed = self.window(window).await?;
        let started = Instant::now();
        let frame = frame_of(&listed);
        let class = listed.top.class.clone();
        let hwnd = listed.hwnd;
        let opts = options.clone();
        let timeout = Duration::from_millis(options.time_budget_ms) + Duration::from_secs(5);
        let (nodes, truncated) = self
            .uia(timeout, move |automation| {
                tree::snapshot(automation, hwnd, &class, frame, &opts)
            })
            .await?;
        let mut snapshot = Snapshot::new(
            info_of(&listed),
            self.desktop.clone(),
            (nodes, truncated),
            started,
        );
        if options.subtree.is_none() {
            snapshot.pin_root_to_window();
        }
        Ok(snapshot)
    }

    async fn perform(
        &self,
        window: &WindowId,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()> {
        let hwnd = self.window(window).await?.hwnd;
        let identity = element.clone();
        let action = action.clone();
        self.uia(ACTION_TIMEOUT, move |automation| {
            let target = tree::find(automation, hwnd, &identity)?;
            tree::perform(&target, &action)
        })
        .await
    }

    async fn input(&self, window: &WindowId, event: &InputEvent) -> Result<()> {
        let listed = self.window(window).await?;
        let event = event.clone();
        blocking(move || {
            win32::activate(listed.hwnd)?;
            // Activation can restore or move the window: place the points on where it is now.
            let now = win32::describe(listed.hwnd, 0)
                .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has closed"))?;
            if now.frame.width != listed.frame.width || now.frame.height != listed.frame.height {
                return Err(Error::new(
                    ErrorCode::WindowMoved,
                    "the window changed size when it came to the front",
                ));
            }
            let place = input::Placement {
                frame: now.frame,
                dpi: now.dpi,
            };
            input::send(place, &event)
        })
        .await
    }

    async fn capture(&self, window: &WindowId) -> Result<WindowImage> {
        let hwnd = self.window(window).await?.hwnd;
        blocking(move || capture::capture(hwnd)).await
    }

    async fn activate(&self, window: &WindowId) -> Result<()> {
        let hwnd = self.window(window).await?.hwnd;
        blocking(move || win32::activate(hwnd)).await
    }

    async fn read_clipboard(&self) -> Result<String> {
        let clipboard = self.clipboard.clone();
        blocking(move || clipboard.read()).await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        let (clipboard, text) = (self.clipboard.clone(), text.to_owned());
        blocking(move || clipboard.write(&text)).await
    }

    async fn change_window(&self, window: &WindowId, change: &WindowChange) -> Result<()> {
        let hwnd = self.window(window).await?.hwnd;
        let change = *change;
        blocking(move || win32::change(hwnd, &change)).await
    }

    async fn watch(&self, window: &WindowId) -> Result<Box<dyn Watch>> {
        let listed = self.window(window).await?;
        let hwnd = listed.hwnd;
        // The thread that registers the handlers is the one that must remove them.
        let com = self.com().await?;
        let heard = self.heard(hwnd, listed.pid);
        let (tx, queue) = cu_core::queued::queue(heard);
        let id = self
            .uia(ACTION_TIMEOUT, move |automation| {
                watch::subscribe(automation, hwnd, tx)
            })
            .await?;
        Ok(Box::new(watch::UiaWatch {
            id,
            hwnd,
            queue,
            com,
        }))
    }

    async fn element_at(&self, window: &WindowId, at: Point) -> Result<Probe> {
        let listed = self.window(window).await?;
        let (frame, hwnd) = (frame_of(&listed), listed.hwnd);
        self.uia(ACTION_TIMEOUT, move |automation| {
            probe::element_at(automation, hwnd, frame, at)
        })
        .await
    }

    async fn focused(&self, window: &WindowId) -> Result<Probe> {
        let listed = self.window(window).await?;
        let (frame, hwnd) = (frame_of(&listed), listed.hwnd);
        self.uia(ACTION_TIMEOUT, move |automation| {
            probe::focused(automation, hwnd, frame)
        })
        .await
    }
}
