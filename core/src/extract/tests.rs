//! Extraction against snapshots recorded from real windows on the test desktop
//! (`tests/fixtures/extract/`), and the rules on made-up text.

use super::*;
use crate::element::Snapshot;

fn fixture(name: &str) -> Snapshot {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/extract")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn browsers_are_selected_by_app_name_or_title_first_match_wins() {
    assert_eq!(profiles::select("Firefox", "x").name, "browser");
    assert_eq!(profiles::select("chromium-browser", "x").name, "browser");
    assert_eq!(
        profiles::select("app", "Docs - Google Chrome").name,
        "browser"
    );
    assert_eq!(
        profiles::select("app", "Docs — Mozilla Firefox").name,
        "browser"
    );
    assert_eq!(
        profiles::select("gnome-calculator", "Calculator").name,
        "generic"
    );
}

#[test]
fn a_normal_page_reads_title_url_tab_and_headings_and_stays_unknown() {
    for (file, url_part) in [
        ("chromium-page.json", "fixture.html"),
        ("firefox-page.json", "fixture.html"),
    ] {
        let e = extract(&fixture(file));
        assert_eq!(e.extractor, "browser", "{file}");
        assert_eq!(e.status, Status::Unknown, "{file}: the conservative rule");
        assert_eq!(e.details["page_title"], "A11y Fixture Page", "{file}");
        assert!(
            e.details["url"]
                .as_str()
                .is_some_and(|u| u.contains(url_part)),
            "{file}: {:?}",
            e.details
        );
        assert_eq!(e.details["headings"][0], "A11y fixture", "{file}");
        assert!(
            !e.text
                .iter()
                .any(|l| l.contains("Bookmark") || l.contains("Address and search bar")),
            "{file}: browser chrome left out"
        );
    }
    let chromium = extract(&fixture("chromium-page.json"));
    assert_eq!(
        chromium.details["tab"], "A11y Fixture Page",
        "memory usage tag stripped"
    );
}

#[test]
fn a_network_error_page_is_an_error() {
    for file in ["chromium-error.json", "firefox-error.json"] {
        let e = extract(&fixture(file));
        assert_eq!(e.status, Status::Error, "{file}: {:?}", e.text);
    }
}

#[test]
fn the_generic_profile_reports_failures_only_from_the_tail() {
    let lines: Vec<String> = [
        "running 3 tests",
        "test a ... ok",
        "error: linking failed",
        "test result: ok. 3 passed; 0 failed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(failures(&lines), vec!["error: linking failed".to_owned()]);
    assert_eq!(
        next_step(&["Done.".into(), "Next steps: run the installer".into()]).as_deref(),
        Some("run the installer")
    );
    assert_eq!(
        next_step(&["השלב הבא:".into(), "להריץ את ההתקנה".into()]).as_deref(),
        Some("להריץ את ההתקנה")
    );
    assert_eq!(next_step(&["nothing".into()]), None);
}

#[test]
fn page_titles_lose_browser_suffixes_and_edge_profiles() {
    assert_eq!(browser_title("Docs - Profile 1 - Microsoft Edge"), "Docs");
    assert_eq!(browser_title("A — Mozilla Firefox"), "A");
    assert_eq!(browser_title("Plain"), "Plain");
}

fn browser_title(t: &str) -> String {
    let mut s = fixture("chromium-page.json");
    s.window.title = t.to_owned();
    extract(&s)
        .details
        .get("page_title")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned()
}
