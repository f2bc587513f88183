//! `gui_wait`, and the `expect` of acting tools: wait for a condition instead of polling with
//! `gui_state`, and answer with a fresh observation and what changed.
//!
//! The condition is checked first ([`cu_core::policy::wait::Condition::check`]); then the window is
//! observed until it holds or the timeout passes. Between observations the backend's change
//! events wake the loop where it has them (`Backend::watch`, subscribed before the first look, so
//! a change made while the window is being observed is not missed); elsewhere it polls every
//! [`POLL`]. The outcome is `satisfied`, `unsatisfied` (timed out, with what was seen last) or
//! `unknown` (the window could not be observed: never to be read as success). For a window that
//! is still there the answer carries a new `state_id` and the outline lines that changed since
//! the wait began (or since `state_id`), ids kept, so no extra `gui_state` is needed.

use std::time::{Duration, Instant};

use cu_core::model::changes::{Scope, View};
use cu_core::model::element::Snapshot;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::wait::{judge_element, judge_windows, Check, Condition, Verdict};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use crate::service::Service;
use crate::state::{ChangeCount, StateRequest};

/// How often the window is observed where the platform sends no change events (and at least
/// this often where it does).
pub const POLL: Duration = Duration::from_millis(100);
/// How long after a change event the window is observed (a burst of events settles).
pub const EVENT_SETTLE: Duration = Duration::from_millis(20);
/// The timeout when none is given.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// The longest timeout.
pub const MAX_TIMEOUT_MS: u64 = 60_000;

/// `gui_wait`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitRequest {
    /// The window to watch, from gui_list (optional for until=window_appears).
    #[serde(default)]
    pub window_id: Option<WindowId>,
    /// What to wait for.
    pub condition: Condition,
    /// An earlier observation of the window: what element_id refers to, and what the answer's
    /// changes are measured from (default: the window when the wait begins).
    #[serde(default)]
    pub state_id: Option<String>,
    /// Give up after this many ms (default 10000, at most 60000 and within the call budget).
    #[serde(default)]
    #[schemars(range(min = 0, max = 60000))]
    pub timeout_ms: Option<u64>,
}

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitOutcome {
    /// The condition held.
    Satisfied,
    /// The timeout passed first; `seen` says what was there last.
    Unsatisfied,
    /// The window could not be observed (it closed, or the backend failed): not a success.
    Unknown,
}

/// `gui_wait`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WaitResult {
    /// How it ended.
    pub outcome: WaitOutcome,
    /// What was seen last: the matching element's line, or why nothing matched.
    pub seen: String,
    /// How long the wait took, in ms.
    pub waited_ms: u64,
    /// For an unknown outcome: why the window could not be observed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The window that appeared (until=window_appears), or the watched one as last seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowInfo>,
    /// A new observation of the window, usable with gui_action like gui_state's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_id: Option<String>,
    /// The outline lines that changed since the wait began (or since state_id): + added,
    /// ~ changed (with what they were), - removed; ids are kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<String>,
    /// How many lines changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_count: Option<ChangeCount>,
    /// Accessibility events from the window's application that woke the wait (0 where the
    /// platform sends none: then it observed every 100 ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<u32>,
}

/// What one observation of the watched window gave.
enum Look {
    Judged(Verdict, Box<Snapshot>),
    Failed(Error),
}

impl Service {
    /// `gui_wait`.
    pub async fn gui_wait(&self, req: &WaitRequest) -> Result<WaitResult> {
        let timeout = crate::wait::timeout(self, req.timeout_ms)?;
        let info = self.backend.info().await?;
        let desktop = self.issuer(&info.desktop);
        let window = req.window_id.clone();
        let earlier = match (&req.state_id, &window) {
            (Some(id), Some(w)) => Some(self.baseline(id, w, &desktop)?),
            (Some(_), None) => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "state_id needs the window_id it observed",
                ))
            }
            _ => None,
        };
        let check = req.condition.check(|id| match &earlier {
            Some(view) => view
                .lines
                .iter()
                .find(|l| l.id == id)
                .map(|l| l.identity.clone())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::ElementNotFound,
                        format!("no element {id} in observation {}", view.state_id),
                    )
                }),
            None => Err(Error::new(
                ErrorCode::InvalidArgument,
                "element_id needs the state_id it comes from",
            )
            .with_suggestion("Pass the state_id of the observation that listed it.")),
        })?;
        let since = Since {
            view: earlier,
            windows: None,
        };
        crate::wait::wait_for(self, window.as_ref(), &check, since, timeout).await
    }
}

/// What a wait measures its answer against: the observation its changes are against, and the
/// windows listed before the call acted (for an unmet window_appears to name the ones that
/// came; without it, the wait's own first list).
#[derive(Default)]
pub(crate) struct Since {
    pub(crate) view: Option<View>,
    pub(crate) windows: Option<Vec<WindowId>>,
}

/// The windows listed now, when `check` is a window_appears that may need them later.
pub(crate) async fn windows_now(service: &Service, check: &Check) -> Option<Vec<WindowId>> {
    if !matches!(check, Check::WindowAppears(_)) {
        return None;
    }
    let listed = service.backend.list_windows().await.ok()?;
    Some(listed.into_iter().map(|w| w.id).collect())
}

/// An acting call's `expect`: the wait after its steps, measured from the observation it
/// acted on. A wait that cannot run is an `unknown` outcome: the steps did run.
pub(crate) async fn expect(
    service: &Service,
    window: &WindowId,
    check: &Check,
    (state, windows): (
        &cu_core::store::state_registry::SavedState,
        Option<Vec<WindowId>>,
    ),
    timeout: Duration,
) -> WaitResult {
    let since = Since {
        view: service.views.load(&state.state_id, &state.desktop).ok(),
        windows,
    };
    let started = Instant::now();
    crate::wait::wait_for(service, Some(window), check, since, timeout)
        .await
        .unwrap_or_else(|e| unknown(e, started.elapsed().as_millis() as u64))
}

/// The timeout of a wait: the default, or what was asked, within the limits.
pub(crate) fn timeout(service: &Service, asked: Option<u64>) -> Result<Duration> {
    let ms = asked.unwrap_or(DEFAULT_TIMEOUT_MS);
    let budget_ms = (service.config.call_budget_seconds > 0.0)
        .then_some((service.config.call_budget_seconds * 1000.0) as u64);
    let limit = budget_ms.map_or(MAX_TIMEOUT_MS, |b| b.min(MAX_TIMEOUT_MS));
    if ms > limit {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("timeout_ms {ms} is over the limit of {limit} ms"),
        )
        .with_suggestion(if budget_ms.is_some_and(|b| b < MAX_TIMEOUT_MS) {
            "Wait less: the call budget (call_budget_seconds) would end the call first."
        } else {
            "Wait at most 60000 ms per call, and call again to wait longer."
        }));
    }
    Ok(Duration::from_millis(ms))
}

/// Waits for a checked condition on `window` (or on the window list).
pub(crate) async fn wait_for(
    service: &Service,
    window: Option<&WindowId>,
    check: &Check,
    since: Since,
    timeout: Duration,
) -> Result<WaitResult> {
    let started = Instant::now();
    let deadline = started + timeout;
    match check {
        Check::WindowAppears(_) | Check::WindowCloses => {
            if matches!(check, Check::WindowCloses) && window.is_none() {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "until=window_closes needs the window_id to watch",
                ));
            }
            wait_for_window(service, window, check, since.windows, (deadline, started)).await
        }
        Check::Element { .. } | Check::Stable(_) => {
            let Some(window) = window else {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "this condition needs the window_id to watch",
                )
                .with_suggestion("Pass a window_id from gui_list."));
            };
            wait_in_window(service, window, check, since.view, deadline, started).await
        }
    }
}

async fn wait_for_window(
    service: &Service,
    window: Option<&WindowId>,
    check: &Check,
    before: Option<Vec<WindowId>>,
    (deadline, started): (Instant, Instant),
) -> Result<WaitResult> {
    let mut last: std::result::Result<(Verdict, Option<WindowInfo>), Error>;
    // The windows listed before the call acted, else first: an unmet window_appears names the
    // ones that came since (the title the agent expected may differ from the one that opened).
    let mut first: Option<Vec<WindowId>> = before;
    loop {
        last = service.backend.list_windows().await.map(|windows| {
            let (mut verdict, hit) = judge_windows(check, window, &windows);
            let shown = hit
                .cloned()
                .or_else(|| windows.iter().find(|w| Some(&w.id) == window).cloned());
            match &first {
                None => first = Some(windows.iter().map(|w| w.id.clone()).collect()),
                Some(before) if !verdict.met && matches!(check, Check::WindowAppears(_)) => {
                    verdict.seen = appeared_since(&verdict.seen, before, &windows);
                }
                Some(_) => {}
            }
            (verdict, shown)
        });
        let met = matches!(&last, Ok((v, _)) if v.met);
        if met || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
    let waited_ms = started.elapsed().as_millis() as u64;
    let mut answer = match last {
        Ok((verdict, shown)) => WaitResult {
            outcome: if verdict.met {
                WaitOutcome::Satisfied
            } else {
                WaitOutcome::Unsatisfied
            },
            seen: verdict.seen,
            waited_ms,
            reason: None,
            window: shown,
            state_id: None,
            changes: None,
            change_count: None,
            events: None,
        },
        Err(e) => unknown(e, waited_ms),
    };
    // A window that appeared is observed at once, so the agent can act on it.
    if let (Check::WindowAppears(_), Some(w)) = (check, &answer.window) {
        let id = w.id.clone();
        if let Ok(observed) = crate::state::observe_window(
            service,
            &id,
            &state_request(&id),
            Default::default(),
            None,
        )
        .await
        {
            answer.state_id = Some(observed.result.state_id);
            answer.changes = Some(observed.result.outline);
        }
    }
    Ok(answer)
}

/// `seen` followed by the windows listed now that were not listed first.
fn appeared_since(seen: &str, before: &[WindowId], now: &[WindowInfo]) -> String {
    let came: Vec<String> = now
        .iter()
        .filter(|w| !before.contains(&w.id))
        .map(|w| format!("\"{}\" ({})", w.title, w.id.0))
        .collect();
    if came.is_empty() {
        format!("{seen}; no window appeared while waiting")
    } else {
        format!("{seen}; appeared while waiting: {}", came.join(", "))
    }
}

async fn wait_in_window(
    service: &Service,
    window: &WindowId,
    check: &Check,
    earlier: Option<View>,
    deadline: Instant,
    started: Instant,
) -> Result<WaitResult> {
    // The answer's changes compare like with like: the scope of the observation passed.
    let scope = earlier
        .as_ref()
        .map(|v| v.scope.clone())
        .unwrap_or_default();
    let request = StateRequest {
        query: scope.query.clone(),
        page: scope.page,
        all: scope.all,
        ..state_request(window)
    };
    let scoped = crate::state::Scoped {
        subtree: scope.subtree.clone(),
        table: None,
    };
    let mut baseline = earlier;
    let mut previous: Option<(Vec<String>, Instant)> = None;
    let mut events = 0u32;
    // Subscribed before the first look: an event during any look wakes the next wait.
    let mut watch = service.backend.watch(window).await.ok();
    let look = loop {
        let look = match service.backend.snapshot(window, &Default::default()).await {
            Ok(snapshot) => {
                if baseline.is_none() {
                    // The window as the wait began: what the answer's changes are against.
                    baseline = crate::state::record(
                        service,
                        window,
                        &scope_of(snapshot.clone(), &scope),
                        &request,
                        &scoped,
                        None,
                    )
                    .ok()
                    .map(|o| o.view);
                }
                let verdict = match check {
                    Check::Element { target, want } => judge_element(target, want, &snapshot),
                    Check::Stable(quiet) => stable(&snapshot, &mut previous, *quiet),
                    _ => Verdict {
                        met: false,
                        seen: String::new(),
                    },
                };
                Look::Judged(verdict, Box::new(snapshot))
            }
            Err(e) => Look::Failed(e),
        };
        let done = match &look {
            Look::Judged(v, _) => v.met,
            Look::Failed(e) => e.code == ErrorCode::WindowNotFound,
        };
        if done || Instant::now() >= deadline {
            break look;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match watch.as_mut() {
            Some(w) => {
                if w.changed(POLL.min(left)).await {
                    events += 1;
                    // Let a burst of events settle before observing again.
                    tokio::time::sleep(EVENT_SETTLE.min(left)).await;
                }
            }
            None => tokio::time::sleep(POLL.min(left)).await,
        }
    };
    let waited_ms = started.elapsed().as_millis() as u64;
    match look {
        Look::Failed(e) => Ok(unknown(e, waited_ms)),
        Look::Judged(verdict, snapshot) => {
            let observed = crate::state::record(
                service,
                window,
                &scope_of(*snapshot, &scope),
                &request,
                &scoped,
                baseline.as_ref(),
            )?;
            let changes = baseline
                .as_ref()
                .map(|before| cu_core::model::changes::diff(&before.lines, &observed.view.lines));
            Ok(WaitResult {
                outcome: if verdict.met {
                    WaitOutcome::Satisfied
                } else {
                    WaitOutcome::Unsatisfied
                },
                seen: verdict.seen,
                waited_ms,
                reason: None,
                window: Some(observed.result.window),
                state_id: Some(observed.result.state_id),
                change_count: changes.as_ref().map(ChangeCount::of),
                changes: changes.map(|c| c.render()),
                events: Some(events),
            })
        }
    }
}

/// The part of `snapshot` an earlier observation covered (its page, its subtree).
fn scope_of(snapshot: Snapshot, scope: &Scope) -> Snapshot {
    let at = |identity| cu_core::policy::consequence::find(&snapshot, identity);
    match (&scope.subtree, scope.page) {
        (Some(identity), _) => match at(identity) {
            Some(i) => snapshot.within(i),
            None => snapshot,
        },
        (None, true) => snapshot.page().unwrap_or(snapshot),
        (None, false) => snapshot,
    }
}

fn state_request(window: &WindowId) -> StateRequest {
    StateRequest {
        window_id: window.clone(),
        ..StateRequest::default()
    }
}

pub(crate) fn unknown(e: Error, waited_ms: u64) -> WaitResult {
    WaitResult {
        outcome: WaitOutcome::Unknown,
        seen: String::new(),
        waited_ms,
        reason: Some(format!("{}: {}", e.code.as_str(), e.message)),
        window: None,
        state_id: None,
        changes: None,
        change_count: None,
        events: None,
    }
}

/// `until=stable`: met when the outline has not changed for `quiet`.
fn stable(
    snapshot: &Snapshot,
    previous: &mut Option<(Vec<String>, Instant)>,
    quiet: Duration,
) -> Verdict {
    let lines: Vec<String> = snapshot
        .nodes
        .iter()
        .map(|n| cu_core::model::outline::describe(snapshot, n))
        .collect();
    let now = Instant::now();
    let since = match previous.take() {
        Some((before, since)) if before == lines => since,
        _ => now,
    };
    let still = now.duration_since(since);
    *previous = Some((lines, since));
    Verdict {
        met: still >= quiet,
        seen: format!("unchanged for {} ms", still.as_millis()),
    }
}
