//! Small files written whole, and the clock they are stamped with: shared by the state registry,
//! approvals, sessions and timing history, so every one of them writes the same safe way.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Bytes the sessions directory must have free before an action is sent: room for its audit
/// records and the state's claim, so a full disk refuses the action instead of losing its record.
pub const ROOM_FOR_AN_ACTION: u64 = 64 * 1024;

/// Whether the file system holding `dir` has at least `bytes` free for this user (`true` where
/// that cannot be asked: the write itself reports the failure there).
pub fn has_room(dir: &Path, bytes: u64) -> bool {
    free_bytes(dir).is_none_or(|free| free >= bytes)
}

#[cfg(unix)]
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and `stat` points to
    // writable memory of the right type; statvfs fills it on success (return 0) only.
    let ok = unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } == 0;
    // SAFETY: initialized by the successful call above.
    ok.then(|| unsafe { stat.assume_init() })
        // The fields' widths differ between Unix systems (u64 here, u32 on macOS).
        .map(|s| {
            #[allow(clippy::unnecessary_cast)]
            let (blocks, size) = (s.f_bavail as u64, s.f_frsize as u64);
            blocks.saturating_mul(size)
        })
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// Milliseconds since the epoch (0 if the clock is before it).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// How many saves a store makes between two clean-ups of its directory: a clean-up reads and
/// stats every file in it (hundreds), which would otherwise cost each observation milliseconds.
pub const PURGE_EVERY: u32 = 32;

/// When a store cleans up: on its first save and then every [`PURGE_EVERY`] saves, so its
/// directory holds at most its cap plus [`PURGE_EVERY`] − 1 files per process writing to it
/// (expired files that are still there are refused on load by their age).
#[derive(Debug, Clone, Default)]
pub struct PurgeSchedule(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl PurgeSchedule {
    /// Counts one save; `true` when this save should clean up.
    pub fn due(&self) -> bool {
        self.0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .is_multiple_of(PURGE_EVERY)
    }
}

/// Deletes the files of `dir` last modified more than `keep_for` ago, then the oldest beyond
/// `most`: the one clean-up of the small-file stores (states, views).
pub fn purge_dir(dir: &Path, keep_for: std::time::Duration, most: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.retain(|(modified, path)| {
        let expired = modified.elapsed().is_ok_and(|age| age > keep_for);
        if expired {
            let _ = std::fs::remove_file(path);
        }
        !expired
    });
    if files.len() > most {
        files.sort();
        for (_, path) in &files[..files.len() - most] {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Writes `bytes` to `path` through a hidden temporary file in the same directory and a rename,
/// so a reader sees the old file or the new one, never half of one. The temporary name
/// (`.{name}.{pid}.tmp`) never ends in `.json`, so directory scans skip it. The file is created
/// 0600 and a symbolic link at the temporary name is not followed ([`crate::store::private`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // One temporary file per write, not per process: two calls of one server writing the same
    // file at once (two observations of one window) must not rename each other's away.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let written = crate::store::private::file_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    // Unix only: on Windows a rename onto a file that another writer is replacing at that
    // instant can fail with a sharing violation (seen under Wine), whatever the temporary name.
    #[cfg(unix)]
    #[test]
    fn regression_concurrent_writes_of_one_file_all_succeed() {
        // Two observations of one window at once stored its ids through one temporary name,
        // and the second rename failed (STORAGE_FAILED, seen in test_remote.py under load).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let writers: Vec<_> = (0..8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    (0..200).all(|_| write_atomic(&path, format!("{i}").as_bytes()).is_ok())
                })
            })
            .collect();
        assert!(writers.into_iter().all(|w| w.join().unwrap_or(false)));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn writes_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).ok().as_deref(), Some(&b"two"[..]));
        assert_eq!(
            std::fs::read_dir(dir.path()).map(|d| d.count()).ok(),
            Some(1)
        );
        assert!(write_atomic(&dir.path().join("missing/b.json"), b"x").is_err());
    }
}
