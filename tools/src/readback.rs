//! What a value reads now, as the app shows it: polled after `set_value` or a choice until it
//! reads as wanted or stops changing, compared as a field shows text (line endings, the same
//! number) and a choice as people name it.

use std::time::{Duration, Instant};

use cu_core::model::element::SnapshotOptions;
use cu_core::model::role::Role;
use cu_core::store::state_registry::{SavedElement, SavedState};

use crate::service::Service;

/// How long a value is polled for after the last change seen, and at most.
const QUIET: Duration = Duration::from_millis(400);
const AT_MOST: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(50);

/// Polls `element`'s value until it reads as `wanted` (for [`QUIET`] after the last change
/// seen, [`AT_MOST`] in all): `Ok` with what it reads, `Err` with the last value read (`None`
/// when it has none). A password field reads back nothing to compare: `Ok(None)`.
pub(crate) async fn reads_back(
    service: &Service,
    state: &SavedState,
    element: &SavedElement,
    wanted: &str,
) -> std::result::Result<Option<String>, Option<String>> {
    if element.role == Role::PasswordInput {
        return Ok(None);
    }
    let started = Instant::now();
    let mut quiet_until = started + QUIET;
    let mut last: Option<String> = None;
    loop {
        let value = value_now(service, state, element).await;
        let read = value.as_deref().unwrap_or("");
        // A choice is named as people write it ("orville" picks "Orville").
        let chosen = matches!(element.role, Role::ComboBox | Role::List)
            && !read.trim().is_empty()
            && cu_core::model::text::normalize(read) == cu_core::model::text::normalize(wanted);
        // A spin button shows its number with the unit it counts ("8 spaces", "700 px").
        let counted = matches!(element.role, Role::SpinButton | Role::Slider)
            && same_number(leading_number(read), wanted);
        if chosen || counted || same_text(read, wanted) {
            return Ok(value);
        }
        let now = Instant::now();
        if value != last {
            quiet_until = now + QUIET;
            last = value;
        }
        if now >= quiet_until || now >= started + AT_MOST {
            return Err(last);
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The value `element` shows now: its own, or (a combo box without one: GTK 3, Chromium's
/// `<select>`) its chosen item's, so its items are read too.
async fn value_now(
    service: &Service,
    state: &SavedState,
    element: &SavedElement,
) -> Option<String> {
    let options = SnapshotOptions {
        subtree: Some(element.identity.clone()),
        max_depth: Some(if element.role == Role::ComboBox { 3 } else { 0 }),
        max_nodes: 200,
        time_budget_ms: 1000,
        ..SnapshotOptions::default()
    };
    let snapshot = service
        .backend
        .snapshot(&state.window, &options)
        .await
        .ok()?;
    let node = snapshot.nodes.into_iter().next()?;
    match node.value {
        // GTK 3 names a combo box by its current choice, and gives it no value.
        None if node.role == Role::ComboBox && !node.name.trim().is_empty() => Some(node.name),
        value => value,
    }
}

/// Whether `read` is `wanted` as a field shows it: line endings and trailing line breaks
/// aside, or the same number ("7" and "7.0").
pub(crate) fn same_text(read: &str, wanted: &str) -> bool {
    let clean = |s: &str| s.replace("\r\n", "\n").trim_end_matches('\n').to_owned();
    let (read, wanted) = (clean(read), clean(wanted));
    read == wanted || same_number(&read, &wanted)
}

/// The number a value opens with, its unit after a space left out ("8 spaces" → "8").
fn leading_number(read: &str) -> &str {
    read.trim()
        .split_once(' ')
        .map_or(read.trim(), |(number, _)| number)
}

/// Whether `read` and `wanted` are the same number.
fn same_number(read: &str, wanted: &str) -> bool {
    matches!((read.trim().parse::<f64>(), wanted.trim().parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FeatherPad's tab size answered "did not take" for 8, reading "8 spaces".
    #[test]
    fn regression_a_spin_buttons_unit_made_its_number_not_read_back() {
        assert!(same_number(leading_number("8 spaces"), "8"));
        assert!(same_number(leading_number("700 px"), "700.0"));
        assert!(!same_number(leading_number("7 px"), "700"));
        assert!(!same_number(leading_number("px"), "700"));
    }
}
