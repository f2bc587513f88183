//! What changed between two observations of one window, line by line.
//!
//! An observation's [`View`] is its outline as `(id, identity, body)` lines; the body is the line
//! after the id (`button "Save" @40,12 focused`). Two views are compared by element identity:
//! an element only in the new one was added, one only in the old one removed, one in both with a
//! different body changed; a container whose content was replaced is one line
//! ([`crate::model::swapped`]). Ids stay stable because the new outline was rendered with the old
//! view's ids kept ([`crate::model::outline::OutlineOptions::keep_ids`]), so `e7` means the same
//! element before and after.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::model::element::{DesktopInstance, ElementIdentity};
use crate::model::window::WindowId;

/// One listed element of an observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewLine {
    /// Its short id (`e7`).
    pub id: String,
    /// What the backend resolves again.
    pub identity: ElementIdentity,
    /// What two views are compared by when it is not the identity (a sheet's cell by its
    /// name: [`crate::model::outline::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The key of the nearest listed element that holds it (`None`: at the top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Its outline line after the id.
    pub body: String,
}

/// An observation's outline, kept so a later one can say what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The observation's `state_id`.
    pub state_id: String,
    /// The observed window.
    pub window: WindowId,
    /// The desktop instance that observed it.
    pub desktop: DesktopInstance,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Every listed element, in outline order.
    pub lines: Vec<ViewLine>,
    /// What part of the window it covered: a later diff against it covers the same.
    #[serde(default)]
    pub scope: Scope,
}

/// What part of a window an observation listed, so a diff compares like with like (a diff
/// against a query's answer is a diff of that query).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// Only the elements matching this query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Only this element and what it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtree: Option<ElementIdentity>,
    /// Only the web page on screen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page: bool,
    /// Every element, not only interactive and text ones.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Rows of one table (not a base for a diff).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub table: bool,
}

impl View {
    /// The ids to keep when the same window is observed again.
    pub fn keep_ids(&self) -> HashMap<String, String> {
        self.lines
            .iter()
            .map(|l| (l.key().to_owned(), l.id.clone()))
            .collect()
    }
}

impl ViewLine {
    /// What this line is compared by across observations.
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.identity.0)
    }
}

/// The difference of two views.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Lines (`e31 dialog "Save changes?"`) of elements that are new.
    pub added: Vec<String>,
    /// Lines of elements that are gone, as they were.
    pub removed: Vec<String>,
    /// `(line now, body before)` of elements whose line changed.
    pub changed: Vec<(String, String)>,
    /// Containers whose content was replaced, told as one line each (their lines are in
    /// neither `added` nor `removed`).
    pub swapped: Vec<crate::model::swapped::Swap>,
    /// Elements whose line is the same.
    pub unchanged: usize,
}

impl Changes {
    /// Nothing was added, removed or changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.swapped.is_empty()
    }

    /// The changes as outline lines: `+ e31 …` added, `- e7 …` removed, `~ e3 … (was …)`
    /// changed, in the new outline's order (removed ones in the old order, after them).
    pub fn render(&self) -> String {
        let mut text = String::new();
        for line in &self.added {
            let _ = writeln!(text, "+ {line}");
        }
        for (line, was) in &self.changed {
            let _ = writeln!(text, "~ {line} (was {was})");
        }
        for swap in &self.swapped {
            let _ = writeln!(text, "{}", swap.render());
        }
        for line in &self.removed {
            let _ = writeln!(text, "- {line}");
        }
        text
    }
}

/// What changed from `old` to `new`. `added` and `changed` keep `new`'s order, so an agent
/// reads them top to bottom as on screen.
pub fn diff(old: &[ViewLine], new: &[ViewLine]) -> Changes {
    let before: HashMap<&str, &ViewLine> = old.iter().map(|l| (l.key(), l)).collect();
    let now: std::collections::HashSet<&str> = new.iter().map(ViewLine::key).collect();
    let (swapped, told) = crate::model::swapped::swaps(old, new);
    let mut changes = Changes {
        swapped,
        ..Changes::default()
    };
    for line in new {
        match before.get(line.key()) {
            None if told.contains(line.key()) => {}
            None => changes.added.push(format!("{} {}", line.id, line.body)),
            Some(was) if was.body != line.body => changes
                .changed
                .push((format!("{} {}", line.id, line.body), was.body.clone())),
            Some(_) => changes.unchanged += 1,
        }
    }
    changes.removed = old
        .iter()
        .filter(|l| !now.contains(l.key()) && !told.contains(l.key()))
        .map(|l| format!("{} {}", l.id, l.body))
        .collect();
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, identity: &str, body: &str) -> ViewLine {
        ViewLine {
            id: id.into(),
            identity: ElementIdentity(identity.into()),
            key: None,
            parent: None,
            body: body.into(),
        }
    }

    #[test]
    fn added_removed_changed_and_unchanged_by_identity() {
        let old = [
            line("e1", "a", "text \"Result\" =\"0\" @5,5"),
            line("e2", "b", "button \"Go\" @5,30"),
            line("e3", "c", "button \"Cancel\" @50,30"),
        ];
        let new = [
            line("e1", "a", "text \"Result\" =\"42\" @5,5"),
            line("e2", "b", "button \"Go\" @5,30"),
            line("e4", "d", "dialog \"Done\" @100,100"),
        ];
        let changes = diff(&old, &new);
        assert_eq!(changes.added, ["e4 dialog \"Done\" @100,100"]);
        assert_eq!(changes.removed, ["e3 button \"Cancel\" @50,30"]);
        assert_eq!(
            changes.changed,
            [(
                "e1 text \"Result\" =\"42\" @5,5".to_owned(),
                "text \"Result\" =\"0\" @5,5".to_owned()
            )]
        );
        assert_eq!(changes.unchanged, 1);
        assert_eq!(
            changes.render(),
            "+ e4 dialog \"Done\" @100,100\n~ e1 text \"Result\" =\"42\" @5,5 (was text \"Result\" =\"0\" @5,5)\n- e3 button \"Cancel\" @50,30\n"
        );
    }

    #[test]
    fn the_same_view_has_no_changes() {
        let view = [line("e1", "a", "button \"Go\"")];
        let changes = diff(&view, &view);
        assert!(changes.is_empty());
        assert_eq!(changes.unchanged, 1);
        assert_eq!(changes.render(), "");
    }
}
