//! Where the desktop is: `DISPLAY`, the session bus and the session type, recovered from the
//! systemd user environment when this process started outside the graphical session (a worker
//! started by systemd, an agent launched from a TTY).
//!
//! [`parse_env_lines`] is pure and compiled on every target (tested and fuzzed everywhere); the
//! discovery itself is Linux only.

use std::collections::HashMap;

/// The variables a GUI call needs.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionEnv {
    pub display: Option<String>,
    pub wayland_display: Option<String>,
    pub session_type: Option<String>,
    pub session_bus: Option<String>,
    pub a11y_bus: Option<String>,
    /// Where the values came from: `process` or `systemd --user`.
    pub source: &'static str,
}

#[cfg(target_os = "linux")]
impl SessionEnv {
    /// A Wayland session: `XDG_SESSION_TYPE=wayland`, or a Wayland display without an X one.
    pub(crate) fn is_wayland(&self) -> bool {
        match self.session_type.as_deref() {
            Some("wayland") => self.wayland_display.is_some(),
            Some("x11") => false,
            _ => self.wayland_display.is_some() && self.display.is_none(),
        }
    }

    /// Reads the process environment, then fills gaps from `systemctl --user show-environment`.
    pub(crate) fn discover() -> SessionEnv {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let mut env = SessionEnv {
            display: var("DISPLAY"),
            wayland_display: var("WAYLAND_DISPLAY"),
            session_type: var("XDG_SESSION_TYPE"),
            session_bus: var("DBUS_SESSION_BUS_ADDRESS"),
            a11y_bus: var("AT_SPI_BUS_ADDRESS"),
            source: "process",
        };
        if env.display.is_none() && env.wayland_display.is_none() {
            if let Some(recovered) = systemd_user_environment() {
                env.fill_from(&recovered);
            }
        }
        env
    }

    fn fill_from(&mut self, vars: &HashMap<String, String>) {
        let get = |k: &str| vars.get(k).filter(|v| !v.is_empty()).cloned();
        let before = self.clone();
        self.display = self.display.take().or_else(|| get("DISPLAY"));
        self.wayland_display = self
            .wayland_display
            .take()
            .or_else(|| get("WAYLAND_DISPLAY"));
        self.session_type = self.session_type.take().or_else(|| get("XDG_SESSION_TYPE"));
        self.session_bus = self
            .session_bus
            .take()
            .or_else(|| get("DBUS_SESSION_BUS_ADDRESS"));
        if *self != before {
            self.source = "systemd --user";
        }
    }
}

#[cfg(target_os = "linux")]
fn systemd_user_environment() -> Option<HashMap<String, String>> {
    let out = std::process::Command::new("systemctl")
        .args(["--user", "show-environment"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| parse_env_lines(&String::from_utf8_lossy(&out.stdout)))
}

/// Parses `KEY=VALUE` lines as `systemctl --user show-environment` prints them. Values quoted by
/// systemd (`$'…'`) are unquoted for the common escapes.
pub fn parse_env_lines(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .filter(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(|(k, v)| {
            let v = v
                .strip_prefix("$'")
                .and_then(|v| v.strip_suffix('\''))
                .map(|v| v.replace("\\'", "'").replace("\\\\", "\\"))
                .unwrap_or_else(|| v.to_owned());
            (k.to_owned(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_env_lines;
    #[test]
    fn systemd_environment_is_parsed() {
        let vars = parse_env_lines(
            "DISPLAY=:0\nDBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\nXDG_SESSION_TYPE=x11\nWEIRD=$'a\\'b'\nnot a line\n",
        );
        assert_eq!(vars.get("DISPLAY").map(String::as_str), Some(":0"));
        assert_eq!(
            vars.get("DBUS_SESSION_BUS_ADDRESS").map(String::as_str),
            Some("unix:path=/run/user/1000/bus")
        );
        assert_eq!(vars.get("WEIRD").map(String::as_str), Some("a'b"));
        assert_eq!(vars.len(), 4);
    }
}
