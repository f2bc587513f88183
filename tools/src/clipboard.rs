//! `gui_clipboard`: write text to the clipboard (then a paste key enters text no keyboard
//! layout can type), or read it when the configuration allows (`clipboard.read`; clipboards
//! hold passwords). Neither the text written nor the text read is ever logged: the audit record
//! holds the op and the number of characters.

use cu_core::store::audit::AuditRecord;
use cu_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use crate::service::Outcome;
use crate::service::Service;

/// The longest text `gui_clipboard` writes, in characters.
pub const MAX_CLIPBOARD_CHARS: usize = 100_000;

/// What to do with the clipboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClipboardOp {
    /// Put `text` on the clipboard.
    Write,
    /// Answer the clipboard's text (only when the configuration allows: clipboard.read).
    Read,
}

/// `gui_clipboard`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardRequest {
    /// write or read.
    pub op: ClipboardOp,
    /// write: the text (up to 100000 characters).
    #[serde(default)]
    pub text: Option<String>,
}

/// `gui_clipboard`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClipboardResult {
    /// What was done.
    pub op: ClipboardOp,
    /// Characters written or read.
    pub chars: usize,
    /// read: the clipboard's text (empty when it holds none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Service {
    /// `gui_clipboard`.
    pub async fn gui_clipboard(&self, req: &ClipboardRequest) -> Result<ClipboardResult> {
        let outcome = self.clipboard(req).await;
        let record = AuditRecord {
            action: Some(format!(
                "gui_clipboard.{}",
                match req.op {
                    ClipboardOp::Write => "write",
                    ClipboardOp::Read => "read",
                }
            )),
            text_len: outcome.as_ref().ok().map(|r| r.chars),
            ..AuditRecord::default()
        };
        match &outcome {
            Ok(_) => self.audit(record, Outcome::Acted, None, None),
            Err(e) => self.audit(record, Outcome::Refused, Some(e), None),
        }
        outcome
    }

    async fn clipboard(&self, req: &ClipboardRequest) -> Result<ClipboardResult> {
        match (req.op, &req.text) {
            (ClipboardOp::Write, Some(text)) => {
                let chars = text.chars().count();
                if chars > MAX_CLIPBOARD_CHARS || text.contains('\0') {
                    return Err(Error::new(
                        ErrorCode::InvalidArgument,
                        format!("text must be at most {MAX_CLIPBOARD_CHARS} characters, without NUL"),
                    ));
                }
                self.backend.write_clipboard(text).await?;
                Ok(ClipboardResult {
                    op: req.op,
                    chars,
                    text: None,
                })
            }
            (ClipboardOp::Write, None) => Err(Error::new(
                ErrorCode::InvalidArgument,
                "op=write needs text",
            )),
            (ClipboardOp::Read, Some(_)) => Err(Error::new(
                ErrorCode::InvalidArgument,
                "op=read takes no text",
            )),
            (ClipboardOp::Read, None) if !self.config.clipboard_read => Err(Error::new(
                ErrorCode::NotAllowed,
                "reading the clipboard is off: clipboards hold passwords",
            )
            .with_details(serde_json::json!({ "config_key": "clipboard.read", "env": "MCP_CU_CLIPBOARD_READ" }))),
            (ClipboardOp::Read, None) => {
                let text = self.backend.read_clipboard().await?;
                Ok(ClipboardResult {
                    op: req.op,
                    chars: text.chars().count(),
                    text: Some(text),
                })
            }
        }
    }
}
