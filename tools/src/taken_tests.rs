//! Values and focus that take, or say they did not, against the scripted backend: a value the
//! element ignores is typed instead and read back; focus that the focus action does not move
//! is taken by a click; focus that never moves fails the step before anything is typed.

use cu_backend_scripted::{Event, Ignored};
use cu_core::model::backend::{InputEvent, SemanticAction};
use cu_core::model::geometry::Point;
use cu_core::ErrorCode;
use serde_json::json;

use super::test_support::{block_on, step, Lab};

/// A form: a field that takes values, one that ignores them, one like a sheet's Name Box that
/// takes focus neither by its action nor by a click, and one that takes it only by a click.
const FORM: &str = r#"app: form
title: Form
---
window "Form" @0,0 400x200
  text_input "Name" @10,10 200x24 [focusable]
  text_input "Date" @10,40 200x24 [focusable]
  text_input "Name Box" @10,70 200x24 [focusable]
  text_input "Notes" @10,100 200x24 [focusable]
"#;

fn lab() -> Lab {
    Lab::watching(FORM, Point::new(100, 100), 5)
}

fn typed_anything(lab: &Lab) -> bool {
    lab.backend.inputs().iter().any(|e| {
        matches!(
            e,
            Event::Input(_, InputEvent::Text { .. } | InputEvent::Key { .. })
        )
    })
}

#[test]
fn a_value_that_takes_reads_back_in_the_answer() {
    let lab = lab();
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let name = Lab::id(&outline, "Name");
        let wire = json!({ "type": "set_value", "element_id": name, "text": "Ada" });
        let done = lab.act(&state, vec![step(wire)], false).await;
        let results = done.map(|r| r.results).unwrap_or_default();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].value.as_deref(), Some("Ada"));
        assert_eq!(results[0].how.as_str(), "semantic");
        assert!(!typed_anything(&lab));
    });
}

/// Issue 40: `set_value` on Chromium's date segments answered `changed` while the field still
/// read 0/0/0: the value interface was ignored. Now the value is read back, and typed when it
/// did not take.
#[test]
fn regression_a_value_the_element_ignored_was_reported_changed() {
    let lab = lab();
    lab.backend.ignores("Date", Ignored::Value);
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let date = Lab::id(&outline, "Date");
        let wire = json!({ "type": "set_value", "element_id": date, "text": "2026" });
        let done = lab.act(&state, vec![step(wire)], false).await;
        assert!(done.is_ok(), "{:?}", done.err());
        let results = done.map(|r| r.results).unwrap_or_default();
        assert_eq!(results[0].how.as_str(), "keyboard", "said so");
        assert_eq!(results[0].value.as_deref(), Some("2026"));
        assert_eq!(results[0].focus_moved, Some(true));
        assert!(typed_anything(&lab));
    });
}

/// Issue 40: in a spreadsheet, `set_value` on the Name Box and a click on it did not give it
/// keyboard focus, yet each step answered `changed`, and the typing that followed went into a
/// cell. Now focus is checked: the step fails and nothing is typed.
#[test]
fn regression_focus_that_did_not_move_let_typing_land_elsewhere() {
    let lab = lab();
    lab.backend.ignores("Name Box", Ignored::Focus);
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let name_box = Lab::id(&outline, "Name Box");
        let steps = vec![
            step(json!({ "type": "focus", "element_id": name_box })),
            step(json!({ "type": "type", "text": "A1" })),
        ];
        let e = lab.act(&state, steps, false).await.err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::ActionFailed));
        let details = e.and_then(|e| e.details).unwrap_or_default();
        assert_eq!(details["focus_moved"], json!(false), "{details}");
        assert_eq!(details["step"], json!(0), "{details}");
        assert!(!typed_anything(&lab));
        // Typing into it by id fails the same way, before a key is sent.
        let (state, _) = lab.observe(None).await;
        let wire = json!({ "type": "type", "text": "A1", "element_id": name_box });
        let e = lab.act(&state, vec![step(wire)], false).await.err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::ActionFailed));
        assert!(!typed_anything(&lab));
    });
}

/// Issue 40 (task-bench): `[click the Name Box, type "Zed"]` answered the click `changed` by
/// its semantic action while focus stayed in the sheet, and "Zed" overwrote a cell. A click on
/// a text field is for typing there: focus is checked, and the step fails before anything is
/// typed when it did not move.
#[test]
fn regression_a_click_on_a_field_that_took_no_focus_let_typing_land_elsewhere() {
    let lab = lab();
    lab.backend.ignores("Name Box", Ignored::Focus);
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let name_box = Lab::id(&outline, "Name Box");
        let steps = vec![
            step(json!({ "type": "click", "element_id": name_box })),
            step(json!({ "type": "type", "text": "Zed" })),
        ];
        let e = lab.act(&state, steps, false).await.err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::ActionFailed));
        assert!(!typed_anything(&lab));
        // A field that takes focus answers that it moved.
        let (state, outline) = lab.observe(None).await;
        let name = Lab::id(&outline, "Name");
        let steps = vec![step(json!({ "type": "click", "element_id": name }))];
        let done = lab.act(&state, steps, false).await;
        let results = done.map(|r| r.results).unwrap_or_default();
        assert_eq!(results.first().and_then(|r| r.focus_moved), Some(true));
    });
}

#[test]
fn focus_the_focus_action_does_not_move_is_taken_by_a_click() {
    let lab = lab();
    lab.backend.ignores("Notes", Ignored::FocusAction);
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let notes = Lab::id(&outline, "Notes");
        let steps = vec![step(json!({ "type": "focus", "element_id": notes }))];
        let done = lab.act(&state, steps, false).await;
        let results = done.map(|r| r.results).unwrap_or_default();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].how.as_str(), "coordinates");
        assert_eq!(results[0].focus_moved, Some(true));
        let events = lab.backend.inputs();
        assert!(events.iter().any(|e| matches!(
            e,
            Event::Perform(_, name, SemanticAction::Focus) if name == "Notes"
        )));
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::Input(_, InputEvent::Click { .. }))));
    });
}

/// A drop-down: its options in a closed popup (GTK 3's combo box, a web `<select>`).
const DROP_DOWN: &str = r#"app: form
title: Form
---
window "Form" @0,0 400x200
  combo_box "Align" @10,10 200x24 [focusable]
    menu [offscreen]
      menu_item "Left" [offscreen]
      menu_item "Excel 2007–365" [offscreen]
      menu_item "Right" [offscreen]
"#;

/// Issue 40: a drop-down's choice took Down/Return and a screenshot to check. Now `set_value`
/// presses the option by its label (as people write it: a hyphen for the en dash), the popup
/// left closed, and reads the choice back; a label no option has is refused before anything is
/// sent, naming the options, and the state stays usable.
#[test]
fn a_drop_downs_option_is_chosen_by_its_label_in_one_step() {
    let lab = Lab::watching(DROP_DOWN, Point::new(100, 100), 5);
    block_on(async {
        let (state, outline) = lab.observe(None).await;
        let combo = Lab::id(&outline, "Align");
        let set =
            |text: &str| step(json!({ "type": "set_value", "element_id": combo, "text": text }));
        let err = lab
            .act(&state, vec![set("Top")], false)
            .await
            .err()
            .unwrap_or_else(|| panic!("no option Top"));
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
        assert!(err.message.contains("Left, Excel 2007–365, Right"), "{err}");
        assert!(lab.usable(&state), "nothing was sent");
        let done = lab.act(&state, vec![set("excel 2007-365")], false).await;
        let results = done.map(|r| r.results).unwrap_or_default();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].value.as_deref(), Some("Excel 2007–365"));
        assert_eq!(results[0].how.as_str(), "semantic");
        assert!(lab.backend.inputs().iter().any(|e| matches!(
            e,
            Event::Perform(_, name, SemanticAction::Choose) if name == "Excel 2007–365"
        )));
        assert!(!typed_anything(&lab));
    });
}
