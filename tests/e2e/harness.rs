//! Launching fixture apps on the test desktop, finding their windows, and waiting for effects.

use std::future::Future;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cu_core::model::backend::Backend;
use cu_core::model::element::{Node, Snapshot, SnapshotOptions};
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};

static DESKTOP_LOCK: Mutex<()> = Mutex::new(());

/// The test desktop, held exclusively for one test.
pub struct Desktop {
    number: String,
    _guard: MutexGuard<'static, ()>,
    pub backend: Arc<dyn Backend>,
}

/// Returns the desktop, or `None` after printing that `test` skipped. Panics under `CI=true`.
pub fn desktop(test: &str) -> Option<Desktop> {
    let number = std::env::var("MCP_CU_TEST_DESKTOP")
        .ok()
        .filter(|n| !n.is_empty());
    let has_display = std::env::var("DISPLAY").is_ok_and(|v| !v.is_empty());
    let Some(number) = number.filter(|_| has_display) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true but no test desktop (MCP_CU_TEST_DESKTOP and DISPLAY): run the suite through scripts/test.sh");
        }
        eprintln!("SKIPPED {test}: no test desktop (run scripts/test.sh to start one)");
        return None;
    };
    let guard = DESKTOP_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some(Desktop {
        number,
        _guard: guard,
        backend: cu_backends::platform_backend(),
    })
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fixture app started for one test; killed (with its children) when dropped.
pub struct App {
    pub pid: u32,
    pub kind: String,
}

impl Desktop {
    /// Starts a fixture app and waits until it is registered on AT-SPI.
    pub fn launch(&self, kind: &str) -> App {
        let out = Command::new("bash")
            .arg(repo_root().join("scripts/desktop/launch-apps.sh"))
            .arg(&self.number)
            .arg(kind)
            .output()
            .expect("launch-apps.sh");
        assert!(
            out.status.success(),
            "launching {kind} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let pid = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{kind}=")))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid for {kind} in {stdout:?}"));
        App {
            pid,
            kind: kind.to_owned(),
        }
    }

    /// Waits for the app's window (by pid) to be listed.
    pub async fn window_of(&self, app: &App) -> WindowInfo {
        let pid = app.pid;
        eventually(
            &format!("a window of {} (pid {pid})", app.kind),
            Duration::from_secs(15),
            || async {
                let windows = self.backend.list_windows().await.ok()?;
                windows
                    .into_iter()
                    .find(|w| w.pid == Some(pid) && !w.minimized)
            },
        )
        .await
    }

    /// Waits (up to 5 s) until some element of `window` shows `text` in its name or value.
    pub async fn eventually_shows(&self, window: &WindowId, text: &str) {
        eventually(
            &format!("{text:?} in {window}"),
            Duration::from_secs(5),
            || async {
                let s = self
                    .backend
                    .snapshot(window, &SnapshotOptions::default())
                    .await
                    .ok()?;
                shows(&s, text).then_some(())
            },
        )
        .await;
    }

    /// Waits (up to 5 s) until observing `window` fails, and returns the error code.
    pub async fn first_error(&self, window: &WindowId, what: &str) -> cu_core::ErrorCode {
        eventually(what, Duration::from_secs(5), || async {
            self.backend
                .snapshot(window, &SnapshotOptions::default())
                .await
                .err()
                .map(|e| e.code)
        })
        .await
    }

    pub async fn snapshot(&self, window: &WindowId) -> Snapshot {
        self.backend
            .snapshot(window, &SnapshotOptions::default())
            .await
            .unwrap_or_else(|e| panic!("snapshot of {window}: {e}"))
    }
}

impl App {
    pub fn kill(&self) {
        let _ = Command::new("pkill")
            .args(["-KILL", "-P", &self.pid.to_string()])
            .status();
        let _ = Command::new("kill")
            .args(["-KILL", &self.pid.to_string()])
            .status();
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Polls `probe` until it yields a value or `timeout` passes (then panics naming `what`).
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        if Instant::now() > deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The first node with this role and (trimmed) name.
pub fn find<'a>(snapshot: &'a Snapshot, role: Role, name: &str) -> &'a Node {
    try_find(snapshot, role, name).unwrap_or_else(|| {
        let seen: Vec<String> = snapshot
            .nodes
            .iter()
            .filter(|n| n.role == role)
            .map(|n| format!("{:?}", n.name))
            .collect();
        panic!(
            "no {role} named {name:?} in {}; {role}s: {}",
            snapshot.window.title,
            seen.join(", ")
        )
    })
}

pub fn try_find<'a>(snapshot: &'a Snapshot, role: Role, name: &str) -> Option<&'a Node> {
    snapshot
        .nodes
        .iter()
        .find(|n| n.role == role && n.name.trim() == name)
}

/// True when any node's name or value contains `text`.
pub fn shows(snapshot: &Snapshot, text: &str) -> bool {
    snapshot
        .nodes
        .iter()
        .any(|n| n.name.contains(text) || n.value.as_deref().is_some_and(|v| v.contains(text)))
}
