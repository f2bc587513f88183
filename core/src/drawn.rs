//! Elements the toolkit reports but does not draw, marked [`State::Offscreen`] when a snapshot
//! is made, so that the outline, label matching and the gate agree on what is on screen.
//!
//! A menu bar or toolbar whose bounds are known and empty draws nothing, whatever positions its
//! items report: LibreOffice (GTK 3 plugin) keeps its own VCL menu bar, 0 px high, beside GTK's,
//! and its eleven menus, at believable positions a few pixels off the drawn ones, made every
//! menu appear twice (and `click(app, "Help")` ambiguous between two identical candidates).
//! Other containers are not used to clip: a zero-height web section draws its floated children.

use crate::element::{Node, State};
use crate::role::Role;

/// Marks every element under an empty menu bar or toolbar offscreen. `nodes` is in pre-order.
pub(crate) fn mark_undrawn(nodes: &mut [Node]) {
    let mut hidden = vec![false; nodes.len()];
    for i in 0..nodes.len() {
        let Some(node) = nodes.get(i) else {
            continue;
        };
        let parent_hides = node
            .parent
            .and_then(|p| hidden.get(p as usize).copied())
            .unwrap_or(false);
        let empty_bar = matches!(node.role, Role::MenuBar | Role::Toolbar)
            && node.bounds.is_some_and(|b| b.is_empty());
        if let Some(slot) = hidden.get_mut(i) {
            *slot = parent_hides || empty_bar;
        }
    }
    for (node, hide) in nodes.iter_mut().zip(hidden) {
        if hide {
            node.states.insert(State::Offscreen);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementIdentity;
    use crate::geometry::Rect;

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
        mark_undrawn(&mut nodes);
        let offscreen: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].states.contains(State::Offscreen))
            .collect();
        assert_eq!(
            offscreen,
            vec![3, 4, 5],
            "only the empty bar and what it holds"
        );
    }
}
