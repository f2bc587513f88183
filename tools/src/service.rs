//! [`Service`]: what every tool shares (the backend, the state registry, the gate, the audit
//! log, the model runtime) and the window helpers every tool uses. The tools themselves are
//! `impl Service` blocks in their own files; the mechanisms under them (the step runner, the
//! live gate, the effect watch, waits, approvals) are free functions of their modules that take
//! the service. Only this file's methods are called across files.

use std::sync::Arc;

use cu_core::config::Config;
use cu_core::model::backend::{Backend, BackendInfo};
use cu_core::model::changes::View;
use cu_core::model::element::{DesktopInstance, SnapshotOptions, TruncationReason};
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::safety::Gate;
use cu_core::store::audit::AuditLog;
use cu_core::store::kept_ids::IdStore;
use cu_core::store::state_registry::{SavedState, StateRegistry};
use cu_core::store::views::ViewStore;
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;

use crate::llm::ModelRuntime;
use crate::tighten::{self, GateInForce, Tightening};

/// How long a read before an action waits for an application that does not answer
/// ([`Service::read_for_action`]): the bus's own reply timeout.
const APP_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);
/// The pause between two reads of a silent application.
const APP_RETRY: std::time::Duration = std::time::Duration::from_millis(150);

/// What every tool shares.
pub struct Service {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) gate: Gate,
    pub(crate) states: StateRegistry,
    /// The outlines of observations, for `since_state_id` and `gui_wait`.
    pub(crate) views: ViewStore,
    /// The ids each window's elements were given, kept across observations.
    pub(crate) ids: IdStore,
    pub(crate) audit: AuditLog,
    pub(crate) approvals: cu_core::store::approvals::Approvals,
    pub(crate) config: Config,
    /// Set in a worker: this process's random id, added to the desktop marker of every saved
    /// state, so a restarted worker refuses the states of its previous life.
    pub(crate) instance: Option<String>,
    /// Tool calls running now (a worker's `/health` says busy or idle).
    pub(crate) in_flight: std::sync::atomic::AtomicUsize,
    /// The model behind look_at_screen and click's resolution.
    pub(crate) model: ModelRuntime,
    /// look_at_screen calls without a session (after two, answers suggest one).
    pub(crate) unsessioned_looks: std::sync::atomic::AtomicU32,

    /// How long an action's effect is watched for ([`EFFECT_WAIT`]; tests of the scripted
    /// backend, whose effects are immediate, shorten it).
    pub(crate) effect_wait: std::time::Duration,
}

/// `gui_list`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ListResult {
    /// The backend and what it can do.
    pub backend: BackendInfo,
    /// Visible application windows.
    pub windows: Vec<WindowInfo>,
}

/// How long an action's effect is watched for: AT-SPI actions are asynchronous.
pub const EFFECT_WAIT: std::time::Duration = std::time::Duration::from_millis(800);

/// How an acting call ended, as the audit log records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Refused before any input was sent (its state, if any, still usable).
    Refused,
    /// Every step ran.
    Acted,
    /// Input was sent, then a step failed.
    Failed,
}

impl Outcome {
    /// The audit log's `result`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Refused => "refused",
            Outcome::Acted => "ok",
            Outcome::Failed => "failed",
        }
    }

    /// A failure's outcome: whether any input went out before it.
    pub fn of_failure(sent: bool) -> Outcome {
        if sent {
            Outcome::Failed
        } else {
            Outcome::Refused
        }
    }
}

impl Service {
    /// A service over `backend` with `config`.
    pub fn new(backend: Arc<dyn Backend>, config: Config) -> Service {
        Service {
            backend,
            gate: Gate::new(&config.extra_blocked_words()),
            states: StateRegistry::new(&config.sessions_dir),
            views: ViewStore::new(&config.sessions_dir),
            ids: IdStore::new(&config.sessions_dir),
            audit: AuditLog::new(&config.sessions_dir, config.action_log_ttl_hours),
            approvals: cu_core::store::approvals::Approvals::new(&config.sessions_dir),
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
    pub(crate) fn issuer(&self, desktop: &DesktopInstance) -> DesktopInstance {
        match &self.instance {
            Some(life) => DesktopInstance(format!("{}#{life}", desktop.0)),
            None => desktop.clone(),
        }
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

    /// Runs `call` with a controller's `tightening` in force on top of this service's settings.
    pub async fn tightened<F: std::future::Future>(
        &self,
        tightening: Option<Tightening>,
        call: F,
    ) -> F::Output {
        match tightening {
            Some(t) => tighten::run(self.config.extra_blocked_words(), t, call).await,
            None => call.await,
        }
    }

    /// The blocklist in force for the running call (a controller may have tightened it).
    pub(crate) fn gate(&self) -> GateInForce<'_> {
        tighten::gate_in_force(&self.gate)
    }

    /// Whether what the gate stops waits for a person, for the running call.
    pub(crate) fn approvals_on(&self) -> bool {
        self.config.approvals || tighten::approvals_in_force()
    }
    /// `gui_list`.
    pub async fn gui_list(&self) -> Result<ListResult> {
        let (backend, windows) = tokio::join!(self.backend.info(), self.backend.list_windows());
        Ok(ListResult {
            backend: backend?,
            windows: windows?,
        })
    }
    /// The one audit write of the acting tools: a step that ran, or how a call ended. `result`
    /// comes from `outcome`, the error code from `error`; typed text is redacted.
    pub(crate) fn audit(
        &self,
        record: cu_core::store::audit::AuditRecord,
        outcome: Outcome,
        error: Option<&Error>,
        typed: Option<&str>,
    ) {
        let record = cu_core::store::audit::AuditRecord {
            result: Some(outcome.as_str().into()),
            error_code: error.map(|e| e.code.as_str().to_owned()),
            ..record
        };
        if let Err(e) = self.audit.append(record, typed.filter(|t| !t.is_empty())) {
            tracing::warn!("audit log: {}", e.message);
        }
    }
    /// Writes one audit record for a call forwarded to another machine.
    pub fn audit_forward(&self, machine: &str, tool: &str, error: Option<&Error>) {
        let record = cu_core::store::audit::AuditRecord {
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
    /// The window (or the element `options` names) read for an action that follows: an app
    /// that is silent for a moment (a fresh Firefox building its settings page, an app still
    /// handling the last input) is asked again for about [`APP_PATIENCE`] rather than answered
    /// from a window read alone, where a label found nothing and a blocked word in it refused
    /// the step. A read that stays cut answers as it is; an element read that times out answers
    /// `TIMEOUT`, retryable.
    pub(crate) async fn read_for_action(
        &self,
        window: &WindowId,
        options: &SnapshotOptions,
    ) -> Result<cu_core::model::element::Snapshot> {
        let deadline = std::time::Instant::now() + APP_PATIENCE;
        loop {
            let read = self.backend.snapshot(window, options).await;
            // The app said nothing: the read timed out, or came back as the window alone (an
            // element that vanished mid-walk also marks a walk unresponsive; that read stands).
            let silent = match &read {
                Err(e) => e.code == ErrorCode::Timeout,
                Ok(s) => {
                    s.nodes.len() <= 1
                        && s.truncated.as_ref().is_some_and(|t| {
                            t.reason == TruncationReason::Unresponsive && t.omitted == 0
                        })
                }
            };
            if !silent || std::time::Instant::now() >= deadline {
                return read;
            }
            tracing::debug!("the application did not answer; reading it again before acting");
            tokio::time::sleep(APP_RETRY).await;
        }
    }
    /// One element as it is now (its own node, no children), or `None` when it is gone.
    pub(crate) async fn element_now(
        &self,
        window: &WindowId,
        identity: &cu_core::model::element::ElementIdentity,
    ) -> Option<cu_core::model::element::Node> {
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
    pub(crate) async fn document_text(
        &self,
        window: &WindowId,
        identity: &cu_core::model::element::ElementIdentity,
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
    /// The kept outline of observation `id`, which must be of `window`.
    pub(crate) fn baseline(
        &self,
        id: &str,
        window: &WindowId,
        desktop: &DesktopInstance,
    ) -> Result<View> {
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
    pub(crate) async fn check_geometry(&self, window: &WindowId, state: &SavedState) -> Result<()> {
        let windows = self.backend.list_windows().await?;
        let now = windows.iter().find(|w| &w.id == window).ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!("window {window} has closed"),
            )
        })?;
        if state.window_bounds.is_none() {
            // Positions unknown (Wayland): the backend finds the window and compares its size.
            return self
                .backend
                .check_coordinates(window, state.window_size)
                .await;
        }
        if now.bounds != state.window_bounds {
            return Err(Error::new(
                ErrorCode::WindowMoved,
                format!(
                    "window {window} moved or was resized since the observation ({:?} → {:?})",
                    state.window_bounds, now.bounds
                ),
            ));
        }
        Ok(())
    }
    pub(crate) async fn title_of(&self, window: &WindowId) -> String {
        self.backend
            .list_windows()
            .await
            .ok()
            .and_then(|all| all.into_iter().find(|w| &w.id == window))
            .map(|w| w.title)
            .unwrap_or_default()
    }
}

/// Marks a tool call as running; see [`Service::begin_call`].
pub struct CallGuard<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}
