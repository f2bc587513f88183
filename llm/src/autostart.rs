//! Ollama auto-start: when the configured Ollama URL is on this machine and nothing answers,
//! start `ollama serve` detached, with `OLLAMA_HOST` set for the child alone, guarded by a port
//! check and a lock file (`ollama-autostart.lock`) so two servers never start it twice; poll
//! `/api/tags` until it answers; log its output to `ollama-autostart.log`; remember the attempt
//! in `ollama-autostart.json` for `health`.
//!
//! ## Platform-specific
//! Unix: the child gets its own process group, so it outlives the MCP host. Windows: started
//! with `CREATE_BREAKAWAY_FROM_JOB` (method `breakaway`), or without it when the host's job
//! refuses (`popen`); the predecessor's WMI route is not implemented. `ollama` is looked up on
//! `PATH`, and on Windows also at `%LOCALAPPDATA%\Programs\Ollama\ollama.exe`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cu_core::config::{Config, LlmApi};
use cu_core::store::persist::{now_ms, write_atomic};
use serde::{Deserialize, Serialize};

use crate::ModelClient;

/// One auto-start attempt, as `health` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AutostartReport {
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// How the child was started (`detached`, `breakaway`, `popen`), or `none`.
    pub method: String,
    /// Ollama answered in time.
    pub ok: bool,
    /// Seconds waited for it.
    pub waited_seconds: f64,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What [`ensure_running`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Auto-start does not apply (off, another API, or a remote URL).
    NotApplicable,
    /// The server answered already (or another process started it meanwhile).
    Running,
    /// This call started it, and it answers.
    Started(AutostartReport),
    /// It could not be started or did not answer in time.
    Failed(AutostartReport),
}

/// The URL's host is this machine.
pub fn is_local(url: &str) -> bool {
    host_port(url).is_some_and(|(host, _)| {
        matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]" | "::1")
    })
}

/// Host and port of an `http://host:port/...` URL (port 80/443 by default).
fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    let authority = authority.rsplit('@').next()?;
    let default = if scheme == "https" { 443 } else { 80 };
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = after
            .strip_prefix(':')
            .map_or(Some(default), |p| p.parse().ok())?;
        return Some((format!("[{host}]"), port));
    }
    match authority.split_once(':') {
        Some((host, port)) => Some((host.to_lowercase(), port.parse().ok()?)),
        None => Some((authority.to_lowercase(), default)),
    }
}

/// The last attempt recorded in `sessions_dir`.
pub fn last_attempt(sessions_dir: &Path) -> Option<AutostartReport> {
    let bytes = std::fs::read(sessions_dir.join("ollama-autostart.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Makes sure Ollama answers, starting it when that applies; waits at most `max_wait` (the
/// caller shrinks it to leave room for the model within the call budget).
pub async fn ensure_running(client: &ModelClient, config: &Config, max_wait: Duration) -> Outcome {
    if !config.autostart_ollama || client.api() != LlmApi::Ollama || !is_local(client.url()) {
        return Outcome::NotApplicable;
    }
    let quick = Duration::from_secs(2);
    if client.models(quick).await.is_ok() {
        return Outcome::Running;
    }
    let dir = config.sessions_dir.clone();
    let url = client.url().to_owned();
    let started = Instant::now();
    // The lock is held while starting and waiting, so a second process waits here and then
    // finds the server up instead of starting another.
    let lock_path = dir.join("ollama-autostart.lock");
    let attempt = tokio::task::spawn_blocking(move || -> Result<Option<String>, String> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
        let mut lock = fd_lock::RwLock::new(file);
        let _held = lock
            .write()
            .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
        let (_, port) = host_port(&url).ok_or("the Ollama URL has no host")?;
        let listening = std::net::TcpStream::connect_timeout(
            &([127, 0, 0, 1], port).into(),
            Duration::from_millis(300),
        )
        .is_ok();
        let method = if listening {
            None // Starting up already (another process, or a server that is slow to answer).
        } else {
            Some(spawn_ollama(&dir, port)?)
        };
        wait_until_up(port, max_wait.saturating_sub(started.elapsed()));
        Ok(method)
    })
    .await;
    let up = client.models(quick).await.is_ok();
    let (method, error) = match attempt {
        Ok(Ok(method)) => (method, None),
        Ok(Err(e)) => (None, Some(e)),
        Err(e) => (None, Some(format!("the start-up task failed: {e}"))),
    };
    if up && method.is_none() {
        // Another process started it while this one waited for the lock.
        return Outcome::Running;
    }
    let report = AutostartReport {
        at_ms: now_ms(),
        method: method.unwrap_or_else(|| "none".into()),
        ok: up,
        waited_seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        error: if up {
            None
        } else {
            Some(error.unwrap_or_else(|| {
                format!(
                    "Ollama did not answer within {:.0}s",
                    max_wait.as_secs_f64()
                )
            }))
        },
    };
    if let Ok(bytes) = serde_json::to_vec(&report) {
        let _ = write_atomic(&config.sessions_dir.join("ollama-autostart.json"), &bytes);
    }
    tracing::info!(method = %report.method, ok = report.ok, waited = report.waited_seconds, "ollama auto-start");
    if up {
        Outcome::Started(report)
    } else {
        Outcome::Failed(report)
    }
}

/// Polls the port's `/api/tags` (plain HTTP over a socket, no runtime needed) until it answers
/// 200 or `within` passes.
fn wait_until_up(port: u16, within: Duration) {
    use std::io::{Read, Write};
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        let answered = std::net::TcpStream::connect_timeout(
            &([127, 0, 0, 1], port).into(),
            Duration::from_millis(300),
        )
        .and_then(|mut s| {
            s.set_read_timeout(Some(Duration::from_secs(2)))?;
            s.write_all(b"GET /api/tags HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
            let mut head = [0u8; 12];
            s.read_exact(&mut head)?;
            Ok(head.ends_with(b"200"))
        })
        .unwrap_or(false);
        if answered {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The `ollama` executable to start.
fn find_ollama() -> Option<PathBuf> {
    let exe = if cfg!(windows) {
        "ollama.exe"
    } else {
        "ollama"
    };
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(exe))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        std::env::var_os("LOCALAPPDATA")
            .map(|d| PathBuf::from(d).join("Programs").join("Ollama").join(exe))
            .filter(|p| p.is_file())
    })
}

/// Starts `ollama serve` detached with `OLLAMA_HOST` for the child only; the method used.
fn spawn_ollama(dir: &Path, port: u16) -> Result<String, String> {
    let program = find_ollama().ok_or("no `ollama` executable on PATH")?;
    let log_path = dir.join("ollama-autostart.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let err_log = log
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let mut command = std::process::Command::new(&program);
    command
        .arg("serve")
        .env("OLLAMA_HOST", format!("127.0.0.1:{port}"))
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(err_log);
    let (child, method) =
        detach(&mut command).map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    // Reap it if it ever exits while we run; it is not ours to stop.
    let mut child = child;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(method.to_owned())
}

#[cfg(unix)]
fn detach(
    command: &mut std::process::Command,
) -> std::io::Result<(std::process::Child, &'static str)> {
    use std::os::unix::process::CommandExt as _;
    command.process_group(0);
    Ok((command.spawn()?, "detached"))
}

#[cfg(windows)]
fn detach(
    command: &mut std::process::Command,
) -> std::io::Result<(std::process::Child, &'static str)> {
    use std::os::windows::process::CommandExt as _;
    const DETACHED_PROCESS: u32 = 0x0000_0008;
    const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
    const CREATE_BREAKAWAY_FROM_JOB: u32 = 0x0100_0000;
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    let base = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW;
    command.creation_flags(base | CREATE_BREAKAWAY_FROM_JOB);
    match command.spawn() {
        Ok(child) => Ok((child, "breakaway")),
        Err(_) => {
            command.creation_flags(base);
            Ok((command.spawn()?, "popen"))
        }
    }
}

#[cfg(not(any(unix, windows)))]
fn detach(
    command: &mut std::process::Command,
) -> std::io::Result<(std::process::Child, &'static str)> {
    Ok((command.spawn()?, "popen"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machine_is_local() {
        assert!(is_local("http://127.0.0.1:11435"));
        assert!(is_local("http://localhost:11435/"));
        assert!(is_local("http://[::1]:11435"));
        assert!(!is_local("http://10.0.0.5:11435"));
        assert!(!is_local("https://models.example.com"));
        assert!(!is_local("not a url"));
        assert_eq!(
            host_port("http://127.0.0.1:11435/api"),
            Some(("127.0.0.1".into(), 11435))
        );
        assert_eq!(host_port("https://h"), Some(("h".into(), 443)));
    }

    #[tokio::test]
    async fn a_remote_url_or_autostart_off_never_starts_anything() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::defaults(&|_| None);
        config.sessions_dir = dir.path().to_owned();
        let remote = ModelClient::new(LlmApi::Ollama, "http://192.0.2.1:11435", "m").unwrap();
        assert_eq!(
            ensure_running(&remote, &config, Duration::from_secs(1)).await,
            Outcome::NotApplicable
        );
        config.autostart_ollama = false;
        let local = ModelClient::new(LlmApi::Ollama, "http://127.0.0.1:9", "m").unwrap();
        assert_eq!(
            ensure_running(&local, &config, Duration::from_secs(1)).await,
            Outcome::NotApplicable
        );
        assert!(last_attempt(dir.path()).is_none());
    }
}
