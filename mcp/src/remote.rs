//! Tool calls for other machines: which machine a call is for, and ids that carry their machine.
//!
//! Every tool takes an optional `machine`. A remote machine's window ids and `state_id`s come
//! back prefixed with its name (`lab1/x11:0x800004`, `lab1/s80f4…`), so an id can only ever be
//! used on the machine that issued it: a prefixed id routes the call to its machine, an id of
//! one machine passed with another `machine` is refused, and a local id passed with a remote
//! `machine` is refused — never applied to whatever window has the same number there.
//!
//! The forwarding itself (an MCP client per worker) lives in the `cu-remote` crate behind the
//! [`Remote`] trait; this module is the pure routing and rewriting.

use async_trait::async_trait;
use cu_core::model::window::WindowInfo;
use cu_core::{Error, ErrorCode};
use rmcp::model::{CallToolResult, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Reaches the tool service of other machines.
#[async_trait]
pub trait Remote: Send + Sync {
    /// The names a call may route to: configured machines, a fleet's workers, and workers
    /// that left the fleet recently (their calls answer `MACHINE_UNREACHABLE`).
    fn machines(&self) -> Vec<String>;

    /// The machines `gui_list` with `machine: "*"` asks: all but those that left.
    fn present(&self) -> Vec<String> {
        self.machines()
    }

    /// Calls `tool` with `args` on `machine` and returns its result as the worker sent it
    /// (tool errors included); transport failures are `MACHINE_UNREACHABLE` or `UNAUTHORIZED`.
    async fn call(
        &self,
        machine: &str,
        tool: &str,
        args: JsonObject,
    ) -> Result<CallToolResult, Error>;
}

/// The Desktop page's internal call on `machine`: the JSON answer, and the JPEG of a capture.
pub async fn call_desktop(
    remote: &dyn Remote,
    machine: &str,
    request: serde_json::Value,
) -> Result<(Value, Option<Vec<u8>>), Error> {
    let args = match request {
        Value::Object(map) => map,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the request must be a JSON object",
            ))
        }
    };
    let result = remote
        .call(machine, crate::wire::INTERNAL_DESKTOP_CALL, args)
        .await?;
    let jpeg = crate::wire::first_jpeg(&result);
    let value = crate::wire::answer_json(result)?;
    Ok((value, jpeg))
}

/// `gui_list`'s answer for machine `*`: each machine's windows, or why it has none.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EveryMachine {
    /// This machine (`local`) first, then each configured one and each of the fleet's.
    pub machines: Vec<MachineWindows>,
    /// The machines whose windows are missing: no answer within the deadline, or an error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
    /// How long the whole listing took.
    pub elapsed_ms: u64,
}

/// One machine's part of [`EveryMachine`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MachineWindows {
    /// `local`, or the configured name.
    pub machine: String,
    /// Its windows (ids carry the machine's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<Vec<WindowInfo>>,
    /// Why they could not be listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

impl MachineWindows {
    /// The machine's windows or its error.
    pub fn new(machine: String, listed: Result<Vec<WindowInfo>, Error>) -> MachineWindows {
        let (windows, error) = match listed {
            Ok(windows) => (Some(windows), None),
            Err(e) => (None, Some(e)),
        };
        MachineWindows {
            machine,
            windows,
            error,
        }
    }
}

/// The part of a worker's `gui_list` answer that [`EveryMachine`] keeps.
#[derive(Debug, Clone, Deserialize)]
pub struct ListedWindows {
    /// The worker's windows, ids already qualified.
    pub windows: Vec<WindowInfo>,
}

/// Where a call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// This machine.
    Local,
    /// One remote machine, with its ids unprefixed in the arguments.
    Machine(String),
    /// Every machine (`gui_list` with `machine: "*"`, or its older spelling `"all"`).
    All,
}

/// Argument keys that hold ids issued by a machine.
const ID_KEYS: &[&str] = &["window_id", "state_id", "since_state_id"];

/// Takes `machine` out of `args`, checks every id against it, and strips the machine prefix
/// from ids. `app` may also be a prefixed window id.
pub fn route(args: &mut JsonObject, machines: &[String]) -> Result<Route, Error> {
    let explicit = match args.remove("machine") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) if m.is_empty() || m == "local" => Some(Route::Local),
        Some(Value::String(m)) if m == "*" || m == "all" => Some(Route::All),
        Some(Value::String(m)) if machines.contains(&m) => Some(Route::Machine(m)),
        Some(Value::String(m)) => {
            return Err(
                Error::new(ErrorCode::InvalidArgument, format!("unknown machine {m:?}"))
                    .with_suggestion(format!(
                        "Use one of: local{}{}.",
                        if machines.is_empty() { "" } else { ", " },
                        machines.join(", ")
                    ))
                    .with_details(serde_json::json!({ "machines": machines })),
            )
        }
        Some(_) => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "machine must be a string",
            ))
        }
    };
    let mut owner: Option<String> = None;
    let mut local_ids = Vec::new();
    for key in ID_KEYS.iter().copied().chain(["app"]) {
        let Some(Value::String(id)) = args.get(key) else {
            continue;
        };
        match split(id, machines) {
            Some((m, rest)) => {
                if owner.as_deref().is_some_and(|o| o != m) {
                    return Err(mixed(id));
                }
                owner = Some(m.to_owned());
                let rest = rest.to_owned();
                args.insert(key.to_owned(), Value::String(rest));
            }
            None if key != "app" => {
                // An id of a machine this controller does not know (any more: a fleet worker
                // gone longer than it is remembered) is refused, never taken as a local id.
                // Local ids never start with a machine-like name and a slash.
                if let Some((m, _)) = id.split_once('/') {
                    if cu_core::config::valid_machine_name(m) {
                        return Err(Error::new(
                            ErrorCode::InvalidArgument,
                            format!("{id} was issued by machine {m:?}, which this controller does not know (now)"),
                        )
                        .with_suggestion("List the machines there now: gui_list with machine \"*\"."));
                    }
                }
                local_ids.push(id.clone());
            }
            None => {}
        }
    }
    match (explicit, owner) {
        (Some(Route::All), _) => Ok(Route::All),
        (Some(Route::Machine(m)), None) if !local_ids.is_empty() => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{} was issued by this machine, not {m:?}",
                local_ids.join(", ")
            ),
        )
        .with_suggestion(format!(
            "Use the ids gui_list and gui_state returned with machine {m:?}."
        ))),
        (Some(Route::Machine(m)), Some(o)) if m != o => Err(mixed(&format!("{o}/…"))),
        (Some(Route::Local), Some(o)) => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("the ids belong to machine {o:?}, not to this machine"),
        )),
        (Some(r), _) => Ok(r),
        (None, Some(o)) => Ok(Route::Machine(o)),
        (None, None) => Ok(Route::Local),
    }
}

fn mixed(id: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("{id} belongs to another machine than the call"),
    )
    .with_suggestion("Pass ids of one machine per call, with that machine's name (or none).")
}

/// `("lab1", "x11:0x1")` for `"lab1/x11:0x1"` when `lab1` is a configured machine.
fn split<'a>(id: &'a str, machines: &[String]) -> Option<(&'a str, &'a str)> {
    let (m, rest) = id.split_once('/')?;
    machines.iter().any(|known| known == m).then_some((m, rest))
}

/// Prefixes every id in a remote answer with its machine: window ids (`id` inside `windows`,
/// `window_id` anywhere) and `state_id`.
pub fn qualify(value: &mut Value, machine: &str) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let is_id = ID_KEYS.contains(&key.as_str());
                match v {
                    Value::String(s) if is_id => *s = format!("{machine}/{s}"),
                    Value::Object(window) if key == "window" => {
                        if let Some(Value::String(id)) = window.get_mut("id") {
                            *id = format!("{machine}/{id}");
                        }
                    }
                    Value::Array(items) if key == "windows" => {
                        for w in items.iter_mut() {
                            if let Some(Value::String(id)) = w.get_mut("id") {
                                *id = format!("{machine}/{id}");
                            }
                            qualify(w, machine);
                        }
                    }
                    _ => qualify(v, machine),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| qualify(v, machine)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    fn machines() -> Vec<String> {
        vec!["lab1".into(), "lab2".into()]
    }

    #[test]
    fn a_prefixed_id_routes_to_its_machine_and_is_stripped() {
        let mut a = args(json!({ "window_id": "lab1/x11:0x8", "state_id": "lab1/s12" }));
        assert_eq!(
            route(&mut a, &machines()).ok(),
            Some(Route::Machine("lab1".into()))
        );
        assert_eq!(a["window_id"], "x11:0x8");
        assert_eq!(a["state_id"], "s12");
        let mut a = args(json!({ "app": "lab2/x11:0x9", "machine": "lab2", "target": "7" }));
        assert_eq!(
            route(&mut a, &machines()).ok(),
            Some(Route::Machine("lab2".into()))
        );
        assert_eq!(a["app"], "x11:0x9");
        assert!(!a.contains_key("machine"));
    }

    #[test]
    fn a_forgotten_or_wrong_machine_never_reaches_another_window() {
        // A local id with a remote machine: refused, not sent to lab1's window 0x8.
        let mut a = args(json!({ "window_id": "x11:0x8", "machine": "lab1" }));
        assert_eq!(
            route(&mut a, &machines()).err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
        // Another machine's id.
        let mut a = args(json!({ "window_id": "lab2/x11:0x8", "machine": "lab1" }));
        assert!(route(&mut a, &machines()).is_err());
        let mut a = args(json!({ "window_id": "lab1/x11:0x8", "state_id": "lab2/s1" }));
        assert!(route(&mut a, &machines()).is_err());
        let mut a = args(json!({ "window_id": "lab1/x11:0x8", "machine": "local" }));
        assert!(route(&mut a, &machines()).is_err());
        let mut a = args(json!({ "machine": "nowhere" }));
        assert_eq!(
            route(&mut a, &machines()).err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
    }

    #[test]
    fn local_calls_and_titles_with_slashes_stay_local() {
        let mut a = args(json!({ "window_id": "x11:0x8" }));
        assert_eq!(route(&mut a, &machines()).ok(), Some(Route::Local));
        let mut a = args(json!({ "app": "src/main.rs - Code", "target": "Save" }));
        assert_eq!(route(&mut a, &machines()).ok(), Some(Route::Local));
        assert_eq!(a["app"], "src/main.rs - Code");
        // An id of a machine unknown here (a fleet worker long gone) is refused, not local;
        // local ids with slashes (AT-SPI paths on Wayland) stay local.
        let mut a = args(json!({ "window_id": "w-7/x11:0x8" }));
        assert_eq!(
            route(&mut a, &machines()).err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
        let mut a = args(json!({ "window_id": "atspi::1.4|/org/gnome/Calculator/a11y/1" }));
        assert_eq!(route(&mut a, &machines()).ok(), Some(Route::Local));
        for every in ["*", "all"] {
            let mut a = args(json!({ "machine": every }));
            assert_eq!(route(&mut a, &machines()).ok(), Some(Route::All));
        }
    }

    #[test]
    fn answers_get_their_machine_on_every_id() {
        let mut v = json!({
            "windows": [{ "id": "x11:0x8", "title": "Calculator" }],
            "state_id": "s1",
            "window": { "id": "x11:0x8" },
            "results": [{ "window_id": "x11:0x8" }],
            "error": { "details": { "windows": [{ "window_id": "x11:0x9" }] } }
        });
        qualify(&mut v, "lab1");
        assert_eq!(v["windows"][0]["id"], "lab1/x11:0x8");
        assert_eq!(v["state_id"], "lab1/s1");
        assert_eq!(v["results"][0]["window_id"], "lab1/x11:0x8");
        assert_eq!(
            v["error"]["details"]["windows"][0]["window_id"],
            "lab1/x11:0x9"
        );
        assert_eq!(v["windows"][0]["title"], "Calculator");
        assert_eq!(v["window"]["id"], "lab1/x11:0x8");
    }
}
