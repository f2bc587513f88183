//! `type_text`: write into the field an agent names by its visible label (or the focused one),
//! semantic first, then focused and typed; the text read back where the field can be read.

use std::time::{Duration, Instant};

use cu_core::model::element::{Snapshot, State};
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::matching::{self, Candidate, Ranked, Resolution, RoleClass};
use cu_core::store::audit::AuditRecord;
use cu_core::store::state_registry::SavedElement;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::guard::Sender;
use crate::label::{self, not_usable, resolved, saved, transient_state, unresolved, Resolved};
use crate::readback::same_text;
use crate::service::Service;
use crate::steps::{Failure, Plan, Via};
use crate::target::{self, Candidates};

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
    /// `type_text`: replace a field's content, never pressing Enter.
    pub async fn type_text(&self, req: &TypeRequest) -> Result<TypeResult> {
        let outcome = type_into(self, req).await;
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
                label::audit_step(
                    self,
                    record,
                    &done.resolved,
                    done.via,
                    effect,
                    Some(&req.text),
                );
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
}

async fn type_into(
    service: &Service,
    req: &TypeRequest,
) -> std::result::Result<TypeResult, Failure> {
    matching::validate_label(&req.target)?;
    let chars = req.text.chars().count();
    let limit = service.config.max_type_chars as usize;
    if chars > limit {
        return Err(Error::new(
            ErrorCode::TextTooLong,
            format!("text has {chars} characters; at most {limit} are typed"),
        )
        .into());
    }
    if !req.confirm_dangerous && !service.approvals_on() {
        label::gate_label(service, 0, &req.target, None)?;
    }
    let window = label::find_app(service, &req.app).await?;
    let snapshot = label::observe(service, &window).await?;
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
    let approved_by = label::gate_resolved(
        service,
        &window,
        0,
        "type_text",
        &resolved,
        node,
        req.confirm_dangerous,
    )
    .await?;
    let element = saved(node, &resolved.name);
    let state = transient_state(&window, &snapshot, &element);
    let plan = Plan::SetValue {
        element: element.clone(),
        value: req.text.clone(),
    };
    let mut sender = Sender::new(
        service,
        &window.id,
        "type_text",
        req.confirm_dangerous,
        None,
    );
    sender.begin_step(0, "type_text");
    if let Some(by) = &approved_by {
        sender.preapproved(0, &by.1, &node.name, Some(by.0.clone()));
    }
    let via = crate::steps::run(service, &mut sender, &state, &plan)
        .await
        .map_err(|error| Failure::after(&sender, error))?
        .via;
    let verified = match node.role {
        Role::PasswordInput => None,
        // A spreadsheet shows what a formula computes, not what was typed: the text is
        // confirmed when it reads back, and otherwise unverified, not failed.
        Role::Cell => reads_back(
            service,
            &window,
            &element,
            req.text.trim_end_matches(['\n', '\r']),
        )
        .await
        .then_some(true),
        _ => Some(reads_back(service, &window, &element, &req.text).await),
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
async fn reads_back(
    service: &Service,
    window: &WindowInfo,
    element: &SavedElement,
    text: &str,
) -> bool {
    let started = Instant::now();
    let mut quiet_until = started + Duration::from_millis(1000);
    let mut last: Option<String> = None;
    // A rich document (Writer) holds its text in paragraphs, with what was there before.
    let document = element.role == Role::Document;
    loop {
        let value = if document {
            service.document_text(&window.id, &element.identity).await
        } else {
            service
                .element_now(&window.id, &element.identity)
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
    fn read_back_comparison() {
        assert!(same_text("hello\n", "hello"));
        assert!(same_text("a\r\nb", "a\nb"));
        assert!(same_text("5.0", "5"));
        assert!(!same_text("hell", "hello"));
        assert!(!same_text("", "x"));
    }
}
