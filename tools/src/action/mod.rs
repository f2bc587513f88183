//! `gui_action`: every check before anything happens, then each step semantic-first, with its
//! effect observed.
//!
//! Order: the state must exist, be unused, younger than 30 s and from this desktop; every step
//! must be well-formed and name elements of that state; coordinate steps must lie inside the
//! window, whose geometry must not have changed; the safety gate must allow every step (or
//! `confirm_dangerous` be set). Only then is the state consumed (atomically, so a concurrent call
//! with the same state loses) and the steps run. A call refused before acting leaves the state
//! usable. The call stops at the first failing step and says which.

mod plan;
mod step;

use cu_core::model::keys::Combo;
use cu_core::model::receiver::sets_option;
use cu_core::model::role::Role;
use cu_core::model::window::WindowId;
use cu_core::policy::activation::{self, Reach};
use cu_core::policy::safety::Decision;
use cu_core::policy::wait::Condition;
use cu_core::store::approvals::Target;
use cu_core::store::audit::AuditRecord;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

pub use step::{Drag, Pointer, Press, Scroll, Step};

use crate::approval::{Blocked, Reason};
use crate::effect::{Effect, Opened};
use crate::guard::Sender;
use crate::service::{Outcome, Service};
use crate::steps::{sends_input, Failure, Kind, Plan, Via};
use crate::wait::WaitResult;
use plan::plan;
use step::steps;

/// `gui_action`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The window the state observed.
    pub window_id: WindowId,
    /// From gui_state; used once.
    pub state_id: String,
    /// The steps, run in order; the call stops at the first failing one.
    #[schemars(length(min = 1, max = 50))]
    #[serde(deserialize_with = "steps")]
    pub actions: Vec<Step>,
    /// Only after the user explicitly approved.
    #[serde(default)]
    pub confirm_dangerous: bool,
    /// After the steps, wait for this condition (as gui_wait; element_id refers to state_id)
    /// and answer with its outcome, a new state_id and what changed since state_id.
    #[serde(default)]
    pub expect: Option<Condition>,
    /// How long expect waits, in ms (default 10000).
    #[serde(default)]
    #[schemars(range(min = 0, max = 60000))]
    pub expect_timeout_ms: Option<u64>,
}

/// What one step did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct StepResult {
    /// Index of the step.
    pub step: usize,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// How it was done.
    pub how: Via,
    /// What was seen of its effect.
    pub effect: Effect,
    /// The window it opened (effect `window_opened`), or that appeared as the window closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened: Option<Opened>,
    /// With `window_closed`: its application ended too (no window left, its process gone): it
    /// quit or crashed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub app_exited: bool,
    /// set_value: the value the element reads afterwards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// focus, type into element_id, set_value typed: keyboard focus was checked to be there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus_moved: Option<bool>,
}

/// `gui_action`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ActionResult {
    /// One entry per step that ran.
    pub results: Vec<StepResult>,
    /// What expect waited for, and how it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<WaitResult>,
}

impl Service {
    /// `gui_action`: runs the steps and writes one audit record per step that ran, or one for a
    /// refused or failed call. Typed text is redacted from every record.
    pub async fn gui_action(&self, req: &ActionRequest) -> Result<ActionResult> {
        let outcome = self.act(req).await;
        let typed: String = req
            .actions
            .iter()
            .filter_map(Step::text)
            .collect::<Vec<_>>()
            .join("\n");
        let typed = Some(typed.as_str()).filter(|t| !t.is_empty());
        let base = AuditRecord {
            action: Some("gui_action".into()),
            window: Some(req.window_id.0.clone()),
            reference: Some(req.state_id.clone()),
            confirmed: Some(req.confirm_dangerous),
            ..AuditRecord::default()
        };
        match &outcome {
            Ok((state, result)) => {
                for r in &result.results {
                    let step = &req.actions[r.step];
                    let element = step.element_id().and_then(|id| state.element(id).ok());
                    let record = AuditRecord {
                        action: Some(format!("gui_action.{}", r.kind)),
                        element_id: step.element_id().map(str::to_owned),
                        name: element.map(|e| e.name.clone()),
                        role: element.map(|e| e.role.as_str().to_owned()),
                        point: step.point(),
                        how: Some(r.how.as_str().to_owned()),
                        effect: Some(r.effect.as_str().to_owned()),
                        ..base.clone()
                    };
                    self.audit(record, Outcome::Acted, None, typed);
                }
            }
            Err(failure) => self.audit(base, failure.outcome(), Some(&failure.error), typed),
        }
        outcome.map(|(_, result)| result).map_err(|f| f.error)
    }

    async fn act(
        &self,
        req: &ActionRequest,
    ) -> std::result::Result<(SavedState, ActionResult), Failure> {
        if req.actions.is_empty() || req.actions.len() > 50 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "actions must hold 1 to 50 steps",
            )
            .into());
        }
        let info = self.backend.info().await?;
        let state = self
            .states
            .load(&req.state_id, &self.issuer(&info.desktop))?;
        let window = req.window_id.clone();
        if state.window != window {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "state {} observed window {}, not {}",
                    state.state_id, state.window, window
                ),
            )
            .with_suggestion("Pass the window_id the state was taken of, or observe this window.")
            .into());
        }
        let plans = req
            .actions
            .iter()
            .enumerate()
            .map(|(i, spec)| plan(i, spec, &state, self.config.max_type_chars as usize))
            .collect::<Result<Vec<_>>>()?;
        let expect = match &req.expect {
            Some(condition) => Some((
                condition.check(|id| state.element(id).map(|e| e.identity.clone()))?,
                crate::wait::timeout(self, req.expect_timeout_ms)?,
            )),
            None => None,
        };
        if plans.iter().any(uses_coordinates) {
            self.check_geometry(&window, &state).await?;
        }
        let listed = match &expect {
            Some((check, _)) => crate::wait::windows_now(self, check).await,
            None => None,
        };
        let mut sender = Sender::new(
            self,
            &window,
            "gui_action",
            req.confirm_dangerous,
            Some(&state.state_id),
        );
        for blocked in self.blocked_steps(&plans, &state) {
            let title = self.title_of(&window).await;
            let (step, rule) = (blocked.step, blocked.matched_rule.clone());
            let receiver = blocked
                .target
                .as_ref()
                .map_or(blocked.label.clone(), |t| t.name.clone());
            let approved = crate::approval::settle_blocked(
                self,
                &window,
                &title,
                blocked,
                req.confirm_dangerous,
            )
            .await?;
            if approved.is_some() {
                self.still_as_approved(&window, &state, &plans[step])
                    .await?;
            }
            sender.preapproved(step, &rule, &receiver, approved);
        }

        let mut results = Vec::with_capacity(plans.len());
        if plans.iter().any(sends_input) {
            crate::effect::activate_and_settle(self, &window).await;
        }
        // The first effect's baseline is taken right before the first input (after the gate's
        // probes); each later one is what the previous effect check saw last.
        let mut before = None;
        // Subscribed before the first input, so no effect's event is missed.
        let mut events = if plans.iter().any(watched) {
            crate::effect::subscribe(self, &window, state.dialog).await
        } else {
            None
        };
        if !events.as_ref().is_some_and(|e| e.proven()) {
            sender.want_baseline();
        }
        for (step, plan) in plans.iter().enumerate() {
            sender.begin_step(step, req.actions[step].name());
            let watched = watched(plan);
            let windows = if watched {
                crate::effect::windows_before(self, &window).await
            } else {
                None
            };
            if let Some(events) = events.as_mut() {
                events.before_input(plan.announces_window());
            }
            let ran = match crate::steps::run(self, &mut sender, &state, plan).await {
                Ok(ran) => ran,
                Err(e) => {
                    let sent = sender.sent_anything();
                    return Err(Failure {
                        error: step_failed(e, step, req.actions[step].name(), &results, sent),
                        sent,
                    });
                }
            };
            let (effect, opened, app_exited) = if watched {
                if let Some(fresh) = sender.baseline() {
                    before = fresh;
                }
                let seen = crate::effect::observe(
                    self,
                    &window,
                    before.as_ref(),
                    windows.as_ref(),
                    events.as_mut(),
                )
                .await;
                before = seen.fingerprint;
                (seen.effect, seen.opened, seen.app_exited)
            } else {
                (Effect::NotChecked, None, false)
            };
            results.push(StepResult {
                step,
                kind: req.actions[step].name(),
                how: ran.via,
                effect,
                opened,
                app_exited,
                value: ran.value,
                focus_moved: ran.focus_moved,
            });
            if let Some(ended) = effect
                .ends_sequence(step, app_exited)
                .filter(|_| step + 1 < plans.len())
            {
                return Err(Failure {
                    error: ended.with_details(
                        serde_json::json!({ "step": step + 1, "completed": results }),
                    ),
                    sent: true,
                });
            }
        }
        // A call of waits only consumes its state too.
        sender.commit()?;
        let expect = match expect {
            Some((check, timeout)) => {
                let since = (&state, listed);
                Some(crate::wait::expect(self, &window, &check, since, timeout).await)
            }
            None => None,
        };
        Ok((state, ActionResult { results, expect }))
    }

    /// The steps the safety gate stops, in order.
    fn blocked_steps(&self, plans: &[Plan], state: &SavedState) -> Vec<Blocked> {
        let mut blocked = Vec::new();
        // What has focus as the steps run: the observation's focus, then what a step focused.
        let mut focused: Option<SavedElement> = state.elements.iter().find(|e| e.focused).cloned();
        for (step, plan) in plans.iter().enumerate() {
            // Only what the observation shows; every piece is judged again live when sent. A
            // press or a space on a check box sets its option: its label is judged only for
            // money (a Return on it lands elsewhere and is judged as before).
            let (label, option): (Option<(String, Option<&SavedElement>)>, bool) = match plan {
                Plan::Element { kind, element } if kind.presses() => (
                    Some((element.name.clone(), Some(element))),
                    sets_option(element.role),
                ),
                Plan::Point { kind, at } if kind.presses() => {
                    let e = state.element_at(*at);
                    (
                        e.map(|e| (e.name.clone(), Some(e))),
                        e.is_some_and(|e| sets_option(e.role)),
                    )
                }
                Plan::SetValue { element, .. } => (
                    Some((element.name.clone(), Some(element))),
                    sets_option(element.role),
                ),
                Plan::Type { text, into } => {
                    let target = into.clone().or_else(|| focused.clone());
                    let breaks = text.contains('\n') || text.contains('\r');
                    let presses = text.contains(' ')
                        && !target.as_ref().is_some_and(|e| e.role.is_editable_text());
                    let option = !breaks && target.as_ref().is_some_and(|e| sets_option(e.role));
                    if breaks || presses {
                        (target.map(|e| (e.name.clone(), None)), option)
                    } else {
                        (None, false)
                    }
                }
                Plan::Key { keys } if activating(keys) => {
                    let space = activation::reach_of_combo(keys.keys()) == Reach::Space;
                    (
                        focused.clone().map(|e| (e.name.clone(), None)),
                        space && focused.as_ref().is_some_and(|e| sets_option(e.role)),
                    )
                }
                _ => (None, false),
            };
            let label = label.filter(|(_, e)| !e.is_some_and(|e| e.role == Role::Menu));
            match plan {
                Plan::Element { element, .. }
                | Plan::Focus { element }
                | Plan::SetValue { element, .. } => {
                    focused = Some(element.clone());
                }
                Plan::Type {
                    into: Some(element),
                    ..
                } => focused = Some(element.clone()),
                Plan::Point {
                    at,
                    kind: Kind::Click | Kind::DoubleClick | Kind::Press { .. },
                } => focused = state.element_at(*at).cloned(),
                _ => {}
            }
            let Some((label, element)) = label else {
                continue;
            };
            if let Decision::NeedsConfirmation {
                label,
                matched_rule,
            } = self.gate().check(&label)
            {
                if option && !cu_core::policy::safety::spends_money(&matched_rule) {
                    continue;
                }
                let point = match plan {
                    Plan::Point { at, .. } => Some(*at),
                    _ => None,
                };
                let element = element.or_else(|| state.elements.iter().find(|e| e.name == label));
                blocked.push(Blocked {
                    step,
                    action: format!("gui_action.{}", kind_name(plan)),
                    label,
                    matched_rule,
                    target: element.map(|e| Target {
                        role: e.role,
                        name: e.name.clone(),
                        bounds: e.bounds,
                    }),
                    point,
                    element_id: element.map(|e| e.id.clone()),
                    reason: Reason::BlockedWord,
                    after_input: false,
                });
            }
        }
        blocked
    }

    /// After a person's yes: the element is still there with the same role and name, or for a
    /// coordinate step the window has not moved.
    async fn still_as_approved(
        &self,
        window: &WindowId,
        state: &SavedState,
        plan: &Plan,
    ) -> Result<()> {
        let element = match plan {
            Plan::Element { element, .. }
            | Plan::SetValue { element, .. }
            | Plan::Focus { element } => element,
            Plan::Type {
                into: Some(element),
                ..
            } => element,
            _ => return self.check_geometry(window, state).await,
        };
        crate::approval::unchanged_since_approval(
            self,
            window,
            &element.identity,
            element.role,
            &element.name,
        )
        .await
    }
}

/// A step's error as the call answers it: which step, and what ran before it (`completed` is
/// present exactly when input was sent, so the state is used).
fn step_failed(e: Error, step: usize, kind: &str, done: &[StepResult], sent: bool) -> Error {
    let gate = matches!(
        e.code,
        ErrorCode::DangerousActionNeedsConfirmation
            | ErrorCode::ApprovalDenied
            | ErrorCode::ApprovalTimeout
    );
    let message = if gate {
        e.message.clone()
    } else {
        format!("step {step} ({kind}) failed: {}", e.message)
    };
    let mut details = match e.details.clone() {
        Some(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    details.insert("step".into(), serde_json::json!(step));
    if sent {
        details.insert("completed".into(), serde_json::json!(done));
    } else {
        details.remove("completed");
    }
    Error {
        message,
        details: Some(serde_json::Value::Object(details)),
        ..e
    }
}

fn kind_name(plan: &Plan) -> &'static str {
    match plan {
        Plan::Element { kind, .. } | Plan::Point { kind, .. } => kind.name(),
        Plan::Drag { .. } => "drag",
        Plan::Type { .. } => "type",
        Plan::Key { .. } => "key",
        Plan::SetValue { .. } => "set_value",
        Plan::Focus { .. } => "focus",
        Plan::Wait { .. } => "wait",
    }
}

/// Keys that press the focused element (Return, space), as the observation can judge them.
fn activating(keys: &Combo) -> bool {
    matches!(
        activation::reach_of_combo(keys.keys()),
        Reach::Enter | Reach::Space | Reach::DeleteKey
    )
}

fn uses_coordinates(plan: &Plan) -> bool {
    matches!(plan, Plan::Point { .. } | Plan::Drag { .. })
}

/// Whether a step's effect is watched (not a pause, not a pointer move).
fn watched(plan: &Plan) -> bool {
    !matches!(
        plan,
        Plan::Wait { .. }
            | Plan::Point {
                kind: Kind::Move,
                ..
            }
    )
}
