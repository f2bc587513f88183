//! Choosing a drop-down's option by its label in one step, as `set_value` on a combo box: the
//! option is found among the items the combo box holds (a GTK 3 combo's menu, a web
//! `<select>`'s options), pressed by its own action without opening the popup, and the value
//! read back. A label no option has is refused before anything is sent, naming the options
//! (unless the combo box takes typed text too).

use std::collections::HashSet;

use cu_core::model::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::model::element::{ElementIdentity, SnapshotOptions};
use cu_core::model::keys::{Combo, Key, NamedKey};
use cu_core::model::node::State;
use cu_core::model::role::Role;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};

use crate::guard::Sender;
use crate::how::{Ran, Via};
use crate::service::Service;

/// One option of a drop-down as the tree shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Choice {
    pub(crate) identity: ElementIdentity,
    pub(crate) label: String,
    /// Where it is drawn; `None` while its popup is closed.
    pub(crate) bounds: Option<cu_core::model::geometry::Rect>,
}

impl Choice {
    /// An option as a snapshot's `node` shows it: its place only when it is drawn.
    fn of(node: &cu_core::model::node::Node) -> Choice {
        Choice {
            identity: node.identity.clone(),
            label: node.name.trim().to_owned(),
            bounds: node
                .bounds
                .filter(|b| !b.is_empty() && !node.states.contains(State::Offscreen)),
        }
    }
}

/// Roles a drop-down's options have.
fn is_option(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::RadioMenuItem | Role::CheckMenuItem | Role::ListItem
    )
}

/// The option whose label is `wanted` as people write it (case, dashes and "&" folded): one
/// with exactly that label first. `Err` with every label when none is.
pub(crate) fn pick<'a>(
    options: &'a [Choice],
    wanted: &str,
) -> std::result::Result<&'a Choice, Vec<String>> {
    let folded = cu_core::model::text::normalize(wanted);
    options
        .iter()
        .find(|c| c.label.trim() == wanted.trim())
        .or_else(|| {
            options
                .iter()
                .find(|c| cu_core::model::text::normalize(&c.label) == folded)
        })
        .ok_or_else(|| options.iter().map(|c| c.label.clone()).collect())
}

/// The options `element` holds, read now (empty when its toolkit shows none while closed), and
/// whether it takes typed text too (a combo box with an entry).
async fn options_of(
    service: &Service,
    state: &SavedState,
    element: &SavedElement,
) -> (Vec<Choice>, bool) {
    let options = SnapshotOptions {
        subtree: Some(element.identity.clone()),
        max_depth: Some(4),
        max_nodes: 500,
        time_budget_ms: 1000,
        ..SnapshotOptions::default()
    };
    let Ok(snapshot) = service.backend.snapshot(&state.window, &options).await else {
        return (Vec::new(), false);
    };
    let choices = snapshot
        .nodes
        .iter()
        .skip(1)
        .filter(|n| is_option(n.role) && !n.name.trim().is_empty())
        .map(Choice::of)
        .collect();
    let editable = snapshot.nodes.iter().any(|n| n.role.is_editable_text());
    (choices, editable)
}

/// Chooses `value` in the combo box `element` by pressing its option, then reads the combo's
/// value back. `Ok(None)` when the combo shows no options to press (the caller enters the
/// value another way); an error naming the options when none is `value`.
pub(crate) async fn choose(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
    value: &str,
) -> Result<Option<Ran>> {
    let (options, editable) = options_of(service, state, element).await;
    if options.is_empty() {
        return Ok(None);
    }
    let choice = match pick(&options, value) {
        Ok(choice) => choice,
        // A combo box with an entry takes other text too: typed there.
        Err(_) if editable => return Ok(None),
        Err(labels) => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "{} {:?} has no option {value:?}; its options: {}",
                    element.role,
                    element.name,
                    labels.join(", ")
                ),
            )
            .with_suggestion("Pass one of its options as the value.")
            .with_details(serde_json::json!({ "options": labels }))
            .before_sending())
        }
    };
    // The option's own action, judged like a press of it (its label is what it does).
    let pressed = sender
        .perform(&choice.identity, &SemanticAction::Choose)
        .await;
    match pressed {
        Ok(()) => {
            if let Ok(read) =
                crate::readback::reads_back(service, state, element, &choice.label).await
            {
                return Ok(Some(Ran {
                    value: read,
                    ..Ran::from(Via::Semantic)
                }));
            }
        }
        // Nothing the option offers (Qt's items only select themselves in the closed list).
        Err(e) if e.code == ErrorCode::ActionNotSupported => {}
        Err(e) => return Err(e),
    }
    // Pressed but not taken: chosen as a person does, in the open popup.
    from_popup(service, sender, state, element, &choice.label).await
}

/// Opens the drop-down with a click, waits for the option `label` to show in its popup, clicks
/// it (the gate judges the option under the pointer: the popup is the receiver) and reads the
/// choice back. `Ok(None)` when the option did not show (the caller enters it another way).
async fn from_popup(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
    label: &str,
) -> Result<Option<Ran>> {
    let Some(face) = element.bounds else {
        return Ok(None);
    };
    let shown = open_popup(
        service,
        sender,
        state,
        face,
        |_| true,
        || async { options_of(service, state, element).await.0 },
    )
    .await?;
    let Some(at) = pick(&shown, label)
        .ok()
        .and_then(|o| o.bounds)
        .map(|b| b.center())
    else {
        return Ok(None);
    };
    sender.pointer(&click(at)).await?;
    match crate::readback::reads_back(service, state, element, label).await {
        Ok(read) => Ok(Some(Ran {
            value: read,
            ..Ran::from(Via::Coordinates)
        })),
        Err(_) => Ok(None),
    }
}

/// `set_value` on a drop-down's face, a toggle button whose popup is a window of its own
/// (LibreOffice's list boxes: the Sort dialog's keys): the face is clicked, the options that
/// came with the popup are read from the whole window (`Cell`s of a popup table there), and
/// the one named `label` is clicked (the gate judges it under the pointer). The face shows no
/// value to read back: `value` stays unset. An error naming the options that came when none is
/// `label` (the popup closed again with Escape).
pub(crate) async fn from_face(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
    label: &str,
) -> Result<Ran> {
    let Some(face) = element.bounds else {
        return Err(Error::new(
            ErrorCode::ActionNotSupported,
            "the drop-down's face has no place on screen to click",
        )
        .before_sending());
    };
    let before: HashSet<ElementIdentity> = window_options(service, state)
        .await
        .into_iter()
        .map(|c| c.identity)
        .collect();
    let came = open_popup(
        service,
        sender,
        state,
        face,
        |c| !before.contains(&c.identity),
        || window_options(service, state),
    )
    .await?;
    let at = match pick(&came, label) {
        Ok(option) => option.bounds.map(|b| b.center()),
        Err(labels) => {
            if !came.is_empty() {
                sender
                    .key(&Combo::key(Key::Named(NamedKey::Escape)))
                    .await?;
            }
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                if labels.is_empty() {
                    format!(
                        "no options showed after a click on {} {:?}",
                        element.role, element.name
                    )
                } else {
                    format!(
                        "the drop-down has no option {label:?}; its options: {}",
                        labels.join(", ")
                    )
                },
            )
            .with_suggestion(
                "Pass one of its options as the value, or observe the window with the popup open.",
            )
            .with_details(serde_json::json!({ "options": labels })));
        }
    };
    let Some(at) = at else {
        return Err(Error::new(
            ErrorCode::ActionFailed,
            "the option has no place on screen",
        ));
    };
    sender.pointer(&click(at)).await?;
    Ok(Ran::from(Via::Coordinates))
}

/// The options showing anywhere in the window, popups grafted into its walk included.
async fn window_options(service: &Service, state: &SavedState) -> Vec<Choice> {
    let Ok(snapshot) = service
        .backend
        .snapshot(&state.window, &SnapshotOptions::default())
        .await
    else {
        return Vec::new();
    };
    snapshot
        .nodes
        .iter()
        .filter(|n| (is_option(n.role) || n.role == Role::Cell) && !n.name.trim().is_empty())
        .filter(|n| !n.states.contains(State::Offscreen))
        .map(Choice::of)
        .collect()
}

/// Clicks a drop-down's `face`, then reads `options` until some that `new` takes are drawn (or
/// [`POPUP_OPENS`] passed): those.
async fn open_popup<F, R>(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    face: cu_core::model::geometry::Rect,
    new: impl Fn(&Choice) -> bool,
    options: F,
) -> Result<Vec<Choice>>
where
    F: Fn() -> R,
    R: std::future::Future<Output = Vec<Choice>>,
{
    service.check_geometry(&state.window, state).await?;
    sender.pointer(&click(face.center())).await?;
    let deadline = std::time::Instant::now() + POPUP_OPENS;
    loop {
        let shown: Vec<Choice> = options()
            .await
            .into_iter()
            .filter(|c| c.bounds.is_some() && new(c))
            .collect();
        if !shown.is_empty() || std::time::Instant::now() >= deadline {
            return Ok(shown);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// How long a drop-down's popup is given to show its options after the click that opens it.
const POPUP_OPENS: std::time::Duration = std::time::Duration::from_millis(1500);

fn click(at: cu_core::model::geometry::Point) -> InputEvent {
    InputEvent::Click {
        at,
        button: MouseButton::Left,
        count: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(labels: &[&str]) -> Vec<Choice> {
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| Choice {
                identity: ElementIdentity(format!("o{i}")),
                label: (*l).into(),
                bounds: None,
            })
            .collect()
    }

    #[test]
    fn an_option_is_picked_by_its_label_as_people_write_it() {
        let all = options(&["Excel 2007–365", "Find & Replace", "Left"]);
        assert_eq!(pick(&all, "Left").map(|c| c.label.as_str()), Ok("Left"));
        assert_eq!(pick(&all, "left").map(|c| c.label.as_str()), Ok("Left"));
        assert_eq!(
            pick(&all, "Excel 2007-365").map(|c| c.label.as_str()),
            Ok("Excel 2007–365")
        );
        assert_eq!(
            pick(&all, "find and replace").map(|c| c.label.as_str()),
            Ok("Find & Replace")
        );
        assert_eq!(
            pick(&all, "Right").map(|c| c.label.as_str()),
            Err(vec![
                "Excel 2007–365".to_owned(),
                "Find & Replace".to_owned(),
                "Left".to_owned()
            ])
        );
    }

    #[test]
    fn the_exact_label_wins_over_a_folded_one() {
        let all = options(&["left", "Left"]);
        assert_eq!(pick(&all, "Left").map(|c| &c.identity.0[..]), Ok("o1"));
    }
}
