//! Which applications are on the accessibility bus: the registry's children, and every other
//! connection that serves an application root.
//!
//! An application registers with `at-spi2-registryd` once, when it starts. A registry that dies
//! and is started again by the bus knows none of the running applications, which stay on the bus
//! and keep answering. So the list is the registry's, joined with the bus's own list of
//! connections, each unknown connection asked once (with a short timeout: a client that never
//! answers method calls costs at most that, once) whether it serves an application root.

use std::collections::HashMap;
use std::time::Duration;

use cu_core::{Error, ErrorCode, Result};
use zbus::zvariant::OwnedObjectPath;

use super::{Atspi, ObjRef};

/// How long an unknown connection has to say whether it is an application.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// What a connection on the bus was found to be (unique names are never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peer {
    /// It serves `/org/a11y/atspi/accessible/root` with children: an application.
    Application,
    /// Anything else: the registry, the bus, screen readers, clients like us.
    Other,
}

/// Known verdicts, by unique bus name.
pub(crate) type Verdicts = std::sync::Arc<std::sync::Mutex<HashMap<String, Peer>>>;

impl Atspi {
    /// Every application's root object, the registry's first.
    pub(crate) async fn applications(&self) -> Result<Vec<ObjRef>> {
        let desktop = Atspi::desktop();
        let (registered, names) = tokio::join!(self.children(&desktop), self.bus_names());
        let mut apps = match (registered, &names) {
            (Ok(apps), _) => apps,
            // The registry is gone and cannot be started: the bus still knows the apps.
            (Err(e), Ok(names)) if !names.is_empty() => {
                tracing::warn!(
                    "the AT-SPI registry does not answer ({}); listing the bus",
                    e.message
                );
                Vec::new()
            }
            (Err(e), _) => {
                return Err(Error::new(
                    ErrorCode::GuiUnavailable,
                    format!("the AT-SPI registry does not answer: {}", e.message),
                ))
            }
        };
        let names = names.unwrap_or_default();
        let own = self.conn.unique_name().map(|n| n.to_string());
        let unknown: Vec<String> = names
            .into_iter()
            .filter(|n| n.starts_with(':') && Some(n) != own.as_ref())
            .filter(|n| !apps.iter().any(|a| &a.bus == n))
            .collect();
        let verdicts =
            futures_util::future::join_all(unknown.iter().map(|n| self.verdict(n))).await;
        for (name, verdict) in unknown.into_iter().zip(verdicts) {
            if verdict == Peer::Application {
                apps.push(Atspi::app_root(&name));
            }
        }
        Ok(apps)
    }

    async fn bus_names(&self) -> Result<Vec<String>> {
        let dbus = ObjRef {
            bus: "org.freedesktop.DBus".into(),
            path: OwnedObjectPath::try_from("/org/freedesktop/DBus").unwrap_or_default(),
        };
        self.call(&dbus, "org.freedesktop.DBus", "ListNames", &())
            .await
    }

    async fn verdict(&self, name: &str) -> Peer {
        if let Some(known) = self.verdicts.lock().ok().and_then(|v| v.get(name).copied()) {
            return known;
        }
        let root = Atspi::app_root(name);
        let verdict = match tokio::time::timeout(PROBE_TIMEOUT, self.children(&root)).await {
            Ok(Ok(children)) if !children.is_empty() => Peer::Application,
            _ => Peer::Other,
        };
        // An application without windows yet may get some: ask it again next time.
        if verdict == Peer::Other {
            if let Ok(mut v) = self.verdicts.lock() {
                v.insert(name.to_owned(), verdict);
            }
        }
        verdict
    }
}
