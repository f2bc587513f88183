//! [`LinuxBackend`]: the AT-SPI tree layer plus the X11 input/capture path behind the `Backend`
//! trait, connected lazily on the first GUI call.

use std::sync::Arc;

use async_trait::async_trait;
use cu_core::model::backend::{
    Backend, BackendInfo, Capabilities, FocusMoves, HealthCheck, InputEvent, MouseButton,
    SemanticAction, Watch, WindowChange, WindowImage,
};
use cu_core::model::element::{ElementIdentity, Snapshot, SnapshotOptions};
use cu_core::model::geometry::Point;
use cu_core::model::receiver::Probe;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use tokio::sync::OnceCell;

use crate::keys;
use crate::listing;
use crate::session_env::SessionEnv;
use crate::sys::atspi::{act, probe, Atspi, ObjRef, WalkedNow};
use crate::sys::x11::{DrawnAt, X11};

mod connected;
mod focus;
mod kept;
mod list;
mod misplaced;
mod observe;
mod popup_hit;
mod state;
#[cfg(feature = "portal")]
mod wayland;
mod windows;

use connected::{blocking, Connected, InputPath};
use state::AppWait;

/// The Linux desktop backend (AT-SPI + X11).
pub struct LinuxBackend {
    connected: OnceCell<Arc<Connected>>,
    clipboard: Arc<cu_clipboard::Clipboard>,
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

    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot> {
        self.connected().await?.snapshot(window, options).await
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
            // Judged live: Firefox aborted when an action reached a background tab's page. An
            // option is chosen while its drop-down's popup is closed: the drop-down is what
            // must be on screen.
            let shown = match action {
                SemanticAction::Choose => {
                    act::drop_down_of(&c.atspi, &obj).await.ok_or_else(|| {
                        Error::new(
                            ErrorCode::ActionNotSupported,
                            "the element is no option of a drop-down",
                        )
                        .before_sending()
                    })?
                }
                _ => obj.clone(),
            };
            if !act::showing_in(&c.atspi, &shown, entry.frame()?).await? {
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
        let prepared = async {
            let (x, entry, xid) = c.x_target(window, "send input to").await?;
            if entry.info.minimized {
                return Err(Error::new(
                    ErrorCode::ActionFailed,
                    format!("window {window} is minimized"),
                )
                .with_suggestion("Restore the window first."));
            }
            Ok((x, Resolved::of(&entry, event)?, xid))
        };
        // Nothing reached the app before the event was resolved.
        let (x, event, xid) = prepared.await.map_err(Error::before_sending)?;
        blocking(move || {
            // XTEST events land on whatever is on top: activate the target first.
            x.activate(xid).map_err(Error::before_sending)?;
            event.send(&x)
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

    async fn covered(&self, window: &WindowId) -> Result<bool> {
        let c = self.connected().await?;
        if !matches!(c.input, InputPath::X11(_)) {
            return Ok(false);
        }
        let (x, entry, xid) = c.x_target(window, "look at").await?;
        let Some(bounds) = entry.info.bounds else {
            return Ok(false);
        };
        blocking(move || x.covering_window(xid, bounds).map(|w| w.is_some())).await
    }

    async fn element_at(&self, window: &WindowId, at: Point) -> Result<Probe> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        if entry.info.bounds.is_some() {
            // Refuses a point outside the window.
            let root = Connected::to_root(&entry, at)?;
            if let (InputPath::X11(x), Some(xid)) = (&c.input, entry.xid) {
                let x = x.clone();
                let drawn = blocking(move || x.drawn_at(xid, root)).await?;
                if drawn != DrawnAt::Own {
                    // A popup of the app drawn there (a combo box's open list) is what a press
                    // lands on: hit inside it.
                    if drawn == DrawnAt::AppPopup {
                        if let Some(probe) = c.popup_hit(window, &entry, at, root).await {
                            return Ok(probe);
                        }
                    }
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
        let probe = self.connected().await?.focused_in_tree(window).await?;
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

    async fn focus_moves(&self, window: &WindowId) -> Result<Box<dyn FocusMoves>> {
        self.connected().await?.focus_moves(window).await
    }

    async fn ancestors(
        &self,
        window: &WindowId,
        element: &cu_core::model::element::ElementIdentity,
    ) -> Result<Vec<cu_core::model::element::Node>> {
        let c = self.connected().await?;
        let entry = c.live_entry(window).await?;
        let obj = ObjRef::from_identity(element)?;
        probe::ancestors(&c.atspi, entry.frame()?, &obj, entry.placement()).await
    }

    async fn check_coordinates(
        &self,
        window: &WindowId,
        observed: Option<cu_core::model::geometry::Size>,
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

/// An input event at root coordinates, ready for XTEST.
enum Resolved {
    Move(Point),
    Click(Point, MouseButton, u8),
    Button(Point, MouseButton, bool),
    Drag(Point, Point, MouseButton),
    Scroll(Point, i32, i32),
    Key(Vec<u32>),
    Text(String),
    Held(Vec<u32>, Box<Resolved>),
}

impl Resolved {
    /// `event` at root coordinates of `entry`'s window (a point outside it is refused).
    fn of(entry: &state::WindowEntry, event: &InputEvent) -> Result<Resolved> {
        let root = |at: &Point| Connected::to_root(entry, *at);
        Ok(match event {
            InputEvent::Move { at } => Resolved::Move(root(at)?),
            InputEvent::Click { at, button, count } => Resolved::Click(root(at)?, *button, *count),
            InputEvent::Button {
                at,
                button,
                pressed,
            } => Resolved::Button(root(at)?, *button, *pressed),
            InputEvent::Drag { from, to, button } => {
                Resolved::Drag(root(from)?, root(to)?, *button)
            }
            InputEvent::Scroll { at, dx, dy } => Resolved::Scroll(root(at)?, *dx, *dy),
            InputEvent::Key { combo } => Resolved::Key(keys::keysyms(combo)),
            InputEvent::Text { text } => Resolved::Text(text.clone()),
            InputEvent::Held { modifiers, event } => Resolved::Held(
                keys::modifier_keysyms(*modifiers),
                Box::new(Resolved::of(entry, event)?),
            ),
            other => {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{other:?} is not supported on X11"),
                ))
            }
        })
    }

    fn send(self, x: &X11) -> Result<()> {
        match self {
            Resolved::Move(p) => x.move_to(p),
            Resolved::Click(p, b, n) => x.click(p, b, n),
            Resolved::Button(p, b, pressed) => x.button(p, b, pressed),
            Resolved::Drag(a, b, button) => x.drag(a, b, button),
            Resolved::Scroll(p, dx, dy) => x.scroll(p, dx, dy),
            Resolved::Key(syms) => x.key_combo(&syms),
            Resolved::Text(t) => x.type_text(&t),
            Resolved::Held(syms, event) => x.holding(&syms, || event.send(x)),
        }
    }
}
