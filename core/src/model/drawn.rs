//! Elements the toolkit reports but does not draw, marked [`State::Offscreen`] when a snapshot
//! is made, so that the outline, label matching and the gate agree on what is on screen.
//!
//! A menu bar or toolbar whose bounds are known and empty draws nothing, whatever positions its
//! items report: LibreOffice (GTK 3 plugin) keeps its own VCL menu bar, 0 px high, beside GTK's,
//! and its eleven menus, at believable positions a few pixels off the drawn ones, made every
//! menu appear twice (and `click(app, "Help")` ambiguous between two identical candidates).
//! Other containers are not used to clip: a zero-height web section draws its floated children.
//!
//! What the backend marks offscreen hides what it holds when it is a menu or a document (a
//! closed menu's items, a background tab's page, whatever their own states say: Chromium reports
//! a closed combo box's items as showing). Other containers do not: LibreOffice leaves `SHOWING`
//! off panels whose children are drawn (the formula bar's input line).
//!
//! An element whose rectangle lies wholly outside the window (scrolled below the fold, or
//! placed at negative coordinates) is not on screen either.

use crate::model::geometry::Rect;
use crate::model::node::{Node, State};
use crate::model::role::Role;

/// Marks offscreen every element under an empty menu bar or toolbar, under an offscreen menu or
/// document, and every element outside the window (`window`, window-relative, where known; else
/// the root's rectangle: a whole window's on Wayland). `nodes` is in pre-order: a subtree's too,
/// whose root is not the window (a combo box's open list lies below the combo box).
pub(crate) fn mark_undrawn(nodes: &mut [Node], window: Option<Rect>) {
    let window = window
        .or_else(|| nodes.first().and_then(|root| root.bounds))
        .filter(|b| !b.is_empty())
        .map(|b| Rect::new(0, 0, b.width, b.height));
    // Whether each node hides what it holds.
    let mut hides = vec![false; nodes.len()];
    for i in 0..nodes.len() {
        let parent_hides = nodes
            .get(i)
            .and_then(|n| n.parent)
            .and_then(|p| hides.get(p as usize).copied())
            .unwrap_or(false);
        let Some(node) = nodes.get_mut(i) else {
            continue;
        };
        let outside = i > 0
            && window.is_some_and(|w| {
                node.bounds
                    .is_some_and(|b| !b.is_empty() && b.intersection(&w).is_none())
            });
        let empty_bar = matches!(node.role, Role::MenuBar | Role::Toolbar)
            && node.bounds.is_some_and(|b| b.is_empty());
        if parent_hides || outside || empty_bar {
            node.states.insert(State::Offscreen);
        }
        let hidden_whole = matches!(node.role, Role::Menu | Role::Document)
            && node.states.contains(State::Offscreen);
        if let Some(slot) = hides.get_mut(i) {
            *slot = parent_hides || empty_bar || hidden_whole;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::node::ElementIdentity;

    fn node(role: Role, name: &str, parent: Option<u32>, bounds: Rect) -> Node {
        let mut n = Node::new(role, ElementIdentity(name.into()));
        n.name = name.into();
        n.parent = parent;
        n.bounds = Some(bounds);
        n
    }

    #[test]
    fn regression_libreoffices_undrawn_vcl_menu_bar_listed_every_menu_twice() {
        let mut nodes = vec![
            node(Role::Window, "Writer", None, Rect::new(0, 0, 1920, 1061)),
            node(Role::MenuBar, "", Some(0), Rect::new(0, 0, 1896, 25)),
            node(Role::Menu, "Help", Some(1), Rect::new(520, 0, 36, 25)),
            node(Role::MenuBar, "", Some(0), Rect::new(0, 0, 1920, 0)),
            node(Role::Menu, "Help", Some(3), Rect::new(480, 0, 34, 19)),
            node(Role::MenuItem, "About", Some(4), Rect::new(480, 20, 90, 19)),
            node(Role::Group, "", Some(0), Rect::new(0, 30, 1920, 0)),
            node(Role::Button, "floated", Some(6), Rect::new(0, 30, 50, 20)),
        ];
        mark_undrawn(&mut nodes, None);
        let offscreen: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].states.contains(State::Offscreen))
            .collect();
        assert_eq!(
            offscreen,
            vec![3, 4, 5],
            "only the empty bar and what it holds"
        );
    }

    fn offscreen(nodes: &[Node]) -> Vec<usize> {
        (0..nodes.len())
            .filter(|&i| nodes[i].states.contains(State::Offscreen))
            .collect()
    }

    #[test]
    fn regression_firefox_listed_a_background_tabs_page_over_the_visible_one() {
        let mut nodes = vec![
            node(Role::Window, "Firefox", None, Rect::new(0, 0, 1280, 972)),
            node(
                Role::Document,
                "Active",
                Some(0),
                Rect::new(0, 85, 1280, 887),
            ),
            node(Role::Button, "Send", Some(1), Rect::new(10, 100, 50, 20)),
            node(
                Role::Document,
                "Background",
                Some(0),
                Rect::new(0, 85, 1280, 887),
            ),
            node(Role::Group, "", Some(3), Rect::new(0, 85, 1280, 300)),
            node(
                Role::Button,
                "Try Again",
                Some(4),
                Rect::new(10, 100, 50, 20),
            ),
        ];
        nodes[3].states.insert(State::Offscreen);
        mark_undrawn(&mut nodes, None);
        assert_eq!(
            offscreen(&nodes),
            vec![3, 4, 5],
            "the hidden page and all it holds, even what says it shows"
        );
    }

    #[test]
    fn elements_outside_the_window_are_offscreen_but_a_hidden_panel_does_not_hide_its_children() {
        let mut nodes = vec![
            node(Role::Window, "Page", None, Rect::new(0, 0, 800, 600)),
            node(
                Role::Button,
                "Below the fold",
                Some(0),
                Rect::new(10, 700, 50, 20),
            ),
            node(
                Role::MenuItem,
                "Closed",
                Some(0),
                Rect::new(-200, -30, 90, 19),
            ),
            node(
                Role::Button,
                "Half in",
                Some(0),
                Rect::new(780, 590, 50, 20),
            ),
            node(
                Role::Group,
                "Input line",
                Some(0),
                Rect::new(0, 100, 800, 20),
            ),
            node(Role::Paragraph, "=A1", Some(4), Rect::new(0, 100, 800, 20)),
        ];
        nodes[4].states.insert(State::Offscreen);
        mark_undrawn(&mut nodes, None);
        assert_eq!(offscreen(&nodes), vec![1, 2, 4]);
    }
}

#[cfg(test)]
mod subtree_tests {
    use super::*;
    use crate::model::element::ElementIdentity;

    fn node(role: Role, parent: Option<u32>, bounds: Rect) -> Node {
        let mut n = Node::new(role, ElementIdentity(format!("{role:?}")));
        n.parent = parent;
        n.bounds = Some(bounds);
        n
    }

    /// A snapshot of a Qt combo box's subtree marked its open list's items offscreen: they lie
    /// outside the combo box, which was taken for the window.
    #[test]
    fn regression_a_subtrees_root_was_taken_for_the_window() {
        let subtree = || {
            vec![
                node(Role::ComboBox, None, Rect::new(118, 431, 65, 23)),
                node(Role::List, Some(0), Rect::new(119, 432, 63, 92)),
                node(Role::ListItem, Some(1), Rect::new(119, 501, 63, 23)),
                node(Role::ListItem, Some(1), Rect::new(119, 900, 63, 23)),
            ]
        };
        let mut nodes = subtree();
        mark_undrawn(&mut nodes, Some(Rect::new(130, 20, 441, 530)));
        let off: Vec<bool> = nodes
            .iter()
            .map(|n| n.states.contains(State::Offscreen))
            .collect();
        assert_eq!(off, vec![false, false, false, true]);
        let mut unknown = subtree();
        mark_undrawn(&mut unknown, None);
        assert!(
            unknown[2].states.contains(State::Offscreen),
            "the root's rectangle, as before"
        );
    }
}
