//! Pending approvals: an action the safety gate stopped, waiting for a person's yes or no.
//!
//! Each request is a JSON file in `<sessions>/approvals/` (written atomically), with an optional
//! JPEG crop of the window around the element, so any process of the same user finds it: an MCP
//! server over stdio asks, a separately started `webui` shows it and decides. Decisions and
//! withdrawals (the asking call gave up) happen under one lock file, so a late "yes" can never
//! land on a request whose caller already left, and a request is decided at most once.
//!
//! What this protects against, and what not: a model acting alone through the tools cannot
//! approve its own request (it has no way to write here through MCP). An agent that can run
//! shell commands as the same user can write these files itself; only another user or another
//! machine stops that.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::geometry::Rect;
use crate::model::role::Role;
use crate::store::persist::now_ms;

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for a person.
    Pending,
    /// A person said yes.
    Approved,
    /// A person said no.
    Denied,
    /// The asking call stopped waiting (its time ran out).
    Withdrawn,
}

/// The element an action would touch, as the person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Its role.
    pub role: Role,
    /// Its label.
    pub name: String,
    /// Window-relative bounds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
}

/// One approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// Its id (`a…`).
    pub id: String,
    /// When it was asked, ms since the epoch.
    pub created_ms: u64,
    /// The machine that would act (`local` for this one).
    pub machine: String,
    /// The window id.
    pub window: String,
    /// The window's title.
    pub title: String,
    /// The tool and step (`click`, `gui_action.click`, `type_text`).
    pub action: String,
    /// What would be acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// The window-relative point, for a coordinate action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<crate::model::geometry::Point>,
    /// The blocklist entry that matched.
    pub matched_rule: String,
    /// Where it stands.
    pub status: Status,
    /// Who decided (for the audit log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// When, ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_ms: Option<u64>,
    /// A crop of the window around the target is stored beside it.
    #[serde(default)]
    pub has_crop: bool,
}

/// The approvals directory of one sessions directory.
#[derive(Debug, Clone)]
pub struct Approvals {
    dir: PathBuf,
}

impl Approvals {
    /// Approvals kept in `<sessions_dir>/approvals/`.
    pub fn new(sessions_dir: &Path) -> Approvals {
        Approvals {
            dir: sessions_dir.join("approvals"),
        }
    }

    fn path(&self, id: &str, ext: &str) -> Result<PathBuf> {
        let valid =
            id.starts_with('a') && id.len() <= 40 && id.chars().all(|c| c.is_ascii_alphanumeric());
        if !valid {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("{id:?} is not an approval id"),
            ));
        }
        Ok(self.dir.join(format!("{id}.{ext}")))
    }

    /// The stored crop of a request, if any.
    pub fn crop_path(&self, id: &str) -> Result<PathBuf> {
        self.path(id, "jpg")
    }

    /// Files a new pending request (the crop first, so the page never shows a request whose
    /// image is missing) and returns it with its id.
    pub fn request(&self, mut approval: Approval, crop: Option<&[u8]>) -> Result<Approval> {
        crate::store::private::ensure_dir(&self.dir)?;
        approval.id = format!("a{:016x}{:08x}", now_ms(), rand_u32());
        approval.created_ms = now_ms();
        approval.status = Status::Pending;
        approval.has_crop = crop.is_some();
        if let Some(jpeg) = crop {
            self.write(&self.crop_path(&approval.id)?, jpeg)?;
        }
        self.store(&approval)?;
        Ok(approval)
    }

    /// Reads one request.
    pub fn get(&self, id: &str) -> Result<Approval> {
        let path = self.path(id, "json")?;
        let bytes = std::fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::ElementNotFound, format!("no approval {id}"))
            } else {
                crate::store::private::storage_error("cannot read", &path, e)
            }
        })?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::new(ErrorCode::Internal, format!("approval {id}: {e}")))
    }

    /// Requests still waiting, oldest first; files older than a day are removed.
    pub fn pending(&self) -> Result<Vec<Approval>> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(Vec::new());
        };
        let mut out: Vec<Approval> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            let Ok(a) = self.get(id) else { continue };
            if now_ms().saturating_sub(a.created_ms) > 86_400_000 {
                let _ = std::fs::remove_file(entry.path());
                let _ = self.crop_path(id).map(std::fs::remove_file);
                continue;
            }
            if a.status == Status::Pending {
                out.push(a);
            }
        }
        out.sort_by_key(|a| a.created_ms);
        Ok(out)
    }

    /// A person's decision; refused unless the request is still pending.
    pub fn decide(&self, id: &str, approve: bool, by: &str) -> Result<Approval> {
        let status = if approve {
            Status::Approved
        } else {
            Status::Denied
        };
        self.settle(id, status, Some(by))
    }

    /// The asking call stopped waiting; returns the request as it ended (a decision that came
    /// first stands).
    pub fn withdraw(&self, id: &str) -> Result<Approval> {
        match self.settle(id, Status::Withdrawn, None) {
            Err(e) if e.code == ErrorCode::StateAlreadyUsed => self.get(id),
            other => other,
        }
    }

    fn settle(&self, id: &str, status: Status, by: Option<&str>) -> Result<Approval> {
        crate::store::private::ensure_dir(&self.dir)?;
        let lock_path = self.dir.join("approvals.lock");
        let lock_file = crate::store::private::file_options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| crate::store::private::storage_error("cannot open", &lock_path, e))?;
        let mut lock = fd_lock::RwLock::new(lock_file);
        let _guard = lock
            .write()
            .map_err(|e| crate::store::private::storage_error("cannot lock", &lock_path, e))?;
        let mut approval = self.get(id)?;
        if approval.status != Status::Pending {
            return Err(Error::new(
                ErrorCode::StateAlreadyUsed,
                format!("approval {id} is already {:?}", approval.status).to_lowercase(),
            ));
        }
        approval.status = status;
        approval.decided_by = by.map(str::to_owned);
        approval.decided_ms = Some(now_ms());
        self.store(&approval)?;
        Ok(approval)
    }

    fn store(&self, approval: &Approval) -> Result<()> {
        let bytes = serde_json::to_vec(approval)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        self.write(&self.path(&approval.id, "json")?, &bytes)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        crate::store::persist::write_atomic(path, bytes)
            .map_err(|e| crate::store::private::storage_error("cannot store", path, e))
    }
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(store: &Approvals) -> Approval {
        let a = Approval {
            id: String::new(),
            created_ms: 0,
            machine: "local".into(),
            window: "x11:0x1".into(),
            title: "Form".into(),
            action: "click".into(),
            target: Some(Target {
                role: Role::Button,
                name: "Delete".into(),
                bounds: None,
            }),
            point: None,
            matched_rule: "Delete".into(),
            status: Status::Pending,
            decided_by: None,
            decided_ms: None,
            has_crop: false,
        };
        store.request(a, Some(b"jpeg")).unwrap()
    }

    #[test]
    fn a_request_is_decided_once_and_a_late_yes_never_lands_after_a_withdrawal() {
        let dir = tempfile::tempdir().unwrap();
        let store = Approvals::new(dir.path());
        let a = request(&store);
        assert_eq!(store.pending().map(|p| p.len()).ok(), Some(1));
        assert!(store.crop_path(&a.id).is_ok_and(|p| p.is_file()));
        let decided = store.decide(&a.id, true, "webui 127.0.0.1").unwrap();
        assert_eq!(decided.status, Status::Approved);
        assert!(
            store.decide(&a.id, false, "someone").is_err(),
            "decided once"
        );
        assert_eq!(
            store.withdraw(&a.id).map(|a| a.status).ok(),
            Some(Status::Approved)
        );
        assert_eq!(store.pending().map(|p| p.len()).ok(), Some(0));

        let b = request(&store);
        assert_eq!(
            store.withdraw(&b.id).map(|a| a.status).ok(),
            Some(Status::Withdrawn)
        );
        assert!(store.decide(&b.id, true, "late").is_err());
    }

    #[test]
    fn ids_cannot_reach_outside_the_directory() {
        let store = Approvals::new(Path::new("/tmp/x"));
        for bad in ["../etc/passwd", "a/../../x", "", "b123"] {
            assert!(store.get(bad).is_err(), "{bad}");
        }
    }
}
