//! Whether a process still runs, from `/proc`: an exited process that its parent has not
//! reaped yet (a zombie) has ended too.

/// `Some(false)` once `pid` has exited (gone from `/proc`, or a zombie), `Some(true)` while it
/// runs, `None` when `/proc` cannot say.
pub(crate) fn running(pid: u32) -> Option<bool> {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => state_runs(&stat),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(false),
        Err(_) => None,
    }
}

/// The state letter of a `/proc/PID/stat` line says whether the process runs. The command name
/// in parentheses may itself hold spaces and parentheses, so the state follows the last `)`.
fn state_runs(stat: &str) -> Option<bool> {
    let (_, rest) = stat.rsplit_once(')')?;
    let state = rest.trim_start().chars().next()?;
    Some(!matches!(state, 'Z' | 'X' | 'x'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_has_ended_and_a_sleeper_runs() {
        assert_eq!(state_runs("42 (python3) S 1 42 42 0"), Some(true));
        assert_eq!(state_runs("42 (soffice.bin) Z 1 42"), Some(false));
        assert_eq!(state_runs("42 (a) b) (c) R 1"), Some(true));
        assert_eq!(state_runs("garbage"), None);
    }

    #[test]
    fn this_process_runs_and_an_unused_pid_does_not() {
        assert_eq!(running(std::process::id()), Some(true));
        assert_eq!(running(u32::MAX - 1), Some(false));
    }
}
