//! The fallback profile: status is always `unknown`; failures from the last 30 lines.

use super::{reading_order, Extracted};
use crate::model::element::Snapshot;

/// Reads any window.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = reading_order(snapshot, 0);
    let mut out = Extracted::new("generic", text);
    let tail = out.text[out.text.len().saturating_sub(30)..].to_vec();
    out.set("failures", serde_json::json!(super::failures(&tail)));
    out
}
