//! [`MacBackend`]: Accessibility (AXUIElement) for windows, trees and actions, Quartz events for
//! input, and the window server for the window list and captures, behind the `Backend` trait.
//!
//! AX calls may block for as long as the target app takes to answer (bounded by a 2 s messaging
//! timeout per call), so every call runs on tokio's blocking pool. Nothing connects until the
//! first GUI call, which checks the Accessibility permission and says how to grant it.

mod capture;
mod element;
mod input;
mod probe;
mod tree;
mod watch;
mod windows;

use std::collections::{HashMap, HashSet};
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

use crate::{ids, permissions, translate};
use element::AxElement;
use windows::Listed;

/// The macOS desktop backend (AX + Quartz).
pub struct MacBackend {
    desktop: DesktopInstance,
    /// Apps whose Chromium accessibility was switched on by us (AXManualAccessibility).
    enhanced: Arc<Mutex<HashSet<i32>>>,
    clipboard: Arc<cu_clipboard::Clipboard>,
    /// Per application (pid): whether it was seen sending notifications to this process.
    heard: Mutex<HashMap<i32, Heard>>,
}

impl Default for MacBackend {
    fn default() -> Self {
        Self::new()
    }
}

#[link(name = "ApplicationServices", kind = "framework")]
extern "C" {
    fn AXIsProcessTrusted() -> bool;
}

fn host() -> String {
    permissions::host_app(
        std::env::var("__CFBundleIdentifier").ok().as_deref(),
        std::env::var("TERM_PROGRAM").ok().as_deref(),
    )
}

fn trusted() -> Result<()> {
    // SAFETY: a plain query with no arguments.
    if unsafe { AXIsProcessTrusted() } {
        Ok(())
    } else {
        Err(permissions::accessibility_denied(&host()))
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("blocking task failed: {e}")))?
}

fn info_of(l: &Listed) -> WindowInfo {
    WindowInfo {
        id: ids::window_id(l.cg.number),
        app: l.cg.owner.clone(),
        title: if l.title.is_empty() {
            l.cg.name.clone()
        } else {
            l.title.clone()
        },
        pid: u32::try_from(l.cg.pid).ok(),
        bounds: Some(l.cg.bounds),
        focused: l.focused,
        minimized: l.minimized,
        no_tree: false,
    }
}

/// The window as it is now, after the permission check.
fn window(id: &WindowId) -> Result<Listed> {
    let number = ids::parse_window_id(id)?;
    trusted()?;
    windows::find(number).ok_or_else(|| {
        Error::new(ErrorCode::WindowNotFound, "the window has closed")
            .with_suggestion("Call gui_list and use a current window id.")
    })
}

/// Moves, sizes, minimizes, zooms, restores or closes a window through its AX attributes and
/// title-bar buttons (focus is [`activate_now`]).
fn change_now(l: &Listed, change: &WindowChange) -> Result<()> {
    use core_graphics::geometry::{CGPoint, CGSize};
    use element::Geometry;
    let failed = |what: &str, code: accessibility_sys::AXError| {
        Error::new(
            ErrorCode::ActionFailed,
            format!("the window refused {what} (AXError {code})"),
        )
    };
    let press = |button: &str| match l.element.attribute(button) {
        Ok(element::AxValue::Element(b)) => b.perform("AXPress").map_err(|c| failed(button, c)),
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!("this window has no {button}"),
        )),
    };
    match change {
        WindowChange::Focus => activate_now(l),
        WindowChange::Move { to } => l
            .element
            .set_geometry(
                "AXPosition",
                Geometry::Point(CGPoint::new(f64::from(to.x), f64::from(to.y))),
            )
            .map_err(|c| failed("AXPosition", c)),
        WindowChange::Resize { size } => l
            .element
            .set_geometry(
                "AXSize",
                Geometry::Size(CGSize::new(f64::from(size.width), f64::from(size.height))),
            )
            .map_err(|c| failed("AXSize", c)),
        WindowChange::Minimize => l
            .element
            .set_bool("AXMinimized", true)
            .map_err(|c| failed("AXMinimized", c)),
        WindowChange::Restore => l
            .element
            .set_bool("AXMinimized", false)
            .map_err(|c| failed("AXMinimized", c)),
        WindowChange::Maximize => press("AXZoomButton"),
        WindowChange::Close => press("AXCloseButton"),
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!("{change:?} is not known to the macOS backend"),
        )),
    }
}

fn activate_now(l: &Listed) -> Result<()> {
    if l.minimized {
        let _ = l.element.set_bool("AXMinimized", false);
    }
    if let Some(app) = AxElement::application(l.cg.pid) {
        let _ = app.set_bool("AXFrontmost", true);
    }
    let _ = l.element.perform("AXRaise");
    let _ = l.element.set_bool("AXMain", true);
    let deadline = Instant::now() + Duration::from_millis(800);
    while Instant::now() < deadline {
        if windows::front_window() == Some(l.cg.number) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Err(Error::new(
        ErrorCode::ActionFailed,
        "macOS did not bring the window to the front, so input was not sent (it would have gone to another window)",
    )
    .with_suggestion("Click the window once, then retry; element actions work without focus."))
}

impl MacBackend {
    /// A backend that has not connected to anything yet.
    pub fn new() -> MacBackend {
        MacBackend {
            desktop: DesktopInstance(format!(
                "macos-{}",
                std::env::var("USER").unwrap_or_default()
            )),
            enhanced: Arc::new(Mutex::new(HashSet::new())),
            clipboard: Arc::default(),
            heard: Mutex::default(),
        }
    }
}

/// Switches on Chromium's accessibility tree in `pid` once (Electron apps build it only for
/// assistive technology): `AXManualAccessibility`, else `AXEnhancedUserInterface`. True when it
/// was switched on now.
fn enhance(enhanced: &Mutex<HashSet<i32>>, pid: i32) -> bool {
    let Ok(mut done) = enhanced.lock() else {
        return false;
    };
    if !done.insert(pid) {
        return false;
    }
    let Some(app) = AxElement::application(pid) else {
        return false;
    };
    app.set_bool("AXManualAccessibility", true).is_ok()
        || app.set_bool("AXEnhancedUserInterface", true).is_ok()
}

#[async_trait]
impl Backend for MacBackend {
    async fn info(&self) -> Result<BackendInfo> {
        blocking(trusted).await?;
        Ok(BackendInfo {
            name: "macos-ax".into(),
            capabilities: Capabilities {
                accessibility_tree: true,
                semantic_actions: true,
                pointer_input: true,
                keyboard_input: true,
                capture: capture::may_record_screen(),
                window_positions: true,
            },
            desktop: self.desktop.clone(),
        })
    }

    async fn health(&self) -> Vec<HealthCheck> {
        let ax = blocking(trusted).await;
        let screen = if capture::may_record_screen() {
            Ok(())
        } else {
            Err(permissions::screen_recording_denied(&host()))
        };
        vec![
            HealthCheck::from_result("accessibility_permission", &ax, "granted"),
            HealthCheck::from_result("screen_recording_permission", &screen, "granted"),
        ]
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        blocking(|| {
            trusted()?;
            Ok(windows::list().iter().map(info_of).collect())
        })
        .await
    }

    async fn snapshot(&self, id: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        let id = id.clone();
        let opts = options.clone();
        let started = Instant::now();
        let enhanced = self.enhanced.clone();
        let (info, walked) = blocking(move || {
            let l = window(&id)?;
            let mut walked = tree::snapshot(&l.element, l.cg.bounds, &opts);
            let thin = walked
                .as_ref()
                .is_none_or(|(nodes, _)| translate::tree_too_thin(nodes.len()));
            if thin && opts.subtree.is_none() && enhance(&enhanced, l.cg.pid) {
                // Chromium builds its tree asynchronously once asked.
                std::thread::sleep(Duration::from_millis(400));
                walked = tree::snapshot(&l.element, l.cg.bounds, &opts);
            }
            Ok((info_of(&l), walked))
        })
        .await?;
        let (nodes, truncated) = walked.ok_or_else(|| {
            Error::new(
                ErrorCode::Timeout,
                "the window's AX element does not answer",
            )
            .with_suggestion("The application may be busy; try again.")
        })?;
        let mut snapshot = Snapshot::new(info, self.desktop.clone(), (nodes, truncated), started);
        if options.subtree.is_none() {
            snapshot.pin_root_to_window();
        }
        Ok(snapshot)
    }

    async fn perform(
        &self,
        id: &WindowId,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()> {
        let (id, element, action) = (id.clone(), element.clone(), action.clone());
        blocking(move || {
            let l = window(&id)?;
            let path = ids::parse_element_identity(&element)?;
            let target = tree::find(&l.element, &path)?;
            tree::perform(&target, &action)
        })
        .await
    }

    async fn input(&self, id: &WindowId, event: &InputEvent) -> Result<()> {
        let (id, event) = (id.clone(), event.clone());
        blocking(move || {
            let l = window(&id)?;
            activate_now(&l)?;
            let now = windows::find(l.cg.number)
                .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has closed"))?;
            if now.cg.bounds.width != l.cg.bounds.width
                || now.cg.bounds.height != l.cg.bounds.height
            {
                return Err(Error::new(
                    ErrorCode::WindowMoved,
                    "the window changed size when it came to the front",
                ));
            }
            input::send(now.cg.bounds, &event)
        })
        .await
    }

    async fn capture(&self, id: &WindowId) -> Result<WindowImage> {
        let id = id.clone();
        blocking(move || {
            let l = window(&id)?;
            if l.minimized {
                return Err(Error::new(
                    ErrorCode::ImageWindowMinimized,
                    "the window is minimized: it has no pixels to capture",
                ));
            }
            if !capture::may_record_screen() {
                return Err(permissions::screen_recording_denied(&host()));
            }
            capture::capture(l.cg.number, l.cg.bounds)
        })
        .await
    }

    async fn activate(&self, id: &WindowId) -> Result<()> {
        let id = id.clone();
        blocking(move || activate_now(&window(&id)?)).await
    }

    async fn read_clipboard(&self) -> Result<String> {
        let clipboard = self.clipboard.clone();
        blocking(move || clipboard.read()).await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        let (clipboard, text) = (self.clipboard.clone(), text.to_owned());
        blocking(move || clipboard.write(&text)).await
    }

    async fn change_window(&self, id: &WindowId, change: &WindowChange) -> Result<()> {
        let (id, change) = (id.clone(), *change);
        blocking(move || change_now(&window(&id)?, &change)).await
    }

    async fn watch(&self, id: &WindowId) -> Result<Box<dyn Watch>> {
        let id = id.clone();
        let (pid, number) = blocking(move || window(&id).map(|l| (l.cg.pid, l.cg.number))).await?;
        let heard = self
            .heard
            .lock()
            .map(|mut all| all.entry(pid).or_default().clone())
            .unwrap_or_default();
        let watch = blocking(move || watch::watch(pid, number, heard)).await?;
        Ok(Box::new(watch))
    }

    async fn element_at(&self, id: &WindowId, at: Point) -> Result<Probe> {
        let id = id.clone();
        blocking(move || {
            let l = window(&id)?;
            probe::element_at(l.cg.pid, &l.element, l.cg.bounds, at)
        })
        .await
    }

    async fn focused(&self, id: &WindowId) -> Result<Probe> {
        let id = id.clone();
        blocking(move || {
            let l = window(&id)?;
            probe::focused(l.cg.pid, &l.element, l.cg.bounds)
        })
        .await
    }
}
