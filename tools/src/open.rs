//! `open`: launch an application and wait for the window the tools will use.
//!
//! Launches a program (or hands a path or URI to the desktop's opener), then polls the window
//! list until a window appears that was not there before, or an existing window comes to the
//! front (a single-instance app that handed the request to its running copy). It then checks the
//! window can be observed and says which `app` to pass to the other tools. It never closes,
//! moves or focuses any window itself.
//!
//! # Platform-specific
//!
//! - **Linux**: programs are started directly, detached in their own process group; paths and
//!   URIs go to `xdg-open`.
//! - **Windows**: paths and URIs (`ms-settings:`, `calculator:`) go to `cmd /C start`; a
//!   packaged (UWP) app's window belongs to `ApplicationFrameHost`, so its `app` is the window
//!   title (localized) and the hint says so, as the predecessor's launcher did.
//! - **macOS**: paths and URIs go to `open`.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cu_core::model::element::SnapshotOptions;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::target;
use crate::service::Service;

/// What to launch.
#[derive(Debug, Clone)]
pub struct OpenRequest {
    /// A program name or path, a document path, or a URI.
    pub program: String,
    /// Arguments for a program.
    pub args: Vec<String>,
    /// How long to wait for the window.
    pub timeout: Duration,
    /// Check the window can be observed.
    pub verify: bool,
}

/// `gui_open`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenToolRequest {
    /// A desktop application's program name ("gnome-calculator"), a document path, or an
    /// http(s)/mailto link. Shells, terminals and interpreters only when apps.allow names them.
    #[schemars(length(min = 1, max = 1000))]
    pub program: String,
    /// Arguments for a program (not for links or documents).
    #[serde(default)]
    #[schemars(length(max = 20), inner(length(max = 1000)))]
    pub args: Vec<String>,
    /// How long to wait for its window, in ms (default 20000, at most 60000).
    #[serde(default)]
    #[schemars(range(min = 1000, max = 60000))]
    pub timeout_ms: Option<u64>,
}

/// The window that came, or why none did. Serialized as the one JSON line `open` prints.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct OpenResult {
    /// A window came.
    pub ok: bool,
    /// What to pass as `app` to the other tools (the title when it names this window alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The window's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_id: Option<WindowId>,
    /// The window's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The process that owns the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// Its process id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Seconds from launch to the window.
    pub seconds: f64,
    /// What to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The window could be observed (`None` with `--no-verify`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Why no window came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
    /// On failure: windows that did appear but were not taken (none usable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_windows_seen: Option<Vec<serde_json::Value>>,
    /// On failure: the window in front.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmost: Option<serde_json::Value>,
}

impl Service {
    /// `gui_open`: the launcher as a tool, for what the configuration permits
    /// ([`cu_core::policy::launch::judge`]), audited. A launch that shows no window answers `ok: false`
    /// with `error`.
    pub async fn gui_open(&self, req: &OpenToolRequest) -> Result<OpenResult> {
        let record = cu_core::store::audit::AuditRecord {
            action: Some("gui_open".into()),
            target: Some(req.program.clone()),
            ..Default::default()
        };
        if let Err(e) = self.open_allowed(req) {
            self.audit(record, super::Outcome::Refused, Some(&e), None);
            return Err(e);
        }
        let opened = self
            .open(&OpenRequest {
                program: req.program.clone(),
                args: req.args.clone(),
                timeout: Duration::from_millis(
                    req.timeout_ms.unwrap_or(20_000).clamp(1000, 60_000),
                ),
                verify: true,
            })
            .await;
        let outcome = match &opened {
            Ok(r) if r.ok => super::Outcome::Acted,
            _ => super::Outcome::Failed,
        };
        self.audit(
            cu_core::store::audit::AuditRecord {
                window: opened
                    .as_ref()
                    .ok()
                    .and_then(|r| r.window_id.as_ref().map(|w| w.0.clone())),
                ..record
            },
            outcome,
            opened.as_ref().err(),
            None,
        );
        opened
    }

    fn open_allowed(&self, req: &OpenToolRequest) -> Result<()> {
        if req.program.trim().is_empty() || req.program.chars().any(char::is_control) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "program is empty or holds control characters",
            ));
        }
        if req.args.len() > 20 || req.args.iter().any(|a| a.len() > 1000 || a.contains('\0')) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "at most 20 arguments of up to 1000 bytes, no NUL",
            ));
        }
        let is_file = std::path::Path::new(&req.program).is_file();
        let apps = installed_apps();
        let launch = cu_core::policy::launch::judge(
            &req.program,
            is_file,
            &self.config.apps_allow,
            &|name| apps.contains(name),
        )?;
        let allowed_by_user = self
            .config
            .apps_allow
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&req.program));
        if let cu_core::policy::launch::Launch::Program(_) = &launch {
            if !allowed_by_user {
                program_of_an_entry(&req.program)?;
                if let Some(bad) = req.args.iter().find(|a| {
                    !cu_core::policy::launch::harmless_argument(a, std::path::Path::new(a).exists())
                }) {
                    return Err(Error::new(
                        ErrorCode::ProgramNotAllowed,
                        format!("the argument {bad:?} is neither an existing document nor an http(s) link: a program gets no options from the tools (they could make it run a command)"),
                    )
                    .with_suggestion("Pass only documents or links, or ask the user to add the program to apps.allow in config.toml (MCP_CU_APPS_ALLOW).")
                    .with_details(json!({ "config_key": "apps.allow", "env": "MCP_CU_APPS_ALLOW" })));
                }
            }
        }
        let handed_on = !matches!(launch, cu_core::policy::launch::Launch::Program(_));
        if handed_on && !req.args.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "args go with a program, not with a link or document",
            ));
        }
        if cfg!(windows) && handed_on && !cu_core::policy::launch::cmd_safe(&req.program) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the link or path holds characters the Windows opener (cmd) would interpret: & | < > ^ % ! \"",
            ));
        }
        Ok(())
    }

    /// Launches `req.program` and waits for its window. Launch failures and timeouts come back
    /// as `ok: false` with `error`; only a missing desktop is an `Err`.
    pub async fn open(&self, req: &OpenRequest) -> Result<OpenResult> {
        let before = self.backend.list_windows().await?;
        let known: HashSet<WindowId> = before.iter().map(|w| w.id.clone()).collect();
        let focused_before = before.iter().find(|w| w.focused).map(|w| w.id.clone());
        let started = Instant::now();
        let mut child = match launch(&req.program, &req.args) {
            Ok(child) => child,
            Err(e) => return Ok(failure(&e, started, Vec::new(), None)),
        };
        let pid = child.id();
        let deadline = started + req.timeout;
        let mut last = before;
        loop {
            let exited = child.try_wait().ok().flatten();
            if let Ok(now) = self.backend.list_windows().await {
                if let Some((window, how)) =
                    arrived(&now, &known, focused_before.as_ref(), pid, exited.is_some())
                {
                    return Ok(self
                        .found(window.clone(), how, &now, started, req.verify)
                        .await);
                }
                last = now;
            }
            if let Some(status) = exited.filter(|s| !s.success()) {
                let e = Error::new(
                    ErrorCode::ActionFailed,
                    format!(
                        "{} exited with {status} before showing a window",
                        req.program
                    ),
                );
                return Ok(failure(&e, started, Vec::new(), frontmost(&last)));
            }
            if Instant::now() >= deadline {
                let e = Error::new(
                    ErrorCode::Timeout,
                    format!("no new window within {:.0} s", req.timeout.as_secs_f64()),
                )
                .with_suggestion("Raise --timeout for slow apps, or check the program shows a window on this desktop.");
                let seen = last
                    .iter()
                    .filter(|w| !known.contains(&w.id))
                    .map(|w| json!({ "app": w.app, "title": w.title, "pid": w.pid }))
                    .collect();
                return Ok(failure(&e, started, seen, frontmost(&last)));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    async fn found(
        &self,
        window: WindowInfo,
        how: Arrival,
        windows: &[WindowInfo],
        started: Instant,
        verify: bool,
    ) -> OpenResult {
        let seconds = round2(started.elapsed().as_secs_f64());
        let verified = if verify {
            let options = SnapshotOptions {
                max_nodes: 200,
                time_budget_ms: 2000,
                ..SnapshotOptions::default()
            };
            Some(
                self.backend
                    .snapshot(&window.id, &options)
                    .await
                    .is_ok_and(|s| s.nodes.len() > 1),
            )
        } else {
            None
        };
        let app = app_name_for(&window, windows);
        let mut hint = format!("Use app {app:?} with click, type_text and the gui tools.");
        if how == Arrival::CameForward {
            hint.push_str(" A single-instance app: its existing window came forward.");
        }
        let process = window
            .pid
            .and_then(process_name)
            .or_else(|| Some(window.app.clone()));
        if process.as_deref().is_some_and(is_uwp_host) {
            hint.push_str(&format!(
                " A packaged (UWP) app hosted by ApplicationFrameHost: use app {app:?} (the window title)."
            ));
        }
        if verified == Some(false) {
            hint.push_str(" The window exposes no accessibility tree yet: retry, or check the app's accessibility support.");
        }
        OpenResult {
            ok: true,
            app: Some(app),
            window_id: Some(window.id.clone()),
            process,
            pid: window.pid,
            title: Some(window.title),
            seconds,
            hint: Some(hint),
            verified,
            error: None,
            new_windows_seen: None,
            frontmost: None,
        }
    }
}

/// What the application menu lists, by program base name in lower case: on Linux the `Exec`
/// and `TryExec` programs of the `.desktop` entries in the XDG data directories, on Windows the
/// Start menu's shortcuts, on macOS the application bundles.
fn installed_apps() -> HashSet<String> {
    let mut names = HashSet::new();
    for dir in app_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten().take(5000) {
            let path = entry.path();
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("desktop") => {
                    if let Ok(text) = std::fs::read_to_string(&path) {
                        names.extend(desktop_programs(&text));
                    }
                }
                Some("lnk") | Some("app") => {
                    if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                        names.insert(stem.to_lowercase());
                    }
                }
                _ => {}
            }
        }
    }
    names
}

/// A program named by a path is started only if it is the very file a desktop entry's `Exec`
/// starts (the entry's absolute path, or its name found on `PATH`): a script at
/// `/some/dir/thunar` is not Thunar.
fn program_of_an_entry(program: &str) -> Result<()> {
    if !program.contains(['/', '\\']) {
        return Ok(());
    }
    let wanted = std::fs::canonicalize(program).ok();
    let is_entry = wanted.is_some_and(|wanted| {
        entry_programs()
            .into_iter()
            .filter_map(|p| resolve(&p))
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .any(|p| p == wanted)
    });
    if is_entry {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ProgramNotAllowed,
        format!("{program:?} is not the program an application-menu entry starts (only the path an entry's Exec names is started)"),
    )
    .with_suggestion("Start the application by its name, or ask the user to add this path to apps.allow in config.toml (MCP_CU_APPS_ALLOW).")
    .with_details(json!({ "config_key": "apps.allow", "env": "MCP_CU_APPS_ALLOW" })))
}

/// Every `Exec` program of the application menu's entries, as written (a name or a path).
fn entry_programs() -> Vec<String> {
    let mut out = Vec::new();
    for dir in app_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten().take(5000) {
            let path = entry.path();
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("desktop"))
            {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    out.extend(
                        text.lines()
                            .filter_map(|l| l.strip_prefix("Exec="))
                            .filter_map(|v| v.split_whitespace().next())
                            .map(|p| p.trim_matches('"').to_owned()),
                    );
                }
            }
        }
    }
    out
}

/// `program` as a path: itself when it has a directory, else where `PATH` finds it.
fn resolve(program: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(program);
    if path.is_absolute() {
        return Some(path.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|dirs| {
        std::env::split_paths(&dirs)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// The programs a `.desktop` entry starts (`Exec`'s and `TryExec`'s first word, base name).
fn desktop_programs(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("Exec=")
                .or_else(|| l.strip_prefix("TryExec="))
        })
        .filter_map(|v| v.split_whitespace().next())
        .map(|p| {
            p.trim_matches('"')
                .rsplit('/')
                .next()
                .unwrap_or(p)
                .to_lowercase()
        })
        .collect()
}

fn app_dirs() -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut dirs = Vec::new();
    if cfg!(windows) {
        for var in ["ProgramData", "APPDATA"] {
            if let Some(base) = std::env::var_os(var) {
                let menu = PathBuf::from(base).join("Microsoft/Windows/Start Menu/Programs");
                dirs.push(menu.clone());
                if let Ok(subs) = std::fs::read_dir(&menu) {
                    dirs.extend(subs.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
                }
            }
        }
    } else if cfg!(target_os = "macos") {
        dirs.extend(
            [
                "/Applications",
                "/System/Applications",
                "/System/Applications/Utilities",
            ]
            .map(PathBuf::from),
        );
    } else {
        let home = std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
        let data = std::env::var("XDG_DATA_DIRS")
            .ok()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        dirs.extend(home.map(|h| h.join("applications")));
        dirs.extend(
            data.split(':')
                .map(|d| PathBuf::from(d).join("applications")),
        );
    }
    dirs
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    New,
    CameForward,
}

/// The window the launch produced: a new window (the launched process's own first), or, once
/// the launcher has exited, an existing window that took the focus.
fn arrived<'w>(
    now: &'w [WindowInfo],
    known: &HashSet<WindowId>,
    focused_before: Option<&WindowId>,
    pid: u32,
    launcher_exited: bool,
) -> Option<(&'w WindowInfo, Arrival)> {
    let fresh: Vec<&WindowInfo> = now.iter().filter(|w| !known.contains(&w.id)).collect();
    if let Some(w) = fresh.iter().find(|w| w.pid == Some(pid)).or(fresh.first()) {
        return Some((w, Arrival::New));
    }
    now.iter()
        .find(|w| w.focused && launcher_exited && Some(&w.id) != focused_before)
        .map(|w| (w, Arrival::CameForward))
}

/// The `app` value that names this window alone: its title, else its app name, else its id.
fn app_name_for(window: &WindowInfo, windows: &[WindowInfo]) -> String {
    [window.title.as_str(), window.app.as_str()]
        .into_iter()
        .filter(|name| !name.trim().is_empty())
        .find(|name| target::resolve_app(name, windows).is_ok_and(|w| w.id == window.id))
        .map_or_else(|| window.id.0.clone(), str::to_owned)
}

fn failure(
    e: &Error,
    started: Instant,
    seen: Vec<serde_json::Value>,
    frontmost: Option<serde_json::Value>,
) -> OpenResult {
    OpenResult {
        ok: false,
        app: None,
        window_id: None,
        title: None,
        process: None,
        pid: None,
        seconds: round2(started.elapsed().as_secs_f64()),
        hint: None,
        verified: None,
        error: Some(e.to_json()["error"].clone()),
        new_windows_seen: Some(seen),
        frontmost,
    }
}

fn frontmost(windows: &[WindowInfo]) -> Option<serde_json::Value> {
    windows
        .iter()
        .find(|w| w.focused)
        .map(|w| json!({ "app": w.app, "title": w.title, "window_id": w.id }))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A URI (`https://…`, `mailto:…`) or a document: handed to the desktop's opener.
fn is_document(target: &str) -> bool {
    let path = std::path::Path::new(target);
    if path.exists() {
        return !path.is_dir() && !is_executable(path);
    }
    target.split_once(':').is_some_and(|(scheme, _)| {
        scheme.len() > 1
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("exe"))
}

/// The command that starts `program`: a document goes to the desktop's opener whatever its
/// mode (an executable file named `report.odt` is opened as a document, never run).
fn command_for(program: &str, args: &[String]) -> Command {
    let is_file = std::path::Path::new(program).is_file();
    let document = matches!(
        cu_core::policy::launch::classify(program, is_file),
        cu_core::policy::launch::Launch::Document(_)
    );
    if document || is_document(program) {
        opener(program)
    } else {
        let mut c = Command::new(program);
        c.args(args);
        c
    }
}

fn launch(program: &str, args: &[String]) -> Result<Child> {
    let mut command = command_for(program, args);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Its own process group: the app outlives us and our terminal's signals.
        command.process_group(0);
    }
    command.spawn().map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::AppNotFound
        } else {
            ErrorCode::ActionFailed
        };
        Error::new(code, format!("cannot start {program:?}: {e}"))
            .with_suggestion("Pass a program on PATH, a full path, or a URI.")
    })
}

#[cfg(all(unix, not(target_os = "macos")))]
fn opener(target: &str) -> Command {
    let mut c = Command::new("xdg-open");
    c.arg(target);
    c
}

#[cfg(target_os = "macos")]
fn opener(target: &str) -> Command {
    let mut c = Command::new("open");
    c.arg(target);
    c
}

#[cfg(windows)]
fn opener(target: &str) -> Command {
    let mut c = Command::new("cmd");
    c.args(["/C", "start", ""]).arg(target);
    c
}

/// True for the process that hosts packaged (UWP) apps' windows on Windows.
fn is_uwp_host(process: &str) -> bool {
    process.eq_ignore_ascii_case("ApplicationFrameHost")
        || process.eq_ignore_ascii_case("ApplicationFrameHost.exe")
}

/// The image name in the first line of `tasklist /FO CSV /NH` (`"notepad.exe","4242",…`),
/// without `.exe`.
#[cfg_attr(not(windows), allow(dead_code))]
fn image_name_from_tasklist(csv: &str) -> Option<String> {
    let first = csv.lines().next()?.split("\",\"").next()?.trim_matches('"');
    let name = first.strip_suffix(".exe").unwrap_or(first);
    (!name.is_empty() && !first.starts_with("INFO:")).then(|| name.to_owned())
}

/// The process's image name from `tasklist` (Windows).
#[cfg(windows)]
fn process_name(pid: u32) -> Option<String> {
    let out = Command::new("tasklist")
        .args(["/FI", &format!("PID eq {pid}"), "/FO", "CSV", "/NH"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    image_name_from_tasklist(&String::from_utf8_lossy(&out.stdout))
}

/// The process's executable name from `/proc` (Linux; `comm` is cut at 15 bytes, so the
/// command line comes first); `None` elsewhere.
#[cfg(not(windows))]
fn process_name(pid: u32) -> Option<String> {
    let from_cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
        .ok()
        .and_then(|raw| {
            let first = raw.split(|b| *b == 0).next()?;
            let path = std::path::Path::new(std::str::from_utf8(first).ok()?);
            Some(path.file_name()?.to_string_lossy().into_owned())
        });
    from_cmdline
        .or_else(|| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uwp_frames_are_recognised_from_tasklist() {
        let csv = "\"ApplicationFrameHost.exe\",\"16708\",\"Console\",\"1\",\"40,112 K\"\r\n";
        let name = image_name_from_tasklist(csv);
        assert_eq!(name.as_deref(), Some("ApplicationFrameHost"));
        assert!(name.as_deref().is_some_and(is_uwp_host));
        assert!(!is_uwp_host("notepad"));
        assert_eq!(
            image_name_from_tasklist(
                "INFO: No tasks are running which match the specified criteria."
            ),
            None
        );
    }

    fn window(id: &str, title: &str, pid: u32, focused: bool) -> WindowInfo {
        WindowInfo {
            id: WindowId(id.into()),
            app: "app".into(),
            title: title.into(),
            pid: Some(pid),
            bounds: None,
            focused,
            minimized: false,
            no_tree: false,
        }
    }

    #[test]
    fn a_new_window_of_the_launched_process_comes_first() {
        let known: HashSet<WindowId> = [WindowId("a".into())].into();
        let now = [
            window("a", "Old", 1, true),
            window("b", "Other", 2, false),
            window("c", "Mine", 3, false),
        ];
        let got = arrived(&now, &known, Some(&WindowId("a".into())), 3, false);
        assert_eq!(
            got.map(|(w, how)| (w.title.as_str(), how)),
            Some(("Mine", Arrival::New))
        );
    }

    #[test]
    fn an_existing_window_counts_only_once_the_launcher_exited_and_it_took_focus() {
        let known: HashSet<WindowId> = [WindowId("a".into()), WindowId("b".into())].into();
        let now = [
            window("a", "Editor", 1, false),
            window("b", "Calc", 2, true),
        ];
        let before = Some(WindowId("a".into()));
        assert!(arrived(&now, &known, before.as_ref(), 9, false).is_none());
        let got = arrived(&now, &known, before.as_ref(), 9, true);
        assert_eq!(
            got.map(|(w, how)| (w.title.as_str(), how)),
            Some(("Calc", Arrival::CameForward))
        );
        let unchanged = arrived(&now, &known, Some(&WindowId("b".into())), 9, true);
        assert!(unchanged.is_none(), "focus did not move");
    }

    #[test]
    fn the_app_to_use_names_that_window_alone() {
        let windows = [
            window("a", "Calculator", 1, false),
            window("b", "Calculator", 2, false),
            window("c", "Notes", 3, false),
        ];
        assert_eq!(app_name_for(&windows[2], &windows), "Notes");
        assert_eq!(
            app_name_for(&windows[0], &windows),
            "a",
            "two windows share the title and the app"
        );
    }

    /// Issue 39: each payload ran with the default configuration. Each is refused now and no
    /// process starts (the marker file stays absent).
    #[cfg(unix)]
    #[test]
    fn regression_gui_open_cannot_run_commands() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let marker = dir.path().join("ran");
        let script = format!("#!/bin/sh\ntouch {}\n", marker.display());
        let odt = dir.path().join("report.odt");
        let thunar = dir.path().join("thunar");
        for file in [&odt, &thunar] {
            std::fs::write(file, &script).unwrap_or_else(|e| panic!("{e}"));
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let touch = format!("open({:?}, 'w')", marker.display().to_string());
        let shell = format!("!touch {}", marker.display());
        let payloads: Vec<(String, Vec<String>)> = vec![
            ("python3.11".into(), vec!["-c".into(), touch]),
            ("vim".into(), vec!["-es".into(), "-c".into(), shell]),
            (
                "chromium".into(),
                vec![format!("--renderer-cmd-prefix=touch {}", marker.display())],
            ),
            (thunar.display().to_string(), vec![]),
        ];
        let backend = cu_backend_scripted::Scripted::new();
        let svc = super::super::test_support::service(&backend, dir.path(), 5);
        super::super::test_support::block_on(async {
            for (program, args) in payloads {
                let e = svc
                    .gui_open(&OpenToolRequest {
                        program: program.clone(),
                        args,
                        timeout_ms: Some(1000),
                    })
                    .await
                    .err();
                assert_eq!(
                    e.map(|e| e.code),
                    Some(ErrorCode::ProgramNotAllowed),
                    "{program}"
                );
            }
        });
        // An executable document is opened, never run.
        let command = command_for(&odt.display().to_string(), &[]);
        assert_ne!(command.get_program(), odt.as_os_str());
        assert!(!marker.exists(), "a payload ran");
    }

    #[test]
    fn uris_and_documents_go_to_the_opener() {
        assert!(is_document("https://example.org"));
        assert!(is_document("mailto:someone@example.org"));
        assert!(!is_document("gnome-calculator"));
        assert!(!is_document("/bin/sh"));
    }
}
