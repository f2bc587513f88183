//! LibreOffice's content pane, reported one menu bar too high, moved to where it is drawn (pure,
//! cfg-free), so that the outline's points and clicks by coordinates land on what they name.
//!
//! LibreOffice with its GTK 3 plugin draws GTK's menu bar above its own content (the VCL "root
//! pane": toolbars, document, sheet), but until the first input reaches the window it reports
//! that pane at the menu bar's top: every toolbar button, cell and paragraph sat about 25 px
//! above where it is drawn, and a click by coordinates on cell A4 hit the column header. The
//! tell is exact: a branch beside a drawn menu bar that starts at the bar's top and ends the
//! bar's height short of the window's bottom ([`find`]). It is moved down by that height
//! ([`move_down`]), except the branches GTK itself places inside it ([`placed_by_gtk`]: the
//! sidebar, the style and font boxes), which are reported where they are drawn. Once
//! LibreOffice reports the right place, nothing matches and nothing moves.

use cu_core::model::element::{Node, State};
use cu_core::model::geometry::Rect;
use cu_core::model::role::Role;

/// A branch reported too high.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Misplaced {
    /// The branch's root (index into the pre-order nodes).
    pub pane: usize,
    /// The drawn menu bar whose place it claims.
    pub bar: usize,
    /// How far too high it is (the menu bar's height).
    pub by: i32,
}

/// The branch that sits at a drawn menu bar's place (see the module), if any. `nodes` is in
/// pre-order with window-relative bounds; `window_height` is the window's.
pub fn find(nodes: &[Node], window_height: i32) -> Option<Misplaced> {
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.role == Role::MenuBar && !n.states.contains(State::Offscreen))
        .filter_map(|(bar, n)| Some((bar, n.bounds.filter(|b| !b.is_empty())?)))
        .find_map(|(bar, drawn)| {
            let pane = (0..nodes.len()).find(|&i| {
                nodes[i].bounds.is_some_and(|b| {
                    b.y == drawn.y
                        && b.height > drawn.height
                        && b.y + b.height + drawn.height == window_height
                        && !is_ancestor(nodes, i, bar)
                        && !is_ancestor(nodes, bar, i)
                })
            })?;
            Some(Misplaced {
                pane,
                bar,
                by: drawn.height,
            })
        })
}

/// The branches in the pane that GTK places itself, reported where they are drawn: LibreOffice
/// hosts GTK's own widgets (the sidebar, the toolbars' style and font boxes) in wrappers of its
/// own, reported misplaced like the rest of the pane, so each such widget is a child the exact
/// size of its wrapper, exactly the pane's error below it.
pub fn placed_by_gtk(nodes: &[Node], m: Misplaced) -> Vec<usize> {
    (m.pane + 1..nodes.len())
        .filter(|&i| {
            let (Some(parent), Some(own)) = (nodes[i].parent, nodes[i].bounds) else {
                return false;
            };
            let wrapper = nodes.get(parent as usize).and_then(|p| p.bounds);
            is_ancestor(nodes, m.pane, i)
                && wrapper.is_some_and(|w| {
                    !w.is_empty() && own == Rect::new(w.x, w.y + m.by, w.width, w.height)
                })
        })
        .collect()
}

/// Whether a subtree walked again inside the misplaced pane (`nodes`, pre-order, its root
/// first) holds a branch GTK places itself: a child the exact size of its wrapper, `by` below
/// it, as [`placed_by_gtk`] finds them in a whole walk.
pub fn hosts_gtk(nodes: &[Node], by: i32) -> bool {
    nodes.iter().any(|n| {
        let wrapper = n
            .parent
            .and_then(|p| nodes.get(p as usize))
            .and_then(|p| p.bounds);
        match (wrapper, n.bounds) {
            (Some(w), Some(own)) => {
                !w.is_empty() && own == Rect::new(w.x, w.y + by, w.width, w.height)
            }
            _ => false,
        }
    })
}

/// Moves the pane and everything in it down, except the branches rooted at `placed_by_gtk`;
/// returns the indexes of the elements moved.
pub fn move_down(nodes: &mut [Node], m: Misplaced, placed_by_gtk: &[usize]) -> Vec<usize> {
    let mut moved = Vec::new();
    for i in m.pane..nodes.len() {
        let inside = i == m.pane || is_ancestor(nodes, m.pane, i);
        let kept = placed_by_gtk
            .iter()
            .any(|&k| k == i || is_ancestor(nodes, k, i));
        if inside && !kept {
            if let Some(b) = nodes[i].bounds.as_mut() {
                b.y += m.by;
            }
            moved.push(i);
        }
    }
    moved
}

/// Whether `a` is an ancestor of `d` (following parent links).
fn is_ancestor(nodes: &[Node], a: usize, d: usize) -> bool {
    let mut at = nodes.get(d).and_then(|n| n.parent);
    while let Some(p) = at {
        if p as usize == a {
            return true;
        }
        at = nodes.get(p as usize).and_then(|n| n.parent);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::element::ElementIdentity;

    fn node(role: Role, name: &str, parent: Option<u32>, bounds: Rect) -> Node {
        let mut n = Node::new(role, ElementIdentity(name.into()));
        n.name = name.into();
        n.parent = parent;
        n.bounds = Some(bounds);
        n
    }

    #[test]
    fn a_subtree_walked_again_that_hosts_a_gtk_widget_is_told() {
        let at = |y| Rect::new(0, y, 200, 30);
        // A sidebar panel (LibreOffice's own, misplaced) and a paragraph in it.
        let own = vec![
            node(Role::Group, "panel", None, at(100)),
            node(Role::Paragraph, "text", Some(0), Rect::new(5, 105, 50, 10)),
        ];
        assert!(!hosts_gtk(&own, 25));
        // GTK's own box in a wrapper of LibreOffice's: drawn where it is, 25 below the wrapper.
        let mut hosting = own.clone();
        hosting.push(node(Role::ComboBox, "Font", Some(0), at(125)));
        assert!(hosts_gtk(&hosting, 25));
    }

    /// LibreOffice Writer as read before any input: window 1920x1061 (the frame's extents
    /// include the title bar, hence its negative top).
    fn writer(pane_top: i32) -> Vec<Node> {
        let mut nodes = vec![
            node(Role::Window, "Writer", None, Rect::new(0, -19, 1920, 1080)),
            node(Role::Group, "", Some(0), Rect::new(0, 0, 1920, 1061)),
            node(Role::MenuBar, "", Some(1), Rect::new(0, 0, 1896, 25)),
            node(Role::Menu, "File", Some(2), Rect::new(0, 0, 38, 25)),
            node(
                Role::Group,
                "pane",
                Some(1),
                Rect::new(0, pane_top, 1920, 1036),
            ),
            node(
                Role::Toolbar,
                "Standard",
                Some(4),
                Rect::new(0, pane_top, 1254, 39),
            ),
            node(
                Role::Button,
                "Open",
                Some(5),
                Rect::new(48, pane_top + 2, 44, 35),
            ),
            // The sidebar: GTK's widgets (reported where drawn) in LibreOffice's wrapper.
            node(Role::Group, "", Some(4), Rect::new(1870, 80, 48, 932)),
            node(Role::Group, "", Some(7), Rect::new(1870, 105, 48, 932)),
            node(
                Role::ToggleButton,
                "Menu",
                Some(8),
                Rect::new(1874, 107, 36, 34),
            ),
        ];
        nodes[1].children = vec![2, 4];
        nodes[4].children = vec![5, 7];
        nodes[7].children = vec![8];
        nodes
    }

    fn tops(nodes: &[Node]) -> Vec<i32> {
        nodes.iter().filter_map(|n| n.bounds.map(|b| b.y)).collect()
    }

    #[test]
    fn regression_libreoffices_toolbars_and_cells_sat_a_menu_bar_above_where_they_are_drawn() {
        let mut nodes = writer(0);
        let m = find(&nodes, 1061);
        assert_eq!(
            m,
            Some(Misplaced {
                pane: 4,
                bar: 2,
                by: 25
            })
        );
        let Some(m) = m else { return };
        assert_eq!(placed_by_gtk(&nodes, m), vec![8]);
        assert_eq!(move_down(&mut nodes, m, &[8]), vec![4, 5, 6, 7]);
        assert_eq!(tops(&nodes), vec![-19, 0, 0, 0, 25, 25, 27, 105, 105, 107]);
    }

    #[test]
    fn a_pane_reported_at_its_drawn_place_is_left_alone() {
        assert_eq!(find(&writer(25), 1061), None);
        assert_eq!(find(&writer(0), 1080), None, "no exact fit, no move");
    }
}
