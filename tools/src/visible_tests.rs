//! Elements that are not on screen: listed only with `all` (marked `offscreen`), left out of
//! label matching unless nothing on screen matches (then a page's elements below the fold are
//! looked at); acted on, they are scrolled into view first, and refused with
//! ELEMENT_NOT_VISIBLE, the observation still usable, when they cannot be.

use cu_backend_scripted::Reaction;
use cu_core::model::geometry::Point;
use cu_core::ErrorCode;

use super::test_support::{block_on, on, Lab};
use super::{ActionRequest, ClickRequest, StateRequest};

const PAGE: &str = r#"app: browser
title: Page - Browser
---
window "Page - Browser" @0,0 400x300
  button "Visible" @10,10 90x30
  label "Status" @10,50 90x20
  button "Below the fold" @10,420 90x30
"#;

fn lab() -> Lab {
    let lab = Lab::with_window(PAGE, Point::new(100, 100));
    for button in ["Visible", "Below the fold"] {
        lab.backend.on_press(
            button,
            Reaction::Rename {
                from: "Status".into(),
                to: format!("pressed {button}"),
            },
        );
    }
    lab
}

impl Lab {
    async fn observe_all(&self, all: bool) -> super::StateResult {
        match self
            .service
            .gui_state(&StateRequest {
                window_id: self.window.clone(),
                all,
                ..StateRequest::default()
            })
            .await
        {
            Ok(state) => state,
            Err(e) => panic!("{e}"),
        }
    }
}

fn id_of(outline: &str, name: &str) -> String {
    outline
        .lines()
        .find(|l| l.contains(&format!("\"{name}\"")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{name:?} is not in:\n{outline}"))
        .to_owned()
}

#[test]
fn regression_a_click_by_id_on_a_page_element_out_of_view_clicked_blank_space() {
    let lab = lab();
    block_on(async {
        let default = lab.observe_all(false).await;
        assert!(
            !default.outline.contains("Below the fold"),
            "not on screen, not listed by default:\n{}",
            default.outline
        );
        assert!(default.outline.contains("1 elements not on screen"));

        let all = lab.observe_all(true).await;
        let line = all
            .outline
            .lines()
            .find(|l| l.contains("Below the fold"))
            .unwrap_or_default();
        assert!(line.ends_with("offscreen"), "all=true marks it: {line:?}");
        let hidden = id_of(&all.outline, "Below the fold");
        // A toolkit that cannot scroll to it: refused, nothing pressed, the state still usable.
        lab.backend.fail_next_unsent(
            cu_backend_scripted::Call::Perform,
            ErrorCode::ActionNotSupported,
        );
        let refused = lab
            .service
            .gui_action(&ActionRequest {
                window_id: lab.window.clone(),
                state_id: all.state_id.clone(),
                actions: vec![on("click", &hidden)],
                ..Default::default()
            })
            .await
            .err()
            .unwrap_or_else(|| panic!("a click on {hidden} was not refused"));
        assert_eq!(refused.code, ErrorCode::ElementNotVisible, "{refused}");
        assert!(!refused.retryable);
        assert!(lab.backend.presses().is_empty());

        // Issue 40: a click by id on it scrolls it into view, then presses it there.
        let answer = lab
            .service
            .gui_action(&ActionRequest {
                window_id: lab.window.clone(),
                state_id: all.state_id,
                actions: vec![on("click", &hidden)],
                ..Default::default()
            })
            .await;
        assert!(answer.is_ok(), "{:?}", answer.err());
        assert_eq!(lab.backend.presses(), ["Below the fold"]);
        // The page scrolled: the button is on screen now, the status above the fold.
        let after = lab.observe_all(false).await;
        assert!(
            after.outline.contains("\"Below the fold\""),
            "{}",
            after.outline
        );
        let all = lab.observe_all(true).await;
        assert!(
            all.outline.contains("pressed Below the fold"),
            "{}",
            all.outline
        );
    });
}

#[test]
fn a_label_names_only_what_is_on_screen() {
    let lab = lab();
    block_on(async {
        let answer = lab
            .service
            .click(&ClickRequest {
                app: "Browser".into(),
                target: Some("Below the fold".into()),
                ..Default::default()
            })
            .await;
        let error = answer
            .err()
            .unwrap_or_else(|| panic!("clicked an element out of view"));
        assert_eq!(error.code, ErrorCode::ElementNotFound, "{error}");
        assert!(!lab.observe_all(false).await.outline.contains("pressed"));
    });
}

/// A label that names nothing on screen is looked for below the fold of the document on screen,
/// as a person scrolls to what they read about: a settings page's check box ("Send daily usage
/// ping to Mozilla", Firefox) was ELEMENT_NOT_FOUND by label although `query` listed it.
#[test]
fn regression_a_label_below_the_fold_of_a_page_was_not_found() {
    const SETTINGS: &str = r#"app: browser
title: Settings - Browser
---
window "Settings - Browser" @0,0 400x300
  button "Reload" @10,10 90x30
  document "Settings" @0,50 400x250
    button "Send" @10,60 90x30
    label "Status" @10,100 90x20
    check_box "Send daily usage ping" @10,620 200x20
  menu "Tools" @100,10 60x30 [offscreen]
    menu_item "Send daily usage ping" @100,40 150x30 [offscreen]
"#;
    let lab = Lab::with_window(SETTINGS, Point::new(100, 100));
    lab.backend.on_press(
        "Send daily usage ping",
        Reaction::Rename {
            from: "Status".into(),
            to: "toggled".into(),
        },
    );
    block_on(async {
        let click = |target: &str| ClickRequest {
            app: "Browser".into(),
            target: Some(target.into()),
            ..Default::default()
        };
        // A strong match on screen wins over the page below the fold: "Send" is the button,
        // refused by the gate, nothing scrolled.
        let e = lab.service.click(&click("Send")).await.err();
        assert_eq!(
            e.map(|e| e.code),
            Some(ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(lab.backend.presses().is_empty());
        // Below the fold of the page: scrolled into view and pressed (a closed menu's item of
        // the same name is not a candidate).
        let done = lab.service.click(&click("Send daily usage ping")).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses(), ["Send daily usage ping"]);
        let after = lab.observe_all(false).await;
        assert!(
            after
                .outline
                .contains("check_box \"Send daily usage ping\""),
            "scrolled into view:\n{}",
            after.outline
        );
    });
}

/// A fresh Firefox was silent on the bus for a moment while it built its settings page: the
/// click's read of the window came back as the window alone, its label found nothing there, and
/// the words of "Send daily usage ping to Mozilla" refused it as "Send" (the project's CI). A
/// read before an action asks a silent app again; the option is then found and set.
#[test]
fn regression_a_busy_app_made_an_options_label_refused_by_its_words() {
    const SETTINGS: &str = r#"app: browser
title: Settings - Browser
---
window "Settings - Browser" @0,0 400x300
  document "Settings" @0,50 400x250
    check_box "Send daily usage ping" @10,60 200x20
"#;
    let lab = Lab::with_window(SETTINGS, Point::new(100, 100));
    block_on(async {
        let click = ClickRequest {
            app: "Browser".into(),
            target: Some("Send daily usage ping".into()),
            ..Default::default()
        };
        lab.backend
            .fail_next(cu_backend_scripted::Call::Snapshot, ErrorCode::Timeout);
        let done = lab.service.click(&click).await;
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(lab.backend.presses(), ["Send daily usage ping"]);
    });
}

/// `page` is the showing document alone, numbered by itself; a window without one, or `page`
/// with `subtree`, is refused with a code.
#[test]
fn page_is_the_document_alone_and_refused_where_there_is_none() {
    const BROWSER: &str = r#"app: browser
title: Todo - Browser
---
window "Todo - Browser" @0,0 400x300
  button "Reload" @10,10 90x30
  document "Todo" @0,50 400x250
    button "Add" @10,60 90x30
"#;
    let lab = Lab::with_window(BROWSER, Point::new(100, 100));
    let page = |subtree: Option<String>, state_id: Option<String>| {
        block_on(lab.service.gui_state(&StateRequest {
            window_id: lab.window.clone(),
            page: true,
            subtree,
            state_id,
            ..StateRequest::default()
        }))
    };
    let state = page(None, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        state.outline.contains(" e1 document \"Todo\""),
        "{}",
        state.outline
    );
    assert!(
        state.outline.contains("  e2 button \"Add\""),
        "{}",
        state.outline
    );
    assert!(!state.outline.contains("Reload"), "{}", state.outline);
    let err = page(Some("e2".into()), Some(state.state_id)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);

    let plain = self::lab();
    let err = block_on(plain.service.gui_state(&StateRequest {
        window_id: plain.window.clone(),
        page: true,
        ..StateRequest::default()
    }))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::ElementNotFound);
}

/// An element keeps its id in every kind of observation of its window, not only against a
/// `since_state_id`: Firefox's settings tab was `e27` in a query's answer and `e73` with `all`.
#[test]
fn regression_ids_were_numbered_anew_by_each_kind_of_observation() {
    // The first element lies above the window: `all` lists it first, and so numbered everything
    // after it differently.
    const SCROLLED: &str = r#"app: browser
title: Page - Browser
---
window "Page - Browser" @0,0 400x300
  button "Above the fold" @10,-400 90x30
  button "Visible" @10,10 90x30
  label "Status" @10,50 90x20
  button "Below the fold" @10,420 90x30
"#;
    let lab = Lab::with_window(SCROLLED, Point::new(100, 100));
    block_on(async {
        let lab = &lab;
        let observe = |all: bool, query: Option<&str>| {
            let request = StateRequest {
                window_id: lab.window.clone(),
                all,
                query: query.map(str::to_owned),
                ..StateRequest::default()
            };
            async move { lab.service.gui_state(&request).await }
        };
        let status = observe(false, Some("Status")).await.unwrap();
        let status_id = id_of(&status.outline, "Status");
        let whole = observe(false, None).await.unwrap();
        let visible_id = id_of(&whole.outline, "Visible");
        let all = observe(true, None).await.unwrap();
        assert_eq!(id_of(&all.outline, "Status"), status_id, "{}", all.outline);
        assert_eq!(
            id_of(&all.outline, "Visible"),
            visible_id,
            "{}",
            all.outline
        );
        let below_id = id_of(&all.outline, "Below the fold");
        let again = observe(false, Some("Visible")).await.unwrap();
        assert_eq!(
            id_of(&again.outline, "Visible"),
            visible_id,
            "{}",
            again.outline
        );
        let again = observe(true, Some("Below the fold")).await.unwrap();
        assert_eq!(
            id_of(&again.outline, "Below the fold"),
            below_id,
            "{}",
            again.outline
        );
        // No two elements share an id.
        let ids: Vec<&str> = all
            .outline
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.starts_with('e'))
            .collect();
        let unique: std::collections::HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{}", all.outline);
    });
}

/// A browser stops reporting what another window covers as showing: the observation listed no
/// element and did not say why (nor did `page`'s refusal).
#[test]
fn regression_a_covered_browser_window_read_as_empty_without_a_word() {
    const COVERED: &str = r#"app: browser
title: Todo - Browser
---
window "Todo - Browser" @0,0 400x300
  button "Reload" @10,10 90x30 [offscreen]
  document "Todo" @0,50 400x250 [offscreen]
    button "Add" @10,60 90x30 [offscreen]
"#;
    const ABOVE: &str = r#"app: editor
title: Notes - Editor
---
window "Notes - Editor" @0,0 300x200
  button "Save" @10,10 90x30
"#;
    let lab = Lab::with_window(COVERED, Point::new(100, 100));
    block_on(async {
        let state = lab.observe_all(false).await;
        assert!(!state.outline.contains("covers"), "{}", state.outline);
        lab.backend
            .open(ABOVE, Point::new(150, 150))
            .unwrap_or_else(|e| panic!("{e}"));
        let state = lab.observe_all(false).await;
        assert!(
            state.outline.contains("another window covers this one")
                && state.outline.contains("op=\"focus\""),
            "{}",
            state.outline
        );
        let page = lab
            .service
            .gui_state(&StateRequest {
                window_id: lab.window.clone(),
                page: true,
                ..StateRequest::default()
            })
            .await
            .err()
            .unwrap_or_else(|| panic!("a page with nothing on screen"));
        assert_eq!(page.code, ErrorCode::ElementNotFound);
        assert!(page.suggestion.contains("op=\"focus\""), "{page:?}");
    });
}
