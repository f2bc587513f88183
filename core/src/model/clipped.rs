//! An item is drawn inside its list: the part of it that lies outside is not there to press.
//! Qt reports a combo box's open list items as wide as the longest option would need (176 px
//! in a 63 px popup), so a click at an item's centre missed the popup altogether. An item's
//! bounds are cut to its list's where they overlap, for every backend alike.

use crate::model::node::Node;
use crate::model::role::Role;

/// Cuts every list or menu item's bounds to its parent list's or menu's. `nodes` is in pre-order.
pub(crate) fn clip_items(nodes: &mut [Node]) {
    for index in 0..nodes.len() {
        let Some(node) = nodes.get(index) else {
            continue;
        };
        let item = matches!(
            node.role,
            Role::ListItem | Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
        );
        let (Some(bounds), Some(parent)) = (node.bounds, node.parent) else {
            continue;
        };
        let Some(list) = nodes.get(parent as usize) else {
            continue;
        };
        if !item || !matches!(list.role, Role::List | Role::Menu) {
            continue;
        }
        let cut = list.bounds.and_then(|l| bounds.intersection(&l));
        if let (Some(cut), Some(node)) = (cut, nodes.get_mut(index)) {
            node.bounds = Some(cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::element::ElementIdentity;
    use crate::model::geometry::Rect;

    fn node(role: Role, parent: Option<u32>, bounds: Rect) -> Node {
        let mut n = Node::new(role, ElementIdentity(format!("{role:?}")));
        n.parent = parent;
        n.bounds = Some(bounds);
        n
    }

    #[test]
    fn regression_a_qt_combo_items_centre_lay_outside_its_popup() {
        let mut nodes = vec![
            node(Role::List, None, Rect::new(119, 432, 63, 92)),
            node(Role::ListItem, Some(0), Rect::new(119, 501, 176, 23)),
            // Scrolled out of its list: left as it is (it is offscreen anyway).
            node(Role::ListItem, Some(0), Rect::new(119, 900, 176, 23)),
        ];
        clip_items(&mut nodes);
        assert_eq!(nodes[1].bounds, Some(Rect::new(119, 501, 63, 23)));
        assert_eq!(nodes[2].bounds, Some(Rect::new(119, 900, 176, 23)));
    }

    #[test]
    fn only_items_of_lists_and_menus_are_cut() {
        let mut nodes = vec![
            node(Role::Group, None, Rect::new(0, 0, 10, 10)),
            node(Role::ListItem, Some(0), Rect::new(0, 0, 50, 10)),
        ];
        clip_items(&mut nodes);
        assert_eq!(nodes[1].bounds, Some(Rect::new(0, 0, 50, 10)));
    }
}
