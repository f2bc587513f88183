//! Which applications changed, as their own event signals say: a count per bus name, raised by
//! every AT-SPI event the application sends, and a barrier that proves the counts are current.
//!
//! A window read while its application's count stays the same has not changed since (every
//! change a toolkit reports sends an event; the registry is told at connection that this process
//! listens, so atk-bridge apps send them). This is what lets an observation of an unchanged
//! window be answered from memory ([`crate::trees`]) instead of a walk: Qt answers each call
//! serially, and a five-element window costs 37 calls.
//!
//! The counts are kept by a task that reads every signal off the connection. Before a count is
//! trusted, [`Atspi::caught_up`] sends this process a signal of its own through the bus and waits
//! until the task has read it: every event the bus delivered before it has been counted then.
//! The same task records focus events in the focus log first, so the barrier proves that log
//! current too (a second task reading them could lag behind the barrier).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt as _;
use zbus::message::Type as MessageType;
use zbus::{MatchRule, MessageStream};

use super::Atspi;

/// The interface of this process's own barrier signal.
const BARRIER_INTERFACE: &str = "dev.mcp_computer_use.Barrier";
const BARRIER_PATH: &str = "/dev/mcp_computer_use/barrier";
/// Signals waiting for the counting task (which takes them at once).
const QUEUE: usize = 1024;

/// The last events each application sent, at most this many (older ones are forgotten; a
/// kept walk further behind is walked again).
const MAX_LOGGED: usize = 256;

pub(crate) use crate::trees::Logged;

/// Event counts per application, the last events of each, and how far the counting task has
/// read.
pub(crate) struct Changes {
    counts: Mutex<HashMap<String, u64>>,
    /// Per application, its last [`MAX_LOGGED`] events, the latest last.
    logs: Mutex<HashMap<String, std::collections::VecDeque<Logged>>>,
    /// The last barrier sent.
    sent: std::sync::atomic::AtomicU64,
    /// The last barrier the counting task read; closed when the task ends.
    read: tokio::sync::watch::Receiver<u64>,
    reached: tokio::sync::watch::Sender<u64>,
    /// The counting task is reading signals.
    running: std::sync::atomic::AtomicBool,
    /// A barrier did not come back in time, and none came since: calls walk instead of waiting
    /// for one.
    unreliable: std::sync::atomic::AtomicBool,
}

impl Default for Changes {
    fn default() -> Self {
        let (reached, read) = tokio::sync::watch::channel(0);
        Changes {
            counts: Mutex::default(),
            logs: Mutex::default(),
            sent: Default::default(),
            read,
            reached,
            running: Default::default(),
            unreliable: Default::default(),
        }
    }
}

impl Changes {
    /// How many events the application at `bus` sent since this process started counting;
    /// `None` when nothing is counted (no counting task, or it ended).
    pub(crate) fn count(&self, bus: &str) -> Option<u64> {
        if !self.running() {
            return None;
        }
        let counts = self.counts.lock().ok()?;
        Some(counts.get(bus).copied().unwrap_or(0))
    }

    fn running(&self) -> bool {
        self.running.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn bump(&self, bus: &str, event: Logged) {
        // The log is held while the count moves: [`Changes::since`] sees both or neither.
        let mut logs = self.logs.lock().ok();
        if let Some(logs) = logs.as_mut() {
            let log = logs.entry(bus.to_owned()).or_default();
            if log.len() >= MAX_LOGGED {
                log.pop_front();
            }
            log.push_back(event);
        }
        if let Ok(mut counts) = self.counts.lock() {
            *counts.entry(bus.to_owned()).or_insert(0) += 1;
        }
        drop(logs);
    }

    /// The events the application at `bus` sent after its count was `since`, oldest first, up
    /// to its count `now`; `None` when some of them are no longer logged.
    pub(crate) fn since(&self, bus: &str, since: u64, now: u64) -> Option<Vec<Logged>> {
        let wanted = usize::try_from(now.checked_sub(since)?).ok()?;
        let logs = self.logs.lock().ok()?;
        let log = logs.get(bus)?;
        // Events counted after `now` were logged too: they are left out from the end.
        let current = self.counts.lock().ok()?.get(bus).copied()?;
        let after = usize::try_from(current.checked_sub(now)?).ok()?;
        let end = log.len().checked_sub(after)?;
        let start = end.checked_sub(wanted)?;
        Some(log.range(start..end).cloned().collect())
    }
}

impl Atspi {
    /// Starts counting every application's events, once per connection (at connection, before
    /// any window is read, so no change goes uncounted).
    pub(crate) async fn count_changes(&self) {
        if !self.counting.first() {
            return;
        }
        let rule = MatchRule::builder().msg_type(MessageType::Signal).build();
        let mut stream = match MessageStream::for_match_rule(rule, &self.conn, Some(QUEUE)).await {
            Ok(stream) => stream,
            Err(e) => {
                tracing::debug!("no change counts: {e}");
                return;
            }
        };
        self.listen_once().await;
        let changes: Arc<Changes> = self.changes.clone();
        let focus = self.focus.clone();
        changes
            .running
            .store(true, std::sync::atomic::Ordering::SeqCst);
        tokio::spawn(async move {
            let mut repeats = Repeats::default();
            while let Some(Ok(message)) = stream.next().await {
                let header = message.header();
                let Some(interface) = header.interface() else {
                    continue;
                };
                if interface.as_str() == BARRIER_INTERFACE {
                    if let Ok(token) = message.body().deserialize::<u64>() {
                        // Late or not, it came back: the bus hands this process its own signals.
                        changes
                            .unreliable
                            .store(false, std::sync::atomic::Ordering::SeqCst);
                        changes.reached.send_if_modified(|read| {
                            let later = token > *read;
                            *read = (*read).max(token);
                            later
                        });
                    }
                } else if interface.as_str().starts_with("org.a11y.atspi.Event.") {
                    focus.hear(&message);
                    let Some(sender) = header.sender() else {
                        continue;
                    };
                    let said = announced(&message).map(|(detail, value)| Announced {
                        bus: sender.to_string(),
                        path: header.path().map(|p| p.to_string()).unwrap_or_default(),
                        detail,
                        value,
                    });
                    if !said.is_some_and(|said| repeats.is_repeat(said)) {
                        let logged = Logged {
                            kind: interface
                                .as_str()
                                .trim_start_matches("org.a11y.atspi.Event.")
                                .to_owned(),
                            member: header.member().map(|m| m.to_string()).unwrap_or_default(),
                            detail: super::watch::event_args(&message)
                                .map(|(detail, ..)| detail)
                                .unwrap_or_default(),
                            path: header.path().map(|p| p.to_string()).unwrap_or_default(),
                        };
                        changes.bump(sender.as_str(), logged);
                    }
                }
            }
            changes
                .running
                .store(false, std::sync::atomic::Ordering::SeqCst);
            tracing::debug!("the change counts stopped: the signal stream ended");
        });
    }

    /// Whether every event the bus delivered to this process before now has been counted:
    /// a signal of this process's own goes through the bus, and the counting task reads it after
    /// them. `false` when the counting task does not answer within `within`.
    pub(crate) async fn caught_up(&self, within: Duration) -> bool {
        let Some(me) = self.conn.unique_name().map(|n| n.to_string()) else {
            return false;
        };
        let unreliable = self
            .changes
            .unreliable
            .load(std::sync::atomic::Ordering::SeqCst);
        if !self.changes.running() || unreliable {
            return false;
        }
        let token = self
            .changes
            .sent
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        let mut read = self.changes.read.clone();
        let sent = self
            .conn
            .emit_signal(
                Some(me.as_str()),
                BARRIER_PATH,
                BARRIER_INTERFACE,
                "Reached",
                &(token,),
            )
            .await;
        if let Err(e) = sent {
            tracing::debug!("barrier not sent: {e}");
            return false;
        }
        let reached = tokio::time::timeout(within, read.wait_for(|r| *r >= token))
            .await
            .is_ok_and(|r| r.is_ok());
        if !reached {
            // A bus that does not hand a process its own signal would cost every observation
            // this wait: observations walk until a barrier comes back.
            tracing::debug!("the barrier signal did not come back in time: walking");
            self.changes
                .unreliable
                .store(true, std::sync::atomic::Ordering::SeqCst);
        }
        reached
    }
}

/// How many announced values the counting task remembers before it forgets them all.
const MAX_ANNOUNCED: usize = 4096;

/// A name or description an element announced (`object:property-change:accessible-name`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Announced {
    bus: String,
    path: String,
    detail: String,
    value: String,
}

/// The last value each element announced for its name and description. Some apps announce the
/// same value again whenever it is read (Thunar's directory pane, on every walk): an
/// announcement of the value last announced changes nothing, so it is not counted, and the
/// window's kept walk still holds.
#[derive(Default)]
struct Repeats {
    last: HashMap<(String, String, String), String>,
}

impl Repeats {
    /// Whether `said` repeats the last value its element announced (and remembers it).
    fn is_repeat(&mut self, said: Announced) -> bool {
        let key = (said.bus, said.path, said.detail);
        if self.last.get(&key) == Some(&said.value) {
            return true;
        }
        if self.last.len() >= MAX_ANNOUNCED {
            self.last.clear();
        }
        self.last.insert(key, said.value);
        false
    }
}

/// The property and its new text value of an `object:property-change:accessible-name` or
/// `-description` event; `None` for any other event.
fn announced(message: &zbus::Message) -> Option<(String, String)> {
    let header = message.header();
    if header.interface()?.as_str() != "org.a11y.atspi.Event.Object"
        || header.member()?.as_str() != "PropertyChange"
    {
        return None;
    }
    let (detail, _, value) = super::watch::event_args(message)?;
    if !matches!(
        detail.as_str(),
        "accessible-name" | "accessible-description"
    ) {
        return None;
    }
    let value = String::try_from(value).ok()?;
    Some((detail, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(path: &str, value: &str) -> Announced {
        Announced {
            bus: ":1.7".into(),
            path: path.into(),
            detail: "accessible-name".into(),
            value: value.into(),
        }
    }

    #[test]
    fn regression_thunar_announced_its_pane_name_on_every_walk() {
        let mut repeats = Repeats::default();
        // The first announcement counts; the same value again does not.
        assert!(!repeats.is_repeat(said("/pane", "Home")));
        assert!(repeats.is_repeat(said("/pane", "Home")));
        // A new value counts, and so does going back.
        assert!(!repeats.is_repeat(said("/pane", "Documents")));
        assert!(!repeats.is_repeat(said("/pane", "Home")));
        // Another element's announcement is its own.
        assert!(!repeats.is_repeat(said("/other", "Home")));
    }

    fn event(path: &str) -> Logged {
        Logged {
            kind: "Object".into(),
            member: "TextChanged".into(),
            detail: "insert".into(),
            path: path.into(),
        }
    }

    #[test]
    fn the_events_since_a_count_are_given_while_they_are_all_logged() {
        let changes = Changes::default();
        for i in 0..5 {
            changes.bump(":1.7", event(&format!("/{i}")));
        }
        changes.bump(":1.8", event("/other"));
        let paths = |events: Option<Vec<Logged>>| {
            events.map(|e| e.into_iter().map(|e| e.path).collect::<Vec<_>>())
        };
        assert_eq!(
            paths(changes.since(":1.7", 2, 5)),
            Some(vec!["/2".into(), "/3".into(), "/4".into()])
        );
        // Up to a count read earlier: the events after it are left out.
        assert_eq!(
            paths(changes.since(":1.7", 2, 4)),
            Some(vec!["/2".into(), "/3".into()])
        );
        assert_eq!(paths(changes.since(":1.7", 5, 5)), Some(vec![]));
        // Forgotten: more than the log holds.
        for i in 0..MAX_LOGGED {
            changes.bump(":1.7", event(&format!("/later{i}")));
        }
        assert_eq!(changes.since(":1.7", 2, 5 + MAX_LOGGED as u64), None);
        assert_eq!(changes.since(":1.9", 0, 1), None);
    }
}
