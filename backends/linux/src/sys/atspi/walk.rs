//! The snapshot walk: every call of every known node in flight at once, bounded.
//!
//! A node costs two dependent rounds of D-Bus calls (its own properties, then its children,
//! actions and text, which depend on what the first round said). Instead of walking level by
//! level, up to [`IN_FLIGHT`] nodes are fetched concurrently and each finished node schedules its
//! children at once, so the bus and the app never wait on our round trips. The walk stops at the
//! node limit, the depth limit or the time budget, or once the app has answered nothing for
//! [`SILENT`] (busy filling a 5,000-file chooser it answers nothing for seconds: the answer is
//! what was read, marked `unresponsive`, inside a second), and reports what it left out. Containers with
//! very many children (a 10 000-row list) are read only up to [`MAX_CHILDREN_READ`], through
//! `GetChildAtIndex`, so the app is never asked to build accessibles for every row.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use cu_core::model::element::{Node, SnapshotOptions, Truncation, TruncationReason};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::role::Role;
use cu_core::model::walk::into_preorder;
use cu_core::Result;
use futures_util::stream::{FuturesUnordered, StreamExt};
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

use super::{table, Atspi, ObjRef, ACCESSIBLE, TEXT, VALUE};
use crate::translate::{self, atspi_state, AtspiStates, InterfaceSet, Toolkit};

/// Nodes fetched concurrently.
const IN_FLIGHT: usize = 96;
/// Children read per container at most.
pub(crate) const MAX_CHILDREN_READ: i32 = cu_core::model::walk::MAX_CHILDREN_READ as i32;
/// How long a walk waits when the app answers nothing at all (no reply to any of its calls)
/// before it stops with what it read: an app that answers keeps the walk going up to its time
/// budget (Calc's biggest windows take about a second), a silent one does not hold the caller
/// for the whole budget.
pub(crate) const SILENT: Duration = Duration::from_millis(700);
/// Longest text read per node, in characters.
const MAX_TEXT_CHARS: i32 = 2000;

/// How to place extents in the window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placement {
    /// The window's screen origin (subtracted from screen extents).
    pub origin: Point,
    /// What the application's toolkit does differently.
    pub toolkit: Toolkit,
}

impl Placement {
    pub(crate) fn bounds(&self, (x, y, w, h): (i32, i32, i32, i32)) -> Option<Rect> {
        if w <= 0 && h <= 0 || x == i32::MIN {
            return None;
        }
        let r = Rect::new(x, y, w.max(0), h.max(0));
        Some(if self.toolkit.window_relative_extents {
            r
        } else {
            r.relative_to(self.origin)
        })
    }
}

/// What the last full walk of a window saw.
#[derive(Default)]
pub(crate) struct Walked {
    /// It holds a table too large to read whole (then its focused element is not looked for
    /// through `Collection`).
    pub(crate) grid: bool,
    /// The object paths of its elements: an event from one of them, or from below one, is the
    /// window's (LibreOffice's parent chains stop short of the frame).
    pub(crate) paths: std::collections::HashSet<String>,
    /// The lists its combo boxes hold: drawn in a popup window of their own when open (Qt),
    /// where a press lands on them rather than on the window under them.
    pub(crate) popups: Vec<ObjRef>,
}

impl Walked {
    /// What a walk of a whole window (`nodes`) saw.
    pub(crate) fn of(nodes: &[Node]) -> Walked {
        Walked {
            grid: nodes.iter().any(|n| n.grid.is_some()),
            paths: nodes
                .iter()
                .filter_map(|n| n.identity.0.split_once('|'))
                .map(|(_, path)| path.to_owned())
                .collect(),
            popups: combo_lists(nodes),
        }
    }
}

/// The lists and menus whose parent is a combo box: a drop-down's popup, open or not.
fn combo_lists(nodes: &[Node]) -> Vec<ObjRef> {
    nodes
        .iter()
        .filter(|n| matches!(n.role, Role::List | Role::Menu))
        .filter(|n| {
            n.parent
                .and_then(|p| nodes.get(p as usize))
                .is_some_and(|p| p.role == Role::ComboBox)
        })
        .filter_map(|n| ObjRef::from_identity(&n.identity).ok())
        .collect()
}

struct Fetched {
    parent: Option<u32>,
    /// The node's place among its parent's children (replies arrive in any order).
    ordinal: u32,
    depth: u32,
    /// Its children are not drawn because it is not ([`translate::hides_when_not_drawn`]).
    hides: bool,
    node: Node,
    children: Vec<ObjRef>,
    omitted_children: u32,
}

struct Pending {
    obj: ObjRef,
    parent: Option<u32>,
    /// The node's place among its parent's children.
    ordinal: u32,
    depth: u32,
    /// An ancestor that is not drawn hides it ([`Fetched::hides`]): its place is not asked.
    hidden: bool,
}

/// Walks the subtree under `root` (a window, a popup, an element asked for, a subtree of a
/// kept walk the events named), with the application's bulk items where its toolkit gives
/// them.
pub(crate) async fn walk(
    atspi: &Atspi,
    root: ObjRef,
    placement: Placement,
    opts: &SnapshotOptions,
) -> Result<(Vec<Node>, Option<Truncation>)> {
    let deadline = Instant::now() + Duration::from_millis(opts.time_budget_ms);
    let max_nodes = opts.max_nodes.max(1) as usize;
    let mut nodes: Vec<Node> = Vec::new();
    let mut children_of: Vec<Vec<u32>> = Vec::new();
    // Each node's place among its siblings: children are listed in this order, not in the order
    // their replies happened to arrive (which made a still window look changed).
    let mut ordinals: Vec<u32> = Vec::new();
    let mut seen: HashSet<ObjRef> = HashSet::new();
    let mut queue: VecDeque<Pending> = VecDeque::new();
    if placement.toolkit.peer_to_peer {
        atspi.connect_peer(&root.bus).await;
    }
    let prefetch_started = Instant::now();
    // Every reply moves this on; SILENT after it without one, the walk stops.
    let mut heard_at = prefetch_started;
    let prefetched = if placement.toolkit.bulk_items {
        let within = SILENT.min(deadline.saturating_duration_since(prefetch_started));
        match tokio::time::timeout(within, prefetch(atspi, &root.bus)).await {
            Ok(items) => {
                heard_at = Instant::now();
                items
            }
            Err(_) => HashMap::new(),
        }
    } else {
        HashMap::new()
    };
    tracing::debug!(
        items = prefetched.len(),
        ms = prefetch_started.elapsed().as_secs_f64() * 1000.0,
        calls_before = super::CALLS.load(std::sync::atomic::Ordering::Relaxed),
        "bulk items"
    );
    let mut in_flight = FuturesUnordered::new();
    let mut truncation: Option<TruncationReason> = None;
    let mut omitted: u32 = 0;
    let mut root_error = None;

    seen.insert(root.clone());
    queue.push_back(Pending {
        obj: root,
        parent: None,
        ordinal: 0,
        depth: 0,
        hidden: false,
    });

    loop {
        while in_flight.len() < IN_FLIGHT {
            let Some(p) = queue.pop_front() else { break };
            let cached = prefetched.get(&p.obj);
            in_flight.push(fetch(atspi, p, placement, opts, cached));
        }
        if in_flight.is_empty() {
            break;
        }
        let now = Instant::now();
        let remaining = deadline.saturating_duration_since(now);
        let silence_left = (heard_at + SILENT).saturating_duration_since(now);
        let next = match tokio::time::timeout(remaining.min(silence_left), in_flight.next()).await {
            Ok(Some(result)) => {
                heard_at = Instant::now();
                result
            }
            Ok(None) => break,
            Err(_) => {
                truncation.get_or_insert(if silence_left < remaining {
                    TruncationReason::Unresponsive
                } else {
                    TruncationReason::TimeBudget
                });
                omitted += (in_flight.len() + queue.len()) as u32;
                break;
            }
        };
        let fetched = match next {
            Ok(f) => f,
            Err((parent, e)) => {
                if parent.is_none() {
                    root_error = Some(e);
                    break;
                }
                // A child vanished mid-walk or did not answer: leave it out, say so.
                tracing::debug!("node skipped: {e}");
                truncation.get_or_insert(TruncationReason::Unresponsive);
                omitted += 1;
                continue;
            }
        };
        let index = nodes.len() as u32;
        let mut node = fetched.node;
        node.parent = fetched.parent;
        node.omitted_children = fetched.omitted_children;
        if fetched.omitted_children > 0 {
            truncation.get_or_insert(TruncationReason::NodeLimit);
            omitted += fetched.omitted_children;
        }
        if let Some(parent) = fetched.parent {
            children_of[parent as usize].push(index);
        }
        nodes.push(node);
        children_of.push(Vec::new());
        ordinals.push(fetched.ordinal);
        let depth_ok = opts.max_depth.is_none_or(|d| fetched.depth < d);
        let mut cut = 0u32;
        for (ordinal, child) in (0u32..).zip(fetched.children) {
            if !seen.insert(child.clone()) {
                continue;
            }
            if !depth_ok {
                truncation.get_or_insert(TruncationReason::DepthLimit);
                cut += 1;
            } else if nodes.len() + in_flight.len() + queue.len() >= max_nodes {
                truncation.get_or_insert(TruncationReason::NodeLimit);
                cut += 1;
            } else {
                queue.push_back(Pending {
                    obj: child,
                    parent: Some(index),
                    ordinal,
                    depth: fetched.depth + 1,
                    hidden: fetched.hides,
                });
            }
        }
        if cut > 0 {
            nodes[index as usize].omitted_children += cut;
            omitted += cut;
        }
    }
    if let Some(e) = root_error {
        return Err(e);
    }
    for (node, kids) in nodes
        .iter_mut()
        .zip(in_sibling_order(children_of, &ordinals))
    {
        node.children = kids;
    }
    let nodes = into_preorder(nodes);
    tracing::debug!(
        nodes = nodes.len(),
        calls_after = super::CALLS.load(std::sync::atomic::Ordering::Relaxed),
        "walk done"
    );
    Ok((
        nodes,
        truncation.map(|reason| Truncation { reason, omitted }),
    ))
}

/// One element read again as a walk reads it (no bulk items): the element without its place in
/// the tree, and its children as the application lists them now. `hidden`: an ancestor that is
/// not drawn holds it (its place is not asked).
pub(crate) async fn read_one(
    atspi: &Atspi,
    obj: ObjRef,
    placement: Placement,
    opts: &SnapshotOptions,
    hidden: bool,
) -> Result<(Node, Vec<ObjRef>)> {
    let pending = Pending {
        obj,
        parent: None,
        ordinal: 0,
        depth: 0,
        hidden,
    };
    let fetched = fetch_inner(atspi, pending, placement, opts, None).await?;
    Ok((fetched.node, fetched.children))
}

type FetchResult = std::result::Result<Fetched, (Option<u32>, cu_core::Error)>;

async fn fetch(
    atspi: &Atspi,
    p: Pending,
    placement: Placement,
    opts: &SnapshotOptions,
    cached: Option<&Cached>,
) -> FetchResult {
    let parent = p.parent;
    fetch_inner(atspi, p, placement, opts, cached)
        .await
        .map_err(|e| (parent, e))
}

/// What `Cache.GetItems` says about one element.
struct Cached {
    /// The children, when the items account for exactly the count the element reports.
    children: Option<Vec<ObjRef>>,
    interfaces: Vec<String>,
    name: String,
    role: u32,
    description: String,
    states: AtspiStates,
}

type ItemRef = (String, OwnedObjectPath);
type CacheItem = (
    ItemRef,
    ItemRef,
    ItemRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// Name, role, states, interfaces and child count of every element the app caches, in one call.
/// Not complete (web documents, children of MANAGES_DESCENDANTS containers are missing), so the
/// walk still asks for children and falls back to single calls for what is not here.
async fn prefetch(atspi: &Atspi, bus: &str) -> HashMap<ObjRef, Cached> {
    let Ok(path) = OwnedObjectPath::try_from("/org/a11y/atspi/cache") else {
        return HashMap::new();
    };
    let cache = ObjRef {
        bus: bus.to_owned(),
        path,
    };
    let items = match atspi
        .call::<_, Vec<CacheItem>>(&cache, "org.a11y.atspi.Cache", "GetItems", &())
        .await
    {
        Ok(items) => items,
        Err(e) => {
            tracing::debug!("no bulk items from {bus}: {}", e.message);
            return HashMap::new();
        }
    };
    let mut claimed: HashMap<ObjRef, Vec<(i32, ObjRef)>> = HashMap::new();
    let mut counts: Vec<(ObjRef, i32)> = Vec::with_capacity(items.len());
    let mut out: HashMap<ObjRef, Cached> = HashMap::with_capacity(items.len());
    for (
        (bus, path),
        _app,
        (pbus, ppath),
        index,
        child_count,
        interfaces,
        name,
        role,
        description,
        states,
    ) in items
    {
        let me = ObjRef { bus, path };
        claimed
            .entry(ObjRef {
                bus: pbus,
                path: ppath,
            })
            .or_default()
            .push((index, me.clone()));
        counts.push((me.clone(), child_count));
        let states = AtspiStates::from_words(&states);
        out.insert(
            me,
            Cached {
                children: None,
                interfaces,
                name,
                role,
                description,
                states,
            },
        );
    }
    for (me, count) in counts {
        let kids = claimed.remove(&me).unwrap_or_default();
        let Some(entry) = out.get_mut(&me) else {
            continue;
        };
        // Trust the items only when they match the element's own count exactly, indexes 0..n:
        // GTK 4 lists items no GetChildren reaches, GTK 3 menus report 0 children they have.
        if count >= 0 && kids.len() == count as usize && (count > 0 || !lazy_children(entry.role)) {
            let mut kids = kids;
            kids.sort_by_key(|(i, _)| *i);
            if kids.iter().enumerate().all(|(n, (i, _))| *i == n as i32) {
                entry.children = Some(kids.into_iter().map(|(_, r)| r).collect());
            }
        }
    }
    out
}

/// Roles whose children toolkits create lazily, so a cached count of 0 is not believed.
fn lazy_children(atspi_role: u32) -> bool {
    use crate::translate::atspi_role as r;
    matches!(
        atspi_role,
        r::MENU
            | r::MENU_BAR
            | r::POPUP_MENU
            | r::MENU_ITEM
            | r::COMBO_BOX
            | r::DOCUMENT_WEB
            | r::DOCUMENT_FRAME
            | r::EMBEDDED
    )
}

async fn fetch_inner(
    atspi: &Atspi,
    p: Pending,
    placement: Placement,
    opts: &SnapshotOptions,
    cached: Option<&Cached>,
) -> Result<Fetched> {
    let read_text = opts.read_text;
    let obj = &p.obj;
    let unplaced = || {
        Err(cu_core::Error::new(
            cu_core::ErrorCode::NotSupported,
            "not drawn",
        ))
    };
    // Round 1: what the node is (only the extents when the bulk items said the rest). What is
    // not drawn has no place worth asking: an element a hiding ancestor holds (a closed menu's
    // items: two thirds of an empty LibreOffice Writer window's elements), one the toolkit says
    // is not showing, GTK 4's hidden widgets (other stack pages). It is offscreen all the same
    // (`translate::states`, `drawn.rs`).
    let (name, description, toolkit_id, child_count, atspi_role, states, ifaces, extents) =
        match cached {
            Some(c) => {
                let hidden = p.hidden
                    || (placement.toolkit.window_relative_extents
                        && !c.states.has(atspi_state::VISIBLE))
                    || (placement.toolkit.reports_showing && !c.states.has(atspi_state::SHOWING));
                let extents = if hidden {
                    unplaced()
                } else {
                    atspi.extents(obj).await
                };
                let c_ifaces = c.interfaces.clone();
                (
                    c.name.clone(),
                    c.description.clone(),
                    String::new(),
                    None,
                    c.role,
                    c.states,
                    c_ifaces,
                    extents,
                )
            }
            None => {
                let (props, role, states, ifaces, extents) = tokio::join!(
                    accessible_properties(atspi, obj, placement.toolkit),
                    atspi.role(obj),
                    atspi.states(obj),
                    atspi.call::<_, Vec<String>>(obj, ACCESSIBLE, "GetInterfaces", &()),
                    async {
                        if p.hidden {
                            unplaced()
                        } else {
                            atspi.extents(obj).await
                        }
                    },
                );
                let props = props?;
                let child_count = props
                    .get("ChildCount")
                    .and_then(|v| i32::try_from(v).ok())
                    .unwrap_or(0);
                (
                    prop_text(&props, "Name"),
                    prop_text(&props, "Description"),
                    prop_text(&props, "AccessibleId"),
                    Some(child_count),
                    role?,
                    states.unwrap_or_default(),
                    ifaces.unwrap_or_default(),
                    extents,
                )
            }
        };
    let has = |name: &str| ifaces.iter().any(|i| i == name);
    let role = translate::role(atspi_role, states);

    let raw_extents = extents.as_ref().ok().copied();
    let mut node = Node::new(role, obj.identity());
    node.name = shown_name(name, role, placement.toolkit);
    node.description = Some(description).filter(|d| !d.is_empty());
    node.toolkit_id = Some(toolkit_id).filter(|d| !d.is_empty());
    node.states = translate::states(states, placement.toolkit);
    node.bounds = extents.ok().and_then(|e| placement.bounds(e));

    // Round 2: children, actions, text and value, all at once.
    // Labels whose name is their text (GTK, Qt, browsers) need no second read.
    let want_text = read_text
        && has(TEXT)
        && translate::reads_text(role)
        && (role != Role::Label || node.name.is_empty());
    let want_value = has(VALUE)
        && matches!(
            role,
            Role::Slider | Role::SpinButton | Role::ProgressBar | Role::ScrollBar
        );
    let manages = states.has(atspi_state::MANAGES_DESCENDANTS);
    // A spreadsheet: the cells on screen, not its first children.
    let big_table =
        manages && has(table::TABLE) && child_count.is_none_or(|n| n > MAX_CHILDREN_READ);
    // The bulk items carry no AccessibleId: read it for what a label may name by id (controls),
    // alongside the other round-2 calls.
    let want_id = cached.is_some() && role.is_interactive();
    // An unnamed field is known by its placeholder ("Search files"), where the toolkit gives one.
    let want_placeholder = role.is_editable_text() && node.name.trim().is_empty();
    // A combo box's choice, where its items do not say it (GTK 3 after a choice made with the
    // popup closed).
    let want_choice = role == Role::ComboBox && has(super::SELECTION);
    let (children, text, value, toolkit_id, placeholder, choice) = tokio::join!(
        async {
            if big_table && !opts.read_cells {
                // Its cells are not wanted: counted as left out, none read.
                let count = child_count.unwrap_or(0).max(0) as u32;
                return ((Vec::new(), count), None);
            }
            if let (true, Some(extents)) = (big_table, raw_extents) {
                let small = MAX_CHILDREN_READ as u64;
                if let Some((cells, grid)) = table::visible_cells(atspi, obj, extents, small).await
                {
                    return ((cells, 0), Some(grid));
                }
            }
            let kids = match cached.and_then(|c| c.children.clone()) {
                Some(kids) => (kids, 0),
                None => read_children(atspi, obj, child_count, manages).await,
            };
            (kids, None)
        },
        async {
            if want_text {
                read_text_content(atspi, obj).await
            } else {
                None
            }
        },
        async {
            if want_value {
                atspi
                    .property(obj, VALUE, "CurrentValue")
                    .await
                    .ok()
                    .and_then(|v| f64::try_from(v).ok())
            } else {
                None
            }
        },
        async {
            if want_id {
                atspi
                    .property(obj, ACCESSIBLE, "AccessibleId")
                    .await
                    .ok()
                    .and_then(|v| String::try_from(v).ok())
            } else {
                None
            }
        },
        async {
            if want_placeholder {
                atspi
                    .call::<_, HashMap<String, String>>(obj, ACCESSIBLE, "GetAttributes", &())
                    .await
                    .ok()
                    .and_then(|attrs| translate::placeholder(&attrs).map(str::to_owned))
            } else {
                None
            }
        },
        async {
            if want_choice {
                atspi.selected_name(obj).await
            } else {
                None
            }
        },
    );
    if let Some(id) = toolkit_id.filter(|id| !id.is_empty()) {
        node.toolkit_id = Some(id);
    }
    if let Some(placeholder) = placeholder {
        node.name = placeholder;
    }
    let ((children, omitted_children), grid) = children;
    node.grid = grid;
    node.actions = translate::actions(role, states, InterfaceSet::of(&ifaces));
    node.value = match (text, value, choice) {
        (Some(t), _, _) if t != node.name => Some(t),
        (_, Some(v), _) => Some(format_number(v)),
        (_, _, Some(chosen)) => Some(chosen),
        _ if role == Role::ComboBox && placement.toolkit.combo_named_by_choice => {
            Some(node.name.clone()).filter(|n| !n.trim().is_empty())
        }
        _ => None,
    };
    // What it holds is hidden with it when it is not drawn and is the kind that hides (a menu,
    // a document, a tab), not a grouping (Firefox leaves its fieldsets without SHOWING).
    let hides = p.hidden
        || (placement.toolkit.reports_showing
            && !states.has(atspi_state::SHOWING)
            && translate::hides_when_not_drawn(atspi_role));
    Ok(Fetched {
        parent: p.parent,
        ordinal: p.ordinal,
        depth: p.depth,
        hides,
        node,
        children,
        omitted_children,
    })
}

/// Each node's children sorted by their place among their siblings (`ordinals[node]`), whatever
/// order their replies arrived in.
fn in_sibling_order(mut children_of: Vec<Vec<u32>>, ordinals: &[u32]) -> Vec<Vec<u32>> {
    for kids in &mut children_of {
        kids.sort_by_key(|&k| ordinals.get(k as usize).copied().unwrap_or(u32::MAX));
    }
    children_of
}

/// The name as the outline shows it: GTK 4's mnemonic underscores and doubled button names cleaned.
pub(crate) fn shown_name(name: String, role: Role, toolkit: Toolkit) -> String {
    if !toolkit.doubles_button_names {
        return name;
    }
    let visible = translate::visible_name(&name);
    if role.is_interactive() {
        translate::collapse_doubled_name(&visible).to_owned()
    } else {
        visible.into_owned()
    }
}

/// Name, Description, ChildCount and AccessibleId: one `GetAll` where the toolkit survives it,
/// single `Get`s otherwise.
async fn accessible_properties(
    atspi: &Atspi,
    obj: &ObjRef,
    toolkit: Toolkit,
) -> Result<std::collections::HashMap<String, OwnedValue>> {
    if toolkit.get_all_is_safe {
        return atspi.properties(obj, ACCESSIBLE).await;
    }
    let (name, description, count) = tokio::join!(
        atspi.property(obj, ACCESSIBLE, "Name"),
        atspi.property(obj, ACCESSIBLE, "Description"),
        atspi.property(obj, ACCESSIBLE, "ChildCount"),
    );
    let mut out = std::collections::HashMap::new();
    out.insert("Name".to_owned(), name?);
    for (key, value) in [("Description", description), ("ChildCount", count)] {
        if let Ok(v) = value {
            out.insert(key.to_owned(), v);
        }
    }
    Ok(out)
}

/// Children of `obj`. `count` is `None` when unknown: the bulk items' child counts are not
/// reliable (GTK 3 menus report 0), so children are then asked for directly, except under
/// MANAGES_DESCENDANTS containers, whose count is read first so a huge list is never listed whole.
async fn read_children(
    atspi: &Atspi,
    obj: &ObjRef,
    count: Option<i32>,
    manages: bool,
) -> (Vec<ObjRef>, u32) {
    let count = match count {
        Some(n) => n,
        None if manages => atspi
            .property(obj, ACCESSIBLE, "ChildCount")
            .await
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(0),
        None => {
            let mut kids = atspi.children(obj).await.unwrap_or_default();
            let extra = kids.len().saturating_sub(MAX_CHILDREN_READ as usize);
            kids.truncate(MAX_CHILDREN_READ as usize);
            return (kids, extra as u32);
        }
    };
    if count <= 0 {
        return (Vec::new(), 0);
    }
    if count <= MAX_CHILDREN_READ {
        return (atspi.children(obj).await.unwrap_or_default(), 0);
    }
    // Very many children: ask for the first ones one by one, never for all of them.
    let calls = (0..MAX_CHILDREN_READ).map(|i| async move {
        atspi
            .call::<_, (String, OwnedObjectPath)>(obj, ACCESSIBLE, "GetChildAtIndex", &(i,))
            .await
            .ok()
            .map(|(bus, path)| ObjRef { bus, path })
            .filter(|r| !r.is_null())
    });
    let kids: Vec<ObjRef> = futures_util::future::join_all(calls)
        .await
        .into_iter()
        .flatten()
        .collect();
    (kids, (count - MAX_CHILDREN_READ) as u32)
}

async fn read_text_content(atspi: &Atspi, obj: &ObjRef) -> Option<String> {
    // GTK 4 answers GetText(0, -1) with "": ask for the character count first.
    let count = atspi
        .property(obj, TEXT, "CharacterCount")
        .await
        .ok()
        .and_then(|v| i32::try_from(v).ok())?;
    if count <= 0 {
        return None;
    }
    let text: String = atspi
        .call(obj, TEXT, "GetText", &(0i32, count.min(MAX_TEXT_CHARS)))
        .await
        .ok()?;
    // U+FFFC marks where a child sits: kept, so the snapshot puts the child's text there.
    (!text
        .trim_matches(|c: char| c.is_whitespace() || c == '\u{fffc}')
        .is_empty())
    .then_some(text)
}

fn prop_text(props: &std::collections::HashMap<String, OwnedValue>, key: &str) -> String {
    props
        .get(key)
        .and_then(|v| v.try_clone().ok())
        .and_then(|v| String::try_from(v).ok())
        .unwrap_or_default()
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cu_core::model::element::ElementIdentity;

    fn node(children: &[u32], parent: Option<u32>) -> Node {
        let mut n = Node::new(Role::Group, ElementIdentity(format!("{children:?}")));
        n.children = children.to_vec();
        n.parent = parent;
        n
    }

    #[test]
    fn regression_siblings_listed_in_reply_order_made_a_still_qt_window_look_changed() {
        // Root 0's children arrived as 3, 1, 2 (their places among the siblings: 2, 0, 1).
        let children_of = vec![vec![3, 1, 2], vec![], vec![], vec![]];
        let ordinals = [0, 0, 1, 2];
        assert_eq!(in_sibling_order(children_of, &ordinals)[0], vec![1, 2, 3]);
    }

    #[test]
    fn arrival_order_becomes_preorder() {
        // Arrival (BFS): 0 root -> [1, 2]; 1 -> [3]; 2 -> [].
        let nodes = vec![
            node(&[1, 2], None),
            node(&[3], Some(0)),
            node(&[], Some(0)),
            node(&[], Some(1)),
        ];
        let ids: Vec<String> = nodes.iter().map(|n| n.identity.0.clone()).collect();
        let out = into_preorder(nodes);
        let out_ids: Vec<String> = out.iter().map(|n| n.identity.0.clone()).collect();
        assert_eq!(
            out_ids,
            vec![
                ids[0].clone(),
                ids[1].clone(),
                ids[3].clone(),
                ids[2].clone()
            ]
        );
        assert_eq!(out[0].children, vec![1, 3]);
        assert_eq!(out[1].children, vec![2]);
        assert_eq!(out[2].parent, Some(1));
        assert_eq!(out[3].parent, Some(0));
    }

    #[test]
    fn placement_converts_screen_extents() {
        let screen = Placement {
            origin: Point::new(100, 50),
            toolkit: Toolkit::default(),
        };
        assert_eq!(
            screen.bounds((110, 60, 5, 5)),
            Some(Rect::new(10, 10, 5, 5))
        );
        let gtk4 = Placement {
            origin: Point::new(100, 50),
            toolkit: Toolkit::from_name_and_version("GTK", "4.8.3"),
        };
        assert_eq!(gtk4.bounds((10, 10, 5, 5)), Some(Rect::new(10, 10, 5, 5)));
        assert_eq!(screen.bounds((0, 0, 0, 0)), None);
    }
}
