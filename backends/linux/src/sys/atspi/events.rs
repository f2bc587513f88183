//! Change events from one application, so a wait wakes as soon as the window changes instead
//! of at the next poll. The registry is told once that this process listens for `object:` and
//! `window:` events (atk-bridge apps emit only when someone listens); each wait then subscribes
//! to the application's signals on the accessibility bus for as long as it waits (the
//! [`EventWatch`] it holds), so a change made while the window is being read is not missed.

use std::time::Duration;

use futures_util::{FutureExt as _, StreamExt as _};
use zbus::message::Type as MessageType;
use zbus::{MatchRule, MessageStream};

use super::Atspi;
use cu_core::backend::Watch;
use cu_core::{Error, ErrorCode, Result};

/// How many signals wait in a watch's queue; a burst beyond it only drops wake-ups that one
/// already queued stands for.
const QUEUE: usize = 256;

/// The event kinds registered with the registry.
const EVENTS: [&str; 2] = ["object:", "window:"];

/// The application's change signals, subscribed until dropped; signals that arrive between two
/// [`Watch::changed`] calls wait in the stream's queue.
pub(crate) struct EventWatch {
    stream: MessageStream,
}

fn is_event(message: &zbus::Message) -> bool {
    message
        .header()
        .interface()
        .is_some_and(|i| i.as_str().starts_with("org.a11y.atspi.Event."))
}

#[async_trait::async_trait]
impl Watch for EventWatch {
    async fn changed(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Ok(Some(Ok(message))) if is_event(&message) => break,
                Ok(Some(Ok(_))) => {}
                Err(_) => return false,
                // A broken or ended stream reports nothing more: wait the time out, so the
                // caller keeps its pace instead of looking again at once.
                Ok(Some(Err(_))) | Ok(None) => {
                    tokio::time::sleep_until(deadline).await;
                    return false;
                }
            }
        }
        // The rest of a burst that is already queued counts as the same change.
        while let Some(Some(_)) = self.stream.next().now_or_never() {}
        true
    }
}

impl Atspi {
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
        let stream = MessageStream::for_match_rule(rule, &self.conn, Some(QUEUE))
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::NotSupported,
                    format!("cannot subscribe to events: {e}"),
                )
            })?;
        Ok(EventWatch { stream })
    }

    /// Registers this process as a listener for [`EVENTS`], once per connection; a registry
    /// that refuses only means fewer events (the caller still polls).
    async fn listen_once(&self) {
        if self
            .listening
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        for event in EVENTS {
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
}
