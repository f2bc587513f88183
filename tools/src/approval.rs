//! What happens to an action the safety gate stopped: refused at once unless the caller set
//! `confirm_dangerous` (the default policy), or — with `approvals` on — held until a person says
//! yes or no on the Desktop page, within the call budget. With approvals on, `confirm_dangerous`
//! alone is not enough: a model can set that flag itself, it cannot answer the page.
//!
//! After a yes the caller checks the action again against a fresh observation before acting;
//! the decision, who made it and when go into the audit log.

use std::time::{Duration, Instant};

use cu_core::model::element::ElementIdentity;
use cu_core::model::geometry::Point;
use cu_core::model::role::Role;
use cu_core::model::window::WindowId;
use cu_core::store::approvals::{Approval, Status, Target};
use cu_core::store::audit::AuditRecord;
use cu_core::{Error, ErrorCode, Result};
use serde_json::json;

use crate::service::Service;

/// An action the gate stopped.
#[derive(Debug, Clone)]
pub(crate) struct Blocked {
    /// The step of the call.
    pub step: usize,
    /// The tool and step kind (`click`, `gui_action.click`, `type_text`).
    pub action: String,
    /// The label that matched.
    pub label: String,
    /// The blocklist entry.
    pub matched_rule: String,
    /// The element, when known.
    pub target: Option<Target>,
    /// The point, for a coordinate action.
    pub point: Option<Point>,
    /// The element's id in the observation (`gui_action`), shown in the refusal.
    pub element_id: Option<String>,
    /// Why it stopped.
    pub reason: Reason,
    /// Input of earlier steps was already sent (the state is used; what ran, ran).
    pub after_input: bool,
}

impl Blocked {
    /// What was not done, for the refusal's message.
    fn outcome(&self) -> &'static str {
        if self.after_input {
            "this input was not sent, input of earlier steps was; observe again"
        } else {
            "nothing was done"
        }
    }
}

/// Why the gate stopped an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A blocked word is in what would receive it.
    BlockedWord,
    /// What would receive it answers its dialog, whose question holds a blocked word.
    AnswersDialog,
    /// Nothing can be said about what would receive it (no element at the point, focus
    /// unreadable, a popup covering the point): the gate fails closed.
    UnknownReceiver,
}

impl Reason {
    /// The refusal's `details.reason`, what a client can rely on (never the message's words).
    fn as_str(self) -> &'static str {
        match self {
            Reason::BlockedWord => "blocked_word",
            Reason::AnswersDialog => "answers_dialog",
            Reason::UnknownReceiver => "unknown_receiver",
        }
    }
}

/// Refuses `blocked`, lets it pass on `confirmed`, or (approvals on) waits for a person.
/// Returns who approved, when a person did.
pub(crate) async fn settle_blocked(
    service: &Service,
    window: &WindowId,
    title: &str,
    blocked: Blocked,
    confirmed: bool,
) -> Result<Option<String>> {
    if !service.approvals_on() {
        return if confirmed {
            Ok(None)
        } else {
            Err(dangerous(&blocked))
        };
    }
    let crop = match blocked.target.as_ref().and_then(|t| t.bounds) {
        Some(bounds) => {
            super::image::capture_crop(service.backend.as_ref(), window, &service.config, bounds)
                .await
                .ok()
        }
        None => None,
    };
    let request = Approval {
        id: String::new(),
        created_ms: 0,
        machine: "local".into(),
        window: window.0.clone(),
        title: title.to_owned(),
        action: blocked.action.clone(),
        target: blocked.target.clone(),
        point: blocked.point,
        matched_rule: blocked.matched_rule.clone(),
        status: Status::Pending,
        decided_by: None,
        decided_ms: None,
        has_crop: crop.is_some(),
    };
    let asked = service.approvals.request(request, crop.as_deref())?;
    tracing::info!(approval = %asked.id, "waiting for a person's decision on the Desktop page");
    let budget = if service.config.call_budget_seconds > 0.0 {
        service.config.call_budget_seconds
    } else {
        110.0
    };
    let deadline = Instant::now() + Duration::from_secs_f64((budget - 5.0).max(1.0));
    let ended = loop {
        let now = service.approvals.get(&asked.id)?;
        if now.status != Status::Pending {
            break now;
        }
        if Instant::now() >= deadline {
            break service.approvals.withdraw(&asked.id)?;
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    };
    audit_decision(service, window, &ended);
    match ended.status {
        Status::Approved => Ok(ended.decided_by.or(Some("a person".into()))),
        Status::Denied => Err(Error::new(
            ErrorCode::ApprovalDenied,
            format!(
                "step {}: a person denied {:?} on the Desktop page",
                blocked.step, blocked.label
            ),
        )
        .with_details(
            json!({ "step": blocked.step, "approval": ended.id, "decided_by": ended.decided_by }),
        )),
        Status::Pending | Status::Withdrawn => Err(Error::new(
            ErrorCode::ApprovalTimeout,
            format!(
                "step {}: nobody approved {:?} within {budget:.0} s; {}",
                blocked.step,
                blocked.label,
                blocked.outcome()
            ),
        )
        .with_details(json!({ "step": blocked.step, "approval": ended.id }))),
    }
}

/// After a person's yes: the element is still there, with the same role and name.
pub(crate) async fn unchanged_since_approval(
    service: &Service,
    window: &WindowId,
    identity: &ElementIdentity,
    role: Role,
    name: &str,
) -> Result<()> {
    match service.element_now(window, identity).await {
        // Outline names are shown trimmed (padded GTK 3 menu items): compare them so.
        Some(n) if n.role == role && n.name.trim() == name.trim() => Ok(()),
        _ => Err(Error::new(
            ErrorCode::ElementNotFound,
            format!(
                "{role} {name:?} changed or went away while waiting for approval; nothing was done"
            ),
        )
        .with_suggestion("Observe the window again.")),
    }
}

fn audit_decision(service: &Service, window: &WindowId, approval: &Approval) {
    let status = match approval.status {
        Status::Approved => "approved",
        Status::Denied => "denied",
        Status::Withdrawn | Status::Pending => "timed_out",
    };
    let record = AuditRecord {
        action: Some(format!("approval.{}", approval.action)),
        window: Some(window.0.clone()),
        name: approval.target.as_ref().map(|t| t.name.clone()),
        role: approval.target.as_ref().map(|t| t.role.as_str().to_owned()),
        point: approval.point,
        result: Some(status.into()),
        approval: Some(format!(
            "{status} by {} at {} ({})",
            approval.decided_by.as_deref().unwrap_or("nobody"),
            approval
                .decided_ms
                .map(|ms| cu_core::store::audit::format_time(
                    std::time::UNIX_EPOCH + Duration::from_millis(ms)
                ))
                .unwrap_or_default(),
            approval.id
        )),
        ..AuditRecord::default()
    };
    if let Err(e) = service.audit.append(record, None) {
        tracing::warn!("audit log: {}", e.message);
    }
}

fn dangerous(blocked: &Blocked) -> Error {
    let error = match blocked.reason {
        Reason::BlockedWord | Reason::AnswersDialog => Error::new(
            ErrorCode::DangerousActionNeedsConfirmation,
            format!(
                "step {}: {:?} matches the blocked word {:?}; {}",
                blocked.step,
                blocked.label,
                blocked.matched_rule,
                blocked.outcome()
            ),
        ),
        Reason::UnknownReceiver => Error::new(
            ErrorCode::DangerousActionNeedsConfirmation,
            format!(
                "step {}: cannot tell what would receive this input: {}; {}",
                blocked.step,
                blocked.label,
                blocked.outcome()
            ),
        )
        .with_suggestion("Act on an element id from a fresh gui_state; confirm_dangerous only with the user's explicit approval."),
    };
    error.with_details({
        let what = match &blocked.target {
            Some(t) => match &blocked.element_id {
                Some(id) => json!({ "element_id": id, "role": t.role, "name": t.name }),
                None => json!({ "role": t.role, "name": t.name }),
            },
            None => json!({ "name": blocked.label }),
        };
        // gui_action names the element it would activate; click and type_text what they would click.
        let key = if blocked.element_id.is_some() || blocked.action.starts_with("gui_action") {
            "would_activate"
        } else {
            "would_click"
        };
        json!({
            "step": blocked.step,
            key: what,
            "matched_rule": blocked.matched_rule,
            "reason": blocked.reason.as_str(),
        })
    })
}
