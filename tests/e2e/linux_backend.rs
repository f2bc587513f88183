//! The Linux backend against real GTK3, GTK4, Qt, Firefox and Chromium windows.

use std::process::Command;
use std::time::{Duration, Instant};

use cu_core::model::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::model::element::{SnapshotOptions, State, TruncationReason};
use cu_core::model::geometry::Rect;
use cu_core::model::role::Role;
use cu_core::ErrorCode;

use crate::harness::{desktop, eventually, find, shows, try_find, Desktop};

const EFFECT: Duration = Duration::from_secs(5);

/// The window rectangle as `xwininfo` (not our code) reports it.
fn xwininfo_bounds(id: &str) -> Rect {
    let xid = id.trim_start_matches("x11:");
    let out = Command::new("xwininfo")
        .args(["-id", xid])
        .output()
        .expect("xwininfo");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |label: &str| -> i32 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {label} in xwininfo output {text}"))
    };
    Rect::new(
        field("Absolute upper-left X:"),
        field("Absolute upper-left Y:"),
        field("Width:"),
        field("Height:"),
    )
}

async fn click_center(d: &Desktop, window: &cu_core::model::window::WindowId, bounds: Rect) {
    d.backend
        .input(
            window,
            &InputEvent::Click {
                at: bounds.center(),
                button: MouseButton::Left,
                count: 1,
            },
        )
        .await
        .expect("click");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_are_listed_with_their_real_geometry() {
    let Some(d) = desktop("windows_are_listed_with_their_real_geometry") else {
        return;
    };
    let qt = d.launch("qt6");
    let calc = d.launch("calc");
    for app in [&qt, &calc] {
        let w = d.window_of(app).await;
        assert_eq!(
            w.bounds,
            Some(xwininfo_bounds(w.id.as_str())),
            "{} bounds",
            app.kind
        );
        assert!(!w.title.is_empty(), "{} has a title", app.kind);
        assert!(
            w.app.contains("qt6") || w.app.contains("calculator"),
            "app name {:?}",
            w.app
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calculator_computes_7x6_through_semantic_actions() {
    let Some(d) = desktop("calculator_computes_7x6_through_semantic_actions") else {
        return;
    };
    let calc = d.launch("calc");
    let w = d.window_of(&calc).await;
    let snap = d.snapshot(&w.id).await;
    for label in ["7", "×", "6", "="] {
        // GTK4 names buttons "7 7"; the backend collapses that to "7".
        let button = find(&snap, Role::Button, label);
        d.backend
            .perform(&w.id, &button.identity, &SemanticAction::Invoke)
            .await
            .unwrap_or_else(|e| panic!("press {label}: {e}"));
    }
    d.eventually_shows(&w.id, "42").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calculator_computes_7x6_through_xtest_clicks_at_element_centres() {
    let Some(d) = desktop("calculator_computes_7x6_through_xtest_clicks_at_element_centres") else {
        return;
    };
    let calc = d.launch("calc");
    let w = d.window_of(&calc).await;
    let snap = d.snapshot(&w.id).await;
    // Each click is seen on the display before the next: a calculator still starting up on a
    // busy machine lost a click sent hard on the heels of another (a cold CI run).
    for (label, display) in [("7", "7"), ("×", "7×"), ("6", "7×6"), ("=", "42")] {
        let bounds = find(&snap, Role::Button, label)
            .bounds
            .unwrap_or_else(|| panic!("{label} has no bounds"));
        click_center(&d, &w.id, bounds).await;
        d.eventually_shows(&w.id, display).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qt_button_bounds_are_proven_by_a_click_at_their_centre() {
    let Some(d) = desktop("qt_button_bounds_are_proven_by_a_click_at_their_centre") else {
        return;
    };
    let qt = d.launch("qt5");
    let w = d.window_of(&qt).await;
    let snap = d.snapshot(&w.id).await;
    let delete = find(&snap, Role::Button, "Delete");
    click_center(
        &d,
        &w.id,
        delete.bounds.unwrap_or_else(|| panic!("no bounds")),
    )
    .await;
    d.eventually_shows(&w.id, "clicks: 1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gtk3_check_box_toggles_when_clicked_at_its_centre() {
    let Some(d) = desktop("gtk3_check_box_toggles_when_clicked_at_its_centre") else {
        return;
    };
    let gtk3 = d.launch("gtk3");
    let w = d.window_of(&gtk3).await;
    let snap = d.snapshot(&w.id).await;
    let check = snap
        .nodes
        .iter()
        .find(|n| {
            n.role == Role::CheckBox && n.bounds.is_some() && !n.states.contains(State::Disabled)
        })
        .unwrap_or_else(|| panic!("no enabled check box with bounds"));
    let was = check.states.contains(State::Checked);
    click_center(
        &d,
        &w.id,
        check.bounds.unwrap_or_else(|| panic!("no bounds")),
    )
    .await;
    let identity = check.identity.clone();
    eventually("the check box to toggle", EFFECT, || async {
        let s = d
            .backend
            .snapshot(&w.id, &SnapshotOptions::default())
            .await
            .ok()?;
        let now = s.nodes.iter().find(|n| n.identity == identity)?;
        (now.states.contains(State::Checked) != was).then_some(())
    })
    .await;
}

async fn browser_page(d: &Desktop, kind: &str) {
    // The tree can exist before the page is laid out: wait for the button's bounds too.
    let browser = d.launch(kind);
    let w = d.window_of(&browser).await;
    let snap = eventually(
        "the fixture page in the tree",
        Duration::from_secs(15),
        || async {
            let s = d
                .backend
                .snapshot(&w.id, &SnapshotOptions::default())
                .await
                .ok()?;
            try_find(&s, Role::Button, "Delete")?.bounds?;
            Some(s)
        },
    )
    .await;
    // A click at the button's centre proves the bounds.
    let delete = find(&snap, Role::Button, "Delete");
    click_center(
        d,
        &w.id,
        delete.bounds.unwrap_or_else(|| panic!("no bounds")),
    )
    .await;
    d.eventually_shows(&w.id, "deleted 1").await;
    // The semantic press works too.
    d.backend
        .perform(&w.id, &delete.identity, &SemanticAction::Invoke)
        .await
        .expect("press");
    d.eventually_shows(&w.id, "deleted 2").await;
    // Text: EditableText where it works; otherwise the backend says so, and focus + typing does it.
    let entry = find(&snap, Role::TextInput, "Name").identity.clone();
    let text = "hello from mcp-computer-use";
    match d
        .backend
        .perform(
            &w.id,
            &entry,
            &SemanticAction::SetText { text: text.into() },
        )
        .await
    {
        Ok(()) => {}
        Err(e) => {
            assert!(
                matches!(
                    e.code,
                    ErrorCode::NotEditable | ErrorCode::ActionNotSupported
                ),
                "{kind}: unexpected set_text error {e}"
            );
            d.backend
                .perform(&w.id, &entry, &SemanticAction::Focus)
                .await
                .expect("focus");
            d.backend
                .input(&w.id, &InputEvent::Text { text: text.into() })
                .await
                .expect("type");
        }
    }
    eventually(
        &format!("{kind}: the typed text read back"),
        EFFECT,
        || async {
            let s = d
                .backend
                .snapshot(&w.id, &SnapshotOptions::default())
                .await
                .ok()?;
            let node = s.nodes.iter().find(|n| n.identity == entry)?;
            (node.value.as_deref() == Some(text)).then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_page_is_clicked_pressed_and_typed_into() {
    let Some(d) = desktop("firefox_page_is_clicked_pressed_and_typed_into") else {
        return;
    };
    browser_page(&d, "firefox").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_page_is_clicked_pressed_and_typed_into() {
    let Some(d) = desktop("chromium_page_is_clicked_pressed_and_typed_into") else {
        return;
    };
    browser_page(&d, "chromium").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editable_text_is_set_and_read_back_including_hebrew() {
    let Some(d) = desktop("editable_text_is_set_and_read_back_including_hebrew") else {
        return;
    };
    let qt = d.launch("qt6");
    let gtk3 = d.launch("gtk3");
    for app in [&qt, &gtk3] {
        let w = d.window_of(app).await;
        let snap = d.snapshot(&w.id).await;
        let entry = snap
            .nodes
            .iter()
            .find(|n| {
                n.role == Role::TextInput
                    && !n.states.contains(State::Disabled)
                    && n.bounds.is_some()
            })
            .unwrap_or_else(|| panic!("{}: no enabled text input", app.kind));
        let text = "שלום hello 42";
        d.backend
            .perform(
                &w.id,
                &entry.identity,
                &SemanticAction::SetText { text: text.into() },
            )
            .await
            .unwrap_or_else(|e| panic!("{}: set_text: {e}", app.kind));
        let id = entry.identity.clone();
        eventually(&format!("{}: text read back", app.kind), EFFECT, || async {
            let s = d
                .backend
                .snapshot(&w.id, &SnapshotOptions::default())
                .await
                .ok()?;
            (s.nodes.iter().find(|n| n.identity == id)?.value.as_deref() == Some(text))
                .then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_non_ascii_text_with_xtest_reaches_the_field() {
    let Some(d) = desktop("typing_non_ascii_text_with_xtest_reaches_the_field") else {
        return;
    };
    let qt = d.launch("qt6");
    let w = d.window_of(&qt).await;
    let snap = d.snapshot(&w.id).await;
    let entry = find(&snap, Role::TextInput, "Name entry").identity.clone();
    d.backend
        .perform(&w.id, &entry, &SemanticAction::Focus)
        .await
        .expect("focus");
    let text = "Hi שלום é";
    d.backend
        .input(&w.id, &InputEvent::Text { text: text.into() })
        .await
        .expect("type");
    eventually("typed text read back", EFFECT, || async {
        let s = d
            .backend
            .snapshot(&w.id, &SnapshotOptions::default())
            .await
            .ok()?;
        (s.nodes
            .iter()
            .find(|n| n.identity == entry)?
            .value
            .as_deref()
            == Some(text))
        .then_some(())
    })
    .await;
    d.backend
        .input(
            &w.id,
            &InputEvent::Key {
                combo: "ctrl+a".parse().unwrap(),
            },
        )
        .await
        .expect("ctrl+a");
    d.backend
        .input(
            &w.id,
            &InputEvent::Key {
                combo: "BackSpace".parse().unwrap(),
            },
        )
        .await
        .expect("key");
    eventually("the field emptied by ctrl+a, BackSpace", EFFECT, || async {
        let s = d
            .backend
            .snapshot(&w.id, &SnapshotOptions::default())
            .await
            .ok()?;
        s.nodes
            .iter()
            .find(|n| n.identity == entry)?
            .value
            .is_none()
            .then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_has_the_window_size_and_is_not_blank() {
    let Some(d) = desktop("capture_has_the_window_size_and_is_not_blank") else {
        return;
    };
    let calc = d.launch("calc");
    let w = d.window_of(&calc).await;
    d.backend.activate(&w.id).await.expect("activate");
    let image = d.backend.capture(&w.id).await.expect("capture");
    let bounds = w.bounds.unwrap_or_else(|| panic!("no bounds"));
    assert_eq!(
        (image.width as i32, image.height as i32),
        (bounds.width, bounds.height)
    );
    assert!(!image.is_uniform(), "the capture is blank");
    assert_eq!(image.rgba.len(), (image.width * image.height * 4) as usize);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_window_and_killed_app_give_window_not_found() {
    let Some(d) = desktop("closed_window_and_killed_app_give_window_not_found") else {
        return;
    };
    let zenity = d.launch("zenity");
    let w = d.window_of(&zenity).await;
    let snap = d.snapshot(&w.id).await;
    let cancel = find(&snap, Role::Button, "Cancel");
    d.backend
        .perform(&w.id, &cancel.identity, &SemanticAction::Invoke)
        .await
        .expect("cancel");
    let code = d
        .first_error(&w.id, "the closed dialog to be reported gone")
        .await;
    assert_eq!(code, ErrorCode::WindowNotFound);

    let qt = d.launch("qt6");
    let w = d.window_of(&qt).await;
    qt.kill();
    let started = Instant::now();
    let code = d
        .first_error(&w.id, "the killed app's window to be reported gone")
        .await;
    assert_eq!(code, ErrorCode::WindowNotFound);
    assert!(started.elapsed() < EFFECT);
    let err = d
        .backend
        .input(
            &w.id,
            &InputEvent::Click {
                at: cu_core::model::geometry::Point::new(5, 5),
                button: MouseButton::Left,
                count: 1,
            },
        )
        .await
        .err()
        .map(|e| e.code);
    assert_eq!(
        err,
        Some(ErrorCode::WindowNotFound),
        "no input is sent to a window that is gone"
    );

    // A GTK 3 app is read over its direct socket: its death must read the same way.
    let gtk3 = d.launch("gtk3");
    let w = d.window_of(&gtk3).await;
    d.snapshot(&w.id).await;
    gtk3.kill();
    let code = d
        .first_error(&w.id, "the killed GTK 3 app's window to be reported gone")
        .await;
    assert_eq!(code, ErrorCode::WindowNotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn points_outside_the_window_are_refused() {
    let Some(d) = desktop("points_outside_the_window_are_refused") else {
        return;
    };
    let qt = d.launch("qt6");
    let w = d.window_of(&qt).await;
    let b = w.bounds.unwrap_or_else(|| panic!("no bounds"));
    for at in [
        cu_core::model::geometry::Point::new(-1, 5),
        cu_core::model::geometry::Point::new(b.width, 5),
        cu_core::model::geometry::Point::new(5, b.height + 40),
    ] {
        let err = d
            .backend
            .input(
                &w.id,
                &InputEvent::Click {
                    at,
                    button: MouseButton::Left,
                    count: 1,
                },
            )
            .await
            .err()
            .map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::OutOfWindow), "{at:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_list_is_cut_within_budget_and_the_app_still_answers() {
    let Some(d) = desktop("huge_list_is_cut_within_budget_and_the_app_still_answers") else {
        return;
    };
    let big = d.launch("biglist");
    let w = d.window_of(&big).await;
    let options = SnapshotOptions {
        time_budget_ms: 3000,
        ..SnapshotOptions::default()
    };
    let started = Instant::now();
    let snap = d.backend.snapshot(&w.id, &options).await.expect("snapshot");
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(4500),
        "the snapshot took {took:?} for a 3 s budget"
    );
    let cut = snap
        .truncated
        .as_ref()
        .unwrap_or_else(|| panic!("a 5000-row list must be labelled partial"));
    assert!(
        matches!(
            cut.reason,
            TruncationReason::NodeLimit | TruncationReason::TimeBudget
        ),
        "{cut:?}"
    );
    assert!(cut.omitted >= 1000, "omitted {}", cut.omitted);
    assert!(snap.nodes.len() < 5000);
    let ping = find(&snap, Role::Button, "Ping");
    d.backend
        .perform(&w.id, &ping.identity, &SemanticAction::Invoke)
        .await
        .expect("ping");
    eventually("the big-list app to answer the ping", EFFECT, || async {
        let s = d
            .backend
            .snapshot(
                &w.id,
                &SnapshotOptions {
                    max_depth: Some(2),
                    ..SnapshotOptions::default()
                },
            )
            .await
            .ok()?;
        shows(&s, "alive 1").then_some(())
    })
    .await;
}

fn xdotool(args: &[&str]) {
    let status = Command::new("xdotool")
        .args(args)
        .status()
        .expect("xdotool");
    assert!(status.success(), "xdotool {args:?} failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_refuses_covered_and_minimized_windows() {
    let Some(d) = desktop("capture_refuses_covered_and_minimized_windows") else {
        return;
    };
    let below = d.launch("qt6");
    let above = d.launch("qt5");
    let wb = d.window_of(&below).await;
    let wa = d.window_of(&above).await;
    let (xb, xa) = (
        wb.id.as_str().trim_start_matches("x11:").to_owned(),
        wa.id.as_str().trim_start_matches("x11:").to_owned(),
    );
    // Put the Qt5 window exactly over the Qt6 one and on top.
    xdotool(&["windowmove", "--sync", &xb, "300", "300"]);
    xdotool(&["windowmove", "--sync", &xa, "300", "300"]);
    d.backend.activate(&wa.id).await.expect("activate");
    let err = d.backend.capture(&wb.id).await.err().map(|e| e.code);
    assert_eq!(
        err,
        Some(ErrorCode::ImageWindowObscured),
        "a covered window must not yield another window's pixels"
    );
    // Raised, it captures.
    d.backend.activate(&wb.id).await.expect("activate");
    let image = d
        .backend
        .capture(&wb.id)
        .await
        .expect("capture after raising");
    assert!(!image.is_uniform());
    // Minimized, it is refused with its own code.
    xdotool(&["windowminimize", "--sync", &xb]);
    let err = eventually("the minimized window to be refused", EFFECT, || async {
        d.backend
            .capture(&wb.id)
            .await
            .err()
            .map(|e| e.code)
            .filter(|c| *c == ErrorCode::ImageWindowMinimized)
    })
    .await;
    assert_eq!(err, ErrorCode::ImageWindowMinimized);
}

/// Drains a watch until it stays quiet for `quiet`; panics if the app never goes quiet.
async fn settle(watch: &mut Box<dyn cu_core::model::backend::Watch>, quiet: Duration) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while watch.changed(quiet).await {
        assert!(Instant::now() < deadline, "the app never went quiet");
    }
}

/// Regression: the first watch filtered signals by the path /org/a11y/atspi, and GTK 4 (this
/// calculator) sends its events from the app's own paths, so a wait on a GTK 4 window never woke.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_keeps_the_event_of_a_change_made_before_it_is_asked() {
    let Some(d) = desktop("a_watch_keeps_the_event_of_a_change_made_before_it_is_asked") else {
        return;
    };
    let calc = d.launch("calc");
    let w = d.window_of(&calc).await;
    let snap = d.snapshot(&w.id).await;
    let mut watch = d.backend.watch(&w.id).await.expect("AT-SPI events");
    settle(&mut watch, Duration::from_millis(300)).await;
    // Nothing happens while idle...
    assert!(!watch.changed(Duration::from_millis(200)).await);
    // ...and presses made before the watch is asked are still reported (queued, not missed).
    // "76" is on the display only once both took effect (no button reads "76").
    for label in ["7", "6"] {
        let button = find(&snap, Role::Button, label);
        d.backend
            .perform(&w.id, &button.identity, &SemanticAction::Invoke)
            .await
            .unwrap_or_else(|e| panic!("press {label}: {e}"));
    }
    d.eventually_shows(&w.id, "76").await;
    let started = Instant::now();
    assert!(watch.changed(EFFECT).await, "no event for the presses");
    let took = started.elapsed();
    assert!(took < Duration::from_millis(50), "not queued: {took:?}");
    settle(&mut watch, Duration::from_millis(300)).await;
}
