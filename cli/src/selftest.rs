//! `mcp-computer-use selftest`: first contact on a new OS, through the same service calls the
//! MCP tools make.
//!
//! It opens the platform's own calculator and a text editor, and runs the loop an agent runs:
//! list → observe → act (7 × 6 = by element ids) → observe → verify; a click at an element's
//! point (window-relative coordinates) that must land on it (8 on the display); 7 × 6 = again by
//! label (42 again); a capture whose size
//! must be the window's; a line with non-ASCII text typed into the editor and read back; then
//! it closes what it opened (the editor's "Don't save"), never touching another window. It
//! prints a table a person can read, or with `--json` a report to attach to a bug report.
//!
//! The app tables and the outline reading are pure and tested here; the rest is glue.

use std::time::{Duration, Instant};

use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode};
use serde::Serialize;
use serde_json::json;

/// One program to try, in order, for a role (calculator, editor).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Program {
    pub program: &'static str,
    pub args: &'static [&'static str],
}

/// What this OS offers for the test.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    pub calculators: &'static [Program],
    pub editors: &'static [Program],
    /// The key that quits the focused app politely (used when this run started the app).
    pub quit_keys: &'static str,
    /// The key that closes the focused window only (when the app was already running: the
    /// user's own windows of it stay).
    pub close_keys: &'static str,
}

const fn p(program: &'static str) -> Program {
    Program { program, args: &[] }
}

const WINDOWS: Plan = Plan {
    calculators: &[p("calc.exe")],
    editors: &[p("notepad.exe")],
    quit_keys: "alt+F4",
    close_keys: "alt+F4",
};

const MACOS: Plan = Plan {
    calculators: &[p("/System/Applications/Calculator.app")],
    editors: &[p("/System/Applications/TextEdit.app")],
    quit_keys: "cmd+q",
    close_keys: "cmd+w",
};

/// Linux and the other Unix desktops.
const FREE_DESKTOPS: Plan = Plan {
    calculators: &[p("gnome-calculator"), p("kcalc"), p("galculator")],
    editors: &[
        p("mousepad"),
        p("gnome-text-editor"),
        p("gedit"),
        p("featherpad"),
        p("kate"),
        p("kwrite"),
    ],
    quit_keys: "ctrl+q",
    close_keys: "alt+F4",
};

/// The plan for `os` (`std::env::consts::OS`).
pub(crate) fn plan_for(os: &str) -> Plan {
    match os {
        "windows" => WINDOWS,
        "macos" => MACOS,
        _ => FREE_DESKTOPS,
    }
}

/// The names a key of the calculator goes by on the platforms' calculators.
fn key_names(key: char) -> &'static [&'static str] {
    match key {
        '7' => &["7", "Seven"],
        '6' => &["6", "Six"],
        '8' => &["8", "Eight"],
        '×' => &["×", "*", "Multiply", "Multiply by", "multiply"],
        '=' => &["=", "Equals", "equals", "Equal"],
        _ => &[],
    }
}

/// The buttons of "Don't save" in the platforms' save prompts.
const DONT_SAVE: &[&str] = &[
    "Don't Save",
    "Don’t Save",
    "Don't save",
    "Close without Saving",
    "Close Without Saving",
    "Discard",
    "No",
];

/// The text typed into the editor: Latin with marks, Greek, CJK, an emoji.
pub(crate) const LINE: &str = "Grüße, καλημέρα, 世界 ✓ selftest";

/// One line of the compact outline, as an agent reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line<'a> {
    pub id: &'a str,
    pub role: &'a str,
    pub name: Option<&'a str>,
    pub point: Option<(i32, i32)>,
    pub text: &'a str,
}

/// Reads `e7 button "7" @432,235 …` lines; other lines (notices, headers) are skipped.
pub(crate) fn parse_outline(outline: &str) -> Vec<Line<'_>> {
    outline
        .lines()
        .filter_map(|raw| {
            let text = raw.trim_start();
            let (id, rest) = text.split_once(' ')?;
            if !(id.starts_with('e') && id.len() > 1 && id[1..].bytes().all(|b| b.is_ascii_digit()))
            {
                return None;
            }
            let (role, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let name = rest
                .strip_prefix('"')
                .and_then(|r| r.find('"').map(|end| &r[..end]));
            let point = rest.split(' ').find_map(|word| {
                let (x, y) = word.strip_prefix('@')?.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            });
            Some(Line {
                id,
                role,
                name,
                point,
                text,
            })
        })
        .collect()
}

/// The keys of the calculator check, in the order pressed.
const KEYS: [char; 4] = ['7', '×', '6', '='];

/// The button for a calculator key, by any of its names.
fn button<'a>(lines: &'a [Line<'a>], key: char) -> Option<&'a Line<'a>> {
    let names = key_names(key);
    lines.iter().find(|l| {
        l.role.contains("button") && l.name.is_some_and(|n| names.iter().any(|k| n.trim() == *k))
    })
}

/// A line that is not a button shows `number` as a whole token ("42", "Display is 42").
pub(crate) fn shows_number(lines: &[Line<'_>], number: &str) -> bool {
    lines
        .iter()
        .filter(|l| !l.role.contains("button"))
        .any(|l| {
            l.text
                .split(|c: char| !c.is_ascii_digit())
                .any(|token| token == number)
        })
}

/// One check of the report.
#[derive(Debug, Serialize)]
pub(crate) struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub ms: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
}

/// The whole report (`--json`).
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub version: &'static str,
    pub os: &'static str,
    pub arch: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    pub ok: bool,
    pub checks: Vec<Check>,
}

impl Report {
    /// The table a person reads.
    pub(crate) fn table(&self) -> String {
        let mut out = format!(
            "mcp-computer-use {} selftest on {} {}{}\n",
            self.version,
            self.os,
            self.arch,
            self.backend
                .as_ref()
                .and_then(|b| b.get("name"))
                .and_then(|n| n.as_str())
                .map(|n| format!(", backend {n}"))
                .unwrap_or_default()
        );
        for c in &self.checks {
            let what = match (&c.error, c.detail.is_empty()) {
                (Some(e), _) => format!(
                    "{} {}",
                    e.get("code").and_then(|v| v.as_str()).unwrap_or(""),
                    e.get("message").and_then(|v| v.as_str()).unwrap_or("")
                ),
                (None, false) => c.detail.clone(),
                (None, true) => String::new(),
            };
            out.push_str(&format!(
                "{:<42} {:<4} {:>6} ms  {}\n",
                c.name,
                if c.ok { "pass" } else { "FAIL" },
                c.ms,
                what
            ));
        }
        out.push_str(if self.ok {
            "all checks passed\n"
        } else {
            "some checks failed: run again with --json and attach the report to a bug report\n"
        });
        out
    }
}

/// Runs every check; the report says what passed.
pub(crate) async fn run(service: &cu_tools::Service) -> Report {
    let plan = plan_for(std::env::consts::OS);
    let mut run = Run {
        service,
        checks: Vec::new(),
        opened: Vec::new(),
        before: Vec::new(),
    };
    let mut report = Report {
        version: env!("CARGO_PKG_VERSION"),
        os: std::env::consts::OS,
        arch: std::env::consts::ARCH,
        backend: None,
        scale: None,
        ok: false,
        checks: Vec::new(),
    };
    if let Some((backend, before)) = run
        .check("list windows", async {
            let listed = service.gui_list().await?;
            let before: Vec<(String, Option<u32>)> = listed
                .windows
                .iter()
                .map(|w| (w.id.as_str().to_owned(), w.pid))
                .collect();
            Ok((
                format!("{} windows", listed.windows.len()),
                (serde_json::to_value(&listed.backend).ok(), before),
            ))
        })
        .await
    {
        report.backend = backend;
        run.before = before;
    }
    if let Some(calc) = run.open("open the calculator", plan.calculators).await {
        report.scale = run.calculator(&calc).await;
        run.quit("close the calculator", &calc, &plan).await;
    }
    if let Some(editor) = run.open("open a text editor", plan.editors).await {
        run.editor(&editor).await;
        run.quit("close the editor (don't save)", &editor, &plan)
            .await;
    }
    run.kill_leftovers().await;
    report.ok = run.checks.iter().all(|c| c.ok);
    report.checks = run.checks;
    report
}

/// A window the selftest opened.
struct Opened {
    window_id: String,
    pid: Option<u32>,
}

struct Run<'a> {
    service: &'a cu_tools::Service,
    checks: Vec<Check>,
    /// Windows this run opened and has not seen closed.
    opened: Vec<(String, Option<u32>)>,
    /// The windows (id, pid) listed before anything was opened: never closed, never ended.
    before: Vec<(String, Option<u32>)>,
}

type Step<T> = Result<(String, T), Error>;

impl Run<'_> {
    /// Runs one check, records it, and gives its value when it passed.
    async fn check<T>(
        &mut self,
        name: &'static str,
        body: impl std::future::Future<Output = Step<T>>,
    ) -> Option<T> {
        let start = Instant::now();
        let result = tokio::time::timeout(Duration::from_secs(60), body).await;
        let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (ok, detail, error, value) = match result {
            Ok(Ok((detail, value))) => (true, detail, None, Some(value)),
            Ok(Err(e)) => (
                false,
                String::new(),
                Some(e.to_json()["error"].clone()),
                None,
            ),
            Err(_) => (false, "no answer within 60 s".to_owned(), None, None),
        };
        self.checks.push(Check {
            name,
            ok,
            ms,
            detail,
            error,
        });
        value
    }

    async fn open(&mut self, name: &'static str, programs: &[Program]) -> Option<Opened> {
        let service = self.service;
        let opened = self
            .check(name, async {
                let mut tried = Vec::new();
                for program in programs {
                    let request = cu_tools::OpenRequest {
                        program: program.program.to_owned(),
                        args: program.args.iter().map(|a| (*a).to_owned()).collect(),
                        timeout: Duration::from_secs(20),
                        verify: true,
                    };
                    match service.open(&request).await {
                        Ok(result) if result.ok => {
                            if let Some(window_id) = result.window_id {
                                return Ok((
                                    format!(
                                        "{} ({})",
                                        program.program,
                                        result.title.unwrap_or_default()
                                    ),
                                    Opened {
                                        window_id: window_id.0,
                                        pid: result.pid,
                                    },
                                ));
                            }
                        }
                        Ok(_) => tried.push(format!("{}: no window", program.program)),
                        Err(e) => tried.push(format!("{}: {}", program.program, e.code.as_str())),
                    }
                }
                Err(Error::new(
                    ErrorCode::AppNotFound,
                    format!("none of these started a window: {}", tried.join("; ")),
                )
                .with_suggestion("Install one of them, or check `mcp-computer-use --health`."))
            })
            .await?;
        self.opened.push((opened.window_id.clone(), opened.pid));
        Some(opened)
    }

    /// The calculator's checks; answers the capture's scale.
    async fn calculator(&mut self, calc: &Opened) -> Option<f64> {
        let service = self.service;
        let window = calc.window_id.clone();
        let labels = self
            .check("7 × 6 = by element ids", async {
                // A window just opened may still be building its keypad: wait for the keys.
                let state = observe_until(service, &window, "the keys 7 × 6 =", |lines| {
                    KEYS.iter().all(|k| button(lines, *k).is_some())
                })
                .await?;
                let lines = parse_outline(&state.outline);
                let mut ids = Vec::new();
                let mut labels = Vec::new();
                for key in KEYS {
                    let line = button(&lines, key).ok_or_else(|| {
                        Error::new(
                            ErrorCode::ElementNotFound,
                            format!("no button for {key} in the calculator's outline"),
                        )
                        .with_details(json!({ "outline": state.outline }))
                    })?;
                    ids.push(json!({ "type": "click", "element_id": line.id }));
                    labels.push(line.name.unwrap_or_default().to_owned());
                }
                let answer = act(service, &window, &state.state_id, json!(ids)).await?;
                let hows: Vec<String> = answer
                    .results
                    .iter()
                    .map(|r| r.how.as_str().to_owned())
                    .collect();
                Ok((format!("{} steps, {}", ids.len(), hows.join(" ")), labels))
            })
            .await;
        self.check("observe: the display shows 42", async {
            observe_until(service, &window, "42 on the display", |l| {
                shows_number(l, "42")
            })
            .await?;
            Ok(("42".to_owned(), ()))
        })
        .await;
        self.check("a click at an element's point lands on it", async {
            let state = service.gui_state(&state_request(&window)).await?;
            let lines = parse_outline(&state.outline);
            let eight = button(&lines, '8').ok_or_else(|| {
                Error::new(ErrorCode::ElementNotFound, "no button 8 in the outline")
            })?;
            let (x, y) = eight.point.ok_or_else(|| {
                Error::new(
                    ErrorCode::ElementNotFound,
                    "button 8 has no point in the outline",
                )
            })?;
            act(
                service,
                &window,
                &state.state_id,
                json!([{ "type": "click", "x": x, "y": y }]),
            )
            .await?;
            observe_until(service, &window, "8 on the display after the click", |l| {
                shows_number(l, "8")
            })
            .await?;
            Ok((format!("clicked @{x},{y}, the display shows 8"), ()))
        })
        .await;
        if let Some(labels) = labels {
            self.check("7 × 6 = by label", async {
                // Clear the 8 first (Escape clears on every platform's calculator), so 42 can
                // only come from these clicks.
                let state = service.gui_state(&state_request(&window)).await?;
                act(
                    service,
                    &window,
                    &state.state_id,
                    json!([{ "type": "key", "keys": "Escape" }]),
                )
                .await?;
                observe_until(service, &window, "the 8 cleared", |l| !shows_number(l, "8")).await?;
                let request = cu_tools::ClickRequest {
                    app: window.clone(),
                    target: None,
                    steps: Some(labels.clone()),
                    confirm_dangerous: false,
                    ..Default::default()
                };
                service.click(&request).await?;
                observe_until(service, &window, "42 by label", |l| shows_number(l, "42")).await?;
                Ok((labels.join(" "), ()))
            })
            .await;
        }
        self.check("capture: the image is the window", async {
            let mut request = state_request(&window);
            request.screenshot = true;
            let state = service.gui_state(&request).await?;
            let info = state.image.ok_or_else(|| {
                Error::new(
                    ErrorCode::ImageCaptureFailed,
                    "gui_state with screenshot gave no image",
                )
            })?;
            let bounds = state.window.bounds;
            if let Some(b) = bounds {
                let logical = (f64::from(info.width) / info.scale.max(0.01)).round();
                if (logical - f64::from(b.width)).abs() > 2.0 {
                    return Err(Error::new(
                        ErrorCode::ImageCaptureFailed,
                        format!(
                            "image {}x{} at scale {} is not the window's {}x{}",
                            info.width, info.height, info.scale, b.width, b.height
                        ),
                    ));
                }
            }
            Ok((
                format!("{}x{} JPEG, scale {}", info.width, info.height, info.scale),
                info.scale,
            ))
        })
        .await
    }

    /// The editor's checks: type a line with non-ASCII text, read it back.
    async fn editor(&mut self, editor: &Opened) {
        let service = self.service;
        let window = editor.window_id.clone();
        self.check("type non-ASCII text, read it back", async {
            let state = service.gui_state(&state_request(&window)).await?;
            let lines = parse_outline(&state.outline);
            let field = lines
                .iter()
                .find(|l| l.role == "document" || l.role.starts_with("text") || l.role == "edit")
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::ElementNotFound,
                        "no text area in the editor's outline",
                    )
                    .with_details(json!({ "outline": state.outline }))
                })?;
            act(
                service,
                &window,
                &state.state_id,
                json!([
                    { "type": "focus", "element_id": field.id },
                    { "type": "type", "text": LINE },
                ]),
            )
            .await?;
            observe_until(service, &window, "the typed line", |l| {
                l.iter().any(|line| line.text.contains(LINE))
            })
            .await?;
            Ok((format!("{} characters", LINE.chars().count()), ()))
        })
        .await;
    }

    /// Quits `app` with its quit key (only its window's close key when the app was already
    /// running) and answers a save prompt with "Don't save".
    async fn quit(&mut self, name: &'static str, app: &Opened, plan: &Plan) {
        let service = self.service;
        let window = app.window_id.clone();
        let pid = app.pid;
        let keys = if self.ran_before(pid) {
            plan.close_keys
        } else {
            plan.quit_keys
        };
        let before = self.before.clone();
        let closed = self
            .check(name, async {
                let state = service.gui_state(&state_request(&window)).await?;
                act(
                    service,
                    &window,
                    &state.state_id,
                    json!([{ "type": "key", "keys": keys }]),
                )
                .await?;
                let deadline = Instant::now() + Duration::from_secs(10);
                let mut answered = false;
                loop {
                    let listed = service.gui_list().await?;
                    let ours: Vec<_> = listed
                        .windows
                        .iter()
                        // Ours: the window, and windows of its process that appeared since
                        // (its save prompt); the user's windows of the same app are not.
                        .filter(|w| {
                            w.id.as_str() == window
                                || (pid.is_some()
                                    && w.pid == pid
                                    && !before.iter().any(|(id, _)| id == w.id.as_str()))
                        })
                        .collect();
                    if ours.is_empty() {
                        return Ok((
                            if answered {
                                "closed, unsaved"
                            } else {
                                "closed"
                            }
                            .to_owned(),
                            (),
                        ));
                    }
                    // A save prompt of our own process: "Don't save" (the text was ours).
                    if !answered {
                        for w in ours.iter().filter(|w| w.id.as_str() != window) {
                            for label in DONT_SAVE {
                                let request = cu_tools::ClickRequest {
                                    app: w.id.as_str().to_owned(),
                                    target: Some((*label).to_owned()),
                                    steps: None,
                                    // Discarding the selftest's own line in its own window.
                                    confirm_dangerous: true,
                                    ..Default::default()
                                };
                                if service.click(&request).await.is_ok() {
                                    answered = true;
                                    break;
                                }
                            }
                        }
                    }
                    if Instant::now() > deadline {
                        return Err(Error::new(
                            ErrorCode::ActionFailed,
                            format!("{keys} did not close the window within 10 s"),
                        ));
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            })
            .await;
        if closed.is_some() {
            self.opened.retain(|(id, _)| id != &window);
        }
    }

    /// Ends the processes of windows this run opened and could not close politely — only a
    /// process that had no window before this run started.
    async fn kill_leftovers(&mut self) {
        for (window, pid) in std::mem::take(&mut self.opened) {
            match pid {
                Some(pid) if !self.ran_before(Some(pid)) => {
                    tracing::warn!(window, pid, "selftest: its window stayed open; ending it");
                    kill(pid);
                }
                _ => tracing::warn!(
                    window,
                    "selftest: its window stayed open; the app was already running, so it stays"
                ),
            }
        }
    }

    /// The process had a window before this run opened anything.
    fn ran_before(&self, pid: Option<u32>) -> bool {
        pid.is_some() && self.before.iter().any(|(_, p)| *p == pid)
    }
}

/// Observes `window` until `done` holds for its outline, within 8 s.
async fn observe_until(
    service: &cu_tools::Service,
    window: &str,
    what: &str,
    done: impl Fn(&[Line<'_>]) -> bool,
) -> Result<cu_tools::StateResult, Error> {
    let deadline = Instant::now() + Duration::from_secs(8);
    loop {
        let state = service.gui_state(&state_request(window)).await?;
        if done(&parse_outline(&state.outline)) {
            return Ok(state);
        }
        if Instant::now() > deadline {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                format!("{what}: not seen within 8 s"),
            )
            .with_details(json!({ "outline": state.outline })));
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

fn state_request(window: &str) -> cu_tools::StateRequest {
    cu_tools::StateRequest {
        window_id: WindowId(window.to_owned()),
        // The self-test clicks at an element's point too.
        points: true,
        ..Default::default()
    }
}

async fn act(
    service: &cu_tools::Service,
    window: &str,
    state_id: &str,
    actions: serde_json::Value,
) -> Result<cu_tools::ActionResult, Error> {
    let actions: Vec<cu_tools::Step> = serde_json::from_value(actions)
        .map_err(|e| Error::new(ErrorCode::Internal, format!("selftest action: {e}")))?;
    service
        .gui_action(&cu_tools::ActionRequest {
            window_id: WindowId(window.to_owned()),
            state_id: state_id.to_owned(),
            actions,
            confirm_dangerous: false,
            ..Default::default()
        })
        .await
}

/// Ends a process this run started (never another).
fn kill(pid: u32) {
    #[cfg(windows)]
    let status = std::process::Command::new("taskkill")
        .args(["/PID", &pid.to_string(), "/T"])
        .status();
    #[cfg(not(windows))]
    let status = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
    if let Err(e) = status {
        tracing::warn!(pid, "selftest: cannot end the process: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_os_has_a_calculator_an_editor_and_a_quit_key() {
        for os in ["linux", "windows", "macos", "freebsd"] {
            let plan = plan_for(os);
            assert!(
                !plan.calculators.is_empty() && !plan.editors.is_empty(),
                "{os}"
            );
            assert!(
                cu_core::model::keys::parse_combo(plan.quit_keys).is_ok(),
                "{os}"
            );
            assert!(
                cu_core::model::keys::parse_combo(plan.close_keys).is_ok(),
                "{os}"
            );
        }
    }

    #[test]
    fn outline_lines_give_id_role_name_and_point() {
        let outline = "window \"Calculator\" 0,0 400x600\n  e7 button \"7\" @41,300\n  e12 label \"Display is 42\"\n  e3 push_button \"Multiply by\" @200,310 focused\n(3 more not shown)";
        let lines = parse_outline(outline);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].id, "e7");
        assert_eq!(lines[0].name, Some("7"));
        assert_eq!(lines[0].point, Some((41, 300)));
        assert_eq!(button(&lines, '×').map(|l| l.id), Some("e3"));
        assert!(shows_number(&lines, "42"));
        assert!(!shows_number(&lines, "7"), "a button is not the display");
        assert!(!shows_number(&lines, "4"), "whole numbers only");
    }
}
