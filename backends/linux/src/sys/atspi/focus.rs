//! Where each application's keyboard focus went last, as its `object:state-changed:focused`
//! events said.
//!
//! The safety gate asks what has focus before every piece of keyboard input. Searching the window
//! for it costs a walk where `Collection` cannot be used: in LibreOffice Calc about 3,000 cells,
//! 550 ms, for every key. The element the last focus event named is only a *candidate*: the
//! probe reads it live and takes it only if it still says FOCUSED and sits in the window or in a
//! showing top-level of its application ([`super::probe::focused`]); otherwise the window is
//! searched as before. So a missed or late event costs time, never a wrong answer.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Atspi, ObjRef};

/// The event registered with the registry (atk-bridge apps send only what someone listens for).
const EVENT: &str = "object:state-changed:focused";

/// The last element each application said gained focus, by bus name.
pub(crate) struct FocusLog {
    last: Mutex<HashMap<String, ObjRef>>,
    /// Applications that sent a focus event: they send events to this process.
    heard: Mutex<std::collections::HashSet<String>>,
    /// How many focus gains were recorded, to wait for the next one.
    gains: tokio::sync::watch::Sender<u64>,
    /// Every focus gain and active child, as it is recorded: a sheet's cursor moving names its
    /// new cell as the sheet's active child, with no focus event.
    moves: tokio::sync::broadcast::Sender<Move>,
    /// The child each container that manages its descendants (a Calc sheet, a tree view) last
    /// named active: the focus event names the container, and keys go to this child.
    active: Mutex<HashMap<ObjRef, ObjRef>>,
}

/// One focus move an application told ([`FocusLog::moves`]).
#[derive(Debug, Clone)]
pub(crate) struct Move {
    /// The element that gained focus, or the container that named a new active child.
    pub(crate) source: ObjRef,
    /// `source` named a new active child (else it gained focus).
    pub(crate) active_child: bool,
}

/// Moves kept for a subscriber that has not read them yet (a subscriber that falls behind
/// learns it, and reads focus instead).
const MOVES_KEPT: usize = 256;

/// Containers whose active child is remembered at most (a long session opens many tables).
const MAX_ACTIVE: usize = 256;

impl Default for FocusLog {
    fn default() -> Self {
        FocusLog {
            last: Mutex::default(),
            heard: Mutex::default(),
            gains: tokio::sync::watch::channel(0).0,
            moves: tokio::sync::broadcast::channel(MOVES_KEPT).0,
            active: Mutex::default(),
        }
    }
}

impl FocusLog {
    /// The element `bus`'s application last said gained focus (and did not say lost since).
    pub(crate) fn of(&self, bus: &str) -> Option<ObjRef> {
        self.last.lock().ok()?.get(bus).cloned()
    }

    /// Watches the focus gains from now on: its `changed()` resolves at the next one recorded.
    pub(crate) fn gains(&self) -> tokio::sync::watch::Receiver<u64> {
        self.gains.subscribe()
    }

    /// The focus moves of every application from now on (gains and active children).
    pub(crate) fn moves(&self) -> tokio::sync::broadcast::Receiver<Move> {
        self.moves.subscribe()
    }

    /// The child `container` last named active (`object:active-descendant-changed`).
    pub(crate) fn active_in(&self, container: &ObjRef) -> Option<ObjRef> {
        self.active.lock().ok()?.get(container).cloned()
    }

    /// Whether the application at `bus` sent this process a focus event.
    pub(crate) fn heard_from(&self, bus: &str) -> bool {
        self.heard.lock().is_ok_and(|h| h.contains(bus))
    }

    /// Takes `obj` (the focused element a walk just saw) as the candidate for its application
    /// when no focus event named one yet.
    pub(crate) fn suggest(&self, obj: ObjRef) {
        if let Ok(mut last) = self.last.lock() {
            last.entry(obj.bus.clone()).or_insert(obj);
        }
    }

    fn record(&self, obj: ObjRef, gained: bool) {
        if let Ok(mut heard) = self.heard.lock() {
            heard.insert(obj.bus.clone());
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if gained {
            last.insert(obj.bus.clone(), obj.clone());
            drop(last);
            self.gains.send_modify(|n| *n += 1);
            // No subscriber is no error.
            let _ = self.moves.send(Move {
                source: obj,
                active_child: false,
            });
        } else if last.get(&obj.bus) == Some(&obj) {
            last.remove(&obj.bus);
        }
    }
}

/// The child an `ActiveDescendantChanged` signal names (its `any_data`, an object reference).
fn active_child(message: &zbus::Message) -> Option<ObjRef> {
    let (_, _, data) = super::watch::event_args(message)?;
    let (bus, path): (String, zbus::zvariant::OwnedObjectPath) = data.try_into().ok()?;
    let child = ObjRef { bus, path };
    (!child.is_null()).then_some(child)
}

/// Whether a `StateChanged` signal says its element gained (`true`) or lost focus.
fn gained(message: &zbus::Message) -> Option<bool> {
    let (detail, detail1, _) = super::watch::event_args(message)?;
    (detail == "focused").then_some(detail1 != 0)
}

impl FocusLog {
    /// Records what `message` says of focus, if it is a focus event or names a container's
    /// active child (the change-counting task hands every event here before it counts it, so
    /// [`Atspi::caught_up`] proves the log is as current as the counts).
    pub(super) fn hear(&self, message: &zbus::Message) {
        let header = message.header();
        let (Some(sender), Some(path)) = (header.sender(), header.path()) else {
            return;
        };
        if header
            .member()
            .is_some_and(|m| m == "ActiveDescendantChanged")
        {
            let container = ObjRef {
                bus: sender.to_string(),
                path: path.to_owned().into(),
            };
            if let (Some(child), Ok(mut active)) = (active_child(message), self.active.lock()) {
                if active.len() >= MAX_ACTIVE {
                    active.clear();
                }
                active.insert(container.clone(), child);
                drop(active);
                let _ = self.moves.send(Move {
                    source: container,
                    active_child: true,
                });
            }
            return;
        }
        if let Some(gained) = gained(message) {
            let obj = ObjRef {
                bus: sender.to_string(),
                path: path.to_owned().into(),
            };
            self.record(obj, gained);
        }
    }
}

impl Atspi {
    /// Asks applications for their focus events, once per connection; the change-counting
    /// task ([`Atspi::count_changes`]) records them. Until an application sends one, or when
    /// nothing counts, the log knows nothing of it (the probe searches).
    pub(crate) async fn track_focus(&self) {
        if !self.tracking_focus.first() {
            return;
        }
        self.register_event(EVENT).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::OwnedObjectPath;

    fn obj(bus: &str, path: &str) -> ObjRef {
        ObjRef {
            bus: bus.to_owned(),
            path: OwnedObjectPath::try_from(path.to_owned()).unwrap_or_default(),
        }
    }

    #[test]
    fn a_loss_forgets_only_the_element_that_had_focus() {
        let log = FocusLog::default();
        log.record(obj(":1.5", "/a/cell"), true);
        log.record(obj(":1.5", "/a/editor"), true);
        // LibreOffice says the cell lost focus after the editor gained it.
        log.record(obj(":1.5", "/a/cell"), false);
        assert_eq!(log.of(":1.5"), Some(obj(":1.5", "/a/editor")));
        log.record(obj(":1.5", "/a/editor"), false);
        assert_eq!(log.of(":1.5"), None);
        assert_eq!(log.of(":1.6"), None);
        assert!(log.heard_from(":1.5") && !log.heard_from(":1.6"));
        // A walk's focused element is a candidate only where no event named one.
        log.suggest(obj(":1.6", "/b/field"));
        log.record(obj(":1.5", "/a/cell"), true);
        log.suggest(obj(":1.5", "/a/other"));
        assert_eq!(log.of(":1.6"), Some(obj(":1.6", "/b/field")));
        assert_eq!(log.of(":1.5"), Some(obj(":1.5", "/a/cell")));
    }
}
