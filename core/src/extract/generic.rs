//! The fallback profile: status is always `unknown`; failures from the last 30 lines.

use std::collections::BTreeMap;

use super::{failures, reading_order, Extracted, Status};
use crate::element::Snapshot;

/// Reads any window.
pub fn extract(snapshot: &Snapshot) -> Extracted {
    let text = reading_order(snapshot, 0);
    let tail = &text[text.len().saturating_sub(30)..];
    let mut details = BTreeMap::new();
    let found = failures(tail);
    if !found.is_empty() {
        details.insert("failures", serde_json::json!(found));
    }
    Extracted {
        extractor: "generic",
        status: Status::Unknown,
        details,
        text,
        truncated: false,
    }
}
