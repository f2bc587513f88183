//! The Wayland half of input and capture: a window's stream in the portal session, the
//! window's place in that stream's frame, and the events sent there. Coordinates are only used
//! when the window has its own stream and is found in its frame at its own size; otherwise
//! coordinate actions are refused with the semantic alternative, never sent to a guessed place.

use cu_core::model::backend::{InputEvent, WindowImage};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

use super::connected::{Connected, InputPath};
use super::state::WindowEntry;
use crate::frame;
use crate::sys::atspi::{ObjRef, COMPONENT};
use crate::sys::portal::Portal;
use crate::translate::{atspi_role, atspi_state};

/// How long a window asked to take the keyboard is given to say it has it.
const PRESENT_WAIT: std::time::Duration = std::time::Duration::from_millis(600);

fn no_position(why: &str) -> Error {
    Error::new(
        ErrorCode::ActionNotSupported,
        format!("coordinates cannot be used on this Wayland window: {why}"),
    )
    .with_suggestion(
        "Act on an element id (semantic actions: click, set_value, focus) instead of x/y.",
    )
}

impl Connected {
    fn portal(&self) -> Result<&Portal> {
        match &self.input {
            InputPath::Portal(p) => Ok(p),
            InputPath::X11(_) | InputPath::None => Err(Error::new(
                ErrorCode::ActionNotSupported,
                "raw input and capture need X11 or the desktop portal, and this session has neither",
            )
            .with_suggestion("Use semantic actions (element ids) instead of coordinates.")),
        }
    }

    /// The window's surface size and the window's content in it, as the accessibility tree
    /// reports them (surface-relative on Wayland).
    async fn surface(&self, entry: &WindowEntry) -> Result<((i32, i32), Rect)> {
        let frame = entry.frame()?;
        let (_, _, w, h) = self.atspi.extents(frame).await?;
        let mut children = Vec::new();
        for child in self.atspi.children(frame).await.unwrap_or_default() {
            if let Ok(e) = self.atspi.extents(&child).await {
                children.push(e);
            }
        }
        Ok(((w, h), frame::content_rect((w, h), &children)))
    }

    /// The stream showing this window, and where the window sits in its frame (with the frame).
    /// When no shared stream shows it, the session is started once more, so the person can
    /// share this window too.
    async fn locate(&self, window: &WindowId) -> Result<(u32, Rect, WindowImage)> {
        match self.locate_in_session(window).await {
            Err(Unlocated::NotShown(_)) => {
                self.portal()?.restart().await;
                self.locate_in_session(window)
                    .await
                    .map_err(Unlocated::into_error)
            }
            other => other.map_err(Unlocated::into_error),
        }
    }

    async fn locate_in_session(
        &self,
        window: &WindowId,
    ) -> std::result::Result<(u32, Rect, WindowImage), Unlocated> {
        let portal = self.portal()?;
        let entry = self.live_entry(window).await?;
        let (size, content) = self.surface(&entry).await?;
        let streams = portal.streams().await?;
        if !streams.iter().any(|s| s.window) {
            return Err(no_position(
                "the desktop shares whole monitors only, and a window's place on them is unknown",
            )
            .into());
        }
        let mut seen = Vec::new();
        for stream in streams.iter().filter(|s| s.window) {
            let image = portal.frame(stream.node).await?;
            match frame::locate_window(&image.rgba, image.width, image.height, size, content) {
                Ok(rect) => {
                    tracing::debug!(node = stream.node, ?rect, frame = ?(image.width, image.height), "window located in its stream");
                    return Ok((stream.node, rect, image));
                }
                Err(why) => seen.push(why),
            }
        }
        Err(Unlocated::NotShown(seen))
    }

    /// Where the window sits in its stream, for input: found afresh, or reused when it was found
    /// within the last second (the coordinate check just before the input).
    pub(super) async fn place_of(&self, window: &WindowId) -> Result<(u32, Rect)> {
        const FRESH: std::time::Duration = std::time::Duration::from_secs(1);
        if let Ok(slot) = self.located.lock() {
            if let Some((id, at, node, rect)) = slot.as_ref() {
                if id == window && at.elapsed() < FRESH {
                    return Ok((*node, *rect));
                }
            }
        }
        let (node, rect, _) = self.locate(window).await?;
        if let Ok(mut slot) = self.located.lock() {
            *slot = Some((window.clone(), std::time::Instant::now(), node, rect));
        }
        Ok((node, rect))
    }

    /// Coordinates can reach `window` now: it is found in its stream, and it still has the size
    /// it had when observed (`observed`; its frame's extents read live), else `WINDOW_MOVED`.
    /// The stream is looked for first: a session that can never place a window refuses
    /// coordinates as such (`ACTION_NOT_SUPPORTED`), whatever the window did since.
    pub(super) async fn check_place(
        &self,
        window: &WindowId,
        observed: Option<cu_core::model::geometry::Size>,
    ) -> Result<()> {
        self.place_of(window).await?;
        if let Some(seen) = observed {
            let entry = self.live_entry(window).await?;
            let (_, _, width, height) = self.atspi.extents(entry.frame()?).await?;
            if (width, height) != (seen.width, seen.height) {
                return Err(Error::new(
                    ErrorCode::WindowMoved,
                    format!(
                        "window {window} was resized since the observation ({}x{} → {width}x{height})",
                        seen.width, seen.height
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Keys sent through the portal land wherever the compositor's keyboard focus is, so they
    /// are sent only while `window` holds it, read live right before: its frame is the active
    /// window, or a popup of its application is (a drop-down list, a menu, opened from it).
    /// Otherwise the window is asked to come forward (its toolkit presents it; a compositor may
    /// refuse a window that did not ask with a person's input) and looked at once more.
    pub(super) async fn holds_keyboard(&self, window: &WindowId) -> Result<()> {
        let entry = self.live_entry(window).await?;
        let frame = entry.frame()?;
        if self.keyboard_in(frame).await {
            return Ok(());
        }
        let asked = self
            .atspi
            .call::<_, bool>(frame, COMPONENT, "GrabFocus", &())
            .await
            .unwrap_or(false);
        if asked {
            let deadline = std::time::Instant::now() + PRESENT_WAIT;
            while std::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(30)).await;
                if self.keyboard_in(frame).await {
                    return Ok(());
                }
            }
        }
        Err(Error::new(
            ErrorCode::WindowNotFocused,
            format!(
                "window {window} does not have the keyboard focus, and on Wayland keys go to whichever window has it; the compositor {}",
                if asked { "did not bring it forward when asked" } else { "cannot be asked to bring it forward" }
            ),
        ))
    }

    /// Whether keys sent now reach `frame`'s window: it says ACTIVE, or a showing popup of its
    /// application does.
    async fn keyboard_in(&self, frame: &ObjRef) -> bool {
        if self
            .atspi
            .states(frame)
            .await
            .is_ok_and(|s| s.has(atspi_state::ACTIVE))
        {
            return true;
        }
        let tops = self
            .atspi
            .children(&crate::sys::atspi::Atspi::app_root(&frame.bus))
            .await
            .unwrap_or_default();
        for top in tops.iter().filter(|t| *t != frame) {
            let (role, states) = tokio::join!(self.atspi.role(top), self.atspi.states(top));
            let popup = role.is_ok_and(|r| {
                matches!(
                    r,
                    atspi_role::WINDOW | atspi_role::MENU | atspi_role::POPUP_MENU
                )
            });
            if popup
                && states.is_ok_and(|s| s.has(atspi_state::ACTIVE) && s.has(atspi_state::SHOWING))
            {
                return true;
            }
        }
        false
    }

    /// Input on Wayland: keys and text go to the focused window, and are sent only while it is
    /// `window`; pointer events to the window's place in its stream.
    pub(super) async fn portal_input(&self, window: &WindowId, event: &InputEvent) -> Result<()> {
        let portal = self.portal()?;
        match event {
            InputEvent::Key { combo } => {
                let syms = crate::keys::keysyms(combo);
                self.holds_keyboard(window).await?;
                return portal.keys(&syms).await;
            }
            InputEvent::Text { text } => {
                self.holds_keyboard(window).await?;
                return portal.text(text).await;
            }
            InputEvent::Held { modifiers, event } => {
                let syms = crate::keys::modifier_keysyms(*modifiers);
                portal.hold(&syms, true).await?;
                let done = Box::pin(self.portal_input(window, event)).await;
                let released = portal.hold(&syms, false).await;
                return done.and(released);
            }
            _ => {}
        }
        let (node, rect) = self.place_of(window).await?;
        let place = |p: Point| -> Result<(f64, f64)> {
            if !Rect::new(0, 0, rect.width, rect.height).contains(p) {
                return Err(Error::new(
                    ErrorCode::OutOfWindow,
                    format!(
                        "({}, {}) is outside the window (0, 0, {}, {})",
                        p.x, p.y, rect.width, rect.height
                    ),
                ));
            }
            Ok((f64::from(rect.x + p.x), f64::from(rect.y + p.y)))
        };
        match event {
            InputEvent::Move { at } => portal.move_to(node, place(*at)?).await,
            InputEvent::Click { at, button, count } => {
                portal.click(node, place(*at)?, *button, *count).await
            }
            InputEvent::Drag { from, to, button } => {
                portal.drag(node, place(*from)?, place(*to)?, *button).await
            }
            InputEvent::Scroll { at, dx, dy } => portal.scroll(node, place(*at)?, *dx, *dy).await,
            InputEvent::Button {
                at,
                button,
                pressed,
            } => portal.button(node, place(*at)?, *button, *pressed).await,
            other => Err(Error::new(
                ErrorCode::ActionNotSupported,
                format!("{other:?} is not supported through the desktop portal"),
            )),
        }
    }

    /// Capture on Wayland: the window's rectangle cut from its stream's frame.
    pub(super) async fn portal_capture(&self, window: &WindowId) -> Result<WindowImage> {
        let (_, rect, image) = self.locate(window).await.map_err(|e| {
            if e.code == ErrorCode::ActionNotSupported {
                Error::new(ErrorCode::ImageCaptureFailed, e.message)
                    .with_suggestion("Share this window when the desktop asks, or read the window's text with gui_state.")
            } else {
                e
            }
        })?;
        Ok(WindowImage {
            width: rect.width as u32,
            height: rect.height as u32,
            rgba: frame::crop(&image.rgba, image.width, image.height, rect),
        })
    }
}

/// Why a window could not be placed in the shared streams.
#[derive(Debug)]
enum Unlocated {
    /// No shared window stream shows it (what each stream showed instead): sharing again may
    /// help.
    NotShown(Vec<String>),
    /// Anything else, already the wire error.
    Failed(Error),
}

impl Unlocated {
    fn into_error(self) -> Error {
        match self {
            Unlocated::NotShown(seen) => no_position(&format!(
                "no shared window stream shows it ({}); share this window when the desktop asks",
                seen.join("; ")
            )),
            Unlocated::Failed(e) => e,
        }
    }
}

impl From<Error> for Unlocated {
    fn from(e: Error) -> Unlocated {
        Unlocated::Failed(e)
    }
}
