//! [`LinuxBackend`]: the AT-SPI tree layer plus the X11 input/capture path behind the `Backend`
//! trait, connected lazily on the first GUI call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cu_core::backend::{
    Backend, BackendInfo, Capabilities, HealthCheck, InputEvent, SemanticAction, WindowImage,
};
use cu_core::element::{DesktopInstance, ElementIdentity, Snapshot, SnapshotOptions};
use cu_core::geometry::{Point, Rect};
use cu_core::receiver::Probe;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use tokio::sync::OnceCell;

use crate::atspi::walk::{self, Placement};
use crate::atspi::{act, probe, Atspi, ObjRef};
use crate::keys;
use crate::session_env::SessionEnv;
use crate::translate::{atspi_role, atspi_state, Toolkit};
use crate::x11::{XWindow, X11};

#[cfg(feature = "portal")]
mod wayland;

/// The Linux desktop backend (AT-SPI + X11).
pub struct LinuxBackend {
    connected: OnceCell<Arc<Connected>>,
}

struct Connected {
    atspi: Atspi,
    x11: Option<Arc<X11>>,
    /// The Wayland input/capture path (a Wayland session, feature `portal`).
    #[cfg(feature = "portal")]
    portal: Option<Arc<crate::portal::Portal>>,
    /// The last window found in its stream (window, when, stream node, surface rectangle), so
    /// the coordinate check and the input right after it read one frame, not two.
    #[cfg(feature = "portal")]
    located: Mutex<Option<(WindowId, std::time::Instant, u32, Rect)>>,
    desktop: DesktopInstance,
    windows: Mutex<HashMap<WindowId, WindowEntry>>,
}

/// What a window id resolves to.
#[derive(Debug, Clone)]
struct WindowEntry {
    frame: ObjRef,
    xid: Option<u32>,
    toolkit: Toolkit,
    info: WindowInfo,
}

impl WindowEntry {
    /// How extents of this window's elements map to window-relative pixels.
    fn placement(&self) -> Placement {
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

impl Default for LinuxBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl LinuxBackend {
    /// A backend that has not connected to anything yet.
    pub fn new() -> LinuxBackend {
        LinuxBackend {
            connected: OnceCell::new(),
        }
    }

    async fn connected(&self) -> Result<Arc<Connected>> {
        self.connected
            .get_or_try_init(|| async { Connected::connect().await.map(Arc::new) })
            .await
            .cloned()
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("blocking task failed: {e}")))?
}

impl Connected {
    async fn connect() -> Result<Connected> {
        let env = tokio::task::spawn_blocking(SessionEnv::discover)
            .await
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        if env.display.is_none() && env.wayland_display.is_none() {
            return Err(Error::new(ErrorCode::GuiUnavailable, "no graphical session: DISPLAY and WAYLAND_DISPLAY are unset, and systemd --user has none")
                .with_suggestion("Run inside the desktop session, or export DISPLAY and DBUS_SESSION_BUS_ADDRESS of the session you want to drive."));
        }
        // A Wayland session uses the portal path even when Xwayland offers a DISPLAY: X11
        // input and capture do not reach native Wayland windows.
        let wayland = env.is_wayland();
        let x11 = match env.display.clone().filter(|_| !wayland) {
            Some(display) => Some(Arc::new(blocking(move || X11::connect(&display)).await?)),
            None => None,
        };
        let x_prop = x11.as_ref().and_then(|x| x.atspi_bus_property());
        let atspi = Atspi::connect(env.a11y_bus.as_deref(), env.session_bus.as_deref(), || {
            x_prop
        })
        .await?;
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        let display = env
            .display
            .clone()
            .or(env.wayland_display.clone())
            .unwrap_or_default();
        let desktop = DesktopInstance(format!(
            "linux-{:016x}",
            fnv1a(&[boot.trim(), &display, &atspi.address].join("\n"))
        ));
        tracing::debug!(?env, desktop = %desktop.0, "connected to the desktop");
        Ok(Connected {
            atspi,
            x11,
            #[cfg(feature = "portal")]
            portal: wayland.then(|| Arc::new(crate::portal::Portal::new(env.session_bus.clone()))),
            #[cfg(feature = "portal")]
            located: Mutex::new(None),
            desktop,
            windows: Mutex::new(HashMap::new()),
        })
    }

    fn x11(&self) -> Result<Arc<X11>> {
        self.x11.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                "raw input and capture need X11; this session has no X display",
            )
            .with_suggestion("Use semantic actions (element ids) instead of coordinates.")
        })
    }

    async fn x_windows(&self) -> Result<Vec<XWindow>> {
        match &self.x11 {
            Some(x) => {
                let x = x.clone();
                blocking(move || x.client_windows()).await
            }
            None => Ok(Vec::new()),
        }
    }

    /// Lists windows and refreshes the id map.
    async fn list(&self) -> Result<Vec<WindowInfo>> {
        let (xwins, frames) = tokio::join!(self.x_windows(), self.atspi_frames());
        let xwins = xwins?;
        let frames = frames?;
        for f in &frames {
            tracing::debug!(title = %f.title, pid = ?f.pid, showing = f.showing, "accessible frame");
        }
        let active = match &self.x11 {
            Some(x) => {
                let x = x.clone();
                blocking(move || Ok(x.active_window())).await?
            }
            None => None,
        };
        let mut entries: Vec<WindowEntry> = Vec::new();
        let mut used = vec![false; frames.len()];
        let pick = |pred: &dyn Fn(&Frame) -> bool, used: &mut Vec<bool>| -> Option<usize> {
            let i = frames
                .iter()
                .enumerate()
                .position(|(i, f)| !used[i] && pred(f))?;
            used[i] = true;
            Some(i)
        };
        for xw in &xwins {
            let same_pid = |f: &Frame| f.pid.is_some() && f.pid == xw.pid;
            let found = pick(&|f| same_pid(f) && f.title == xw.title, &mut used)
                .or_else(|| {
                    pick(
                        &|f| {
                            same_pid(f)
                                && f.showing
                                && xwins.iter().filter(|o| o.pid == xw.pid).count() == 1
                        },
                        &mut used,
                    )
                })
                .or_else(|| {
                    pick(
                        &|f| f.pid.is_none() && f.title == xw.title && !f.title.is_empty(),
                        &mut used,
                    )
                });
            let Some(i) = found else { continue };
            let f = &frames[i];
            let info = WindowInfo {
                id: WindowId(format!("x11:0x{:x}", xw.id)),
                app: if f.app_name.is_empty() {
                    xw.class.clone()
                } else {
                    f.app_name.clone()
                },
                title: if xw.title.is_empty() {
                    f.title.clone()
                } else {
                    xw.title.clone()
                },
                pid: xw.pid.or(f.pid),
                bounds: Some(xw.bounds),
                focused: active == Some(xw.id),
                minimized: xw.minimized,
            };
            entries.push(WindowEntry {
                frame: f.obj.clone(),
                xid: Some(xw.id),
                toolkit: f.toolkit,
                info,
            });
        }
        if self.x11.is_none() {
            // No X11 (Wayland): the accessibility frames are the windows; positions are unknown.
            // The compositor's own nameless frame (GNOME Shell's stage) is no app window.
            const SHELLS: &[&str] = &["gnome-shell", "mutter", "kwin_wayland", "plasmashell"];
            let own_ui = |f: &Frame| f.title.is_empty() && SHELLS.contains(&f.app_name.as_str());
            for f in frames.iter().filter(|f| f.showing && !own_ui(f)) {
                let info = WindowInfo {
                    id: WindowId(format!("atspi:{}|{}", f.obj.bus, f.obj.path.as_str())),
                    app: f.app_name.clone(),
                    title: f.title.clone(),
                    pid: f.pid,
                    bounds: None,
                    focused: f.active,
                    minimized: f.iconified,
                };
                entries.push(WindowEntry {
                    frame: f.obj.clone(),
                    xid: None,
                    toolkit: Toolkit {
                        window_relative_extents: true,
                        ..f.toolkit
                    },
                    info,
                });
            }
        }
        let out = entries.iter().map(|e| e.info.clone()).collect();
        if let Ok(mut map) = self.windows.lock() {
            map.clear();
            map.extend(entries.into_iter().map(|e| (e.info.id.clone(), e)));
        }
        Ok(out)
    }

    async fn atspi_frames(&self) -> Result<Vec<Frame>> {
        let apps = self.atspi.applications().await?;
        let per_app = apps.into_iter().map(|app| async move {
            let (name, kids, pid, rel) = tokio::join!(
                self.atspi.name(&app),
                self.atspi.children(&app),
                self.atspi.pid_of(&app.bus),
                self.atspi.toolkit(&app),
            );
            let kids = kids.unwrap_or_else(|e| {
                tracing::debug!("application {} lists no windows: {}", app.bus, e.message);
                Vec::new()
            });
            let frames = kids.into_iter().map(|obj| {
                let app_name = name.clone().unwrap_or_default();
                async move {
                    let (title, role, states) = tokio::join!(
                        self.atspi.name(&obj),
                        self.atspi.role(&obj),
                        self.atspi.states(&obj)
                    );
                    let role = match role {
                        Ok(r) => r,
                        Err(e) => {
                            tracing::debug!("skipping {}: {}", obj.path.as_str(), e.message);
                            return None;
                        }
                    };
                    if !matches!(
                        role,
                        atspi_role::FRAME
                            | atspi_role::WINDOW
                            | atspi_role::DIALOG
                            | atspi_role::ALERT
                            | atspi_role::FILE_CHOOSER
                            | atspi_role::FILLER
                            | atspi_role::PANEL
                    ) {
                        return None;
                    }
                    let states = states.unwrap_or_default();
                    Some(Frame {
                        obj,
                        app_name,
                        title: title.unwrap_or_default(),
                        pid,
                        toolkit: rel,
                        showing: states.has(atspi_state::SHOWING)
                            || states.has(atspi_state::VISIBLE),
                        active: states.has(atspi_state::ACTIVE),
                        iconified: states.has(atspi_state::ICONIFIED),
                    })
                }
            });
            futures_util::future::join_all(frames)
                .await
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
        });
        Ok(futures_util::future::join_all(per_app)
            .await
            .into_iter()
            .flatten()
            .collect())
    }

    async fn entry(&self, id: &WindowId) -> Result<WindowEntry> {
        let cached = self.windows.lock().ok().and_then(|m| m.get(id).cloned());
        if let Some(e) = cached {
            return Ok(e);
        }
        let windows = self.list().await?;
        self.windows
            .lock()
            .ok()
            .and_then(|m| m.get(id).cloned())
            .ok_or_else(|| {
                let ids: Vec<String> = windows
                    .iter()
                    .map(|w| format!("{} ({})", w.id, w.title))
                    .collect();
                Error::new(ErrorCode::WindowNotFound, format!("no window {id}"))
                    .with_details(serde_json::json!({ "windows": ids }))
            })
    }

    /// The entry with fresh X11 geometry; `WINDOW_NOT_FOUND` if the window closed or its app died.
    async fn live_entry(&self, id: &WindowId) -> Result<WindowEntry> {
        let mut entry = self.entry(id).await?;
        if let (Some(xid), Some(x)) = (entry.xid, self.x11.clone()) {
            let xw = blocking(move || x.describe(xid)).await.map_err(|_| {
                self.forget(id);
                Error::new(ErrorCode::WindowNotFound, format!("window {id} has closed"))
            })?;
            entry.info.bounds = Some(xw.bounds);
            entry.info.minimized = xw.minimized;
            entry.info.title = xw.title;
        }
        if self.atspi.role(&entry.frame).await.is_err() {
            self.forget(id);
            return Err(Error::new(ErrorCode::WindowNotFound, format!("window {id} no longer answers on the accessibility bus (closed, or its application exited)")));
        }
        Ok(entry)
    }

    /// The X11 connection, the live entry and its X window, for input, capture and activation.
    async fn x_target(&self, id: &WindowId, what: &str) -> Result<(Arc<X11>, WindowEntry, u32)> {
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

    fn forget(&self, id: &WindowId) {
        if let Ok(mut m) = self.windows.lock() {
            m.remove(id);
        }
    }

    /// Converts a window-relative point to root coordinates, refusing points outside the window.
    fn to_root(entry: &WindowEntry, p: Point) -> Result<Point> {
        let bounds = entry.info.bounds.ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                "this window's position is unknown, so coordinates cannot be used",
            )
            .with_suggestion("Act on an element id instead.")
        })?;
        let local = Rect::new(0, 0, bounds.width, bounds.height);
        if !local.contains(p) {
            return Err(Error::new(
                ErrorCode::OutOfWindow,
                format!(
                    "({}, {}) is outside the window (0, 0, {}, {})",
                    p.x, p.y, bounds.width, bounds.height
                ),
            ));
        }
        Ok(Point::new(bounds.x + p.x, bounds.y + p.y))
    }
}

struct Frame {
    obj: ObjRef,
    app_name: String,
    title: String,
    pid: Option<u32>,
    toolkit: Toolkit,
    showing: bool,
    active: bool,
    iconified: bool,
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[async_trait]
impl Backend for LinuxBackend {
    async fn info(&self) -> Result<BackendInfo> {
        let c = self.connected().await?;
        let x = c.x11.is_some();
        #[cfg(feature = "portal")]
        let portal = c.portal.is_some();
        #[cfg(not(feature = "portal"))]
        let portal = false;
        Ok(BackendInfo {
            name: if x {
                "linux-atspi-x11".into()
            } else if portal {
                "linux-atspi-portal".into()
            } else {
                "linux-atspi".into()
            },
            capabilities: Capabilities {
                accessibility_tree: true,
                semantic_actions: true,
                pointer_input: x || portal,
                keyboard_input: x || portal,
                capture: x || portal,
                window_positions: x,
            },
            desktop: c.desktop.clone(),
        })
    }

    async fn health(&self) -> Vec<HealthCheck> {
        let env = tokio::task::spawn_blocking(SessionEnv::discover)
            .await
            .unwrap_or_default();
        let mut checks = vec![HealthCheck {
            name: "session".into(),
            ok: env.display.is_some() || env.wayland_display.is_some(),
            detail: format!(
                "DISPLAY={} WAYLAND_DISPLAY={} XDG_SESSION_TYPE={} (from {})",
                env.display.as_deref().unwrap_or("-"),
                env.wayland_display.as_deref().unwrap_or("-"),
                env.session_type.as_deref().unwrap_or("-"),
                env.source
            ),
        }];
        if let Some(display) = env.display.clone() {
            let probe = blocking(move || {
                X11::connect(&display).map(|x| x.client_windows().map(|w| w.len()).unwrap_or(0))
            })
            .await;
            checks.push(HealthCheck {
                name: "display".into(),
                ok: probe.is_ok(),
                detail: match probe {
                    Ok(n) => format!(
                        "X11 display {} reachable, {n} client windows",
                        env.display.as_deref().unwrap_or_default()
                    ),
                    Err(e) => e.message,
                },
            });
        }
        match self.connected().await {
            Ok(c) => {
                let apps = c.atspi.children(&Atspi::desktop()).await;
                checks.push(HealthCheck {
                    name: "atspi_bus".into(),
                    ok: apps.is_ok(),
                    detail: match apps {
                        Ok(a) => format!(
                            "AT-SPI registry at {} answers, {} applications registered",
                            c.atspi.address,
                            a.len()
                        ),
                        Err(e) => format!(
                            "AT-SPI registry at {} does not answer: {}",
                            c.atspi.address, e.message
                        ),
                    },
                });
            }
            Err(e) => checks.push(HealthCheck {
                name: "atspi_bus".into(),
                ok: false,
                detail: e.message,
            }),
        }
        checks
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        self.connected().await?.list().await
    }

    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        let c = self.connected().await?;
        let started = std::time::Instant::now();
        let entry = c.live_entry(window).await?;
        let placement = entry.placement();
        let root = match &options.subtree {
            Some(id) => {
                let obj = ObjRef::from_identity(id)?;
                if obj.bus != entry.frame.bus {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        "that element belongs to another application's window",
                    ));
                }
                obj
            }
            None => entry.frame.clone(),
        };
        let (nodes, truncated) = walk::walk(&c.atspi, root, placement, options)
            .await
            .map_err(|e| {
                if e.code == ErrorCode::ElementNotFound && options.subtree.is_none() {
                    Error::new(
                        ErrorCode::WindowNotFound,
                        format!("window {window} closed during the snapshot"),
                    )
                } else {
                    e
                }
            })?;
        Ok(Snapshot {
            window: entry.info,
            desktop: c.desktop.clone(),
            nodes,
            truncated,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }

    async fn perform(
        &self,
        window: &WindowId,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        let obj = ObjRef::from_identity(element)?;
        if obj.bus != entry.frame.bus {
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!("element {} does not belong to window {window}", element.0),
            ));
        }
        act::perform(&c.atspi, &obj, action).await
    }

    async fn input(&self, window: &WindowId, event: &InputEvent) -> Result<()> {
        let c = self.connected().await?;
        #[cfg(feature = "portal")]
        if c.x11.is_none() {
            return c.portal_input(window, event).await;
        }
        let (x, entry, xid) = c.x_target(window, "send input to").await?;
        if entry.info.minimized {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!("window {window} is minimized"),
            )
            .with_suggestion("Restore the window first."));
        }
        let event = match event {
            InputEvent::Move { at } => Resolved::Move(Connected::to_root(&entry, *at)?),
            InputEvent::Click { at, button, count } => {
                Resolved::Click(Connected::to_root(&entry, *at)?, *button, *count)
            }
            InputEvent::Drag { from, to, button } => Resolved::Drag(
                Connected::to_root(&entry, *from)?,
                Connected::to_root(&entry, *to)?,
                *button,
            ),
            InputEvent::Scroll { at, dx, dy } => {
                Resolved::Scroll(Connected::to_root(&entry, *at)?, *dx, *dy)
            }
            InputEvent::Key { combo } => Resolved::Key(
                keys::parse_combo(combo)
                    .map_err(|m| Error::new(ErrorCode::InvalidArgument, m))?
                    .0,
            ),
            InputEvent::Text { text } => Resolved::Text(text.clone()),
            other => {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{other:?} is not supported on X11"),
                ))
            }
        };
        blocking(move || {
            // XTEST events land on whatever is on top: activate the target first.
            x.activate(xid)?;
            match event {
                Resolved::Move(p) => x.move_to(p),
                Resolved::Click(p, b, n) => x.click(p, b, n),
                Resolved::Drag(a, b, button) => x.drag(a, b, button),
                Resolved::Scroll(p, dx, dy) => x.scroll(p, dx, dy),
                Resolved::Key(syms) => x.key_combo(&syms),
                Resolved::Text(t) => x.type_text(&t),
            }
        })
        .await
    }

    async fn capture(&self, window: &WindowId) -> Result<WindowImage> {
        let c = self.connected().await?;
        #[cfg(feature = "portal")]
        let image = if c.x11.is_none() {
            c.portal_capture(window).await?
        } else {
            let (x, _, xid) = c.x_target(window, "capture").await?;
            blocking(move || x.capture(xid)).await?
        };
        #[cfg(not(feature = "portal"))]
        let image = {
            let (x, _, xid) = c.x_target(window, "capture").await?;
            blocking(move || x.capture(xid)).await?
        };
        if image.is_uniform() {
            return Err(Error::new(
                ErrorCode::ImageCaptureBlank,
                format!("the capture of {window} is a single colour"),
            ));
        }
        Ok(image)
    }

    async fn element_at(&self, window: &WindowId, at: Point) -> Result<Probe> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        if entry.info.bounds.is_some() {
            // Refuses a point outside the window.
            let root = Connected::to_root(&entry, at)?;
            if let (Some(x), Some(xid)) = (c.x11.clone(), entry.xid) {
                if !blocking(move || x.reaches(xid, root)).await? {
                    // What is drawn there belongs to another top-level (an open popup menu): the
                    // frame's tree cannot say what it is.
                    return Err(Error::new(
                        ErrorCode::ActionNotSupported,
                        "another window (a popup menu, a dialog) covers this point",
                    )
                    .with_suggestion("Act on the element by its id from a fresh gui_state."));
                }
            }
        }
        probe::element_at(&c.atspi, &entry.frame, entry.placement(), at).await
    }

    async fn focused(&self, window: &WindowId) -> Result<Probe> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        probe::focused(&c.atspi, &entry.frame, entry.placement()).await
    }

    async fn check_coordinates(&self, window: &WindowId) -> Result<()> {
        let c = self.connected().await?;
        #[cfg(feature = "portal")]
        if c.x11.is_none() {
            return c.place_of(window).await.map(|_| ());
        }
        let _ = (c, window);
        Ok(())
    }

    async fn activate(&self, window: &WindowId) -> Result<()> {
        let c = self.connected().await?;
        let (x, _, xid) = c.x_target(window, "activate").await?;
        blocking(move || x.activate(xid)).await
    }
}

enum Resolved {
    Move(Point),
    Click(Point, cu_core::backend::MouseButton, u8),
    Drag(Point, Point, cu_core::backend::MouseButton),
    Scroll(Point, i32, i32),
    Key(Vec<u32>),
    Text(String),
}
