//! The tool service of mcp-computer-use: every tool as a plain async function on [`Service`],
//! with serde request and answer types and `cu_core::Error` for failures. It knows no MCP: the
//! MCP server (`cu-mcp`), the CLI, the worker and the Desktop page all call these same functions.
//!
//! - this file: [`Service`] (what every tool shares: the backend, the state registry, the gate,
//!   the audit log, the model runtime), `gui_list`, `gui_state`;
//! - `action.rs`: `gui_action` (validation into a plan, the gate pass, the steps, effects);
//! - `label.rs`: `click` and `type_text` by visible label; `target.rs`: which window and which
//!   candidates;
//! - `guard.rs`: the `Sender` every input of an acting tool goes through (the live gate);
//!   `approval.rs`: what happens when the gate stops something;
//! - `look.rs`: `look_at_screen`; `llm.rs`: the model as the tools use it (`ping`, `health`,
//!   `release_model`, timeouts, keep-alive); `image.rs`: captures as JPEG;
//! - `wait.rs`: `gui_wait` and the `expect` of acting tools (conditions, events or polling);
//! - `clipboard.rs`: `gui_clipboard` (write; read only when configured; never logged);
//! - `window.rs`: `gui_window` (focus, move, resize, minimize, maximize, restore, close);
//! - `desktop.rs`: the Desktop page's internal call; `open.rs`: the app launcher.

mod action;
#[cfg(test)]
mod ambiguous_tests;
mod approval;
mod clipboard;
#[cfg(test)]
mod clipboard_tests;
#[cfg(test)]
mod consequence_tests;
mod desktop;
mod effect_events;
#[cfg(test)]
mod effect_tests;
#[cfg(test)]
mod gate_tests;
mod guard;
mod image;
mod label;
mod llm;
mod look;
mod marks;
mod open;
mod steps;
mod target;
#[cfg(test)]
mod test_support;
mod tighten;
#[cfg(test)]
mod visible_tests;
mod wait;
#[cfg(test)]
mod wait_tests;
mod window;
#[cfg(test)]
mod window_tests;

use std::sync::Arc;

use cu_core::audit::AuditLog;
use cu_core::backend::{Backend, BackendInfo};
use cu_core::changes::{Changes, View, ViewLine};
use cu_core::config::Config;
use cu_core::element::{DesktopInstance, SnapshotOptions, State, Truncation};
use cu_core::outline::{self, OutlineOptions, Place};
use cu_core::persist::now_ms;
use cu_core::safety::Gate;
use cu_core::state_registry::{SavedElement, SavedState, StateRegistry};
use cu_core::views::ViewStore;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

pub use action::{ActionRequest, ActionResult, ActionSpec, StepResult};
pub use clipboard::{ClipboardOp, ClipboardRequest, ClipboardResult};
pub use desktop::{DesktopAnswer, DesktopRequest};
pub use guard::DESKTOP_PAGE_TITLE;
pub use label::{
    ClickRequest, ClickResult, ClickStep, Resolved, TypeRequest, TypeResult, MAX_STEPS,
};
pub use llm::{ModelHealth, ModelRuntime, PingResult, ReleaseResult};
pub use look::{LookAnswer, LookImage, LookOutcome, LookRequest};
pub use open::{OpenRequest, OpenResult, OpenToolRequest};
pub use steps::{Effect, Opened, Outcome, Via};
pub use tighten::{Tightening, ARGUMENT as TIGHTENING_ARGUMENT};
pub use wait::{WaitOutcome, WaitRequest, WaitResult};
pub use window::{WindowOp, WindowOutcome, WindowRequest, WindowResult};

/// What every tool shares.
pub struct Service {
    backend: Arc<dyn Backend>,
    gate: Gate,
    states: StateRegistry,
    /// The outlines of observations, for `since_state_id` and `gui_wait`.
    views: ViewStore,
    audit: AuditLog,
    approvals: cu_core::approvals::Approvals,
    config: Config,
    /// Set in a worker: this process's random id, added to the desktop marker of every saved
    /// state, so a restarted worker refuses the states of its previous life.
    instance: Option<String>,
    /// Tool calls running now (a worker's `/health` says busy or idle).
    in_flight: std::sync::atomic::AtomicUsize,
    /// The model behind look_at_screen and click's resolution.
    model: ModelRuntime,
    /// look_at_screen calls without a session (after two, answers suggest one).
    unsessioned_looks: std::sync::atomic::AtomicU32,
    /// How long an action's effect is watched for ([`EFFECT_WAIT`]; tests of the scripted
    /// backend, whose effects are immediate, shorten it).
    effect_wait: std::time::Duration,
}

/// How long an action's effect is watched for: AT-SPI actions are asynchronous.
pub const EFFECT_WAIT: std::time::Duration = std::time::Duration::from_millis(800);

/// `gui_list`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ListResult {
    /// The backend and what it can do.
    pub backend: BackendInfo,
    /// Visible application windows.
    pub windows: Vec<WindowInfo>,
}

/// `gui_state`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateRequest {
    /// From gui_list.
    pub window_id: String,
    /// List every element, not only interactive and text ones.
    #[serde(default)]
    pub all: bool,
    /// Do not descend below this depth.
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// Observe only this element (an id from state_id).
    #[serde(default)]
    pub subtree: Option<String>,
    /// The observation subtree refers to (not used up).
    #[serde(default)]
    pub state_id: Option<String>,
    /// Only the web page on screen (a browser's active tab), without the browser's chrome; its
    /// ids stay the same while the page does.
    #[serde(default)]
    pub page: bool,
    /// List at most this many elements (default 300).
    #[serde(default)]
    #[schemars(range(min = 1, max = 5000))]
    pub max_elements: Option<usize>,
    /// Attach a JPEG of the window (same window-relative space; see image.scale).
    #[serde(default)]
    pub screenshot: bool,
    /// With screenshot: draw each listed element's box and id on it (set-of-marks), so the
    /// image can be answered with ids.
    #[serde(default)]
    pub marks: bool,
    /// Each element's click point @x,y (its centre, window-relative). Not needed to act:
    /// elements are acted on by id.
    #[serde(default)]
    pub points: bool,
    /// Each element's full bounds x,y wxh (window-relative; wins over points).
    #[serde(default)]
    pub bounds: bool,
    /// Find instead of reading everything: only the elements whose name, value or description
    /// contains this text (compared like labels), each with its named containers; their ids are
    /// those of the whole outline. At most 200 characters.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub query: Option<String>,
    /// Answer only what changed since this earlier observation of the window (used or not, up
    /// to 10 minutes old): lines added (+), changed (~, with what they were) and removed (-).
    /// Elements that stayed keep their ids; all of them are usable with the new state_id.
    #[serde(default)]
    pub since_state_id: Option<String>,
}

/// The longest `query` `gui_state` takes.
pub const MAX_QUERY_CHARS: usize = 200;

/// `gui_state`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateResult {
    /// Use once, within 30 s, with `gui_action`.
    pub state_id: String,
    /// The window as observed.
    pub window: WindowInfo,
    /// The compact outline: one line per element, ids `e1…`; with since_state_id, only the
    /// lines that changed.
    pub outline: String,
    /// How many elements carry ids.
    pub elements: usize,
    /// With since_state_id: how many lines were added, changed, removed, and stayed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeCount>,
    /// Set when the walk stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// The screenshot's size and scale, when one was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<image::ImageInfo>,
    /// The JPEG bytes (sent as MCP image content, never inside JSON).
    #[serde(skip)]
    pub jpeg: Option<Vec<u8>>,
}

impl Service {
    /// A service over `backend` with `config`.
    pub fn new(backend: Arc<dyn Backend>, config: Config) -> Service {
        Service {
            backend,
            gate: Gate::new(&config.extra_blocked_words()),
            states: StateRegistry::new(&config.sessions_dir),
            views: ViewStore::new(&config.sessions_dir),
            audit: AuditLog::new(&config.sessions_dir, config.action_log_ttl_hours),
            approvals: cu_core::approvals::Approvals::new(&config.sessions_dir),
            model: ModelRuntime::new(&config),
            unsessioned_looks: std::sync::atomic::AtomicU32::new(0),
            config,
            instance: None,
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            effect_wait: EFFECT_WAIT,
        }
    }

    /// Watches each action's effect for `wait` instead of [`EFFECT_WAIT`]: for backends whose
    /// effects are immediate (the scripted backend of tests and fuzzing).
    pub fn with_effect_wait(mut self, wait: std::time::Duration) -> Service {
        self.effect_wait = wait;
        self
    }

    /// A service whose saved states are valid only in this process's life (a remote worker).
    pub fn for_worker(backend: Arc<dyn Backend>, config: Config) -> Service {
        Service {
            instance: Some(StateRegistry::new_id()),
            ..Service::new(backend, config)
        }
    }

    /// The marker saved states carry: the desktop instance, plus the worker's life.
    fn issuer(&self, desktop: &DesktopInstance) -> DesktopInstance {
        match &self.instance {
            Some(life) => DesktopInstance(format!("{}#{life}", desktop.0)),
            None => desktop.clone(),
        }
    }

    /// One element as it is now (its own node, no children), or `None` when it is gone.
    async fn element_now(
        &self,
        window: &WindowId,
        identity: &cu_core::element::ElementIdentity,
    ) -> Option<cu_core::element::Node> {
        let options = SnapshotOptions {
            subtree: Some(identity.clone()),
            max_depth: Some(0),
            time_budget_ms: 1000,
            ..SnapshotOptions::default()
        };
        let snapshot = self.backend.snapshot(window, &options).await.ok()?;
        snapshot.nodes.into_iter().next()
    }

    /// The text of a document as its paragraphs hold it, one per line (its own text when it has
    /// one).
    async fn document_text(
        &self,
        window: &WindowId,
        identity: &cu_core::element::ElementIdentity,
    ) -> Option<String> {
        let options = SnapshotOptions {
            subtree: Some(identity.clone()),
            max_depth: Some(2),
            max_nodes: 2000,
            time_budget_ms: 1000,
            ..SnapshotOptions::default()
        };
        let snapshot = self.backend.snapshot(window, &options).await.ok()?;
        let (root, rest) = snapshot.nodes.split_first()?;
        if let Some(own) = root.value.clone().filter(|v| !v.trim().is_empty()) {
            return Some(own);
        }
        let lines: Vec<&str> = rest.iter().filter_map(|n| n.value.as_deref()).collect();
        Some(lines.join("\n"))
    }

    /// Counts a tool call as running until the guard drops.
    pub fn begin_call(&self) -> CallGuard<'_> {
        self.in_flight
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        CallGuard(&self.in_flight)
    }

    /// Tool calls running now.
    pub fn calls_in_flight(&self) -> usize {
        self.in_flight.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Writes one audit record for a call forwarded to another machine.
    pub fn audit_forward(&self, machine: &str, tool: &str, error: Option<&Error>) {
        let record = cu_core::audit::AuditRecord {
            action: Some(format!("forward.{tool}")),
            machine: Some(machine.to_owned()),
            result: Some(if error.is_some() { "failed" } else { "ok" }.into()),
            error_code: error.map(|e| e.code.as_str().to_owned()),
            ..Default::default()
        };
        if let Err(e) = self.audit.append(record, None) {
            tracing::warn!("audit log: {}", e.message);
        }
    }

    /// The desktop backend the tools act through (for the CLI's raw `snapshot` and `--health`).
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The model runtime (`ping`, `release_model`).
    pub fn model(&self) -> &ModelRuntime {
        &self.model
    }

    /// `health`: the desktop backend, the model server, auto-start; `ok` when both work.
    pub async fn health(&self) -> HealthReport {
        // What the backend depends on, checked now (a display that went away since the
        // backend connected shows here, not only in the next failing call).
        let (info, checks) = tokio::join!(self.backend.info(), self.backend.health());
        let gui = match info {
            Ok(info) => GuiHealth {
                backend: Some(info),
                ok: checks.iter().all(|c| c.ok),
                checks,
                error: None,
            },
            Err(e) => GuiHealth {
                backend: None,
                checks,
                error: Some(e.to_json()["error"].clone()),
                ok: false,
            },
        };
        let model = self.model.health().await;
        let (ollama_autostarted, last_autostart) = self.model.autostart_report();
        HealthReport {
            ok: gui.ok && model.ok,
            gui,
            last_autostart,
            model,
            ollama_autostarted,
            sessions_dir: self.config.sessions_dir.clone(),
            version: env!("CARGO_PKG_VERSION"),
        }
    }

    /// `gui_list`.
    pub async fn gui_list(&self) -> Result<ListResult> {
        let (backend, windows) = tokio::join!(self.backend.info(), self.backend.list_windows());
        Ok(ListResult {
            backend: backend?,
            windows: windows?,
        })
    }

    /// `gui_state`: observe one window and save the observation.
    pub async fn gui_state(&self, req: &StateRequest) -> Result<StateResult> {
        if req
            .query
            .as_ref()
            .is_some_and(|q| q.chars().count() > MAX_QUERY_CHARS)
        {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("query has more than {MAX_QUERY_CHARS} characters"),
            )
            .with_suggestion("Ask for a few words of the element's name, value or description."));
        }
        let started = std::time::Instant::now();
        let window = WindowId(req.window_id.clone());
        let info = self.backend.info().await?;
        let desktop = self.issuer(&info.desktop);
        let subtree = match (&req.subtree, &req.state_id) {
            (Some(_), _) if req.page => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "subtree and page cannot be combined",
                )
                .with_suggestion("Pass one of them: page is the whole web page."))
            }
            (Some(element), Some(state_id)) => {
                let earlier = self.states.load(state_id, &desktop)?;
                Some(earlier.element(element)?.identity.clone())
            }
            (Some(_), None) => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "subtree needs the state_id it comes from",
                ))
            }
            _ => None,
        };
        let baseline = match &req.since_state_id {
            Some(id) => Some(self.baseline(id, &window, &desktop)?),
            None => None,
        };
        let mut observed = self
            .observe_window(&window, req, subtree, baseline.as_ref())
            .await?;
        if let Some(before) = &baseline {
            let changes = cu_core::changes::diff(&before.lines, &observed.view.lines);
            observed.result.outline = if changes.is_empty() {
                "(nothing changed)\n".into()
            } else {
                changes.render()
            };
            observed.result.changes = Some(ChangeCount::of(&changes));
        }
        if req.marks && !req.screenshot {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "marks are drawn on the screenshot: set screenshot=true too",
            ));
        }
        if req.screenshot {
            let shot = if req.marks {
                image::capture_marked(
                    self.backend.as_ref(),
                    &window,
                    &self.config,
                    &observed.marks,
                )
                .await?
            } else {
                image::capture_jpeg(self.backend.as_ref(), &window, &self.config).await?
            };
            observed.result.image = Some(shot.info);
            observed.result.jpeg = Some(shot.jpeg);
        }
        tracing::debug!(ms = started.elapsed().as_secs_f64() * 1000.0, "gui_state");
        Ok(observed.result)
    }

    /// The kept outline of observation `id`, which must be of `window`.
    fn baseline(&self, id: &str, window: &WindowId, desktop: &DesktopInstance) -> Result<View> {
        let view = self.views.load(id, desktop)?;
        if &view.window != window {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "observation {id} is of window {}, not {}",
                    view.window.0, window.0
                ),
            )
            .with_suggestion("Pass a state_id of the same window."));
        }
        Ok(view)
    }

    /// Observes `window` (snapshot, outline, saved state and view) with the options of `req`,
    /// keeping the ids of `keep`. No screenshot, no diff: the callers add what they need.
    async fn observe_window(
        &self,
        window: &WindowId,
        req: &StateRequest,
        subtree: Option<cu_core::element::ElementIdentity>,
        keep: Option<&View>,
    ) -> Result<Observed> {
        let options = SnapshotOptions {
            max_depth: req.max_depth,
            subtree,
            reuse: true,
            ..SnapshotOptions::default()
        };
        let snapshot = self.backend.snapshot(window, &options).await?;
        if req.page {
            let page = snapshot.page().ok_or_else(|| {
                Error::new(
                    ErrorCode::ElementNotFound,
                    format!("window {window} shows no web page (no document on screen)"),
                )
                .with_suggestion("Observe the window without page, or open the page first.")
            })?;
            return self.record(window, &page, req, keep);
        }
        self.record(window, &snapshot, req, keep)
    }

    /// Renders `snapshot` as `req` asks, saves its state and view.
    fn record(
        &self,
        window: &WindowId,
        snapshot: &cu_core::element::Snapshot,
        req: &StateRequest,
        keep: Option<&View>,
    ) -> Result<Observed> {
        let outline_options = OutlineOptions {
            all: req.all,
            max_elements: req.max_elements.unwrap_or(300).clamp(1, 5000),
            place: match (req.bounds, req.points) {
                (true, _) => Place::Bounds,
                (false, true) => Place::Point,
                (false, false) => Place::None,
            },
            query: req.query.clone(),
            keep_ids: keep.map(View::keep_ids).unwrap_or_default(),
        };
        let started = std::time::Instant::now();
        let outline = outline::render(snapshot, &outline_options);
        let mut lines = Vec::with_capacity(outline.ids.len());
        let elements: Vec<SavedElement> = outline
            .ids
            .iter()
            .zip(&outline.bodies)
            .filter_map(|((id, index), body)| {
                let n = snapshot.nodes.get(*index)?;
                lines.push(ViewLine {
                    id: id.clone(),
                    identity: n.identity.clone(),
                    body: body.clone(),
                });
                Some(SavedElement {
                    id: id.clone(),
                    identity: n.identity.clone(),
                    role: n.role,
                    // What the outline shows (an unnamed button's label), so the gate's early
                    // check sees the same name the agent read.
                    name: outline::shown_name(snapshot, n),
                    bounds: n.bounds,
                    focused: n.states.contains(State::Focused),
                    offscreen: n.states.contains(State::Offscreen),
                })
            })
            .collect();
        let state = SavedState {
            state_id: StateRegistry::new_id(),
            window: window.clone(),
            desktop: self.issuer(&snapshot.desktop),
            window_bounds: snapshot.window.bounds,
            window_size: SavedState::window_size_of(snapshot),
            created_ms: now_ms(),
            elements,
            dialog: snapshot.is_dialog(),
        };
        self.states.save(&state)?;
        let view = View {
            state_id: state.state_id.clone(),
            window: window.clone(),
            desktop: state.desktop.clone(),
            created_ms: state.created_ms,
            lines,
        };
        self.views.save(&view)?;
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "rendered and saved"
        );
        let marks = state
            .elements
            .iter()
            .filter_map(|e| Some((e.id.clone(), e.bounds?)))
            .collect();
        Ok(Observed {
            result: StateResult {
                state_id: state.state_id,
                elements: state.elements.len(),
                window: snapshot.window.clone(),
                outline: outline.text,
                changes: None,
                truncated: snapshot.truncated.clone(),
                image: None,
                jpeg: None,
            },
            view,
            marks,
        })
    }
}

/// One observation: the answer `gui_state` gives, the view kept of it, and each listed
/// element's box (for set-of-marks).
struct Observed {
    result: StateResult,
    view: View,
    marks: Vec<(String, cu_core::geometry::Rect)>,
}

/// How many outline lines changed between two observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangeCount {
    /// New elements.
    pub added: usize,
    /// Elements whose line changed.
    pub changed: usize,
    /// Elements that are gone.
    pub removed: usize,
    /// Elements whose line is the same (not shown).
    pub unchanged: usize,
}

impl ChangeCount {
    fn of(changes: &Changes) -> ChangeCount {
        ChangeCount {
            added: changes.added.len(),
            changed: changes.changed.len(),
            removed: changes.removed.len(),
            unchanged: changes.unchanged,
        }
    }
}

/// Marks a tool call as running; see [`Service::begin_call`].
pub struct CallGuard<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// `health`'s answer (fields in alphabetical order, as the JSON text has always listed them).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HealthReport {
    /// The desktop side.
    pub gui: GuiHealth,
    /// The last Ollama auto-start attempt, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_autostart: Option<cu_llm::autostart::AutostartReport>,
    /// The model side.
    pub model: ModelHealth,
    /// Both sides work.
    pub ok: bool,
    /// This process started Ollama.
    pub ollama_autostarted: bool,
    /// Where states, sessions and the audit log live.
    pub sessions_dir: std::path::PathBuf,
    /// This build's version.
    pub version: &'static str,
}

/// The desktop side of `health`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GuiHealth {
    /// The backend and its capabilities, when it connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendInfo>,
    /// The backend's own checks (session, display, accessibility bus).
    pub checks: Vec<cu_core::backend::HealthCheck>,
    /// Why the backend could not connect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
    /// Every check passed and the backend connected.
    pub ok: bool,
}
