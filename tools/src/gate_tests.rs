//! The safety gate on every input path, against the scripted backend (milliseconds per case).
//!
//! Each case of the gate issue is here: a space typed into a focused "Delete" button, a drag that
//! starts and ends on it, Tab then space or Return, a click at its point in an observation that
//! did not list it, an unnamed button shown by its label, a label that changed since the
//! observation, access keys, the Delete key, Return in a single-line field with a dangerous
//! default button, and malformed keys that must not use up the state. The property test at the
//! end throws random action sequences at a dialog with a blocked button.

use cu_backend_scripted::{Call, Reaction, Scripted};
use cu_core::model::geometry::Point;
use cu_core::ErrorCode;
use serde_json::json;

use super::test_support::{block_on, on, service, step, Lab};
use super::{ActionRequest, StateRequest, Step};

/// The zenity question dialog of the fixtures: OK is "Delete" (an unnamed button showing its
/// label, with the access key D), Cancel has focus, Delete is the default.
const DIALOG: &str = r#"app: zenity
title: Question
---
dialog "Question" @0,0 400x160
  label "Delete the file?" @10,10 380x20
  text_input "Name" @10,40 200x24
  menu "Format" @220,40 60x24 [has_popup]
  button "Cancel" @10,110 90x30 [focused]
  button @110,110 90x30 [default]
    label "_Delete" @120,115 70x20
  button "Next" @210,110 90x30
  list "Files" @300,40 90x60
    list_item "notes.txt" @300,40 90x20
"#;

fn lab() -> Lab {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let backend = Scripted::new();
    let window = match backend.open(DIALOG, Point::new(100, 100)) {
        Ok(w) => w,
        Err(e) => panic!("{e}"),
    };
    let service = service(&backend, dir.path(), 5);
    Lab {
        backend,
        service,
        window,
        _dir: dir,
    }
}

impl Lab {
    /// The `result` of every audit line so far.
    fn audit_results(&self) -> Vec<String> {
        let text =
            std::fs::read_to_string(self._dir.path().join("actions.log")).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| v["result"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn pressed_delete(&self) -> bool {
        self.backend.presses().iter().any(|p| p.contains("Delete"))
    }
}

fn key(keys: &str) -> Step {
    step(json!({ "type": "key", "keys": keys }))
}

fn typed(text: &str, into: Option<&str>) -> Step {
    step(json!({ "type": "type", "text": text, "element_id": into }))
}

fn at(kind: &str, x: i32, y: i32) -> Step {
    step(json!({ "type": kind, "x": x, "y": y }))
}

/// Refused with DANGEROUS_ACTION_NEEDS_CONFIRMATION, the button not pressed; with confirmation
/// the same call presses it.
fn refused_then_confirmed(build: impl Fn(&str) -> Vec<Step>, state_survives: bool) {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let delete = Lab::id(&outline, "_Delete");
        let e = lab.act(&state, build(&delete), false).await.err();
        assert_eq!(
            e.as_ref().map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation),
            "{e:?}"
        );
        assert!(
            !lab.pressed_delete(),
            "pressed: {:?}",
            lab.backend.presses()
        );
        if state_survives {
            assert!(
                lab.backend.inputs().is_empty(),
                "{:?}",
                lab.backend.inputs()
            );
            assert!(lab.usable(&state), "a refused call left its state usable");
        }
        let lab = self::lab();
        let (state, outline) = lab.observe(None).await;
        let delete = Lab::id(&outline, "_Delete");
        let done = lab.act(&state, build(&delete), true).await;
        assert!(done.is_ok(), "{done:?}");
        assert!(
            lab.pressed_delete(),
            "confirmed: {:?}",
            lab.backend.presses()
        );
    });
}

#[test]
fn regression_space_typed_into_a_focused_delete_button_presses_it() {
    refused_then_confirmed(|d| vec![typed(" ", Some(d))], true);
}

#[test]
fn regression_drag_that_starts_and_ends_on_delete() {
    refused_then_confirmed(
        |d| {
            vec![step(
                json!({ "type": "drag", "element_id": d, "to_element_id": d }),
            )]
        },
        true,
    );
}

#[test]
fn regression_tab_then_space_from_cancel() {
    refused_then_confirmed(|_| vec![typed("\t ", None)], false);
}

#[test]
fn regression_tab_key_then_return_key() {
    refused_then_confirmed(|_| vec![key("Tab"), key("Return")], false);
}

/// A list whose type-ahead moves focus to "Delete all" when "d" is typed on "Archive".
const ACTIONS: &str = r#"app: files
title: Actions
---
window "Actions" @0,0 300x200
  list "Actions" @10,10 200x100
    list_item "Archive" @10,10 200x20 [focused]
    list_item "Delete all" @10,30 200x20
"#;

#[test]
fn regression_a_letter_that_moved_focus_then_return() {
    // Text was taken to leave focus where it was, so Return was judged on "Archive" and pressed
    // "Delete all", which the letter's type-ahead had focused.
    for actions in [vec![typed("d\n", None)], vec![key("d"), key("Return")]] {
        let backend = Scripted::new();
        let window = backend
            .open(ACTIONS, Point::new(100, 100))
            .unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lab = Lab {
            service: service(&backend, dir.path(), 5),
            backend,
            window,
            _dir: dir,
        };
        block_on(async {
            let (state, _) = lab.observe(None).await;
            let e = lab.act(&state, actions, false).await.err();
            assert_eq!(
                e.map(|e| e.code),
                Some(ErrorCode::DangerousActionNeedsConfirmation)
            );
            assert!(
                lab.backend.presses().is_empty(),
                "{:?}",
                lab.backend.presses()
            );
        });
    }
}

#[test]
fn regression_click_at_a_point_the_observation_did_not_list() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(Some(1)).await;
        assert!(!outline.contains("Delete\""), "{outline}");
        let e = lab
            .act(&state, vec![at("click", 150, 125)], false)
            .await
            .err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.inputs().is_empty());
        assert!(lab.usable(&state));
    });
}

#[test]
fn regression_malformed_key_does_not_use_up_the_state() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        // A combination that does not parse never reaches the service: the request does not
        // decode, and the error names the step.
        for bad in ["ctrl+frobnicate", &"a+".repeat(40)] {
            let request = json!({
                "window_id": lab.window.0, "state_id": state,
                "actions": [{ "type": "key", "keys": "Tab" }, { "type": "key", "keys": bad }],
            });
            let e = serde_json::from_value::<ActionRequest>(request).err();
            let message = e.map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains("step 1: unknown key"), "{bad}: {message}");
        }
        let e = lab
            .act(
                &state,
                vec![key("Tab"), key("ctrl+alt+shift+super+ctrl+alt+x")],
                false,
            )
            .await
            .err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidArgument));
        let long = "x".repeat(5000);
        let e = lab.act(&state, vec![typed(&long, None)], false).await.err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::TextTooLong));
        assert!(lab.backend.inputs().is_empty());
        assert!(lab.usable(&state));
    });
}

#[test]
fn the_audit_says_refused_or_failed_by_what_was_sent_not_by_the_error_text() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        // Refused before any input: a combination of too many keys.
        let e = lab
            .act(&state, vec![key("ctrl+alt+shift+super+ctrl+alt+x")], false)
            .await
            .err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidArgument));
        // Failed after input: Tab went out, then pressing "Next" failed.
        let next = Lab::id(&outline, "Next");
        lab.backend
            .fail_next(Call::Perform, ErrorCode::ActionFailed);
        let e = lab
            .act(&state, vec![key("Tab"), on("click", &next)], false)
            .await
            .err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::ActionFailed));
        // Acted: one line per step.
        let (state, _) = lab.observe(None).await;
        let ok = lab.act(&state, vec![key("Tab"), key("Tab")], false).await;
        assert!(ok.is_ok(), "{ok:?}");
        assert_eq!(lab.audit_results(), ["refused", "failed", "ok", "ok"]);
    });
}

#[test]
fn regression_a_window_a_modal_dialog_blocks_used_up_the_state() {
    // LibreOffice's "Confirm File Format" over its document: the key was refused by the window
    // manager after the call's state was claimed, so the agent had to observe again for nothing.
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        lab.backend
            .fail_next(Call::Activate, ErrorCode::WindowBlocked);
        let e = lab.act(&state, vec![key("ctrl+s")], false).await.err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::WindowBlocked));
        assert!(lab.backend.inputs().is_empty());
        assert!(lab.usable(&state), "the refused call left its state usable");
        let done = lab.act(&state, vec![key("ctrl+s")], false).await;
        assert!(done.is_ok(), "once the dialog is answered: {done:?}");
        // Where windows cannot be brought to the front at all (Wayland), input still goes.
        let (state, _) = lab.observe(None).await;
        lab.backend
            .fail_next(Call::Activate, ErrorCode::ActionNotSupported);
        let done = lab.act(&state, vec![key("ctrl+s")], false).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.inputs().len(), 2);
    });
}

#[test]
fn regression_wayland_keys_went_to_whichever_window_had_focus() {
    // Issue 39: keys through the desktop portal landed in the focused window, which need not be
    // the one the call named. A window that does not hold the keyboard refuses keys before the
    // call's state is used up; a pointer event brings it forward itself and goes.
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        lab.backend
            .fail_next(Call::Activate, ErrorCode::WindowNotFocused);
        let e = lab.act(&state, vec![key("x")], false).await.err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::WindowNotFocused));
        assert!(lab.backend.inputs().is_empty());
        assert!(lab.usable(&state), "the refused call left its state usable");
        let name = Lab::id(&outline, "Name");
        lab.backend
            .fail_next(Call::Activate, ErrorCode::WindowNotFocused);
        let done = lab
            .act(&state, vec![on("double_click", &name)], false)
            .await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.inputs().len(), 1);
    });
}

#[test]
fn an_unnamed_button_is_judged_by_the_label_it_shows() {
    refused_then_confirmed(|d| vec![on("click", d)], true);
}

#[test]
fn access_keys_and_the_delete_key_are_judged() {
    refused_then_confirmed(|_| vec![key("alt+d")], true);
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let item = Lab::id(&outline, "notes.txt");
        let e = lab
            .act(&state, vec![on("focus", &item), key("Delete")], false)
            .await
            .err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(!lab.pressed_delete());
    });
}

#[test]
fn return_in_a_single_line_field_is_judged_as_the_default_button() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let name = Lab::id(&outline, "Name");
        let e = lab
            .act(&state, vec![typed("report\n", Some(&name))], false)
            .await
            .err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(!lab.pressed_delete());
        // Spaces typed into the field are text, not presses.
        let (state, outline) = lab.observe(None).await;
        let name = Lab::id(&outline, "Name");
        let done = lab
            .act(&state, vec![typed("my report v2", Some(&name))], false)
            .await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(
            lab.backend.value_of("Name").as_deref(),
            Some("my report v2")
        );
    });
}

#[test]
fn a_label_that_changed_since_the_observation_is_judged_as_it_is_now() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let next = Lab::id(&outline, "Next");
        lab.backend.rename("Next", "Pay");
        let e = lab.act(&state, vec![on("click", &next)], false).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.presses().is_empty());
        assert!(lab.usable(&state));
    });
}

#[test]
fn a_later_step_is_judged_on_what_an_earlier_step_changed() {
    let lab = lab();
    block_on(async {
        lab.backend.on_press(
            "Cancel",
            Reaction::Rename {
                from: "Next".into(),
                to: "Pay now".into(),
            },
        );
        let (state, outline) = lab.observe(None).await;
        let (cancel, next) = (Lab::id(&outline, "Cancel"), Lab::id(&outline, "Next"));
        let e = lab
            .act(
                &state,
                vec![on("click", &cancel), on("click", &next)],
                false,
            )
            .await
            .err();
        let e = e.unwrap_or_else(|| panic!("the second step ran"));
        assert_eq!(e.code, ErrorCode::DangerousActionNeedsConfirmation);
        let completed = e.details.as_ref().and_then(|d| d.get("completed"));
        assert_eq!(
            completed.and_then(|c| c.as_array()).map(Vec::len),
            Some(1),
            "{e:?}"
        );
        assert_eq!(lab.backend.presses(), vec!["Cancel".to_owned()]);
    });
}

#[test]
fn opening_a_menu_is_not_an_action() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab
            .observe_with(StateRequest {
                window_id: lab.window.clone(),
                all: true,
                ..StateRequest::default()
            })
            .await;
        let format = Lab::id(&outline, "Format");
        let done = lab.act(&state, vec![on("click", &format)], false).await;
        assert!(done.is_ok(), "{done:?}");
        let (state, _) = lab.observe(None).await;
        let done = lab.act(&state, vec![at("click", 240, 50)], false).await;
        assert!(done.is_ok(), "a click on the menu by point: {done:?}");
    });
}

#[test]
fn no_element_at_a_point_or_a_failed_hit_test_fails_closed() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        let e = lab
            .act(&state, vec![at("click", 395, 155)], false)
            .await
            .err();
        let rule = e
            .as_ref()
            .and_then(|e| e.details.as_ref())
            .and_then(|d| d.get("matched_rule"))
            .and_then(|r| r.as_str());
        assert_eq!(rule, Some(super::guard::UNKNOWN_RECEIVER), "{e:?}");
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        lab.backend.fail_next(Call::ElementAt, ErrorCode::Timeout);
        let e = lab
            .act(&state, vec![at("click", 50, 125)], false)
            .await
            .err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.inputs().is_empty());
        let done = lab.act(&state, vec![at("click", 50, 125)], false).await;
        assert!(done.is_ok(), "Cancel by point: {done:?}");
        assert_eq!(lab.backend.presses(), vec!["Cancel".to_owned()]);
    });
}

#[test]
fn focus_that_cannot_be_read_fails_closed_for_activating_keys() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        lab.backend.fail_next(Call::Focused, ErrorCode::Timeout);
        let e = lab.act(&state, vec![key("space")], false).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.usable(&state));
    });
}

#[test]
fn click_and_type_text_by_label_go_through_the_same_gate() {
    let lab = lab();
    block_on(async {
        let req = super::ClickRequest {
            app: "zenity".into(),
            target: Some("Cancel".into()),
            steps: None,
            confirm_dangerous: false,
            ..Default::default()
        };
        let done = lab.service.click(&req).await;
        assert!(done.is_ok(), "{done:?}");
        let req = super::ClickRequest {
            target: Some("Delete".into()),
            ..req
        };
        let e = lab.service.click(&req).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert_eq!(lab.backend.presses(), vec!["Cancel".to_owned()]);
        let typed = lab
            .service
            .type_text(&super::TypeRequest {
                app: "zenity".into(),
                target: "Name".into(),
                text: "a b c".into(),
                confirm_dangerous: false,
            })
            .await;
        assert!(typed.is_ok(), "{typed:?}");
        assert_eq!(lab.backend.value_of("Name").as_deref(), Some("a b c"));
    });
}

#[test]
fn the_desktop_page_is_never_operated_by_the_tools() {
    let lab = lab();
    block_on(async {
        let page = format!(
            "title: {} — Chromium\n---\nwindow \"page\" @0,0 300x100\n  button \"Approve\" @10,10 80x30\n",
            super::guard::DESKTOP_PAGE_TITLE
        );
        let w = match lab.backend.open(&page, Point::new(0, 0)) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        let (state, outline) = lab
            .observe_with(StateRequest {
                window_id: w.clone(),
                ..StateRequest::default()
            })
            .await;
        let approve = Lab::id(&outline, "Approve");
        for actions in [
            vec![on("click", &approve)],
            vec![at("click", 50, 25)],
            vec![key("Return")],
        ] {
            let e = lab
                .service
                .gui_action(&ActionRequest {
                    window_id: w.clone(),
                    state_id: state.clone(),
                    actions,
                    confirm_dangerous: true,
                    ..Default::default()
                })
                .await
                .err();
            assert_eq!(e.map(|e| e.code), Some(ErrorCode::Unauthorized));
        }
        assert!(lab.backend.presses().is_empty());
        assert!(lab.usable(&state));
    });
}

mod property {
    use proptest::prelude::*;

    use super::*;

    /// One random step: any type, random ids of the observation, points in and around the
    /// window, texts with spaces, tabs and line breaks, keys that move focus and activate.
    fn any_step(ids: usize) -> impl Strategy<Value = Step> {
        let id = (1..=ids + 1).prop_map(|n| format!("e{n}"));
        let kinds = prop::sample::select(vec![
            "click",
            "double_click",
            "right_click",
            "move",
            "scroll",
            "drag",
            "type",
            "key",
            "set_value",
            "focus",
        ]);
        let text = prop::collection::vec(
            prop::sample::select(vec![" ", "\t", "\n", "a", "d", "x", "\r\n"]),
            1..6,
        )
        .prop_map(|v| v.concat());
        let keys = prop::sample::select(vec![
            "Tab",
            "shift+Tab",
            "Return",
            "KP_Enter",
            "space",
            "alt+d",
            "d",
            "Delete",
            "Down",
            "ctrl+Return",
            "shift+space",
            "Escape",
        ]);
        (
            kinds,
            prop::option::of(id.clone()),
            prop::option::of((0..420i32, 0..180i32)),
            prop::option::of(id),
            text,
            keys,
        )
            .prop_map(|(kind, element, point, to, text, keys)| {
                let mut s = json!({ "type": kind });
                match kind {
                    "type" => {
                        s["text"] = json!(text);
                        s["element_id"] = json!(element);
                    }
                    "key" => s["keys"] = json!(keys),
                    "set_value" | "focus" => {
                        s["text"] = json!(text);
                        s["element_id"] = json!(element.unwrap_or_else(|| "e2".into()));
                        if kind == "focus" {
                            s.as_object_mut().map(|o| o.remove("text"));
                        }
                    }
                    "drag" => {
                        match (element, point) {
                            (Some(e), _) => s["element_id"] = json!(e),
                            (None, Some((x, y))) => (s["x"], s["y"]) = (json!(x), json!(y)),
                            (None, None) => {}
                        }
                        match to {
                            Some(e) => s["to_element_id"] = json!(e),
                            None => (s["to_x"], s["to_y"]) = (json!(155), json!(125)),
                        }
                    }
                    _ => match (element, point) {
                        (Some(e), _) => s["element_id"] = json!(e),
                        (None, Some((x, y))) => (s["x"], s["y"]) = (json!(x), json!(y)),
                        (None, None) => s["element_id"] = json!("e2"),
                    },
                }
                step(s)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Whatever the sequence, the blocked button is never pressed without confirmation, and
        /// a call refused before sending anything leaves its state usable.
        #[test]
        fn the_blocked_button_is_never_pressed_without_confirmation(
            steps in prop::collection::vec(any_step(9), 1..=6),
            max_elements in prop::option::of(1usize..10),
        ) {
            let lab = lab();
            block_on(async {
                let (state, _) = lab.observe(max_elements).await;
                let outcome = lab.act(&state, steps.clone(), false).await;
                prop_assert!(!lab.pressed_delete(), "pressed {:?} with {steps:?} -> {outcome:?}", lab.backend.presses());
                if outcome.is_err() && lab.backend.inputs().is_empty() {
                    prop_assert!(lab.usable(&state), "refused {steps:?} used up its state: {outcome:?}");
                }
                Ok(())
            })?;
        }

        /// Issue 39, by consequence: in a question "Delete the file…?" whose default is "Yes",
        /// with a check box that hands Return to it, an icon button nothing names and a menu
        /// that pays, nothing destructive by consequence is activated without confirmation, and
        /// a call refused before sending anything leaves its state usable.
        #[test]
        fn nothing_destructive_by_consequence_without_confirmation(
            steps in prop::collection::vec(any_step(9), 1..=6),
            max_elements in prop::option::of(1usize..10),
        ) {
            let lab = Lab::with_window(QUESTION, Point::new(100, 100));
            block_on(async {
                let (state, _) = lab.observe(max_elements).await;
                let outcome = lab.act(&state, steps.clone(), false).await;
                let pressed = lab.backend.presses();
                prop_assert!(
                    !pressed.iter().any(|p| ["_Yes", "", "Pay now"].contains(&p.as_str())),
                    "pressed {pressed:?} with {steps:?} -> {outcome:?}"
                );
                if outcome.is_err() && lab.backend.inputs().is_empty() {
                    prop_assert!(lab.usable(&state), "refused {steps:?} used up its state: {outcome:?}");
                }
                Ok(())
            })?;
        }
    }
}

/// The consequence world of the second property: a question whose default "Yes" deletes.
const QUESTION: &str = r#"app: zenity
title: Question
---
dialog "Question" @0,0 400x160
  label "Delete the file report.txt permanently?" @10,10 380x20
  check_box "Do not ask again" @10,40 200x20 [focused]
  button @220,40 30x24
    image @222,42 26x20
  menu "Pay now" @260,40 80x24
  button "_No" @110,110 90x30
  button "_Yes" @210,110 90x30 [default]
"#;

/// A window with its View menu open over a toolbar whose button carries "_Delete".
const OPEN_MENU: &str = r#"app: soffice
title: Sheet
---
window "Sheet" @0,0 400x300
  button "_Delete Decimal Place" @10,40 90x30
  menu_bar @0,0 400x20
    menu "View" @0,0 40x20 [selected]
      menu_item "_Zoom" @0,20 120x20 [focused]
      menu_item "_Lines" @0,40 120x20
    menu "Sheet" @40,0 40x20
      menu_item "_Delete Sheet" @40,20 120x20
"#;

#[test]
fn regression_a_letter_in_libreoffices_view_menu_was_judged_by_a_toolbar_button() {
    // An open menu holds the keyboard: its letters press its items only. "l" in the View menu
    // asked for confirmation because a toolbar button read "Delete Decimal Place". (Every item
    // of the open menu is judged, whatever its letter: see the Qt and GTK context menus.)
    let lab = lab();
    block_on(async {
        let window = match lab.backend.open(OPEN_MENU, Point::new(50, 50)) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        let done = key_in(&lab, &window, "l").await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses(), ["_Lines"]);
    });
}

/// Observes `window` and sends `keys` to it.
async fn key_in(
    lab: &Lab,
    window: &cu_core::model::window::WindowId,
    keys: &str,
) -> cu_core::Result<crate::action::ActionResult> {
    let state_id = match lab
        .service
        .gui_state(&StateRequest {
            window_id: window.clone(),
            ..Default::default()
        })
        .await
    {
        Ok(s) => s.state_id,
        Err(e) => panic!("{e:?}"),
    };
    lab.service
        .gui_action(&ActionRequest {
            window_id: window.clone(),
            state_id,
            actions: vec![key(keys)],
            ..Default::default()
        })
        .await
}
