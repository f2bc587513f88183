//! The Wayland input/capture path: one XDG desktop portal session per process (RemoteDesktop
//! with ScreenCast sources, through ashpd), started on the first input or capture and kept.
//!
//! - Consent: `Start` raises the desktop's dialog; the user picks the windows to share (or a
//!   monitor where the desktop offers no window streams) and allows remote interaction. With
//!   RemoteDesktop v2 and later the choice is kept (`persist_mode`, a restore token in the state
//!   directory, mode 0600); with v1 (Debian 12's portal, the one tested here) the dialog comes
//!   once per process.
//! - Priming: the first input events of a new session are dropped (measured: 1-3 keys), so a
//!   pointer motion and a Shift press and release go first, then about 200 ms of waiting.
//! - Frames: one frame of a stream is read with GStreamer's `pipewiresrc` as PNG (a
//!   non-sandboxed process reaches the stream's node directly).

use std::time::Duration;

use ashpd::desktop::remote_desktop::{
    Axis, DeviceType, KeyState, NotifyKeyboardKeysymOptions, NotifyPointerAxisDiscreteOptions,
    NotifyPointerButtonOptions, NotifyPointerMotionAbsoluteOptions, RemoteDesktop,
    SelectDevicesOptions, StartOptions,
};
use ashpd::desktop::screencast::{CursorMode, Screencast, SelectSourcesOptions, SourceType};
use ashpd::desktop::{PersistMode, Session};
use cu_core::model::backend::{MouseButton, WindowImage};
use cu_core::{Error, ErrorCode, Result};
use tokio::sync::Mutex;

/// How long `Start` may wait for the person to answer the consent dialog.
const CONSENT_WAIT: Duration = Duration::from_secs(90);
/// Waiting after the priming events (measured: about 200 ms).
const PRIME_SETTLE: Duration = Duration::from_millis(200);
/// One frame read.
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);
/// One consumer's wait for a frame, once GStreamer is warm (a frame comes within 0.2–0.5 s
/// of starting one on a loaded 2-core machine).
const FRAME_ATTEMPT: Duration = Duration::from_secs(2);
/// The first frame read of a process: GStreamer builds its plugin registry on its first run
/// under a new cache directory, which takes tens of seconds on a busy fresh machine (a cold CI
/// run timed out at 10 s).
const FIRST_FRAME_TIMEOUT: Duration = Duration::from_secs(45);
/// Set once a frame was read.
static FRAME_READ: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
const SHIFT_L: i32 = 0xffe1;
/// Between placing the pointer and pressing a button.
const POINTER_SETTLE: Duration = Duration::from_millis(60);

/// One ScreenCast stream of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stream {
    /// Its PipeWire node.
    pub node: u32,
    /// A single window (else a monitor).
    pub window: bool,
}

struct Live {
    remote: RemoteDesktop,
    session: Session<RemoteDesktop>,
    streams: Vec<Stream>,
}

/// The portal path; connects on first use.
pub(crate) struct Portal {
    session_bus: Option<String>,
    live: Mutex<Option<Live>>,
}

fn portal_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::ActionFailed,
        format!("the desktop portal failed to {what}: {e}"),
    )
    .with_suggestion("Check that xdg-desktop-portal and the desktop's portal backend run in this session, or use semantic actions (element ids).")
}

impl Portal {
    /// A portal path over the session bus at `session_bus` (the process's own when `None`).
    pub(crate) fn new(session_bus: Option<String>) -> Portal {
        Portal {
            session_bus,
            live: Mutex::new(None),
        }
    }

    async fn connection(&self) -> Result<zbus::Connection> {
        let connected = match &self.session_bus {
            Some(address) => match zbus::connection::Builder::address(address.as_str()) {
                Ok(builder) => builder.build().await,
                Err(e) => Err(e),
            },
            None => zbus::Connection::session().await,
        };
        connected.map_err(|e| {
            Error::new(
                ErrorCode::GuiUnavailable,
                format!("cannot reach the session bus for the desktop portal: {e}"),
            )
        })
    }

    /// Starts the session: devices, sources (windows where the desktop can stream them), consent.
    async fn start(&self) -> Result<Live> {
        let connection = self.connection().await?;
        let remote = RemoteDesktop::with_connection(connection.clone())
            .await
            .map_err(|e| portal_error("open RemoteDesktop", e))?;
        let screencast = Screencast::with_connection(connection)
            .await
            .map_err(|e| portal_error("open ScreenCast", e))?;
        let session = remote
            .create_session(Default::default())
            .await
            .map_err(|e| portal_error("create a session", e))?;
        // RemoteDesktop v2 can keep the person's choice: ask for it, and offer the token of the
        // last choice, so the dialog does not come back on every start.
        let persist = remote.version() >= 2;
        let token = persist.then(restore_token::load).flatten();
        let mut devices =
            SelectDevicesOptions::default().set_devices(DeviceType::Keyboard | DeviceType::Pointer);
        if persist {
            devices = devices
                .set_persist_mode(PersistMode::ExplicitlyRevoked)
                .set_restore_token(token.as_deref());
        }
        remote
            .select_devices(&session, devices)
            .await
            .map_err(|e| portal_error("select input devices", e))?;
        // Windows where the desktop can stream them, and monitors too: a portal may advertise
        // window sources yet list no windows (bare mutter), and then a monitor is all a person
        // can pick.
        let available = screencast
            .available_source_types()
            .await
            .unwrap_or_else(|_| SourceType::Monitor.into());
        let sources = available & (SourceType::Window | SourceType::Monitor);
        screencast
            .select_sources(
                &session,
                SelectSourcesOptions::default()
                    .set_sources(Some(sources))
                    .set_multiple(true)
                    .set_cursor_mode(CursorMode::Hidden),
            )
            .await
            .map_err(|e| portal_error("select what to share", e))?;
        let started = tokio::time::timeout(
            CONSENT_WAIT,
            remote.start(&session, None, StartOptions::default()),
        )
        .await
        .map_err(|_| {
            Error::new(
                ErrorCode::ApprovalTimeout,
                "nobody answered the desktop's screen-sharing dialog",
            )
            .with_suggestion("Answer the \"Remote desktop\" dialog on the desktop (pick the windows, allow remote interaction, Share), then retry.")
        })?
        .map_err(|e| portal_error("start the session", e))?;
        let selected = started.response().map_err(|e| {
            Error::new(
                ErrorCode::ApprovalDenied,
                format!("the desktop's screen-sharing dialog was refused: {e}"),
            )
            .with_suggestion("Use semantic actions (element ids), or retry and allow sharing.")
        })?;
        if !selected.devices().contains(DeviceType::Pointer)
            && !selected.devices().contains(DeviceType::Keyboard)
        {
            return Err(Error::new(
                ErrorCode::ApprovalDenied,
                "sharing was allowed, but not remote interaction",
            )
            .with_suggestion(
                "Tick \"Allow remote interaction\" in the dialog, or use semantic actions.",
            ));
        }
        if let Some(token) = selected.restore_token() {
            restore_token::save(token);
        }
        let streams = selected
            .streams()
            .iter()
            .map(|s| Stream {
                node: s.pipe_wire_node_id(),
                window: s.source_type() == Some(SourceType::Window),
            })
            .collect::<Vec<_>>();
        let live = Live {
            remote,
            session,
            streams,
        };
        live.prime().await;
        tracing::info!(streams = ?live.streams, "desktop portal session started");
        Ok(live)
    }

    /// Runs `f` on the live session, starting it first when needed.
    async fn with_live<T>(
        &self,
        f: impl AsyncFnOnce(&Live) -> std::result::Result<T, ashpd::Error>,
    ) -> Result<T> {
        let mut guard = self.live.lock().await;
        if guard.is_none() {
            *guard = Some(self.start().await?);
        }
        let Some(live) = guard.as_ref() else {
            return Err(Error::new(ErrorCode::Internal, "no portal session"));
        };
        match f(live).await {
            Ok(v) => Ok(v),
            Err(e) => {
                // A closed session (the user stopped sharing) is started afresh next time.
                *guard = None;
                Err(portal_error("send input", e))
            }
        }
    }

    /// Ends the session (the next call starts a new one, with the consent dialog).
    pub(crate) async fn restart(&self) {
        if let Some(live) = self.live.lock().await.take() {
            let _ = live.session.close().await;
        }
    }

    /// The session's streams (starting it).
    pub(crate) async fn streams(&self) -> Result<Vec<Stream>> {
        self.with_live(async |live| Ok(live.streams.clone())).await
    }

    /// Presses `keysyms` in order and releases them in reverse (a combination).
    pub(crate) async fn keys(&self, keysyms: &[u32]) -> Result<()> {
        self.with_live(async |live| {
            for k in keysyms {
                live.key(*k as i32, KeyState::Pressed).await?;
            }
            for k in keysyms.iter().rev() {
                live.key(*k as i32, KeyState::Released).await?;
            }
            Ok(())
        })
        .await
    }

    /// Presses (`pressed`) or releases `keysyms`, releasing in reverse (modifiers held around
    /// a pointer event).
    pub(crate) async fn hold(&self, keysyms: &[u32], pressed: bool) -> Result<()> {
        self.with_live(async |live| {
            if pressed {
                for k in keysyms {
                    live.key(*k as i32, KeyState::Pressed).await?;
                }
            } else {
                for k in keysyms.iter().rev() {
                    live.key(*k as i32, KeyState::Released).await?;
                }
            }
            Ok(())
        })
        .await
    }

    /// Presses or releases `button` alone at `at`.
    pub(crate) async fn button(
        &self,
        node: u32,
        at: (f64, f64),
        button: MouseButton,
        pressed: bool,
    ) -> Result<()> {
        self.with_live(async |live| {
            live.motion(node, at).await?;
            tokio::time::sleep(POINTER_SETTLE).await;
            let state = if pressed {
                KeyState::Pressed
            } else {
                KeyState::Released
            };
            live.button(button, state).await
        })
        .await
    }

    /// Types text as keysyms.
    pub(crate) async fn text(&self, text: &str) -> Result<()> {
        let syms: Vec<i32> = text
            .chars()
            .map(|c| crate::keys::keysym_of_char(c) as i32)
            .collect();
        self.with_live(async |live| {
            for k in syms {
                live.key(k, KeyState::Pressed).await?;
                live.key(k, KeyState::Released).await?;
            }
            Ok(())
        })
        .await
    }

    /// Moves the pointer to `at` in `node`'s coordinates.
    pub(crate) async fn move_to(&self, node: u32, at: (f64, f64)) -> Result<()> {
        self.with_live(async |live| live.motion(node, at).await)
            .await
    }

    /// Clicks `count` times at `at`.
    pub(crate) async fn click(
        &self,
        node: u32,
        at: (f64, f64),
        button: MouseButton,
        count: u8,
    ) -> Result<()> {
        self.with_live(async |live| {
            live.motion(node, at).await?;
            // The compositor must have placed the pointer before the press (measured: a press
            // sent with the motion lands on the old position).
            tokio::time::sleep(POINTER_SETTLE).await;
            for _ in 0..count.max(1) {
                live.button(button, KeyState::Pressed).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
                live.button(button, KeyState::Released).await?;
            }
            Ok(())
        })
        .await
    }

    /// Presses at `from`, moves to `to`, releases.
    pub(crate) async fn drag(
        &self,
        node: u32,
        from: (f64, f64),
        to: (f64, f64),
        button: MouseButton,
    ) -> Result<()> {
        self.with_live(async |live| {
            live.motion(node, from).await?;
            tokio::time::sleep(POINTER_SETTLE).await;
            live.button(button, KeyState::Pressed).await?;
            for step in 1..=8 {
                let t = f64::from(step) / 8.0;
                let p = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
                live.motion(node, p).await?;
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
            live.button(button, KeyState::Released).await
        })
        .await
    }

    /// Scrolls by wheel steps at `at` (positive `dy` scrolls down).
    pub(crate) async fn scroll(&self, node: u32, at: (f64, f64), dx: i32, dy: i32) -> Result<()> {
        self.with_live(async |live| {
            live.motion(node, at).await?;
            tokio::time::sleep(POINTER_SETTLE).await;
            if dy != 0 {
                live.remote
                    .notify_pointer_axis_discrete(
                        &live.session,
                        Axis::Vertical,
                        dy,
                        NotifyPointerAxisDiscreteOptions::default(),
                    )
                    .await?;
            }
            if dx != 0 {
                live.remote
                    .notify_pointer_axis_discrete(
                        &live.session,
                        Axis::Horizontal,
                        dx,
                        NotifyPointerAxisDiscreteOptions::default(),
                    )
                    .await?;
            }
            Ok(())
        })
        .await
    }

    /// One frame of `node` as RGBA.
    ///
    /// Each attempt is a new PipeWire consumer. Mutter records a window stream's frame when a
    /// consumer starts streaming and then only when the window is damaged, and that first frame
    /// is lost when no buffer is ready yet (seen 1 time in 120 on a loaded machine, and once in
    /// CI): an idle window then never sends one. So an attempt that gets nothing within
    /// `FRAME_ATTEMPT` is dropped, which disconnects it, and a new one starts, until
    /// `FRAME_TIMEOUT` has passed.
    pub(crate) async fn frame(&self, node: u32) -> Result<WindowImage> {
        let limit = if FRAME_READ.load(std::sync::atomic::Ordering::Relaxed) {
            FRAME_TIMEOUT
        } else {
            FIRST_FRAME_TIMEOUT
        };
        let deadline = tokio::time::Instant::now() + limit;
        let png = loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            // The first read of a process may spend its whole limit building GStreamer's registry.
            let attempt = if FRAME_READ.load(std::sync::atomic::Ordering::Relaxed) {
                left.min(FRAME_ATTEMPT)
            } else {
                left
            };
            if attempt.is_zero() {
                return Err(Error::new(
                    ErrorCode::ImageCaptureTimeout,
                    format!("no frame from stream {node} within {limit:?}"),
                ));
            }
            match tokio::time::timeout(attempt, read_png(node)).await {
                Ok(png) => break png?,
                Err(_) => tracing::debug!(node, ?attempt, "no frame from this consumer; a new one"),
            }
        };
        FRAME_READ.store(true, std::sync::atomic::Ordering::Relaxed);
        let decoded = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
            .map_err(|e| {
                Error::new(
                    ErrorCode::ImageCaptureFailed,
                    format!("stream {node} gave no readable frame: {e}"),
                )
            })?
            .to_rgba8();
        Ok(WindowImage {
            width: decoded.width(),
            height: decoded.height(),
            rgba: decoded.into_raw(),
        })
    }
}

/// One frame of `node` as PNG, read by one GStreamer consumer (killed when dropped).
async fn read_png(node: u32) -> Result<Vec<u8>> {
    let output = tokio::process::Command::new("gst-launch-1.0")
        .args(["-q", "pipewiresrc"])
        .arg(format!("path={node}"))
        .args([
            "num-buffers=1",
            "!",
            "videoconvert",
            "!",
            "pngenc",
            "!",
            "fdsink",
            "fd=1",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::ImageCaptureFailed,
                format!("cannot run gst-launch-1.0 to read a ScreenCast frame: {e}"),
            )
            .with_suggestion(
                "Install gstreamer1.0-tools, gstreamer1.0-pipewire and gstreamer1.0-plugins-good.",
            )
        })?;
    Ok(output.stdout)
}

impl Live {
    async fn key(&self, keysym: i32, state: KeyState) -> std::result::Result<(), ashpd::Error> {
        self.remote
            .notify_keyboard_keysym(
                &self.session,
                keysym,
                state,
                NotifyKeyboardKeysymOptions::default(),
            )
            .await
    }

    async fn motion(&self, node: u32, at: (f64, f64)) -> std::result::Result<(), ashpd::Error> {
        self.remote
            .notify_pointer_motion_absolute(
                &self.session,
                node,
                at.0,
                at.1,
                NotifyPointerMotionAbsoluteOptions::default(),
            )
            .await
    }

    async fn button(
        &self,
        button: MouseButton,
        state: KeyState,
    ) -> std::result::Result<(), ashpd::Error> {
        // Linux evdev codes: BTN_LEFT, BTN_RIGHT, BTN_MIDDLE, BTN_SIDE, BTN_EXTRA.
        let code = match button {
            MouseButton::Left => 0x110,
            MouseButton::Right => 0x111,
            MouseButton::Middle => 0x112,
            MouseButton::Back => 0x113,
            MouseButton::Forward => 0x114,
        };
        self.remote
            .notify_pointer_button(
                &self.session,
                code,
                state,
                NotifyPointerButtonOptions::default(),
            )
            .await
    }

    /// The first events of a new session are dropped: a motion and a Shift tap go first.
    async fn prime(&self) {
        if let Some(s) = self.streams.first() {
            let _ = self.motion(s.node, (1.0, 1.0)).await;
        }
        let _ = self.key(SHIFT_L, KeyState::Pressed).await;
        let _ = self.key(SHIFT_L, KeyState::Released).await;
        tokio::time::sleep(PRIME_SETTLE).await;
    }
}

/// The portal's restore token (RemoteDesktop v2+): a capability the person granted, kept
/// readable by this user only, in the state directory.
mod restore_token {
    use std::path::PathBuf;

    fn path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
        Some(base.join("mcp-computer-use").join("portal-restore-token"))
    }

    pub(super) fn load() -> Option<String> {
        let text = std::fs::read_to_string(path()?).ok()?;
        let token = text.trim().to_owned();
        (!token.is_empty()).then_some(token)
    }

    pub(super) fn save(token: &str) {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let Some(path) = path() else { return };
        let Some(dir) = path.parent() else { return };
        let _ = std::fs::create_dir_all(dir);
        let tmp = dir.join(".portal-restore-token.tmp");
        let written = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| f.write_all(token.as_bytes()))
            .and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            tracing::warn!("cannot keep the portal's restore token: {e}");
        }
    }
}
