//! Memory-aware keep-alive: how long the model stays loaded after a call, and the free-RAM
//! floor under which it is unloaded at once (checked before and after each call, and by a
//! watcher while it is loaded).

use std::time::Duration;

use cu_core::config::Config;
use serde::Serialize;

/// A session counts as active when its file was written this recently.
pub const ACTIVE_SESSION_WINDOW: Duration = Duration::from_secs(600);

/// Why the keep-alive is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeepReason {
    /// A lone call.
    Idle,
    /// A session is active.
    Session,
    /// The caller asked to keep the model warm.
    KeepWarm,
    /// Free RAM is under the floor: unload now.
    LowMemory,
}

/// The keep-alive for a call: 10 min (session) inside an active session or with `keep_warm`,
/// 3 min (idle) otherwise, 0 under the free-memory floor.
pub fn keep_alive(
    config: &Config,
    active_session: bool,
    keep_warm: bool,
    free_mb: Option<u64>,
) -> (Duration, KeepReason) {
    if below_floor(config, free_mb) {
        return (Duration::ZERO, KeepReason::LowMemory);
    }
    let session = Duration::from_secs(config.keep_alive_session_secs);
    if keep_warm {
        (session, KeepReason::KeepWarm)
    } else if active_session {
        (session, KeepReason::Session)
    } else {
        (
            Duration::from_secs(config.keep_alive_idle_secs),
            KeepReason::Idle,
        )
    }
}

/// Free RAM is known and under `min_free_mb` (0 turns the floor off).
pub fn below_floor(config: &Config, free_mb: Option<u64>) -> bool {
    config.min_free_mb > 0 && free_mb.is_some_and(|f| f < config.min_free_mb)
}

/// Memory available to new programs, MB.
///
/// ## Platform-specific
/// Linux reads `MemAvailable` from `/proc/meminfo`; Windows asks `GlobalMemoryStatusEx`
/// (`ullAvailPhys`; type-checked here, not run). Other platforms (macOS) answer `None`: the
/// floor is then not applied, and keep-alive still bounds how long the model stays.
pub fn free_ram_mb() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_meminfo(&text)
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
        let mut status = MEMORYSTATUSEX {
            dwLength: std::mem::size_of::<MEMORYSTATUSEX>() as u32,
            dwMemoryLoad: 0,
            ullTotalPhys: 0,
            ullAvailPhys: 0,
            ullTotalPageFile: 0,
            ullAvailPageFile: 0,
            ullTotalVirtual: 0,
            ullAvailVirtual: 0,
            ullAvailExtendedVirtual: 0,
        };
        // SAFETY: `status` is a valid, writable MEMORYSTATUSEX whose `dwLength` is set, as the
        // function requires; it writes only into that struct.
        let ok = unsafe { GlobalMemoryStatusEx(&mut status) };
        (ok != 0).then_some(status.ullAvailPhys / (1024 * 1024))
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        None
    }
}

/// `MemAvailable` (kB) of a `/proc/meminfo` text, in MB.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::defaults(&|_| None)
    }

    #[test]
    fn keep_alive_is_3_min_alone_10_in_a_session_or_warm_and_0_under_the_floor() {
        let c = config();
        assert_eq!(
            keep_alive(&c, false, false, Some(8000)),
            (Duration::from_secs(180), KeepReason::Idle)
        );
        assert_eq!(
            keep_alive(&c, true, false, Some(8000)),
            (Duration::from_secs(600), KeepReason::Session)
        );
        assert_eq!(
            keep_alive(&c, false, true, None),
            (Duration::from_secs(600), KeepReason::KeepWarm)
        );
        assert_eq!(
            keep_alive(&c, true, true, Some(1000)),
            (Duration::ZERO, KeepReason::LowMemory)
        );
        let off = Config {
            min_free_mb: 0,
            ..config()
        };
        assert!(!below_floor(&off, Some(1)));
    }

    #[test]
    fn meminfo_gives_available_mb() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   4194304 kB\n";
        assert_eq!(parse_meminfo(text), Some(4096));
        assert_eq!(parse_meminfo("MemTotal: 1 kB"), None);
        #[cfg(target_os = "linux")]
        assert!(free_ram_mb().is_some_and(|mb| mb > 0));
    }
}
