//! A combo box shows its chosen item: toolkits that give the combo box no value of its own (GTK 3,
//! Chromium) expose the choice as the selected, or only, item of its closed list. Filled in as
//! the combo box's value when a snapshot is made, so the outline shows it and the closed list
//! can stay offscreen.

use crate::model::node::{Node, State};
use crate::model::role::Role;

/// Gives every combo box without a value the name of its chosen item. `nodes` is in pre-order.
pub(crate) fn fill_combo_values(nodes: &mut [Node]) {
    for index in 0..nodes.len() {
        let Some(node) = nodes.get(index) else {
            continue;
        };
        let has_value = node.value.as_deref().is_some_and(|v| !v.trim().is_empty());
        if node.role != Role::ComboBox || has_value {
            continue;
        }
        if let Some(chosen) = chosen_item(nodes, index) {
            if let Some(node) = nodes.get_mut(index) {
                node.value = Some(chosen);
            }
        }
    }
}

/// The selected (or checked, or only) named item inside the combo box at `index`.
fn chosen_item(nodes: &[Node], index: usize) -> Option<String> {
    let items: Vec<&Node> = descendants(nodes, index)
        .filter(|n| matches!(n.role, Role::MenuItem | Role::ListItem) && !n.name.trim().is_empty())
        .collect();
    let chosen = items
        .iter()
        .find(|n| n.states.contains(State::Selected) || n.states.contains(State::Checked))
        .or(if items.len() == 1 {
            items.first()
        } else {
            None
        })?;
    Some(chosen.name.trim().to_owned())
}

/// The nodes after `index` in pre-order that lie inside it.
fn descendants(nodes: &[Node], index: usize) -> impl Iterator<Item = &Node> {
    let mut inside = vec![index];
    nodes
        .iter()
        .enumerate()
        .skip(index + 1)
        .map_while(move |(i, n)| {
            let parent = n.parent.map(|p| p as usize)?;
            while inside.last().is_some_and(|&open| open != parent) {
                inside.pop();
            }
            (!inside.is_empty()).then(|| {
                inside.push(i);
                n
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::node::ElementIdentity;

    fn node(role: Role, name: &str, parent: Option<u32>) -> Node {
        let mut n = Node::new(role, ElementIdentity(name.into()));
        n.name = name.into();
        n.parent = parent;
        n
    }

    #[test]
    fn regression_a_gtk3_combo_boxs_choice_was_lost_once_its_closed_list_was_offscreen() {
        let mut nodes = vec![
            node(Role::Window, "Claude", None),
            node(Role::ComboBox, "Model", Some(0)),
            node(Role::Menu, "", Some(1)),
            node(Role::MenuItem, "Claude Sonnet 4.5", Some(2)),
            node(Role::ComboBox, "Color", Some(0)),
            node(Role::Menu, "", Some(4)),
            node(Role::MenuItem, "Red", Some(5)),
            node(Role::MenuItem, "Green", Some(5)),
            node(Role::ComboBox, "Size", Some(0)),
            node(Role::Menu, "", Some(8)),
            node(Role::MenuItem, "S", Some(9)),
            node(Role::MenuItem, "M", Some(9)),
            node(Role::Button, "After", Some(0)),
        ];
        nodes[7].states.insert(State::Selected);
        fill_combo_values(&mut nodes);
        assert_eq!(nodes[1].value.as_deref(), Some("Claude Sonnet 4.5"));
        assert_eq!(nodes[4].value.as_deref(), Some("Green"), "the selected one");
        assert_eq!(nodes[8].value, None, "two items, none selected: unknown");
    }

    #[test]
    fn a_combo_box_keeps_its_own_value() {
        let mut nodes = vec![
            node(Role::Window, "w", None),
            node(Role::ComboBox, "Address", Some(0)),
            node(Role::MenuItem, "suggestion", Some(1)),
        ];
        nodes[1].value = Some("https://example.org".into());
        fill_combo_values(&mut nodes);
        assert_eq!(nodes[1].value.as_deref(), Some("https://example.org"));
    }
}
