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

pub use crate::model::view::{Scope, View, ViewLine};

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
    use crate::model::element::ElementIdentity;

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

/// A swapped panel told in one line, through `diff` ([`crate::model::swapped`]).
#[cfg(test)]
mod swap_tests {
    use super::*;
    use crate::model::element::ElementIdentity;

    fn line(id: &str, key: &str, parent: Option<&str>, body: &str) -> ViewLine {
        ViewLine {
            id: id.into(),
            identity: ElementIdentity(key.into()),
            key: None,
            parent: parent.map(str::to_owned),
            body: body.into(),
        }
    }

    fn panel(prefix: &str, name: &str, n: usize) -> Vec<ViewLine> {
        let mut lines = vec![line(
            &format!("e{prefix}0"),
            prefix,
            Some("side"),
            &format!("group \"{name}\""),
        )];
        for i in 1..n {
            lines.push(line(
                &format!("e{prefix}{i}"),
                &format!("{prefix}{i}"),
                Some(prefix),
                &format!("button \"{name} {i}\""),
            ));
        }
        lines
    }

    #[test]
    fn a_sidebar_that_swapped_its_panels_is_one_line() {
        let head = || {
            vec![
                line("e1", "win", None, "window \"Impress\""),
                line("e2", "side", Some("win"), "panel \"Sidebar\""),
                line("e3", "bold", Some("win"), "toggle_button \"Bold\""),
            ]
        };
        let mut old = head();
        old.extend(panel("c", "Character", 4));
        old.extend(panel("p", "Paragraph", 3));
        let mut new = head();
        new.extend(panel("s", "Slide", 3));
        new.extend(panel("l", "Layouts", 5));
        new[2].body = "toggle_button \"Bold\" pressed".into();
        let changes = diff(&old, &new);
        assert_eq!(
            changes.render(),
            "~ e3 toggle_button \"Bold\" pressed (was toggle_button \"Bold\")\n\
             ~ e2 panel \"Sidebar\" swapped: Character, Paragraph → Slide, Layouts (−7 +8 elements; gui_state subtree=\"e2\" lists them)\n"
        );
        assert!(changes.added.is_empty() && changes.removed.is_empty());
    }

    #[test]
    fn a_window_whose_page_swapped_is_one_line() {
        let page = |p: &str| -> Vec<ViewLine> {
            (0..5)
                .map(|i| {
                    line(
                        &format!("e{p}{i}"),
                        &format!("{p}{i}"),
                        None,
                        &format!("button \"{p} {i}\""),
                    )
                })
                .collect()
        };
        let mut old = vec![line(
            "e1",
            "switch",
            None,
            "radio_button \"Page 1\" checked",
        )];
        old.extend(page("a"));
        let mut new = vec![line("e1", "switch", None, "radio_button \"Page 1\"")];
        new.extend(page("b"));
        let rendered = diff(&old, &new).render();
        assert!(
            rendered.ends_with(
                "~ the window's content swapped: a 0, a 1, a 2, a 3, … → b 0, b 1, b 2, b 3, … (−5 +5 elements; gui_state lists them)\n"
            ),
            "{rendered}"
        );
    }

    #[test]
    fn a_few_elements_that_come_and_go_are_listed_one_by_one() {
        let old = vec![
            line("e1", "win", None, "window \"W\""),
            line("e2", "a", Some("win"), "button \"A\""),
        ];
        let new = vec![
            line("e1", "win", None, "window \"W\""),
            line("e3", "b", Some("win"), "button \"B\""),
        ];
        assert_eq!(
            diff(&old, &new).render(),
            "+ e3 button \"B\"\n- e2 button \"A\"\n"
        );
    }
}
