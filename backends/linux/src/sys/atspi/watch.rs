//! Change events from one application, so a wait wakes as soon as the window changes instead
//! of at the next poll. The registry is told once that this process listens for `object:` and
//! `window:` events (atk-bridge apps emit only when someone listens); each wait then subscribes
//! to the application's signals on the accessibility bus for as long as it waits (the
//! [`EventWatch`] it holds), so a change made while the window is being read is not missed.
//!
//! A watch scoped to a window also tells its events apart ([`Watch::seen`]): what an event says
//! is [`crate::changes::seen`], and whether its element sits in the window is asked of the tree
//! once per element (its parents, up to the window's frame or another top-level), so an effect
//! is answered by the event itself instead of by reading the whole window again.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use futures_util::StreamExt as _;
use zbus::message::Type as MessageType;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::{MatchRule, MessageStream};

use super::walk::Walked;
use super::{Atspi, ObjRef};
use cu_core::model::backend::{Seen, Watch};
use cu_core::{Error, ErrorCode, Result};

/// How many signals wait on the connection for a watch's reader task (which takes them at once).
const QUEUE: usize = 1024;

/// The event kinds registered with the registry: what a window observation shows. Geometry,
/// caret and text-attribute events are left out (atk-bridge apps then do not send them at all).
const EVENTS: [&str; 13] = [
    "object:state-changed",
    "object:property-change",
    "object:children-changed",
    "object:text-changed",
    "object:active-descendant-changed",
    "object:selection-changed",
    "object:row-inserted",
    "object:row-deleted",
    "object:column-inserted",
    "object:column-deleted",
    "object:model-changed",
    "window:",
    "document:",
];

/// The application's change signals, subscribed until dropped. A task of its own moves them
/// off the connection as they come, into a queue read by [`Watch::changed`] and [`Watch::seen`]:
/// a full stream would stall the connection's reader, and with it the replies to every call
/// (LibreOffice sends thousands of events per key; each call then waited out its timeout).
pub(crate) struct EventWatch {
    events: tokio::sync::mpsc::UnboundedReceiver<Event>,
    /// An event taken from the queue but sent after the last settle's reply, for later.
    held: Option<Event>,
    /// What the events judged together with the last one returned said, for the next reads.
    told: VecDeque<Seen>,
    /// The serial number of the application's reply to the last [`Watch::settle`].
    settled: Option<u32>,
    reader: tokio::task::JoinHandle<()>,
    /// The window whose events [`Watch::seen`] reports, when scoped to one.
    scope: Option<Scope>,
}

impl Drop for EventWatch {
    fn drop(&mut self) {
        // Ends the subscription (the stream's match rule goes with the task).
        self.reader.abort();
    }
}

/// One event signal, as much of it as the watch reads.
struct Event {
    interface: String,
    member: String,
    /// The first argument (`focused` of `StateChanged`); empty when unread.
    detail: String,
    path: OwnedObjectPath,
    /// Its serial number: the application numbers everything it sends in order.
    serial: u32,
}

impl Event {
    /// The event in `message`, if it is an AT-SPI event signal.
    fn of(message: &zbus::Message) -> Option<Event> {
        let header = message.header();
        let interface = header.interface()?;
        if !interface.as_str().starts_with("org.a11y.atspi.Event.") {
            return None;
        }
        Some(Event {
            interface: interface.to_string(),
            member: header.member()?.to_string(),
            detail: event_args(message).map(|(d, ..)| d).unwrap_or_default(),
            path: header.path()?.to_owned().into(),
            serial: message.primary_header().serial_num().get(),
        })
    }
}

/// The last full walk of the watched window, read when an event is judged (the walk may come
/// after the subscription).
pub(crate) type WalkedNow = Box<dyn Fn() -> Option<std::sync::Arc<Walked>> + Send + Sync>;

/// A window's frame and what is known of which elements sit in it.
struct Scope {
    atspi: Atspi,
    frame: ObjRef,
    walked: WalkedNow,
    /// Element paths found inside the frame (`true`) or outside it (`false`).
    inside: HashMap<OwnedObjectPath, bool>,
}

/// Longest parent chain followed from an element to its window.
const MAX_DEPTH: usize = 64;

/// How long one element is given to name its parent.
const PARENT_TIMEOUT: Duration = Duration::from_millis(100);

impl Scope {
    /// What each of `events` (taken from the queue together, in order) says of the window,
    /// leaving out what no observation shows; with `new_windows_only` only a window created or
    /// activated (other events are not placed at all). The elements not placed yet are placed
    /// at once, not one after another: each placement is a round trip to the app, and a busy
    /// one answers a batch of them in one turn of its loop as fast as a single one (Calc's
    /// Tab sends ten new cells, 20 ms apart one by one).
    async fn tell(&mut self, events: &[Event], new_windows_only: bool) -> Vec<Seen> {
        let told: Vec<(&Event, Seen)> = events
            .iter()
            .filter(|e| {
                !new_windows_only || crate::changes::may_be_new_window(&e.interface, &e.member)
            })
            .filter_map(|e| Some((e, crate::changes::seen(&e.interface, &e.member, &e.detail)?)))
            .collect();
        let walked = (self.walked)();
        let mut unplaced: Vec<&OwnedObjectPath> = Vec::new();
        for (event, _) in &told {
            if self.known(&event.path, walked.as_deref()).is_none()
                && !unplaced.contains(&&event.path)
            {
                unplaced.push(&event.path);
            }
        }
        let placed = futures_util::future::join_all(
            unplaced
                .into_iter()
                .map(|path| self.place(path.clone(), walked.as_deref())),
        )
        .await;
        for (chain, verdict) in placed {
            for path in chain {
                self.inside.insert(path, verdict);
            }
        }
        told.into_iter()
            .filter_map(|(event, seen)| {
                let inside = self.known(&event.path, walked.as_deref()).unwrap_or(false);
                tracing::trace!(event.member, event.detail, %event.path, inside, "event");
                let seen = if inside {
                    seen
                } else {
                    crate::changes::seen_elsewhere(&event.interface, &event.member)
                };
                (!new_windows_only || seen == Seen::NewWindow).then_some(seen)
            })
            .collect()
    }

    /// Whether the element at `path` is known to sit in the frame (it is the frame, was walked
    /// in it, or was placed before), without asking the app.
    fn known(&self, path: &OwnedObjectPath, walked: Option<&Walked>) -> Option<bool> {
        if *path == self.frame.path || walked.is_some_and(|w| w.paths.contains(path.as_str())) {
            Some(true)
        } else {
            self.inside.get(path).copied()
        }
    }

    /// Places the element at `path` (on the frame's bus): its parents are followed until one is
    /// known, or the chain ends (another top-level, the application, an element not yet placed
    /// in the tree). Answers the elements passed on the way and whether they sit in the frame.
    async fn place(
        &self,
        path: OwnedObjectPath,
        walked: Option<&Walked>,
    ) -> (Vec<OwnedObjectPath>, bool) {
        let mut chain: Vec<OwnedObjectPath> = Vec::new();
        let mut current = path;
        let verdict = loop {
            if let Some(known) = self.known(&current, walked) {
                break known;
            }
            if chain.len() >= MAX_DEPTH || chain.contains(&current) {
                break false;
            }
            let obj = ObjRef {
                bus: self.frame.bus.clone(),
                path: current.clone(),
            };
            chain.push(current);
            // An element on its way out may not answer at all: its verdict is "not seen".
            let parent = tokio::time::timeout(PARENT_TIMEOUT, self.atspi.parent(&obj)).await;
            match parent.ok().flatten() {
                Some(parent) if parent.bus == self.frame.bus => current = parent.path,
                _ => break false,
            }
        };
        (chain, verdict)
    }
}

/// The error of a watch asked to tell events apart that is not scoped to a window.
fn unscoped() -> Error {
    Error::new(
        ErrorCode::NotSupported,
        "this watch is not scoped to a window",
    )
}

/// The error of a watch whose event stream ended.
fn ended() -> Error {
    Error::new(ErrorCode::NotSupported, "the event stream ended")
}

/// The first arguments of an AT-SPI event signal: its detail, `detail1` and `any_data` (the new
/// value of a property change). AT-SPI 2 apps send `siiva{sv}`, Qt `siiv(so)`.
pub(super) fn event_args(message: &zbus::Message) -> Option<(String, i32, OwnedValue)> {
    type Current = (String, i32, i32, OwnedValue, HashMap<String, OwnedValue>);
    type Legacy = (String, i32, i32, OwnedValue, (String, OwnedObjectPath));
    let body = message.body();
    match body.deserialize::<Current>() {
        Ok((detail, detail1, _, data, _)) => Some((detail, detail1, data)),
        Err(_) => body
            .deserialize::<Legacy>()
            .ok()
            .map(|(detail, detail1, _, data, _)| (detail, detail1, data)),
    }
}

#[async_trait::async_trait]
impl Watch for EventWatch {
    async fn changed(&mut self, within: Duration) -> bool {
        if self.held.is_some() {
            self.clear();
            return true;
        }
        match tokio::time::timeout(within, self.events.recv()).await {
            Ok(Some(_)) => {
                // The rest of a burst that is already queued counts as the same change.
                self.clear();
                true
            }
            Err(_) => false,
            // An ended stream reports nothing more: wait the time out, so the caller keeps
            // its pace instead of looking again at once.
            Ok(None) => {
                tokio::time::sleep(within).await;
                false
            }
        }
    }

    async fn seen(&mut self, within: Duration) -> Result<Option<Seen>> {
        self.next_seen(within, false).await
    }

    async fn seen_new_window(&mut self, within: Duration) -> Result<Option<Seen>> {
        self.next_seen(within, true).await
    }

    async fn seen_before_settle(&mut self, new_windows_only: bool) -> Result<Option<Seen>> {
        if self.scope.is_none() {
            return Err(unscoped());
        }
        loop {
            if let Some(seen) = self.told.pop_front() {
                return Ok(Some(seen));
            }
            let mut batch = Vec::new();
            while let Some(event) = self.held.take().or_else(|| self.events.try_recv().ok()) {
                if self.settled.is_some_and(|reply| event.serial > reply) {
                    self.held = Some(event);
                    break;
                }
                batch.push(event);
            }
            if batch.is_empty() {
                // Nothing before the cut is left; a stream that ended has nothing more at all.
                return if self.held.is_none() && self.events.is_closed() {
                    Err(ended())
                } else {
                    Ok(None)
                };
            }
            self.tell(&batch, new_windows_only).await;
        }
    }

    async fn settle(&mut self, within: Duration) -> bool {
        let Some(scope) = self.scope.as_ref() else {
            return false;
        };
        // Through the bus, as the events come: its reply follows every event sent before it.
        let asked = scope.atspi.round_trip(&scope.frame);
        self.settled = match tokio::time::timeout(within, asked).await {
            Ok(Ok(serial)) => Some(serial),
            _ => None,
        };
        self.settled.is_some()
    }

    fn clear(&mut self) {
        self.held = None;
        self.told.clear();
        self.settled = None;
        while self.events.try_recv().is_ok() {}
    }

    fn proven(&self) -> bool {
        // Any event of the app seen by this process proves its events reach us: a click on
        // a sheet's cell moves the sheet's cursor without a focus event (the sheet keeps focus),
        // and the baseline walk it cost was 0.7-1.2 s in Calc before each typed table.
        self.scope.as_ref().is_some_and(|s| {
            s.atspi.focus.heard_from(&s.frame.bus)
                || s.atspi.changes.count(&s.frame.bus).is_some_and(|n| n > 0)
        })
    }
}

impl EventWatch {
    /// The next event within `within` that says something, judged; with `new_windows_only`
    /// only a window created or activated (the others are not placed at all).
    async fn next_seen(
        &mut self,
        within: Duration,
        new_windows_only: bool,
    ) -> Result<Option<Seen>> {
        if self.scope.is_none() {
            return Err(unscoped());
        }
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(seen) = self.told.pop_front() {
                return Ok(Some(seen));
            }
            let first = match self.held.take() {
                Some(event) => event,
                None => match tokio::time::timeout_at(deadline, self.events.recv()).await {
                    Ok(Some(event)) => event,
                    Err(_) => return Ok(None),
                    Ok(None) => return Err(ended()),
                },
            };
            // With everything already queued behind it: judged together.
            let mut batch = vec![first];
            while let Ok(event) = self.events.try_recv() {
                batch.push(event);
            }
            self.tell(&batch, new_windows_only).await;
        }
    }

    /// Judges `batch` in the watch's scope, keeping what it says for the next reads.
    async fn tell(&mut self, batch: &[Event], new_windows_only: bool) {
        if let Some(scope) = self.scope.as_mut() {
            self.told.extend(scope.tell(batch, new_windows_only).await);
        }
    }
}

impl Atspi {
    /// Subscribes to the accessibility events of the application of `frame`, telling apart
    /// those of the window `frame` is ([`Watch::seen`]).
    pub(crate) async fn watch_window(
        &self,
        frame: &ObjRef,
        walked: WalkedNow,
    ) -> Result<EventWatch> {
        let mut watch = self.watch(&frame.bus).await?;
        watch.scope = Some(Scope {
            atspi: self.clone(),
            frame: frame.clone(),
            walked,
            inside: HashMap::new(),
        });
        Ok(watch)
    }

    /// Subscribes to the accessibility events of the application on `bus`.
    pub(crate) async fn watch(&self, bus: &str) -> Result<EventWatch> {
        self.listen_once().await;
        // No path filter: GTK 4 puts its objects under the app's own path
        // (/org/gnome/Calculator/a11y/…), not /org/a11y/atspi; events are told by interface.
        let rule = MatchRule::builder()
            .msg_type(MessageType::Signal)
            .sender(bus)
            .map(|r| r.build())
            .map_err(|e| Error::new(ErrorCode::Internal, format!("event match rule: {e}")))?;
        let mut stream = MessageStream::for_match_rule(rule, &self.conn, Some(QUEUE))
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::NotSupported,
                    format!("cannot subscribe to events: {e}"),
                )
            })?;
        let (queue, events) = tokio::sync::mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                let Some(event) = message.ok().as_ref().and_then(Event::of) else {
                    continue;
                };
                if queue.send(event).is_err() {
                    break;
                }
            }
        });
        Ok(EventWatch {
            events,
            held: None,
            told: VecDeque::new(),
            settled: None,
            reader,
            scope: None,
        })
    }

    /// Registers this process as a listener for [`EVENTS`], once per connection; a registry
    /// that refuses only means fewer events (the caller still polls).
    pub(super) async fn listen_once(&self) {
        if !self.listening.first() {
            return;
        }
        for event in EVENTS {
            self.register_event(event).await;
        }
    }

    /// Tells the registry this process listens for `event`; a registry that refuses only means
    /// fewer events (the caller still polls or searches).
    pub(super) async fn register_event(&self, event: &str) {
        let registered = self
            .conn
            .call_method(
                Some("org.a11y.atspi.Registry"),
                "/org/a11y/atspi/registry",
                Some("org.a11y.atspi.Registry"),
                "RegisterEvent",
                &(event,),
            )
            .await;
        if let Err(e) = registered {
            tracing::debug!("RegisterEvent {event}: {e}");
        }
    }
}
