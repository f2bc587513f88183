//! Live probes for the safety gate on Windows: UI Automation's own hit test
//! (`IUIAutomation::ElementFromPoint`) and the focused element (`GetFocusedElement`), each turned
//! into the path from the window's element down to what was found, so the gate judges the
//! control that will really receive the input. An element outside the window (another window
//! on top, a focus elsewhere) gives an empty probe, which the gate treats as unknown.

use cu_core::model::element::Node;
use cu_core::model::geometry::Point;
use cu_core::model::receiver::{Probe, INNER_LABEL_DEPTH};
use cu_core::{ErrorCode, Result};
use uiautomation::{UIAutomation, UIElement};

use super::tree::{self, Frame};
use crate::dpi;

/// Deepest chain read from an element up to its window.
const MAX_DEPTH: usize = 64;
/// Children read per level when collecting a nameless control's labels.
const MAX_LABEL_CHILDREN: usize = 32;

/// What `ElementFromPoint` finds at a window-relative logical point.
pub(super) fn element_at(
    automation: &UIAutomation,
    window: isize,
    frame: Frame,
    at: Point,
) -> Result<Probe> {
    let screen = dpi::to_screen_physical(at, frame.physical, frame.dpi);
    let hit = automation
        .element_from_point(uiautomation::types::Point::new(screen.x, screen.y))
        .map_err(|e| tree::uia_error(ErrorCode::ElementNotFound, "ElementFromPoint", &e))?;
    path_to(automation, window, frame, hit)
}

/// The element with keyboard focus, if it is inside the window.
pub(super) fn focused(automation: &UIAutomation, window: isize, frame: Frame) -> Result<Probe> {
    let focus = automation
        .get_focused_element()
        .map_err(|e| tree::uia_error(ErrorCode::ElementNotFound, "GetFocusedElement", &e))?;
    let mut probe = path_to(automation, window, frame, focus)?;
    // The gate judges the focused element itself, not its ancestors.
    if let Some(last) = probe.path.pop() {
        probe.path = vec![last];
    }
    Ok(probe)
}

/// The chain from the window's element down to `found`; empty when `found` is not inside it.
fn path_to(
    automation: &UIAutomation,
    window: isize,
    frame: Frame,
    found: UIElement,
) -> Result<Probe> {
    let root = tree::window_element(automation, window)?;
    let walker = automation
        .get_control_view_walker()
        .map_err(|e| tree::uia_error(ErrorCode::Internal, "ControlViewWalker", &e))?;
    let mut chain = vec![found];
    loop {
        let Some(last) = chain.last() else {
            return Ok(Probe::nothing());
        };
        if automation.compare_elements(last, &root).unwrap_or(false) {
            break;
        }
        if chain.len() >= MAX_DEPTH {
            return Ok(Probe::nothing());
        }
        match walker.get_parent(last) {
            Ok(parent) => chain.push(parent),
            Err(_) => return Ok(Probe::nothing()),
        }
    }
    chain.reverse();
    let reader = tree::live_reader(frame);
    let nodes: Vec<Node> = chain.iter().filter_map(&reader).collect();
    if nodes.len() != chain.len() || nodes.len() <= 1 {
        return Ok(Probe::nothing());
    }
    let mut probe = Probe {
        path: nodes,
        inner_labels: Vec::new(),
        in_sheet: false,
    };
    if probe.needs_inner_labels() {
        if let Some(i) = probe.receiver_index() {
            let mut level = vec![chain[i].clone()];
            for _ in 0..INNER_LABEL_DEPTH {
                let mut next = Vec::new();
                for element in &level {
                    let Ok(mut child) = walker.get_first_child(element) else {
                        continue;
                    };
                    for _ in 0..MAX_LABEL_CHILDREN {
                        if let Some(node) = reader(&child) {
                            if let Some(label) = cu_core::model::receiver::shown_label(&node) {
                                probe.inner_labels.push(label.to_owned());
                            }
                        }
                        let sibling = walker.get_next_sibling(&child);
                        next.push(child);
                        match sibling {
                            Ok(s) => child = s,
                            Err(_) => break,
                        }
                    }
                }
                level = next;
            }
        }
    }
    Ok(probe)
}
