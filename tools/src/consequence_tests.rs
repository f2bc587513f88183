//! The gate judges what an action will do, over the scripted backend: a "Yes" that answers
//! "Delete the file…?", a Return on a check box that the toolkit hands to a default "Delete", an
//! icon button nothing names, an element with the role menu that acts, and, the other way, a
//! button whose tooltip mentions a blocked word but whose label does not (issue 39). Each case is
//! refused without confirmation, leaves its state usable and presses nothing; with
//! `confirm_dangerous` it goes through.

use cu_core::model::geometry::Point;
use cu_core::ErrorCode;
use serde_json::json;

use super::click::ClickRequest;
use super::test_support::{block_on, on, step, Lab};
use super::{StateRequest, Step};

/// zenity --question: No, then Yes (the default), under the question.
const ZENITY: &str = r#"app: zenity
title: Question
---
dialog "Question" @0,0 400x150
  label "Delete the file report.txt permanently?" @60,20 300x20
  button "_No" @180,100 90x30
  button "_Yes" @280,100 90x30 [default, focused]
"#;

/// A Qt confirmation whose check box has focus from the start and whose default is Delete.
const QT_CONFIRM: &str = r#"app: qtconfirm
title: Delete
---
dialog "Delete" @0,0 400x160
  label "Delete 3 files?" @60,20 300x20
  check_box "Do not ask again" @60,60 200x20 [focused, focusable]
  button "&Cancel" @180,110 90x30 [focusable]
  button "&Delete" @280,110 90x30 [default, focusable]
"#;

/// A web form: a check box whose label holds "Send" beside the button that sends.
const NEWSLETTER: &str = r#"app: shop
title: Checkout
---
document "Checkout" @0,0 500x300
  check_box "Send me the newsletter" @10,20 250x20 [focusable]
  radio_button "Delete my card after this order" @10,50 250x20 [focusable]
  button "Send order" @10,100 120x30 [focusable]
"#;

/// A toolbar with an icon button nothing names, a web menu that pays, and a search dialog's
/// button whose tooltip says "format".
const ICONS: &str = r#"app: files
title: Files
---
window "Files" @0,0 500x300
  toolbar @0,0 500x40
    button @10,5 30x30
      image @12,7 26x26
    button "Search" @50,5 60x30
  document "Shop" @0,50 500x200
    menu "Pay now" @10,60 120x30
  button "Replace All" ~"Replaces all of the text or format that you want to replace" @10,260 120x30
  button "Find Next" ~"Finds the next format occurrence" @140,260 120x30
"#;

fn lab(fixture: &str) -> Lab {
    Lab::with_window(fixture, Point::new(100, 100))
}

impl Lab {
    /// Every element (`all`), the state and the outline.
    async fn state(&self) -> (String, String) {
        self.observe_with(StateRequest {
            window_id: self.window.clone(),
            all: true,
            ..StateRequest::default()
        })
        .await
    }
}

fn key(keys: &str) -> Step {
    step(json!({ "type": "key", "keys": keys }))
}

fn at(x: i32, y: i32) -> Step {
    step(json!({ "type": "click", "x": x, "y": y }))
}

/// `build` (from the outline) is refused without confirmation for the reason `says`, judged on
/// `pressed`, with nothing pressed and (for a call refused before any input) the state still
/// usable, and presses `pressed` with it.
fn refused_unless_confirmed(
    fixture: &str,
    build: impl Fn(&str) -> Vec<Step>,
    pressed: &str,
    says: &str,
) {
    refused_then_confirmed(fixture, build, pressed, says, true);
}

fn refused_then_confirmed(
    fixture: &str,
    build: impl Fn(&str) -> Vec<Step>,
    pressed: &str,
    says: &str,
    before_any_input: bool,
) {
    let lab = lab(fixture);
    block_on(async {
        let (state, outline) = lab.state().await;
        let e = lab.act(&state, build(&outline), false).await.err();
        let e =
            e.unwrap_or_else(|| panic!("passed without confirmation: {:?}", lab.backend.presses()));
        assert_eq!(e.code, ErrorCode::DangerousActionNeedsConfirmation, "{e:?}");
        // The typed reason and the receiver judged, never the message's words.
        let details = e.details.clone().unwrap_or_default();
        assert_eq!(details["reason"], says, "{details}");
        let judged = details["would_activate"]["name"]
            .as_str()
            .unwrap_or_default();
        assert!(
            judged.contains(pressed),
            "judged {judged:?}, want {pressed:?}"
        );
        assert!(
            lab.backend.presses().is_empty(),
            "{:?}",
            lab.backend.presses()
        );
        let state = if before_any_input {
            assert!(lab.usable(&state), "a refused call used up its state");
            state
        } else {
            lab.state().await.0
        };
        let done = lab.act(&state, build(&outline), true).await;
        assert!(done.is_ok(), "{done:?}");
        assert!(
            lab.backend.presses().iter().any(|p| p.contains(pressed)),
            "{:?}",
            lab.backend.presses()
        );
    });
}

#[test]
fn regression_yes_under_delete_the_file_answers_a_delete() {
    refused_unless_confirmed(
        ZENITY,
        |o| vec![on("click", &Lab::id(o, "_Yes"))],
        "Yes",
        "answers_dialog",
    );
    refused_unless_confirmed(ZENITY, |_| vec![key("Return")], "Yes", "answers_dialog");
    refused_unless_confirmed(ZENITY, |_| vec![at(320, 115)], "Yes", "answers_dialog");
    refused_unless_confirmed(ZENITY, |_| vec![key("alt+y")], "Yes", "answers_dialog");
}

#[test]
fn the_no_of_a_delete_question_passes() {
    let lab = lab(ZENITY);
    block_on(async {
        let (state, outline) = lab.state().await;
        let done = lab
            .act(&state, vec![on("click", &Lab::id(&outline, "_No"))], false)
            .await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses(), vec!["_No".to_owned()]);
    });
}

#[test]
fn regression_return_on_a_check_box_presses_the_default_delete() {
    refused_unless_confirmed(
        QT_CONFIRM,
        |_| vec![key("Return")],
        "Delete",
        "blocked_word",
    );
    refused_then_confirmed(
        QT_CONFIRM,
        |o| vec![on("focus", &Lab::id(o, "Do not ask again")), key("Return")],
        "Delete",
        "blocked_word",
        false,
    );
    refused_unless_confirmed(
        QT_CONFIRM,
        |_| vec![step(json!({ "type": "type", "text": "\n" }))],
        "Delete",
        "blocked_word",
    );
}

#[test]
fn regression_an_icon_button_nothing_names_is_unknown() {
    // The scripted backend records a press by the name the control shows: none.
    refused_unless_confirmed(ICONS, |_| vec![at(25, 20)], "", "unknown_receiver");
}

#[test]
fn regression_an_element_with_the_role_menu_that_acts_is_judged() {
    refused_unless_confirmed(ICONS, |_| vec![at(20, 65)], "Pay now", "blocked_word");
    refused_unless_confirmed(
        ICONS,
        |o| vec![on("click", &Lab::id(o, "Pay now"))],
        "Pay now",
        "blocked_word",
    );
}

#[test]
fn regression_a_tooltip_that_mentions_format_blocks_nothing() {
    let lab = lab(ICONS);
    block_on(async {
        for name in ["Replace All", "Find Next"] {
            let (state, outline) = lab.state().await;
            let done = lab
                .act(&state, vec![on("click", &Lab::id(&outline, name))], false)
                .await;
            assert!(done.is_ok(), "{name}: {done:?}");
        }
        assert_eq!(
            lab.backend.presses(),
            vec!["Replace All".to_owned(), "Find Next".to_owned()]
        );
        let done = lab
            .service
            .click(&ClickRequest {
                app: "Files".into(),
                target: Some("Replace All".into()),
                ..ClickRequest::default()
            })
            .await;
        assert!(done.is_ok(), "click by label: {done:?}");
    });
}

#[test]
fn regression_click_yes_by_label_answers_the_question() {
    let lab = lab(&ZENITY.replace('_', ""));
    block_on(async {
        let request = |confirm| ClickRequest {
            app: "Question".into(),
            target: Some("Yes".into()),
            confirm_dangerous: confirm,
            ..ClickRequest::default()
        };
        let e = lab.service.click(&request(false)).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.presses().is_empty());
        let done = lab.service.click(&request(true)).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses(), vec!["Yes".to_owned()]);
    });
}

/// Issue 39: in a large Qt window the focus search stopped at its budget and answered "nothing
/// focused"; a space then pressed a focused "Delete". A focus that cannot be read is unknown.
#[test]
fn regression_a_focus_search_cut_short_is_unknown_not_nothing() {
    let lab = lab(QT_CONFIRM);
    block_on(async {
        let (state, _) = lab.state().await;
        lab.backend
            .fail_next(cu_backend_scripted::Call::Focused, ErrorCode::Timeout);
        let e = lab.act(&state, vec![key("space")], false).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(
            lab.backend.presses().is_empty(),
            "{:?}",
            lab.backend.presses()
        );
        assert!(lab.usable(&state));
    });
}

/// A sheet whose first cell has focus, and a form whose field has focus: both take typed text.
const SHEET: &str = r#"app: sheet
title: Sheet
---
window "Sheet" @0,0 400x200
  table "Sheet1" @0,0 400x200
    cell "A1" @0,0 100x20 [editable, focused, focusable]
    cell "B1" @100,0 100x20 [editable, focusable]
"#;

const FORM: &str = r#"app: form
title: Form
---
window "Form" @0,0 400x200
  text_input "Name" @0,0 200x20 [editable, focused, focusable]
  text_input "Qty" @0,30 200x20 [editable, focusable]
"#;

/// Issue 40: typing a table into Calc read focus again before every Tab and Return, waiting
/// 25-40 ms each time for the app to handle the letters before it; an editable cell keeps
/// what is typed after its letters (its editor commits and moves as the cell does), so the Tab
/// after them is judged by the cell. A field still has focus read again before its Tab.
#[test]
fn regression_typing_into_a_sheet_read_focus_again_before_every_tab() {
    fn reads_to_type(fixture: &str) -> usize {
        let lab = lab(fixture);
        block_on(async {
            let (state, _) = lab.observe(None).await;
            let before = lab.backend.focus_reads();
            let done = lab
                .act(
                    &state,
                    vec![step(json!({ "type": "type", "text": "Ax\t" }))],
                    false,
                )
                .await;
            assert!(done.is_ok(), "{done:?}");
            lab.backend.focus_reads() - before
        })
    }
    let (sheet, form) = (reads_to_type(SHEET), reads_to_type(FORM));
    assert_eq!(sheet + 1, form, "sheet {sheet} reads, form {form}");
}

#[test]
fn regression_a_check_box_naming_send_was_refused_as_send() {
    let lab = lab(NEWSLETTER);
    block_on(async {
        let (state, outline) = lab.state().await;
        let steps = vec![
            on("click", &Lab::id(&outline, "Send me the newsletter")),
            at(20, 60),
            on("focus", &Lab::id(&outline, "Send me the newsletter")),
            key("space"),
        ];
        let done = lab.act(&state, steps, false).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(
            lab.backend.presses(),
            vec![
                "Send me the newsletter".to_owned(),
                "Delete my card after this order".to_owned(),
                "Send me the newsletter".to_owned(),
            ]
        );
        // By label too, the first step of a click.
        let click = |labels: &[&str]| ClickRequest {
            app: "Checkout".into(),
            target: (labels.len() == 1).then(|| labels[0].to_owned()),
            steps: (labels.len() > 1).then(|| labels.iter().map(|l| (*l).to_owned()).collect()),
            ..ClickRequest::default()
        };
        let done = lab.service.click(&click(&["Send me the newsletter"])).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses().len(), 4);
        // A later step of a sequence is refused before anything is done, knowing only its label.
        let e = lab
            .service
            .click(&click(&["Send me the newsletter", "Send order"]))
            .await
            .err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert_eq!(lab.backend.presses().len(), 4);
    });
    // A check box that spends money still asks (a page decides its own roles).
    refused_unless_confirmed(
        &NEWSLETTER.replace("Send me the newsletter", "Pay now with my card"),
        |o| vec![on("click", &Lab::id(o, "Pay now with my card"))],
        "Pay now",
        "blocked_word",
    );
    // The button beside them still sends.
    refused_unless_confirmed(
        NEWSLETTER,
        |o| vec![on("click", &Lab::id(o, "Send order"))],
        "Send order",
        "blocked_word",
    );
}

/// A web page's table with an editable cell, and a button after it. A Tab typed after text in
/// a spreadsheet's cell keeps the keys in the sheet (its focus is carried, not read); a web
/// page's cell is not a sheet's: the Tab leaves it for the page's next control, and the Return
/// after it must be judged there, on "Delete row".
const WEB_TABLE: &str = r#"app: browser
title: Orders - Browser
---
document "Orders" @0,0 500x300
  table "Orders" @0,0 500x100
    cell "Note" @0,0 200x20 [editable, focused, focusable]
  button "Delete row" @10,120 120x30 [focusable]
"#;

#[test]
fn regression_a_web_tables_cell_does_not_carry_focus_through_a_tab() {
    let lab = lab(WEB_TABLE);
    block_on(async {
        let (state, _) = lab.state().await;
        let typed = vec![step(json!({ "type": "type", "text": "ok\t\n" }))];
        let e = lab.act(&state, typed, false).await.err();
        let e = e.unwrap_or_else(|| panic!("passed: {:?}", lab.backend.presses()));
        assert_eq!(e.code, ErrorCode::DangerousActionNeedsConfirmation, "{e:?}");
        let details = e.details.clone().unwrap_or_default();
        assert_eq!(details["would_activate"]["name"], "Delete row", "{details}");
        assert!(
            lab.backend.presses().is_empty(),
            "{:?}",
            lab.backend.presses()
        );
    });
}
