//! The AT-SPI tree layer: one connection to the accessibility bus, typed calls, applications
//! and their top-level windows. The walk lives in [`walk`], semantic actions in [`act`].

pub(crate) mod act;
pub(crate) mod apps;
mod counts;
mod watch;
pub(crate) use watch::WalkedNow;
pub(crate) mod focus;
pub(crate) mod popups;
pub(crate) mod probe;
mod table;
pub(crate) mod walk;

use std::collections::HashMap;
use std::time::Duration;

use cu_core::model::element::ElementIdentity;
use cu_core::{Error, ErrorCode, Result};
use serde::de::DeserializeOwned;
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue};
use zbus::Connection;

use crate::translate::{AtspiStates, Toolkit};

pub(crate) const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub(crate) const COMPONENT: &str = "org.a11y.atspi.Component";
pub(crate) const ACTION: &str = "org.a11y.atspi.Action";
pub(crate) const TEXT: &str = "org.a11y.atspi.Text";
pub(crate) const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
pub(crate) const VALUE: &str = "org.a11y.atspi.Value";
pub(crate) const SELECTION: &str = "org.a11y.atspi.Selection";
pub(crate) const APPLICATION: &str = "org.a11y.atspi.Application";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const REGISTRY: &str = "org.a11y.atspi.Registry";
/// At most this many of an element's actions are named ([`Atspi::action_names`]).
const MAX_ACTIONS: i32 = 16;
/// Direct connections kept open after an action went through them ([`Atspi::retire_peer`]).
const MAX_RETIRED: usize = 16;
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
const NULL_PATH: &str = "/org/a11y/atspi/null";

/// AT-SPI calls made by this process: the walk logs it at debug level to show how many calls a
/// snapshot cost.
pub(crate) static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// AT-SPI coordinate type: screen.
pub(crate) const COORD_SCREEN: u32 = 0;

/// A reference to one accessible object: the app's bus name and the object path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ObjRef {
    pub bus: String,
    pub path: OwnedObjectPath,
}

impl ObjRef {
    pub(crate) fn is_null(&self) -> bool {
        self.path.as_str() == NULL_PATH || self.bus.is_empty()
    }

    /// The identity stored in snapshots: `bus|path`.
    pub(crate) fn identity(&self) -> ElementIdentity {
        ElementIdentity(format!("{}|{}", self.bus, self.path.as_str()))
    }

    pub(crate) fn from_identity(id: &ElementIdentity) -> Result<ObjRef> {
        let bad = || {
            Error::new(
                ErrorCode::ElementNotFound,
                format!("{:?} is not an AT-SPI element identity", id.0),
            )
        };
        let (bus, path) = id.0.split_once('|').ok_or_else(bad)?;
        let path = OwnedObjectPath::try_from(path.to_owned()).map_err(|_| bad())?;
        Ok(ObjRef {
            bus: bus.to_owned(),
            path,
        })
    }
}

/// How a call reaches its application.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// Through its direct connection where it offers one, else the bus.
    Direct,
    /// Through the bus, the way its signals come.
    Bus,
}

/// A live connection to the accessibility bus.
#[derive(Clone)]
pub(crate) struct Atspi {
    conn: Connection,
    /// Direct connections to applications that offer one (atk-bridge: GTK 3, Firefox,
    /// Chromium), by bus name; `None` = the app offers none, use the bus.
    peers: std::sync::Arc<std::sync::Mutex<HashMap<String, Option<Connection>>>>,
    /// Direct connections an action went through, kept open ([`Atspi::retire_peer`]).
    retired: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<Connection>>>,
    /// Bus connections found not to be applications ([`apps`]).
    verdicts: apps::Verdicts,
    /// The accessibility bus address, part of the desktop instance marker.
    pub address: String,
    /// This process is registered as an event listener ([`events`]).
    listening: Once,
    /// Where each application's focus went last ([`focus`]).
    pub(crate) focus: std::sync::Arc<focus::FocusLog>,
    /// The focus events are being recorded.
    tracking_focus: Once,
    /// How many events each application sent ([`changes`]).
    pub(crate) changes: std::sync::Arc<counts::Changes>,
    /// The events are being counted.
    counting: Once,
}

/// Something a connection does once (a registration, a task started), shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct Once(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Once {
    /// True for the first caller only.
    pub(crate) fn first(&self) -> bool {
        !self.0.swap(true, std::sync::atomic::Ordering::SeqCst)
    }
}

impl Atspi {
    /// Connects to the accessibility bus: `AT_SPI_BUS_ADDRESS`, else `org.a11y.Bus.GetAddress` on
    /// the session bus, else the `AT_SPI_BUS` X root-window property (given by the caller).
    pub(crate) async fn connect(
        explicit: Option<&str>,
        session_bus: Option<&str>,
        x_root_property: impl FnOnce() -> Option<String>,
    ) -> Result<Atspi> {
        let address = match explicit {
            Some(a) => a.to_owned(),
            None => match address_from_session_bus(session_bus).await {
                Ok(a) => a,
                Err(session_err) => x_root_property().ok_or_else(|| {
                    Error::new(
                        ErrorCode::GuiUnavailable,
                        format!("no AT-SPI bus found: {session_err}; no AT_SPI_BUS property on the X root window either"),
                    )
                    .with_suggestion(
                        "Run inside the desktop session with accessibility on (at-spi2-core installed, \
                         `gsettings set org.gnome.desktop.interface toolkit-accessibility true`).",
                    )
                })?,
            },
        };
        let conn = zbus::connection::Builder::address(address.as_str())
            .map(|b| b.method_timeout(Duration::from_secs(3)))
            .map_err(|e| unavailable(format!("bad AT-SPI bus address {address:?}: {e}")))?
            .build()
            .await
            .map_err(|e| {
                unavailable(format!(
                    "cannot connect to the AT-SPI bus at {address}: {e}"
                ))
            })?;
        Ok(Atspi {
            conn,
            peers: Default::default(),
            retired: Default::default(),
            verdicts: Default::default(),
            address,
            listening: Default::default(),
            focus: Default::default(),
            tracking_focus: Default::default(),
            changes: Default::default(),
            counting: Default::default(),
        })
    }

    /// Whether the application at `bus` is still connected to the accessibility bus (asked of
    /// the bus itself, so a hung app still counts as connected). `None` when the bus cannot say.
    pub(crate) async fn still_connected(&self, bus: &str) -> Option<bool> {
        let name = zbus::names::BusName::try_from(bus).ok()?;
        let dbus = zbus::fdo::DBusProxy::new(&self.conn).await.ok()?;
        dbus.name_has_owner(name).await.ok()
    }

    /// One method call, deserialized: through the app's direct connection where there is one.
    pub(crate) async fn call<B, R>(
        &self,
        obj: &ObjRef,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + zbus::zvariant::Type,
    {
        let msg = self
            .reply_routed(obj, iface, method, body, Route::Direct)
            .await?;
        msg.body().deserialize::<R>().map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("{method} on {}: unexpected reply: {e}", obj.path.as_str()),
            )
        })
    }

    /// One round trip to `obj`'s application through the bus, even where a direct connection
    /// exists: the serial number of its reply. The reply comes after every signal the app sent
    /// before it (they travel the same way), and an app numbers all it sends in order, so its
    /// events with a lower serial were sent before it answered.
    pub(crate) async fn round_trip(&self, obj: &ObjRef) -> Result<u32> {
        let reply = self
            .reply_routed(obj, ACCESSIBLE, "GetState", &(), Route::Bus)
            .await?;
        Ok(reply.primary_header().serial_num().get())
    }

    async fn reply_routed<B>(
        &self,
        obj: &ObjRef,
        iface: &str,
        method: &str,
        body: &B,
        route: Route,
    ) -> Result<zbus::Message>
    where
        B: serde::Serialize + DynamicType,
    {
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::trace!(target: "cu_calls", "{iface}.{method} {}", obj.path.as_str());
        let peer = match route {
            Route::Direct => self
                .peers
                .lock()
                .ok()
                .and_then(|p| p.get(&obj.bus).cloned().flatten()),
            Route::Bus => None,
        };
        let reply = match &peer {
            Some(direct) => {
                direct
                    .call_method(None::<&str>, obj.path.as_str(), Some(iface), method, body)
                    .await
            }
            None => {
                self.conn
                    .call_method(
                        Some(obj.bus.as_str()),
                        obj.path.as_str(),
                        Some(iface),
                        method,
                        body,
                    )
                    .await
            }
        };
        reply.map_err(|e| {
            if peer.is_some() && matches!(&e, zbus::Error::InputOutput(_)) && !timed_out(&e) {
                // The app went away: forget the socket, report it like the bus would. (A call
                // that timed out on it is an app that is busy or stopped, not gone.)
                if let Ok(mut p) = self.peers.lock() {
                    p.remove(&obj.bus);
                }
                return Error::new(
                    ErrorCode::ElementNotFound,
                    format!("the application {} is gone", obj.bus),
                );
            }
            dbus_error(e, obj, method)
        })
    }

    pub(crate) async fn property(
        &self,
        obj: &ObjRef,
        iface: &str,
        name: &str,
    ) -> Result<OwnedValue> {
        self.call(obj, PROPERTIES, "Get", &(iface, name)).await
    }

    pub(crate) async fn properties(
        &self,
        obj: &ObjRef,
        iface: &str,
    ) -> Result<HashMap<String, OwnedValue>> {
        self.call(obj, PROPERTIES, "GetAll", &(iface,)).await
    }

    pub(crate) async fn set_property(
        &self,
        obj: &ObjRef,
        iface: &str,
        name: &str,
        value: zbus::zvariant::Value<'_>,
    ) -> Result<()> {
        self.call::<_, ()>(obj, PROPERTIES, "Set", &(iface, name, value))
            .await
    }

    pub(crate) async fn children(&self, obj: &ObjRef) -> Result<Vec<ObjRef>> {
        let refs: Vec<(String, OwnedObjectPath)> =
            self.call(obj, ACCESSIBLE, "GetChildren", &()).await?;
        Ok(refs
            .into_iter()
            .map(|(bus, path)| ObjRef { bus, path })
            .filter(|r| !r.is_null())
            .collect())
    }

    pub(crate) async fn role(&self, obj: &ObjRef) -> Result<u32> {
        self.call(obj, ACCESSIBLE, "GetRole", &()).await
    }

    pub(crate) async fn states(&self, obj: &ObjRef) -> Result<AtspiStates> {
        let words: Vec<u32> = self.call(obj, ACCESSIBLE, "GetState", &()).await?;
        Ok(AtspiStates::from_words(&words))
    }

    /// The element's parent; `None` at the top or when it cannot be read.
    pub(crate) async fn parent(&self, obj: &ObjRef) -> Option<ObjRef> {
        self.parent_of(obj).await.ok().flatten()
    }

    /// The element's parent, `None` at the top; an error when the element does not answer
    /// (it ended).
    pub(crate) async fn parent_of(&self, obj: &ObjRef) -> Result<Option<ObjRef>> {
        let v = self.property(obj, ACCESSIBLE, "Parent").await?;
        let (bus, path) = <(String, OwnedObjectPath)>::try_from(v)
            .map_err(|e| Error::new(ErrorCode::Internal, format!("Parent: {e}")))?;
        Ok(Some(ObjRef { bus, path }).filter(|p| !p.is_null()))
    }

    /// The name of what `obj` (a GTK 3 combo box, whose items say nothing while its popup is
    /// closed) says is selected in it: `Selection.GetSelectedChild(0)`.
    pub(crate) async fn selected_name(&self, obj: &ObjRef) -> Option<String> {
        let (bus, path): (String, OwnedObjectPath) = self
            .call(obj, SELECTION, "GetSelectedChild", &(0i32,))
            .await
            .ok()?;
        let child = Some(ObjRef { bus, path }).filter(|c| !c.is_null())?;
        self.name(&child)
            .await
            .ok()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
    }

    pub(crate) async fn name(&self, obj: &ObjRef) -> Result<String> {
        let v = self.property(obj, ACCESSIBLE, "Name").await?;
        Ok(String::try_from(v).unwrap_or_default())
    }

    pub(crate) async fn extents(&self, obj: &ObjRef) -> Result<(i32, i32, i32, i32)> {
        self.call(obj, COMPONENT, "GetExtents", &(COORD_SCREEN,))
            .await
    }

    /// Opens a direct (peer-to-peer) connection to the application behind `bus` if it offers one
    /// (`Application.GetApplicationBusAddress`), so later calls skip the bus daemon. Idempotent;
    /// failures leave the bus in use.
    pub(crate) async fn connect_peer(&self, bus: &str) {
        if self
            .peers
            .lock()
            .map(|p| p.contains_key(bus))
            .unwrap_or(true)
        {
            return;
        }
        let root = ObjRef {
            bus: bus.to_owned(),
            path: Self::desktop().path,
        };
        let address: Option<String> = self
            .call(&root, APPLICATION, "GetApplicationBusAddress", &())
            .await
            .ok()
            .filter(|a: &String| !a.is_empty());
        let peer = match address {
            Some(address) => match zbus::connection::Builder::address(address.as_str()) {
                Ok(builder) => builder
                    .p2p()
                    .method_timeout(Duration::from_secs(3))
                    .build()
                    .await
                    .map_err(|e| tracing::debug!("no direct connection to {bus} at {address}: {e}"))
                    .ok(),
                Err(_) => None,
            },
            None => None,
        };
        tracing::debug!(bus, direct = peer.is_some(), "application transport");
        if let Ok(mut p) = self.peers.lock() {
            p.entry(bus.to_owned()).or_insert(peer);
        }
    }

    /// Stops using the direct connection to the application on `bus` (the next walk makes a new
    /// one), keeping it open, after an action went through it. atk-bridge runs an action's
    /// handler while it dispatches the call, and a handler can run a nested main loop for as
    /// long as a dialog stays open (GTK 3's `gtk_dialog_run` in a button's `clicked`): that
    /// connection then dispatches nothing more, so the next reads through it waited for the
    /// bus's timeout, and a key typed while one of them was pending froze the app for good
    /// (atk-bridge's key listener dispatches again, and that dispatch never comes back).
    /// Closing it could leave its disconnection pending the same way: the last
    /// [`MAX_RETIRED`] stay open.
    pub(crate) fn retire_peer(&self, bus: &str) {
        let Some(Some(peer)) = self.peers.lock().ok().and_then(|mut p| p.remove(bus)) else {
            return;
        };
        if let Ok(mut retired) = self.retired.lock() {
            if retired.len() >= MAX_RETIRED {
                retired.pop_front();
            }
            retired.push_back(peer);
        }
    }

    /// The names of an element's actions: how many (`NActions`), then `GetName(i)` for each.
    /// Never `GetActions`: Chromium and Firefox answer it with empty or mangled names (`""`,
    /// `";;"`), and a fresh Firefox aborted while building its answer for a settings page's
    /// check box (libdbus: invalid UTF-8 in the key bindings it adds).
    pub(crate) async fn action_names(&self, obj: &ObjRef) -> Result<Vec<String>> {
        let count = self.property(obj, ACTION, "NActions").await?;
        let count = i32::try_from(count).map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("NActions on {}: unexpected reply: {e}", obj.path.as_str()),
            )
        })?;
        let names = (0..count.clamp(0, MAX_ACTIONS))
            .map(|i| async move { self.call::<_, String>(obj, ACTION, "GetName", &(i,)).await });
        Ok(futures_util::future::join_all(names)
            .await
            .into_iter()
            .map(|n| n.unwrap_or_default())
            .collect())
    }

    /// The desktop root of the registry.
    pub(crate) fn desktop() -> ObjRef {
        ObjRef {
            bus: REGISTRY.to_owned(),
            path: OwnedObjectPath::try_from(ROOT_PATH).unwrap_or_default(),
        }
    }

    /// The application object of the app behind `bus` (its top-level windows are its children).
    pub(crate) fn app_root(bus: &str) -> ObjRef {
        ObjRef {
            bus: bus.to_owned(),
            path: OwnedObjectPath::try_from(ROOT_PATH).unwrap_or_default(),
        }
    }

    /// The process id behind a bus name.
    pub(crate) async fn pid_of(&self, bus: &str) -> Option<u32> {
        let dbus = ObjRef {
            bus: "org.freedesktop.DBus".into(),
            path: OwnedObjectPath::try_from("/org/freedesktop/DBus").ok()?,
        };
        self.call(
            &dbus,
            "org.freedesktop.DBus",
            "GetConnectionUnixProcessID",
            &(bus,),
        )
        .await
        .ok()
    }

    /// The toolkit behind an application, read with single `Get` calls: Qt crashes on
    /// `Properties.GetAll` (Qt 5.15 and 6.4, seen on the test desktop).
    pub(crate) async fn toolkit(&self, app: &ObjRef) -> Toolkit {
        let (name, version) = tokio::join!(
            self.property(app, APPLICATION, "ToolkitName"),
            self.property(app, APPLICATION, "Version"),
        );
        let text = |v: Result<OwnedValue>| {
            v.ok()
                .and_then(|v| String::try_from(v).ok())
                .unwrap_or_default()
        };
        Toolkit::from_name_and_version(&text(name), &text(version))
    }
}

async fn address_from_session_bus(
    session_bus: Option<&str>,
) -> std::result::Result<String, String> {
    let conn = match session_bus {
        Some(addr) => zbus::connection::Builder::address(addr)
            .map_err(|e| e.to_string())?
            .build()
            .await
            .map_err(|e| format!("session bus {addr}: {e}"))?,
        None => return Err("DBUS_SESSION_BUS_ADDRESS is not set".into()),
    };
    let reply = conn
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await
        .map_err(|e| format!("org.a11y.Bus.GetAddress: {e}"))?;
    reply
        .body()
        .deserialize::<String>()
        .map_err(|e| e.to_string())
}

fn unavailable(message: String) -> Error {
    Error::new(ErrorCode::GuiUnavailable, message)
}

/// Whether `e` is zbus's method timeout (an I/O error of kind `TimedOut`).
fn timed_out(e: &zbus::Error) -> bool {
    matches!(e, zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut)
}

/// Maps a D-Bus failure to our codes: a vanished peer or object is "not found", a timeout is
/// retryable, anything else is an action failure.
pub(crate) fn dbus_error(e: zbus::Error, obj: &ObjRef, method: &str) -> Error {
    let text = e.to_string();
    if let zbus::Error::MethodError(name, _, _) = &e {
        let name = name.as_str();
        if name.ends_with("ServiceUnknown") || name.ends_with("UnknownObject") {
            return Error::new(
                ErrorCode::ElementNotFound,
                format!("the element {} of {} is gone", obj.path.as_str(), obj.bus),
            );
        }
        if name.ends_with("UnknownMethod") || name.ends_with("UnknownInterface") {
            return Error::new(
                ErrorCode::ActionNotSupported,
                format!("{method} is not offered by {} ({name})", obj.path.as_str()),
            );
        }
        if name.ends_with("NoReply") || name.ends_with("Timeout") {
            return Error::new(
                ErrorCode::Timeout,
                format!("{method} on {} timed out: {text}", obj.bus),
            );
        }
    }
    if matches!(e, zbus::Error::InputOutput(_)) {
        return Error::new(
            ErrorCode::Timeout,
            format!("{method} on {}: {text}", obj.bus),
        );
    }
    Error::new(
        ErrorCode::ActionFailed,
        format!("{method} on {}: {text}", obj.path.as_str()),
    )
}
