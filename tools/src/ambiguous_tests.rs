//! Candidates that read the same are told apart in TARGET_AMBIGUOUS: each says where it is.

use cu_core::model::geometry::Point;
use cu_core::ErrorCode;

use super::test_support::{block_on, Lab};
use super::ClickRequest;

const OFFICE: &str = r#"app: office
title: report - Office
---
window "report - Office" @0,0 600x300
  toolbar "Standard" @0,0 600x30
    button "Help" @10,5 50x20
  toolbar "Sidebar" @0,40 600x30
    button "Help" @10,45 50x20
"#;

#[test]
fn regression_two_help_buttons_that_read_the_same_say_where_they_are() {
    let lab = Lab::with_window(OFFICE, Point::new(0, 0));
    block_on(async {
        let error = lab
            .service
            .click(&ClickRequest {
                app: "Office".into(),
                target: Some("Help".into()),
                ..Default::default()
            })
            .await
            .err()
            .unwrap_or_else(|| panic!("two equal candidates, and one was clicked"));
        assert_eq!(error.code, ErrorCode::TargetAmbiguous, "{error}");
        let details = error.details.unwrap_or_default();
        let places: Vec<&str> = details["candidates"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c["in"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            places,
            vec!["toolbar \"Standard\"", "toolbar \"Sidebar\""],
            "{details}"
        );
    });
}
