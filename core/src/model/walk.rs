//! The bounded walk every synchronous accessibility API shares.
//!
//! UI Automation (from its cache) and macOS AX (from batched attribute reads) both answer "what is
//! this element" and "what are its children" one element at a time. [`walk_tree`] turns such a
//! [`TreeSource`] into a snapshot's node arena: breadth-first, so a node limit cuts the deepest
//! nodes rather than whole later branches; bounded by node count, depth and time; with every
//! left-out child counted on its parent and in the [`Truncation`] report. [`into_preorder`]
//! renumbers any arrival-order arena into the pre-order a [`Snapshot`](crate::model::element::Snapshot)
//! promises (the Linux walk uses it too).

use std::collections::VecDeque;
use std::time::Instant;

use crate::model::element::{Node, SnapshotOptions, Truncation, TruncationReason};

/// Children read per element at most (a 10 000-row list is not read row by row).
pub const MAX_CHILDREN_READ: usize = 400;

/// One element tree, read synchronously.
pub trait TreeSource {
    /// A handle to one element.
    type Element;

    /// The element's node: role, name, states, bounds, actions and identity. The walk fills
    /// `parent`, `children` and `omitted_children`. `None` when the element does not answer.
    fn node(&mut self, element: &Self::Element) -> Option<Node>;

    /// The element's children in order; `None` when it does not answer.
    fn children(&mut self, element: &Self::Element) -> Option<Vec<Self::Element>>;
}

/// Walks from `root` within `options`' limits, stopping at `deadline`. The root is always read;
/// `None` when the root itself does not answer.
pub fn walk_tree<S: TreeSource>(
    source: &mut S,
    root: S::Element,
    options: &SnapshotOptions,
    deadline: Instant,
) -> Option<(Vec<Node>, Option<Truncation>)> {
    let max_nodes = options.max_nodes.max(1) as usize;
    let mut nodes: Vec<Node> = Vec::new();
    let mut truncation: Option<TruncationReason> = None;
    let mut omitted: u32 = 0;
    let mut cut = |nodes: &mut Vec<Node>, parent: Option<u32>, count: u32, reason| {
        if count == 0 {
            return;
        }
        if let Some(p) = parent {
            nodes[p as usize].omitted_children += count;
        }
        truncation.get_or_insert(reason);
        omitted += count;
    };
    let mut queue: VecDeque<(S::Element, Option<u32>, u32)> = VecDeque::from([(root, None, 0)]);
    while let Some((element, parent, depth)) = queue.pop_front() {
        if parent.is_some() && Instant::now() >= deadline {
            cut(&mut nodes, parent, 1, TruncationReason::TimeBudget);
            for (_, p, _) in queue.drain(..) {
                cut(&mut nodes, p, 1, TruncationReason::TimeBudget);
            }
            break;
        }
        let Some(mut node) = source.node(&element) else {
            parent?;
            cut(&mut nodes, parent, 1, TruncationReason::Unresponsive);
            continue;
        };
        let index = nodes.len() as u32;
        node.parent = parent;
        node.children.clear();
        node.omitted_children = 0;
        if let Some(p) = parent {
            nodes[p as usize].children.push(index);
        }
        nodes.push(node);
        let Some(mut children) = source.children(&element) else {
            continue;
        };
        if options.max_depth.is_some_and(|d| depth >= d) {
            let n = children.len() as u32;
            cut(&mut nodes, Some(index), n, TruncationReason::DepthLimit);
            continue;
        }
        if children.len() > MAX_CHILDREN_READ {
            let n = (children.len() - MAX_CHILDREN_READ) as u32;
            children.truncate(MAX_CHILDREN_READ);
            cut(&mut nodes, Some(index), n, TruncationReason::NodeLimit);
        }
        let room = max_nodes.saturating_sub(nodes.len() + queue.len());
        if children.len() > room {
            let n = (children.len() - room) as u32;
            children.truncate(room);
            cut(&mut nodes, Some(index), n, TruncationReason::NodeLimit);
        }
        queue.extend(children.into_iter().map(|c| (c, Some(index), depth + 1)));
    }
    let nodes = into_preorder(nodes);
    Some((
        nodes,
        truncation.map(|reason| Truncation { reason, omitted }),
    ))
}

/// Reorders a tree whose nodes were numbered in arrival order (root first) into pre-order,
/// renumbering the parent and children links.
pub fn into_preorder(nodes: Vec<Node>) -> Vec<Node> {
    if nodes.is_empty() {
        return nodes;
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![0u32];
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(nodes[i as usize].children.iter().rev());
    }
    let mut new_index = vec![u32::MAX; nodes.len()];
    for (new, old) in order.iter().enumerate() {
        new_index[*old as usize] = new as u32;
    }
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|old| slots[*old as usize].take())
        .map(|mut n| {
            n.parent = n.parent.map(|p| new_index[p as usize]);
            for c in &mut n.children {
                *c = new_index[*c as usize];
            }
            n
        })
        .collect()
}

/// Hangs a pre-order tree under the root of `nodes` as its last child, keeping pre-order: a
/// popup menu that the toolkit keeps outside the window's tree joins the window it is drawn
/// over.
pub fn graft_last(nodes: &mut Vec<Node>, subtree: Vec<Node>) {
    if nodes.is_empty() || subtree.is_empty() {
        return;
    }
    let base = nodes.len() as u32;
    nodes[0].children.push(base);
    nodes.extend(subtree.into_iter().map(|mut n| {
        n.parent = Some(n.parent.map_or(0, |p| p + base));
        for c in &mut n.children {
            *c += base;
        }
        n
    }));
}

/// The end of the subtree rooted at `at` in a pre-order arena: its nodes are `at..end`.
pub fn subtree_end(nodes: &[Node], at: usize) -> usize {
    let mut end = at + 1;
    while end < nodes.len() {
        // Pre-order: the subtree goes on while the next node's parent lies inside it.
        match nodes[end].parent {
            Some(p) if (at..end).contains(&(p as usize)) => end += 1,
            _ => break,
        }
    }
    end.min(nodes.len())
}

/// Replaces the subtree rooted at `at` in a pre-order arena by `subtree` (pre-order, its root
/// first), which takes the old root's place under the same parent; every link is renumbered so
/// the result is pre-order again. An `at` outside the arena or an empty `subtree` changes
/// nothing.
pub fn splice(nodes: Vec<Node>, at: usize, subtree: Vec<Node>) -> Vec<Node> {
    if at >= nodes.len() || subtree.is_empty() {
        return nodes;
    }
    let end = subtree_end(&nodes, at);
    let added = subtree.len();
    // An index past the old subtree moves by the difference in size.
    let moved = |i: u32| -> u32 {
        if (i as usize) < end {
            i
        } else {
            (i as usize + added - (end - at)) as u32
        }
    };
    let parent = nodes[at].parent;
    let mut out = Vec::with_capacity(nodes.len() - (end - at) + added);
    let mut rest = nodes.into_iter();
    out.extend(rest.by_ref().take(at));
    let rest = rest.skip(end - at);
    let base = at as u32;
    out.extend(subtree.into_iter().map(|mut n| {
        n.parent = match n.parent {
            None => parent,
            Some(p) => Some(p + base),
        };
        for c in &mut n.children {
            *c += base;
        }
        n
    }));
    out.extend(rest);
    let (before, after) = out.split_at_mut(at);
    for n in before.iter_mut().chain(after.iter_mut().skip(added)) {
        n.parent = n.parent.map(moved);
        for c in &mut n.children {
            *c = moved(*c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::model::element::ElementIdentity;
    use crate::model::role::Role;

    /// A tree given as `(name, children)` by index; names starting with `!` do not answer.
    struct Fake {
        tree: Vec<(&'static str, Vec<usize>)>,
        reads: usize,
    }

    impl TreeSource for Fake {
        type Element = usize;
        fn node(&mut self, e: &usize) -> Option<Node> {
            self.reads += 1;
            let (name, _) = &self.tree[*e];
            if name.starts_with('!') {
                return None;
            }
            let mut n = Node::new(Role::Button, ElementIdentity(format!("id{e}")));
            n.name = (*name).to_owned();
            Some(n)
        }
        fn children(&mut self, e: &usize) -> Option<Vec<usize>> {
            Some(self.tree[*e].1.clone())
        }
    }

    fn fake() -> Fake {
        // root ─ a ─ a1, a2
        //      └ b ─ b1
        Fake {
            tree: vec![
                ("root", vec![1, 2]),
                ("a", vec![3, 4]),
                ("b", vec![5]),
                ("a1", vec![]),
                ("a2", vec![]),
                ("b1", vec![]),
            ],
            reads: 0,
        }
    }

    /// Every link of a pre-order arena agrees: each child names its parent, in order.
    fn consistent(nodes: &[Node]) -> bool {
        nodes.iter().enumerate().all(|(i, n)| {
            n.children
                .iter()
                .all(|&c| nodes.get(c as usize).and_then(|c| c.parent) == Some(i as u32))
        }) && into_preorder(nodes.to_vec())
            .iter()
            .zip(nodes)
            .all(|(a, b)| a.identity == b.identity)
    }

    #[test]
    fn a_spliced_subtree_takes_the_old_ones_place_in_pre_order() {
        let walked = |tree| {
            let mut source = Fake { tree, reads: 0 };
            let far = Instant::now() + Duration::from_secs(5);
            walk_tree(&mut source, 0, &SnapshotOptions::default(), far).map(|w| w.0)
        };
        let Some(window) = walked(fake().tree) else {
            panic!("the fake answers");
        };
        assert_eq!(names(&window), ["root", "a", "a1", "a2", "b", "b1"]);
        assert_eq!(subtree_end(&window, 1), 4);
        assert_eq!(subtree_end(&window, 4), 6);
        assert_eq!(subtree_end(&window, 0), 6);
        // "a" now holds three children: everything after it moves down by one.
        let Some(grown) = walked(vec![
            ("a", vec![1, 2, 3]),
            ("a1", vec![]),
            ("new", vec![]),
            ("a2", vec![]),
        ]) else {
            panic!("the fake answers");
        };
        let spliced = splice(window.clone(), 1, grown);
        assert_eq!(names(&spliced), ["root", "a", "a1", "new", "a2", "b", "b1"]);
        assert!(consistent(&spliced));
        assert_eq!(spliced[0].children, [1, 5]);
        // "b" lost its child: nothing after, the root's links stay.
        let Some(shrunk) = walked(vec![("b", vec![])]) else {
            panic!("the fake answers");
        };
        let spliced = splice(window.clone(), 4, shrunk);
        assert_eq!(names(&spliced), ["root", "a", "a1", "a2", "b"]);
        assert!(consistent(&spliced));
        // "a" emptied: "b" moves up.
        let Some(emptied) = walked(vec![("a", vec![])]) else {
            panic!("the fake answers");
        };
        let spliced = splice(window, 1, emptied);
        assert_eq!(names(&spliced), ["root", "a", "b", "b1"]);
        assert_eq!(spliced[0].children, [1, 2]);
        assert!(consistent(&spliced));
    }

    fn names(nodes: &[Node]) -> Vec<&str> {
        nodes.iter().map(|n| n.name.as_str()).collect()
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn a_grafted_tree_is_the_roots_last_child_in_preorder() {
        let walk = || {
            walk_tree(&mut fake(), 0, &SnapshotOptions::default(), later())
                .unwrap_or_else(|| panic!("root answered"))
                .0
        };
        let mut nodes = walk();
        graft_last(&mut nodes, walk());
        assert_eq!(nodes.len(), 12);
        assert_eq!(nodes[0].children, vec![1, 4, 6]);
        assert_eq!(nodes[6].parent, Some(0));
        assert_eq!(nodes[6].children, vec![7, 10]);
        assert_eq!(nodes[11].parent, Some(10));
        assert_eq!(into_preorder(nodes.clone()), nodes, "already in pre-order");
    }

    #[test]
    fn a_whole_tree_comes_out_in_preorder_with_links() {
        let (nodes, truncation) = walk_tree(&mut fake(), 0, &SnapshotOptions::default(), later())
            .unwrap_or_else(|| panic!("root answered"));
        assert_eq!(names(&nodes), ["root", "a", "a1", "a2", "b", "b1"]);
        assert_eq!(nodes[0].children, vec![1, 4]);
        assert_eq!(nodes[2].parent, Some(1));
        assert_eq!(nodes[5].parent, Some(4));
        assert!(truncation.is_none());
    }

    #[test]
    fn the_node_limit_cuts_the_deepest_level_first_and_counts_it() {
        let options = SnapshotOptions {
            max_nodes: 4,
            ..SnapshotOptions::default()
        };
        let (nodes, truncation) =
            walk_tree(&mut fake(), 0, &options, later()).unwrap_or_else(|| panic!("root"));
        assert_eq!(names(&nodes), ["root", "a", "a1", "b"]);
        assert_eq!(nodes[1].omitted_children, 1, "a2 left out");
        assert_eq!(nodes[3].omitted_children, 1, "b1 left out");
        assert_eq!(
            truncation,
            Some(Truncation {
                reason: TruncationReason::NodeLimit,
                omitted: 2
            })
        );
    }

    #[test]
    fn depth_limit_and_silent_elements_are_reported() {
        let options = SnapshotOptions {
            max_depth: Some(1),
            ..SnapshotOptions::default()
        };
        let (nodes, truncation) =
            walk_tree(&mut fake(), 0, &options, later()).unwrap_or_else(|| panic!("root"));
        assert_eq!(names(&nodes), ["root", "a", "b"]);
        assert_eq!(
            truncation.map(|t| (t.reason, t.omitted)),
            Some((TruncationReason::DepthLimit, 3))
        );

        let mut silent = fake();
        silent.tree[1].0 = "!a";
        let (nodes, truncation) = walk_tree(&mut silent, 0, &SnapshotOptions::default(), later())
            .unwrap_or_else(|| panic!("root"));
        assert_eq!(names(&nodes), ["root", "b", "b1"]);
        assert_eq!(nodes[0].omitted_children, 1);
        assert_eq!(
            truncation.map(|t| t.reason),
            Some(TruncationReason::Unresponsive)
        );

        silent.tree[0].0 = "!root";
        assert!(walk_tree(&mut silent, 0, &SnapshotOptions::default(), later()).is_none());
    }

    #[test]
    fn a_spent_budget_still_reads_the_root_and_counts_the_rest() {
        let mut source = fake();
        let (nodes, truncation) =
            walk_tree(&mut source, 0, &SnapshotOptions::default(), Instant::now())
                .unwrap_or_else(|| panic!("root"));
        assert_eq!(names(&nodes), ["root"]);
        assert_eq!(nodes[0].omitted_children, 2);
        assert_eq!(
            truncation.map(|t| (t.reason, t.omitted)),
            Some((TruncationReason::TimeBudget, 2))
        );
        assert_eq!(source.reads, 1);
    }

    #[test]
    fn huge_child_lists_are_capped() {
        let mut tree = vec![("list", (1..=MAX_CHILDREN_READ + 5).collect::<Vec<_>>())];
        tree.extend((0..MAX_CHILDREN_READ + 5).map(|_| ("row", vec![])));
        let mut source = Fake { tree, reads: 0 };
        let (nodes, truncation) = walk_tree(&mut source, 0, &SnapshotOptions::default(), later())
            .unwrap_or_else(|| panic!("root"));
        assert_eq!(nodes.len(), MAX_CHILDREN_READ + 1);
        assert_eq!(nodes[0].omitted_children, 5);
        assert_eq!(truncation.map(|t| t.omitted), Some(5));
    }
}
