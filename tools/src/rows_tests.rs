//! Reading and finding in a long page as a person does: `query` searches the whole document
//! (below the fold too) and answers a table cell's whole row; `table` reads rows by range; a
//! diff compares like with like (a query's answer against a query's answer). Refused calls
//! leave their state usable.

use cu_backend_scripted::Reaction;
use cu_core::model::geometry::Point;
use cu_core::ErrorCode;

use super::test_support::{block_on, on, Lab};
use super::StateRequest;

const SHOP: &str = r#"app: browser
title: Shop - Browser
---
window "Shop - Browser" @0,0 400x300
  button "Reload" @10,10 90x30
  document "Shop" @0,50 400x250
    label "Status" @10,60 90x20
    heading "Prices" @10,90 200x20
    table @10,120 380x400
      row @10,120 380x20
        column_header "Name" @10,120 190x20
        column_header "Price" @200,120 190x20
      row @10,140 380x20
        cell "Oak chair" @10,140 190x20
        cell "49.90" @200,140 190x20
      row @10,440 380x20
        cell "Pine desk" @10,440 190x20
        cell @200,440 190x20
          button "Add" @210,440 60x20
"#;

fn lab() -> Lab {
    let lab = Lab::with_window(SHOP, Point::new(100, 100));
    lab.backend.on_press(
        "Add",
        Reaction::Rename {
            from: "Status".into(),
            to: "bought".into(),
        },
    );
    lab
}

fn ask(lab: &Lab, req: StateRequest) -> cu_core::Result<super::StateResult> {
    block_on(lab.service.gui_state(&StateRequest {
        window_id: lab.window.clone(),
        ..req
    }))
}

#[test]
fn a_query_finds_a_row_below_the_fold_and_its_button_acts_by_id() {
    let lab = lab();
    let found = ask(
        &lab,
        StateRequest {
            query: Some("pine".into()),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let row = found
        .outline
        .lines()
        .find(|l| l.contains("row 2: Pine desk | "))
        .unwrap_or_else(|| panic!("no row in\n{}", found.outline));
    assert!(row.ends_with("offscreen"), "{row}");
    assert!(
        found
            .outline
            .contains("table \"Prices\", 2 rows: Name | Price"),
        "{}",
        found.outline
    );
    let add = row
        .split(" | ")
        .nth(1)
        .and_then(|cell| cell.split_whitespace().next())
        .unwrap_or_default()
        .to_owned();
    assert!(row.contains(&format!("{add} button \"Add\"")), "{row}");
    let done = block_on(lab.act(&found.state_id, vec![on("click", &add)], false))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(done.results.len(), 1, "{done:?}");
    // Scrolled to the row: the status is above the fold now.
    let (_, after) = block_on(lab.observe_with(StateRequest {
        window_id: lab.window.clone(),
        all: true,
        ..Default::default()
    }));
    assert!(after.contains("\"bought\""), "{after}");
}

#[test]
fn regression_a_diff_against_a_subtree_listed_the_whole_window_as_added() {
    let lab = lab();
    let (whole, outline) = block_on(lab.observe(None));
    let first = ask(
        &lab,
        StateRequest {
            subtree: Some(Lab::id(&outline, "Shop")),
            state_id: Some(whole),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!first.outline.contains("Reload"), "{}", first.outline);
    let since = |req: StateRequest| {
        ask(
            &lab,
            StateRequest {
                since_state_id: Some(first.state_id.clone()),
                ..req
            },
        )
    };
    let same = since(StateRequest::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(same.outline, "(nothing changed)\n");
    let changes = same.changes.unwrap_or_else(|| panic!("no counts"));
    assert_eq!((changes.added, changes.removed), (0, 0));
    assert_eq!(changes.unchanged, first.elements);
    // Another part of the window is no like for like: refused, with what to do.
    let err = since(StateRequest {
        query: Some("status".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
}

#[test]
fn a_table_is_read_by_range_and_bad_reads_leave_the_state_usable() {
    let lab = lab();
    let (state, outline) = block_on(lab.observe_with(StateRequest {
        window_id: lab.window.clone(),
        all: true,
        ..Default::default()
    }));
    let table = outline
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("table"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no table in\n{outline}"))
        .to_owned();
    let read = |rows: Option<&str>, element: &str, state_id: Option<String>| {
        ask(
            &lab,
            StateRequest {
                table: Some(element.into()),
                rows: rows.map(str::to_owned),
                state_id,
                ..Default::default()
            },
        )
    };
    let two = read(Some("2"), &table, Some(state.clone())).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        two.outline.contains(" row 2: Pine desk | "),
        "{}",
        two.outline
    );
    assert!(!two.outline.contains("Oak chair"), "{}", two.outline);
    let first = read(Some("1-1"), &table, Some(state.clone())).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        first
            .outline
            .contains("… rows 2-2 of 2 not shown: rows=\"2-2\""),
        "{}",
        first.outline
    );
    let reload = Lab::id(&outline, "Reload");
    for (rows, element, state_id) in [
        (Some("0-4"), table.as_str(), Some(state.clone())),
        (Some("x"), table.as_str(), Some(state.clone())),
        (None, reload.as_str(), Some(state.clone())),
        (None, table.as_str(), None),
    ] {
        let err = read(rows, element, state_id).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");
        assert!(!err.suggestion.is_empty(), "{err}");
    }
    assert!(lab.usable(&state), "a refused read uses up nothing");
}
