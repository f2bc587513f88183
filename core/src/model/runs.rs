//! Text that holds its children in reading order. Browsers give a paragraph's text with one
//! object replacement character (U+FFFC) where each child element sits: "<strong>2</strong>
//! items left" is the text "\u{fffc} items left" and a child "2". Each character is replaced by
//! its child's text when a snapshot is made, so the paragraph reads "2 items left" (and the
//! outline need not list "2" apart, before its sentence, out of order).

use crate::model::node::Node;
use crate::model::role::Role;

/// The object replacement character.
const EMBEDDED: char = '\u{fffc}';

/// Puts each node's children's text where the node's value marks them. `nodes` is in pre-order.
/// When the markers and the children cannot be paired, the markers are only removed.
pub(crate) fn merge_text_runs(nodes: &mut [Node]) {
    for index in 0..nodes.len() {
        let Some(value) = nodes
            .get(index)
            .and_then(|n| n.value.as_deref())
            .filter(|v| v.contains(EMBEDDED))
        else {
            continue;
        };
        let marks = value.chars().filter(|&c| c == EMBEDDED).count();
        let children: Vec<&Node> = nodes
            .get(index)
            .map(|n| n.children.as_slice())
            .unwrap_or_default()
            .iter()
            .filter_map(|c| nodes.get(*c as usize))
            .collect();
        // Firefox exposes only the embedded elements as children; Chromium also exposes the text
        // between them, as plain text leaves that have no marker.
        let embedded: Vec<&Node> = if children.len() == marks {
            children
        } else {
            children.into_iter().filter(|c| !is_plain_text(c)).collect()
        };
        let paired = embedded.len() == marks;
        let mut texts = embedded.into_iter().map(text_of);
        let mut merged = String::with_capacity(value.len());
        for c in value.chars() {
            if c != EMBEDDED {
                merged.push(c);
            } else if paired {
                merged.push_str(&texts.next().unwrap_or_default());
            }
        }
        if let Some(node) = nodes.get_mut(index) {
            node.value = Some(merged).filter(|v| !v.trim().is_empty());
        }
    }
}

/// A text leaf that is only text (Chromium's text between elements).
fn is_plain_text(node: &Node) -> bool {
    node.role == Role::Label && node.children.is_empty() && !node.name.is_empty()
}

/// What a child contributes to its parent's text: its name, or else its value.
fn text_of(node: &Node) -> String {
    let name = node.name.trim();
    if name.is_empty() {
        node.value.clone().unwrap_or_default()
    } else {
        node.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::node::ElementIdentity;

    fn node(role: Role, name: &str, value: Option<&str>, parent: Option<u32>) -> Node {
        let mut n = Node::new(role, ElementIdentity(name.into()));
        n.name = name.into();
        n.value = value.map(str::to_owned);
        n.parent = parent;
        n
    }

    #[test]
    fn regression_a_counter_read_as_two_pieces_in_the_wrong_order() {
        let mut nodes = vec![
            node(Role::Window, "Todo", None, None),
            node(Role::Paragraph, "", Some("\u{fffc} items left"), Some(0)),
            node(Role::Label, "", Some("2"), Some(1)),
            node(
                Role::Paragraph,
                "",
                Some("see \u{fffc} or \u{fffc}"),
                Some(0),
            ),
            node(Role::Link, "docs", None, Some(3)),
        ];
        nodes[0].children = vec![1, 3];
        nodes[1].children = vec![2];
        nodes[3].children = vec![4];
        merge_text_runs(&mut nodes);
        assert_eq!(nodes[1].value.as_deref(), Some("2 items left"));
        assert_eq!(
            nodes[3].value.as_deref(),
            Some("see  or "),
            "markers that cannot be paired with children are only removed"
        );
    }

    #[test]
    fn chromium_exposes_the_text_between_elements_as_children_without_markers() {
        let mut nodes = vec![
            node(Role::Window, "Todo", None, None),
            node(Role::Paragraph, "", Some("\u{fffc} items left"), Some(0)),
            node(Role::Label, "", Some("2"), Some(1)),
            node(Role::Label, "2", Some("2"), Some(2)),
            node(Role::Label, " items left", Some(" items left"), Some(1)),
            node(Role::ListItem, "", Some("\u{fffc}Buy milk"), Some(0)),
            node(Role::CheckBox, "", None, Some(5)),
            node(Role::Label, "Buy milk", Some("Buy milk"), Some(5)),
        ];
        nodes[0].children = vec![1, 5];
        nodes[1].children = vec![2, 4];
        nodes[2].children = vec![3];
        nodes[5].children = vec![6, 7];
        merge_text_runs(&mut nodes);
        assert_eq!(nodes[1].value.as_deref(), Some("2 items left"));
        assert_eq!(nodes[5].value.as_deref(), Some("Buy milk"));
    }
}
