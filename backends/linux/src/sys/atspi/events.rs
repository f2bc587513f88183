//! Change events from one application, so a wait wakes as soon as the window changes instead
//! of at the next poll. The registry is told once that this process listens for `object:` and
//! `window:` events (atk-bridge apps emit only when someone listens); each wait then subscribes
//! to the application's signals on the accessibility bus for as long as it waits.

use std::time::Duration;

use futures_util::StreamExt as _;
use zbus::message::Type as MessageType;
use zbus::{MatchRule, MessageStream};

use super::Atspi;
use cu_core::{Error, ErrorCode, Result};

/// The event kinds registered with the registry.
const EVENTS: [&str; 2] = ["object:", "window:"];

impl Atspi {
    /// Waits up to `within` for an accessibility event from the application on `bus`; `false`
    /// when none came.
    pub(crate) async fn wait_for_event(&self, bus: &str, within: Duration) -> Result<bool> {
        self.listen_once().await;
        let rule = MatchRule::builder()
            .msg_type(MessageType::Signal)
            .sender(bus)
            .and_then(|r| r.path_namespace("/org/a11y/atspi"))
            .map(|r| r.build())
            .map_err(|e| Error::new(ErrorCode::Internal, format!("event match rule: {e}")))?;
        let mut stream = MessageStream::for_match_rule(rule, &self.conn, Some(64))
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::NotSupported,
                    format!("cannot subscribe to events: {e}"),
                )
            })?;
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, stream.next()).await {
                Ok(Some(Ok(message))) => {
                    let header = message.header();
                    let is_event = header
                        .interface()
                        .is_some_and(|i| i.as_str().starts_with("org.a11y.atspi.Event."));
                    if is_event {
                        return Ok(true);
                    }
                }
                Ok(Some(Err(_))) | Ok(None) | Err(_) => return Ok(false),
            }
        }
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
