//! [`Connected`]: what the backend holds once it has reached the desktop (the accessibility
//! bus, the path raw input and capture take, the window map) and how it gets there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cu_core::model::element::DesktopInstance;
use cu_core::model::geometry::{Point, Rect};
#[cfg(feature = "portal")]
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

use super::state::Listed;
use super::state::{WindowEntry, WindowMap};
use crate::session_env::SessionEnv;
use crate::sys::atspi::Atspi;
use crate::sys::x11::{XWindow, X11};

/// How long an observation waits for the event counts to be current before it walks instead.
pub(super) const CAUGHT_UP: std::time::Duration = std::time::Duration::from_millis(50);

pub(super) struct Connected {
    pub(super) atspi: Atspi,
    /// How raw input and capture reach the windows.
    pub(super) input: InputPath,
    /// The last window found in its stream (window, when, stream node, surface rectangle), so
    /// the coordinate check and the input right after it read one frame, not two.
    #[cfg(feature = "portal")]
    pub(super) located: Mutex<Option<(WindowId, std::time::Instant, u32, Rect)>>,
    pub(super) desktop: DesktopInstance,
    /// Every listed window and everything kept of it, pruned together.
    pub(super) windows: WindowMap,
    /// Each application's frames at the last listing, by bus name.
    pub(super) listed: Mutex<HashMap<String, Listed>>,
}

/// The path raw input and capture take: chosen once, at connection, by the session type.
pub(super) enum InputPath {
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

impl Connected {
    pub(super) async fn connect() -> Result<Connected> {
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
        // The counting task records focus events too: it must read before they are asked for.
        atspi.count_changes().await;
        atspi.track_focus().await;
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
            windows: WindowMap::default(),
            listed: Mutex::new(HashMap::new()),
        })
    }
    pub(super) fn x11(&self) -> Result<Arc<X11>> {
        match &self.input {
            InputPath::X11(x) => Ok(x.clone()),
            _ => Err(Error::new(
                ErrorCode::ActionNotSupported,
                "raw input and capture need X11; this session has no X display",
            )
            .with_suggestion("Use semantic actions (element ids) instead of coordinates.")),
        }
    }
    pub(super) async fn x_windows(&self) -> Result<Vec<XWindow>> {
        match &self.input {
            InputPath::X11(x) => {
                let x = x.clone();
                blocking(move || x.client_windows()).await
            }
            _ => Ok(Vec::new()),
        }
    }
    /// Converts a window-relative point to root coordinates, refusing points outside the window.
    pub(super) fn to_root(entry: &WindowEntry, p: Point) -> Result<Point> {
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

pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("blocking task failed: {e}")))?
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
