//! What a step's effect watch reports ([`Effect`], [`Observed`]) and what it compares: a
//! window's [`Fingerprint`], its content and its focus hashed apart.

use std::time::Duration;

use cu_core::model::element::{Snapshot, SnapshotOptions, State};
use cu_core::model::role::Role;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;

use super::windows::Opened;
use crate::service::Service;

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
    pub(crate) fn ends_sequence(self, step: usize, app_exited: bool) -> Option<Error> {
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

/// How long a window must stay still after its focus moved before that is reported as the step's
/// effect (a click on a field moves the focus first, then what it does follows).
pub(crate) const FOCUS_QUIET: Duration = Duration::from_millis(150);

/// How often the window is read again while an effect is watched.
pub(crate) const POLL: Duration = Duration::from_millis(25);

/// What the effect watch of one step saw.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub(crate) effect: Effect,
    /// The window's fingerprint last seen (the next step's baseline).
    pub(crate) fingerprint: Option<Fingerprint>,
    /// The window that appeared, if one did (also when the acted window closed).
    pub(crate) opened: Option<Opened>,
    /// The window closed and its application's process ended with it.
    pub(crate) app_exited: bool,
}

/// What an action visibly changes in a window, in two parts: its content and where its focus is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    /// Names, values and states of every node (bounds left out), without focus and without a
    /// push button's transient `pressed` (Qt shows a pressed button for 100 ms before it acts).
    content: u64,
    /// Which elements have focus.
    focus: u64,
    /// The window is a dialog (its root is a dialog or an alert).
    pub(crate) dialog: bool,
}

impl Fingerprint {
    /// A fingerprint no real window has, as a stale baseline in tests.
    #[cfg(test)]
    pub(crate) const STALE: Fingerprint = Fingerprint {
        content: 1,
        focus: 1,
        dialog: false,
    };

    /// Whether names, values or states differ from `before`'s.
    pub(crate) fn content_differs(&self, before: &Fingerprint) -> bool {
        self.content != before.content
    }

    /// Whether the focus is elsewhere than in `before`.
    pub(crate) fn focus_differs(&self, before: &Fingerprint) -> bool {
        self.focus != before.focus
    }

    /// What changed from `before` to this one, as one effect.
    pub(crate) fn effect_since(&self, before: &Fingerprint) -> Effect {
        if self.content != before.content {
            Effect::Changed
        } else if self.focus != before.focus {
            Effect::FocusMoved
        } else {
            Effect::NoChange
        }
    }

    /// Builds one from a snapshot.
    pub(crate) fn of(snapshot: &Snapshot) -> Fingerprint {
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

/// The window's fingerprint (`NOT_SUPPORTED` when it exposes no tree to compare).
pub(crate) async fn fingerprint(service: &Service, window: &WindowId) -> Result<Fingerprint> {
    let options = SnapshotOptions {
        time_budget_ms: 1500,
        ..SnapshotOptions::default()
    };
    let snapshot = service.backend.snapshot(window, &options).await?;
    if snapshot.window.no_tree {
        // Nothing of its content can be seen: its effects are not_checked, never no_change.
        return Err(Error::new(
            ErrorCode::NotSupported,
            "the window exposes no accessibility tree to compare",
        ));
    }
    Ok(Fingerprint::of(&snapshot))
}
