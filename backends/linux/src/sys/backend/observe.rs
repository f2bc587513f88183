//! A snapshot of a window: its kept walk when that still holds, else a walk of it with the
//! popups drawn over it, its misplaced pane moved, and the walk kept for the next observation.

use cu_core::model::element::{
    DesktopInstance, ElementIdentity, Read, Snapshot, SnapshotOptions, Truncation, TruncationReason,
};
use cu_core::model::geometry::Rect;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};

use super::connected::Connected;
use super::state::WindowEntry;
use crate::sys::atspi::popups;
use crate::sys::atspi::walk::{self, Walked};
use crate::sys::atspi::ObjRef;
use crate::trees::Kept;

impl Connected {
    pub(super) async fn snapshot(
        &self,
        window: &WindowId,
        options: &SnapshotOptions,
    ) -> Result<Snapshot> {
        let c = self;
        let started = std::time::Instant::now();
        if let Some((entry, walk, how)) = c.kept_walk(window, options).await {
            tracing::debug!(
                total_ms = started.elapsed().as_secs_f64() * 1000.0,
                nodes = walk.0.len(),
                ?how,
                "snapshot from the kept walk"
            );
            let mut snapshot = Snapshot::new(entry.info, c.desktop.clone(), walk, started);
            snapshot.read = match how {
                super::kept::FromKept::Unchanged => Read::Kept,
                super::kept::FromKept::ReadAgain => Read::Events,
            };
            return Ok(snapshot);
        }
        // An observation does not wait the bus's 3 s for a silent app: it shows the window
        // alone and says its tree was not read.
        let entry = match c.live_entry_within(window, Some(walk::SILENT)).await {
            Err(e) if e.code == ErrorCode::Timeout && options.subtree.is_none() => {
                let Some(entry) = c.windows.entry(window) else {
                    return Err(e);
                };
                let unread = Truncation {
                    reason: TruncationReason::Unresponsive,
                    omitted: 0,
                };
                return Ok(window_alone(entry, &c.desktop, Some(unread), started));
            }
            entry => entry?,
        };
        c.windows.described(&entry.info, started);
        let entry_ms = started.elapsed().as_secs_f64() * 1000.0;
        // Counted before the first read: any event from now on means the walk may be stale.
        // Only a walk of the whole window is kept (an element's read would replace it).
        let count = entry
            .frame
            .as_ref()
            .and_then(|f| c.atspi.changes.count(&f.bus))
            .filter(|_| entry.xid.is_some() && options.subtree.is_none());
        let placement = entry.placement();
        let Some(frame) = entry.frame.clone() else {
            if options.subtree.is_some() {
                return Err(entry
                    .frame()
                    .err()
                    .unwrap_or_else(|| Error::new(ErrorCode::ElementNotFound, "no such element")));
            }
            return Ok(window_alone(entry, &c.desktop, None, started));
        };
        let root = match &options.subtree {
            Some(id) => {
                let obj = ObjRef::from_identity(id)?;
                if obj.bus != frame.bus {
                    return Err(Error::new(
                        ErrorCode::ElementNotFound,
                        "that element belongs to another application's window",
                    ));
                }
                obj
            }
            None => frame.clone(),
        };
        let whole = options.subtree.is_none();
        let popups = async {
            match entry.info.bounds.filter(|_| whole) {
                Some(over) => popups::showing_over(&c.atspi, &frame, over).await,
                None => Vec::new(),
            }
        };
        let (popups, walked) =
            futures_util::join!(popups, walk::walk(&c.atspi, root, placement, options));
        let walk_ms = started.elapsed().as_secs_f64() * 1000.0 - entry_ms;
        let (mut nodes, truncated) = walked.map_err(|e| {
            if e.code == ErrorCode::ElementNotFound && options.subtree.is_none() {
                Error::new(
                    ErrorCode::WindowNotFound,
                    format!("window {window} closed during the snapshot"),
                )
            } else {
                e
            }
        })?;
        for popup in popups {
            // Drawn over the window; what cannot be read of it is left out, the window stays.
            if let Ok((more, _)) = walk::walk(&c.atspi, popup, placement, options).await {
                cu_core::model::walk::graft_last(&mut nodes, more);
            }
        }
        // Only a walk of everything says whether the window holds a grid (a walk without
        // cells would say it does not, and Collection would then visit a sheet's 2^31 cells).
        if options.subtree.is_none() && options.read_cells {
            c.windows.set_walked(window, Walked::of(&nodes));
            // What has focus, as a candidate for the gate's next focus probe (read live then).
            let focused = nodes
                .iter()
                .rev()
                .find(|n| n.states.contains(cu_core::model::element::State::Focused))
                .and_then(|n| ObjRef::from_identity(&n.identity).ok());
            if let Some(obj) = focused {
                c.atspi.focus.suggest(obj);
            }
        }
        if let Some(window_bounds) = entry.info.bounds {
            c.place_misplaced(
                window,
                window_bounds.height,
                options.subtree.as_ref(),
                &mut nodes,
            )
            .await;
        }
        tracing::debug!(
            entry_ms,
            walk_ms,
            total_ms = started.elapsed().as_secs_f64() * 1000.0,
            nodes = nodes.len(),
            "snapshot"
        );
        // A walk cut short by time or a busy app is not answered again: the next one may read more.
        let lasting = !truncated
            .as_ref()
            .is_some_and(|t| t.reason.depends_on_timing());
        if let Some(count) = count.filter(|_| lasting) {
            c.windows.keep(
                Kept {
                    options: options.clone(),
                    window: entry.info.clone(),
                    count,
                    walk: (nodes.clone(), truncated.clone()),
                },
                started,
            );
        }
        Ok(Snapshot::new(
            entry.info,
            c.desktop.clone(),
            (nodes, truncated),
            started,
        ))
    }
}

/// The window alone, at its size, as a snapshot: what it shows is in its screenshot. With
/// `unread`, its tree exists but was not read (the app did not answer); without, it has none.
fn window_alone(
    entry: WindowEntry,
    desktop: &DesktopInstance,
    unread: Option<Truncation>,
    started: std::time::Instant,
) -> Snapshot {
    let window = &entry.info.id;
    let identity = match unread {
        Some(_) => format!("unread:{window}"),
        None => format!("no-tree:{window}"),
    };
    let mut root = cu_core::model::element::Node::new(
        cu_core::model::role::Role::Window,
        ElementIdentity(identity),
    );
    root.name = entry.info.title.clone();
    root.bounds = entry
        .info
        .bounds
        .map(|b| Rect::new(0, 0, b.width, b.height));
    Snapshot::new(entry.info, desktop.clone(), (vec![root], unread), started)
}
