//! What will receive an input, read live just before it is sent.
//!
//! The safety gate judges the element that a click or key will really reach, not what an earlier
//! observation listed. A backend answers two live probes (the platform's hit test at a point, and
//! the focused element) with a [`Probe`]: the elements the probe passed through, outermost first,
//! ending at the deepest one it found, plus the labels shown inside that last element. This
//! module turns a probe into what the gate needs: the receiving control, the labels a person
//! reads on it (an unnamed button shown by its child label or icon "Delete" is judged as
//! "Delete"; a description or tooltip counts only when nothing visible names the control), and
//! whether it takes text, opens a menu or sits in one.

use serde::{Deserialize, Serialize};

use crate::model::element::{Node, Snapshot, State};
use crate::model::role::Role;

/// How many levels below the found element [`Probe::from_subtree`] reads labels from.
pub const INNER_LABEL_DEPTH: u32 = 2;

/// What a live probe found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The elements the probe passed through, outermost first; the last is the deepest element
    /// found. Empty when nothing was found (no element at the point, nothing focused).
    pub path: Vec<Node>,
    /// Names of the text elements inside the receiver ([`Probe::receiver_index`], up to
    /// [`INNER_LABEL_DEPTH`] levels), in tree order: what an unnamed control shows. A backend
    /// reads them only when [`Probe::needs_inner_labels`] says so.
    pub inner_labels: Vec<String>,
    /// The receiver is a cell of a sheet, or the editor of the cell being typed into: a
    /// spreadsheet document holds it, whose table moves its own cursor from cell to cell
    /// (LibreOffice Calc), so a Tab or Return from it lands on another of its cells
    /// ([`Probe::carries_through_moves`]).
    #[serde(default)]
    pub in_sheet: bool,
}

impl Probe {
    /// A probe that found nothing.
    pub fn nothing() -> Probe {
        Probe::default()
    }

    /// A probe of one element from a snapshot of its subtree (root = the element).
    pub fn from_subtree(subtree: &Snapshot) -> Probe {
        Probe::from_node(subtree, 0)
    }

    /// A probe of node `index` of `snapshot`, with the labels shown inside it.
    pub fn from_node(subtree: &Snapshot, index: usize) -> Probe {
        let Some(root) = subtree.nodes.get(index) else {
            return Probe::nothing();
        };
        let mut inner_labels = Vec::new();
        let mut stack: Vec<(u32, u32)> = root.children.iter().rev().map(|c| (*c, 1)).collect();
        while let Some((index, depth)) = stack.pop() {
            let Some(node) = subtree.nodes.get(index as usize) else {
                continue;
            };
            if let Some(label) = shown_label(node) {
                inner_labels.push(label.to_owned());
            }
            if depth < INNER_LABEL_DEPTH {
                stack.extend(node.children.iter().rev().map(|c| (*c, depth + 1)));
            }
        }
        let mut element = root.clone();
        holds_items(
            &mut element,
            root.children
                .iter()
                .filter_map(|c| subtree.nodes.get(*c as usize))
                .map(|c| c.role),
        );
        // The children were read; a probe keeps only how many there are.
        element.omitted_children = element
            .omitted_children
            .saturating_add(u32::try_from(element.children.len()).unwrap_or(u32::MAX));
        element.children.clear();
        element.parent = None;
        Probe {
            path: vec![element],
            inner_labels,
            in_sheet: false,
        }
    }

    /// An open popup menu that takes the keys but that the tree does not show (Qt leaves its
    /// popups out): a menu with no name and no readable items, `identity` naming it for messages
    /// only. A letter, a space or Return there presses an item nobody can read, so the gate asks.
    pub fn unreadable_menu(identity: String) -> Probe {
        Probe {
            path: vec![Node::new(
                Role::Menu,
                crate::model::element::ElementIdentity(identity),
            )],
            inner_labels: Vec::new(),
            in_sheet: false,
        }
    }

    /// True when the probe found nothing.
    pub fn is_empty(&self) -> bool {
        self.path.is_empty()
    }

    /// Index into [`Probe::path`] of the element that receives the input: the deepest one a user
    /// acts on (a label's button, a menu), else the deepest found.
    pub fn receiver_index(&self) -> Option<usize> {
        let last = self.path.len().checked_sub(1)?;
        Some(
            self.path
                .iter()
                .rposition(|n| n.role.is_interactive() || n.role == Role::Menu)
                .unwrap_or(last),
        )
    }

    /// The element that receives the input.
    pub fn receiver(&self) -> Option<&Node> {
        self.receiver_index().and_then(|i| self.path.get(i))
    }

    /// True when nothing from the receiver down has a name, so the labels inside it say what it
    /// is.
    pub fn needs_inner_labels(&self) -> bool {
        self.receiver_index()
            .is_some_and(|from| self.path[from..].iter().all(|n| n.name.trim().is_empty()))
    }

    /// What the gate judges: what a person reads as the control's label. That is the names from
    /// the receiver down to the deepest element, and the labels shown inside when the receiver
    /// has no name of its own; only when none of these says anything, the descriptions and
    /// tooltips (then they are what identifies it). A tooltip that mentions "format" does not
    /// make "Replace All" dangerous.
    pub fn labels(&self) -> Vec<String> {
        let Some(from) = self.receiver_index() else {
            return Vec::new();
        };
        let mut out: Vec<String> = self.path[from..].iter().map(|n| n.name.clone()).collect();
        if self.needs_inner_labels() {
            out.extend(self.inner_labels.iter().cloned());
        }
        out.retain(|l| !l.trim().is_empty());
        if out.is_empty() {
            out = self.path[from..]
                .iter()
                .filter_map(|n| n.description.clone())
                .filter(|d| !d.trim().is_empty())
                .collect();
        }
        out
    }

    /// The receiver acts when activated (a button, a link, a menu item) and nothing names it: no
    /// name, no label or icon name inside, no description. What it does is unknown, so the gate
    /// asks. A check box, radio button, switch or toggle button is not counted: it sets an option
    /// that the same action sets back (a web to-do list's row check boxes have no name of their
    /// own; LibreOffice's combo boxes open with an unnamed toggle button).
    pub fn acts_unlabeled(&self) -> bool {
        self.receiver().is_some_and(|n| activates(n.role)) && self.labels().is_empty()
    }

    /// The name the receiver shows (its own, else its first inner label), for messages.
    pub fn shown_name(&self) -> String {
        self.labels().into_iter().next().unwrap_or_default()
    }

    /// The receiver takes typed text: a space or a letter is text, not a press.
    pub fn takes_text(&self) -> bool {
        self.receiver().is_some_and(|n| {
            matches!(
                n.role,
                Role::TextInput | Role::PasswordInput | Role::TextArea | Role::Terminal
            ) || (n.states.contains(State::Editable) && !n.states.contains(State::ReadOnly))
        })
    }

    /// Typed characters leave the keys with the receiver: an editable cell is edited in place
    /// (Calc moves focus into the cell's own editor, which commits and moves on a Tab or Return
    /// as the cell does), so the Tab or Return typed after them is judged by the cell without
    /// reading focus again; where focus goes with it is read, except in a sheet
    /// ([`Probe::carries_through_moves`]). A read-only cell is not one: typing there opens a
    /// message.
    pub fn keeps_typed_focus(&self) -> bool {
        self.receiver().is_some_and(|n| {
            n.role == Role::Cell
                && n.states.contains(State::Editable)
                && !n.states.contains(State::ReadOnly)
        })
    }

    /// Tabs and Returns typed after text into the receiver leave the keys with the sheet it
    /// belongs to: an editable cell of a sheet, or its cell editor ([`Probe::in_sheet`]),
    /// commits and moves the sheet's cursor to another of its cells, where what is typed next
    /// is judged as it was in this one. A cell of a web page's table is not one: a Tab leaves it
    /// for the page's next control.
    pub fn carries_through_moves(&self) -> bool {
        self.in_sheet
            && self.receiver().is_some_and(|n| {
                n.states.contains(State::Editable) && !n.states.contains(State::ReadOnly)
            })
    }

    /// The receiver takes line breaks as text (a text area, an editable document, a terminal).
    pub fn takes_line_breaks(&self) -> bool {
        self.takes_text()
            && self.receiver().is_some_and(|n| {
                matches!(n.role, Role::TextArea | Role::Terminal | Role::Document)
                    || n.states.contains(State::MultiLine)
            })
    }

    /// The receiver sets an option of its own (a check box, radio button or switch): its label
    /// names the option ("Send me the newsletter", "Delete history on exit"), and pressing it
    /// sets that option, which pressing again (or choosing the radio button before) sets back;
    /// some apply at once (Firefox's preferences). The gate still judges a label that spends
    /// money ([`crate::policy::safety::spends_money`]): a page decides its own roles. A toggle
    /// button is not counted: toolbars use it for commands.
    pub fn sets_an_option(&self) -> bool {
        self.receiver().is_some_and(|n| sets_option(n.role))
    }

    /// The receiver only opens a menu (a menu bar's "Format", a submenu): showing items is not an
    /// action, so the gate lets it pass; the items themselves are judged.
    pub fn only_opens_a_menu(&self) -> bool {
        self.receiver().is_some_and(opens_menu_only)
    }

    /// The receiver is an item of an open menu, where a plain letter can be its access key.
    pub fn in_menu(&self) -> bool {
        self.receiver().is_some_and(|n| {
            matches!(
                n.role,
                Role::Menu | Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
            )
        })
    }
}

/// An element whose activation only shows a menu's items: a menu (menu bar entry, submenu) that
/// the platform says opens one (it has a popup, or is expandable; [`holds_items`] marks a menu
/// whose children are items). An element with the role menu that does none of this acts like any
/// control (a web `<div role="menu" onclick=…>Pay now</div>`, whose one child is its text), and
/// is judged like one.
pub fn opens_menu_only(node: &Node) -> bool {
    node.role == Role::Menu
        && (node.states.contains(State::HasPopup)
            || node.states.contains(State::Expanded)
            || node.states.contains(State::Collapsed))
}

/// A menu whose children include items opens them: it is marked as having a popup, for
/// [`opens_menu_only`], where the element is read apart from its children (a live probe).
pub fn holds_items(node: &mut Node, child_roles: impl IntoIterator<Item = Role>) {
    let items = child_roles.into_iter().any(|r| {
        matches!(
            r,
            Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::Menu
                | Role::Separator
        )
    });
    if node.role == Role::Menu && items {
        node.states.insert(State::HasPopup);
    }
}

/// Controls whose press only sets an option of their own, which pressing again sets back: check
/// boxes, radio buttons, switches. Their label names the option, not an action
/// ([`Probe::sets_an_option`]).
pub fn sets_option(role: Role) -> bool {
    matches!(role, Role::CheckBox | Role::RadioButton | Role::Switch)
}

/// Elements whose activation does something that may not be undone by doing it again:
/// pressing, following, choosing a menu's item.
pub fn activates(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::Link
            | Role::Menu
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

/// What a node inside a control shows as its label, if it names the control for a person: a
/// text element's name, else its text (GTK 4 and Firefox keep a label's words in its text
/// only), or an icon's name.
pub fn shown_label(node: &Node) -> Option<&str> {
    let name = node.name.trim();
    if (node.role.is_text() || node.role == Role::Image) && !name.is_empty() {
        return Some(&node.name);
    }
    node.value
        .as_deref()
        .filter(|v| node.role.is_text() && !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::extract::outline_fixture;

    fn probe_of(fixture: &str) -> Probe {
        let s = outline_fixture::parse(&format!("---\n{fixture}")).unwrap();
        Probe::from_subtree(&s)
    }

    #[test]
    fn an_unnamed_button_is_judged_by_its_label() {
        let p = probe_of("button\n  label \"Delete\"\n");
        assert_eq!(p.labels(), vec!["Delete".to_owned()]);
        assert_eq!(p.shown_name(), "Delete");
        let named = probe_of("button \"OK\"\n  label \"Delete\"\n");
        assert_eq!(named.labels(), vec!["OK".to_owned()]);
    }

    #[test]
    fn descriptions_count_only_where_nothing_visible_names_the_control() {
        let mut p = probe_of("button \"\"\n");
        p.path[0].description = Some("Delete the file".into());
        assert_eq!(p.labels(), vec!["Delete the file".to_owned()]);
        assert!(!p.acts_unlabeled());
        let mut named = probe_of("button \"Replace All\"\n");
        named.path[0].description =
            Some("Replaces all of the text or format that you want to replace".into());
        assert_eq!(named.labels(), vec!["Replace All".to_owned()]);
    }

    #[test]
    fn an_icon_names_its_button_and_nothing_at_all_is_unknown() {
        let icon = probe_of("button\n  image \"Delete\"\n");
        assert_eq!(icon.labels(), vec!["Delete".to_owned()]);
        let bare = probe_of("button\n  image\n");
        assert!(bare.labels().is_empty() && bare.acts_unlabeled());
        assert!(!probe_of("group\n").acts_unlabeled(), "a pane does not act");
        assert!(probe_of("link\n").acts_unlabeled());
    }

    #[test]
    fn only_an_editable_cell_keeps_what_is_typed_after_its_letters() {
        assert!(probe_of("cell \"A1\" [editable, focused]\n").keeps_typed_focus());
        assert!(!probe_of("cell \"A1\" [editable, read_only]\n").keeps_typed_focus());
        assert!(!probe_of("cell \"A1\"\n").keeps_typed_focus());
        assert!(!probe_of("text_input \"Name\" [editable]\n").keeps_typed_focus());
    }

    #[test]
    fn a_menu_that_acts_is_judged_like_any_control() {
        assert!(probe_of("menu \"Format\" [has_popup]\n").only_opens_a_menu());
        assert!(probe_of("menu \"Format\"\n  menu_item \"Bold\"\n").only_opens_a_menu());
        assert!(!probe_of("menu \"Pay now\"\n").only_opens_a_menu());
        assert!(
            !probe_of("menu\n  label \"Pay now\"\n").only_opens_a_menu(),
            "its one child is its text"
        );
    }

    #[test]
    fn a_hit_on_a_buttons_label_is_received_by_the_button() {
        let s = outline_fixture::parse(
            "---\nwindow \"W\"\n  group\n    button\n      label \"Delete\"\n",
        )
        .unwrap();
        let p = Probe {
            path: s.nodes.clone(),
            inner_labels: vec![],
            in_sheet: false,
        };
        assert_eq!(p.receiver().map(|n| n.role), Some(Role::Button));
        assert_eq!(p.labels(), vec!["Delete".to_owned()]);
    }

    #[test]
    fn text_fields_menus_and_nothing() {
        assert!(probe_of("text_input \"Name\"\n").takes_text());
        assert!(!probe_of("text_input \"Name\"\n").takes_line_breaks());
        assert!(probe_of("text_area \"Body\"\n").takes_line_breaks());
        assert!(probe_of("document \"Doc\" [editable]\n").takes_line_breaks());
        assert!(!probe_of("document \"Doc\" [editable, read_only]\n").takes_text());
        assert!(!probe_of("button \"Delete\"\n").takes_text());
        assert!(probe_of("menu \"Format\" [has_popup]\n").only_opens_a_menu());
        assert!(!probe_of("menu_item \"Delete\"\n").only_opens_a_menu());
        assert!(probe_of("menu_item \"Delete\"\n").in_menu());
        assert!(Probe::nothing().labels().is_empty());
        assert!(Probe::nothing().receiver().is_none());
    }
}
