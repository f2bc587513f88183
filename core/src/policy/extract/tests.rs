//! Extraction against snapshots recorded from real windows on the test desktop
//! (`tests/fixtures/extract/`), and the rules on made-up text.

use super::*;
use crate::model::element::Snapshot;

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
        let e = extract(&fixture(file), true);
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
    let mut chromium = fixture("chromium-page.json");
    chromium.window.title = "Other - Chromium".into();
    assert_eq!(
        extract(&chromium, true).details["tab"],
        "A11y Fixture Page",
        "memory usage tag stripped; shown when it differs from the page title"
    );
    assert!(!extract(&fixture("chromium-page.json"), true)
        .details
        .contains_key("tab"));
}

#[test]
fn a_network_error_page_is_an_error() {
    for file in ["chromium-error.json", "firefox-error.json"] {
        let e = extract(&fixture(file), true);
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
    extract(&s, true)
        .details
        .get("page_title")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

fn outline(path: &str) -> Snapshot {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/extract")
        .join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    outline_fixture::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn detail<'a>(e: &'a Extracted, key: &str) -> &'a serde_json::Value {
    e.details
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {:?}", e.details))
}

#[test]
fn profiles_are_tried_in_order_claude_codex_editor_browser_generic() {
    for (app, title, profile) in [
        ("Claude", "Claude", "claude_code"),
        ("claude-desktop", "x", "claude_code"),
        ("ChatGPT", "ChatGPT", "codex_desktop"),
        ("OpenAI.Codex", "x", "codex_desktop"),
        ("firefox", "Codex docs — Mozilla Firefox", "codex_desktop"),
        ("code", "x", "editor"),
        ("Code.exe", "x", "editor"),
        ("electron", "main.rs - app - Visual Studio Code", "editor"),
        ("electron", "x - Antigravity IDE - y", "editor"),
        ("cursor", "Cursor", "editor"),
        ("chromium", "Docs - Chromium", "browser"),
        ("gnome-calculator", "Calculator", "generic"),
    ] {
        assert_eq!(
            profiles::select(app, title).name,
            profile,
            "{app} / {title}"
        );
    }
}

#[test]
fn claude_working_is_read_from_the_stop_control_not_from_prose() {
    let e = extract(&outline("claude_code/working.outline"), true);
    assert_eq!(e.extractor, "claude_code");
    assert_eq!(
        e.status,
        Status::Working,
        "the prose says finished; Stop wins"
    );
    assert_eq!(detail(&e, "session"), "Fix login flow");
    assert_eq!(detail(&e, "model"), "Claude Opus 4.5");
    assert_eq!(detail(&e, "folder"), "acme-app");
    assert_eq!(detail(&e, "branch"), "fix/login-redirect");
    assert_eq!(detail(&e, "context_used"), "45%");
    assert_eq!(detail(&e, "background_tasks"), 2);
    assert!(!e.details.contains_key("waiting_for_user"));
}

#[test]
fn claude_finished_reads_files_failures_and_next_step() {
    let e = extract(&outline("claude_code/finished.outline"), true);
    assert_eq!(e.status, Status::Finished);
    assert_eq!(
        detail(&e, "files"),
        &serde_json::json!(["src/auth/redirect.rs", "tests/login.rs"])
    );
    assert!(detail(&e, "failures")[0]
        .as_str()
        .is_some_and(|f| f.contains("1 failed")));
    assert_eq!(
        detail(&e, "next_step"),
        "update the expired-token fixture, then rerun the suite."
    );
    assert_eq!(detail(&e, "model"), "Claude Sonnet 4.5");
    assert!(!e.details.contains_key("asks_user"));
    assert!(e
        .last_message
        .as_deref()
        .is_some_and(|m| m.contains("Next steps")));
}

#[test]
fn claude_approval_prompt_sets_waiting_for_user_and_text_only_stays_unknown() {
    let snapshot = outline("claude_code/approval.outline");
    let e = extract(&snapshot, true);
    assert_eq!(e.status, Status::Unknown, "no Stop and no turn controls");
    assert_eq!(detail(&e, "waiting_for_user"), true);
    assert_eq!(
        detail(&e, "waiting_prompt"),
        "Allow Claude to run ./scripts/release.sh --dry-run?"
    );
    assert!(
        !e.details.contains_key("asks_user"),
        "ends with a prompt, not a question"
    );
    // MCP_CU_SNAPSHOT_DETAILS=0: no control inspection, so neither status nor prompt.
    let text_only = extract(&outline("claude_code/working.outline"), false);
    assert_eq!(text_only.status, Status::Unknown);
    assert!(!text_only.details.contains_key("model"));
    assert_eq!(detail(&text_only, "context_used"), "45%");
}

#[test]
fn codex_status_comes_from_controls_only() {
    let working = extract(&outline("codex_desktop/working.outline"), true);
    assert_eq!(working.extractor, "codex_desktop");
    assert_eq!(
        working.status,
        Status::Working,
        "prose says done; Stop wins"
    );
    assert_eq!(detail(&working, "mode"), "Agent");
    let finished = extract(&outline("codex_desktop/finished.outline"), true);
    assert_eq!(finished.status, Status::Finished);
    let waiting = extract(&outline("codex_desktop/approval.outline"), true);
    assert_eq!(waiting.status, Status::Waiting);
    assert_eq!(detail(&waiting, "waiting_prompt"), "Approve command?");
    assert_eq!(detail(&waiting, "waiting_for_user"), true);
    // Prose alone never sets a status.
    let text_only = extract(&outline("codex_desktop/finished.outline"), false);
    assert_eq!(text_only.status, Status::Unknown);
}

#[test]
fn codex_sidebar_lists_only_corroborated_projects_and_chats() {
    let e = extract(&outline("codex_desktop/finished.outline"), true);
    assert_eq!(
        detail(&e, "projects"),
        &serde_json::json!(["acme-app", "infra"])
    );
    assert_eq!(
        detail(&e, "recent_chats"),
        &serde_json::json!(["Add CSV export", "Fix flaky test"])
    );
    assert_eq!(detail(&e, "project"), "acme-app");
    assert_eq!(detail(&e, "session"), "Add CSV export");
    assert_eq!(detail(&e, "needs_attention"), true);
    assert_eq!(
        detail(&e, "next_step"),
        "review the column order with the team."
    );
    assert!(
        !e.details.contains_key("failures"),
        "0 failed is not a failure"
    );
}

#[test]
fn codex_project_from_the_empty_thread_prompt() {
    let e = extract(&outline("codex_desktop/approval.outline"), false);
    assert_eq!(detail(&e, "project"), "acme-app");
}

#[test]
fn editor_trust_prompt_is_waiting_with_file_and_project_from_the_title() {
    let e = extract(&outline("editor/trust.outline"), true);
    assert_eq!(e.extractor, "editor");
    assert_eq!(e.status, Status::Waiting);
    assert_eq!(
        detail(&e, "waiting_prompt"),
        "Do you trust the authors of the files in this folder?"
    );
    assert_eq!(detail(&e, "file"), "main.rs");
    assert_eq!(detail(&e, "project"), "acme-app");
}

#[test]
fn editor_discards_a_terminal_run_superseded_by_a_newer_one() {
    let e = extract(&outline("editor/terminal-superseded.outline"), true);
    assert_eq!(e.status, Status::Unknown, "{:?}", e.details);
    assert!(!e.details.contains_key("failures"), "{:?}", e.details);
    assert_eq!(detail(&e, "file"), "lib.rs", "dirty marker stripped");
}

#[test]
fn editor_failing_last_run_and_problems_make_an_error() {
    let e = extract(&outline("editor/failing.outline"), true);
    assert_eq!(e.status, Status::Error);
    let failures = detail(&e, "failures").to_string();
    assert!(failures.contains("1 failed"), "{failures}");
    assert!(failures.contains("2 errors in Problems"), "{failures}");
    assert_eq!(detail(&e, "project"), "acme-app");
    assert_eq!(
        detail(&e, "file"),
        "handler.ts",
        "from the single active tab"
    );
    assert_eq!(
        detail(&e, "next_step"),
        "fix the input validation in handler.ts"
    );
}

#[test]
fn a_chromium_window_without_its_tree_says_how_to_turn_it_on() {
    let e = extract(&outline("editor/no-tree.outline"), true);
    let hint = e.hint.unwrap_or_default();
    assert!(hint.contains("--force-renderer-accessibility"), "{hint}");
    // A real, full window gets no such hint.
    assert_eq!(extract(&outline("editor/trust.outline"), true).hint, None);
    assert_eq!(extract(&fixture("chromium-page.json"), true).hint, None);
    for fix in [
        renderer::FIX_LINUX,
        renderer::FIX_MACOS,
        renderer::FIX_WINDOWS,
    ] {
        assert!(fix.contains("--force-renderer-accessibility"));
    }
}

/// Issue 39: a window titled with U+212A KELVIN SIGN made look_at_screen panic: offsets found in a
/// lower-cased copy of the title ("k" is one byte, the sign three) sliced the title itself.
#[test]
fn regression_kelvin_sign_in_a_title_does_not_panic() {
    for title in [
        "\u{212A} - cursor",
        "\u{212A}\u{212A} main.rs - proj - Visual Studio Code",
        "\u{212A} page - Mozilla Firefox",
        "İ\u{212A} - Google Chrome",
    ] {
        for app in ["cursor", "code", "firefox", "chromium", "codex", "x"] {
            let text = format!("app: {app}\ntitle: {title}\n---\nwindow \"{title}\"\n  label \"What should we work on in \u{212A}proj?\"\n  label \"\u{212A}errors: 2\"\n");
            let s = crate::policy::extract::outline_fixture::parse(&text)
                .unwrap_or_else(|e| panic!("{e}"));
            let out = crate::policy::extract::extract(&s, true);
            assert!(!out.extractor.is_empty(), "{title}");
        }
    }
}
