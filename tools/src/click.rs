//! `click`: press what an agent names by its visible label, one label or a sequence (a menu
//! path `File > Save As…` is one), each step resolved in a fresh snapshot and pressed through
//! the step runner, its effect observed.

use std::time::Instant;

use cu_core::model::element::Snapshot;
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::matching::{self, Resolution};
use cu_core::policy::wait::Condition;
use cu_core::store::audit::AuditRecord;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::effect::{Effect, Fingerprint, Opened};
use crate::guard::Sender;
use crate::label::{
    self, not_usable, resolved, saved, transient_state, unresolved, Matched, Resolved, MAX_STEPS,
};
use crate::service::Outcome;
use crate::service::Service;
use crate::steps::{sends_input, Failure, Kind, Plan, Via};
use crate::target::{self, Candidates};
use crate::wait::WaitResult;

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
            let (labels, menu_path) = labels?;
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
            // The first step is judged once resolved, before any input, knowing its role (a
            // check box "Send me the newsletter" names an option); later ones are refused here
            // so that a sequence with a blocked step does nothing at all.
            if !req.confirm_dangerous && !self.approvals_on() {
                for (step, label) in labels.iter().enumerate().skip(1) {
                    label::gate_label(self, step, label, None)?;
                }
            }
            Ok::<_, Error>((
                labels,
                menu_path,
                expect,
                label::find_app(self, &req.app).await?,
            ))
        };
        let (labels, menu_path, expect, window) = match prepared.await {
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
        let listed = match &expect {
            Some((check, _)) => crate::wait::windows_now(self, check).await,
            None => None,
        };
        let mut results: Vec<ClickStep> = Vec::with_capacity(labels.len());
        for (step, label) in labels.iter().enumerate() {
            let record = AuditRecord {
                target: Some(label.clone()),
                ..base.clone()
            };
            let opens = if menu_path && step + 1 < labels.len() {
                Level::Menu
            } else {
                Level::Any
            };
            let one = click_one(
                self,
                &window,
                (step, opens),
                label,
                req.confirm_dangerous,
                started,
            );
            match one.await {
                Ok(done) => {
                    label::audit_step(
                        self,
                        record,
                        &done.resolved,
                        done.via,
                        done.effect.as_str(),
                        None,
                    );
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
                crate::wait::wait_for(
                    self,
                    Some(&window.id),
                    &check,
                    crate::wait::Since {
                        view: None,
                        windows: listed,
                    },
                    timeout,
                )
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
}

/// What a step of a click sequence names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// Any element.
    Any,
    /// A level of a menu path that opens the next: a menu is preferred over other roles of the
    /// same name ("Table > Insert Table…": the Table menu, not the Table toolbar button).
    Menu,
}

/// Resolves `label` for a step at `level`.
fn resolve_step(label: &str, view: &[matching::Candidate<'_>], level: Level) -> Resolution {
    if level == Level::Menu {
        let among_menus = matching::resolve(label, view, |c| {
            matches!(c.role, Role::Menu | Role::MenuItem)
        });
        if let Resolution::One(found) = among_menus {
            return Resolution::One(found);
        }
    }
    matching::resolve(label, view, |_| true)
}

/// The candidates `label` is resolved among and how it resolved: the elements on screen, or,
/// when it names none of them strongly, those a scroll brings into view, if one of them matches
/// strongly (an exact label below the fold beats a partial one on screen); true when it was
/// below the fold.
fn candidates_for(
    label: &str,
    level: Level,
    snapshot: &Snapshot,
) -> (Candidates, Resolution, bool) {
    let on_screen = Candidates::of(snapshot);
    let first = resolve_step(label, &on_screen.view(snapshot), level);
    if matches!(first, Resolution::NotFound | Resolution::Weak(_)) {
        let below = Candidates::below_the_fold(snapshot);
        if let found @ Resolution::One(_) = resolve_step(label, &below.view(snapshot), level) {
            return (below, found, true);
        }
    }
    (on_screen, first, false)
}

async fn click_one(
    service: &Service,
    window: &WindowInfo,
    (step, level): (usize, Level),
    label: &str,
    confirmed: bool,
    call_started: Instant,
) -> std::result::Result<ClickStep, Failure> {
    let snapshot = label::observe(service, window).await?;
    let (candidates, resolution, below_the_fold) = candidates_for(label, level, &snapshot);
    // A label that names nothing it can be judged on is refused by its words, as before it was
    // looked for: a blocked word is an answer in itself, whatever the window holds.
    if !matches!(resolution, Resolution::One(_)) && !confirmed && !service.approvals_on() {
        label::gate_label(service, step, label, None)?;
    }
    let view = candidates.view(&snapshot);
    let (found, by_model) = match resolution {
        Resolution::One(m) => (m, false),
        Resolution::Weak(weak)
            if service.config.resolve_with_model && service.model().enabled() =>
        {
            let described: Vec<String> = weak
                .iter()
                .map(|m| {
                    let c = &view[m.index];
                    format!("{} {:?}", c.role, c.name)
                })
                .collect();
            match service.model().pick(label, &described, call_started).await {
                Some(i) => (weak[i], true),
                None => {
                    let weak = Resolution::Weak(weak);
                    return Err(unresolved(step, label, weak, &candidates, &snapshot, false).into());
                }
            }
        }
        other => return Err(unresolved(step, label, other, &candidates, &snapshot, false).into()),
    };
    let (node, mut resolved) = resolved(label, &candidates, &snapshot, &found)?;
    if by_model {
        resolved.how = Matched::Model;
    }
    target::usable(node, false).map_err(|why| not_usable(&resolved, why))?;
    let approved_by =
        label::gate_resolved(service, window, step, "click", &resolved, node, confirmed).await?;
    let mut element = saved(node, &resolved.name);
    // Found below the fold: the step scrolls it into view first.
    element.offscreen |= below_the_fold;
    let state = transient_state(window, &snapshot, &element);
    let plan = Plan::Element {
        kind: Kind::Click,
        element,
    };
    let mut sender = Sender::new(service, &window.id, "click", confirmed, None);
    sender.begin_step(step, "click");
    let before = if sends_input(&plan) {
        crate::effect::activate_and_settle(service, &window.id).await;
        sender.want_baseline();
        None
    } else {
        Some(Fingerprint::of(&snapshot))
    };
    if let Some(by) = &approved_by {
        sender.preapproved(step, &by.1, &node.name, Some(by.0.clone()));
    }
    let windows = crate::effect::windows_before(service, &window.id).await;
    // Subscribed before the input, so no effect's event is missed.
    let mut events = crate::effect::subscribe(service, &window.id, state.dialog).await;
    if let Some(events) = events.as_mut() {
        events.before_input(plan.announces_window());
    }
    if events.as_ref().is_some_and(|e| e.proven()) {
        sender.skip_baseline();
    }
    let via = crate::steps::run(service, &mut sender, &state, &plan)
        .await
        .map_err(|error| Failure::after(&sender, error))?
        .via;
    let before = sender.baseline().unwrap_or(before);
    let approved_by = sender.approved_by().map(str::to_owned);
    let seen = crate::effect::observe(
        service,
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

/// What separates the levels of a menu path in a target ("File > Save As…").
const MENU_PATH: &str = " > ";

/// The labels of a click, and whether they are a menu path's levels.
fn click_labels(req: &ClickRequest) -> Result<(Vec<String>, bool)> {
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
                Ok((levels, true))
            } else {
                Ok((vec![target.clone()], false))
            }
        }
        (None, Some(steps)) if (1..=MAX_STEPS).contains(&steps.len()) => Ok((steps.clone(), false)),
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

#[cfg(test)]
mod tests {
    use super::*;
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
            Some((vec!["File".to_owned(), "Save As...".to_owned()], true))
        );
        assert_eq!(labels("Next >"), Some((vec!["Next >".to_owned()], false)));
        assert_eq!(
            labels("a >  > b"),
            Some((vec!["a >  > b".to_owned()], false))
        );
        assert_eq!(labels("1>2"), Some((vec!["1>2".to_owned()], false)));
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
            click_labels(&req(None, Some(10))).map(|l| l.0.len()).ok(),
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

    /// Issue 40: in "Table > Insert Table…" the first level resolved to a toolbar button named
    /// "Table" instead of the menu of that name.
    #[test]
    fn regression_a_menu_path_level_resolved_to_a_toolbar_button_of_the_same_name() {
        use cu_core::model::node::StateSet;
        let candidate = |role| matching::Candidate {
            name: "Table",
            role,
            states: StateSet::default(),
            toolkit_id: None,
            value: None,
        };
        let view = [candidate(Role::Button), candidate(Role::Menu)];
        let one = |r: Resolution| match r {
            Resolution::One(m) => Some(m.index),
            _ => None,
        };
        assert_eq!(one(resolve_step("Table", &view, Level::Menu)), Some(1));
        // The last level, or a label that is no path, takes the usual order.
        assert_eq!(one(resolve_step("Table", &view, Level::Any)), Some(0));
        // A level that names no menu resolves among every role.
        let buttons = [candidate(Role::Button)];
        assert_eq!(one(resolve_step("Table", &buttons, Level::Menu)), Some(0));
    }
}
