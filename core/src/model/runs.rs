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

/// Joins text leaves that sit next to each other on one line into the first, in reading order:
/// Chromium exposes "<strong>2</strong> items left" inside a plain `<span>` as two sibling
/// labels, "2" and "items left", with no parent whose text holds both (TodoMVC's counter).
/// The later ones are emptied (the outline lists no textless label). `nodes` is in pre-order.
pub(crate) fn merge_inline_runs(nodes: &mut [Node]) {
    for parent in 0..nodes.len() {
        let children: Vec<usize> = nodes
            .get(parent)
            .map(|n| n.children.iter().map(|c| *c as usize).collect())
            .unwrap_or_default();
        let mut run: Option<usize> = None;
        for child in children {
            let joined = run.and_then(|first| join(nodes, first, child));
            match (run, joined) {
                (Some(first), Some(text)) => {
                    if let Some(node) = nodes.get_mut(first) {
                        node.name = text;
                        node.value = None;
                    }
                    empty(nodes, child);
                    // The first's own text leaves are in its text now.
                    let inner: Vec<usize> = nodes
                        .get(first)
                        .map(|n| n.children.iter().map(|c| *c as usize).collect())
                        .unwrap_or_default();
                    for leaf in inner {
                        empty(nodes, leaf);
                    }
                }
                _ => run = is_run(nodes, child).then_some(child),
            }
        }
    }
}

/// Clears the text of `index` and of the text leaves it holds.
fn empty(nodes: &mut [Node], index: usize) {
    let inner: Vec<usize> = nodes
        .get(index)
        .map(|n| n.children.iter().map(|c| *c as usize).collect())
        .unwrap_or_default();
    for i in inner.into_iter().chain([index]) {
        if let Some(node) = nodes.get_mut(i) {
            node.name.clear();
            node.value = None;
        }
    }
}

/// A piece of text alone: a label with text and a position that holds nothing but text leaves
/// (Chromium's `<strong>` holds its words as a leaf of its own).
fn is_run(nodes: &[Node], index: usize) -> bool {
    nodes.get(index).is_some_and(|n| {
        n.role == Role::Label
            && n.bounds.is_some_and(|b| !b.is_empty())
            && !text_of(n).trim().is_empty()
            && n.children.iter().all(|c| {
                nodes
                    .get(*c as usize)
                    .is_some_and(|c| c.role == Role::Label && c.children.is_empty())
            })
    })
}

/// The text of `first` and `next` read as one, when `next` is a run that continues `first`'s
/// line: their middles within half the lower one's height, and `next` starting where `first`
/// ends, at most one line height further right.
fn join(nodes: &[Node], first: usize, next: usize) -> Option<String> {
    if !is_run(nodes, next) {
        return None;
    }
    let (a, b) = (nodes.get(first)?, nodes.get(next)?);
    let (ra, rb) = (a.bounds?, b.bounds?);
    let height = ra.height.min(rb.height);
    let same_line = (ra.center().y - rb.center().y).abs() * 2 <= height;
    let gap = rb.x - (ra.x + ra.width);
    if !same_line || gap < -1 || gap > height {
        return None;
    }
    let (left, right) = (text_of(a), text_of(b));
    let spaced = gap > 1 && !left.ends_with(' ') && !right.starts_with(' ');
    Some(format!(
        "{}{}{}",
        left.trim_start(),
        if spaced { " " } else { "" },
        right.trim_end()
    ))
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

    /// Issue 40 (TodoMVC's own markup): `<span><strong>2</strong> items left</span>` reached
    /// the outline as two labels, "2" and "items left".
    #[test]
    fn regression_a_counter_on_a_public_app_came_as_two_pieces() {
        use crate::model::geometry::Rect;
        let mut nodes = vec![
            node(Role::Document, "TodoMVC", None, None),
            // `<strong>2</strong>`: a label holding its words as a leaf.
            node(Role::Label, "", Some("2"), Some(0)),
            node(Role::Label, "2", None, Some(1)),
            node(Role::Label, "items left", None, Some(0)),
            // Another line: not joined.
            node(Role::Label, "All", None, Some(0)),
        ];
        nodes[0].children = vec![1, 3, 4];
        nodes[1].children = vec![2];
        nodes[0].bounds = Some(Rect::new(0, 0, 800, 600));
        nodes[1].bounds = Some(Rect::new(10, 500, 8, 17));
        nodes[2].bounds = Some(Rect::new(10, 500, 8, 17));
        nodes[3].bounds = Some(Rect::new(22, 500, 70, 17));
        nodes[4].bounds = Some(Rect::new(10, 540, 20, 17));
        merge_inline_runs(&mut nodes);
        assert_eq!(nodes[1].name, "2 items left");
        assert_eq!(nodes[1].value, None);
        assert!(nodes[2].name.is_empty() && nodes[3].name.is_empty());
        assert_eq!(nodes[4].name, "All");
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
