//! The whole input vocabulary through `gui_action` against the scripted backend: other buttons,
//! triple clicks, modifiers held around clicks, drags and scrolls, a button pressed and released
//! as separate steps, every new kind judged by the gate like a click; and the one rule for
//! state: a call that failed before anything reached the app keeps its state usable.

use cu_backend_scripted::{Call, Event};
use cu_core::model::backend::{InputEvent, MouseButton};
use cu_core::model::geometry::Point;
use cu_core::model::keys::Modifiers;
use cu_core::ErrorCode;
use serde_json::json;

use super::test_support::{block_on, step, Lab};

/// A window with a blocked button and a harmless canvas.
const WINDOW: &str = r#"app: editor
title: Drawing
---
window "Drawing" @0,0 400x200
  button "Delete" @10,10 90x30
  button "Next" @110,10 90x30
  image "Sketch" @10,60 380x130
"#;

fn lab() -> Lab {
    Lab::watching(WINDOW, Point::new(100, 100), 5)
}

/// The raw input events the backend received, in order.
fn sent(lab: &Lab) -> Vec<InputEvent> {
    lab.backend
        .inputs()
        .into_iter()
        .filter_map(|e| match e {
            Event::Input(_, event) => Some(event),
            _ => None,
        })
        .collect()
}

fn held(text: &str) -> Modifiers {
    match text.parse() {
        Ok(combo) => Modifiers::of(&combo).unwrap_or_else(|e| panic!("{e}")),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_button_count_and_held_modifier_reaches_the_backend() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        let steps = vec![
            step(json!({ "type": "click", "x": 50, "y": 100, "button": "middle" })),
            step(json!({ "type": "click", "x": 50, "y": 100, "count": 3 })),
            step(json!({ "type": "click", "x": 50, "y": 100, "button": "back" })),
            step(json!({ "type": "click", "x": 50, "y": 100, "button": "forward" })),
            step(json!({ "type": "click", "x": 50, "y": 100, "modifiers": "ctrl+shift" })),
            step(json!({ "type": "right_click", "x": 50, "y": 100, "modifiers": "ctrl" })),
            step(
                json!({ "type": "scroll", "x": 50, "y": 100, "dx": -3, "dy": 0, "modifiers": "ctrl" }),
            ),
            step(
                json!({ "type": "drag", "x": 20, "y": 100, "to_x": 300, "to_y": 150,
                         "button": "right", "modifiers": "shift" }),
            ),
            step(json!({ "type": "mouse_down", "x": 40, "y": 120 })),
            step(json!({ "type": "mouse_up", "x": 60, "y": 130, "button": "left" })),
        ];
        let done = lab.act(&state, steps, false).await;
        assert!(done.is_ok(), "{:?}", done.err());
        let at = Point::new(50, 100);
        let click = |button, count| InputEvent::Click { at, button, count };
        let holding = |m: &str, event| InputEvent::Held {
            modifiers: held(m),
            event: Box::new(event),
        };
        assert_eq!(
            sent(&lab),
            vec![
                click(MouseButton::Middle, 1),
                click(MouseButton::Left, 3),
                click(MouseButton::Back, 1),
                click(MouseButton::Forward, 1),
                holding("ctrl+shift", click(MouseButton::Left, 1)),
                holding("ctrl", click(MouseButton::Right, 1)),
                holding("ctrl", InputEvent::Scroll { at, dx: -3, dy: 0 }),
                holding(
                    "shift",
                    InputEvent::Drag {
                        from: Point::new(20, 100),
                        to: Point::new(300, 150),
                        button: MouseButton::Right,
                    }
                ),
                InputEvent::Button {
                    at: Point::new(40, 120),
                    button: MouseButton::Left,
                    pressed: true,
                },
                InputEvent::Button {
                    at: Point::new(60, 130),
                    button: MouseButton::Left,
                    pressed: false,
                },
            ]
        );
    });
}

#[test]
fn fields_a_step_does_not_take_and_keys_that_are_no_modifiers_are_refused_before_input() {
    // Fields a type does not take do not decode: the error names the field.
    for bad in [
        json!({ "type": "double_click", "x": 50, "y": 100, "count": 2 }),
        json!({ "type": "right_click", "x": 50, "y": 100, "button": "middle" }),
        json!({ "type": "click", "x": 50, "y": 100, "button": "sideways" }),
    ] {
        let e = serde_json::from_value::<super::Step>(bad.clone()).err();
        assert!(e.is_some(), "{bad}");
    }
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        for bad in [
            json!({ "type": "click", "x": 50, "y": 100, "count": 4 }),
            json!({ "type": "click", "x": 50, "y": 100, "modifiers": "ctrl+a" }),
            json!({ "type": "move", "x": 50, "y": 100, "modifiers": "ctrl" }),
            json!({ "type": "mouse_down", "x": 50, "y": 100, "count": 2 }),
        ] {
            let e = lab.act(&state, vec![step(bad.clone())], false).await.err();
            assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidArgument), "{bad}");
        }
        assert!(sent(&lab).is_empty());
        assert!(lab.usable(&state));
    });
}

#[test]
fn a_press_or_release_alone_held_click_or_triple_click_on_delete_is_judged() {
    let lab = lab();
    block_on(async {
        for wire in [
            json!({ "type": "mouse_down", "x": 50, "y": 25 }),
            json!({ "type": "mouse_up", "x": 50, "y": 25 }),
            json!({ "type": "click", "x": 50, "y": 25, "modifiers": "shift" }),
            json!({ "type": "click", "x": 50, "y": 25, "count": 3 }),
            json!({ "type": "click", "x": 50, "y": 25, "button": "middle" }),
        ] {
            let (state, _) = lab.observe(None).await;
            let e = lab.act(&state, vec![step(wire.clone())], false).await.err();
            assert_eq!(
                e.map(|e| e.code),
                Some(ErrorCode::DangerousActionNeedsConfirmation),
                "{wire}"
            );
            assert!(lab.usable(&state), "{wire}");
        }
        assert!(sent(&lab).is_empty());
        // Pressed away from it and released over it: the release is judged too.
        let (state, _) = lab.observe(None).await;
        let steps = vec![
            step(json!({ "type": "mouse_down", "x": 50, "y": 100 })),
            step(json!({ "type": "mouse_up", "x": 50, "y": 25 })),
        ];
        let e = lab.act(&state, steps, false).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.presses().is_empty());
    });
}

/// Issue 40: an error carrying `"completed": []` used up its state. A call whose first input
/// failed before anything reached the app (a key the platform cannot map, an element that
/// refused focus) sent nothing, and its state stays usable.
#[test]
fn regression_a_call_that_sent_nothing_used_up_its_state() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        lab.backend
            .fail_next_unsent(Call::Input, ErrorCode::ActionNotSupported);
        let steps = vec![step(json!({ "type": "key", "keys": "kp_add" }))];
        let e = lab.act(&state, steps.clone(), false).await.err();
        assert_eq!(
            e.as_ref().map(|e| e.code),
            Some(ErrorCode::ActionNotSupported)
        );
        let details = e.and_then(|e| e.details).unwrap_or_default();
        assert!(details.get("completed").is_none(), "{details}");
        assert!(lab.usable(&state));
        // The same state then acts.
        assert!(lab.act(&state, steps, false).await.is_ok());
        assert!(!lab.usable(&state));
        // A failure after input may have reached the app: the state is used.
        let (state, _) = lab.observe(None).await;
        lab.backend.fail_next(Call::Input, ErrorCode::ActionFailed);
        let steps = vec![step(json!({ "type": "key", "keys": "Tab" }))];
        assert!(lab.act(&state, steps, false).await.is_err());
        assert!(!lab.usable(&state));
    });
}

/// cua-auto-harness on a window without a tree: the space of "hello world" was refused (what
/// receives it cannot be told) after "hello" was typed, so the state was used up and the
/// confirmation the gate asked for could not be given. The text is judged before its first
/// piece goes out.
#[test]
fn regression_a_text_was_refused_halfway_after_its_first_word_was_typed() {
    let lab = lab();
    block_on(async {
        let (state, _) = lab.observe(None).await;
        lab.backend
            .fail_next(Call::Focused, ErrorCode::ActionFailed);
        let steps = vec![step(json!({ "type": "type", "text": "hello world" }))];
        let e = lab.act(&state, steps.clone(), false).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(sent(&lab).is_empty(), "{:?}", sent(&lab));
        assert!(lab.usable(&state));
        // Confirmed, the same state types the whole text.
        assert!(lab.act(&state, steps, true).await.is_ok());
        assert_eq!(
            sent(&lab),
            vec![
                InputEvent::Text {
                    text: "hello".into()
                },
                InputEvent::Text { text: " ".into() },
                InputEvent::Text {
                    text: "world".into()
                },
            ]
        );
    });
}
