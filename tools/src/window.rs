//! `gui_window`: focus, move, resize, minimize, maximize, restore or close a top-level window,
//! or quit its application (close each of its windows), each read back from the window list
//! and reported as seen.
//!
//! The request is checked into a [`WindowChange`] first (the fields each op needs, sizes and
//! places on screen); closing passes the safety gate on the word "Close" (not blocked by
//! default; `safety.blocklist` can add it, and then it needs `confirm_dangerous`). After the
//! backend has asked, the window list is polled for up to [`READ_BACK`]: `done` when the list
//! shows the change, `dialog` when a close left the window open and opened another one of the
//! app (a "Save changes?" question, named so the agent answers it), `not_seen` when nothing
//! showed it in time. Every call writes one audit record.

use std::time::{Duration, Instant};

use cu_core::model::backend::WindowChange;
use cu_core::model::geometry::{Point, Size};
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::policy::safety::Decision;
use cu_core::store::audit::AuditRecord;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use crate::effect::Opened;
use crate::service::Outcome;
use crate::service::Service;

/// How long the outcome is watched for.
pub const READ_BACK: Duration = Duration::from_millis(2000);

/// The ops, as the wire names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowOp {
    /// Bring to the front with focus.
    Focus,
    /// Put the client area's top-left corner at screen x, y.
    Move,
    /// Give the client area width × height.
    Resize,
    /// Minimize.
    Minimize,
    /// Maximize.
    Maximize,
    /// Undo minimize and maximize.
    Restore,
    /// Close as its close button would (the app may ask to save).
    Close,
    /// Quit the application: close each of its windows politely, as close does (never kill).
    Quit,
}

/// `gui_window`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowRequest {
    /// From gui_list.
    pub window_id: WindowId,
    /// What to do.
    pub op: WindowOp,
    /// move: screen x of the window's top-left corner.
    #[serde(default)]
    pub x: Option<i32>,
    /// move: screen y.
    #[serde(default)]
    pub y: Option<i32>,
    /// resize: width in pixels.
    #[serde(default)]
    #[schemars(range(min = 1, max = 16384))]
    pub width: Option<i32>,
    /// resize: height in pixels.
    #[serde(default)]
    #[schemars(range(min = 1, max = 16384))]
    pub height: Option<i32>,
    /// close, when the configuration blocks closing: only after the user explicitly approved.
    #[serde(default)]
    pub confirm_dangerous: bool,
}

/// How a window op ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowOutcome {
    /// The window list shows the change.
    Done,
    /// Close: the window stayed and the app opened another window (see dialog): answer it.
    Dialog,
    /// Asked, but the window list did not show the change in time.
    NotSeen,
}

/// `gui_window`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WindowResult {
    /// What was asked.
    pub op: WindowOp,
    /// What was seen.
    pub outcome: WindowOutcome,
    /// The window as last listed (absent once closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowInfo>,
    /// The window a close opened instead of closing ("Save changes?").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Opened>,
}

fn invalid(message: impl Into<String>, suggestion: &str) -> Error {
    Error::new(ErrorCode::InvalidArgument, message).with_suggestion(suggestion)
}

impl WindowRequest {
    /// The change this request asks for, with the fields its op needs and no others.
    fn change(&self) -> Result<WindowChange> {
        let place = self.x.is_some() || self.y.is_some();
        let size = self.width.is_some() || self.height.is_some();
        let op = self.op;
        if (place && op != WindowOp::Move) || (size && op != WindowOp::Resize) {
            return Err(invalid(
                "x and y go with op=move, width and height with op=resize",
                "Leave out the fields the op does not use.",
            ));
        }
        Ok(match op {
            WindowOp::Focus => WindowChange::Focus,
            WindowOp::Move => match (self.x, self.y) {
                (Some(x), Some(y))
                    if (-16384..=32768).contains(&x) && (-16384..=32768).contains(&y) =>
                {
                    WindowChange::Move {
                        to: Point::new(x, y),
                    }
                }
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        "x or y is far off any screen",
                        "Give a point on a screen.",
                    ))
                }
                _ => {
                    return Err(invalid(
                        "op=move needs x and y",
                        "Give the screen point for the top-left corner.",
                    ))
                }
            },
            WindowOp::Resize => match (self.width, self.height) {
                (Some(w), Some(h)) if (1..=16384).contains(&w) && (1..=16384).contains(&h) => {
                    WindowChange::Resize {
                        size: Size {
                            width: w,
                            height: h,
                        },
                    }
                }
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        "width and height must be 1 to 16384",
                        "Give a size that fits a screen.",
                    ))
                }
                _ => return Err(invalid("op=resize needs width and height", "Give both.")),
            },
            WindowOp::Minimize => WindowChange::Minimize,
            WindowOp::Maximize => WindowChange::Maximize,
            WindowOp::Restore => WindowChange::Restore,
            WindowOp::Close | WindowOp::Quit => WindowChange::Close,
        })
    }
}

/// Whether `now` (the window as listed after the op; `None` when gone) shows `change`, given
/// how it was before.
fn shows(change: &WindowChange, before: &WindowInfo, now: Option<&WindowInfo>) -> bool {
    let Some(now) = now else {
        return matches!(change, WindowChange::Close);
    };
    match change {
        WindowChange::Focus => now.focused,
        WindowChange::Move { to } => now.bounds.is_some_and(|b| b.x == to.x && b.y == to.y),
        WindowChange::Resize { size } => now
            .bounds
            .is_some_and(|b| b.width == size.width && b.height == size.height),
        WindowChange::Minimize => now.minimized,
        WindowChange::Maximize => match (before.bounds, now.bounds) {
            (Some(b), Some(n)) => n.width * n.height > b.width * b.height,
            _ => false,
        },
        WindowChange::Restore => {
            !now.minimized && (before.minimized || now.bounds != before.bounds)
        }
        _ => false,
    }
}

impl Service {
    /// `gui_window`.
    pub async fn gui_window(&self, req: &WindowRequest) -> Result<WindowResult> {
        let record = AuditRecord {
            action: Some(format!("gui_window.{}", op_name(req.op))),
            window: Some(req.window_id.0.clone()),
            confirmed: Some(req.confirm_dangerous),
            ..AuditRecord::default()
        };
        let outcome = self.change_window(req).await;
        match &outcome {
            Ok(done) => self.audit(
                AuditRecord {
                    effect: Some(outcome_name(done.outcome).into()),
                    ..record
                },
                Outcome::Acted,
                None,
                None,
            ),
            Err((error, sent)) => self.audit(
                record,
                if *sent {
                    Outcome::Failed
                } else {
                    Outcome::Refused
                },
                Some(error),
                None,
            ),
        }
        outcome.map_err(|(e, _)| e)
    }

    async fn change_window(
        &self,
        req: &WindowRequest,
    ) -> std::result::Result<WindowResult, (Error, bool)> {
        let refused = |e: Error| (e, false);
        let change = req.change().map_err(refused)?;
        let window = req.window_id.clone();
        let listed = self.backend.list_windows().await.map_err(refused)?;
        let before = listed
            .iter()
            .find(|w| w.id == window)
            .cloned()
            .ok_or_else(|| {
                refused(
                    Error::new(ErrorCode::WindowNotFound, format!("no window {window}"))
                        .with_suggestion("List the windows again with gui_list."),
                )
            })?;
        let same_app = |w: &WindowInfo| {
            w.pid.is_some() && w.pid == before.pid || w.pid.is_none() && w.app == before.app
        };
        let targets: Vec<WindowId> = if req.op == WindowOp::Quit {
            listed
                .iter()
                .filter(|w| same_app(w))
                .map(|w| w.id.clone())
                .collect()
        } else {
            vec![window.clone()]
        };
        // The Desktop page, where a person approves, is never operated by the tools: neither
        // closed nor minimized nor moved away from the person's eyes.
        if listed
            .iter()
            .any(|w| targets.contains(&w.id) && w.title.contains(super::guard::DESKTOP_PAGE_TITLE))
        {
            return Err(refused(
                Error::new(
                    ErrorCode::Unauthorized,
                    "this window shows the Desktop page of mcp-computer-use, where people approve what the safety gate held back; the tools never operate it",
                )
                .with_suggestion("Ask the person to use the page themselves."),
            ));
        }
        // Closing goes through the same policy as every other acting input: refused, passed on
        // confirm_dangerous, or (approvals on) decided by a person.
        if change == WindowChange::Close {
            if let Decision::NeedsConfirmation {
                label,
                matched_rule,
            } = self.gate().check("Close")
            {
                let blocked = super::approval::Blocked {
                    step: 0,
                    action: format!("gui_window.{}", op_name(req.op)),
                    label,
                    matched_rule,
                    target: None,
                    point: None,
                    element_id: None,
                    reason: super::approval::Reason::BlockedWord,
                    after_input: false,
                };
                crate::approval::settle_blocked(
                    self,
                    &window,
                    &before.title,
                    blocked,
                    req.confirm_dangerous,
                )
                .await
                .map_err(refused)?;
            }
        }
        for (n, target) in targets.iter().enumerate() {
            self.backend
                .change_window(target, &change)
                .await
                .map_err(|e| (e, n > 0))?;
        }
        let deadline = Instant::now() + READ_BACK;
        loop {
            let now = self.backend.list_windows().await.map_err(|e| (e, true))?;
            let remaining = now.iter().filter(|w| targets.contains(&w.id)).count();
            let this = now
                .iter()
                .find(|w| w.id == window)
                .or_else(|| now.iter().find(|w| targets.contains(&w.id)));
            let appeared = (change == WindowChange::Close)
                .then(|| {
                    now.iter()
                        .find(|w| !listed.iter().any(|l| l.id == w.id) && same_app(w))
                })
                .flatten();
            let done = match req.op {
                WindowOp::Quit => remaining == 0,
                _ => shows(&change, &before, this),
            };
            let outcome = if done {
                Some(WindowOutcome::Done)
            } else if let (Some(_), Some(_)) = (this, appeared) {
                Some(WindowOutcome::Dialog)
            } else if Instant::now() >= deadline {
                Some(WindowOutcome::NotSeen)
            } else {
                None
            };
            if let Some(outcome) = outcome {
                return Ok(WindowResult {
                    op: req.op,
                    outcome,
                    window: this.cloned(),
                    dialog: appeared
                        .filter(|_| outcome == WindowOutcome::Dialog)
                        .map(|w| Opened {
                            window_id: w.id.clone(),
                            title: w.title.clone(),
                        }),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn op_name(op: WindowOp) -> &'static str {
    match op {
        WindowOp::Focus => "focus",
        WindowOp::Move => "move",
        WindowOp::Resize => "resize",
        WindowOp::Minimize => "minimize",
        WindowOp::Maximize => "maximize",
        WindowOp::Restore => "restore",
        WindowOp::Close => "close",
        WindowOp::Quit => "quit",
    }
}

fn outcome_name(outcome: WindowOutcome) -> &'static str {
    match outcome {
        WindowOutcome::Done => "done",
        WindowOutcome::Dialog => "dialog",
        WindowOutcome::NotSeen => "not_seen",
    }
}
