//! `gui_wait`, the acting tools' `expect`, and `gui_state since_state_id`, against the scripted
//! backend: a condition that comes true later, one that never does (answered on time), window
//! conditions, ids kept across observations, and bad input that leaves the state usable.

use std::time::{Duration, Instant};

use cu_backend_scripted::Reaction;
use cu_core::model::geometry::Point;
use cu_core::policy::wait::{Condition, Until};
use cu_core::ErrorCode;

use super::test_support::{block_on, on, Lab};
use super::{ActionRequest, ClickRequest, StateRequest, WaitOutcome, WaitRequest};

const APP: &str = r#"app: calc
title: Calc
---
window "Calc" @0,0 300x200
  button "Go" @10,10 60x30
  button "Close" @80,10 60x30
  button "Open" @150,10 60x30
  label "Result: 0" @10,60 200x20
"#;

const DIALOG: &str = r#"app: calc
title: Done
---
dialog "Done" @0,0 200x100
  button "OK" @10,50 60x30
"#;

fn lab() -> Lab {
    let lab = Lab::with_window(APP, Point::new(50, 50));
    lab.backend.on_press("Close", Reaction::Close);
    lab.backend.on_press("Open", Reaction::Open(DIALOG.into()));
    lab
}

fn until(until: Until) -> Condition {
    Condition {
        until,
        name: None,
        role: None,
        element_id: None,
        text: None,
        quiet_ms: None,
    }
}

fn result_contains(text: &str) -> Condition {
    Condition {
        name: Some("Result".into()),
        text: Some(text.into()),
        ..until(Until::ValueContains)
    }
}

impl Lab {
    fn wait(&self, condition: Condition, timeout_ms: u64) -> super::WaitResult {
        block_on(self.service.gui_wait(&WaitRequest {
            window_id: Some(self.window.clone()),
            condition,
            state_id: None,
            timeout_ms: Some(timeout_ms),
        }))
        .unwrap()
    }

    fn look(&self, since: Option<String>) -> super::StateResult {
        block_on(self.service.gui_state(&StateRequest {
            window_id: self.window.clone(),
            since_state_id: since,
            ..StateRequest::default()
        }))
        .unwrap()
    }

    fn id_of(state: &super::StateResult, name: &str) -> String {
        state
            .outline
            .lines()
            .find(|l| l.contains(&format!("\"{name}\"")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap()
            .to_owned()
    }
}

#[test]
fn a_condition_that_comes_true_later_is_satisfied_with_what_changed() {
    let lab = lab();
    let backend = lab.backend.clone();
    let answer = block_on(async {
        let later = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            backend.rename("Result: 0", "Result: 42");
        });
        let answer = lab
            .service
            .gui_wait(&WaitRequest {
                window_id: Some(lab.window.clone()),
                condition: result_contains("42"),
                state_id: None,
                timeout_ms: Some(5000),
            })
            .await
            .unwrap();
        later.await.unwrap();
        answer
    });
    assert_eq!(answer.outcome, WaitOutcome::Satisfied);
    assert!(answer.waited_ms >= 250, "{}", answer.waited_ms);
    assert!(answer.seen.contains("Result: 42"), "{}", answer.seen);
    // The backend's change event woke the wait (the scripted watch), not only its polls.
    assert!(answer.events >= Some(1), "{:?}", answer.events);
    let changes = answer.changes.unwrap();
    assert!(
        changes.starts_with("~ e4 label \"Result: 42\""),
        "{changes}"
    );
    assert!(changes.contains("(was label \"Result: 0\""), "{changes}");
    // The new state is usable at once.
    let state_id = answer.state_id.unwrap();
    let done = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        state_id,
        actions: vec![on("click", "e1")],
        ..Default::default()
    }));
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(lab.backend.presses(), ["Go"]);
}

#[test]
fn a_condition_that_never_comes_true_is_unsatisfied_on_time() {
    let lab = lab();
    let started = Instant::now();
    let answer = lab.wait(result_contains("99"), 400);
    let took = started.elapsed();
    assert_eq!(answer.outcome, WaitOutcome::Unsatisfied);
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert_eq!(answer.seen, "label \"Result: 0\"");
    assert_eq!(answer.changes.as_deref(), Some(""));
    assert!(answer.state_id.is_some());
}

#[test]
fn a_window_that_closes_while_an_element_is_awaited_is_unknown_not_success() {
    let lab = lab();
    lab.backend.on_press("Go", Reaction::Close);
    let state = lab.look(None);
    let answer = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        actions: vec![on("click", &Lab::id_of(&state, "Go"))],
        state_id: state.state_id,
        expect: Some(Condition {
            name: Some("Go".into()),
            ..until(Until::Disappears)
        }),
        expect_timeout_ms: Some(2000),
        ..Default::default()
    }))
    .unwrap();
    let expect = answer.expect.unwrap();
    assert_eq!(expect.outcome, WaitOutcome::Unknown);
    assert!(expect.reason.unwrap().starts_with("WINDOW_NOT_FOUND"));
    assert!(expect.state_id.is_none());
}

#[test]
fn expect_window_closes_and_window_appears() {
    let lab = lab();
    let answer = block_on(lab.service.click(&ClickRequest {
        app: lab.window.0.clone(),
        target: Some("Open".into()),
        expect: Some(Condition {
            text: Some("done".into()),
            ..until(Until::WindowAppears)
        }),
        ..ClickRequest::default()
    }))
    .unwrap();
    let expect = answer.expect.unwrap();
    assert_eq!(expect.outcome, WaitOutcome::Satisfied);
    let dialog = expect.window.unwrap();
    assert_eq!(dialog.title, "Done");
    assert!(expect.state_id.is_some());
    assert!(expect.changes.unwrap().contains("button \"OK\""));

    let state = lab.look(None);
    let answer = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        actions: vec![on("click", &Lab::id_of(&state, "Close"))],
        state_id: state.state_id,
        expect: Some(until(Until::WindowCloses)),
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(answer.expect.unwrap().outcome, WaitOutcome::Satisfied);
}

/// Issue 40: an `expect: window_appears` on a title that did not come waited its full timeout
/// and did not name the window that did appear.
#[test]
fn regression_an_unmet_window_appears_did_not_name_the_windows_that_appeared() {
    let lab = lab();
    let answer = block_on(lab.service.click(&ClickRequest {
        app: lab.window.0.clone(),
        target: Some("Open".into()),
        expect: Some(Condition {
            text: Some("Save As".into()),
            ..until(Until::WindowAppears)
        }),
        expect_timeout_ms: Some(300),
        ..ClickRequest::default()
    }))
    .unwrap();
    let expect = answer.expect.unwrap();
    assert_eq!(expect.outcome, WaitOutcome::Unsatisfied);
    assert!(
        expect.seen.contains("appeared while waiting: \"Done\""),
        "{}",
        expect.seen
    );
    // Nothing new: said so.
    let answer = lab.wait(
        Condition {
            text: Some("Save As".into()),
            ..until(Until::WindowAppears)
        },
        200,
    );
    assert_eq!(answer.outcome, WaitOutcome::Unsatisfied);
    assert!(
        answer.seen.ends_with("no window appeared while waiting"),
        "{}",
        answer.seen
    );
}

#[test]
fn since_state_id_answers_only_what_changed_and_keeps_ids() {
    let lab = lab();
    let first = lab.look(None);
    let go = Lab::id_of(&first, "Go");
    lab.backend.rename("Result: 0", "Result: 7");
    let second = lab.look(Some(first.state_id.clone()));
    let counts = second.changes.unwrap();
    assert_eq!((counts.added, counts.changed, counts.removed), (0, 1, 0));
    assert_eq!(counts.unchanged, 3);
    assert!(
        second.outline.starts_with("~ e4 label \"Result: 7\""),
        "{}",
        second.outline
    );
    assert_eq!(second.outline.lines().count(), 1);
    // Nothing new since the second observation.
    let third = lab.look(Some(second.state_id.clone()));
    assert_eq!(third.outline, "(nothing changed)\n");
    // An element that stayed keeps its id in the new state: acting by it presses the same one.
    let done = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        state_id: third.state_id,
        actions: vec![on("click", &go)],
        ..Default::default()
    }));
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(lab.backend.presses(), ["Go"]);
    // The baseline may be an observation that was used up by an action.
    let fourth = lab.look(Some(second.state_id));
    assert_eq!(fourth.changes.map(|c| c.changed), Some(0));
}

#[test]
fn element_ids_in_conditions_come_from_the_state() {
    let lab = lab();
    let state = lab.look(None);
    let result = Lab::id_of(&state, "Result: 0");
    lab.backend.rename("Result: 0", "Result: 5");
    let answer = block_on(lab.service.gui_wait(&WaitRequest {
        window_id: Some(lab.window.clone()),
        condition: Condition {
            element_id: Some(result.clone()),
            text: Some("5".into()),
            ..until(Until::ValueContains)
        },
        state_id: Some(state.state_id.clone()),
        timeout_ms: Some(1000),
    }))
    .unwrap();
    assert_eq!(answer.outcome, WaitOutcome::Satisfied);
    // Measured from state_id: the rename before the wait shows as a change.
    assert!(answer.changes.unwrap().contains("(was label \"Result: 0\""));
    let missing = block_on(lab.service.gui_wait(&WaitRequest {
        window_id: Some(lab.window.clone()),
        condition: Condition {
            element_id: Some("e99".into()),
            ..until(Until::Appears)
        },
        state_id: Some(state.state_id),
        timeout_ms: Some(100),
    }));
    assert_eq!(
        missing.err().map(|e| e.code),
        Some(ErrorCode::ElementNotFound)
    );
}

#[test]
fn bad_waits_are_refused_before_anything_is_sent_and_leave_the_state_usable() {
    let lab = lab();
    let state = lab.look(None);
    let go = Lab::id_of(&state, "Go");
    let bad = [
        (Some(until(Until::Appears)), None),
        (Some(result_contains("1")), Some(60_001)),
        (
            Some(Condition {
                element_id: Some("e99".into()),
                ..until(Until::Appears)
            }),
            None,
        ),
    ];
    for (expect, timeout) in bad {
        let refused = block_on(lab.service.gui_action(&ActionRequest {
            window_id: lab.window.clone(),
            state_id: state.state_id.clone(),
            actions: vec![on("click", &go)],
            expect,
            expect_timeout_ms: timeout,
            ..Default::default()
        }));
        let code = refused.err().map(|e| e.code);
        assert!(
            matches!(
                code,
                Some(ErrorCode::InvalidArgument | ErrorCode::ElementNotFound)
            ),
            "{code:?}"
        );
    }
    assert!(lab.backend.inputs().is_empty());
    let done = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        state_id: state.state_id,
        actions: vec![on("click", &go)],
        ..Default::default()
    }));
    assert!(done.is_ok(), "{done:?}");
    // A wait with no window for an element condition, and an over-long one.
    let no_window = block_on(lab.service.gui_wait(&WaitRequest {
        window_id: None,
        condition: result_contains("1"),
        state_id: None,
        timeout_ms: None,
    }));
    assert_eq!(
        no_window.err().map(|e| e.code),
        Some(ErrorCode::InvalidArgument)
    );
}

#[test]
fn stable_waits_for_quiet() {
    let lab = lab();
    let answer = lab.wait(
        Condition {
            quiet_ms: Some(200),
            ..until(Until::Stable)
        },
        3000,
    );
    assert_eq!(answer.outcome, WaitOutcome::Satisfied);
    assert!(answer.waited_ms >= 200, "{}", answer.waited_ms);
}
