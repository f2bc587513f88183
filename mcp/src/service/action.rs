//! `gui_action`: every check before anything happens, then each step semantic-first, with its
//! effect observed.
//!
//! Order: the state must exist, be unused, younger than 30 s and from this desktop; every step
//! must be well-formed and name elements of that state; coordinate steps must lie inside the
//! window, whose geometry must not have changed; the safety gate must allow every step (or
//! `confirm_dangerous` be set). Only then is the state consumed (atomically, so a concurrent call
//! with the same state loses) and the steps run. A call refused before acting leaves the state
//! usable. The call stops at the first failing step and says which.

use std::time::{Duration, Instant};

use cu_core::activation::{self, Reach};
use cu_core::approvals::Target;
use cu_core::audit::AuditRecord;
use cu_core::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::element::{Snapshot, SnapshotOptions, State};
use cu_core::geometry::{Point, Rect};
use cu_core::role::Role;
use cu_core::safety::Decision;
use cu_core::state_registry::{SavedElement, SavedState};
use cu_core::window::WindowId;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use super::approval::{Blocked, Reason};
use super::guard::Sender;
use super::Service;

/// `gui_action`'s request.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The window the state observed.
    pub window_id: String,
    /// From `gui_state`; used once.
    pub state_id: String,
    /// The steps, run in order; the call stops at the first failure.
    pub actions: Vec<ActionSpec>,
    /// The user explicitly approved a dangerous action.
    #[serde(default)]
    pub confirm_dangerous: bool,
}

/// One step.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ActionSpec {
    /// click, double_click, right_click, move, scroll, drag, type, key, set_value, focus, wait.
    #[serde(rename = "type")]
    pub kind: String,
    /// Target element (preferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Window-relative x, when no element fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Window-relative y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Drag end: element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_element_id: Option<String>,
    /// Drag end: x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_x: Option<i32>,
    /// Drag end: y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_y: Option<i32>,
    /// Text for `type`, value for `set_value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Key combination for `key` (`ctrl+s`, `Return`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// Scroll notches (positive: right / down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<i32>,
    /// Scroll notches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<i32>,
    /// Milliseconds for `wait` (at most 10 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
}

/// What one step did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StepResult {
    /// Index of the step.
    pub step: usize,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// `semantic`, `coordinates`, `keyboard` or `wait`.
    pub how: &'static str,
    /// `changed`, `window_closed`, `no_change` or `not_checked`.
    pub effect: &'static str,
}

/// `gui_action`'s answer.
#[derive(Debug, Clone, Serialize)]
pub struct ActionResult {
    /// One entry per step that ran.
    pub results: Vec<StepResult>,
}

/// A step after validation.
#[derive(Debug, Clone)]
pub(super) enum Plan {
    Element {
        kind: Kind,
        element: SavedElement,
    },
    Point {
        kind: Kind,
        at: Point,
    },
    Drag {
        from: Point,
        to: Point,
    },
    Type {
        text: String,
        into: Option<SavedElement>,
    },
    Key {
        keys: String,
    },
    SetValue {
        element: SavedElement,
        value: String,
    },
    Focus {
        element: SavedElement,
    },
    Wait {
        ms: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Click,
    DoubleClick,
    RightClick,
    Move,
    Scroll { dx: i32, dy: i32 },
}

fn bad(step: usize, message: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("step {step}: {message}"),
    )
    .with_details(serde_json::json!({ "step": step }))
}

impl Service {
    /// `gui_action`: runs the steps and writes one audit record per step that ran, or one for a
    /// refused or failed call. Typed text is redacted from every record.
    pub async fn gui_action(&self, req: &ActionRequest) -> Result<ActionResult> {
        let outcome = self.act(req).await;
        let typed: String = req
            .actions
            .iter()
            .filter_map(|a| a.text.as_deref())
            .collect::<Vec<_>>()
            .join("\n");
        let typed = Some(typed.as_str()).filter(|t| !t.is_empty());
        let base = AuditRecord {
            action: Some("gui_action".into()),
            window: Some(req.window_id.clone()),
            reference: Some(req.state_id.clone()),
            confirmed: Some(req.confirm_dangerous),
            ..AuditRecord::default()
        };
        let records: Vec<AuditRecord> = match &outcome {
            Ok((state, result)) => result
                .results
                .iter()
                .map(|r| {
                    let spec = &req.actions[r.step];
                    let element = spec
                        .element_id
                        .as_deref()
                        .and_then(|id| state.element(id).ok());
                    AuditRecord {
                        action: Some(format!("gui_action.{}", r.kind)),
                        element_id: spec.element_id.clone(),
                        name: element.map(|e| e.name.clone()),
                        role: element.map(|e| e.role.as_str().to_owned()),
                        point: spec.x.zip(spec.y).map(|(x, y)| Point::new(x, y)),
                        how: Some(r.how.to_owned()),
                        effect: Some(r.effect.to_owned()),
                        result: Some("ok".into()),
                        ..base.clone()
                    }
                })
                .collect(),
            Err(e) => vec![AuditRecord {
                result: Some(
                    if e.details
                        .as_ref()
                        .and_then(|d| d.get("completed"))
                        .is_some()
                    {
                        "failed"
                    } else {
                        "refused"
                    }
                    .into(),
                ),
                error_code: Some(e.code.as_str().to_owned()),
                ..base
            }],
        };
        for record in records {
            if let Err(e) = self.audit.append(record, typed) {
                tracing::warn!("audit log: {}", e.message);
            }
        }
        outcome.map(|(_, result)| result)
    }

    async fn act(&self, req: &ActionRequest) -> Result<(SavedState, ActionResult)> {
        if req.actions.is_empty() || req.actions.len() > 50 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "actions must hold 1 to 50 steps",
            ));
        }
        let info = self.backend.info().await?;
        let state = self
            .states
            .load(&req.state_id, &self.issuer(&info.desktop))?;
        let window = WindowId(req.window_id.clone());
        if state.window != window {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "state {} observed window {}, not {}",
                    state.state_id, state.window, window
                ),
            )
            .with_suggestion(
                "Pass the window_id the state was taken of, or observe this window.",
            ));
        }
        let plans = req
            .actions
            .iter()
            .enumerate()
            .map(|(i, spec)| plan(i, spec, &state, self.config.max_type_chars as usize))
            .collect::<Result<Vec<_>>>()?;
        if plans.iter().any(uses_coordinates) {
            self.check_geometry(&window, &state).await?;
            if state.window_bounds.is_none() {
                self.backend.check_coordinates(&window).await?;
            }
        }
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
            let approved = self
                .settle_blocked(&window, &title, blocked, req.confirm_dangerous)
                .await?;
            if approved.is_some() {
                self.still_as_approved(&window, &state, &plans[step])
                    .await?;
            }
            sender.preapproved(step, &rule, approved);
        }

        let mut results = Vec::with_capacity(plans.len());
        if plans.iter().any(sends_input) {
            self.activate_and_settle(&window).await;
        }
        // The first effect's baseline is taken right before the first input (after the gate's
        // probes); each later one is what the previous effect check saw last.
        sender.want_baseline();
        let mut before = None;
        for (step, plan) in plans.iter().enumerate() {
            sender.begin_step(step, &req.actions[step].kind);
            let how = match self.run(&mut sender, &state, plan).await {
                Ok(how) => how,
                Err(e) => {
                    return Err(step_failed(
                        e,
                        step,
                        &req.actions[step].kind,
                        &results,
                        sender.sent_anything(),
                    ))
                }
            };
            let effect = if matches!(
                plan,
                Plan::Wait { .. }
                    | Plan::Point {
                        kind: Kind::Move,
                        ..
                    }
            ) {
                "not_checked"
            } else {
                if let Some(fresh) = sender.baseline() {
                    before = fresh;
                }
                let (effect, after) = self.observe_effect(&window, before.as_ref()).await;
                before = after;
                effect
            };
            results.push(StepResult {
                step,
                kind: req.actions[step].kind.clone(),
                how,
                effect,
            });
            if effect == "window_closed" && step + 1 < plans.len() {
                return Err(Error::new(
                    ErrorCode::WindowNotFound,
                    format!("the window closed after step {step}"),
                )
                .with_details(serde_json::json!({ "step": step + 1, "completed": results })));
            }
        }
        // A call of waits only consumes its state too.
        sender.commit()?;
        Ok((state, ActionResult { results }))
    }

    async fn check_geometry(&self, window: &WindowId, state: &SavedState) -> Result<()> {
        let windows = self.backend.list_windows().await?;
        let now = windows.iter().find(|w| &w.id == window).ok_or_else(|| {
            Error::new(
                ErrorCode::WindowNotFound,
                format!("window {window} has closed"),
            )
        })?;
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

    /// The steps the safety gate stops, in order.
    fn blocked_steps(&self, plans: &[Plan], state: &SavedState) -> Vec<Blocked> {
        let mut blocked = Vec::new();
        // What has focus as the steps run: the observation's focus, then what a step focused.
        let mut focused: Option<SavedElement> = state.elements.iter().find(|e| e.focused).cloned();
        for (step, plan) in plans.iter().enumerate() {
            // Only what the observation shows; every piece is judged again live when sent.
            let label: Option<(String, Option<&SavedElement>)> = match plan {
                Plan::Element { kind, element }
                    if *kind != Kind::Move && !matches!(kind, Kind::Scroll { .. }) =>
                {
                    Some((element.name.clone(), Some(element)))
                }
                Plan::Point { kind, at }
                    if *kind != Kind::Move && !matches!(kind, Kind::Scroll { .. }) =>
                {
                    state.element_at(*at).map(|e| (e.name.clone(), Some(e)))
                }
                Plan::SetValue { element, .. } => Some((element.name.clone(), Some(element))),
                Plan::Type { text, into } => {
                    let target = into.clone().or_else(|| focused.clone());
                    let breaks = text.contains('\n') || text.contains('\r');
                    let presses = text.contains(' ')
                        && !target.as_ref().is_some_and(|e| e.role.is_editable_text());
                    if breaks || presses {
                        target.map(|e| (e.name.clone(), None))
                    } else {
                        None
                    }
                }
                Plan::Key { keys } if activating(keys) => {
                    focused.clone().map(|e| (e.name.clone(), None))
                }
                _ => None,
            }
            .filter(|(_, e)| !e.is_some_and(|e| e.role == Role::Menu));
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
                    kind: Kind::Click | Kind::DoubleClick,
                } => focused = state.element_at(*at).cloned(),
                _ => {}
            }
            let Some((label, element)) = label else {
                continue;
            };
            if let Decision::NeedsConfirmation {
                label,
                matched_rule,
            } = self.gate.check(&label)
            {
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

    pub(super) async fn title_of(&self, window: &WindowId) -> String {
        self.backend
            .list_windows()
            .await
            .ok()
            .and_then(|all| all.into_iter().find(|w| &w.id == window))
            .map(|w| w.title)
            .unwrap_or_default()
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
        self.unchanged_since_approval(window, &element.identity, element.role, &element.name)
            .await
    }

    /// Runs one step through `sender` (which judges every piece of input live); returns how it
    /// was done.
    pub(super) async fn run(
        &self,
        sender: &mut Sender<'_>,
        state: &SavedState,
        plan: &Plan,
    ) -> Result<&'static str> {
        match plan {
            Plan::Element { kind, element } => {
                if *kind == Kind::Click {
                    match sender
                        .perform(&element.identity, &SemanticAction::Invoke)
                        .await
                    {
                        Ok(()) => return Ok("semantic"),
                        Err(e) if e.code != ErrorCode::ActionNotSupported => return Err(e),
                        Err(_) => {}
                    }
                }
                let at = center(element)?;
                self.check_geometry(&state.window, state).await?;
                sender.pointer(&pointer(*kind, at)).await?;
                Ok("coordinates")
            }
            Plan::Point { kind, at } => {
                sender.pointer(&pointer(*kind, *at)).await?;
                Ok("coordinates")
            }
            Plan::Drag { from, to } => {
                sender
                    .pointer(&InputEvent::Drag {
                        from: *from,
                        to: *to,
                        button: MouseButton::Left,
                    })
                    .await?;
                Ok("coordinates")
            }
            Plan::Type { text, into } => {
                if let Some(element) = into {
                    sender.prejudge_text(&element.identity, text).await?;
                    sender
                        .perform(&element.identity, &SemanticAction::Focus)
                        .await?;
                }
                sender.text(text).await?;
                Ok("keyboard")
            }
            Plan::Key { keys } => {
                sender.key(keys).await?;
                Ok("keyboard")
            }
            Plan::SetValue { element, value } => {
                let semantic = match (element.role, value.parse::<f64>()) {
                    (Role::Slider | Role::SpinButton | Role::ScrollBar, Ok(v)) => {
                        SemanticAction::SetValue { value: v }
                    }
                    _ => SemanticAction::SetText {
                        text: value.clone(),
                    },
                };
                match sender.perform(&element.identity, &semantic).await {
                    Ok(()) => Ok("semantic"),
                    Err(e)
                        if matches!(
                            e.code,
                            ErrorCode::NotEditable | ErrorCode::ActionNotSupported
                        ) =>
                    {
                        // No EditableText (Chromium) or it does nothing (Firefox): focus, replace by typing.
                        sender.prejudge_text(&element.identity, value).await?;
                        sender
                            .perform(&element.identity, &SemanticAction::Focus)
                            .await?;
                        sender.key("ctrl+a").await?;
                        if value.is_empty() {
                            sender.key("BackSpace").await?;
                        } else {
                            sender.text(value).await?;
                        }
                        Ok("keyboard")
                    }
                    Err(e) => Err(e),
                }
            }
            Plan::Focus { element } => {
                sender
                    .perform(&element.identity, &SemanticAction::Focus)
                    .await?;
                Ok("semantic")
            }
            Plan::Wait { ms } => {
                tokio::time::sleep(Duration::from_millis(*ms)).await;
                Ok("wait")
            }
        }
    }

    pub(super) async fn fingerprint(&self, window: &WindowId) -> Result<u64> {
        let options = SnapshotOptions {
            time_budget_ms: 1500,
            ..SnapshotOptions::default()
        };
        self.backend
            .snapshot(window, &options)
            .await
            .map(|s| fingerprint(&s))
    }

    /// Brings the window forward before synthetic input and waits for it to be focused and its
    /// tree to settle, so the focus change of the activation is not reported as the action's
    /// effect: unchanged for 150 ms once an element has taken focus (toolkits give the focus
    /// widget its focus some time after the window is activated: Qt later than 150 ms), or for
    /// 600 ms in a window where nothing has taken it (yet); at most 1.5 s.
    pub(super) async fn activate_and_settle(&self, window: &WindowId) {
        let focused = || async {
            self.backend
                .list_windows()
                .await
                .ok()
                .and_then(|all| all.into_iter().find(|w| &w.id == window))
                .is_some_and(|w| w.focused)
        };
        if focused().await || self.backend.activate(window).await.is_err() {
            return;
        }
        let deadline = Instant::now() + Duration::from_millis(1500);
        while !focused().await && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let options = SnapshotOptions {
            time_budget_ms: 1500,
            ..SnapshotOptions::default()
        };
        let (mut last, mut since) = (None, Instant::now());
        while Instant::now() < deadline {
            let snapshot = self.backend.snapshot(window, &options).await.ok();
            let now = snapshot.as_ref().map(fingerprint);
            let has_focus = snapshot
                .as_ref()
                .is_some_and(|s| s.nodes.iter().any(|n| n.states.contains(State::Focused)));
            let quiet = if has_focus { 150 } else { 600 };
            if now.is_none() || now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= Duration::from_millis(quiet) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    /// Polls the window for up to [`EFFECT_WAIT`](super::EFFECT_WAIT) after an action (AT-SPI
    /// actions are asynchronous).
    pub(super) async fn observe_effect(
        &self,
        window: &WindowId,
        before: Option<&u64>,
    ) -> (&'static str, Option<u64>) {
        let deadline = Instant::now() + self.effect_wait;
        let mut last = None;
        loop {
            match self.fingerprint(window).await {
                Err(e) if e.code == ErrorCode::WindowNotFound => return ("window_closed", None),
                Err(_) => {}
                Ok(now) => {
                    if before.is_some_and(|b| *b != now) {
                        return ("changed", Some(now));
                    }
                    last = Some(now);
                }
            }
            if Instant::now() >= deadline {
                return (
                    if before.is_some() {
                        "no_change"
                    } else {
                        "not_checked"
                    },
                    last,
                );
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// Names, values and states of every node: what an action visibly changes (bounds left out).
pub(super) fn fingerprint(snapshot: &Snapshot) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for n in &snapshot.nodes {
        (n.role, &n.name, &n.value, n.states, n.children.len()).hash(&mut h);
    }
    h.finish()
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
        Plan::Element { kind, .. } | Plan::Point { kind, .. } => match kind {
            Kind::Click => "click",
            Kind::DoubleClick => "double_click",
            Kind::RightClick => "right_click",
            Kind::Move => "move",
            Kind::Scroll { .. } => "scroll",
        },
        Plan::Drag { .. } => "drag",
        Plan::Type { .. } => "type",
        Plan::Key { .. } => "key",
        Plan::SetValue { .. } => "set_value",
        Plan::Focus { .. } => "focus",
        Plan::Wait { .. } => "wait",
    }
}

/// Keys that press the focused element (Return, space), as the observation can judge them.
fn activating(keys: &str) -> bool {
    cu_core::keys::parse_combo(keys).is_ok_and(|k| {
        matches!(
            activation::reach_of_combo(&k),
            Reach::Enter | Reach::Space | Reach::DeleteKey
        )
    })
}

/// Steps that send synthetic input (and so activate the window first): pointer and keyboard
/// steps, and element steps other than a click on a control (which is pressed semantically;
/// static text has no action and is clicked at its centre).
pub(super) fn sends_input(plan: &Plan) -> bool {
    match plan {
        Plan::Point { .. } | Plan::Drag { .. } | Plan::Type { .. } | Plan::Key { .. } => true,
        Plan::Element { kind, element } => *kind != Kind::Click || !element.role.is_interactive(),
        Plan::SetValue { .. } | Plan::Focus { .. } | Plan::Wait { .. } => false,
    }
}

fn uses_coordinates(plan: &Plan) -> bool {
    matches!(plan, Plan::Point { .. } | Plan::Drag { .. })
}

fn center(element: &SavedElement) -> Result<Point> {
    element
        .bounds
        .filter(|b| !b.is_empty())
        .map(|b| b.center())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!(
                    "{} offers no semantic action and has no bounds to click",
                    element.id
                ),
            )
        })
}

fn pointer(kind: Kind, at: Point) -> InputEvent {
    match kind {
        Kind::Click => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 1,
        },
        Kind::DoubleClick => InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 2,
        },
        Kind::RightClick => InputEvent::Click {
            at,
            button: MouseButton::Right,
            count: 1,
        },
        Kind::Move => InputEvent::Move { at },
        Kind::Scroll { dx, dy } => InputEvent::Scroll { at, dx, dy },
    }
}

/// Most scroll notches one step sends each way.
const MAX_SCROLL: u32 = 100;
/// Longest key combination accepted, in characters.
const MAX_COMBO_CHARS: usize = 64;

fn within_limit(step: usize, text: &str, max_chars: usize) -> Result<()> {
    let chars = text.chars().count();
    if chars > max_chars {
        return Err(Error::new(
            ErrorCode::TextTooLong,
            format!("step {step}: text has {chars} characters; at most {max_chars} are typed"),
        )
        .with_details(serde_json::json!({ "step": step })));
    }
    Ok(())
}

/// A combination the backends can press: known key names, a bounded number of keys.
fn check_combo(step: usize, combo: &str) -> Result<()> {
    if combo.chars().count() > MAX_COMBO_CHARS {
        return Err(bad(
            step,
            format!("a key combination has at most {MAX_COMBO_CHARS} characters"),
        ));
    }
    let keys = cu_core::keys::parse_combo(combo).map_err(|m| {
        bad(
            step,
            format!("{m}; use names such as Return, Tab, ctrl+s, alt+F4"),
        )
    })?;
    if keys.len() > activation::MAX_COMBO_KEYS {
        return Err(bad(
            step,
            format!(
                "a key combination holds at most {} keys",
                activation::MAX_COMBO_KEYS
            ),
        ));
    }
    Ok(())
}

/// Validates one step against the state: ids exist, points lie inside the window, texts and
/// key combinations are within bounds, so nothing is refused after the state is used.
fn plan(step: usize, spec: &ActionSpec, state: &SavedState, max_chars: usize) -> Result<Plan> {
    let element = |id: &Option<String>| -> Result<Option<SavedElement>> {
        match id {
            None => Ok(None),
            Some(id) if id.starts_with('@') => Err(bad(
                step,
                format!("{id:?}: use element ids as gui_state returned them (e7), without @"),
            )),
            Some(id) => state.element(id).cloned().map(Some).map_err(|e| Error {
                message: format!("step {step}: {}", e.message),
                ..e
            }),
        }
    };
    let bounds = state
        .window_bounds
        .map(|b| Rect::new(0, 0, b.width, b.height))
        .or_else(|| {
            state
                .window_size
                .map(|s| Rect::new(0, 0, s.width, s.height))
        });
    let point = |x: Option<i32>, y: Option<i32>| -> Result<Option<Point>> {
        match (x, y) {
            (None, None) => Ok(None),
            (Some(x), Some(y)) => {
                let p = Point::new(x, y);
                match bounds {
                    Some(b) if b.contains(p) => Ok(Some(p)),
                    Some(b) => Err(Error::new(
                        ErrorCode::OutOfWindow,
                        format!(
                            "step {step}: ({x}, {y}) is outside the window (0, 0, {}, {})",
                            b.width, b.height
                        ),
                    )),
                    None => Err(Error::new(
                        ErrorCode::ActionNotSupported,
                        "this window's position is unknown; use element ids",
                    )),
                }
            }
            _ => Err(bad(step, "give both x and y")),
        }
    };
    let target = |spec: &ActionSpec| -> Result<(Option<SavedElement>, Option<Point>)> {
        let e = element(&spec.element_id)?;
        let p = point(spec.x, spec.y)?;
        if e.is_some() == p.is_some() {
            return Err(bad(step, "give either element_id or x and y"));
        }
        Ok((e, p))
    };
    let pointer_plan = |kind: Kind| -> Result<Plan> {
        Ok(match target(spec)? {
            (Some(element), _) => Plan::Element { kind, element },
            (_, Some(at)) => Plan::Point { kind, at },
            _ => return Err(bad(step, "no target")),
        })
    };
    let need_element = || -> Result<SavedElement> {
        element(&spec.element_id)?
            .ok_or_else(|| bad(step, format!("{} needs element_id", spec.kind)))
    };
    match spec.kind.as_str() {
        "click" => pointer_plan(Kind::Click),
        "double_click" => pointer_plan(Kind::DoubleClick),
        "right_click" => pointer_plan(Kind::RightClick),
        "move" => pointer_plan(Kind::Move),
        "scroll" => {
            let (dx, dy) = (spec.dx.unwrap_or(0), spec.dy.unwrap_or(3));
            if dx.unsigned_abs() > MAX_SCROLL || dy.unsigned_abs() > MAX_SCROLL {
                return Err(bad(step, format!("scroll at most {MAX_SCROLL} notches each way")));
            }
            pointer_plan(Kind::Scroll { dx, dy })
        }
        "drag" => {
            let from = match target(spec)? {
                (Some(e), _) => center(&e)?,
                (_, Some(p)) => p,
                _ => return Err(bad(step, "no start")),
            };
            let to = match (element(&spec.to_element_id)?, point(spec.to_x, spec.to_y)?) {
                (Some(e), None) => center(&e)?,
                (None, Some(p)) => p,
                _ => return Err(bad(step, "drag needs to_element_id or to_x and to_y")),
            };
            Ok(Plan::Drag { from, to })
        }
        "type" => {
            let text = spec.text.clone().filter(|t| !t.is_empty()).ok_or_else(|| bad(step, "type needs text"))?;
            within_limit(step, &text, max_chars)?;
            Ok(Plan::Type { text, into: element(&spec.element_id)? })
        }
        "key" => {
            let keys = spec.keys.clone().filter(|k| !k.trim().is_empty()).ok_or_else(|| bad(step, "key needs keys"))?;
            check_combo(step, &keys)?;
            Ok(Plan::Key { keys })
        }
        "set_value" => {
            let value = spec.text.clone().ok_or_else(|| bad(step, "set_value needs text (the new value)"))?;
            within_limit(step, &value, max_chars)?;
            Ok(Plan::SetValue { element: need_element()?, value })
        }
        "focus" => Ok(Plan::Focus { element: need_element()? }),
        "wait" => {
            let ms = spec.ms.unwrap_or(500);
            if ms > 10_000 {
                return Err(bad(step, "wait at most 10000 ms"));
            }
            Ok(Plan::Wait { ms })
        }
        other => Err(bad(
            step,
            format!("unknown action type {other:?}; use click, double_click, right_click, move, scroll, drag, type, key, set_value, focus or wait"),
        )),
    }
}
