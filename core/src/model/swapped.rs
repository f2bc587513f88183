//! A panel that swapped its content is one line of a diff, not every element of both panels:
//! LibreOffice Impress's sidebar replaces its Character and Paragraph panels with Slide and
//! Layouts on a click, which listed ~40 elements removed and added (~1.3k tokens an action).
//!
//! A container that is in both observations (or the window itself) and whose content was
//! replaced (at least [`SWAP_MIN`] of the elements under it removed and as many added, counting
//! each element under its nearest container that stayed) is told as `~ e12 group "Sidebar" swapped: Character,
//! Paragraph → Slide, Layouts (−14 +12 elements; gui_state subtree="e12" lists them)`.

use std::collections::{HashMap, HashSet};

use crate::model::view::ViewLine;

/// How many elements a container must lose and gain to count as swapped.
pub const SWAP_MIN: usize = 4;
/// How many of the names that went and came one swap line shows.
const NAMES: usize = 4;

/// One container whose content was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    /// The container's line now (`e12 group "Sidebar"`); `None`: the window's own content.
    pub line: Option<String>,
    /// The short id of the container (`e12`).
    pub id: Option<String>,
    /// What its content was named before (its listed children that went).
    pub gone: Vec<String>,
    /// What its content is named now (its listed children that came).
    pub came: Vec<String>,
    /// How many elements went from under it.
    pub removed: usize,
    /// How many elements came under it.
    pub added: usize,
}

/// The containers of `old` and `new` whose content swapped, and the keys of the lines each
/// swap accounts for (so they are not listed one by one).
pub(crate) fn swaps(old: &[ViewLine], new: &[ViewLine]) -> (Vec<Swap>, HashSet<String>) {
    let before: HashSet<&str> = old.iter().map(ViewLine::key).collect();
    let now: HashSet<&str> = new.iter().map(ViewLine::key).collect();
    let stayed = |k: &str| before.contains(k) && now.contains(k);
    // Each line that went or came, under its nearest container that stayed.
    let gone = under_stayed(old, |l| !now.contains(l.key()), &stayed);
    let came = under_stayed(new, |l| !before.contains(l.key()), &stayed);
    let mut swaps = Vec::new();
    let mut told = HashSet::new();
    // The window itself (the lines at the top) first, then each listed container.
    let containers = std::iter::once(None).chain(new.iter().map(Some));
    for container in containers {
        let key = container.map_or(WINDOW, ViewLine::key);
        let (Some(went), Some(arrived)) = (gone.get(key), came.get(key)) else {
            continue;
        };
        if went.len() < SWAP_MIN || arrived.len() < SWAP_MIN {
            continue;
        }
        let names = |lines: &[&ViewLine]| -> Vec<String> {
            lines
                .iter()
                .filter(|l| l.parent.as_deref().unwrap_or(WINDOW) == key)
                .map(|l| label_of(&l.body))
                .collect()
        };
        swaps.push(Swap {
            line: container.map(|c| format!("{} {}", c.id, c.body)),
            id: container.map(|c| c.id.clone()),
            gone: names(went),
            came: names(arrived),
            removed: went.len(),
            added: arrived.len(),
        });
        told.extend(went.iter().chain(arrived).map(|l| l.key().to_owned()));
    }
    (swaps, told)
}

/// The key the lines at the top of an outline are held by: the window.
const WINDOW: &str = "";

/// The lines of `view` that `pick` takes, by the key of their nearest ancestor that `stayed`.
fn under_stayed<'v>(
    view: &'v [ViewLine],
    pick: impl Fn(&ViewLine) -> bool,
    stayed: &dyn Fn(&str) -> bool,
) -> HashMap<&'v str, Vec<&'v ViewLine>> {
    let parent: HashMap<&str, &str> = view
        .iter()
        .filter_map(|l| Some((l.key(), l.parent.as_deref()?)))
        .collect();
    let mut under: HashMap<&str, Vec<&ViewLine>> = HashMap::new();
    for line in view.iter().filter(|l| pick(l)) {
        let mut at = parent.get(line.key()).copied();
        // A chain is at most as long as the view (a cycle cannot make it loop); one that
        // reaches the top without a container that stayed is the window's.
        let mut holder = WINDOW;
        for _ in 0..view.len() {
            match at {
                Some(p) if stayed(p) => {
                    holder = p;
                    break;
                }
                Some(p) => at = parent.get(p).copied(),
                None => break,
            }
        }
        under.entry(holder).or_default().push(line);
    }
    under
}

/// What a line's element is called: its quoted name, else its role.
fn label_of(body: &str) -> String {
    let quoted = body
        .split_once('"')
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(name, _)| name)
        .filter(|n| !n.is_empty());
    match quoted {
        Some(name) => name.to_owned(),
        None => body
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

impl Swap {
    /// `~ e12 group "Sidebar" swapped: A, B → C, D (−14 +12 elements; …)`.
    pub fn render(&self) -> String {
        let list = |names: &[String]| {
            let mut shown = names
                .iter()
                .take(NAMES)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > NAMES {
                shown.push_str(", …");
            }
            if shown.is_empty() {
                shown.push('…');
            }
            shown
        };
        let (what, how) = match (&self.line, &self.id) {
            (Some(line), Some(id)) => (
                line.as_str(),
                format!("gui_state subtree=\"{id}\" lists them"),
            ),
            _ => ("the window's content", "gui_state lists them".to_owned()),
        };
        format!(
            "~ {what} swapped: {} → {} (−{} +{} elements; {how})",
            list(&self.gone),
            list(&self.came),
            self.removed,
            self.added,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_called_by_its_name_or_its_role() {
        assert_eq!(label_of("group \"Slide\" focused"), "Slide");
        assert_eq!(label_of("toggle_button checked"), "toggle_button");
    }
}
