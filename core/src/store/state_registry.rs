//! Observations (`state_id`s) that outlive the process that made them: 30 s, used once.
//!
//! Each state is one JSON file in `<sessions_dir>/states/`. Files are written to a temporary name
//! and renamed into place (never half-written), and a state is consumed by creating `ID.used`
//! exclusively (`O_EXCL`, `CREATE_NEW`) and then removing `ID.json`: exclusive creation is atomic
//! on every OS, so of two processes acting on the same state exactly one wins, with no lock to
//! leak. (Renaming `ID.json` over was not: Windows' rename replaces, and under Wine two of 16
//! threads won.) A call refused before acting never consumes its state. Expired files
//! are purged every [`PURGE_EVERY`](crate::store::persist::PURGE_EVERY) saves, and the directory holds
//! at most [`MAX_STATES`] states plus the saves since the last clean-up.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::element::{DesktopInstance, ElementIdentity};
use crate::model::geometry::Rect;
use crate::model::role::Role;
use crate::model::window::WindowId;

/// How long a state can be used.
pub const STATE_TTL: Duration = Duration::from_secs(30);
/// Most states kept at once; the oldest go first.
pub const MAX_STATES: usize = 512;

/// One element as the observation saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedElement {
    /// The short id shown to the agent (`e7`).
    pub id: String,
    /// What the backend resolves again.
    pub identity: ElementIdentity,
    /// Role at observation time.
    pub role: Role,
    /// Name at observation time.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Window-relative bounds at observation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// Had keyboard focus at observation time (the safety gate checks it before Enter).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
    /// Was not on screen at observation time (listed only with `all`): acting on it is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offscreen: bool,
}

/// One observation of one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedState {
    /// The id handed to the agent.
    pub state_id: String,
    /// The observed window.
    pub window: WindowId,
    /// The desktop instance that issued it.
    pub desktop: DesktopInstance,
    /// The window's rectangle when observed (for the moved/resized check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_bounds: Option<Rect>,
    /// The window's size when observed, also where its position is unknown (Wayland): the
    /// space coordinates are checked against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_size: Option<crate::model::geometry::Size>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// The elements the agent can address.
    pub elements: Vec<SavedElement>,
    /// The window was a dialog when observed (its effects are watched to the end: its Return
    /// changes a field, then closes it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dialog: bool,
}

impl SavedState {
    /// The window's own rectangle at observation time, at the origin (what window-relative
    /// points lie in); `None` when neither its position nor its size was known.
    pub fn window_rect(&self) -> Option<crate::model::geometry::Rect> {
        use crate::model::geometry::Rect;
        self.window_bounds
            .map(|b| Rect::new(0, 0, b.width, b.height))
            .or_else(|| self.window_size.map(|s| Rect::new(0, 0, s.width, s.height)))
    }

    /// The window's size in a snapshot: from its rectangle, else from the root element's extents
    /// (Wayland knows sizes, not positions).
    pub fn window_size_of(
        snapshot: &crate::model::element::Snapshot,
    ) -> Option<crate::model::geometry::Size> {
        snapshot
            .window
            .bounds
            .or_else(|| snapshot.root().and_then(|r| r.bounds))
            .filter(|b| !b.is_empty())
            .map(|b| crate::model::geometry::Size {
                width: b.width,
                height: b.height,
            })
    }

    /// The smallest element whose bounds contain `p`: what a click at `p` would hit.
    pub fn element_at(&self, p: crate::model::geometry::Point) -> Option<&SavedElement> {
        self.elements
            .iter()
            .filter(|e| e.bounds.is_some_and(|b| b.contains(p)))
            .min_by_key(|e| {
                e.bounds
                    .map(|b| i64::from(b.width) * i64::from(b.height))
                    .unwrap_or(i64::MAX)
            })
    }

    /// The element with short id `id`.
    pub fn element(&self, id: &str) -> Result<&SavedElement> {
        self.elements.iter().find(|e| e.id == id).ok_or_else(|| {
            Error::new(
                ErrorCode::ElementNotFound,
                format!("no element {id} in state {}", self.state_id),
            )
        })
    }
}

/// Refuses anything but a state id (`s` and 12 hex digits): no separator, no `..`, so an id
/// names one file of the directory and nothing else.
pub fn check_id(id: &str) -> Result<()> {
    let valid =
        id.len() == 13 && id.starts_with('s') && id[1..].chars().all(|c| c.is_ascii_hexdigit());
    if valid {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::InvalidArgument,
        format!("{id:?} is not a state_id"),
    )
    .with_suggestion("Pass the state_id exactly as gui_state returned it."))
}

/// The registry in one directory.
#[derive(Debug, Clone)]
pub struct StateRegistry {
    dir: PathBuf,
    ttl: Duration,
    purges: crate::store::persist::PurgeSchedule,
}

use crate::store::persist::now_ms;

impl StateRegistry {
    /// A registry under `sessions_dir/states`.
    pub fn new(sessions_dir: &Path) -> StateRegistry {
        StateRegistry {
            dir: sessions_dir.join("states"),
            ttl: STATE_TTL,
            purges: Default::default(),
        }
    }

    /// The same registry with another lifetime (tests).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> StateRegistry {
        self.ttl = ttl;
        self
    }

    /// A fresh, unguessable-enough id: time, pid and a per-process counter, hashed.
    pub fn new_id() -> String {
        use std::hash::{BuildHasher, Hasher};
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(now_ms());
        h.write_u32(std::process::id());
        h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        format!("s{:012x}", h.finish() & 0xffff_ffff_ffff)
    }

    fn path(&self, id: &str, ext: &str) -> Result<PathBuf> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.{ext}")))
    }

    /// Stores a state (atomically) and purges expired ones.
    pub fn save(&self, state: &SavedState) -> Result<()> {
        crate::store::private::ensure_dir(&self.dir)?;
        let path = self.path(&state.state_id, "json")?;
        let bytes = serde_json::to_vec(state)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        crate::store::persist::write_atomic(&path, &bytes)
            .map_err(|e| crate::store::private::storage_error("cannot store", &path, e))?;
        self.purge();
        Ok(())
    }

    /// Loads a state that is still usable: exists, unused, young enough, from this desktop.
    pub fn load(&self, id: &str, desktop: &DesktopInstance) -> Result<SavedState> {
        let path = self.path(id, "json")?;
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(self.missing(id)?),
            Err(e) => {
                return Err(crate::store::private::storage_error(
                    "cannot read",
                    &path,
                    e,
                ))
            }
        };
        let state: SavedState = serde_json::from_slice(&bytes).map_err(|e| {
            Error::new(
                ErrorCode::StateExpired,
                format!("state {id} is unreadable: {e}"),
            )
        })?;
        let age = now_ms().saturating_sub(state.created_ms);
        if age > self.ttl.as_millis() as u64 {
            return Err(Error::new(
                ErrorCode::StateExpired,
                format!(
                    "state {id} is {:.1} s old; states live {} s",
                    age as f64 / 1000.0,
                    self.ttl.as_secs()
                ),
            ));
        }
        if &state.desktop != desktop {
            return Err(Error::new(
                ErrorCode::StateExpired,
                format!(
                    "state {id} was issued by another desktop instance ({}), not this one ({})",
                    state.desktop.0, desktop.0
                ),
            )
            .with_suggestion("Observe this desktop again with gui_state."));
        }
        Ok(state)
    }

    /// Claims the state for one acting call. Exactly one caller succeeds; the others get
    /// `STATE_ALREADY_USED`.
    pub fn consume(&self, id: &str) -> Result<()> {
        let from = self.path(id, "json")?;
        let to = self.path(id, "used")?;
        if !from.exists() {
            return Err(self.missing(id)?);
        }
        if !crate::store::persist::has_room(&self.dir, crate::store::persist::ROOM_FOR_AN_ACTION) {
            // Refused before anything is sent: the action's records could not be written.
            return Err(Error::new(
                ErrorCode::StorageFailed,
                format!(
                    "the disk of {} is full: the action could not be recorded, so it was not sent",
                    self.dir.display()
                ),
            )
            .with_details(
                serde_json::json!({ "path": self.dir.display().to_string(), "disk_full": true }),
            ));
        }
        // Creating the claim file is the claim: of calls racing for one state only one
        // creates it (a rename alone is not: on Windows, as Wine showed, two renames through
        // handles opened before either moved the file both succeed). The winner then marks the
        // state used; a call that comes after finds it gone.
        let claim = self.path(id, "claim")?;
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&claim)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Error::new(
                    ErrorCode::StateAlreadyUsed,
                    format!("state {id} was already used by an earlier action call"),
                ))
            }
            Err(e) => {
                return Err(crate::store::private::storage_error(
                    "cannot consume",
                    &claim,
                    e,
                ))
            }
        }
        let renamed = std::fs::rename(&from, &to);
        // Best effort: a claim left behind only refuses a state that is used anyway.
        let _ = std::fs::remove_file(&claim);
        match renamed {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(self.missing(id)?),
            Err(e) => Err(crate::store::private::storage_error(
                "cannot consume",
                &to,
                e,
            )),
        }
    }

    /// Gives back a state [`Self::consume`] took, for a call that then sent nothing (the input
    /// failed before it reached the app): it stays usable, as if never consumed.
    pub fn restore(&self, id: &str) -> Result<()> {
        let used = self.path(id, "used")?;
        let state = self.path(id, "json")?;
        std::fs::rename(&used, &state)
            .map_err(|e| crate::store::private::storage_error("cannot restore", &state, e))
    }

    fn missing(&self, id: &str) -> Result<Error> {
        Ok(if self.path(id, "used")?.exists() {
            Error::new(
                ErrorCode::StateAlreadyUsed,
                format!("state {id} was already used by an earlier action call"),
            )
        } else {
            Error::new(
                ErrorCode::StateExpired,
                format!("state {id} is unknown or expired"),
            )
        })
    }

    /// Deletes expired states (used or not) and the oldest beyond [`MAX_STATES`], when due.
    fn purge(&self) {
        if self.purges.due() {
            crate::store::persist::purge_dir(&self.dir, self.ttl * 2, MAX_STATES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(id: &str, desktop: &str) -> SavedState {
        SavedState {
            state_id: id.to_owned(),
            window: WindowId("x11:0x1".into()),
            desktop: DesktopInstance(desktop.into()),
            window_bounds: Some(Rect::new(10, 20, 300, 200)),
            window_size: None,
            created_ms: now_ms(),
            dialog: false,
            elements: vec![SavedElement {
                id: "e1".into(),
                identity: ElementIdentity(":1.5|/b".into()),
                role: Role::Button,
                name: "7".into(),
                bounds: Some(Rect::new(1, 2, 3, 4)),
                focused: false,
                offscreen: false,
            }],
        }
    }

    fn registry() -> (tempfile::TempDir, StateRegistry) {
        let dir = tempfile::tempdir().unwrap();
        let reg = StateRegistry::new(dir.path());
        (dir, reg)
    }

    #[test]
    fn the_directory_stays_near_its_cap_with_clean_ups_every_few_saves() {
        let (dir, reg) = registry();
        let saves = MAX_STATES + 3 * crate::store::persist::PURGE_EVERY as usize;
        for _ in 0..saves {
            reg.save(&state(&StateRegistry::new_id(), "d")).unwrap();
        }
        let held = std::fs::read_dir(dir.path().join("states"))
            .unwrap()
            .count();
        assert!(held > MAX_STATES / 2, "{held}: nothing is purged early");
        assert!(
            held < MAX_STATES + crate::store::persist::PURGE_EVERY as usize,
            "{held} files after {saves} saves"
        );
    }

    #[test]
    fn save_load_consume_once() {
        let (_dir, reg) = registry();
        let id = StateRegistry::new_id();
        let desk = DesktopInstance("d1".into());
        reg.save(&state(&id, "d1")).unwrap();
        let loaded = reg.load(&id, &desk).unwrap();
        assert_eq!(
            loaded.element("e1").map(|e| e.name.as_str()).ok(),
            Some("7")
        );
        assert_eq!(
            loaded.element("e9").err().map(|e| e.code),
            Some(ErrorCode::ElementNotFound)
        );
        reg.consume(&id).unwrap();
        assert_eq!(
            reg.consume(&id).err().map(|e| e.code),
            Some(ErrorCode::StateAlreadyUsed)
        );
        assert_eq!(
            reg.load(&id, &desk).err().map(|e| e.code),
            Some(ErrorCode::StateAlreadyUsed)
        );
        // A call that then sent nothing gives it back whole.
        reg.restore(&id).unwrap();
        assert_eq!(
            reg.load(&id, &desk).ok().map(|s| s.elements.len()),
            Some(loaded.elements.len())
        );
        reg.consume(&id).unwrap();
    }

    #[test]
    fn expired_unknown_foreign_and_malformed_states_are_refused() {
        let (_dir, reg) = registry();
        let reg = reg.with_ttl(Duration::from_millis(50));
        let desk = DesktopInstance("d1".into());
        let id = StateRegistry::new_id();
        reg.save(&state(&id, "d1")).unwrap();
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(
            reg.load(&id, &desk).err().map(|e| e.code),
            Some(ErrorCode::StateExpired)
        );
        assert_eq!(
            reg.load(&StateRegistry::new_id(), &desk)
                .err()
                .map(|e| e.code),
            Some(ErrorCode::StateExpired)
        );
        assert_eq!(
            reg.load("../../etc/passwd", &desk).err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
        let (_dir2, reg2) = registry();
        let other = StateRegistry::new_id();
        reg2.save(&state(&other, "another-desktop")).unwrap();
        let err = reg2.load(&other, &desk).err();
        assert_eq!(err.as_ref().map(|e| e.code), Some(ErrorCode::StateExpired));
        assert!(err.is_some_and(|e| e.message.contains("another desktop")));
    }

    #[test]
    fn exactly_one_of_many_concurrent_consumers_wins() {
        let (_dir, reg) = registry();
        let id = StateRegistry::new_id();
        reg.save(&state(&id, "d1")).unwrap();
        let winners: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| s.spawn(|| reg.consume(&id).is_ok()))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(false) as usize)
                .sum()
        });
        assert_eq!(winners, 1);
    }

    #[test]
    fn ids_are_distinct_and_well_formed() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| StateRegistry::new_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| id.len() == 13 && id.starts_with('s')));
    }
}
