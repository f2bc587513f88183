//! Outlines of earlier observations, kept ten minutes so a later observation can answer only
//! what changed (`gui_state since_state_id`, `gui_wait`).
//!
//! A [`View`] is written next to its state, in `<sessions_dir>/views/`, atomically; unlike a
//! state it is never used up (acting on a state is exactly when an agent wants to know what
//! changed) and it lives longer. At most [`MAX_VIEWS`] are kept (plus the saves since the last
//! clean-up); expired ones are purged every [`PURGE_EVERY`](crate::store::persist::PURGE_EVERY) saves.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, ErrorCode, Result};
use crate::model::changes::View;
use crate::model::element::DesktopInstance;
use crate::store::persist::now_ms;

/// How long a view can be compared against.
pub const VIEW_TTL: Duration = Duration::from_secs(600);
/// Most views kept at once; the oldest go first.
pub const MAX_VIEWS: usize = 256;

/// The views in one directory.
#[derive(Debug, Clone)]
pub struct ViewStore {
    dir: PathBuf,
    purges: crate::store::persist::PurgeSchedule,
}

impl ViewStore {
    /// A store under `sessions_dir/views`.
    pub fn new(sessions_dir: &Path) -> ViewStore {
        ViewStore {
            dir: sessions_dir.join("views"),
            purges: Default::default(),
        }
    }

    fn path(&self, id: &str) -> Result<PathBuf> {
        crate::store::state_registry::check_id(id)?;
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// Stores a view (atomically) and purges expired ones.
    pub fn save(&self, view: &View) -> Result<()> {
        crate::store::private::ensure_dir(&self.dir)?;
        let path = self.path(&view.state_id)?;
        let bytes =
            serde_json::to_vec(view).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        crate::store::persist::write_atomic(&path, &bytes)
            .map_err(|e| crate::store::private::storage_error("cannot store", &path, e))?;
        self.purge();
        Ok(())
    }

    /// The view of observation `id`, if it is from this desktop and younger than [`VIEW_TTL`].
    pub fn load(&self, id: &str, desktop: &DesktopInstance) -> Result<View> {
        let path = self.path(id)?;
        let gone = || {
            Error::new(
                ErrorCode::StateExpired,
                format!(
                    "observation {id} is unknown or older than {} minutes",
                    VIEW_TTL.as_secs() / 60
                ),
            )
            .with_suggestion("Observe the window again with gui_state, without since_state_id.")
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(gone()),
            Err(e) => {
                return Err(crate::store::private::storage_error(
                    "cannot read",
                    &path,
                    e,
                ))
            }
        };
        let view: View = serde_json::from_slice(&bytes).map_err(|_| gone())?;
        if now_ms().saturating_sub(view.created_ms) > VIEW_TTL.as_millis() as u64 {
            return Err(gone());
        }
        if &view.desktop != desktop {
            return Err(Error::new(
                ErrorCode::StateExpired,
                format!("observation {id} was made on another desktop instance"),
            )
            .with_suggestion("Observe this desktop again with gui_state."));
        }
        Ok(view)
    }

    fn purge(&self) {
        if self.purges.due() {
            crate::store::persist::purge_dir(&self.dir, VIEW_TTL, MAX_VIEWS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::changes::ViewLine;
    use crate::model::element::ElementIdentity;
    use crate::model::window::WindowId;

    fn view(id: &str) -> View {
        View {
            state_id: id.into(),
            window: WindowId("x11:0x1".into()),
            desktop: DesktopInstance("d".into()),
            created_ms: now_ms(),
            scope: Default::default(),
            lines: vec![ViewLine {
                id: "e1".into(),
                identity: ElementIdentity("a".into()),
                key: None,
                parent: None,
                body: "button \"Go\"".into(),
            }],
        }
    }

    #[test]
    fn saved_views_load_again_on_the_same_desktop_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = ViewStore::new(dir.path());
        let id = crate::store::state_registry::StateRegistry::new_id();
        let saved = view(&id);
        store.save(&saved).unwrap();
        let desk = DesktopInstance("d".into());
        assert_eq!(store.load(&id, &desk).unwrap(), saved);
        let other = DesktopInstance("other".into());
        assert_eq!(
            store.load(&id, &other).unwrap_err().code,
            ErrorCode::StateExpired
        );
    }

    #[test]
    fn ids_that_name_other_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = ViewStore::new(dir.path());
        let desk = DesktopInstance("d".into());
        for id in ["../s0123456789ab", "s0123456789a/", "", "s0123456789abc"] {
            assert_eq!(
                store.load(id, &desk).unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{id}"
            );
        }
    }
}
