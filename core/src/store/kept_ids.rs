//! The ids a window's elements were given, kept from one observation to the next, so that an
//! element keeps its id in every kind of observation: a whole window, `all`, a `query`, a
//! `page`, a subtree, after an action. Without them each observation numbered its own lines, and
//! Firefox's settings tab was `e27` in one answer and `e73` in the next.
//!
//! One small file per window, in `<sessions_dir>/ids/`, written whole after every observation
//! ([`IdStore::remember`]): the element keys ([`crate::model::changes::ViewLine::key`]) mapped to
//! their ids. An id is never given to two keys: a key that takes an id over drops the other.
//! New elements are numbered after the highest id kept, so ids only grow while the window is
//! observed; when the file holds more than [`MAX_KEPT`] ids, the latest observation's start it
//! again and numbering goes on above the highest. The file is forgotten [`KEEP_FOR`] after the
//! window's last observation (then numbering starts again at `e1`; every `state_id` and view of
//! that time has expired with it, and ids are resolved per `state_id` in any case).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::changes::View;
use crate::model::element::DesktopInstance;
use crate::model::window::WindowId;
use crate::store::persist::now_ms;

/// How long a window's ids are kept after its last observation (as long as its views).
pub const KEEP_FOR: Duration = crate::store::views::VIEW_TTL;
/// Most ids kept for one window.
pub const MAX_KEPT: usize = 20_000;
/// The key that holds the highest id given once the ids were started again ([`MAX_KEPT`]): no
/// element's key (they name an application and an object path) is empty.
const HIGHEST: &str = "";

/// Most windows whose ids are kept at once.
const MAX_WINDOWS: usize = 64;

/// The kept ids of the windows, in one directory.
#[derive(Debug, Clone)]
pub struct IdStore {
    dir: PathBuf,
    purges: crate::store::persist::PurgeSchedule,
}

#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    window: WindowId,
    desktop: DesktopInstance,
    updated_ms: u64,
    ids: HashMap<String, String>,
}

impl IdStore {
    /// A store under `sessions_dir/ids`.
    pub fn new(sessions_dir: &Path) -> IdStore {
        IdStore {
            dir: sessions_dir.join("ids"),
            purges: Default::default(),
        }
    }

    /// The file of `window`: its id's bytes in hex, so no id names another file.
    fn path(&self, window: &WindowId) -> PathBuf {
        let hex: String = window.0.bytes().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.json"))
    }

    /// The ids kept for `window` on `desktop` (key → id); empty when none are, or they are
    /// older than [`KEEP_FOR`], or of another desktop instance, or unreadable.
    pub fn load(&self, window: &WindowId, desktop: &DesktopInstance) -> HashMap<String, String> {
        self.read(window)
            .filter(|kept| &kept.desktop == desktop)
            .map(|kept| kept.ids)
            .unwrap_or_default()
    }

    fn read(&self, window: &WindowId) -> Option<Kept> {
        let bytes = std::fs::read(self.path(window)).ok()?;
        let kept: Kept = serde_json::from_slice(&bytes).ok()?;
        let fresh = now_ms().saturating_sub(kept.updated_ms) <= KEEP_FOR.as_millis() as u64;
        (fresh && &kept.window == window).then_some(kept)
    }

    /// Adds the ids of `view` to its window's, each id to its key alone.
    pub fn remember(&self, view: &View) -> Result<()> {
        let mut ids = self.load(&view.window, &view.desktop);
        if ids.len() + view.lines.len() > MAX_KEPT {
            // Started again, but numbering goes on above every id given: an old id never comes
            // back naming another element.
            let highest = ids
                .values()
                .chain(view.lines.iter().map(|l| &l.id))
                .filter_map(|id| id.strip_prefix('e')?.parse::<u64>().ok())
                .max()
                .unwrap_or(0);
            ids.clear();
            ids.insert(HIGHEST.to_owned(), format!("e{highest}"));
        }
        merge(
            &mut ids,
            view.lines.iter().map(|l| (l.key(), l.id.as_str())),
        );
        let kept = Kept {
            window: view.window.clone(),
            desktop: view.desktop.clone(),
            updated_ms: now_ms(),
            ids,
        };
        crate::store::private::ensure_dir(&self.dir)?;
        let path = self.path(&view.window);
        let bytes = serde_json::to_vec(&kept)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        crate::store::persist::write_atomic(&path, &bytes)
            .map_err(|e| crate::store::private::storage_error("cannot store", &path, e))?;
        if self.purges.due() {
            crate::store::persist::purge_dir(&self.dir, KEEP_FOR, MAX_WINDOWS);
        }
        Ok(())
    }
}

/// Puts each `(key, id)` of `lines` into `ids`, dropping any other key that held the id.
pub fn merge<'a>(
    ids: &mut HashMap<String, String>,
    lines: impl Iterator<Item = (&'a str, &'a str)>,
) {
    let lines: Vec<(&str, &str)> = lines.collect();
    let taken: HashMap<&str, &str> = lines.iter().map(|(key, id)| (*id, *key)).collect();
    ids.retain(|key, id| taken.get(id.as_str()).is_none_or(|owner| owner == key));
    for (key, id) in lines {
        ids.insert(key.to_owned(), id.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::changes::ViewLine;
    use crate::model::element::ElementIdentity;

    fn view(window: &str, lines: &[(&str, &str)]) -> View {
        View {
            state_id: "s0123456789ab".into(),
            window: WindowId(window.into()),
            desktop: DesktopInstance("d".into()),
            created_ms: now_ms(),
            scope: Default::default(),
            lines: lines
                .iter()
                .map(|(key, id)| ViewLine {
                    id: (*id).into(),
                    identity: ElementIdentity((*key).into()),
                    key: None,
                    parent: None,
                    body: "button".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn ids_of_every_observation_add_up_and_one_id_names_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let store = IdStore::new(dir.path());
        let window = WindowId("x11:0x1".into());
        let desk = DesktopInstance("d".into());
        assert!(store.load(&window, &desk).is_empty());
        store
            .remember(&view("x11:0x1", &[("a", "e1"), ("b", "e2")]))
            .unwrap();
        // A query's view lists one element: the others keep theirs.
        store.remember(&view("x11:0x1", &[("c", "e3")])).unwrap();
        let ids = store.load(&window, &desk);
        assert_eq!(ids.len(), 3);
        assert_eq!(ids["a"], "e1");
        // "d" took e2 over (a view diffed against an older base): "b" loses it.
        store.remember(&view("x11:0x1", &[("d", "e2")])).unwrap();
        let ids = store.load(&window, &desk);
        assert_eq!(ids.get("b"), None);
        assert_eq!(ids["d"], "e2");
        // Another desktop, another window: nothing.
        assert!(store
            .load(&window, &DesktopInstance("other".into()))
            .is_empty());
        assert!(store.load(&WindowId("x11:0x2".into()), &desk).is_empty());
    }

    #[test]
    fn started_again_past_the_bound_numbering_goes_on_above_the_highest() {
        let dir = tempfile::tempdir().unwrap();
        let store = IdStore::new(dir.path());
        let window = WindowId("x11:0x1".into());
        let desk = DesktopInstance("d".into());
        let many: Vec<(String, String)> = (1..=MAX_KEPT)
            .map(|i| (format!("k{i}"), format!("e{i}")))
            .collect();
        let lines: Vec<(&str, &str)> = many.iter().map(|(k, i)| (k.as_str(), i.as_str())).collect();
        store.remember(&view("x11:0x1", &lines)).unwrap();
        store.remember(&view("x11:0x1", &[("new", "e3")])).unwrap();
        let ids = store.load(&window, &desk);
        assert_eq!(ids.get("new").map(String::as_str), Some("e3"));
        assert!(!ids.contains_key("k1"));
        let highest = ids
            .values()
            .filter_map(|id| id.strip_prefix('e')?.parse::<usize>().ok())
            .max();
        assert_eq!(highest, Some(MAX_KEPT));
    }

    #[test]
    fn a_window_id_names_no_other_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = IdStore::new(dir.path());
        let path = store.path(&WindowId("../../etc/passwd".into()));
        assert_eq!(path.parent(), Some(dir.path().join("ids").as_path()));
    }
}
