//! Where the keyboard focus is, as the accessibility tree shows it: the focus the app's last
//! focus event named, confirmed live (focus memory), else a search bounded by what the last
//! walk saw; and where it moves next, as the app tells it ([`Moves`]).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::model::backend::{FocusMove, FocusMoves};
use cu_core::model::element::SnapshotOptions;
use cu_core::model::receiver::Probe;
use cu_core::model::window::WindowId;
use cu_core::Result;

use super::connected::{Connected, CAUGHT_UP};
use super::state::WindowEntry;
use crate::sys::atspi::focus::Move;
use crate::sys::atspi::probe;
use crate::sys::atspi::walk::Walked;
use crate::sys::atspi::{Atspi, ObjRef};
use crate::translate::atspi_role;

/// How long an app is given to answer the round trip that brings its last focus events across
/// the bus before its focused element is searched for.
const FOCUS_CROSSED: Duration = Duration::from_millis(500);
/// How long an app whose remembered focus is still not confirmed after the round trip is given
/// to name its new focus: its main loop may have answered the call before it handled the key
/// sent just before (GLib takes D-Bus and X events in either order), and a busy machine delays
/// the handling. Far less than the search it saves (0.5–0.9 s in a sheet).
const FOCUS_NAMED: Duration = Duration::from_millis(300);

impl Connected {
    /// The focus moves of `window`'s application from now on ([`Moves`]).
    pub(super) async fn focus_moves(&self, window: &WindowId) -> Result<Box<dyn FocusMoves>> {
        let entry = self.entry(window).await?;
        Ok(Box::new(Moves {
            atspi: self.atspi.clone(),
            bus: entry.frame()?.bus.clone(),
            told: self.atspi.focus.moves(),
        }))
    }

    /// The focused element as the accessibility tree shows it (the app's last focus event, else
    /// a search of its showing top-levels and the window).
    pub(super) async fn focused_in_tree(&self, window: &WindowId) -> Result<Probe> {
        let c = self;
        let entry = c.live_entry(window).await?;
        if let Some(probe) = c.remembered_focus(window, &entry).await? {
            return Ok(probe);
        }
        let known = c.walked(window).map(|w| w.grid);
        let holds_grid = match known {
            Some(holds) => holds,
            None => {
                // A window not walked yet is walked once to find out; the walk names the
                // focused element it saw as the candidate.
                c.snapshot(window, &SnapshotOptions::default()).await?;
                if let Some(probe) = c.remembered_focus(window, &entry).await? {
                    return Ok(probe);
                }
                c.walked(window).is_none_or(|w| w.grid)
            }
        };
        let search = if holds_grid {
            probe::FocusSearch::Walk
        } else {
            probe::FocusSearch::Collection
        };
        probe::focused(&c.atspi, entry.frame()?, entry.placement(), search).await
    }
    /// What the last full walk of `window` saw.
    pub(super) fn walked(&self, window: &WindowId) -> Option<Arc<Walked>> {
        self.windows.walked(window)
    }
    /// The focused element the app's last focus event (or the last walk) named, if it is
    /// confirmed live in `entry`'s window; `None` means search.
    async fn remembered_focus(
        &self,
        window: &WindowId,
        entry: &WindowEntry,
    ) -> Result<Option<Probe>> {
        let frame = entry.frame()?;
        // The focus events that reached the bus before now are read first: the one a key just
        // caused (Calc's cell editor after a digit) was often still on its way, and a stale
        // remembered focus costs a search of the whole sheet.
        self.atspi.caught_up(CAUGHT_UP).await;
        let Some(remembered) = self.atspi.focus.of(&frame.bus) else {
            return Ok(None);
        };
        if let Some(found) = self
            .confirmed_focus(window, frame, entry, &remembered)
            .await
        {
            return Ok(Some(found));
        }
        // An app reached through its own connection answers there before its events have
        // crossed the bus, and mid-way through moving focus (Calc's cell says "not focused"
        // while it commits, or while the event naming the new one is still on its way): one
        // round trip through the bus brings every event the app sent before answering, and the
        // focus it names then (the same element, often) is asked again.
        let mut gains = self.atspi.focus.gains();
        let crossed = tokio::time::timeout(FOCUS_CROSSED, self.atspi.round_trip(frame)).await;
        if matches!(crossed, Ok(Ok(_))) {
            self.atspi.caught_up(CAUGHT_UP).await;
            if let Some(found) = self.focus_now(window, frame, entry).await {
                return Ok(Some(found));
            }
            // The app answered but its focus is still not where it says: the key that moves it
            // may not be handled yet. A focus gain within the bound is asked again.
            let named = tokio::time::timeout(FOCUS_NAMED, gains.changed()).await;
            if matches!(named, Ok(Ok(()))) {
                if let Some(found) = self.focus_now(window, frame, entry).await {
                    return Ok(Some(found));
                }
            }
        }
        tracing::debug!(
            ?remembered,
            "the remembered focus is not confirmed: searching"
        );
        Ok(None)
    }
    /// The element `frame`'s app names as focused now, if it is confirmed live.
    async fn focus_now(
        &self,
        window: &WindowId,
        frame: &ObjRef,
        entry: &WindowEntry,
    ) -> Option<Probe> {
        let now = self.atspi.focus.of(&frame.bus)?;
        self.confirmed_focus(window, frame, entry, &now).await
    }
    /// `remembered`, the element an app's focus event named, if it says it is focused and sits
    /// in `entry`'s window (or another showing top-level of its app). A container that
    /// manages its descendants (a Calc sheet) passes keys to the child it last named active,
    /// which is the receiver when it says it is focused too (Return on a cell moves down; on
    /// the sheet it was judged as handed to the window's default button).
    async fn confirmed_focus(
        &self,
        window: &WindowId,
        frame: &ObjRef,
        entry: &WindowEntry,
        remembered: &ObjRef,
    ) -> Option<Probe> {
        if let Some(child) = self.atspi.focus.active_in(remembered) {
            if let Some(found) = self.confirmed_one(window, frame, entry, &child).await {
                return Some(found);
            }
        }
        self.confirmed_one(window, frame, entry, remembered).await
    }
    async fn confirmed_one(
        &self,
        window: &WindowId,
        frame: &ObjRef,
        entry: &WindowEntry,
        remembered: &ObjRef,
    ) -> Option<Probe> {
        let walked = self.walked(window);
        probe::remembered_focus(
            &self.atspi,
            frame,
            entry.placement(),
            remembered,
            walked.as_deref(),
        )
        .await
    }
}

/// What a sheet gives focus to while its cursor moves between cells (LibreOffice Calc): the
/// sheet's table, a cell, the panel of a cell's editor (named after the cell) and the editor's
/// paragraph.
const SHEET_FOCUS: [u32; 4] = [
    atspi_role::TABLE,
    atspi_role::TABLE_CELL,
    atspi_role::PANEL,
    atspi_role::PARAGRAPH,
];

/// The focus moves one application tells ([`Connected::focus_moves`]): a container's new active
/// child is a cursor's move; focus given to what a sheet focuses while its cursor moves
/// ([`SHEET_FOCUS`]: typing into a cell opens its editor) is waited past; focus given to
/// anything else (a message box's button) is a move elsewhere.
struct Moves {
    atspi: Atspi,
    bus: String,
    told: tokio::sync::broadcast::Receiver<Move>,
}

#[async_trait]
impl FocusMoves for Moves {
    async fn moved(&mut self, within: Duration) -> FocusMove {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let told = match tokio::time::timeout_at(deadline, self.told.recv()).await {
                Ok(Ok(told)) => told,
                // Fell behind: what happened is not known.
                Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {
                    return FocusMove::Elsewhere
                }
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) | Err(_) => {
                    return FocusMove::Nothing
                }
            };
            if told.source.bus != self.bus {
                continue;
            }
            if told.active_child {
                return FocusMove::Cursor;
            }
            let role = self.atspi.role(&told.source).await;
            tracing::debug!(?role, "focus told while a sheet moves");
            if !role.is_ok_and(|r| SHEET_FOCUS.contains(&r)) {
                return FocusMove::Elsewhere;
            }
        }
    }
}
