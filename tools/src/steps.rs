//! The step runner every acting tool shares (`gui_action`, `click`, `type_text`): a validated
//! step ([`Plan`]) is sent through the live gate ([`Sender`]), semantic first, and its effect is
//! observed; what happened is typed ([`Via`], [`Effect`]) and how a call ended ([`Outcome`]) is
//! what the audit log records.

use std::time::{Duration, Instant};

use cu_core::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::element::{Snapshot, SnapshotOptions, State};
use cu_core::geometry::Point;
use cu_core::role::Role;
use cu_core::state_registry::{SavedElement, SavedState};
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;

use super::guard::Sender;
use super::Service;

/// How a step was carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The element's own accessibility action (press, set text, focus).
    Semantic,
    /// Pointer input at window-relative coordinates.
    Coordinates,
    /// Keyboard input.
    Keyboard,
    /// A pause.
    Wait,
}

impl Via {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Semantic => "semantic",
            Via::Coordinates => "coordinates",
            Via::Keyboard => "keyboard",
            Via::Wait => "wait",
        }
    }
}

/// What was seen of a step's effect. Only what was observed: never a guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// The window's names, values or states changed.
    Changed,
    /// The window is gone.
    WindowClosed,
    /// A new window of the same application appeared (a dialog, a file chooser): see `opened`.
    WindowOpened,
    /// Only the keyboard focus moved (a Tab, a click on a field); nothing else changed.
    FocusMoved,
    /// Watched, and nothing changed.
    NoChange,
    /// Not watched (a wait, a move) or no baseline to compare with.
    NotChecked,
}

impl Effect {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Changed => "changed",
            Effect::WindowClosed => "window_closed",
            Effect::WindowOpened => "window_opened",
            Effect::FocusMoved => "focus_moved",
            Effect::NoChange => "no_change",
            Effect::NotChecked => "not_checked",
        }
    }

    /// The error that ends a sequence whose step `step` had this effect (and ended its
    /// application, if `app_exited`), when steps remain: nothing after it can reach the window.
    pub(super) fn ends_sequence(self, step: usize, app_exited: bool) -> Option<Error> {
        match self {
            Effect::WindowClosed if app_exited => Some(Error::new(
                ErrorCode::AppCrashed,
                format!(
                    "the application ended after step {step} (it crashed or quit); the steps after it were not run"
                ),
            )),
            Effect::WindowClosed => Some(Error::new(
                ErrorCode::WindowNotFound,
                format!("the window closed after step {step}"),
            )),
            _ => None,
        }
    }
}

/// How long an application's process may take to end after its last window closed before the
/// step is only `window_closed`.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// How long a window must stay still after its focus moved before that is reported as the step's
/// effect (a click on a field moves the focus first, then what it does follows).
pub(super) const FOCUS_QUIET: Duration = Duration::from_millis(150);

/// How often the window is read again while an effect is watched.
pub(super) const POLL: Duration = Duration::from_millis(25);

/// A window that appeared while a step's effect was watched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Opened {
    /// Its id, for `gui_state`.
    pub window_id: String,
    /// Its title.
    pub title: String,
}

/// What the effect watch of one step saw.
#[derive(Debug, Clone)]
pub(super) struct Observed {
    pub(super) effect: Effect,
    /// The window's fingerprint last seen (the next step's baseline).
    pub(super) fingerprint: Option<Fingerprint>,
    /// The window that appeared, if one did (also when the acted window closed).
    pub(super) opened: Option<Opened>,
    /// The window closed and its application's process ended with it.
    pub(super) app_exited: bool,
}

/// The windows listed right before a step's input: a window missing here that is listed after
/// it, of the acted window's application, was opened by the step.
#[derive(Debug, Clone)]
pub(super) struct WindowsBefore {
    owner: WindowInfo,
    ids: Vec<WindowId>,
}

impl WindowsBefore {
    /// The baseline from a listing taken before input; `None` when the acted window is not in it.
    pub(super) fn new(window: &WindowId, listed: Vec<WindowInfo>) -> Option<WindowsBefore> {
        let owner = listed.iter().find(|w| &w.id == window)?.clone();
        Some(WindowsBefore {
            owner,
            ids: listed.into_iter().map(|w| w.id).collect(),
        })
    }

    /// Whether `now` lists another window of the acted window's application (by process).
    pub(super) fn has_sibling(&self, window: &WindowId, now: &[WindowInfo]) -> bool {
        self.owner
            .pid
            .is_some_and(|pid| now.iter().any(|w| &w.id != window && w.pid == Some(pid)))
    }

    /// The first window of `now` that was not listed before and belongs to the same
    /// application: the same process where both are known, else the same application name.
    pub(super) fn opened(&self, now: &[WindowInfo]) -> Option<Opened> {
        now.iter()
            .filter(|w| !self.ids.contains(&w.id))
            .find(|w| match (w.pid, self.owner.pid) {
                (Some(a), Some(b)) => a == b,
                _ => !w.app.is_empty() && w.app == self.owner.app,
            })
            .map(|w| Opened {
                window_id: w.id.0.clone(),
                title: w.title.clone(),
            })
    }
}

/// How an acting call ended, as the audit log records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Refused before any input was sent (its state, if any, still usable).
    Refused,
    /// Every step ran.
    Acted,
    /// Input was sent, then a step failed.
    Failed,
}

impl Outcome {
    /// The audit log's `result`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Refused => "refused",
            Outcome::Acted => "ok",
            Outcome::Failed => "failed",
        }
    }

    /// A failure's outcome: whether any input went out before it.
    pub fn of_failure(sent: bool) -> Outcome {
        if sent {
            Outcome::Failed
        } else {
            Outcome::Refused
        }
    }
}

/// A step after validation.
#[derive(Debug, Clone)]
pub(super) enum Plan {
    Element {
        kind: Kind,
        element: SavedElement,
    },
    Point {
        kind: Kind,
        at: Point,
    },
    Drag {
        from: Point,
        to: Point,
    },
    Type {
        text: String,
        into: Option<SavedElement>,
    },
    Key {
        keys: String,
    },
    SetValue {
        element: SavedElement,
        value: String,
    },
    Focus {
        element: SavedElement,
    },
    Wait {
        ms: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Click,
    DoubleClick,
    RightClick,
    Move,
    Scroll { dx: i32, dy: i32 },
}

/// A failed acting call: the wire error, and whether input went out before it (which decides
/// its [`Outcome`], with no reading of the error's details).
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) error: Error,
    pub(super) sent: bool,
}

impl From<Error> for Failure {
    /// A failure before any input.
    fn from(error: Error) -> Failure {
        Failure { error, sent: false }
    }
}

impl Failure {
    /// A failure after `sender` was used: it knows whether input went out.
    pub(super) fn after(sender: &Sender<'_>, error: Error) -> Failure {
        Failure {
            error,
            sent: sender.sent_anything(),
        }
    }

    pub(super) fn outcome(&self) -> Outcome {
        Outcome::of_failure(self.sent)
    }
}

impl Service {
    /// The one audit write of the acting tools: a step that ran, or how a call ended. `result`
    /// comes from `outcome`, the error code from `error`; typed text is redacted.
    pub(super) fn audit(
        &self,
        record: cu_core::audit::AuditRecord,
        outcome: Outcome,
        error: Option<&Error>,
        typed: Option<&str>,
    ) {
        let record = cu_core::audit::AuditRecord {
            result: Some(outcome.as_str().into()),
            error_code: error.map(|e| e.code.as_str().to_owned()),
            ..record
        };
        if let Err(e) = self.audit.append(record, typed.filter(|t| !t.is_empty())) {
            tracing::warn!("audit log: {}", e.message);
        }
    }

    /// Runs one step through `sender` (which judges every piece of input live); returns how it
    /// was done.
    pub(super) async fn run(
        &self,
        sender: &mut Sender<'_>,
        state: &SavedState,
        plan: &Plan,
    ) -> Result<Via> {
        match plan {
            Plan::Element { kind, element } => {
                if *kind == Kind::Click && element.role != Role::Cell {
                    match sender
                        .perform(&element.identity, &SemanticAction::Invoke)
                        .await
                    {
                        Ok(()) => return Ok(Via::Semantic),
                        Err(e) if e.code != ErrorCode::ActionNotSupported => return Err(e),
                        Err(_) => {}
                    }
                }
                let at = center(element)?;
                self.check_geometry(&state.window, state).await?;
                sender.pointer(&pointer(*kind, at)).await?;
                Ok(Via::Coordinates)
            }
            Plan::Point { kind, at } => {
                sender.pointer(&pointer(*kind, *at)).await?;
                Ok(Via::Coordinates)
            }
            Plan::Drag { from, to } => {
                sender
                    .pointer(&InputEvent::Drag {
                        from: *from,
                        to: *to,
                        button: MouseButton::Left,
                    })
                    .await?;
                Ok(Via::Coordinates)
            }
            Plan::Type { text, into } => {
                if let Some(element) = into {
                    sender.prejudge_text(&element.identity, text).await?;
                    sender
                        .perform(&element.identity, &SemanticAction::Focus)
                        .await?;
                }
                sender.text(text).await?;
                Ok(Via::Keyboard)
            }
            Plan::Key { keys } => {
                sender.key(keys).await?;
                Ok(Via::Keyboard)
            }
            Plan::SetValue { element, value } => {
                let semantic = match (element.role, value.parse::<f64>()) {
                    (Role::Slider | Role::SpinButton | Role::ScrollBar, Ok(v)) => {
                        SemanticAction::SetValue { value: v }
                    }
                    _ => SemanticAction::SetText {
                        text: value.clone(),
                    },
                };
                if matches!(semantic, SemanticAction::SetText { .. }) {
                    // Text may end up typed (the fallback below): judged before anything is
                    // attempted, so a refusal leaves the call's state usable.
                    sender.prejudge_text(&element.identity, value).await?;
                }
                match sender.perform(&element.identity, &semantic).await {
                    Ok(()) => Ok(Via::Semantic),
                    Err(e)
                        if matches!(
                            e.code,
                            ErrorCode::NotEditable | ErrorCode::ActionNotSupported
                        ) =>
                    {
                        // No EditableText (Chromium) or it does nothing (Firefox): focus, replace by typing.
                        sender
                            .perform(&element.identity, &SemanticAction::Focus)
                            .await?;
                        if element.role == Role::Cell {
                            // Typing into a spreadsheet's active cell replaces what it holds;
                            // ctrl+a would select the whole sheet.
                            if value.is_empty() {
                                sender.key("Delete").await?;
                            } else {
                                sender.text(value).await?;
                            }
                            return Ok(Via::Keyboard);
                        }
                        sender.key("ctrl+a").await?;
                        if value.is_empty() {
                            sender.key("BackSpace").await?;
                        } else {
                            sender.text(value).await?;
                        }
                        Ok(Via::Keyboard)
                    }
                    Err(e) => Err(e),
                }
            }
            Plan::Focus { element } => {
                sender
                    .perform(&element.identity, &SemanticAction::Focus)
                    .await?;
                Ok(Via::Semantic)
            }
            Plan::Wait { ms } => {
                tokio::time::sleep(Duration::from_millis(*ms)).await;
                Ok(Via::Wait)
            }
        }
    }

    /// The window's fingerprint (`NOT_SUPPORTED` when it exposes no tree to compare).
    pub(super) async fn fingerprint(&self, window: &WindowId) -> Result<Fingerprint> {
        let options = SnapshotOptions {
            time_budget_ms: 1500,
            ..SnapshotOptions::default()
        };
        let snapshot = self.backend.snapshot(window, &options).await?;
        if snapshot.window.no_tree {
            // Nothing of its content can be seen: its effects are not_checked, never no_change.
            return Err(Error::new(
                ErrorCode::NotSupported,
                "the window exposes no accessibility tree to compare",
            ));
        }
        Ok(Fingerprint::of(&snapshot))
    }

    /// Brings the window forward before synthetic input and waits for it to be focused and its
    /// tree to settle, so the focus change of the activation is not reported as the action's
    /// effect: unchanged for 150 ms once an element has taken focus (toolkits give the focus
    /// widget its focus some time after the window is activated: Qt later than 150 ms), or for
    /// 600 ms in a window where nothing has taken it (yet); at most 1.5 s.
    pub(super) async fn activate_and_settle(&self, window: &WindowId) {
        let focused = || async {
            self.backend
                .list_windows()
                .await
                .ok()
                .and_then(|all| all.into_iter().find(|w| &w.id == window))
                .is_some_and(|w| w.focused)
        };
        if focused().await || self.backend.activate(window).await.is_err() {
            return;
        }
        let deadline = Instant::now() + Duration::from_millis(1500);
        while !focused().await && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let options = SnapshotOptions {
            time_budget_ms: 1500,
            ..SnapshotOptions::default()
        };
        let (mut last, mut since) = (None, Instant::now());
        while Instant::now() < deadline {
            let snapshot = self.backend.snapshot(window, &options).await.ok();
            let now = snapshot.as_ref().map(Fingerprint::of);
            let has_focus = snapshot
                .as_ref()
                .is_some_and(|s| s.nodes.iter().any(|n| n.states.contains(State::Focused)));
            let quiet = if has_focus { 150 } else { 600 };
            if now.is_none() || now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= Duration::from_millis(quiet) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    /// The windows listed now, as the baseline of the next step's effect watch (`None` when
    /// the listing fails: then no window is reported as opened).
    pub(super) async fn windows_before(&self, window: &WindowId) -> Option<WindowsBefore> {
        let listed = self.backend.shown_windows().await.ok()?;
        WindowsBefore::new(window, listed)
    }

    /// Whether a closed window's application ended with it: it has no window left and its
    /// process has ended (within [`EXIT_GRACE`]).
    pub(super) async fn app_exited(
        &self,
        windows: Option<&WindowsBefore>,
        listed: Option<&[WindowInfo]>,
    ) -> bool {
        let Some(pid) = windows.and_then(|w| w.owner.pid) else {
            return false;
        };
        if listed.is_some_and(|all| all.iter().any(|w| w.pid == Some(pid))) {
            return false;
        }
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match self.backend.process_running(pid).await {
                Some(false) => return true,
                None => return false,
                Some(true) if Instant::now() >= deadline => return false,
                Some(true) => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }

    /// Polls the window for up to [`EFFECT_WAIT`](super::EFFECT_WAIT) after an action (AT-SPI
    /// actions are asynchronous). The acted window gone is `window_closed`; else a new window
    /// of the same application is `window_opened`, whatever else changed; else a changed
    /// fingerprint is `changed` — in a dialog only at the end of the watch
    /// (its buttons show pressed a moment before they close it). The windows are listed after
    /// the window is read, so a dialog that took focus from its parent (the change seen) is
    /// listed by then, and a window is closed only when it is also no longer listed.
    ///
    /// With `events` (the call's subscription), the window's events answer instead
    /// ([`Service::observe_by_events`]); polling is what is left where they cannot.
    pub(super) async fn observe_effect(
        &self,
        window: &WindowId,
        before: Option<&Fingerprint>,
        windows: Option<&WindowsBefore>,
        events: Option<&mut super::effect_events::Events>,
    ) -> Observed {
        if let Some(events) = events {
            if let Some(seen) = self
                .observe_by_events(window, before, windows, events)
                .await
            {
                return seen;
            }
        }
        let started = Instant::now();
        let differs =
            |now: Option<Fingerprint>| before.zip(now).is_some_and(|(b, n)| b.content != n.content);
        let moved =
            |now: Option<Fingerprint>| before.zip(now).is_some_and(|(b, n)| b.focus != n.focus);
        let (mut last, mut still_since) = (None, Instant::now());
        loop {
            let read = self.fingerprint(window).await;
            let listed = self.backend.shown_windows().await.ok();
            // A window that cannot be read for a moment while a dialog opens is not closed:
            // gone means unreadable and no longer listed.
            let closed = matches!(&read, Err(e) if e.code == ErrorCode::WindowNotFound)
                && listed
                    .as_ref()
                    .is_none_or(|all| all.iter().all(|w| &w.id != window));
            let now = read.ok();
            let dialog = now.is_some_and(|f| f.dialog);
            // GTK 4 gives a dialog's root no dialog role: a window of an app that has another
            // window is waited on like one (its Return changes a field, then closes it).
            let dialog = dialog
                || windows
                    .zip(listed.as_ref())
                    .is_some_and(|(before, all)| before.has_sibling(window, all));
            if now.is_some() && now != last {
                (last, still_since) = (now, Instant::now());
            }
            let opened = windows
                .zip(listed.as_ref())
                .and_then(|(before, now)| before.opened(now));
            let still = still_since.elapsed() >= FOCUS_QUIET;
            if closed {
                return Observed {
                    effect: Effect::WindowClosed,
                    fingerprint: now,
                    opened,
                    app_exited: self.app_exited(windows, listed.as_deref()).await,
                };
            }
            let effect = if opened.is_some() {
                Some(Effect::WindowOpened)
            } else if differs(now) && !dialog {
                // A dialog is watched to the end: its Return or OK changes a field first and
                // closes it a moment later (GTK 4's chooser: 0.6 s), which is the effect.
                Some(Effect::Changed)
            } else if moved(now) && !differs(now) && still {
                // Only the focus moved, and nothing else followed for a moment.
                Some(Effect::FocusMoved)
            } else {
                None
            };
            if let Some(effect) = effect {
                return Observed {
                    effect,
                    fingerprint: now,
                    opened,
                    app_exited: false,
                };
            }
            // A dialog that changed gets half as long again to close.
            let limit = if dialog && differs(last) {
                self.effect_wait * 3 / 2
            } else {
                self.effect_wait
            };
            if started.elapsed() >= limit {
                let effect = if differs(last) {
                    Effect::Changed
                } else if moved(last) {
                    Effect::FocusMoved
                } else if before.is_some() {
                    Effect::NoChange
                } else {
                    Effect::NotChecked
                };
                return Observed {
                    effect,
                    fingerprint: last,
                    opened: None,
                    app_exited: false,
                };
            }
            tokio::time::sleep(POLL.min(limit.saturating_sub(started.elapsed()))).await;
        }
    }
}

/// What an action visibly changes in a window, in two parts: its content and where its focus is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fingerprint {
    /// Names, values and states of every node (bounds left out), without focus and without a
    /// push button's transient `pressed` (Qt shows a pressed button for 100 ms before it acts).
    content: u64,
    /// Which elements have focus.
    focus: u64,
    /// The window is a dialog (its root is a dialog or an alert).
    pub(super) dialog: bool,
}

impl Fingerprint {
    /// A fingerprint no real window has, as a stale baseline in tests.
    #[cfg(test)]
    pub(super) const STALE: Fingerprint = Fingerprint {
        content: 1,
        focus: 1,
        dialog: false,
    };

    /// What changed from `before` to this one, as one effect.
    pub(super) fn effect_since(&self, before: &Fingerprint) -> Effect {
        if self.content != before.content {
            Effect::Changed
        } else if self.focus != before.focus {
            Effect::FocusMoved
        } else {
            Effect::NoChange
        }
    }

    /// Builds one from a snapshot.
    pub(super) fn of(snapshot: &Snapshot) -> Fingerprint {
        use std::hash::{Hash, Hasher};
        let (mut content, mut focus) = (
            std::collections::hash_map::DefaultHasher::new(),
            std::collections::hash_map::DefaultHasher::new(),
        );
        for (i, n) in snapshot.nodes.iter().enumerate() {
            let mut states = n.states.without(State::Focused);
            if n.role == Role::Button {
                states = states.without(State::Pressed);
            }
            (n.role, &n.name, &n.value, states, n.children.len()).hash(&mut content);
            if n.states.contains(State::Focused) {
                (i, &n.identity).hash(&mut focus);
            }
        }
        Fingerprint {
            content: content.finish(),
            focus: focus.finish(),
            dialog: snapshot.is_dialog(),
        }
    }
}

/// Steps that send synthetic input (and so activate the window first): pointer and keyboard
/// steps, and element steps other than a click on a control (which is pressed semantically;
/// static text has no action and is clicked at its centre).
pub(super) fn sends_input(plan: &Plan) -> bool {
    match plan {
        Plan::Point { .. } | Plan::Drag { .. } | Plan::Type { .. } | Plan::Key { .. } => true,
        Plan::Element { kind, element } => *kind != Kind::Click || !pressed_semantically(element),
        Plan::SetValue { .. } | Plan::Focus { .. } | Plan::Wait { .. } => false,
    }
}

/// Whether a click on `element` is expected to be its semantic press (anything else with an
/// action is tried semantically too, falling back to its centre). A cell's click is always a
/// real click at its centre: its actions activate or edit the row (Thunar's "activate" opens
/// the file), where a person's click selects it.
fn pressed_semantically(element: &SavedElement) -> bool {
    element.role.is_interactive() && element.role != Role::Cell
}

pub(super) fn center(element: &SavedElement) -> Result<Point> {
    element
        .bounds
        .filter(|b| !b.is_empty())
        .map(|b| b.center())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!(
                    "{} offers no semantic action and has no bounds to click",
                    element.id
                ),
            )
        })
}

fn pointer(kind: Kind, at: Point) -> InputEvent {
    match kind {
        Kind::Click => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 1,
        },
        Kind::DoubleClick => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 2,
        },
        Kind::RightClick => InputEvent::Click {
            at,
            button: MouseButton::Right,
            count: 1,
        },
        Kind::Move => InputEvent::Move { at },
        Kind::Scroll { dx, dy } => InputEvent::Scroll { at, dx, dy },
    }
}
