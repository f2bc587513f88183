//! [`LinuxBackend`]: the AT-SPI tree layer plus the X11 input/capture path behind the `Backend`
//! trait, connected lazily on the first GUI call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use cu_core::backend::{
    Backend, BackendInfo, Capabilities, HealthCheck, InputEvent, SemanticAction, Watch,
    WindowChange, WindowImage,
};
use cu_core::element::{
    DesktopInstance, ElementIdentity, Snapshot, SnapshotOptions, Truncation, TruncationReason,
};
use cu_core::geometry::{Point, Rect};
use cu_core::receiver::Probe;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use tokio::sync::OnceCell;

use crate::keys;
use crate::listing;
use crate::session_env::SessionEnv;
use crate::sys::atspi::popups;
use crate::sys::atspi::walk::{self, Placement, Walked};
use crate::sys::atspi::{act, probe, Atspi, ObjRef, WalkedNow};
use crate::sys::x11::{XWindow, X11};
use crate::translate::{atspi_role, atspi_state, Toolkit};
use crate::trees::{Kept, Trees, Walk};

/// How long an observation waits for the event counts to be current before it walks instead.
const CAUGHT_UP: std::time::Duration = std::time::Duration::from_millis(50);

/// How long an app is given to answer the round trip that brings its last focus events across
/// the bus before its focused element is searched for.
const FOCUS_CROSSED: Duration = Duration::from_millis(500);

#[cfg(feature = "portal")]
mod misplaced;
mod wayland;

/// The Linux desktop backend (AT-SPI + X11).
pub struct LinuxBackend {
    connected: OnceCell<Arc<Connected>>,
    clipboard: Arc<cu_clipboard::Clipboard>,
}

struct Connected {
    atspi: Atspi,
    /// How raw input and capture reach the windows.
    input: InputPath,
    /// The last window found in its stream (window, when, stream node, surface rectangle), so
    /// the coordinate check and the input right after it read one frame, not two.
    #[cfg(feature = "portal")]
    located: Mutex<Option<(WindowId, std::time::Instant, u32, Rect)>>,
    desktop: DesktopInstance,
    windows: Mutex<HashMap<WindowId, WindowEntry>>,
    /// Windows a full walk has seen, with their content pane if it is reported a menu bar too
    /// high (LibreOffice).
    misplaced: Mutex<HashMap<WindowId, Option<Arc<misplaced::Wrong>>>>,
    /// What the last full walk of each window saw.
    walked: Mutex<HashMap<WindowId, Arc<Walked>>>,
    /// The last walk of each window, answered again while its application sends no event.
    trees: Trees,
    /// Each application's frames at the last listing, by bus name.
    listed: Mutex<HashMap<String, Listed>>,
}

/// How long an application is given to answer a listing.
const APP_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);
/// How long an application that did not answer the last listing, and sent no event since, is
/// given.
const SILENT_APP_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// How long a listing waits for each application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AppWait {
    /// [`Listed::wait`]: a listing of every window.
    Bounded,
    /// As long as the bus lets a call take: the caller needs one window's tree.
    Patient,
}

/// One application at the last listing.
#[derive(Clone)]
struct Listed {
    frames: Vec<Frame>,
    /// It answered (else `frames` are from before).
    answered: bool,
    /// Its event count then.
    count: Option<u64>,
}

impl Listed {
    /// How long an application is given to answer a listing, given how it did at the last one
    /// (`before`) and its event count now.
    fn wait(before: Option<&Listed>, count: Option<u64>) -> std::time::Duration {
        let silent = before.is_some_and(|b| !b.answered && count.is_some() && b.count == count);
        if silent {
            SILENT_APP_WAIT
        } else {
            APP_WAIT
        }
    }
}

/// The path raw input and capture take: chosen once, at connection, by the session type.
enum InputPath {
    /// X11: XTEST input, GetImage capture, global window positions.
    X11(Arc<X11>),
    /// Wayland: the XDG desktop portal's RemoteDesktop and ScreenCast.
    #[cfg(feature = "portal")]
    Portal(Arc<crate::sys::portal::Portal>),
    /// Neither (a Wayland session in a build without the portal): semantic actions only.
    // Constructed only in builds without the `portal` feature.
    #[cfg_attr(feature = "portal", allow(dead_code))]
    None,
}

/// What a window id resolves to.
#[derive(Debug, Clone)]
struct WindowEntry {
    /// The window's accessible frame; `None` for a window listed from X11 alone (its app has no
    /// accessibility, or has not registered it yet).
    frame: Option<ObjRef>,
    xid: Option<u32>,
    toolkit: Toolkit,
    info: WindowInfo,
}

impl WindowEntry {
    /// The accessible frame, or the error that says the window has none.
    fn frame(&self) -> Result<&ObjRef> {
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
    fn described(&mut self, xw: crate::sys::x11::XWindow) {
        self.info.bounds = Some(xw.bounds);
        self.info.minimized = xw.minimized;
        self.info.title = xw.title;
    }

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
    /// The focused element as the accessibility tree shows it (the app's last focus event, else
    /// a search of its showing top-levels and the window).
    async fn focused_in_tree(&self, window: &WindowId) -> Result<Probe> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        if let Some(probe) = c.remembered_focus(window, &entry).await? {
            return Ok(probe);
        }
        let known = c.walked(window).map(|w| w.grid);
        let holds_grid = match known {
            Some(holds) => holds,
            None => {
                // A window not walked yet is walked once to find out; the walk names the
                // focused element it saw as the candidate.
                self.snapshot(window, &SnapshotOptions::default()).await?;
                if let Some(probe) = c.remembered_focus(window, &entry).await? {
                    return Ok(probe);
                }
                c.walked(window).is_none_or(|w| w.grid)
            }
        };
        let search = if holds_grid {
            probe::FocusSearch::Walk
        } else {
            probe::FocusSearch::Collection
        };
        probe::focused(&c.atspi, entry.frame()?, entry.placement(), search).await
    }

    /// A backend that has not connected to anything yet.
    pub fn new() -> LinuxBackend {
        LinuxBackend {
            connected: OnceCell::new(),
            clipboard: Arc::default(),
        }
    }

    async fn connected(&self) -> Result<Arc<Connected>> {
        self.connected
            .get_or_try_init(|| async { Connected::connect().await.map(Arc::new) })
            .await
            .cloned()
    }
}

/// The window alone, at its size, as a snapshot: what it shows is in its screenshot. With
/// `unread`, its tree exists but was not read (the app did not answer); without, it has none.
fn window_alone(
    entry: WindowEntry,
    desktop: &DesktopInstance,
    unread: Option<Truncation>,
    started: std::time::Instant,
) -> Snapshot {
    let window = &entry.info.id;
    let identity = match unread {
        Some(_) => format!("unread:{window}"),
        None => format!("no-tree:{window}"),
    };
    let mut root =
        cu_core::element::Node::new(cu_core::role::Role::Window, ElementIdentity(identity));
    root.name = entry.info.title.clone();
    root.bounds = entry
        .info
        .bounds
        .map(|b| Rect::new(0, 0, b.width, b.height));
    Snapshot::new(entry.info, desktop.clone(), (vec![root], unread), started)
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
        let input = match env.display.clone().filter(|_| !wayland) {
            Some(display) => {
                InputPath::X11(Arc::new(blocking(move || X11::connect(&display)).await?))
            }
            #[cfg(feature = "portal")]
            None => InputPath::Portal(Arc::new(crate::sys::portal::Portal::new(
                env.session_bus.clone(),
            ))),
            #[cfg(not(feature = "portal"))]
            None => InputPath::None,
        };
        let x_prop = match &input {
            InputPath::X11(x) => x.atspi_bus_property(),
            _ => None,
        };
        let atspi = Atspi::connect(env.a11y_bus.as_deref(), env.session_bus.as_deref(), || {
            x_prop
        })
        .await?;
        atspi.track_focus().await;
        atspi.count_changes().await;
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
            input,
            #[cfg(feature = "portal")]
            located: Mutex::new(None),
            desktop,
            windows: Mutex::new(HashMap::new()),
            misplaced: Mutex::new(HashMap::new()),
            walked: Mutex::new(HashMap::new()),
            trees: Trees::default(),
            listed: Mutex::new(HashMap::new()),
        })
    }

    /// What the last full walk of `window` saw.
    fn walked(&self, window: &WindowId) -> Option<Arc<Walked>> {
        self.walked.lock().ok()?.get(window).cloned()
    }

    /// The focused element the app's last focus event (or the last walk) named, if it is
    /// confirmed live in `entry`'s window; `None` means search.
    async fn remembered_focus(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
    ) -> Result<Option<Probe>> {
        let frame = entry.frame()?;
        // The focus events that reached the bus before now are read first: the one a key just
        // caused (Calc's cell editor after a digit) was often still on its way, and a stale
        // remembered focus costs a search of the whole sheet.
        self.atspi.caught_up(CAUGHT_UP).await;
        let Some(remembered) = self.atspi.focus.of(&frame.bus) else {
            return Ok(None);
        };
        if let Some(found) = self
            .confirmed_focus(window, frame, entry, &remembered)
            .await
        {
            return Ok(Some(found));
        }
        // An app reached through its own connection answers there before its events have
        // crossed the bus, and mid-way through moving focus (Calc's cell says "not focused"
        // while it commits, or while the event naming the new one is still on its way): one
        // round trip through the bus brings every event the app sent before answering, and the
        // focus it names then (the same element, often) is asked again.
        let crossed = tokio::time::timeout(FOCUS_CROSSED, self.atspi.round_trip(frame)).await;
        if matches!(crossed, Ok(Ok(_))) {
            self.atspi.caught_up(CAUGHT_UP).await;
            if let Some(now) = self.atspi.focus.of(&frame.bus) {
                if let Some(found) = self.confirmed_focus(window, frame, entry, &now).await {
                    return Ok(Some(found));
                }
            }
        }
        tracing::debug!(
            ?remembered,
            "the remembered focus is not confirmed: searching"
        );
        Ok(None)
    }

    /// `remembered`, the element an app's focus event named, if it says it is focused and sits
    /// in `entry`'s window (or another showing top-level of its app).
    async fn confirmed_focus(
        &self,
        window: &WindowId,
        frame: &ObjRef,
        entry: &WindowEntry,
        remembered: &ObjRef,
    ) -> Option<Probe> {
        let walked = self.walked(window);
        probe::remembered_focus(
            &self.atspi,
            frame,
            entry.placement(),
            remembered,
            walked.as_deref(),
        )
        .await
    }

    fn x11(&self) -> Result<Arc<X11>> {
        match &self.input {
            InputPath::X11(x) => Ok(x.clone()),
            _ => Err(Error::new(
                ErrorCode::ActionNotSupported,
                "raw input and capture need X11; this session has no X display",
            )
            .with_suggestion("Use semantic actions (element ids) instead of coordinates.")),
        }
    }

    async fn x_windows(&self) -> Result<Vec<XWindow>> {
        match &self.input {
            InputPath::X11(x) => {
                let x = x.clone();
                blocking(move || x.client_windows()).await
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Lists windows and refreshes the id map.
    async fn list(&self, wait: AppWait) -> Result<Vec<WindowInfo>> {
        let (xwins, frames) = tokio::join!(self.x_windows(), self.atspi_frames(wait));
        let xwins = xwins?;
        let frames = frames?;
        for f in &frames {
            tracing::debug!(title = %f.facts.title, pid = ?f.facts.pid, showing = f.facts.showing, "accessible frame");
        }
        let active = match &self.input {
            InputPath::X11(x) => {
                let x = x.clone();
                blocking(move || Ok(x.active_window())).await?
            }
            _ => None,
        };
        let mut facts: Vec<listing::FrameFacts> = frames.iter().map(|f| f.facts.clone()).collect();
        let mut pairs = listing::join_x11(&xwins, &facts);
        let unsure = listing::frames_to_measure(&xwins, &facts, &pairs);
        if !unsure.is_empty() {
            let measured = futures_util::future::join_all(
                unsure.iter().map(|&fi| self.frame_extents(&frames[fi])),
            )
            .await;
            for (fi, extents) in unsure.into_iter().zip(measured) {
                facts[fi].extents = extents;
            }
            pairs = listing::join_x11(&xwins, &facts);
        }
        let mut entries: Vec<WindowEntry> = pairs
            .iter()
            .map(|&(ci, fi)| WindowEntry {
                frame: Some(frames[fi].obj.clone()),
                xid: Some(xwins[ci].id),
                toolkit: frames[fi].toolkit,
                info: listing::x11_window(&xwins[ci], Some(&facts[fi]), active),
            })
            .collect();
        // Every window a person sees is listed, with a tree or without.
        entries.extend(
            listing::frameless(&xwins, &pairs)
                .into_iter()
                .map(|ci| WindowEntry {
                    frame: None,
                    xid: Some(xwins[ci].id),
                    toolkit: Toolkit::default(),
                    info: listing::x11_window(&xwins[ci], None, active),
                }),
        );
        if !matches!(self.input, InputPath::X11(_)) {
            // No X11 (Wayland): the accessibility frames are the windows; positions are unknown.
            entries.extend(listing::wayland_frames(&facts).into_iter().map(|fi| {
                let f = &frames[fi];
                WindowEntry {
                    frame: Some(f.obj.clone()),
                    xid: None,
                    toolkit: Toolkit {
                        window_relative_extents: true,
                        ..f.toolkit
                    },
                    info: listing::wayland_window(
                        WindowId(format!("atspi:{}|{}", f.obj.bus, f.obj.path.as_str())),
                        &f.facts,
                    ),
                }
            }));
        }
        let out = entries.iter().map(|e| e.info.clone()).collect();
        if let Ok(mut seen) = self.misplaced.lock() {
            seen.retain(|id, _| entries.iter().any(|e| &e.info.id == id));
        }
        if let Ok(mut seen) = self.walked.lock() {
            seen.retain(|id, _| entries.iter().any(|e| &e.info.id == id));
        }
        self.trees
            .retain(|id| entries.iter().any(|e| &e.info.id == id));
        if let Ok(mut map) = self.windows.lock() {
            map.clear();
            map.extend(entries.into_iter().map(|e| (e.info.id.clone(), e)));
        }
        Ok(out)
    }

    /// Where a frame says it is (`None` when it does not answer).
    async fn frame_extents(&self, frame: &Frame) -> Option<listing::Extents> {
        let (x, y, width, height) = self.atspi.extents(&frame.obj).await.ok()?;
        Some(if frame.toolkit.window_relative_extents {
            listing::Extents::WindowRelative { width, height }
        } else {
            listing::Extents::Screen(Rect::new(x, y, width, height))
        })
    }

    /// Every application's frames. With [`AppWait::Bounded`], an application that does not
    /// answer within [`APP_WAIT`] (busy, or hung) is listed with the frames it had at the last
    /// listing, so one hung app does not hold every listing for the bus's 3 s timeout; while it
    /// stays silent (no answer, no event since), it is given only [`SILENT_APP_WAIT`].
    async fn atspi_frames(&self, wait: AppWait) -> Result<Vec<Frame>> {
        let apps = self.atspi.applications().await?;
        let per_app = apps.into_iter().map(|app| {
            let before = self
                .listed
                .lock()
                .ok()
                .and_then(|l| l.get(&app.bus).cloned());
            async move {
                let before = before.as_ref();
                let count = self.atspi.changes.count(&app.bus);
                let bus = app.bus.clone();
                let frames = match wait {
                    AppWait::Bounded => {
                        let within = Listed::wait(before, count);
                        let frames = tokio::time::timeout(within, self.app_frames(app)).await;
                        frames.ok()
                    }
                    AppWait::Patient => Some(self.app_frames(app).await),
                };
                let listed = match frames {
                    Some(frames) => Listed {
                        frames,
                        answered: true,
                        count,
                    },
                    None => {
                        tracing::debug!(
                            bus,
                            "an application did not answer the listing: its frames as last listed"
                        );
                        Listed {
                            frames: before.map(|b| b.frames.clone()).unwrap_or_default(),
                            answered: false,
                            count,
                        }
                    }
                };
                (bus, listed)
            }
        });
        // In the registry's order of applications, as the windows are listed.
        let listed = futures_util::future::join_all(per_app).await;
        let frames = listed.iter().flat_map(|(_, l)| l.frames.clone()).collect();
        if let Ok(mut kept) = self.listed.lock() {
            *kept = listed.into_iter().collect();
        }
        Ok(frames)
    }

    /// The frames of one application: its top-level children that are windows.
    async fn app_frames(&self, app: ObjRef) -> Vec<Frame> {
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
                    toolkit: rel,
                    facts: listing::FrameFacts {
                        app_name,
                        title: title.unwrap_or_default(),
                        pid,
                        showing: states.has(atspi_state::SHOWING)
                            || states.has(atspi_state::VISIBLE),
                        active: states.has(atspi_state::ACTIVE),
                        iconified: states.has(atspi_state::ICONIFIED),
                        extents: None,
                    },
                })
            }
        });
        futures_util::future::join_all(frames)
            .await
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
    }

    async fn entry(&self, id: &WindowId) -> Result<WindowEntry> {
        let cached = self.windows.lock().ok().and_then(|m| m.get(id).cloned());
        // A window listed without a tree may have registered one since (an app that was still
        // starting): listed again, so it is not treated as treeless for good.
        if let Some(e) = cached.filter(|e| e.frame.is_some()) {
            return Ok(e);
        }
        // The caller needs this window's tree: a busy app is waited for.
        let windows = self.list(AppWait::Patient).await?;
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

    /// The entry with fresh X11 geometry; `WINDOW_NOT_FOUND` if the window closed or its app died,
    /// a retryable `TIMEOUT` if its app does not answer (within the bus's method timeout).
    async fn live_entry(&self, id: &WindowId) -> Result<WindowEntry> {
        self.live_entry_within(id, None).await
    }

    /// [`live_entry`](Self::live_entry), the app given `patience` (where set) to answer.
    async fn live_entry_within(
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
        self.trees.forget(id);
    }

    /// The kept walk of `window` (see [`crate::trees`]) if its application sent no event since
    /// it began and X11 describes the window as it was, with the entry described now. `None`
    /// means walk: nothing kept, the window changed, or the counts could not be proven current.
    async fn kept_walk(
        &self,
        window: &WindowId,
        options: &SnapshotOptions,
    ) -> Option<(WindowEntry, Walk)> {
        if !options.reuse || !self.trees.holds(window) {
            return None;
        }
        let mut entry = self.windows.lock().ok()?.get(window).cloned()?;
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
        self.trees.described(&entry.info, std::time::Instant::now());
        let count = self.atspi.changes.count(&bus)?;
        let held = self.trees.get(&entry.info, options, count)?;
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

/// An accessible frame: where it is on the bus, how its toolkit reports extents, and what the
/// window join reads of it.
#[derive(Clone)]
struct Frame {
    obj: ObjRef,
    toolkit: Toolkit,
    facts: listing::FrameFacts,
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
        let (name, raw, positions) = match &c.input {
            InputPath::X11(_) => ("linux-atspi-x11", true, true),
            #[cfg(feature = "portal")]
            InputPath::Portal(_) => ("linux-atspi-portal", true, false),
            InputPath::None => ("linux-atspi", false, false),
        };
        Ok(BackendInfo {
            name: name.into(),
            capabilities: Capabilities {
                accessibility_tree: true,
                semantic_actions: true,
                pointer_input: raw,
                keyboard_input: raw,
                capture: raw,
                window_positions: positions,
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
        self.connected().await?.list(AppWait::Bounded).await
    }

    async fn shown_windows(&self) -> Result<Vec<WindowInfo>> {
        let c = self.connected().await?;
        match &c.input {
            // X11 lists every window; zero-sized ones are not listed (nothing a person sees).
            InputPath::X11(_) => Ok(c
                .x_windows()
                .await?
                .iter()
                .filter(|w| !w.bounds.is_empty())
                .map(|w| listing::x11_window(w, None, None))
                .collect()),
            // Without X11 the accessibility frames are the windows.
            _ => c.list(AppWait::Bounded).await,
        }
    }

    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        let c = self.connected().await?;
        let started = std::time::Instant::now();
        if let Some((entry, walk)) = c.kept_walk(window, options).await {
            tracing::debug!(
                total_ms = started.elapsed().as_secs_f64() * 1000.0,
                nodes = walk.0.len(),
                "snapshot kept: no event since the last walk"
            );
            return Ok(Snapshot::new(entry.info, c.desktop.clone(), walk, started));
        }
        // An observation does not wait the bus's 3 s for a silent app: it shows the window
        // alone and says its tree was not read.
        let entry = match c.live_entry_within(window, Some(walk::SILENT)).await {
            Err(e) if e.code == ErrorCode::Timeout && options.subtree.is_none() => {
                let Some(entry) = c.windows.lock().ok().and_then(|m| m.get(window).cloned()) else {
                    return Err(e);
                };
                let unread = Truncation {
                    reason: TruncationReason::Unresponsive,
                    omitted: 0,
                };
                return Ok(window_alone(entry, &c.desktop, Some(unread), started));
            }
            entry => entry?,
        };
        c.trees.described(&entry.info, started);
        let entry_ms = started.elapsed().as_secs_f64() * 1000.0;
        // Counted before the first read: any event from now on means the walk may be stale.
        // Only a walk of the whole window is kept (an element's read would replace it).
        let count = entry
            .frame
            .as_ref()
            .and_then(|f| c.atspi.changes.count(&f.bus))
            .filter(|_| entry.xid.is_some() && options.subtree.is_none());
        let placement = entry.placement();
        let Some(frame) = entry.frame.clone() else {
            if options.subtree.is_some() {
                return Err(entry
                    .frame()
                    .err()
                    .unwrap_or_else(|| Error::new(ErrorCode::ElementNotFound, "no such element")));
            }
            return Ok(window_alone(entry, &c.desktop, None, started));
        };
        let root = match &options.subtree {
            Some(id) => {
                let obj = ObjRef::from_identity(id)?;
                if obj.bus != frame.bus {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        "that element belongs to another application's window",
                    ));
                }
                obj
            }
            None => frame.clone(),
        };
        let whole = options.subtree.is_none();
        let popups = async {
            match entry.info.bounds.filter(|_| whole) {
                Some(over) => popups::showing_over(&c.atspi, &frame, over).await,
                None => Vec::new(),
            }
        };
        let (popups, walked) =
            futures_util::join!(popups, walk::walk(&c.atspi, root, placement, options));
        let walk_ms = started.elapsed().as_secs_f64() * 1000.0 - entry_ms;
        let (mut nodes, truncated) = walked.map_err(|e| {
            if e.code == ErrorCode::ElementNotFound && options.subtree.is_none() {
                Error::new(
                    ErrorCode::WindowNotFound,
                    format!("window {window} closed during the snapshot"),
                )
            } else {
                e
            }
        })?;
        for popup in popups {
            // Drawn over the window; what cannot be read of it is left out, the window stays.
            if let Ok((more, _)) = walk::walk(&c.atspi, popup, placement, options).await {
                cu_core::walk::graft_last(&mut nodes, more);
            }
        }
        // Only a walk of everything says whether the window holds a grid (a walk without
        // cells would say it does not, and Collection would then visit a sheet's 2^31 cells).
        if options.subtree.is_none() && options.read_cells {
            let walked = Walked {
                grid: nodes.iter().any(|n| n.grid.is_some()),
                paths: nodes
                    .iter()
                    .filter_map(|n| n.identity.0.split_once('|'))
                    .map(|(_, path)| path.to_owned())
                    .collect(),
            };
            if let Ok(mut seen) = c.walked.lock() {
                seen.insert(window.clone(), Arc::new(walked));
            }
            // What has focus, as a candidate for the gate's next focus probe (read live then).
            let focused = nodes
                .iter()
                .rev()
                .find(|n| n.states.contains(cu_core::element::State::Focused))
                .and_then(|n| ObjRef::from_identity(&n.identity).ok());
            if let Some(obj) = focused {
                c.atspi.focus.suggest(obj);
            }
        }
        if let Some(window_bounds) = entry.info.bounds {
            c.place_misplaced(
                window,
                window_bounds.height,
                options.subtree.as_ref(),
                &mut nodes,
            )
            .await;
        }
        tracing::debug!(
            entry_ms,
            walk_ms,
            total_ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "snapshot"
        );
        // A walk cut short by time or a busy app is not answered again: the next one may read more.
        let lasting = !truncated
            .as_ref()
            .is_some_and(|t| t.reason.depends_on_timing());
        if let Some(count) = count.filter(|_| lasting) {
            c.trees.keep(
                Kept {
                    options: options.clone(),
                    window: entry.info.clone(),
                    count,
                    walk: (nodes.clone(), truncated.clone()),
                },
                started,
            );
        }
        Ok(Snapshot::new(
            entry.info,
            c.desktop.clone(),
            (nodes, truncated),
            started,
        ))
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
        if obj.bus != entry.frame()?.bus {
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!("element {} does not belong to window {window}", element.0),
            ));
        }
        if entry.toolkit.reports_showing && !matches!(action, SemanticAction::ScrollIntoView) {
            // Judged live: Firefox aborted when an action reached a background tab's page.
            if !act::showing_in(&c.atspi, &obj, entry.frame()?).await? {
                return Err(Error::new(
                    ErrorCode::ElementNotVisible,
                    "the element is no longer on screen (its tab, menu or view changed since it was observed)",
                ));
            }
        }
        let acted = act::perform(&c.atspi, &obj, action).await;
        // The action's handler may still be running in a nested main loop on the direct
        // connection: it is used no more (see `Atspi::retire_peer`).
        c.atspi.retire_peer(&obj.bus);
        match acted {
            Err(e) if matches!(e.code, ErrorCode::ElementNotFound | ErrorCode::Timeout) => {
                // Gone mid-call is a crash (or a quit), not a missing element: asked of the bus.
                if c.atspi.still_connected(&obj.bus).await == Some(false) {
                    return Err(Error::new(
                        ErrorCode::AppCrashed,
                        format!(
                            "the application ({}) left the accessibility bus while handling {}",
                            obj.bus,
                            action.describe()
                        ),
                    ));
                }
                Err(e)
            }
            done => done,
        }
    }

    async fn input(&self, window: &WindowId, event: &InputEvent) -> Result<()> {
        let c = self.connected().await?;
        #[cfg(feature = "portal")]
        if let InputPath::Portal(_) = c.input {
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
            InputEvent::Key { combo } => Resolved::Key(keys::keysyms(combo)),
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
        let image = match &c.input {
            #[cfg(feature = "portal")]
            InputPath::Portal(_) => c.portal_capture(window).await?,
            InputPath::X11(_) | InputPath::None => {
                let (x, _, xid) = c.x_target(window, "capture").await?;
                blocking(move || x.capture(xid)).await?
            }
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
            if let (InputPath::X11(x), Some(xid)) = (&c.input, entry.xid) {
                let x = x.clone();
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
        // A misplaced pane answers in its own coordinates, a menu bar higher than drawn; a
        // window not walked yet is walked once to find out.
        if !c.misplaced_known(window) {
            self.snapshot(window, &SnapshotOptions::default()).await?;
        }
        let wrong = c.misplaced_now(window).await;
        let shift = |current: &ObjRef| match &wrong {
            Some(w) if w.moved(&current.identity()) => w.by,
            _ => 0,
        };
        let Some(frame) = &entry.frame else {
            // Nothing can be known there: the gate asks for confirmation.
            return Ok(Probe::nothing());
        };
        let probe = probe::element_at(&c.atspi, frame, entry.placement(), at, &shift).await?;
        if let Some(hit) = probe.path.last() {
            tracing::debug!(x = at.x, y = at.y, misplaced = wrong.is_some(), role = %hit.role, name = %hit.name, "hit test");
        }
        Ok(probe)
    }

    async fn process_running(&self, pid: u32) -> Option<bool> {
        super::process::running(pid)
    }

    async fn focused(&self, window: &WindowId) -> Result<Probe> {
        let probe = self.focused_in_tree(window).await?;
        if probe.in_menu() {
            return Ok(probe);
        }
        // An open popup menu takes the keys. The X server shows it (an override-redirect menu
        // window of the app: LibreOffice, Qt, Firefox), or the app's active top-level is another
        // than the window (Chromium's menus). LibreOffice's, Firefox's and Chromium's are in the
        // tree, though none of their items says it is focused; Qt's is not there at all.
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        let x11_menu = match (&c.input, entry.xid) {
            (InputPath::X11(x), Some(xid)) => {
                let x = x.clone();
                blocking(move || x.open_menu_of(xid)).await?
            }
            _ => None,
        };
        let frame = entry.frame()?;
        if x11_menu.is_some() || probe::another_top_active(&c.atspi, frame).await {
            if let Some(open) = probe::open_menu(&c.atspi, frame, entry.placement()).await {
                return Ok(open);
            }
        }
        if let Some(menu) = x11_menu {
            tracing::debug!(
                menu = format_args!("0x{menu:x}"),
                "an open popup menu outside the tree takes the keys"
            );
            return Ok(Probe::unreadable_menu(format!("x11-popup:{menu}")));
        }
        Ok(probe)
    }

    async fn ancestors(
        &self,
        window: &WindowId,
        element: &cu_core::element::ElementIdentity,
    ) -> Result<Vec<cu_core::element::Node>> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        let obj = ObjRef::from_identity(element)?;
        probe::ancestors(&c.atspi, entry.frame()?, &obj, entry.placement()).await
    }

    async fn check_coordinates(
        &self,
        window: &WindowId,
        observed: Option<cu_core::geometry::Size>,
    ) -> Result<()> {
        let c = self.connected().await?;
        match &c.input {
            #[cfg(feature = "portal")]
            InputPath::Portal(_) => c.check_place(window, observed).await,
            // X11 positions are read live with every input; without raw input there is nothing
            // to check (coordinate actions are refused when sent).
            InputPath::X11(_) | InputPath::None => {
                let _ = (window, observed);
                Ok(())
            }
        }
    }

    async fn activate(&self, window: &WindowId) -> Result<()> {
        let c = self.connected().await?;
        #[cfg(feature = "portal")]
        if let InputPath::Portal(_) = c.input {
            return c.holds_keyboard(window).await;
        }
        let (x, _, xid) = c.x_target(window, "activate").await?;
        blocking(move || x.activate(xid)).await
    }

    async fn watch(&self, window: &WindowId) -> Result<Box<dyn Watch>> {
        let c = self.connected().await?;
        let entry = c.entry(window).await?;
        let walked: WalkedNow = {
            let (c, window) = (c.clone(), window.clone());
            Box::new(move || c.walked(&window))
        };
        Ok(Box::new(
            c.atspi.watch_window(entry.frame()?, walked).await?,
        ))
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
        let c = self.connected().await?;
        if !matches!(c.input, InputPath::X11(_)) {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                "window changes need X11: on Wayland only the compositor moves, sizes, minimizes and closes windows",
            )
            .with_suggestion(
                "Use the compositor's own shortcuts, or close the window by its close button (an element id).",
            ));
        }
        let (x, _, xid) = c.x_target(window, "change").await?;
        let change = *change;
        blocking(move || x.change(xid, &change)).await
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

#[cfg(test)]
mod tests {
    use super::*;

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
