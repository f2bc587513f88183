//! The internal call behind the Desktop page: a person's view of one window and their input,
//! outside the model's `state_id` rules. Never an MCP tool: a worker answers it only as the
//! unlisted `_desktop` call of its authenticated listener, and a controller's own MCP server
//! refuses it.
//!
//! Every image is stamped with the geometry it was taken with, and every input carries the
//! geometry of the image it was aimed at: if the window moved, was resized or is gone, the
//! input is refused (`WINDOW_MOVED`, `WINDOW_NOT_FOUND`) and nothing is sent. Points outside the
//! window are refused by the backend.

use cu_core::model::backend::InputEvent;
use cu_core::model::geometry::Rect;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use super::image::{capture_jpeg, ImageInfo};
use crate::service::{ListResult, Service};

/// One internal desktop request.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum DesktopRequest {
    /// The windows.
    Windows,
    /// A JPEG of one window and the geometry it was taken with.
    Capture {
        /// The window.
        window_id: WindowId,
    },
    /// Bring a window to the front (a person asked: X11 cannot capture a covered window).
    Activate {
        /// The window.
        window_id: WindowId,
    },
    /// The approvals waiting on this machine.
    Approvals,
    /// A person's decision on one of them.
    Decide {
        /// The approval id.
        id: String,
        /// Yes or no.
        approve: bool,
        /// Who decided (as the page knows them).
        by: String,
    },
    /// The crop stored with an approval.
    Crop {
        /// The approval id.
        id: String,
    },
    /// Input aimed at an image taken with `geometry`.
    Input {
        /// The window.
        window_id: WindowId,
        /// The geometry stamped on the image the input was aimed at.
        geometry: Rect,
        /// The input, in window-relative pixels.
        event: InputEvent,
    },
}

impl DesktopRequest {
    /// A decision, input or activation: what only a person on a Desktop page may ask for (a
    /// worker admits it with its desktop credential alone, never with the tool token).
    pub fn changes_something(&self) -> bool {
        match self {
            DesktopRequest::Windows
            | DesktopRequest::Capture { .. }
            | DesktopRequest::Approvals
            | DesktopRequest::Crop { .. } => false,
            DesktopRequest::Activate { .. }
            | DesktopRequest::Decide { .. }
            | DesktopRequest::Input { .. } => true,
        }
    }
}

/// The answer to a [`DesktopRequest`].
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum DesktopAnswer {
    /// The windows.
    Windows(ListResult),
    /// An image and its geometry.
    Capture {
        /// The window's rectangle when the image was taken.
        geometry: Option<Rect>,
        /// Size and scale of the image.
        image: ImageInfo,
        /// The JPEG (sent as image content).
        #[serde(skip)]
        jpeg: Vec<u8>,
    },
    /// Approvals, or one decided.
    Approvals {
        /// The approvals.
        approvals: Vec<cu_core::store::approvals::Approval>,
    },
    /// A stored crop.
    Crop {
        /// The JPEG (sent as image content).
        #[serde(skip)]
        jpeg: Vec<u8>,
    },
    /// The input was sent.
    Sent {
        /// Always true.
        sent: bool,
    },
}

impl Service {
    /// Runs one internal desktop request. A person's input, activation or decision is written
    /// to the audit log like any acting call (typed text by its length only).
    pub async fn desktop(&self, req: &DesktopRequest) -> Result<DesktopAnswer> {
        let answer = self.desktop_now(req).await;
        if req.changes_something() {
            self.audit_desktop(req, answer.as_ref().err());
        }
        answer
    }

    fn audit_desktop(&self, req: &DesktopRequest, error: Option<&Error>) {
        let mut record = cu_core::store::audit::AuditRecord {
            result: Some(if error.is_some() { "failed" } else { "ok" }.into()),
            error_code: error.map(|e| e.code.as_str().to_owned()),
            how: Some("desktop_page".into()),
            ..Default::default()
        };
        match req {
            DesktopRequest::Activate { window_id } => {
                record.action = Some("desktop.activate".into());
                record.window = Some(window_id.0.clone());
            }
            DesktopRequest::Decide { id, approve, by } => {
                record.action = Some("desktop.decide".into());
                record.reference = Some(id.clone());
                record.approval = Some(if *approve { "approved" } else { "denied" }.into());
                record.hint = Some(format!("by {by}"));
            }
            DesktopRequest::Input {
                window_id, event, ..
            } => {
                record.window = Some(window_id.0.clone());
                let (kind, point) = match event {
                    InputEvent::Move { at } => ("move", Some(*at)),
                    InputEvent::Click { at, .. } => ("click", Some(*at)),
                    InputEvent::Drag { from, .. } => ("drag", Some(*from)),
                    InputEvent::Scroll { at, .. } => ("scroll", Some(*at)),
                    // Keys and text are what a person typed: their length only, never them.
                    InputEvent::Key { .. } => ("key", None),
                    InputEvent::Text { text } => {
                        record.text_len = Some(text.chars().count());
                        ("text", None)
                    }
                    _ => ("other", None),
                };
                record.action = Some(format!("desktop.input.{kind}"));
                record.point = point;
            }
            _ => return,
        }
        if let Err(e) = self.audit.append(record, None) {
            tracing::warn!("audit log: {}", e.message);
        }
    }

    async fn desktop_now(&self, req: &DesktopRequest) -> Result<DesktopAnswer> {
        match req {
            DesktopRequest::Windows => Ok(DesktopAnswer::Windows(self.gui_list().await?)),
            DesktopRequest::Capture { window_id } => {
                let window = window_id.clone();
                let geometry = self.current_bounds(&window).await?;
                let shot = capture_jpeg(self.backend.as_ref(), &window, &self.config).await?;
                Ok(DesktopAnswer::Capture {
                    geometry,
                    image: shot.info,
                    jpeg: shot.jpeg,
                })
            }
            DesktopRequest::Activate { window_id } => {
                self.backend.activate(&window_id.clone()).await?;
                Ok(DesktopAnswer::Sent { sent: true })
            }
            DesktopRequest::Approvals => Ok(DesktopAnswer::Approvals {
                approvals: self.approvals.pending()?,
            }),
            DesktopRequest::Decide { id, approve, by } => Ok(DesktopAnswer::Approvals {
                approvals: vec![self.approvals.decide(id, *approve, by)?],
            }),
            DesktopRequest::Crop { id } => {
                let path = self.approvals.crop_path(id)?;
                let jpeg = std::fs::read(&path).map_err(|e| {
                    Error::new(ErrorCode::ElementNotFound, format!("no crop for {id}: {e}"))
                })?;
                Ok(DesktopAnswer::Crop { jpeg })
            }
            DesktopRequest::Input {
                window_id,
                geometry,
                event,
            } => {
                let window = window_id.clone();
                let now = self.current_bounds(&window).await?;
                if now != Some(*geometry) {
                    return Err(Error::new(
                        ErrorCode::WindowMoved,
                        format!("the window is now at {now:?}, not where the image showed it; nothing was sent"),
                    )
                    .with_suggestion("Refresh the view and aim again."));
                }
                self.backend.input(&window, event).await?;
                Ok(DesktopAnswer::Sent { sent: true })
            }
        }
    }

    async fn current_bounds(&self, window: &WindowId) -> Result<Option<Rect>> {
        let windows = self.backend.list_windows().await?;
        windows
            .into_iter()
            .find(|w| &w.id == window)
            .map(|w| w.bounds)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::WindowNotFound,
                    format!("window {window} is gone"),
                )
            })
    }
}
