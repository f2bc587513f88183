//! The contract between tools and platform adapters.
//!
//! A [`Backend`] lists windows, snapshots one window's element tree, performs semantic actions on
//! elements, sends raw pointer and keyboard input at window-relative points, captures window
//! images and activates windows. It is object-safe (`Arc<dyn Backend>`), `Send + Sync`, and its
//! methods are `async` so the tools can run on tokio; a backend that must own a thread (COM on
//! Windows) hops to it inside its methods.
//!
//! [`Unavailable`] is the fallback used when no adapter is compiled in or the desktop cannot be
//! reached: every GUI call answers `GUI_UNAVAILABLE` with the reason, never a silent no-op.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::element::{DesktopInstance, ElementIdentity, Snapshot, SnapshotOptions};
use crate::model::geometry::Point;
use crate::model::receiver::Probe;
use crate::model::window::{WindowId, WindowInfo};

/// A semantic action on one element: no pixels are guessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SemanticAction {
    /// Press, click or activate (AT-SPI action, UIA Invoke, AXPress).
    Invoke,
    /// Toggle a check box or toggle button.
    Toggle,
    /// Replace the element's text.
    SetText {
        /// The new text.
        text: String,
    },
    /// Set a numeric value (slider, spin button).
    SetValue {
        /// The new value.
        value: f64,
    },
    /// Give the element keyboard focus.
    Focus,
    /// Select the element (list item, tab).
    Select,
    /// Choose this option of its drop-down (a combo box's item) by the option's own action,
    /// the popup left as it is: the drop-down, not the option, must be on screen.
    Choose,
    /// Expand or collapse.
    Expand {
        /// `true` to expand, `false` to collapse.
        expand: bool,
    },
    /// Scroll the element into view.
    ScrollIntoView,
}

impl SemanticAction {
    /// What the action does, in words, without its text (typed text never reaches a message).
    pub fn describe(&self) -> &'static str {
        match self {
            SemanticAction::Invoke => "a press",
            SemanticAction::Toggle => "a toggle",
            SemanticAction::SetText { .. } => "setting its text",
            SemanticAction::SetValue { .. } => "setting its value",
            SemanticAction::Focus => "a focus request",
            SemanticAction::Select => "a selection",
            SemanticAction::Choose => "a choice of an option",
            SemanticAction::Expand { .. } => "an expand or collapse",
            SemanticAction::ScrollIntoView => "a scroll into view",
        }
    }
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The middle button.
    Middle,
    /// The secondary button.
    Right,
    /// The "back" side button (X button 8, XBUTTON1).
    Back,
    /// The "forward" side button (X button 9, XBUTTON2).
    Forward,
}

/// Raw input at window-relative logical pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum InputEvent {
    /// Move the pointer.
    Move {
        /// Where to.
        at: Point,
    },
    /// Click `count` times (2 = double click).
    Click {
        /// Where.
        at: Point,
        /// Which button.
        button: MouseButton,
        /// How many clicks.
        count: u8,
    },
    /// Press at `from`, move to `to`, release.
    Drag {
        /// Start point.
        from: Point,
        /// End point.
        to: Point,
        /// Which button.
        button: MouseButton,
    },
    /// Scroll the wheel at a point; positive `dy` scrolls down, positive `dx` right, in notches.
    Scroll {
        /// Where.
        at: Point,
        /// Horizontal notches.
        dx: i32,
        /// Vertical notches.
        dy: i32,
    },
    /// A key combination such as `ctrl+shift+t`, `Return`, `alt+F4`.
    Key {
        /// The combination, parsed where it entered.
        combo: crate::model::keys::Combo,
    },
    /// Type text as keystrokes (any Unicode).
    Text {
        /// The text.
        text: String,
    },
    /// Press or release one button at a point, alone (a press held across steps).
    Button {
        /// Where.
        at: Point,
        /// Which button.
        button: MouseButton,
        /// Pressed (`true`) or released.
        pressed: bool,
    },
    /// A pointer event sent while modifier keys are held (ctrl+click, shift+drag,
    /// ctrl+scroll); they go down before it and up after it, whatever it did.
    Held {
        /// The keys held.
        modifiers: crate::model::keys::Modifiers,
        /// The pointer event.
        event: Box<InputEvent>,
    },
}

impl InputEvent {
    /// The pointer event itself, without the modifiers held around it.
    pub fn unheld(&self) -> &InputEvent {
        match self {
            InputEvent::Held { event, .. } => event.unheld(),
            other => other,
        }
    }

    /// The points where a button goes down or up (what the safety gate hit-tests).
    pub fn pressed_points(&self) -> Vec<Point> {
        match self.unheld() {
            InputEvent::Click { at, .. } | InputEvent::Button { at, .. } => vec![*at],
            InputEvent::Drag { from, to, .. } => vec![*from, *to],
            _ => Vec::new(),
        }
    }
}

/// A change to a top-level window (`gui_window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WindowChange {
    /// Bring it to the front with keyboard focus.
    Focus,
    /// Put its top-left corner (the client area, without the frame) at this screen point.
    Move {
        /// Where, in screen logical pixels.
        to: Point,
    },
    /// Give its client area this size.
    Resize {
        /// The new size.
        size: crate::model::geometry::Size,
    },
    /// Minimize (iconify) it.
    Minimize,
    /// Maximize it.
    Maximize,
    /// Undo minimize and maximize.
    Restore,
    /// Ask it to close, as its close button would (it may ask to save first).
    Close,
}

/// An RGBA image of a window, `width × height` logical pixels (scaled down by the backend where
/// the platform captures physical pixels).
#[derive(Clone, PartialEq, Eq)]
pub struct WindowImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGBA8 pixels, `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

impl std::fmt::Debug for WindowImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WindowImage({}x{})", self.width, self.height)
    }
}

impl WindowImage {
    /// An opaque image from rows of BGRA pixels (Windows DIBs, macOS `CGImage`s in their native
    /// byte order), `stride` bytes apart, top row first. `None` when the buffer is too short.
    pub fn from_bgra(width: u32, height: u32, stride: usize, bgra: &[u8]) -> Option<WindowImage> {
        let row = width as usize * 4;
        if stride < row || bgra.len() < stride * height.saturating_sub(1) as usize + row {
            return None;
        }
        let mut rgba = Vec::with_capacity(row * height as usize);
        for y in 0..height as usize {
            for px in bgra[y * stride..y * stride + row].chunks_exact(4) {
                rgba.extend_from_slice(&[px[2], px[1], px[0], 255]);
            }
        }
        Some(WindowImage {
            width,
            height,
            rgba,
        })
    }

    /// The image scaled to `width × height` by averaging the pixels each target pixel covers
    /// (physical pixels down to logical ones at 150 % or on Retina).
    #[must_use]
    pub fn resized(&self, width: u32, height: u32) -> WindowImage {
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) == (self.width, self.height) || self.width == 0 || self.height == 0 {
            return self.clone();
        }
        let span = |i: u32, to: u32, from: u32| {
            let a = (u64::from(i) * u64::from(from) / u64::from(to)) as u32;
            let b = ((u64::from(i) + 1) * u64::from(from)).div_ceil(u64::from(to)) as u32;
            a..b.clamp(a + 1, from)
        };
        let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
        for y in 0..height {
            let ys = span(y, height, self.height);
            for x in 0..width {
                let xs = span(x, width, self.width);
                let mut sum = [0u32; 4];
                let mut n = 0u32;
                for sy in ys.clone() {
                    for sx in xs.clone() {
                        let i = (sy as usize * self.width as usize + sx as usize) * 4;
                        for (acc, v) in sum.iter_mut().zip(&self.rgba[i..i + 4]) {
                            *acc += u32::from(*v);
                        }
                        n += 1;
                    }
                }
                rgba.extend(sum.iter().map(|v| (v / n.max(1)) as u8));
            }
        }
        WindowImage {
            width,
            height,
            rgba,
        }
    }

    /// True when every pixel has the same colour (a blank capture).
    pub fn is_uniform(&self) -> bool {
        let mut px = self.rgba.chunks_exact(4);
        match px.next() {
            Some(first) => px.all(|p| p[..3] == first[..3]),
            None => true,
        }
    }
}

/// What a backend can do here, now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Capabilities {
    /// Element trees can be read.
    pub accessibility_tree: bool,
    /// Semantic actions (press, set text, …) are available.
    pub semantic_actions: bool,
    /// Synthetic pointer input.
    pub pointer_input: bool,
    /// Synthetic keyboard input.
    pub keyboard_input: bool,
    /// Window images.
    pub capture: bool,
    /// Windows have global positions (false on Wayland).
    pub window_positions: bool,
}

/// The backend's name and capabilities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BackendInfo {
    /// Backend name, e.g. `linux-atspi-x11`.
    pub name: String,
    /// What works.
    pub capabilities: Capabilities,
    /// The desktop instance this backend is attached to.
    pub desktop: DesktopInstance,
}

/// One line of a health report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HealthCheck {
    /// What was checked, e.g. `display`, `atspi_bus`.
    pub name: String,
    /// Whether it is fine.
    pub ok: bool,
    /// What was found.
    pub detail: String,
}

impl HealthCheck {
    /// A line from a check's outcome: `ok_detail` when it passed, else the error's message and
    /// suggestion.
    pub fn from_result(name: &str, outcome: &Result<()>, ok_detail: &str) -> HealthCheck {
        HealthCheck {
            name: name.into(),
            ok: outcome.is_ok(),
            detail: match outcome {
                Ok(()) => ok_detail.into(),
                Err(e) => format!("{} ({})", e.message, e.suggestion),
            },
        }
    }
}

/// The object-safe interface every platform adapter implements.
///
/// All coordinates are window-relative logical pixels ([`crate::model::geometry`]).
///
/// # Platform-specific
///
/// - **Linux (X11)**: AT-SPI for the tree and actions, XTEST for input, GetImage for capture.
/// - **Linux (Wayland)**: window positions are unknown; input and capture go through the portal.
/// - **Windows**: UI Automation; input with SendInput.
/// - **macOS**: Accessibility (AXUIElement) and Quartz events.
#[async_trait]
pub trait Backend: Send + Sync {
    /// Name, capabilities and desktop instance. Connects on first use.
    async fn info(&self) -> Result<BackendInfo>;

    /// Checks what the backend depends on (display, accessibility bus) without failing.
    async fn health(&self) -> Vec<HealthCheck>;

    /// Lists visible top-level windows of applications.
    async fn list_windows(&self) -> Result<Vec<WindowInfo>>;

    /// The top-level windows as the display server lists them now, with the ids, processes and
    /// titles of [`list_windows`](Self::list_windows) but nothing only accessibility adds (the
    /// app's name, whether it has a tree, which one is focused): for telling quickly whether a
    /// window opened or closed while its application is busy, whose accessibility answers wait
    /// behind its work. The default: [`list_windows`](Self::list_windows).
    async fn shown_windows(&self) -> Result<Vec<WindowInfo>> {
        self.list_windows().await
    }

    /// Reads one window's element tree.
    async fn snapshot(&self, window: &WindowId, options: &SnapshotOptions) -> Result<Snapshot>;

    /// Performs a semantic action on an element of `window`.
    async fn perform(
        &self,
        window: &WindowId,
        element: &ElementIdentity,
        action: &SemanticAction,
    ) -> Result<()>;

    /// Sends raw input to `window`, activating it first where input goes to the top window.
    async fn input(&self, window: &WindowId, event: &InputEvent) -> Result<()>;

    /// Captures `window` without focusing, raising or moving it.
    async fn capture(&self, window: &WindowId) -> Result<WindowImage>;

    /// Brings `window` to the front and gives it focus.
    async fn activate(&self, window: &WindowId) -> Result<()>;

    /// Whether another application's window lies over part of `window` now (browsers stop
    /// drawing, and so stop reporting as showing, what is covered). `false` where the platform
    /// does not say (the default).
    async fn covered(&self, _window: &WindowId) -> Result<bool> {
        Ok(false)
    }

    /// Whether coordinate input can reach `window` now, at the size it had when observed
    /// (`observed`; a window resized since answers `WINDOW_MOVED`). Where window positions are
    /// unknown (Wayland) the backend must find the window first; the service asks before an
    /// action uses up its observation, so a refusal leaves the observation usable.
    async fn check_coordinates(
        &self,
        _window: &WindowId,
        _observed: Option<crate::model::geometry::Size>,
    ) -> Result<()> {
        Ok(())
    }

    /// The platform's own hit test: what would receive pointer input at `at` (window-relative
    /// logical pixels) now, from the window's element down to the deepest element there. An
    /// empty [`Probe`] means nothing was found. The safety gate calls it right before every
    /// press; a backend that cannot hit-test answers `NOT_SUPPORTED`, and the gate then asks for
    /// confirmation (it fails closed).
    async fn element_at(&self, _window: &WindowId, _at: Point) -> Result<Probe> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend cannot tell which element is at a point",
        ))
    }

    /// Changes a top-level window: focus, move, resize, minimize, maximize, restore, close. The
    /// backend only asks; the caller reads the result back. `ACTION_NOT_SUPPORTED` (the default)
    /// says, with the reason, what this platform cannot do (Wayland has no move).
    async fn change_window(&self, _window: &WindowId, change: &WindowChange) -> Result<()> {
        Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!("this backend cannot change windows ({change:?})"),
        ))
    }

    /// The clipboard's text (empty when it holds none). `NOT_SUPPORTED` by default.
    async fn read_clipboard(&self) -> Result<String> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend has no clipboard",
        ))
    }

    /// Puts text on the clipboard. `NOT_SUPPORTED` by default.
    async fn write_clipboard(&self, _text: &str) -> Result<()> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend has no clipboard",
        ))
    }

    /// Subscribes to the platform's change events for `window` (accessibility events) until
    /// the answer is dropped. `NOT_SUPPORTED` (the default) means the platform reports none
    /// here: the caller polls instead.
    async fn watch(&self, _window: &WindowId) -> Result<Box<dyn Watch>> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend reports no change events",
        ))
    }

    /// Whether the process `pid` still runs (`None`: this backend cannot tell). After an
    /// action closed a window, an ended process means its application ended with it.
    async fn process_running(&self, _pid: u32) -> Option<bool> {
        None
    }

    /// The element of `window` that has keyboard focus now (an empty [`Probe`] when none has).
    /// The safety gate calls it right before every key or typed piece that can activate a
    /// control; `NOT_SUPPORTED` makes the gate ask for confirmation.
    async fn focused(&self, _window: &WindowId) -> Result<Probe> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend cannot tell which element has focus",
        ))
    }

    /// The moves of keyboard focus in `window`'s application from now on: each active child a
    /// container names (a sheet's cursor moving to the next cell) and each focus it gives an
    /// element. The safety gate paces keys typed into a sheet by them; `NOT_SUPPORTED` where
    /// the platform tells none.
    async fn focus_moves(&self, _window: &WindowId) -> Result<Box<dyn FocusMoves>> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend does not tell focus moves",
        ))
    }

    /// The ancestors of `element` in `window`, outermost first, from the window's own element
    /// down to the element's parent, each read alone (no children). The safety gate asks it
    /// for the dialog a button answers, without reading the whole window; `NOT_SUPPORTED` makes
    /// it read the window instead.
    async fn ancestors(
        &self,
        _window: &WindowId,
        _element: &ElementIdentity,
    ) -> Result<Vec<crate::model::element::Node>> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this backend cannot list an element's ancestors",
        ))
    }
}

/// What an application's focus did after an input ([`FocusMoves::moved`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FocusMove {
    /// A container that manages its descendants named a new active child: a sheet's cursor
    /// moved to another cell.
    Cursor,
    /// Focus went to an element of another kind (a dialog's button): where it is must be read.
    Elsewhere,
    /// Nothing was told within the bound.
    Nothing,
}

/// The focus moves of one application from the moment it was made ([`Backend::focus_moves`]).
#[async_trait]
pub trait FocusMoves: Send + Sync {
    /// Waits up to `within` for the application's next move not waited for yet.
    async fn moved(&mut self, within: std::time::Duration) -> FocusMove;
}

/// A subscription to one window's change events ([`Backend::watch`]), alive until dropped.
/// Events that arrive while the caller is looking at the window are kept for the next
/// [`Watch::changed`], so none is missed between two looks.
#[async_trait]
pub trait Watch: Send {
    /// Waits up to `within` for a change reported since the subscription or the last call;
    /// `false` when none came. Several events that came together count once.
    async fn changed(&mut self, within: std::time::Duration) -> bool;

    /// Waits up to `within` for the next event that says the watched window itself changed
    /// (events of the application's other windows, and of geometry or the caret alone, are
    /// passed over) and tells what it said; `Ok(None)` when none came. `NOT_SUPPORTED` (the
    /// default): this watch cannot tell events apart, and the caller compares observations.
    async fn seen(&mut self, _within: std::time::Duration) -> Result<Option<Seen>> {
        Err(Error::new(
            ErrorCode::NotSupported,
            "this watch does not tell what an event changed",
        ))
    }

    /// As [`seen`](Self::seen), once the window is known to have changed: only
    /// [`Seen::NewWindow`] is told, the rest passed over (placing each event of a busy app costs
    /// round trips to it: Calc sends hundreds after a Tab); `Ok(None)` when none came within
    /// `within`. The default asks [`seen`](Self::seen) until one comes.
    async fn seen_new_window(&mut self, within: std::time::Duration) -> Result<Option<Seen>> {
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.seen(left).await? {
                Some(Seen::NewWindow) => return Ok(Some(Seen::NewWindow)),
                Some(_) if !left.is_zero() => continue,
                _ => return Ok(None),
            }
        }
    }

    /// Forgets the events received so far: those that came before an input are not its effect.
    fn clear(&mut self) {}

    /// Whether the window's application was seen sending events to this process before (so
    /// a step after which none came changed nothing its events would show). `false` (the
    /// default) where unknown.
    fn proven(&self) -> bool {
        false
    }

    /// Waits (up to `within`) until the window's application has handled what it was sent
    /// before now, by one round trip to it on the path its events take; its events sent
    /// meanwhile are then queued. An application busy building a dialog answers only once it
    /// is built. `false` where this watch cannot (the default) or the app did not answer.
    async fn settle(&mut self, _within: std::time::Duration) -> bool {
        false
    }

    /// The next event the application sent before it answered the last [`settle`](Self::settle),
    /// as [`seen`](Self::seen) tells it, without waiting; `Ok(None)` once they are all read (an
    /// app that keeps sending does not hold the caller). With `new_windows_only`, only
    /// [`Seen::NewWindow`] is told and the rest passed over: the caller knows the window changed,
    /// and only a window on its way still matters (telling where the others happened costs
    /// round trips to a busy app). The default: whatever is queued now.
    async fn seen_before_settle(&mut self, new_windows_only: bool) -> Result<Option<Seen>> {
        loop {
            match self.seen(std::time::Duration::ZERO).await? {
                Some(seen) if new_windows_only && seen != Seen::NewWindow => continue,
                told => return Ok(told),
            }
        }
    }
}

/// What one of a window's change events said ([`Watch::seen`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Seen {
    /// Something the window shows changed: a name, a value, a state, text, or its children.
    Content,
    /// Which element has focus changed (and nothing else, as far as this event says).
    Focus,
    /// Another window of the application was created or activated (the listing of windows
    /// shows it soon).
    NewWindow,
    /// Something changed outside the window, in the same application (another window, or
    /// elements not placed in a window yet): the app is still at work.
    Elsewhere,
}

/// The backend used when no adapter is compiled in, or none can reach a desktop.
#[derive(Debug, Clone)]
pub struct Unavailable {
    reason: String,
}

impl Unavailable {
    /// A fallback that answers every GUI call with `GUI_UNAVAILABLE` and `reason`.
    pub fn new(reason: impl Into<String>) -> Unavailable {
        Unavailable {
            reason: reason.into(),
        }
    }

    fn error(&self) -> Error {
        Error::new(ErrorCode::GuiUnavailable, self.reason.clone())
    }
}

#[async_trait]
impl Backend for Unavailable {
    async fn info(&self) -> Result<BackendInfo> {
        Err(self.error())
    }

    async fn health(&self) -> Vec<HealthCheck> {
        vec![HealthCheck {
            name: "backend".into(),
            ok: false,
            detail: self.reason.clone(),
        }]
    }

    async fn list_windows(&self) -> Result<Vec<WindowInfo>> {
        Err(self.error())
    }

    async fn snapshot(&self, _: &WindowId, _: &SnapshotOptions) -> Result<Snapshot> {
        Err(self.error())
    }

    async fn perform(&self, _: &WindowId, _: &ElementIdentity, _: &SemanticAction) -> Result<()> {
        Err(self.error())
    }

    async fn input(&self, _: &WindowId, _: &InputEvent) -> Result<()> {
        Err(self.error())
    }

    async fn capture(&self, _: &WindowId) -> Result<WindowImage> {
        Err(self.error())
    }

    async fn activate(&self, _: &WindowId) -> Result<()> {
        Err(self.error())
    }

    async fn change_window(&self, _: &WindowId, _: &WindowChange) -> Result<()> {
        Err(self.error())
    }

    async fn element_at(&self, _: &WindowId, _: Point) -> Result<Probe> {
        Err(self.error())
    }

    async fn focused(&self, _: &WindowId) -> Result<Probe> {
        Err(self.error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_is_object_safe_and_shareable() {
        fn assert_send_sync<T: Send + Sync + ?Sized>() {}
        assert_send_sync::<dyn Backend>();
        let _: std::sync::Arc<dyn Backend> = std::sync::Arc::new(Unavailable::new("none"));
    }

    #[test]
    fn actions_and_inputs_round_trip() {
        let actions = vec![
            SemanticAction::Invoke,
            SemanticAction::SetText {
                text: "שלום".into(),
            },
            SemanticAction::SetValue { value: 2.5 },
            SemanticAction::Expand { expand: false },
        ];
        let json = serde_json::to_string(&actions).unwrap_or_default();
        let back: Vec<SemanticAction> = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, actions);
        let inputs = vec![
            InputEvent::Click {
                at: Point::new(3, 4),
                button: MouseButton::Right,
                count: 2,
            },
            InputEvent::Key {
                combo: crate::model::keys::Combo::with(
                    crate::model::keys::NamedKey::Ctrl,
                    crate::model::keys::Key::Char('a'),
                ),
            },
            InputEvent::Scroll {
                at: Point::new(1, 1),
                dx: 0,
                dy: -3,
            },
        ];
        let json = serde_json::to_string(&inputs).unwrap_or_default();
        let back: Vec<InputEvent> = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, inputs);
    }

    #[test]
    fn bgra_rows_with_padding_become_opaque_rgba() {
        // 2×2, stride 12 (4 bytes of padding per row), alpha 0 as PrintWindow leaves it.
        let bgra = [
            1, 2, 3, 0, 4, 5, 6, 0, 9, 9, 9, 9, //
            7, 8, 9, 0, 10, 11, 12, 0,
        ];
        let img = WindowImage::from_bgra(2, 2, 12, &bgra).unwrap_or_else(|| panic!("fits"));
        assert_eq!(
            img.rgba,
            [3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255, 12, 11, 10, 255]
        );
        assert!(WindowImage::from_bgra(2, 2, 12, &bgra[..19]).is_none());
        assert!(WindowImage::from_bgra(2, 2, 4, &bgra).is_none());
    }

    #[test]
    fn resizing_averages_physical_pixels_into_logical_ones() {
        // A Retina 4×2 capture: left 2×2 block white, right 2×2 black → 2×1 logical.
        let px = |v: u8| [v, v, v, 255];
        let rgba: Vec<u8> = [255, 255, 0, 0, 255, 255, 0, 0]
            .into_iter()
            .flat_map(px)
            .collect();
        let img = WindowImage {
            width: 4,
            height: 2,
            rgba,
        };
        let small = img.resized(2, 1);
        assert_eq!((small.width, small.height), (2, 1));
        assert_eq!(small.rgba, [255, 255, 255, 255, 0, 0, 0, 255]);
        // 150 %: 3 physical pixels to 2 logical ones, every source pixel covered.
        let wide = WindowImage {
            width: 3,
            height: 1,
            rgba: [0, 90, 180].into_iter().flat_map(px).collect(),
        };
        assert_eq!(
            wide.resized(2, 1).rgba,
            [45, 45, 45, 255, 135, 135, 135, 255]
        );
        assert_eq!(img.resized(4, 2), img);
    }

    #[test]
    fn uniform_image_is_detected() {
        let blank = WindowImage {
            width: 2,
            height: 1,
            rgba: vec![9, 9, 9, 255, 9, 9, 9, 255],
        };
        assert!(blank.is_uniform());
        let drawn = WindowImage {
            width: 2,
            height: 1,
            rgba: vec![9, 9, 9, 255, 0, 9, 9, 255],
        };
        assert!(!drawn.is_uniform());
    }
}
