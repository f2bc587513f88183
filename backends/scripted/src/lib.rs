//! A backend for tests: the middle test boundary between pure logic and a real desktop.
//!
//! [`Scripted`] serves windows whose element trees are written in the fixture outline format
//! (`cu_core::policy::extract::outline_fixture`, with `@x,y wxh` bounds), and behaves the way a toolkit
//! does where the safety gate cares:
//!
//! - focus moves on Tab and shift+Tab among focusable, enabled elements, and to what is clicked;
//! - space presses the focused button (it is text in a text field); Return presses the focused
//!   button, or the window's `default` button when focus is on a control that does not take it
//!   (a single-line field, a check box, a list item) or nowhere;
//! - a letter typed on a list or tree item moves focus to the next item starting with it;
//! - `alt+letter` presses the control whose name marks that letter with `_` (`"_Delete"`), and in
//!   an open menu a plain letter does;
//! - a click presses the control under the point (the deepest element whose bounds hold it, its
//!   nearest interactive ancestor), a drag presses when it starts and ends on the same control;
//! - semantic actions press, toggle, select, focus and set text;
//! - hit tests and the focused element are answered from the live tree.
//!
//! Every call that changes something is recorded ([`Event`]); presses are listed by
//! [`Scripted::presses`]; snapshots are counted ([`Scripted::snapshots`]). A watch wakes on any
//! change; with [`Scripted::with_typed_events`] it also tells them apart the way AT-SPI events
//! do (the window's content, its focus, a new window, another window). A test can script the world: rename an element, move a window, open a
//! window when a button is pressed, or make the next call of a kind fail.

use std::sync::{Arc, Mutex, MutexGuard};

use cu_core::model::backend::{InputEvent, SemanticAction, WindowChange};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::window::WindowId;
use cu_core::policy::extract::outline_fixture;
use cu_core::ErrorCode;

mod backend;
mod watch;
mod world;

use world::World;

/// What the backend was asked to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Raw input to a window.
    Input(WindowId, InputEvent),
    /// A semantic action on an element (by its name).
    Perform(WindowId, String, SemanticAction),
    /// A window was brought to the front.
    Activate(WindowId),
    /// A window was asked to change (`gui_window`).
    Window(WindowId, WindowChange),
}

/// What happens when a named control is pressed.
#[derive(Debug, Clone)]
pub enum Reaction {
    /// Rename an element (by its current name).
    Rename {
        /// The element's name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Open a window from a fixture.
    Open(String),
    /// Close the window.
    Close,
    /// End the application: all its windows go and its process stops (a crash or a quit).
    Exit,
}

/// A semantic action an element answers as done and then ignores, as real apps do (Chromium's
/// date segments take a value and keep theirs; LibreOffice's Name Box takes focus and keeps
/// none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ignored {
    /// `SetText` and `SetValue`.
    Value,
    /// `Focus`, and the focus a click would give.
    Focus,
    /// `Focus` only: a click still focuses it.
    FocusAction,
}

/// Kinds of calls a test can make fail once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Call {
    /// `snapshot`.
    Snapshot,
    /// `perform`.
    Perform,
    /// `input`.
    Input,
    /// `element_at`.
    ElementAt,
    /// `focused`.
    Focused,
    /// `activate`.
    Activate,
}

/// The scripted backend; cheap to clone (shared world).
#[derive(Clone)]
pub struct Scripted {
    world: Arc<Mutex<World>>,
    /// Bumped on every change of the world, for [`Backend::watch`](cu_core::model::backend::Backend::watch).
    changes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Default for Scripted {
    fn default() -> Self {
        Scripted {
            world: Arc::default(),
            changes: Arc::new(tokio::sync::watch::Sender::new(0)),
        }
    }
}

/// The name [`Scripted::on_press`] reacts to when a window is asked to close (`gui_window`
/// close): `Reaction::Open` opens a "Save changes?" dialog instead of closing.
pub const CLOSE_REQUEST: &str = "(close request)";

/// The desktop instance every scripted observation carries.
pub const DESKTOP: &str = "scripted";

impl Scripted {
    /// A backend with no windows.
    pub fn new() -> Scripted {
        Scripted::default()
    }

    fn world(&self) -> MutexGuard<'_, World> {
        match self.world.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Adds a window from a fixture outline (its root's bounds are the window's size, placed at
    /// `origin` on the screen); returns its id. The element marked `focused` has focus.
    pub fn open(&self, fixture: &str, origin: Point) -> std::result::Result<WindowId, String> {
        let snapshot = outline_fixture::parse(fixture)?;
        let mut w = self.world();
        Ok(w.add(snapshot, origin))
    }

    /// Watches tell changes apart ([`Watch::seen`](cu_core::model::backend::Watch::seen)), as the AT-SPI backend's do; without this,
    /// they only wake (and effects are watched by reading the window again).
    pub fn with_typed_events(self) -> Scripted {
        self.world().typed_events = true;
        self
    }

    /// How many snapshots were taken.
    pub fn snapshots(&self) -> usize {
        self.world().snapshots.len()
    }

    /// How many times the focused element was asked for (`Backend::focused`).
    pub fn focus_reads(&self) -> usize {
        self.world().focus_reads
    }

    /// How many of the snapshots taken allowed a kept walk (`SnapshotOptions::reuse`).
    pub fn reusable_snapshots(&self) -> usize {
        self.world().snapshots.iter().filter(|r| **r).count()
    }

    /// Renames the first element named `from`.
    pub fn rename(&self, from: &str, to: &str) {
        self.world().rename(from, to);
        self.touched();
    }

    /// Tells the watches that the world changed.
    fn touched(&self) {
        self.changes.send_modify(|g| *g += 1);
    }

    /// Moves (or resizes) a window.
    pub fn move_window(&self, window: &WindowId, bounds: Rect) {
        if let Some(win) = self
            .world()
            .windows
            .iter_mut()
            .find(|x| &x.info.id == window)
        {
            win.info.bounds = Some(bounds);
        }
        self.touched();
    }

    /// What happens when the control named `name` is pressed.
    pub fn on_press(&self, name: &str, reaction: Reaction) {
        self.world().reactions.insert(name.to_owned(), reaction);
    }

    /// Makes the next call of kind `call` fail with `code`.
    pub fn fail_next(&self, call: Call, code: ErrorCode) {
        self.world().failures.insert(call, (code, false));
    }

    /// Makes the element named `name` answer `what` as done and ignore it.
    pub fn ignores(&self, name: &str, what: Ignored) {
        self.world().ignored.insert((name.to_owned(), what));
    }

    /// Makes the next call of kind `call` fail with `code` before anything reached the app (a
    /// key the platform cannot map, an element that refused the action).
    pub fn fail_next_unsent(&self, call: Call, code: ErrorCode) {
        self.world().failures.insert(call, (code, true));
    }

    /// Makes the next call of kind `call` panic (a bug inside a tool call, for the test that
    /// such a call answers `INTERNAL` and the next one works).
    pub fn panic_next(&self, call: Call) {
        self.world().panics.insert(call);
    }

    /// Every recorded call.
    pub fn events(&self) -> Vec<Event> {
        self.world().events.clone()
    }

    /// Input and actions only (activations left out).
    pub fn inputs(&self) -> Vec<Event> {
        self.events()
            .into_iter()
            .filter(|e| !matches!(e, Event::Activate(_)))
            .collect()
    }

    /// Names of the controls pressed, in order.
    pub fn presses(&self) -> Vec<String> {
        self.world().presses.clone()
    }

    /// The value of the first element named `name`.
    pub fn value_of(&self, name: &str) -> Option<String> {
        let w = self.world();
        w.windows
            .iter()
            .flat_map(|x| x.nodes.iter())
            .find(|n| n.name == name)
            .and_then(|n| n.value.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::backend::Backend;

    const DIALOG: &str = "title: Question\n---\ndialog \"Question\" @0,0 300x100\n  label \"Delete the file?\" @10,10 200x20\n  button \"Cancel\" @10,60 80x30 [focused]\n  button \"_Delete\" @100,60 80x30 [default]\n";

    fn run<F: std::future::Future>(f: F) -> F::Output {
        match tokio::runtime::Builder::new_current_thread().build() {
            Ok(rt) => rt.block_on(f),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn tab_moves_focus_and_space_presses_like_a_toolkit() {
        let s = Scripted::new();
        let w = s.open(DIALOG, Point::new(100, 100)).unwrap();
        run(async {
            let key = |k: &str| InputEvent::Key {
                combo: k.parse().unwrap(),
            };
            assert!(s.input(&w, &key("space")).await.is_ok());
            assert_eq!(s.presses(), vec!["Cancel".to_owned()]);
            assert!(s.input(&w, &key("Tab")).await.is_ok());
            let f = s.focused(&w).await.unwrap_or_default();
            assert_eq!(f.shown_name(), "_Delete");
            assert!(s
                .input(&w, &InputEvent::Text { text: " ".into() })
                .await
                .is_ok());
            assert_eq!(s.presses().last().map(String::as_str), Some("_Delete"));
            let hit = s
                .element_at(&w, Point::new(110, 70))
                .await
                .unwrap_or_default();
            assert_eq!(hit.receiver().map(|n| n.name.as_str()), Some("_Delete"));
            assert!(s
                .element_at(&w, Point::new(290, 95))
                .await
                .unwrap_or_default()
                .is_empty());
            assert!(s.input(&w, &key("alt+d")).await.is_ok());
            assert_eq!(s.presses().len(), 3);
        });
    }
}
