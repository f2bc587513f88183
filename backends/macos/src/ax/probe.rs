//! Live probes for the safety gate on macOS: AX's own hit test
//! (`AXUIElementCopyElementAtPosition` on the window's application) and the application's
//! `AXFocusedUIElement`, each turned into the path from the window down to what was found (with
//! index paths as identities), so the gate judges the control that will really receive the
//! input. An element outside the window gives an empty probe, which the gate treats as unknown.

use cu_core::model::element::Node;
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::receiver::{Probe, INNER_LABEL_DEPTH};
use cu_core::{Error, ErrorCode, Result};

use super::element::{AxElement, AxValue};
use super::tree;

/// Deepest chain read from an element up to its window.
const MAX_DEPTH: usize = 64;
/// Children read per level when collecting a nameless control's labels.
const MAX_LABEL_CHILDREN: usize = 32;

/// What AX finds at a window-relative point of the window of `pid`.
pub(super) fn element_at(
    pid: i32,
    window: &AxElement,
    window_frame: Rect,
    at: Point,
) -> Result<Probe> {
    let app = application(pid)?;
    let (x, y) = (
        f64::from(window_frame.x + at.x),
        f64::from(window_frame.y + at.y),
    );
    let found = app.element_at_position(x, y).map_err(|code| {
        Error::new(
            ErrorCode::ElementNotFound,
            format!("AXUIElementCopyElementAtPosition failed ({code})"),
        )
    })?;
    Ok(match found {
        Some(element) => path_to(window, window_frame, element, false),
        None => Probe::nothing(),
    })
}

/// The focused element of the window's application, if it is inside the window.
pub(super) fn focused(pid: i32, window: &AxElement, window_frame: Rect) -> Result<Probe> {
    let app = application(pid)?;
    Ok(match app.attribute("AXFocusedUIElement") {
        Ok(AxValue::Element(element)) => path_to(window, window_frame, element, true),
        _ => Probe::nothing(),
    })
}

fn application(pid: i32) -> Result<AxElement> {
    AxElement::application(pid).ok_or_else(|| {
        Error::new(
            ErrorCode::WindowNotFound,
            format!("no AX application for process {pid}"),
        )
    })
}

/// The chain from `window` down to `found` (only `found` itself when `only_last`); empty when
/// `found` is not inside the window.
fn path_to(window: &AxElement, window_frame: Rect, found: AxElement, only_last: bool) -> Probe {
    let mut chain = vec![found];
    loop {
        let Some(last) = chain.last() else {
            return Probe::nothing();
        };
        if last == window {
            break;
        }
        if chain.len() >= MAX_DEPTH {
            return Probe::nothing();
        }
        match last.attribute("AXParent") {
            Ok(AxValue::Element(parent)) => chain.push(parent),
            _ => return Probe::nothing(),
        }
    }
    chain.reverse();
    // Index paths from the window, as the walk's identities are.
    let mut paths: Vec<Vec<u32>> = vec![Vec::new()];
    for pair in chain.windows(2) {
        let index = match pair[0].attribute("AXChildren") {
            Ok(AxValue::Elements(children)) => children.iter().position(|c| *c == pair[1]),
            _ => None,
        };
        let Some(index) = index else {
            return Probe::nothing();
        };
        let mut path = paths.last().cloned().unwrap_or_default();
        path.push(index as u32);
        paths.push(path);
    }
    let nodes: Vec<Node> = chain
        .iter()
        .zip(paths)
        .filter_map(|(element, path)| tree::read_node(element, path, window_frame))
        .collect();
    if nodes.len() != chain.len() || nodes.len() <= 1 {
        return Probe::nothing();
    }
    let mut probe = Probe {
        path: nodes,
        inner_labels: Vec::new(),
        in_sheet: false,
    };
    if only_last {
        if let Some(last) = probe.path.pop() {
            probe.path = vec![last];
        }
        if let Some(element) = chain.last() {
            if probe.needs_inner_labels() {
                probe.inner_labels = inner_labels(element, window_frame);
            }
        }
    } else if probe.needs_inner_labels() {
        if let Some(i) = probe.receiver_index() {
            probe.inner_labels = inner_labels(&chain[i], window_frame);
        }
    }
    probe
}

/// Names of the text elements inside `element`, a few levels down.
fn inner_labels(element: &AxElement, window_frame: Rect) -> Vec<String> {
    let mut out = Vec::new();
    let mut level = vec![element.clone()];
    for _ in 0..INNER_LABEL_DEPTH {
        let mut next = Vec::new();
        for e in &level {
            if let Ok(AxValue::Elements(children)) = e.attribute("AXChildren") {
                for child in children.into_iter().take(MAX_LABEL_CHILDREN) {
                    if let Some(node) = tree::read_node(&child, Vec::new(), window_frame) {
                        if let Some(label) = cu_core::model::receiver::shown_label(&node) {
                            out.push(label.to_owned());
                        }
                    }
                    next.push(child);
                }
            }
        }
        level = next;
    }
    out
}
