//! `gui_window` against the scripted backend: each op read back, a close that opens "Save
//! changes?" answered with that dialog, closing through the gate when the configuration blocks
//! it, and bad requests refused before anything is sent.

use cu_backend_scripted::{Event, Reaction, Scripted, CLOSE_REQUEST};
use cu_core::model::geometry::{Point, Rect};
use cu_core::ErrorCode;

use super::test_support::{block_on, Lab};
use super::{WindowOp, WindowOutcome, WindowRequest};

const APP: &str = r#"app: notes
title: notes.txt
---
window "notes.txt" @0,0 400x300
  button "Save" @10,10 60x30
"#;

const ASK: &str = r#"app: notes
title: Save changes?
---
dialog "Save changes?" @0,0 300x120
  button "Don't Save" @10,80 90x30
"#;

fn lab() -> Lab {
    Lab::with_window(APP, Point::new(100, 100))
}

fn request(lab: &Lab, op: WindowOp) -> WindowRequest {
    WindowRequest {
        window_id: lab.window.clone(),
        op,
        x: None,
        y: None,
        width: None,
        height: None,
        confirm_dangerous: false,
    }
}

#[test]
fn each_op_is_read_back() {
    let lab = lab();
    let moved = block_on(lab.service.gui_window(&WindowRequest {
        x: Some(300),
        y: Some(40),
        ..request(&lab, WindowOp::Move)
    }))
    .unwrap();
    assert_eq!(moved.outcome, WindowOutcome::Done);
    assert_eq!(
        moved.window.unwrap().bounds,
        Some(Rect::new(300, 40, 400, 300))
    );
    let resized = block_on(lab.service.gui_window(&WindowRequest {
        width: Some(500),
        height: Some(350),
        ..request(&lab, WindowOp::Resize)
    }))
    .unwrap();
    assert_eq!(
        resized.window.unwrap().bounds,
        Some(Rect::new(300, 40, 500, 350))
    );
    let minimized = block_on(lab.service.gui_window(&request(&lab, WindowOp::Minimize))).unwrap();
    assert_eq!(minimized.outcome, WindowOutcome::Done);
    assert!(minimized.window.unwrap().minimized);
    let restored = block_on(lab.service.gui_window(&request(&lab, WindowOp::Restore))).unwrap();
    assert_eq!(restored.outcome, WindowOutcome::Done);
    let maximized = block_on(lab.service.gui_window(&request(&lab, WindowOp::Maximize))).unwrap();
    assert_eq!(maximized.outcome, WindowOutcome::Done);
    let closed = block_on(lab.service.gui_window(&request(&lab, WindowOp::Close))).unwrap();
    assert_eq!(closed.outcome, WindowOutcome::Done);
    assert!(closed.window.is_none());
}

#[test]
fn a_close_that_asks_to_save_answers_with_the_dialog() {
    let lab = lab();
    lab.backend
        .on_press(CLOSE_REQUEST, Reaction::Open(ASK.into()));
    let answer = block_on(lab.service.gui_window(&request(&lab, WindowOp::Close))).unwrap();
    assert_eq!(answer.outcome, WindowOutcome::Dialog);
    assert_eq!(answer.dialog.unwrap().title, "Save changes?");
    assert!(answer.window.is_some());
}

#[test]
fn closing_passes_the_gate_when_the_configuration_blocks_it() {
    let dir = tempfile::tempdir().unwrap();
    let backend = Scripted::new();
    let window = backend.open(APP, Point::new(100, 100)).unwrap();
    let mut config = cu_core::config::Config::defaults(&|_| None);
    config.sessions_dir = dir.path().to_path_buf();
    config.safety_blocklist_extra = vec!["close".into()];
    let service = super::Service::new(std::sync::Arc::new(backend.clone()), config);
    let req = WindowRequest {
        window_id: window.clone(),
        op: WindowOp::Close,
        x: None,
        y: None,
        width: None,
        height: None,
        confirm_dangerous: false,
    };
    let refused = block_on(service.gui_window(&req)).err().map(|e| e.code);
    assert_eq!(refused, Some(ErrorCode::DangerousActionNeedsConfirmation));
    assert!(backend.inputs().is_empty());
    let confirmed = WindowRequest {
        confirm_dangerous: true,
        ..req
    };
    let done = block_on(service.gui_window(&confirmed)).unwrap();
    assert_eq!(done.outcome, WindowOutcome::Done);
    // Minimizing is never gated.
    let _ = block_on(service.gui_window(&WindowRequest {
        op: WindowOp::Minimize,
        ..confirmed
    }));
}

#[test]
fn bad_requests_send_nothing() {
    let lab = lab();
    let bad = [
        request(&lab, WindowOp::Move),
        WindowRequest {
            x: Some(1),
            ..request(&lab, WindowOp::Move)
        },
        WindowRequest {
            width: Some(0),
            height: Some(10),
            ..request(&lab, WindowOp::Resize)
        },
        WindowRequest {
            x: Some(1),
            y: Some(1),
            ..request(&lab, WindowOp::Minimize)
        },
        WindowRequest {
            x: Some(i32::MAX),
            y: Some(0),
            ..request(&lab, WindowOp::Move)
        },
    ];
    for req in bad {
        let e = block_on(lab.service.gui_window(&req)).err().map(|e| e.code);
        assert_eq!(e, Some(ErrorCode::InvalidArgument), "{req:?}");
    }
    let gone = WindowRequest {
        window_id: "scripted:99".into(),
        ..request(&lab, WindowOp::Close)
    };
    let e = block_on(lab.service.gui_window(&gone))
        .err()
        .map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::WindowNotFound));
    assert!(
        !lab.backend
            .events()
            .iter()
            .any(|e| matches!(e, Event::Window(..))),
        "{:?}",
        lab.backend.events()
    );
}

#[test]
fn quit_closes_every_window_of_the_app_and_no_other() {
    let lab = lab();
    let second = lab
        .backend
        .open(&APP.replace("notes.txt", "todo.txt"), Point::new(300, 100))
        .unwrap();
    let other = lab
        .backend
        .open(
            &ASK.replace("app: notes", "app: calc"),
            Point::new(500, 100),
        )
        .unwrap();
    let done = block_on(lab.service.gui_window(&request(&lab, WindowOp::Quit))).unwrap();
    assert_eq!(done.outcome, WindowOutcome::Done);
    let closed: Vec<_> = lab
        .backend
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Window(w, _) => Some(w),
            _ => None,
        })
        .collect();
    assert_eq!(closed, [lab.window.clone(), second]);
    let left = block_on(async {
        use cu_core::model::backend::Backend as _;
        lab.backend.list_windows().await.unwrap()
    });
    assert_eq!(
        left.iter().map(|w| w.id.clone()).collect::<Vec<_>>(),
        [other]
    );
}

/// A service over a scripted window (its configuration edited by `edit`), and a confirmed
/// request to close that window.
fn confirmed_close(
    edit: impl FnOnce(&mut cu_core::config::Config),
) -> (tempfile::TempDir, Scripted, super::Service, WindowRequest) {
    let dir = tempfile::tempdir().unwrap();
    let backend = Scripted::new();
    let window = backend.open(APP, Point::new(100, 100)).unwrap();
    let mut config = cu_core::config::Config::defaults(&|_| None);
    config.sessions_dir = dir.path().to_path_buf();
    config.call_budget_seconds = 6.0;
    edit(&mut config);
    let service = super::Service::new(std::sync::Arc::new(backend.clone()), config);
    let req = WindowRequest {
        window_id: window.clone(),
        op: WindowOp::Close,
        x: None,
        y: None,
        width: None,
        height: None,
        confirm_dangerous: true,
    };
    (dir, backend, service, req)
}

/// Issue 39: `gui_window close` decided `confirm_dangerous` by itself and never reached the
/// approval policy. With approvals on, the flag alone is not enough: a person decides (here
/// nobody does, so the call times out and nothing is sent).
#[test]
fn regression_close_goes_through_the_approval_policy() {
    let (_dir, backend, service, req) = confirmed_close(|config| {
        config.safety_blocklist_extra = vec!["close".into()];
        config.approvals = true;
    });
    let e = block_on(service.gui_window(&req)).err().map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::ApprovalTimeout));
    assert!(
        !backend
            .events()
            .iter()
            .any(|e| matches!(e, Event::Window(..))),
        "{:?}",
        backend.events()
    );
}

/// Issue 39: a controller's approvals did not reach the worker that acts. Forwarded with the
/// call, they hold there for that call: `confirm_dangerous` alone is not enough.
#[test]
fn a_controllers_approvals_hold_for_the_call_it_forwarded() {
    let (_dir, backend, service, req) = confirmed_close(|_| {});
    // The controller's word "close" and its approvals: nobody decides, nothing is sent.
    let tightening = super::Tightening {
        approvals: true,
        blocked_words: vec!["close".into()],
    };
    let e = block_on(service.tightened(Some(tightening), service.gui_window(&req)))
        .err()
        .map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::ApprovalTimeout));
    assert!(!backend
        .events()
        .iter()
        .any(|e| matches!(e, Event::Window(..))));
    // The same call without them: the worker's own settings (no such word) let it close.
    assert!(block_on(service.gui_window(&req)).is_ok());
}

/// Issue 39: `gui_window` operated the Desktop page's own window (minimize, close).
#[test]
fn regression_the_desktop_page_window_is_never_operated() {
    let page = format!(
        "app: chromium\ntitle: {t} - Chromium\n---\nwindow \"{t} - Chromium\" @0,0 400x300\n",
        t = super::guard::DESKTOP_PAGE_TITLE
    );
    let lab = Lab::with_window(&page, Point::new(100, 100));
    for op in [
        WindowOp::Close,
        WindowOp::Minimize,
        WindowOp::Quit,
        WindowOp::Focus,
    ] {
        let e = block_on(lab.service.gui_window(&WindowRequest {
            confirm_dangerous: true,
            ..request(&lab, op)
        }))
        .err()
        .map(|e| e.code);
        assert_eq!(e, Some(ErrorCode::Unauthorized), "{op:?}");
    }
    assert!(
        !lab.backend
            .events()
            .iter()
            .any(|e| matches!(e, Event::Window(..))),
        "{:?}",
        lab.backend.events()
    );
}
