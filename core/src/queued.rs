//! A [`Watch`](crate::model::backend::Watch) over a queue of what each event said: the receiving half of the Windows and
//! macOS watches, whose event handlers run on threads of their own (UI Automation's, an
//! `AXObserver`'s run loop) and only judge each event and queue the verdict.
//!
//! The handler side is an [`EventSender`]; the watch side a [`Queued`], which a platform's watch
//! wraps, adding what only it can do ([`Watch::settle`](crate::model::backend::Watch::settle)). The logic lives here, once, so Linux
//! tests reach it.
//!
//! Only built with the `queued` feature (it needs tokio), and for this crate's own tests.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{self, error::TryRecvError};

use crate::model::backend::Seen;
use crate::{Error, ErrorCode, Result};

/// How many verdicts may wait unread. A handler drops one that finds the queue full: what is
/// queued already says the window changed (a flood is content, and content outranks focus in
/// every reading of a step).
const CAPACITY: usize = 256;

/// The handler side: queues what one event said (`None`: an event no observation shows, which
/// still wakes a wait).
#[derive(Debug, Clone)]
pub struct EventSender(mpsc::Sender<Option<Seen>>);

impl EventSender {
    /// Queues `seen` without blocking (handlers run on the platform's threads).
    pub fn send(&self, seen: Option<Seen>) {
        // Full: see CAPACITY. Closed: the watch is gone and its subscription on its way out.
        let _ = self.0.try_send(seen);
    }

    /// Whether the watch was dropped (an observer thread then tears its subscription down).
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

/// Whether a source (a window, an application) was ever seen sending events to this process;
/// the backend keeps one per source and hands it to each of its watches.
#[derive(Debug, Clone, Default)]
pub struct Heard(Arc<AtomicBool>);

impl Heard {
    /// Whether an event was seen.
    pub fn yes(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn mark(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The watch side of one subscription: [`Watch::changed`], [`Watch::seen`], [`Watch::clear`]
/// and [`Watch::proven`] as the platform watch that wraps it answers them.
///
/// [`Watch::changed`]: crate::model::backend::Watch::changed
/// [`Watch::seen`]: crate::model::backend::Watch::seen
/// [`Watch::clear`]: crate::model::backend::Watch::clear
/// [`Watch::proven`]: crate::model::backend::Watch::proven
#[derive(Debug)]
pub struct Queued {
    events: mpsc::Receiver<Option<Seen>>,
    heard: Heard,
    proven: bool,
}

/// A new subscription's two halves; `heard` is its source's record (marked when an event is
/// told through [`Queued::seen`]).
pub fn queue(heard: Heard) -> (EventSender, Queued) {
    let (tx, events) = mpsc::channel(CAPACITY);
    let proven = heard.yes();
    (
        EventSender(tx),
        Queued {
            events,
            heard,
            proven,
        },
    )
}

fn ended() -> Error {
    Error::new(ErrorCode::NotSupported, "the event subscription ended")
}

impl Queued {
    /// Waits up to `within` for any event; what else is queued counts as the same change.
    pub async fn changed(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        match tokio::time::timeout_at(deadline, self.events.recv()).await {
            Ok(Some(_)) => {
                self.clear();
                true
            }
            Err(_) => false,
            // The subscription is gone: report nothing, at the caller's pace.
            Ok(None) => {
                tokio::time::sleep_until(deadline).await;
                false
            }
        }
    }

    /// Waits up to `within` for the next event that says something an observation shows.
    /// An ended subscription is an error: the caller falls back to comparing observations.
    pub async fn seen(&mut self, within: Duration) -> Result<Option<Seen>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(Some(seen))) => {
                    self.heard.mark();
                    return Ok(Some(seen));
                }
                Ok(Some(None)) => {}
                Err(_) => return Ok(None),
                Ok(None) => return Err(ended()),
            }
        }
    }

    /// The next queued event that says something, without waiting.
    pub fn seen_now(&mut self) -> Result<Option<Seen>> {
        loop {
            match self.events.try_recv() {
                Ok(Some(seen)) => {
                    self.heard.mark();
                    return Ok(Some(seen));
                }
                Ok(None) => {}
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Err(ended()),
            }
        }
    }

    /// Forgets what is queued.
    pub fn clear(&mut self) {
        while self.events.try_recv().is_ok() {}
    }

    /// Whether the source had been seen sending events when this subscription began.
    pub fn proven(&self) -> bool {
        self.proven
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Duration = Duration::ZERO;
    const SHORT: Duration = Duration::from_millis(20);

    #[tokio::test]
    async fn events_no_observation_shows_wake_a_wait_but_are_not_told() {
        let (tx, mut rx) = queue(Heard::default());
        tx.send(None);
        tx.send(Some(Seen::Focus));
        assert_eq!(rx.seen(NOW).await.ok().flatten(), Some(Seen::Focus));
        tx.send(None);
        assert_eq!(rx.seen(SHORT).await.ok().flatten(), None);
        tx.send(None);
        assert!(rx.changed(NOW).await);
        assert!(!rx.changed(SHORT).await);
    }

    #[tokio::test]
    async fn a_burst_counts_once_and_clear_forgets_it() {
        let (tx, mut rx) = queue(Heard::default());
        for _ in 0..5 {
            tx.send(Some(Seen::Content));
        }
        assert!(rx.changed(NOW).await);
        assert!(
            !rx.changed(SHORT).await,
            "the rest of the burst was drained"
        );
        tx.send(Some(Seen::Content));
        rx.clear();
        assert_eq!(rx.seen_now().ok().flatten(), None);
    }

    #[tokio::test]
    async fn a_flood_beyond_the_queue_is_dropped_not_blocked_on() {
        let (tx, mut rx) = queue(Heard::default());
        for _ in 0..CAPACITY * 2 {
            tx.send(Some(Seen::Content));
        }
        let mut told = 0;
        while let Ok(Some(_)) = rx.seen_now() {
            told += 1;
        }
        assert_eq!(told, CAPACITY);
    }

    #[tokio::test]
    async fn a_source_heard_once_is_proven_for_the_next_subscription() {
        let heard = Heard::default();
        let (tx, mut first) = queue(heard.clone());
        assert!(!first.proven());
        tx.send(None);
        assert_eq!(first.seen_now().ok().flatten(), None);
        assert!(!heard.yes(), "an event no observation shows proves nothing");
        tx.send(Some(Seen::Content));
        assert_eq!(first.seen_now().ok().flatten(), Some(Seen::Content));
        let (_, second) = queue(heard);
        assert!(second.proven());
    }

    #[tokio::test]
    async fn an_ended_subscription_is_an_error_for_seen_and_quiet_for_changed() {
        let (tx, mut rx) = queue(Heard::default());
        tx.send(Some(Seen::Focus));
        drop(tx);
        assert_eq!(rx.seen_now().ok().flatten(), Some(Seen::Focus));
        assert!(rx
            .seen(NOW)
            .await
            .is_err_and(|e| e.code == ErrorCode::NotSupported));
        assert!(rx.seen_now().is_err());
        assert!(!rx.changed(SHORT).await);
    }

    #[tokio::test]
    async fn the_sender_knows_when_the_watch_is_dropped() {
        let (tx, rx) = queue(Heard::default());
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
        tx.send(Some(Seen::Content));
    }
}
