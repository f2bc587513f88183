//! `gui_list` and `gui_state`: observing a window. [`observe_window`] reads it and [`record`]
//! renders the outline and saves the state and view an acting call and `since_state_id` use
//! later (`gui_wait` observes through them too).

use cu_core::model::changes::{Changes, Scope, View, ViewLine};
use cu_core::model::element::{ElementIdentity, SnapshotOptions, State, Truncation};
use cu_core::model::outline::{self, OutlineOptions, Place, TableRows};
use cu_core::model::role::Role;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::store::persist::now_ms;
use cu_core::store::state_registry::{SavedElement, SavedState, StateRegistry};
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use crate::image;
use crate::service::Service;

/// `gui_state`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateRequest {
    /// From gui_list.
    pub window_id: WindowId,
    /// List every element, not only interactive and text ones.
    #[serde(default)]
    pub all: bool,
    /// Do not descend below this depth.
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// Observe only this element (an id from state_id).
    #[serde(default)]
    pub subtree: Option<String>,
    /// The observation subtree refers to (not used up).
    #[serde(default)]
    pub state_id: Option<String>,
    /// Only the web page on screen (a browser's active tab), without the browser's chrome; its
    /// ids stay the same while the page does.
    #[serde(default)]
    pub page: bool,
    /// List at most this many elements (default 300).
    #[serde(default)]
    #[schemars(range(min = 1, max = 5000))]
    pub max_elements: Option<usize>,
    /// Attach a JPEG of the window (same window-relative space; see image.scale).
    #[serde(default)]
    pub screenshot: bool,
    /// With screenshot: draw each listed element's box and id on it (set-of-marks), so the
    /// image can be answered with ids.
    #[serde(default)]
    pub marks: bool,
    /// Each element's click point @x,y (its centre, window-relative). Not needed to act:
    /// elements are acted on by id.
    #[serde(default)]
    pub points: bool,
    /// Each element's full bounds x,y wxh (window-relative; wins over points).
    #[serde(default)]
    pub bounds: bool,
    /// Find instead of reading everything: only the elements whose name, value or description
    /// contains this text (compared like labels), in the whole document (below the fold too,
    /// marked offscreen; acting on one scrolls to it), each with its named containers; a match
    /// in a table answers its whole row. Ids of what is on screen are those of the whole
    /// outline. At most 200 characters.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub query: Option<String>,
    /// Read this table, grid, list or tree (an id from state_id) as rows: its header once,
    /// then `e49 row 12: Oak chair | 49.90 | e88 button "Add"`, with the true total.
    #[serde(default)]
    pub table: Option<String>,
    /// With table: which rows, 1-based ("51-100", "7"; default "1-50").
    #[serde(default)]
    pub rows: Option<String>,
    /// Answer only what changed since this earlier observation of the window (used or not, up
    /// to 10 minutes old): lines added (+), changed (~, with what they were) and removed (-),
    /// over what that observation covered (its query, subtree or page, unless given here).
    /// Elements that stayed keep their ids; all of them are usable with the new state_id.
    #[serde(default)]
    pub since_state_id: Option<String>,
}

/// The longest `query` `gui_state` takes.
pub const MAX_QUERY_CHARS: usize = 200;

/// `gui_state`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateResult {
    /// Use once, within 30 s, with `gui_action`.
    pub state_id: String,
    /// The window as observed.
    pub window: WindowInfo,
    /// The compact outline: one line per element, ids `e1…`; with since_state_id, only the
    /// lines that changed.
    pub outline: String,
    /// How many elements carry ids.
    pub elements: usize,
    /// With since_state_id: how many lines were added, changed, removed, and stayed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeCount>,
    /// How the window was read and how long the observation took.
    pub read: ReadTime,
    /// Set when the walk stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// The screenshot's size and scale, when one was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<image::ImageInfo>,
    /// The JPEG bytes (sent as MCP image content, never inside JSON).
    #[serde(skip)]
    pub jpeg: Option<Vec<u8>>,
}

impl Service {
    /// `gui_state`: observe one window and save the observation.
    pub async fn gui_state(&self, req: &StateRequest) -> Result<StateResult> {
        if req
            .query
            .as_ref()
            .is_some_and(|q| q.chars().count() > MAX_QUERY_CHARS)
        {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("query has more than {MAX_QUERY_CHARS} characters"),
            )
            .with_suggestion("Ask for a few words of the element's name, value or description."));
        }
        let started = std::time::Instant::now();
        let window = req.window_id.clone();
        let info = self.backend.info().await?;
        let desktop = self.issuer(&info.desktop);
        let subtree = match (&req.subtree, &req.state_id) {
            (Some(_), _) if req.page => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "subtree and page cannot be combined",
                )
                .with_suggestion("Pass one of them: page is the whole web page."))
            }
            (Some(element), Some(state_id)) => {
                let earlier = self.states.load(state_id, &desktop)?;
                Some(earlier.element(element)?.identity.clone())
            }
            (Some(_), None) => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "subtree needs the state_id it comes from",
                ))
            }
            _ => None,
        };
        let baseline = match &req.since_state_id {
            Some(id) => Some(self.baseline(id, &window, &desktop)?),
            None => None,
        };
        let table = crate::state::table_rows(self, req, &desktop)?;
        // A diff compares like with like: a partial observation's scope, unless asked anew.
        let inherited;
        let (req, subtree) = match &baseline {
            Some(base) => {
                let (scoped, subtree) = like_base(req, subtree, base)?;
                inherited = scoped;
                (&inherited, subtree)
            }
            None => (req, subtree),
        };
        let mut observed = crate::state::observe_window(
            self,
            &window,
            req,
            Scoped { subtree, table },
            baseline.as_ref(),
        )
        .await?;
        if let Some(before) = &baseline {
            let changes = cu_core::model::changes::diff(&before.lines, &observed.view.lines);
            observed.result.outline = if changes.is_empty() {
                "(nothing changed)\n".into()
            } else {
                changes.render()
            };
            observed.result.changes = Some(ChangeCount::of(&changes));
        }
        if req.marks && !req.screenshot {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "marks are drawn on the screenshot: set screenshot=true too",
            ));
        }
        if req.screenshot {
            let shot = if req.marks {
                image::capture_marked(
                    self.backend.as_ref(),
                    &window,
                    &self.config,
                    &observed.marks,
                )
                .await?
            } else {
                image::capture_jpeg(self.backend.as_ref(), &window, &self.config).await?
            };
            observed.result.image = Some(shot.info);
            observed.result.jpeg = Some(shot.jpeg);
        }
        tracing::debug!(ms = started.elapsed().as_secs_f64() * 1000.0, "gui_state");
        Ok(observed.result)
    }
}

/// How an observation's tree was read (`walked`, or from the last walk: `kept` unchanged, or
/// `events`: the elements the application's events named read again), and in how many
/// milliseconds the backend had it.
#[derive(Debug, Clone, Copy, Default, Serialize, schemars::JsonSchema)]
pub struct ReadTime {
    /// How the tree was read.
    pub how: cu_core::model::element::Read,
    /// The backend's time for it, in milliseconds.
    pub ms: u64,
}

/// What an observation narrows to beyond `req`'s own fields: an element resolved from an
/// earlier state (`subtree`), a table's rows (`table`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Scoped {
    pub(crate) subtree: Option<ElementIdentity>,
    pub(crate) table: Option<TableRows>,
}

/// `req` with the scope of the observation it is diffed against, when it names none of its
/// own, and the subtree then observed. A request naming another scope is refused: a diff of a
/// query against the whole window would list everything else as removed.
fn like_base(
    req: &StateRequest,
    subtree: Option<ElementIdentity>,
    base: &View,
) -> Result<(StateRequest, Option<ElementIdentity>)> {
    let scope = &base.scope;
    if scope.table {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "since_state_id {} read a table's rows: a diff needs an observation of the window",
                base.state_id
            ),
        )
        .with_suggestion("Pass the state_id of an observation made without table."));
    }
    let own = req.query.is_some() || subtree.is_some() || req.page || req.all;
    if !own {
        let mut scoped = req.clone();
        scoped.query.clone_from(&scope.query);
        scoped.page = scope.page;
        scoped.all = scope.all;
        return Ok((scoped, scope.subtree.clone()));
    }
    let same = req.query == scope.query
        && subtree == scope.subtree
        && req.page == scope.page
        && req.all == scope.all;
    if !same {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "since_state_id {} observed another part of the window than this call asks for: a diff compares like with like",
                base.state_id
            ),
        )
        .with_suggestion("Leave out query, subtree, page and all: the diff takes the earlier observation's, or observe without since_state_id."));
    }
    Ok((req.clone(), subtree))
}

/// The table `req` asks to read, resolved from its state, with its range of rows.
pub(crate) fn table_rows(
    service: &Service,
    req: &StateRequest,
    desktop: &cu_core::model::element::DesktopInstance,
) -> Result<Option<TableRows>> {
    let Some(element) = &req.table else {
        if req.rows.is_some() {
            return Err(Error::new(ErrorCode::InvalidArgument, "rows needs a table")
                .with_suggestion("Pass table=eN, the table's id from state_id."));
        }
        return Ok(None);
    };
    let refuse =
        |why: &str| {
            Err(Error::new(ErrorCode::InvalidArgument, why.to_owned()).with_suggestion(
            "Read a table alone: table=eN with the state_id it comes from, and rows=\"1-50\".",
        ))
        };
    if req.query.is_some() || req.subtree.is_some() || req.since_state_id.is_some() {
        return refuse("table cannot be combined with query, subtree or since_state_id");
    }
    let Some(state_id) = &req.state_id else {
        return refuse("table needs the state_id it comes from");
    };
    let earlier = service.states.load(state_id, desktop)?;
    let saved = earlier.element(element)?;
    if !matches!(
        saved.role,
        Role::Table
            | Role::Tree
            | Role::List
            | Role::Row
            | Role::Cell
            | Role::ColumnHeader
            | Role::TreeItem
    ) {
        return refuse(&format!(
            "{element} is a {}, not a table, list or tree",
            saved.role
        ));
    }
    let (first, last) = parse_rows(req.rows.as_deref().unwrap_or("1-50")).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "rows {:?} is not a range",
                req.rows.as_deref().unwrap_or_default()
            ),
        )
        .with_suggestion("Give rows as \"51-100\" or \"7\" (1-based, at most 500 at once).")
    })?;
    Ok(Some(TableRows {
        element: saved.identity.clone(),
        first,
        last,
    }))
}

/// `"51-100"`, `"7"` or `"51-"` as 1-based first and last rows, at most [`MAX_ROWS`] of them.
fn parse_rows(text: &str) -> Option<(usize, usize)> {
    let text = text.trim();
    let (first, last) = match text.split_once('-') {
        Some((a, b)) => {
            let first: usize = a.trim().parse().ok()?;
            let last = match b.trim() {
                "" => first + MAX_ROWS - 1,
                b => b.parse().ok()?,
            };
            (first, last)
        }
        None => {
            let n = text.parse().ok()?;
            (n, n)
        }
    };
    (first >= 1 && last >= first && last - first < MAX_ROWS).then_some((first, last))
}

/// The most rows one table read prints.
const MAX_ROWS: usize = 500;

/// Observes `window` (snapshot, outline, saved state and view) with the options of `req`,
/// keeping the ids of `keep`. No screenshot, no diff: the callers add what they need.
pub(crate) async fn observe_window(
    service: &Service,
    window: &WindowId,
    req: &StateRequest,
    scoped: Scoped,
    keep: Option<&View>,
) -> Result<Recorded> {
    let Scoped { subtree, table } = scoped;
    let options = SnapshotOptions {
        max_depth: req.max_depth,
        subtree: subtree.clone(),
        reuse: true,
        ..SnapshotOptions::default()
    };
    let snapshot = service.backend.snapshot(window, &options).await?;
    if req.page {
        let Some(page) = snapshot.page() else {
            let covered = service.backend.covered(window).await.unwrap_or(false);
            return Err(Error::new(
                ErrorCode::ElementNotFound,
                format!("window {window} shows no web page (no document on screen)"),
            )
            .with_suggestion(if covered {
                COVERED
            } else {
                "Observe the window without page, or open the page first."
            }));
        };
        let scoped = Scoped { subtree, table };
        return crate::state::record(service, window, &page, req, &scoped, keep);
    }
    let scoped = Scoped { subtree, table };
    let mut recorded = crate::state::record(service, window, &snapshot, req, &scoped, keep)?;
    // Nothing on screen although the window has elements: a browser stops reporting what another
    // window covers as showing, and the agent would read an empty window.
    let hidden = snapshot.nodes.len() > 1 && recorded.result.elements == 0;
    if hidden && service.backend.covered(window).await.unwrap_or(false) {
        recorded.result.outline.push_str(&format!("… {COVERED}\n"));
    }
    Ok(recorded)
}

/// What an observation says of a covered window whose elements are not shown.
const COVERED: &str = "another window covers this one, and its application does not show \
     what is covered: gui_window op=\"focus\" brings it to the front, then observe it again.";

/// The ids elements keep: those the window's elements were given in every observation so far
/// ([`cu_core::store::kept_ids`]), and over them those of `keep`, the observation a diff is
/// measured against.
fn kept_ids(
    service: &Service,
    window: &WindowId,
    snapshot: &cu_core::model::element::Snapshot,
    keep: Option<&View>,
) -> std::collections::HashMap<String, String> {
    let mut ids = service.ids.load(window, &service.issuer(&snapshot.desktop));
    if let Some(keep) = keep {
        cu_core::store::kept_ids::merge(
            &mut ids,
            keep.lines.iter().map(|l| (l.key(), l.id.as_str())),
        );
    }
    ids
}

/// Renders `snapshot` as `req` asks, saves its state and view.
pub(crate) fn record(
    service: &Service,
    window: &WindowId,
    snapshot: &cu_core::model::element::Snapshot,
    req: &StateRequest,
    scoped: &Scoped,
    keep: Option<&View>,
) -> Result<Recorded> {
    let outline_options = OutlineOptions {
        all: req.all,
        max_elements: req.max_elements.unwrap_or(300).clamp(1, 5000),
        place: match (req.bounds, req.points) {
            (true, _) => Place::Bounds,
            (false, true) => Place::Point,
            (false, false) => Place::None,
        },
        query: req.query.clone(),
        keep_ids: kept_ids(service, window, snapshot, keep),
        table: scoped.table.clone(),
    };
    let started = std::time::Instant::now();
    let outline = outline::render(snapshot, &outline_options);
    let mut lines = Vec::with_capacity(outline.ids.len());
    let listed: std::collections::HashMap<usize, String> = outline
        .ids
        .iter()
        .filter_map(|(_, index)| {
            Some((*index, outline::key(snapshot, snapshot.nodes.get(*index)?)))
        })
        .collect();
    let elements: Vec<SavedElement> = outline
        .ids
        .iter()
        .zip(&outline.bodies)
        .filter_map(|((id, index), body)| {
            let n = snapshot.nodes.get(*index)?;
            let key = listed.get(index)?.clone();
            lines.push(ViewLine {
                id: id.clone(),
                identity: n.identity.clone(),
                key: (key != n.identity.0).then_some(key),
                parent: listed_parent(snapshot, *index, &listed),
                body: body.clone(),
            });
            Some(SavedElement {
                id: id.clone(),
                identity: n.identity.clone(),
                role: n.role,
                // What the outline shows (an unnamed button's label), so the gate's early
                // check sees the same name the agent read.
                name: outline::shown_name(snapshot, n),
                bounds: n.bounds,
                focused: n.states.contains(State::Focused),
                offscreen: n.states.contains(State::Offscreen),
            })
        })
        .collect();
    let state = SavedState {
        state_id: StateRegistry::new_id(),
        window: window.clone(),
        desktop: service.issuer(&snapshot.desktop),
        window_bounds: snapshot.window.bounds,
        window_size: SavedState::window_size_of(snapshot),
        created_ms: now_ms(),
        elements,
        dialog: snapshot.is_dialog(),
    };
    service.states.save(&state)?;
    let view = View {
        state_id: state.state_id.clone(),
        window: window.clone(),
        desktop: state.desktop.clone(),
        created_ms: state.created_ms,
        lines,
        scope: Scope {
            query: req.query.clone(),
            subtree: scoped.subtree.clone(),
            page: req.page,
            all: req.all,
            table: scoped.table.is_some(),
        },
    };
    service.views.save(&view)?;
    service.ids.remember(&view)?;
    tracing::debug!(
        ms = started.elapsed().as_secs_f64() * 1000.0,
        "rendered and saved"
    );
    let marks = state
        .elements
        .iter()
        .filter_map(|e| Some((e.id.clone(), e.bounds?)))
        .collect();
    Ok(Recorded {
        result: StateResult {
            state_id: state.state_id,
            elements: state.elements.len(),
            window: snapshot.window.clone(),
            outline: outline.text,
            changes: None,
            read: ReadTime {
                how: snapshot.read,
                ms: snapshot.elapsed_ms,
            },
            truncated: snapshot.truncated.clone(),
            image: None,
            jpeg: None,
        },
        view,
        marks,
    })
}

/// One observation: the answer `gui_state` gives, the view kept of it, and each listed
/// element's box (for set-of-marks).
pub(crate) struct Recorded {
    pub(crate) result: StateResult,
    pub(crate) view: View,
    pub(crate) marks: Vec<(String, cu_core::model::geometry::Rect)>,
}

/// The key of the nearest ancestor of `snapshot.nodes[index]` that the outline listed.
fn listed_parent(
    snapshot: &cu_core::model::element::Snapshot,
    index: usize,
    listed: &std::collections::HashMap<usize, String>,
) -> Option<String> {
    let mut at = snapshot.nodes.get(index)?.parent;
    for _ in 0..snapshot.nodes.len() {
        let p = at? as usize;
        if let Some(key) = listed.get(&p) {
            return Some(key.clone());
        }
        at = snapshot.nodes.get(p)?.parent;
    }
    None
}

/// How many outline lines changed between two observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangeCount {
    /// New elements.
    pub added: usize,
    /// Elements whose line changed.
    pub changed: usize,
    /// Elements that are gone.
    pub removed: usize,
    /// Elements whose line is the same (not shown).
    pub unchanged: usize,
}

impl ChangeCount {
    pub(crate) fn of(changes: &Changes) -> ChangeCount {
        ChangeCount {
            added: changes.added.len() + changes.swapped.iter().map(|s| s.added).sum::<usize>(),
            changed: changes.changed.len(),
            removed: changes.removed.len()
                + changes.swapped.iter().map(|s| s.removed).sum::<usize>(),
            unchanged: changes.unchanged,
        }
    }
}
