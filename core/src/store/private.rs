//! The files the safety gate relies on are the user's alone.
//!
//! States, approvals, crops, the audit log and tokens live in the sessions directory. It is
//! created 0700 and every file in it 0600 (on Unix); a directory owned by another user, or one
//! that is a symbolic link, is refused with a clear error, and so is a symlinked log or state
//! file (files are opened without following links). There is no shared fallback: without a home
//! directory the sessions directory must be set (`MCP_CU_SESSIONS_DIR`).

use std::fs::OpenOptions;
use std::path::Path;

use crate::error::{Error, ErrorCode, Result};

/// Creates `dir` (and missing parents, 0700) or checks the existing one: a real directory, not a
/// symbolic link, owned by this user; group and other permissions are taken away.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.as_os_str().is_empty() {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "there is no sessions directory: no home directory is known",
        )
        .with_suggestion("Set MCP_CU_SESSIONS_DIR (or sessions.dir) to a directory of your own."));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(meta) => check_existing(dir, &meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(dir),
        Err(e) => Err(refused(dir, &format!("cannot be read ({e})"))),
    }
}

/// The one error for a file of the sessions directory that cannot be read or written:
/// `STORAGE_FAILED`, saying what was being done, to which file, and why.
pub fn storage_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    let full = e.kind() == std::io::ErrorKind::StorageFull;
    Error::new(
        ErrorCode::StorageFailed,
        format!("{what} {}: {e}", path.display()),
    )
    .with_details(serde_json::json!({ "path": path.display().to_string(), "disk_full": full }))
}

/// Options that create a file 0600 and never follow a symbolic link at its path.
pub fn file_options() -> OpenOptions {
    #[allow(unused_mut)]
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options
}

fn create(dir: &Path) -> Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.exists() {
            create(parent)?;
        }
    }
    #[allow(unused_mut)]
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    match builder.create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => ensure_dir(dir),
        Err(e) => Err(storage_error("cannot create", dir, e)),
    }
}

fn check_existing(dir: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.file_type().is_symlink() {
        return Err(refused(dir, "is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refused(dir, "is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(refused(
                dir,
                &format!("belongs to user id {}, not to this user ({me})", meta.uid()),
            )
            .with_details(serde_json::json!({ "owner": meta.uid(), "user": me })));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
                refused(
                    dir,
                    &format!("is open to other users and cannot be closed ({e})"),
                )
            })?;
        }
    }
    Ok(())
}

fn refused(dir: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("the sessions directory {} {why}", dir.display()),
    )
    .with_suggestion("Use a directory of your own (MCP_CU_SESSIONS_DIR); states, approvals and the audit log must be yours alone.")
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn created_private_and_symlinks_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        assert!(ensure_dir(&dir).is_ok());
        let mode = std::fs::metadata(&dir)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(ensure_dir(&dir).is_ok());
        let mode = std::fs::metadata(&dir)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o700, "opened permissions are closed again");
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert_eq!(
            ensure_dir(&link).map_err(|e| e.code).err(),
            Some(ErrorCode::ConfigInvalid)
        );
        assert_eq!(
            ensure_dir(Path::new("")).map_err(|e| e.code).err(),
            Some(ErrorCode::ConfigInvalid)
        );
        // A file path that is a symbolic link is not followed.
        let target = root.path().join("target.log");
        std::fs::write(&target, b"").unwrap();
        let log = dir.join("actions.log");
        std::os::unix::fs::symlink(&target, &log).unwrap();
        assert!(file_options().append(true).create(true).open(&log).is_err());
        let fresh = dir.join("f");
        assert!(file_options()
            .write(true)
            .create_new(true)
            .open(&fresh)
            .is_ok());
        let mode = std::fs::metadata(&fresh)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        // /proc/1 (or /) belongs to root; as root, a directory made for nobody stands in.
        let root = tempfile::tempdir().unwrap();
        let theirs = root.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let other = if me == 0 { 65534 } else { 0 };
        if me == 0 {
            let path =
                std::ffi::CString::new(theirs.as_os_str().as_encoded_bytes()).unwrap_or_default();
            // SAFETY: a valid NUL-terminated path; chown has no other preconditions.
            assert_eq!(unsafe { libc::chown(path.as_ptr(), other, other) }, 0);
            let e = ensure_dir(&theirs).err();
            let owner = e
                .and_then(|e| e.details)
                .and_then(|d| d.get("owner").cloned());
            assert_eq!(owner, Some(serde_json::json!(other)));
        } else {
            let e = ensure_dir(Path::new("/")).err();
            let owner = e
                .and_then(|e| e.details)
                .and_then(|d| d.get("owner").cloned());
            assert_eq!(owner, Some(serde_json::json!(0)));
        }
    }
}
