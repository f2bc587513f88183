//! Live probes for the safety gate: what AT-SPI says will receive input now.
//!
//! - [`element_at`]: the toolkit's own hit test, `Component.GetAccessibleAtPoint`, asked again of
//!   each element it returns until it returns nothing deeper (atk-bridge and Qt answer one level
//!   per call), from the window's frame down; where it answers nothing from an element with
//!   children, the showing child whose extents hold the point. A point another top-level covers (an open popup
//!   menu is an X window of its own, drawn over the frame, and LibreOffice's is not even in the
//!   frame's hit test) is refused before this by the X11 check in the backend.
//! - [`focused`]: the element the app's last focus event named ([`super::focus`]), if it still
//!   says FOCUSED and sits in the window (a few calls); else `Collection.GetMatches` for the
//!   FOCUSED state under the frame (one call where the toolkit implements Collection: GTK 3,
//!   Firefox, Chromium), else a bounded walk of the window looking for the focused element (Qt,
//!   GTK 4, LibreOffice Calc's sheets). Besides the window, only the app's top-levels that keys
//!   can reach are searched (the active one, an open popup), and a document window only by the
//!   bounded walk: a probe never asks an app for work that grows with its document.
//!
//! Each element on the way is read with a handful of parallel calls (role, states, name,
//! description), never with the app-wide cache a snapshot prefetches, so a probe costs a few
//! milliseconds per level.

use std::collections::HashMap;

use cu_core::model::element::{Node, SnapshotOptions, State};
use cu_core::model::geometry::Point;
use cu_core::model::receiver::{Probe, INNER_LABEL_DEPTH};
use cu_core::{Error, ErrorCode, Result};
use zbus::zvariant::OwnedObjectPath;

use super::walk::{self, Placement};
use super::{Atspi, ObjRef, ACCESSIBLE, COMPONENT};
use crate::translate::{self, atspi_state};

/// AT-SPI coordinate type: relative to the top-level window.
const COORD_WINDOW: u32 = 1;
/// Deepest hit-test descent (a web page nests 20–30 levels).
const MAX_DEPTH: usize = 64;
/// Children read per level when collecting a nameless control's labels.
const MAX_LABEL_CHILDREN: usize = 32;

/// The elements at `at` (window-relative), from `frame` down to the deepest one; each element is
/// asked `shift(element)` pixels higher (a pane its toolkit reports misplaced).
pub(crate) async fn element_at(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
    at: Point,
    shift: &(dyn Fn(&ObjRef) -> i32 + Sync),
) -> Result<Probe> {
    // The inverse of how the walk placed extents: GTK 4 answers in window coordinates, the others
    // in screen coordinates (on Wayland, where the origin is unknown, those are the surface's).
    let (x, y, coord) = if placement.toolkit.window_relative_extents {
        (at.x, at.y, COORD_WINDOW)
    } else {
        (
            placement.origin.x + at.x,
            placement.origin.y + at.y,
            super::COORD_SCREEN,
        )
    };
    let mut chain = vec![frame.clone()];
    while chain.len() < MAX_DEPTH {
        let Some(current) = chain.last() else { break };
        let (bus, path): (String, OwnedObjectPath) = match atspi
            .call(
                current,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y - shift(current), coord),
            )
            .await
        {
            Ok(found) => found,
            // The frame must answer; deeper elements without Component end the descent.
            Err(e) if chain.len() == 1 => return Err(e),
            Err(_) => break,
        };
        let mut next = ObjRef { bus, path };
        if next.is_null() || chain.contains(&next) {
            match child_at(atspi, current, (x, y, coord), shift).await {
                Some(child) if !chain.contains(&child) => next = child,
                _ => break,
            }
        }
        chain.push(next);
    }
    fill_ancestors(atspi, &mut chain).await;
    let nodes = futures_util::future::join_all(chain.iter().map(|o| read(atspi, o, placement)))
        .await
        .into_iter()
        .collect::<Result<Vec<Node>>>()?;
    // The frame itself is not what a point inside it hits when nothing deeper answered.
    let mut probe = Probe {
        path: nodes,
        inner_labels: Vec::new(),
        in_sheet: false,
    };
    if probe.path.len() == 1 {
        return Ok(Probe::nothing());
    }
    if probe.needs_inner_labels() {
        if let Some(i) = probe.receiver_index() {
            probe.inner_labels = inner_labels(atspi, &chain[i], placement).await;
        }
    }
    Ok(probe)
}

/// Puts back the ancestors a hit test skipped between the deepest element and the chain above it:
/// Chromium answers `GetAccessibleAtPoint` with the deepest element at once (an icon inside a
/// button), and the button that receives the click must be in the path for the gate to judge it.
/// One parent call where the toolkit answered level by level (its parent is already there).
async fn fill_ancestors(atspi: &Atspi, chain: &mut Vec<ObjRef>) {
    let Some(last) = chain.last().cloned() else {
        return;
    };
    let mut skipped = Vec::new();
    let mut at = last;
    while chain.len() + skipped.len() < MAX_DEPTH {
        let Some(parent) = atspi.parent(&at).await else {
            return;
        };
        if chain.contains(&parent) {
            let at_index = chain.len() - 1;
            chain.splice(at_index..at_index, skipped.into_iter().rev());
            return;
        }
        if parent.bus != at.bus || skipped.contains(&parent) {
            return;
        }
        skipped.push(parent.clone());
        at = parent;
    }
}

/// The showing child of `parent` whose extents contain the point (`(x, y, coord)`, each child
/// asked `shift(child)` higher), the last such child being the one drawn on top: for when the
/// toolkit's own hit test stops at an element that has children. LibreOffice's panels that host
/// GTK's own widgets (the sidebar's buttons) answer nothing, so the gate judged an unnamed panel
/// instead of the button under the pointer.
async fn child_at(
    atspi: &Atspi,
    parent: &ObjRef,
    (x, y, coord): (i32, i32, u32),
    shift: &(dyn Fn(&ObjRef) -> i32 + Sync),
) -> Option<ObjRef> {
    let kids = atspi.children(parent).await.ok()?;
    if kids.len() > MAX_LABEL_CHILDREN {
        return None;
    }
    let hits = futures_util::future::join_all(kids.iter().map(|kid| async move {
        let asked = (coord,);
        let (extents, states) = tokio::join!(
            atspi.call::<_, (i32, i32, i32, i32)>(kid, COMPONENT, "GetExtents", &asked),
            atspi.states(kid)
        );
        let (left, top, width, height) = extents.ok()?;
        let y = y - shift(kid);
        let inside = width > 0
            && height > 0
            && (left..left.saturating_add(width)).contains(&x)
            && (top..top.saturating_add(height)).contains(&y);
        (inside && states.ok()?.has(atspi_state::SHOWING)).then(|| kid.clone())
    }))
    .await;
    hits.into_iter().flatten().last()
}

/// The focused element of `frame`'s application that keys sent to the window reach: inside
/// another showing top-level of the app (an open popup menu takes the keyboard), else inside the
/// frame.
pub(crate) async fn focused(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
    search: FocusSearch,
) -> Result<Probe> {
    let tops = atspi
        .children(&Atspi::app_root(&frame.bus))
        .await
        .unwrap_or_default();
    let mut found = None;
    // An open popup menu of the app takes the keyboard even when none of its items says it is
    // focused (Qt's context menus right after they open): keys are judged there.
    let mut popup = None;
    for top in tops.iter().filter(|t| *t != frame) {
        // A hidden top-level is not read further.
        let Ok(states) = atspi.states(top).await else {
            continue;
        };
        if !states.has(atspi_state::SHOWING) {
            continue;
        }
        let Ok(node) = read(atspi, top, placement).await else {
            continue;
        };
        let Some(search) = keyboard_search(node.role, states, search) else {
            continue;
        };
        if let Ok(Some(obj)) = focused_in(atspi, top, placement, search).await {
            found = Some(obj);
            break;
        }
        if popup.is_none() && node.role == cu_core::model::role::Role::Menu {
            popup = Some((top.clone(), node));
        }
    }
    if found.is_none() {
        if let Some((obj, node)) = popup {
            return Ok(probe_of(atspi, &obj, node, placement).await);
        }
    }
    let found = match found {
        Some(obj) => Some(obj),
        None => focused_in(atspi, frame, placement, search).await?,
    };
    let Some(obj) = found else {
        return Ok(Probe::nothing());
    };
    let node = read(atspi, &obj, placement).await?;
    if !node.states.contains(State::Focused) {
        return Ok(Probe::nothing());
    }
    Ok(probe_of(atspi, &obj, node, placement).await)
}

/// How another top-level of the window's application (its `role` and raw `states`) is searched for the
/// keyboard focus, or `None` when keys cannot reach it: it is not showing, or it is a window that
/// is not the active one (Calc's document behind its Save dialog). A popup (a menu, a list's
/// drop-down) takes keys without being active. A document window is only ever walked within the
/// walk's limits: `Collection` on it would make LibreOffice visit every cell of its sheets (the
/// app answered nothing for minutes and grew ~25 MB/s), whatever `search` the named window chose.
fn keyboard_search(
    role: cu_core::model::role::Role,
    states: super::AtspiStates,
    search: FocusSearch,
) -> Option<FocusSearch> {
    use cu_core::model::role::Role;
    if !states.has(atspi_state::SHOWING) {
        return None;
    }
    let window = matches!(role, Role::Window | Role::Dialog | Role::Alert);
    if window && !states.has(atspi_state::ACTIVE) {
        return None;
    }
    Some(if role == Role::Window {
        FocusSearch::Walk
    } else {
        search
    })
}

/// The menu open in `frame`'s application whose items keys would press, when no item of it
/// says it is focused (LibreOffice's and Chromium's menus). A popup is a showing top-level of
/// the app that is a menu, or the active one holding one (the last opened: a submenu comes
/// after its menu); else a popup menu the window holds, or a menu of its menu bar that is open
/// (SELECTED or EXPANDED).
/// Only a few levels are read, never the window.
pub(crate) async fn open_menu(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
) -> Option<Probe> {
    use cu_core::model::role::Role;
    let showing = |obj: ObjRef| async move {
        let states = atspi.states(&obj).await.ok()?;
        if !states.has(atspi_state::SHOWING) {
            return None;
        }
        let node = read(atspi, &obj, placement).await.ok()?;
        Some((obj, node, states.has(atspi_state::ACTIVE)))
    };
    let tops = atspi
        .children(&Atspi::app_root(&frame.bus))
        .await
        .unwrap_or_default();
    let mut open = None;
    for top in tops.into_iter().filter(|t| t != frame) {
        let Some((top, node, active)) = showing(top).await else {
            continue;
        };
        match node.role {
            Role::Menu => open = Some((top, node)),
            // The active top-level holds the open menu: LibreOffice's popup window (its child
            // is the menu), Chromium's (the menu a few levels down).
            Role::Window if active => {
                if let Some(found) = open_in_window(atspi, &top, placement).await {
                    open = Some(found);
                }
            }
            _ => {}
        }
    }
    if open.is_none() {
        open = open_in_window(atspi, frame, placement).await;
    }
    let (obj, node) = open?;
    Some(probe_of(atspi, &obj, node, placement).await)
}

/// Whether another top-level of `frame`'s application is the active one (it takes the keys:
/// an open popup of its own, or a dialog).
pub(crate) async fn another_top_active(atspi: &Atspi, frame: &ObjRef) -> bool {
    let tops = atspi
        .children(&Atspi::app_root(&frame.bus))
        .await
        .unwrap_or_default();
    for top in tops.iter().filter(|t| *t != frame) {
        if atspi
            .states(top)
            .await
            .is_ok_and(|s| s.has(atspi_state::ACTIVE))
        {
            return true;
        }
    }
    false
}

/// A menu the window shows open: a popup menu it holds itself (Firefox's context menus are
/// children of its frame, showing only while open), or a menu of its menu bar that is selected
/// or expanded. Looked for among the frame's showing descendants, breadth first, within a few
/// levels and a few dozen elements, through containers of a few children only (LibreOffice's
/// menu bar sits 5 levels down, under panels), never inside the menu bar's closed menus.
async fn open_in_window(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
) -> Option<(ObjRef, Node)> {
    use cu_core::model::role::Role;
    const MENU_BAR_DEPTH: usize = 7;
    const MAX_READ: usize = 64;
    const MAX_CHILDREN: i32 = 32;
    let mut level = vec![frame.clone()];
    let mut read_count = 0;
    for _ in 0..MENU_BAR_DEPTH {
        let mut next = Vec::new();
        for obj in &level {
            next.extend(atspi.children(obj).await.unwrap_or_default());
        }
        let mut showing = Vec::new();
        for obj in next {
            read_count += 1;
            if read_count > MAX_READ {
                return None;
            }
            let (role, states, count) = tokio::join!(
                atspi.role(&obj),
                atspi.states(&obj),
                atspi.property(&obj, ACCESSIBLE, "ChildCount")
            );
            if !states.is_ok_and(|s| s.has(atspi_state::SHOWING)) {
                continue;
            }
            let role = role.ok();
            if matches!(
                role,
                Some(translate::atspi_role::MENU | translate::atspi_role::POPUP_MENU)
            ) {
                // A popup menu the window holds itself (Firefox's context menus), shown only
                // while it is open.
                if let Ok(node) = read(atspi, &obj, placement).await {
                    return Some((obj, node));
                }
                continue;
            }
            if role != Some(translate::atspi_role::MENU_BAR) {
                // Only containers of a few children are opened: a sheet's table would list
                // every one of its cells.
                let few = count
                    .ok()
                    .and_then(|v| i32::try_from(v).ok())
                    .is_some_and(|n| (0..=MAX_CHILDREN).contains(&n));
                if few {
                    showing.push(obj);
                }
                continue;
            }
            let mut holds_menus = false;
            for menu in atspi.children(&obj).await.unwrap_or_default() {
                let Ok(node) = read(atspi, &menu, placement).await else {
                    continue;
                };
                holds_menus |= node.role == Role::Menu;
                if node.role == Role::Menu
                    && (node.states.contains(State::Selected)
                        || node.states.contains(State::Expanded))
                {
                    return Some((menu, node));
                }
            }
            // A "menu bar" that only wraps a popup (Chromium's context menus: a window of their
            // own, menu bar, then the menu a few levels down) is looked into; one of menus (a
            // real menu bar, whose closed menus say SHOWING) is not.
            if !holds_menus {
                showing.push(obj);
            }
        }
        level = showing;
    }
    None
}

/// The focused element as the gate judges it, with the labels inside it if it has no name, and
/// for an item of a menu the menu before it (its items are what a letter may press).
async fn probe_of(atspi: &Atspi, obj: &ObjRef, node: Node, placement: Placement) -> Probe {
    use cu_core::model::role::Role;
    let mut path = Vec::with_capacity(2);
    if matches!(
        node.role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    ) {
        if let Some(parent) = atspi.parent(obj).await {
            if let Ok(menu) = read(atspi, &parent, placement).await {
                if menu.role == Role::Menu {
                    path.push(menu);
                }
            }
        }
    }
    let in_sheet = in_sheet(atspi, obj, node.role).await;
    path.push(node);
    let mut probe = Probe {
        path,
        inner_labels: Vec::new(),
        in_sheet,
    };
    if probe.needs_inner_labels() {
        probe.inner_labels = inner_labels(atspi, obj, placement).await;
    }
    probe
}

/// Whether `obj` (a focused cell, or the paragraph of a cell's editor; `role` its role)
/// belongs to a sheet, whose table moves its own cursor on a Tab or Return
/// ([`Probe::in_sheet`]): a cell's parent is a table a spreadsheet document holds; the editor
/// of the cell being typed into sits in a panel (named after the cell) the document holds
/// (LibreOffice Calc). A paragraph of a text box or a comment is not one: there a Tab or Return
/// is text.
async fn in_sheet(atspi: &Atspi, obj: &ObjRef, role: cu_core::model::role::Role) -> bool {
    use cu_core::model::role::Role;
    use translate::atspi_role::{DOCUMENT_SPREADSHEET, PANEL, TABLE};
    let between = match role {
        Role::Cell => TABLE,
        Role::Paragraph => PANEL,
        _ => return false,
    };
    let Some(parent) = atspi.parent(obj).await else {
        return false;
    };
    if !atspi.role(&parent).await.is_ok_and(|r| r == between) {
        return false;
    }
    let Some(document) = atspi.parent(&parent).await else {
        return false;
    };
    atspi
        .role(&document)
        .await
        .is_ok_and(|r| r == DOCUMENT_SPREADSHEET)
}

/// The element the app's last focus event named (`remembered`), as [`focused`] would find it:
/// `None` unless it says FOCUSED now and sits in `frame` (one of its ancestors is the frame or
/// was walked in it: LibreOffice's parent chains stop short of the frame) or in another showing
/// top-level of its application (then the caller searches).
pub(crate) async fn remembered_focus(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
    remembered: &ObjRef,
    walked: Option<&walk::Walked>,
) -> Option<Probe> {
    if remembered.bus != frame.bus {
        return None;
    }
    let (node, top) = tokio::join!(
        read(atspi, remembered, placement),
        top_level(atspi, remembered, frame, walked)
    );
    let Some(node) = node.ok().filter(|n| n.states.contains(State::Focused)) else {
        tracing::debug!(?remembered, "the remembered focus says it is not focused");
        return None;
    };
    let reached = match top? {
        Top::Frame => true,
        Top::Other(top) => atspi
            .states(&top)
            .await
            .is_ok_and(|s| s.has(atspi_state::SHOWING)),
    };
    if !reached {
        return None;
    }
    Some(probe_of(atspi, remembered, node, placement).await)
}

/// Where an element's ancestors lead.
enum Top {
    /// To the window's frame (or an element walked in it).
    Frame,
    /// To another top-level of the application.
    Other(ObjRef),
}

/// The top-level window `obj` sits in: the frame if an ancestor is the frame or was walked in
/// it, else the last ancestor below its application's object (whose own parent is the desktop,
/// on another bus). `None` if the chain breaks or is too long.
async fn top_level(
    atspi: &Atspi,
    obj: &ObjRef,
    frame: &ObjRef,
    walked: Option<&walk::Walked>,
) -> Option<Top> {
    let in_frame =
        |o: &ObjRef| o == frame || walked.is_some_and(|w| w.paths.contains(o.path.as_str()));
    let mut chain = vec![obj.clone()];
    while chain.len() < MAX_DEPTH {
        let current = chain.last()?;
        if in_frame(current) {
            return Some(Top::Frame);
        }
        match atspi.parent(current).await {
            Some(parent) if parent.bus == obj.bus && !chain.contains(&parent) => chain.push(parent),
            // `current` is the application: the element before it is the top-level.
            _ => {
                return chain
                    .len()
                    .checked_sub(2)
                    .and_then(|i| chain.get(i).cloned())
                    .map(Top::Other)
            }
        }
    }
    None
}

/// How the focused element of a window is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FocusSearch {
    /// `Collection.GetMatches`, where the toolkit has it, else a walk.
    Collection,
    /// Only a bounded walk: the window holds a table too large to read whole, and atk-bridge
    /// answers `Collection` by visiting every descendant (LibreOffice Calc's 2^31 cells: the app
    /// grew to 1.2 GB and stopped answering).
    Walk,
}

/// The deepest focused element under `top`.
async fn focused_in(
    atspi: &Atspi,
    top: &ObjRef,
    placement: Placement,
    search: FocusSearch,
) -> Result<Option<ObjRef>> {
    let by_collection = match search {
        FocusSearch::Collection => focused_by_collection(atspi, top).await,
        FocusSearch::Walk => None,
    };
    match by_collection {
        Some(found) => Ok(found),
        None => focused_by_walk(atspi, top, placement).await,
    }
}

/// `Collection.GetMatches(FOCUSED)`: `None` when the toolkit has no Collection.
async fn focused_by_collection(atspi: &Atspi, frame: &ObjRef) -> Option<Option<ObjRef>> {
    const COLLECTION: &str = "org.a11y.atspi.Collection";
    const MATCH_ALL: i32 = 1;
    const SORT_CANONICAL: u32 = 1;
    let states: Vec<i32> = vec![1 << atspi_state::FOCUSED, 0];
    let rule = (
        states,
        MATCH_ALL,
        HashMap::<String, String>::new(),
        MATCH_ALL,
        vec![0i32; 4],
        MATCH_ALL,
        Vec::<String>::new(),
        MATCH_ALL,
        false,
    );
    let found: Vec<(String, OwnedObjectPath)> = atspi
        .call(
            frame,
            COLLECTION,
            "GetMatches",
            &(rule, SORT_CANONICAL, 0i32, true),
        )
        .await
        .ok()?;
    // Canonical order is pre-order: the last match is the deepest (a document and its field).
    Some(
        found
            .into_iter()
            .map(|(bus, path)| ObjRef { bus, path })
            .rfind(|o| !o.is_null()),
    )
}

/// A walk of the window (no text) for the deepest focused element. A walk cut short by its
/// limits that found nothing focused has not shown that nothing is: that is an error (the gate
/// then asks), not "nothing focused" (a large Qt window's focused "Delete" lay beyond the limit,
/// and a space pressed it).
async fn focused_by_walk(
    atspi: &Atspi,
    frame: &ObjRef,
    placement: Placement,
) -> Result<Option<ObjRef>> {
    let options = SnapshotOptions {
        max_nodes: 3000,
        time_budget_ms: 1500,
        read_text: false,
        ..SnapshotOptions::default()
    };
    let (nodes, truncated) = walk::walk(atspi, frame.clone(), placement, &options).await?;
    let found = nodes
        .iter()
        .rev()
        .find(|n| n.states.contains(State::Focused))
        .map(|n| ObjRef::from_identity(&n.identity))
        .transpose()?;
    match (found, truncated) {
        (None, Some(cut)) => Err(Error::new(
            ErrorCode::Timeout,
            format!(
                "the focus search stopped at its limit ({:?}, {} elements not read) without finding the focused element",
                cut.reason, cut.omitted
            ),
        )),
        (found, _) => Ok(found),
    }
}

/// The ancestors of `obj` up to `frame` (included), outermost first, each read alone.
pub(crate) async fn ancestors(
    atspi: &Atspi,
    frame: &ObjRef,
    obj: &ObjRef,
    placement: Placement,
) -> Result<Vec<Node>> {
    let mut chain: Vec<ObjRef> = Vec::new();
    let mut at = obj.clone();
    while chain.len() < MAX_DEPTH && &at != frame {
        let Some(parent) = atspi.parent(&at).await else {
            break;
        };
        if parent.bus != obj.bus || chain.contains(&parent) {
            break;
        }
        chain.push(parent.clone());
        at = parent;
    }
    chain.reverse();
    futures_util::future::join_all(chain.iter().map(|o| read(atspi, o, placement)))
        .await
        .into_iter()
        .collect()
}

/// One element: role, states, name and description, in parallel.
async fn read(atspi: &Atspi, obj: &ObjRef, placement: Placement) -> Result<Node> {
    let (role, states, name, description, extents, child_count) = tokio::join!(
        atspi.role(obj),
        atspi.states(obj),
        atspi.name(obj),
        atspi.property(obj, ACCESSIBLE, "Description"),
        atspi.extents(obj),
        atspi.property(obj, ACCESSIBLE, "ChildCount"),
    );
    let states = states?;
    let role = translate::role(role?, states);
    let mut node = Node::new(role, obj.identity());
    node.name = walk::shown_name(name.unwrap_or_default(), role, placement.toolkit);
    node.description = description
        .ok()
        .and_then(|v| String::try_from(v).ok())
        .filter(|d| !d.is_empty());
    node.states = translate::states(states, placement.toolkit);
    node.bounds = extents.ok().and_then(|e| placement.bounds(e));
    // A probe reads no children, only how many there are; a menu's say whether it opens items
    // (a menu bar's "File") or acts itself (a web page's role=menu with only its text).
    node.omitted_children = child_count
        .ok()
        .and_then(|v| i32::try_from(v).ok())
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    if role == cu_core::model::role::Role::Menu && node.omitted_children > 0 {
        let kids = atspi.children(obj).await.unwrap_or_default();
        let roles = futures_util::future::join_all(kids.iter().take(8).map(|k| async move {
            let (r, s) = tokio::join!(atspi.role(k), atspi.states(k));
            Some(translate::role(r.ok()?, s.ok()?))
        }))
        .await;
        cu_core::model::receiver::holds_items(&mut node, roles.into_iter().flatten());
    }
    Ok(node)
}

/// Names of the text elements and icons inside `obj`, a few levels down.
async fn inner_labels(atspi: &Atspi, obj: &ObjRef, placement: Placement) -> Vec<String> {
    let mut out = Vec::new();
    let mut level = vec![obj.clone()];
    for _ in 0..INNER_LABEL_DEPTH {
        let kids: Vec<ObjRef> =
            futures_util::future::join_all(level.iter().map(|o| atspi.children(o)))
                .await
                .into_iter()
                .flat_map(|k| k.unwrap_or_default().into_iter().take(MAX_LABEL_CHILDREN))
                .collect();
        let nodes =
            futures_util::future::join_all(kids.iter().map(|k| read(atspi, k, placement))).await;
        for node in nodes.into_iter().flatten() {
            if let Some(label) = cu_core::model::receiver::shown_label(&node) {
                out.push(label.to_owned());
            }
        }
        level = kids;
    }
    out
}
