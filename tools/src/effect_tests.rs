//! What acting tools report of a step's effect, against the scripted backend: a changed window,
//! no change, the window closed (and not when it is only unreadable for a moment), and a window
//! opened by the step (named in `opened`), through both `gui_action` and `click`.

use cu_backend_scripted::{Call, Reaction};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::ErrorCode;

use super::test_support::{block_on, on, Lab};
use super::{ActionRequest, ClickRequest, Effect, StateRequest};
use crate::effect::{Fingerprint, Opened, WindowsBefore};

const EDITOR: &str = r#"app: editor
title: notes.txt - Editor
---
window "notes.txt - Editor" @0,0 400x300
  button "Save As…" @10,10 90x30
  button "Close" @110,10 90x30
  button "Bold" @210,10 90x30
  button "Nothing" @310,10 80x30
  button "Crash" @10,50 90x30
  cell "report.odt" @10,90 90x20
"#;

const SAVE_AS: &str = r#"app: editor
title: Save As
---
dialog "Save As" @0,0 300x200
  button "Save" @10,150 90x30
"#;

fn lab() -> Lab {
    let lab = Lab::with_window(EDITOR, Point::new(100, 100));
    lab.backend
        .on_press("Save As…", Reaction::Open(SAVE_AS.into()));
    lab.backend.on_press("Close", Reaction::Close);
    lab.backend.on_press("Crash", Reaction::Exit);
    lab.backend.on_press(
        "Bold",
        Reaction::Rename {
            from: "Nothing".into(),
            to: "Something".into(),
        },
    );
    lab
}

impl Lab {
    /// Clicks the button `name` by its element id through `gui_action`.
    async fn click_by_id(&self, name: &str) -> super::StepResult {
        let state = self
            .service
            .gui_state(&StateRequest {
                window_id: self.window.clone(),
                ..StateRequest::default()
            })
            .await
            .unwrap();
        let id = state
            .outline
            .lines()
            .find(|l| l.contains(&format!("\"{name}\"")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap()
            .to_owned();
        let answer = self
            .service
            .gui_action(&ActionRequest {
                window_id: self.window.clone(),
                state_id: state.state_id,
                actions: vec![on("click", &id)],
                confirm_dangerous: false,
                ..Default::default()
            })
            .await
            .unwrap();
        answer.results.into_iter().next().unwrap()
    }

    /// Clicks the button `name` by its label through `click`.
    async fn click_by_label(&self, name: &str) -> super::ClickStep {
        let answer = self
            .service
            .click(&ClickRequest {
                app: self.window.0.clone(),
                target: Some(name.into()),
                ..ClickRequest::default()
            })
            .await
            .unwrap();
        answer.results.into_iter().next().unwrap()
    }

    fn opened_title(&self) -> String {
        let windows = block_on(async { self.backend_windows().await });
        windows
            .into_iter()
            .find(|w| w.id != self.window)
            .map(|w| w.title)
            .unwrap_or_default()
    }

    async fn backend_windows(&self) -> Vec<WindowInfo> {
        use cu_core::model::backend::Backend as _;
        self.backend.list_windows().await.unwrap()
    }
}

#[test]
fn a_click_that_opens_a_dialog_says_window_opened_and_names_it() {
    let lab = lab();
    let step = block_on(lab.click_by_id("Save As…"));
    assert_eq!(step.effect, Effect::WindowOpened);
    let opened = step.opened.unwrap();
    assert_eq!(opened.title, "Save As");
    assert_eq!(lab.opened_title(), "Save As");
    assert_ne!(opened.window_id, lab.window);
}

#[test]
fn click_by_label_says_window_opened_too() {
    let lab = lab();
    let step = block_on(lab.click_by_label("Save As…"));
    assert_eq!(step.effect, Effect::WindowOpened);
    assert_eq!(step.opened.map(|o| o.title).as_deref(), Some("Save As"));
}

#[test]
fn a_change_inside_the_window_is_changed_with_no_window_named() {
    let lab = lab();
    let step = block_on(lab.click_by_id("Bold"));
    assert_eq!(step.effect, Effect::Changed);
    assert_eq!(step.opened, None);
}

#[test]
fn nothing_happening_is_no_change() {
    let lab = lab();
    let step = block_on(lab.click_by_label("Nothing"));
    assert_eq!(step.effect, Effect::NoChange);
    assert_eq!(step.opened, None);
}

#[test]
fn a_closed_window_is_window_closed() {
    let lab = lab();
    let step = block_on(lab.click_by_id("Close"));
    assert_eq!(step.effect, Effect::WindowClosed);
    assert_eq!(step.opened, None);
    assert!(lab.backend.presses().contains(&"Close".to_owned()));
}

/// Mousepad's main window could not be read for a moment while its Save As dialog opened, and
/// the step said `window_closed` although the window was still there: a window is closed only
/// when it is also no longer listed.
#[test]
fn regression_a_window_unreadable_for_a_moment_is_not_closed() {
    let lab = lab();
    lab.backend
        .fail_next(Call::Snapshot, ErrorCode::WindowNotFound);
    let seen = block_on(crate::effect::observe(
        &lab.service,
        &lab.window,
        Some(&Fingerprint::STALE),
        None,
        None,
    ));
    assert_eq!(seen.effect, Effect::Changed);
    let step = block_on(lab.click_by_id("Close"));
    assert_eq!(
        step.effect,
        Effect::WindowClosed,
        "a real close still is one"
    );
}

fn window(id: &str, app: &str, pid: Option<u32>) -> WindowInfo {
    WindowInfo {
        id: WindowId(id.into()),
        app: app.into(),
        title: format!("{app} {id}"),
        pid,
        bounds: Some(Rect::new(0, 0, 10, 10)),
        focused: false,
        minimized: false,
        no_tree: false,
    }
}

/// Only a new window of the acted application counts: by process where both are known, by
/// application name where not; a window that was already there, or another app's, never does.
#[test]
fn an_opened_window_is_a_new_one_of_the_same_application() {
    let acted = WindowId("w1".into());
    let before = vec![
        window("w1", "editor", Some(7)),
        window("w2", "editor", Some(7)),
    ];
    let baseline = WindowsBefore::new(&acted, before.clone()).unwrap();
    let opened = |now: Vec<WindowInfo>| baseline.opened(&now).map(|o: Opened| o.window_id);
    assert_eq!(opened(before.clone()), None, "nothing new");
    let mut other_app = before.clone();
    other_app.push(window("w3", "chat", Some(9)));
    assert_eq!(opened(other_app), None, "another process's window");
    let mut same_name_other_pid = before.clone();
    same_name_other_pid.push(window("w4", "editor", Some(8)));
    assert_eq!(opened(same_name_other_pid), None, "another editor process");
    let mut dialog = before.clone();
    dialog.push(window("w5", "editor", Some(7)));
    assert_eq!(opened(dialog).map(|w| w.0), Some("w5".into()));
    let mut no_pid = before;
    no_pid.push(window("w6", "editor", None));
    assert_eq!(
        opened(no_pid).map(|w| w.0),
        Some("w6".into()),
        "same app, pid unknown"
    );
    assert!(
        WindowsBefore::new(&WindowId("gone".into()), vec![]).is_none(),
        "no baseline without the acted window"
    );
}

/// Firefox aborted on a press and the tool answered ELEMENT_NOT_FOUND: a window that closed
/// with its application says `app_exited`, and the steps after it are refused with
/// `APP_CRASHED`, saying what ran.
#[test]
fn an_application_that_ends_with_the_action_is_app_exited() {
    let lab = lab();
    let step = block_on(lab.click_by_id("Crash"));
    assert_eq!((step.effect, step.app_exited), (Effect::WindowClosed, true));
    assert!(!block_on(self::lab().click_by_id("Close")).app_exited);

    let lab = self::lab();
    let err = block_on(lab.service.click(&ClickRequest {
        app: lab.window.0.clone(),
        steps: Some(vec!["Crash".into(), "Bold".into()]),
        ..ClickRequest::default()
    }))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::AppCrashed, "{err:?}");
    let details = err.details.unwrap();
    assert_eq!(
        details["completed"][0]["effect"], "window_closed",
        "{details}"
    );
    assert_eq!(details["completed"][0]["app_exited"], true, "{details}");
    assert!(!lab.backend.presses().contains(&"Bold".to_owned()));
}

/// A click by id on a Thunar file cell pressed its "activate" action, which opens the file; a
/// person's click selects it. A cell is clicked at its centre.
#[test]
fn regression_a_click_on_a_cell_is_a_real_click_not_its_activate_action() {
    let lab = lab();
    let step = block_on(lab.click_by_id("report.odt"));
    assert_eq!(step.how, super::Via::Coordinates);
    let performed = lab.backend.events().into_iter().any(|e| {
        matches!(e, cu_backend_scripted::Event::Perform(_, ref name, _) if name == "report.odt")
    });
    assert!(!performed, "{:?}", lab.backend.events());
}

/// A click on a label that did nothing answered `changed` when only the focus had moved: a
/// Tab moves the focus and changes nothing else, and says so.
#[test]
fn regression_a_focus_move_alone_is_focus_moved_not_changed() {
    let lab = lab();
    let state = block_on(lab.service.gui_state(&StateRequest {
        window_id: lab.window.clone(),
        ..StateRequest::default()
    }))
    .unwrap();
    let answer = block_on(lab.service.gui_action(&ActionRequest {
        window_id: lab.window.clone(),
        state_id: state.state_id,
        actions: vec![
            serde_json::from_value(serde_json::json!({"type": "key", "keys": "Tab"})).unwrap(),
        ],
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(answer.results[0].effect, Effect::FocusMoved);
}

/// The lab with watches that tell events apart, as the AT-SPI backend's do.
fn typed_lab() -> Lab {
    let lab = lab();
    let _typed = lab.backend.clone().with_typed_events();
    lab
}

#[test]
fn regression_effects_were_watched_by_reading_the_whole_window_again_and_again() {
    // LibreOffice Calc: every read of a sheet took 450 ms, and a key cost four of them.
    let (polled, typed) = (lab(), typed_lab());
    let reads = |lab: &Lab, name: &str| {
        let before = lab.backend.snapshots();
        let step = block_on(lab.click_by_id(name));
        (step.effect, lab.backend.snapshots() - before)
    };
    let (effect, polled_reads) = reads(&polled, "Bold");
    assert_eq!(effect, Effect::Changed);
    let (effect, typed_reads) = reads(&typed, "Bold");
    assert_eq!(effect, Effect::Changed);
    // gui_state's read, the gate's read of the element, the baseline right before the input;
    // the effect is the event's.
    assert_eq!(typed_reads, 3, "polled: {polled_reads}");
    assert!(
        polled_reads > typed_reads,
        "{polled_reads} reads when polled"
    );
}

#[test]
fn only_the_agents_observation_may_be_answered_from_a_kept_walk() {
    // The gate judges what receives the input now, and the effect check compares live reads:
    // neither may be given a kept walk, which rests on the toolkit sending every event.
    for lab in [lab(), typed_lab()] {
        let step = block_on(lab.click_by_id("Bold"));
        assert_eq!(step.effect, Effect::Changed);
        assert!(lab.backend.snapshots() >= 3);
        assert_eq!(lab.backend.reusable_snapshots(), 1, "gui_state's read only");
    }
}

#[test]
fn effects_from_events_open_close_and_nothing() {
    let lab = typed_lab();
    let step = block_on(lab.click_by_id("Save As…"));
    assert_eq!(step.effect, Effect::WindowOpened);
    assert_eq!(step.opened.map(|o| o.title).as_deref(), Some("Save As"));
    // No event: the window is read once and compared with the baseline.
    let lab = typed_lab();
    assert_eq!(
        block_on(lab.click_by_label("Nothing")).effect,
        Effect::NoChange
    );
    let lab = typed_lab();
    assert_eq!(
        block_on(lab.click_by_id("Close")).effect,
        Effect::WindowClosed
    );
}
