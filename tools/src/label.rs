//! Acting by visible label, what `click` (`click.rs`) and `type_text` (`type_text.rs`) share:
//! every requested label is checked and judged by the gate before anything is observed; then
//! `app` is resolved to one window; then, per step, a fresh snapshot, label matching
//! (`cu_core::policy::matching`), the gate again on the resolved element's own label, and the action
//! itself, semantic first, through the same step runner as `gui_action`, with its effect
//! observed. Every step, and every refused call, is one audit record; typed text never is.

use cu_core::model::element::{Node, Snapshot, SnapshotOptions, State};
use cu_core::model::role::Role;
use cu_core::model::window::WindowInfo;
use cu_core::policy::matching::{self, Ranked, Resolution};
use cu_core::policy::safety::Decision;
use cu_core::store::approvals::Target;
use cu_core::store::audit::AuditRecord;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;
use serde_json::json;

use crate::approval::{Blocked, Reason};
use crate::service::Outcome;
use crate::service::Service;
use crate::steps::Via;
use crate::target::{self, Candidates};

/// At most this many labels in one `steps` sequence.
pub const MAX_STEPS: usize = 10;

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

/// The gate on the requested label and the resolved element's label; what stops goes to the
/// approval policy. Returns who approved and the rule, when a person did, after checking that
/// the element is still there as approved.
pub(crate) async fn gate_resolved(
    service: &Service,
    window: &WindowInfo,
    step: usize,
    action: &str,
    resolved: &Resolved,
    node: &Node,
    confirmed: bool,
) -> Result<Option<(String, String)>> {
    // A check box's label names its option; pressing it only sets that option, unless the
    // label spends money (a page decides its own roles).
    let option = cu_core::model::receiver::sets_option(node.role);
    let stopped = [resolved.target.as_str(), resolved.name.as_str()]
        .into_iter()
        .find_map(|label| match service.gate().check(label) {
            Decision::NeedsConfirmation {
                label,
                matched_rule,
            } if !option || cu_core::policy::safety::spends_money(&matched_rule) => {
                Some((label, matched_rule))
            }
            _ => None,
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
        crate::approval::settle_blocked(service, &window.id, &window.title, blocked, confirmed)
            .await?;
    if by.is_some() {
        crate::approval::unchanged_since_approval(
            service,
            &window.id,
            &node.identity,
            node.role,
            &node.name,
        )
        .await?;
    }
    Ok(by.map(|person| (person, matched_rule)))
}

pub(crate) async fn find_app(service: &Service, app: &str) -> Result<WindowInfo> {
    let windows = service.backend.list_windows().await?;
    target::resolve_app(app, &windows).cloned()
}

pub(crate) async fn observe(service: &Service, window: &WindowInfo) -> Result<Snapshot> {
    service
        .read_for_action(&window.id, &SnapshotOptions::default())
        .await
}

/// DANGEROUS_ACTION_NEEDS_CONFIRMATION when `label` holds a blocked word.
pub(crate) fn gate_label(
    service: &Service,
    step: usize,
    label: &str,
    element: Option<&Resolved>,
) -> Result<()> {
    let Decision::NeedsConfirmation {
        label,
        matched_rule,
    } = service.gate().check(label)
    else {
        return Ok(());
    };
    Err(Error::new(
        ErrorCode::DangerousActionNeedsConfirmation,
        format!(
            "step {step}: {label:?} matches the blocked word {matched_rule:?}; nothing was done"
        ),
    )
    .with_details(json!({
        "step": step,
        "would_click": { "name": label, "role": element.map(|e| e.role) },
        "matched_rule": matched_rule,
    })))
}

pub(crate) fn audit_step(
    service: &Service,
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
    service.audit(record, Outcome::Acted, None, typed);
}

pub(crate) fn resolved<'s>(
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
pub(crate) fn unresolved(
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

pub(crate) fn not_usable(resolved: &Resolved, why: target::Unusable) -> Error {
    Error::new(
        why.code(),
        format!("{} {:?} {}", resolved.role, resolved.name, why.describe()),
    )
    .with_suggestion("Wait until the app enables it, or choose another element.")
}

pub(crate) fn saved(node: &Node, label: &str) -> SavedElement {
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
pub(crate) fn transient_state(
    window: &WindowInfo,
    snapshot: &Snapshot,
    element: &SavedElement,
) -> SavedState {
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
