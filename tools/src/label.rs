//! `click` and `type_text`: act on what an agent names by its visible label.
//!
//! Order for every call: the labels are checked (1–200 characters, no `@e3` references) and the
//! safety gate sees each requested label before anything is observed; then `app` is resolved to
//! one window; then, per step, a fresh snapshot, label matching (`cu_core::matching`), the gate
//! again on the resolved element's own label, and the action itself — semantic first, through the
//! same step runner as `gui_action` — with its effect observed. A click sequence stops at the
//! first failing step; the error carries the steps that completed. Every step, and every refused
//! call, is one audit record; typed text never is.

use std::time::{Duration, Instant};

use cu_core::approvals::Target;
use cu_core::audit::AuditRecord;
use cu_core::element::{Node, Snapshot, SnapshotOptions, State};
use cu_core::matching::{self, Candidate, Ranked, Resolution, RoleClass};
use cu_core::role::Role;
use cu_core::safety::Decision;
use cu_core::state_registry::{SavedElement, SavedState};
use cu_core::wait::Condition;
use cu_core::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use super::wait::WaitResult;
use serde_json::json;

use super::approval::{Blocked, Reason};
use super::guard::Sender;
use super::target::{self, Candidates};
use crate::effect::{Effect, Fingerprint, Opened};
use crate::service::Outcome;
use crate::service::Service;
use crate::steps::{sends_input, Failure, Kind, Plan, Via};

/// At most this many labels in one `steps` sequence.
pub const MAX_STEPS: usize = 10;

/// `click`'s request: one `target`, or `steps`. The field docs are the tool's input schema, as
/// agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickRequest {
    /// Application name or window title ("Calculator", "מחשבון"), or a window id from gui_list.
    #[schemars(length(min = 1))]
    pub app: String,
    /// The visible label to click, or a menu path ("File > Save As…": each level opened in turn,
    /// as with steps).
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub target: Option<String>,
    /// Labels to click in order, instead of target (e.g. ["7", "+", "5", "="]).
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_STEPS), inner(length(min = 1, max = 200)))]
    pub steps: Option<Vec<String>>,
    /// Only after the user explicitly approved.
    #[serde(default)]
    pub confirm_dangerous: bool,
    /// After clicking, wait for this condition (as gui_wait, element by name or role) and
    /// answer with its outcome, a new state_id and what changed while waiting.
    #[serde(default)]
    pub expect: Option<Condition>,
    /// How long expect waits, in ms (default 10000).
    #[serde(default)]
    #[schemars(range(min = 0, max = 60000))]
    pub expect_timeout_ms: Option<u64>,
}

/// `type_text`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeRequest {
    /// Application name or window title, or a window id from gui_list.
    #[schemars(length(min = 1))]
    pub app: String,
    /// The field's label, or a role word when it is the only field of that kind.
    #[schemars(length(min = 1, max = 200))]
    pub target: String,
    /// The new content.
    pub text: String,
    /// Only after the user explicitly approved.
    #[serde(default)]
    pub confirm_dangerous: bool,
}

/// Which element a label resolved to, and how.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Resolved {
    /// The label as requested.
    pub target: String,
    /// The element's label.
    pub name: String,
    /// The element's role.
    pub role: Role,
    /// How the label matched.
    pub how: Matched,
    /// The match's score, left out when it is 1 (a whole match).
    #[serde(skip_serializing_if = "whole")]
    pub score: f64,
}

/// How a label found its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Matched {
    /// Character for character.
    Exact,
    /// Equal after normalization (case, dashes, mnemonics).
    Normalized,
    /// A digit or operator synonym ("seven", "×").
    Synonym,
    /// The element's toolkit id.
    Id,
    /// The element's live value.
    Value,
    /// All words of one contained in the other.
    Contains,
    /// Similar enough.
    Fuzzy,
    /// A role word alone ("the button").
    Role,
    /// The model chose among candidates.
    Model,
}

impl Matched {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Matched::Exact => "exact",
            Matched::Normalized => "normalized",
            Matched::Synonym => "synonym",
            Matched::Id => "id",
            Matched::Value => "value",
            Matched::Contains => "contains",
            Matched::Fuzzy => "fuzzy",
            Matched::Role => "role",
            Matched::Model => "model",
        }
    }
}

impl From<matching::How> for Matched {
    fn from(how: matching::How) -> Matched {
        match how {
            matching::How::Exact => Matched::Exact,
            matching::How::Normalized => Matched::Normalized,
            matching::How::Synonym => Matched::Synonym,
            matching::How::Id => Matched::Id,
            matching::How::Value => Matched::Value,
            matching::How::Contains => Matched::Contains,
            matching::How::Fuzzy => Matched::Fuzzy,
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn whole(score: &f64) -> bool {
    *score >= 1.0
}

/// One clicked step.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClickStep {
    /// Index of the step.
    pub step: usize,
    /// What was clicked.
    #[serde(flatten)]
    pub resolved: Resolved,
    /// `semantic` (the element's own action) or `coordinates` (a pointer click at its centre).
    pub via: Via,
    /// What was seen of the click's effect.
    pub effect: Effect,
    /// The window the click opened (effect `window_opened`), or that appeared as the window
    /// closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened: Option<Opened>,
    /// With `window_closed`: its application ended too (no window left, its process gone): it
    /// quit or crashed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub app_exited: bool,
    /// Who approved it on the Desktop page, when the gate asked a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<String>,
}

/// `click`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClickResult {
    /// The window acted on.
    pub window_id: WindowId,
    /// Its title.
    pub title: String,
    /// One entry per step.
    pub results: Vec<ClickStep>,
    /// What expect waited for, and how it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<WaitResult>,
}

/// `type_text`'s answer. The text itself is never echoed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TypeResult {
    /// The window acted on.
    pub window_id: WindowId,
    /// Its title.
    pub title: String,
    /// The field written to.
    #[serde(flatten)]
    pub resolved: Resolved,
    /// `semantic` (text set through the accessibility API) or `keyboard` (focused, selected,
    /// typed).
    pub via: Via,
    /// Characters written.
    pub chars: usize,
    /// The field reads back exactly the text (`null` where it cannot be read: passwords).
    pub verified: Option<bool>,
}

impl Service {
    /// `click`: one label, or a sequence of up to ten.
    pub async fn click(&self, req: &ClickRequest) -> Result<ClickResult> {
        let started = Instant::now();
        let labels = click_labels(req);
        let base = AuditRecord {
            action: Some("click".into()),
            app: Some(req.app.clone()),
            confirmed: Some(req.confirm_dangerous),
            ..AuditRecord::default()
        };
        let prepared = async {
            let labels = labels?;
            for label in &labels {
                matching::validate_label(label)?;
            }
            let expect = match &req.expect {
                Some(condition) => Some((
                    condition.check(|_| {
                        Err(Error::new(
                            ErrorCode::InvalidArgument,
                            "click's expect has no observation for element_id",
                        )
                        .with_suggestion("Name the element in expect by name or role."))
                    })?,
                    crate::wait::timeout(self, req.expect_timeout_ms)?,
                )),
                None => None,
            };
            // With approvals on, a person decides per step, seeing the element: no early refusal.
            if !req.confirm_dangerous && !self.approvals_on() {
                for (step, label) in labels.iter().enumerate() {
                    self.gate_label(step, label, None)?;
                }
            }
            Ok::<_, Error>((labels, expect, self.find_app(&req.app).await?))
        };
        let (labels, expect, window) = match prepared.await {
            Ok(ready) => ready,
            Err(e) => {
                let target = req
                    .target
                    .clone()
                    .or_else(|| req.steps.as_ref().map(|s| s.join(" | ")));
                self.audit(
                    AuditRecord { target, ..base },
                    Outcome::Refused,
                    Some(&e),
                    None,
                );
                return Err(e);
            }
        };
        let base = AuditRecord {
            window: Some(window.id.0.clone()),
            ..base
        };
        let mut results: Vec<ClickStep> = Vec::with_capacity(labels.len());
        for (step, label) in labels.iter().enumerate() {
            let record = AuditRecord {
                target: Some(label.clone()),
                ..base.clone()
            };
            match self
                .click_one(&window, step, label, req.confirm_dangerous, started)
                .await
            {
                Ok(done) => {
                    self.audit_step(record, &done.resolved, done.via, done.effect.as_str(), None);
                    let ended = done.effect.ends_sequence(step, done.app_exited);
                    results.push(done);
                    if let Some(e) = ended.filter(|_| step + 1 < labels.len()) {
                        return Err(with_completed(e, step + 1, &results));
                    }
                }
                Err(failure) => {
                    self.audit(record, failure.outcome(), Some(&failure.error), None);
                    return Err(with_completed(failure.error, step, &results));
                }
            }
        }
        let expect = match expect {
            Some((check, timeout)) => Some(
                crate::wait::wait_for(self, Some(&window.id), &check, None, timeout)
                    .await
                    .unwrap_or_else(|e| super::wait::unknown(e, 0)),
            ),
            None => None,
        };
        Ok(ClickResult {
            window_id: window.id.clone(),
            title: window.title.clone(),
            results,
            expect,
        })
    }

    async fn click_one(
        &self,
        window: &WindowInfo,
        step: usize,
        label: &str,
        confirmed: bool,
        call_started: Instant,
    ) -> std::result::Result<ClickStep, Failure> {
        let snapshot = self.observe(window).await?;
        let candidates = Candidates::of(&snapshot);
        let view = candidates.view(&snapshot);
        let (found, by_model) = match matching::resolve(label, &view, |_| true) {
            Resolution::One(m) => (m, false),
            Resolution::Weak(weak) if self.config.resolve_with_model && self.model().enabled() => {
                let described: Vec<String> = weak
                    .iter()
                    .map(|m| {
                        let c = &view[m.index];
                        format!("{} {:?}", c.role, c.name)
                    })
                    .collect();
                match self.model().pick(label, &described, call_started).await {
                    Some(i) => (weak[i], true),
                    None => {
                        let weak = Resolution::Weak(weak);
                        return Err(
                            unresolved(step, label, weak, &candidates, &snapshot, false).into()
                        );
                    }
                }
            }
            other => {
                return Err(unresolved(step, label, other, &candidates, &snapshot, false).into())
            }
        };
        let (node, mut resolved) = resolved(label, &candidates, &snapshot, &found)?;
        if by_model {
            resolved.how = Matched::Model;
        }
        target::usable(node, false).map_err(|why| not_usable(&resolved, why))?;
        let approved_by = self
            .gate_resolved(window, step, "click", &resolved, node, confirmed)
            .await?;
        if approved_by.is_some() {
            crate::approval::unchanged_since_approval(
                self,
                &window.id,
                &node.identity,
                node.role,
                &node.name,
            )
            .await?;
        }
        let element = saved(node, &resolved.name);
        let state = transient_state(window, &snapshot, &element);
        let plan = Plan::Element {
            kind: Kind::Click,
            element,
        };
        let mut sender = Sender::new(self, &window.id, "click", confirmed, None);
        sender.begin_step(step, "click");
        let before = if sends_input(&plan) {
            crate::effect::activate_and_settle(self, &window.id).await;
            sender.want_baseline();
            None
        } else {
            Some(Fingerprint::of(&snapshot))
        };
        if let Some(by) = &approved_by {
            sender.preapproved(step, &by.1, &node.name, Some(by.0.clone()));
        }
        let windows = crate::effect::windows_before(self, &window.id).await;
        // Subscribed before the input, so no effect's event is missed.
        let mut events = crate::effect::subscribe(self, &window.id, state.dialog).await;
        if events.as_ref().is_some_and(|e| e.proven()) {
            sender.skip_baseline();
        }
        let via = crate::steps::run(self, &mut sender, &state, &plan)
            .await
            .map_err(|error| Failure::after(&sender, error))?;
        let before = sender.baseline().unwrap_or(before);
        let approved_by = sender.approved_by().map(str::to_owned);
        let seen = crate::effect::observe(
            self,
            &window.id,
            before.as_ref(),
            windows.as_ref(),
            events.as_mut(),
        )
        .await;
        Ok(ClickStep {
            step,
            resolved,
            via,
            effect: seen.effect,
            opened: seen.opened,
            app_exited: seen.app_exited,
            approved_by,
        })
    }

    /// `type_text`: replace a field's content, never pressing Enter.
    pub async fn type_text(&self, req: &TypeRequest) -> Result<TypeResult> {
        let outcome = self.type_into(req).await;
        let record = AuditRecord {
            action: Some("type_text".into()),
            app: Some(req.app.clone()),
            target: Some(req.target.clone()),
            confirmed: Some(req.confirm_dangerous),
            text_len: Some(req.text.chars().count()),
            ..AuditRecord::default()
        };
        match &outcome {
            Ok(done) => {
                let effect = match done.verified {
                    Some(true) => "verified",
                    Some(false) => "mismatch",
                    None => "not_checked",
                };
                let record = AuditRecord {
                    window: Some(done.window_id.0.clone()),
                    ..record
                };
                self.audit_step(record, &done.resolved, done.via, effect, Some(&req.text));
            }
            Err(failure) => self.audit(
                record,
                failure.outcome(),
                Some(&failure.error),
                Some(&req.text),
            ),
        }
        outcome.map_err(|f| f.error)
    }

    async fn type_into(&self, req: &TypeRequest) -> std::result::Result<TypeResult, Failure> {
        matching::validate_label(&req.target)?;
        let chars = req.text.chars().count();
        let limit = self.config.max_type_chars as usize;
        if chars > limit {
            return Err(Error::new(
                ErrorCode::TextTooLong,
                format!("text has {chars} characters; at most {limit} are typed"),
            )
            .into());
        }
        if !req.confirm_dangerous && !self.approvals_on() {
            self.gate_label(0, &req.target, None)?;
        }
        let window = self.find_app(&req.app).await?;
        let snapshot = self.observe(&window).await?;
        let candidates = Candidates::of(&snapshot);
        let view = candidates.view(&snapshot);
        let found = find_field(&req.target, &view, &candidates, &snapshot)?;
        let (node, resolved) = resolved(&req.target, &candidates, &snapshot, &found)?;
        target::usable(node, true).map_err(|why| not_usable(&resolved, why))?;
        let multi_line = matches!(node.role, Role::TextArea | Role::Document)
            || node.states.contains(State::MultiLine);
        if !multi_line && (req.text.contains('\n') || req.text.contains('\r')) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "{:?} is a single-line field; a line break would press Enter",
                    resolved.name
                ),
            )
            .with_suggestion("Remove the line breaks, or type into a multi-line field.")
            .into());
        }
        let approved_by = self
            .gate_resolved(
                &window,
                0,
                "type_text",
                &resolved,
                node,
                req.confirm_dangerous,
            )
            .await?;
        if approved_by.is_some() {
            crate::approval::unchanged_since_approval(
                self,
                &window.id,
                &node.identity,
                node.role,
                &node.name,
            )
            .await?;
        }
        let element = saved(node, &resolved.name);
        let state = transient_state(&window, &snapshot, &element);
        let plan = Plan::SetValue {
            element: element.clone(),
            value: req.text.clone(),
        };
        let mut sender = Sender::new(self, &window.id, "type_text", req.confirm_dangerous, None);
        sender.begin_step(0, "type_text");
        if let Some(by) = &approved_by {
            sender.preapproved(0, &by.1, &node.name, Some(by.0.clone()));
        }
        let via = crate::steps::run(self, &mut sender, &state, &plan)
            .await
            .map_err(|error| Failure::after(&sender, error))?;
        let verified = match node.role {
            Role::PasswordInput => None,
            // A spreadsheet shows what a formula computes, not what was typed: the text is
            // confirmed when it reads back, and otherwise unverified, not failed.
            Role::Cell => self
                .reads_back(&window, &element, req.text.trim_end_matches(['\n', '\r']))
                .await
                .then_some(true),
            _ => Some(self.reads_back(&window, &element, &req.text).await),
        };
        if verified == Some(false) {
            // The text went in: a retry would type it twice.
            return Err(Failure {
                sent: true,
                error: Error::new(
                ErrorCode::ActionFailed,
                format!("{:?} does not read back the text that was {}", resolved.name, if via == Via::Keyboard { "typed" } else { "set" }),
            )
            .with_retryable(false)
            .with_suggestion("Observe the field with gui_state before anything else: the text was entered, so typing it again would double it; the app may filter or reformat input (or an input method interfered).")
            .with_details(json!({ "via": via, "chars": chars })),
            });
        }
        Ok(TypeResult {
            window_id: window.id.clone(),
            title: window.title.clone(),
            resolved,
            via,
            chars,
            verified,
        })
    }

    /// Polls the field until it holds `text` (typing lands asynchronously): for a second after
    /// the last change seen, so a slow machine that is still taking the keys is waited for, and
    /// for five seconds at most.
    async fn reads_back(&self, window: &WindowInfo, element: &SavedElement, text: &str) -> bool {
        let started = Instant::now();
        let mut quiet_until = started + Duration::from_millis(1000);
        let mut last: Option<String> = None;
        // A rich document (Writer) holds its text in paragraphs, with what was there before.
        let document = element.role == Role::Document;
        loop {
            let value = if document {
                self.document_text(&window.id, &element.identity).await
            } else {
                self.element_now(&window.id, &element.identity)
                    .await
                    .and_then(|n| n.value)
            };
            let read = value.as_deref().unwrap_or("");
            if same_text(read, text) || (document && holds_text(read, text)) {
                return true;
            }
            let now = Instant::now();
            if value != last {
                quiet_until = now + Duration::from_millis(1000);
                last = value;
            }
            if now >= quiet_until || now >= started + Duration::from_secs(5) {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The gate on the requested label and the resolved element's label; what stops goes to the
    /// approval policy. Returns who approved and the rule, when a person did.
    async fn gate_resolved(
        &self,
        window: &WindowInfo,
        step: usize,
        action: &str,
        resolved: &Resolved,
        node: &Node,
        confirmed: bool,
    ) -> Result<Option<(String, String)>> {
        let stopped = [resolved.target.as_str(), resolved.name.as_str()]
            .into_iter()
            .find_map(|label| match self.gate().check(label) {
                Decision::NeedsConfirmation {
                    label,
                    matched_rule,
                } => Some((label, matched_rule)),
                Decision::Allowed => None,
            });
        let Some((label, matched_rule)) = stopped else {
            return Ok(None);
        };
        let blocked = Blocked {
            step,
            action: action.to_owned(),
            label,
            matched_rule: matched_rule.clone(),
            target: Some(Target {
                role: node.role,
                name: resolved.name.clone(),
                bounds: node.bounds,
            }),
            point: None,
            element_id: None,
            reason: Reason::BlockedWord,
            after_input: false,
        };
        let by =
            crate::approval::settle_blocked(self, &window.id, &window.title, blocked, confirmed)
                .await?;
        Ok(by.map(|person| (person, matched_rule)))
    }

    async fn find_app(&self, app: &str) -> Result<WindowInfo> {
        let windows = self.backend.list_windows().await?;
        target::resolve_app(app, &windows).cloned()
    }

    async fn observe(&self, window: &WindowInfo) -> Result<Snapshot> {
        self.backend
            .snapshot(&window.id, &SnapshotOptions::default())
            .await
    }

    /// DANGEROUS_ACTION_NEEDS_CONFIRMATION when `label` holds a blocked word.
    fn gate_label(&self, step: usize, label: &str, element: Option<&Resolved>) -> Result<()> {
        let Decision::NeedsConfirmation {
            label,
            matched_rule,
        } = self.gate().check(label)
        else {
            return Ok(());
        };
        Err(Error::new(
            ErrorCode::DangerousActionNeedsConfirmation,
            format!("step {step}: {label:?} matches the blocked word {matched_rule:?}; nothing was done"),
        )
        .with_details(json!({
            "step": step,
            "would_click": { "name": label, "role": element.map(|e| e.role) },
            "matched_rule": matched_rule,
        })))
    }

    fn audit_step(
        &self,
        record: AuditRecord,
        resolved: &Resolved,
        via: Via,
        effect: &str,
        typed: Option<&str>,
    ) {
        let record = AuditRecord {
            name: Some(resolved.name.clone()),
            role: Some(resolved.role.as_str().to_owned()),
            how: Some(format!("{}:{}", resolved.how.as_str(), via.as_str())),
            effect: Some(effect.to_owned()),
            ..record
        };
        self.audit(record, Outcome::Acted, None, typed);
    }
}

/// What separates the levels of a menu path in a target ("File > Save As…").
const MENU_PATH: &str = " > ";

fn click_labels(req: &ClickRequest) -> Result<Vec<String>> {
    match (&req.target, &req.steps) {
        (Some(target), None) => {
            // A menu path is its levels as steps: each opened, then the item activated, every
            // one judged and failing closed like any step. "Next >" is one label.
            let levels: Vec<String> = target
                .split(MENU_PATH)
                .map(|l| l.trim().to_owned())
                .collect();
            if levels.len() > 1 && levels.len() <= MAX_STEPS && levels.iter().all(|l| !l.is_empty())
            {
                Ok(levels)
            } else {
                Ok(vec![target.clone()])
            }
        }
        (None, Some(steps)) if (1..=MAX_STEPS).contains(&steps.len()) => Ok(steps.clone()),
        (None, Some(steps)) => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("steps holds {} labels; give 1 to {MAX_STEPS}", steps.len()),
        )),
        _ => Err(Error::new(
            ErrorCode::InvalidArgument,
            "give either target (one label) or steps (1 to 10 labels)",
        )),
    }
}

/// A field by label (strong matches), else by a bare role word ("textarea", "שדה").
fn find_field(
    target: &str,
    view: &[Candidate<'_>],
    candidates: &Candidates,
    snapshot: &Snapshot,
) -> Result<Ranked> {
    let by_label = matching::resolve(target, view, |c| c.is_field());
    if let Resolution::One(m) = by_label {
        return Ok(m);
    }
    if let Some(class) = matching::bare_role_word(target) {
        match fields_of(class, view) {
            Resolution::One(m) => return Ok(m),
            Resolution::NotFound => {}
            several => return Err(unresolved(0, target, several, candidates, snapshot, true)),
        }
    }
    Err(unresolved(0, target, by_label, candidates, snapshot, true))
}

/// The fields of one class, as a resolution: one, several, or none.
fn fields_of(class: RoleClass, view: &[Candidate<'_>]) -> Resolution {
    let all: Vec<Ranked> = view
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_field() && class.admits(c.role, c.states))
        .map(|(index, c)| Ranked {
            index,
            how: matching::How::Exact,
            score: 1.0,
            can_act: c.can_act(),
            role_phrase: Some(class),
        })
        .collect();
    match all.as_slice() {
        [] => Resolution::NotFound,
        [one] => Resolution::One(*one),
        several => Resolution::Ambiguous(
            several
                .iter()
                .take(matching::MAX_CANDIDATES)
                .copied()
                .collect(),
        ),
    }
}

fn resolved<'s>(
    label: &str,
    candidates: &Candidates,
    snapshot: &'s Snapshot,
    m: &Ranked,
) -> Result<(&'s Node, Resolved)> {
    let node = candidates
        .nodes
        .get(m.index)
        .and_then(|i| snapshot.nodes.get(*i))
        .ok_or_else(|| {
            Error::new(
                ErrorCode::Internal,
                "matched element is not in the snapshot",
            )
        })?;
    let how = match (m.role_phrase, m.how) {
        (Some(_), matching::How::Exact) if matching::bare_role_word(label).is_some() => {
            Matched::Role
        }
        (_, how) => Matched::from(how),
    };
    Ok((
        node,
        Resolved {
            target: label.to_owned(),
            name: candidates.labels.get(m.index).cloned().unwrap_or_default(),
            role: node.role,
            how,
            score: m.score,
        },
    ))
}

/// TARGET_AMBIGUOUS with the candidates, or ELEMENT_NOT_FOUND with what there is.
fn unresolved(
    step: usize,
    label: &str,
    resolution: Resolution,
    candidates: &Candidates,
    snapshot: &Snapshot,
    typing: bool,
) -> Error {
    let what = if typing { "field" } else { "element" };
    let (message, matches) = match resolution {
        Resolution::Ambiguous(m) => (
            format!(
                "{} {what}s match {label:?} equally well; nothing was done",
                m.len()
            ),
            m,
        ),
        Resolution::Weak(m) => (
            format!("no {what} is labelled {label:?}; only weak matches, so nothing was done"),
            m,
        ),
        Resolution::One(_) | Resolution::NotFound => {
            let available: Vec<String> = if typing {
                candidates
                    .view(snapshot)
                    .iter()
                    .filter(|c| c.is_field())
                    .map(|c| format!("{} {:?}", c.role, c.name))
                    .collect()
            } else {
                candidates.actionable_labels(snapshot, 40)
            };
            return Error::new(ErrorCode::ElementNotFound, format!("no {what} matches {label:?}"))
                .with_suggestion(if typing {
                    "Use one of details.fields (its label, or a role word such as \"text field\" when there is one field)."
                } else {
                    "Use one of the visible labels in details.labels, or observe the window with gui_state."
                })
                .with_details(json!({ "step": step, if typing { "fields" } else { "labels" }: available }));
        }
    };
    let described: Vec<serde_json::Value> = matches
        .iter()
        .map(|m| candidates.describe(snapshot, m))
        .collect();
    Error::new(ErrorCode::TargetAmbiguous, message)
        .with_suggestion("Repeat with one candidate's exact name, or a role phrase (\"button 7\"), or observe with gui_state and act by element id.")
        .with_details(json!({ "step": step, "candidates": described }))
}

fn not_usable(resolved: &Resolved, why: target::Unusable) -> Error {
    Error::new(
        why.code(),
        format!("{} {:?} {}", resolved.role, resolved.name, why.describe()),
    )
    .with_suggestion("Wait until the app enables it, or choose another element.")
}

fn saved(node: &Node, label: &str) -> SavedElement {
    SavedElement {
        id: "target".into(),
        identity: node.identity.clone(),
        role: node.role,
        name: label.to_owned(),
        bounds: node.bounds,
        focused: node.states.contains(State::Focused),
        offscreen: node.states.contains(State::Offscreen),
    }
}

/// The observation just made, as the step runner takes it (never saved, never reusable).
fn transient_state(window: &WindowInfo, snapshot: &Snapshot, element: &SavedElement) -> SavedState {
    SavedState {
        state_id: String::new(),
        window: window.id.clone(),
        desktop: snapshot.desktop.clone(),
        window_bounds: snapshot.window.bounds,
        window_size: SavedState::window_size_of(snapshot),
        created_ms: 0,
        elements: vec![element.clone()],
        dialog: snapshot.is_dialog(),
    }
}

fn with_completed(e: Error, step: usize, completed: &[ClickStep]) -> Error {
    let mut details = e.details.clone().unwrap_or_else(|| json!({}));
    if let Some(map) = details.as_object_mut() {
        map.insert("step".into(), json!(step));
        map.insert(
            "completed".into(),
            serde_json::to_value(completed).unwrap_or_default(),
        );
    }
    Error {
        message: if completed.is_empty() {
            e.message.clone()
        } else {
            format!(
                "step {step} failed after {} completed: {}",
                completed.len(),
                e.message
            )
        },
        details: Some(details),
        ..e
    }
}

/// Text equality as fields report it: line endings unified, a trailing newline ignored, and
/// numbers compared as numbers ("5" and "5.0" in a spin button).
/// Whether a document's text, read paragraph by paragraph, holds the typed text, letter case
/// aside (a word processor capitalizes the first word of a sentence as it is typed).
fn holds_text(document: &str, typed: &str) -> bool {
    let clean = |s: &str| {
        s.replace("\r\n", "\n")
            .trim_end_matches('\n')
            .to_lowercase()
    };
    let typed = clean(typed);
    !typed.is_empty() && clean(document).contains(&typed)
}

fn same_text(read: &str, wanted: &str) -> bool {
    let clean = |s: &str| s.replace("\r\n", "\n").trim_end_matches('\n').to_owned();
    let (read, wanted) = (clean(read), clean(wanted));
    read == wanted
        || matches!((read.trim().parse::<f64>(), wanted.trim().parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_writers_typed_text_read_back_through_its_paragraphs() {
        let document = "Dear team,\nquarterly numbers\nare in.";
        assert!(holds_text(document, "quarterly numbers\nare in.\n"));
        assert!(
            holds_text("Quarterly numbers", "quarterly numbers"),
            "autocorrect"
        );
        assert!(!holds_text(document, "yearly numbers"));
        assert!(!holds_text(document, ""));
    }

    #[test]
    fn a_menu_path_target_is_its_levels_and_a_lone_chevron_is_a_label() {
        let labels = |target: &str| {
            click_labels(&ClickRequest {
                app: "a".into(),
                target: Some(target.into()),
                ..ClickRequest::default()
            })
            .ok()
        };
        assert_eq!(
            labels("File > Save As..."),
            Some(vec!["File".to_owned(), "Save As...".to_owned()])
        );
        assert_eq!(labels("Next >"), Some(vec!["Next >".to_owned()]));
        assert_eq!(labels("a >  > b"), Some(vec!["a >  > b".to_owned()]));
        assert_eq!(labels("1>2"), Some(vec!["1>2".to_owned()]));
    }

    #[test]
    fn read_back_comparison() {
        assert!(same_text("hello\n", "hello"));
        assert!(same_text("a\r\nb", "a\nb"));
        assert!(same_text("5.0", "5"));
        assert!(!same_text("hell", "hello"));
        assert!(!same_text("", "x"));
    }

    #[test]
    fn click_needs_target_or_one_to_ten_steps() {
        let req = |target: Option<&str>, steps: Option<usize>| ClickRequest {
            app: "a".into(),
            target: target.map(str::to_owned),
            steps: steps.map(|n| vec!["7".to_owned(); n]),
            confirm_dangerous: false,
            ..Default::default()
        };
        assert!(click_labels(&req(Some("7"), None)).is_ok());
        assert_eq!(
            click_labels(&req(None, Some(10))).map(|l| l.len()).ok(),
            Some(10)
        );
        for bad in [
            req(None, None),
            req(Some("7"), Some(1)),
            req(None, Some(0)),
            req(None, Some(11)),
        ] {
            assert_eq!(
                click_labels(&bad).err().map(|e| e.code),
                Some(ErrorCode::InvalidArgument)
            );
        }
    }
}
