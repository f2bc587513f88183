//! Whether a step took: keyboard focus that really moved into the element a step focuses, and a
//! value that really reads back after `set_value`. A step whose focus went elsewhere fails before
//! anything is typed (typing into a sheet's cell instead of its Name Box damaged the sheet), and
//! a value the app ignored is entered the way a person would, then checked again, never
//! reported `changed` while it is not there (Chromium's date segments took `set_value` silently).

use cu_core::model::backend::{InputEvent, MouseButton, SemanticAction};
use cu_core::model::keys::{Combo, Key, NamedKey};
use cu_core::model::role::Role;
use cu_core::store::state_registry::{SavedElement, SavedState};
use cu_core::{Error, ErrorCode, Result};

use crate::guard::Sender;
use crate::how::{center, Ran, Via};
use crate::readback::reads_back;
use crate::service::Service;

/// Gives `element` keyboard focus and checks that it moved there (or inside it): its focus
/// action first, then a click at its centre, as a person would (judged like any click). An
/// error when focus lands elsewhere either way: nothing typed after it may go astray.
pub(crate) async fn focus(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
) -> Result<Via> {
    // Keyboard focus lives in the active window: an app whose window is behind another moves
    // its focus without showing it (Firefox), and the keys that follow go to the front one.
    crate::effect::activate_and_settle(service, &state.window).await;
    let semantic = sender
        .perform(&element.identity, &SemanticAction::Focus)
        .await;
    if semantic.is_ok() && sender.focus_lands_in(&element.identity).await {
        return Ok(Via::Semantic);
    }
    if let Err(e) = &semantic {
        // Refused or missing: the click below is the way left; anything else stops here.
        if !matches!(
            e.code,
            ErrorCode::ActionFailed | ErrorCode::ActionNotSupported
        ) {
            return Err(e.clone());
        }
    }
    if let Ok(at) = center(element) {
        service.check_geometry(&state.window, state).await?;
        let click = InputEvent::Click {
            at,
            button: MouseButton::Left,
            count: 1,
        };
        sender.pointer(&click).await?;
        if sender.focus_lands_in(&element.identity).await {
            return Ok(Via::Coordinates);
        }
    }
    Err(Error::new(
        ErrorCode::ActionFailed,
        format!(
            "keyboard focus did not move to {} {:?} (its focus action{} were tried)",
            element.role,
            element.name,
            if element.bounds.is_some() {
                " and a click at its centre"
            } else {
                ""
            }
        ),
    )
    .with_suggestion(
        "Observe again: focus is elsewhere, so nothing was typed. Click the field by its label, or use the keyboard shortcut that focuses it.",
    )
    .with_details(serde_json::json!({ "focus_moved": false })))
}

/// `set_value`: the element's value interface (text or number) first, read back; when the
/// app has none, or ignored it, the value is entered as a person would (focus, checked; select
/// what is there; type), and read back again. An error when it still does not read back.
pub(crate) async fn set_value(
    service: &Service,
    sender: &mut Sender<'_>,
    state: &SavedState,
    element: &SavedElement,
    value: &str,
) -> Result<Ran> {
    let semantic = match (element.role, value.parse::<f64>()) {
        (Role::Slider | Role::SpinButton | Role::ScrollBar, Ok(v)) => {
            SemanticAction::SetValue { value: v }
        }
        _ => SemanticAction::SetText {
            text: value.to_owned(),
        },
    };
    // The value may end up typed (below): judged before anything is attempted, so a refusal
    // leaves the call's state usable. A slider's number types nothing that activates.
    sender.prejudge_text(&element.identity, value).await?;
    // A drop-down's option is pressed by its label, the popup left closed.
    // A drop-down's face whose popup is a window of its own (LibreOffice's list boxes).
    if element.role == Role::ToggleButton {
        return crate::choose::from_face(service, sender, state, element, value).await;
    }
    if element.role == Role::ComboBox {
        if let Some(ran) = crate::choose::choose(service, sender, state, element, value).await? {
            return Ok(ran);
        }
    }
    // A document holds its text in paragraphs, with what was there before (Writer): its
    // callers read it back their way (`type_text`), as they do a sheet's computed cells.
    let unread = matches!(element.role, Role::Document | Role::Cell);
    match sender.perform(&element.identity, &semantic).await {
        Ok(()) if unread => return Ok(Ran::from(Via::Semantic)),
        Ok(()) => {
            if let Ok(read) = reads_back(service, state, element, value).await {
                return Ok(Ran {
                    value: read,
                    ..Ran::from(Via::Semantic)
                });
            }
            // Ignored or reformatted: entered by hand below, and said so (`via: keyboard`).
        }
        // No EditableText (Chromium) or it does nothing (Firefox).
        Err(e)
            if matches!(
                e.code,
                ErrorCode::NotEditable | ErrorCode::ActionNotSupported
            ) => {}
        Err(e) => return Err(e),
    }
    focus(service, sender, state, element).await?;
    if element.role == Role::Cell {
        // Typing into a spreadsheet's active cell replaces what it holds; ctrl+a would select
        // the whole sheet.
        if value.is_empty() {
            sender
                .key(&Combo::key(Key::Named(NamedKey::Delete)))
                .await?;
        } else {
            sender.text(value).await?;
        }
        return Ok(Ran {
            focus_moved: Some(true),
            ..Ran::from(Via::Keyboard)
        });
    }
    if element.role != Role::SpinButton {
        // A spin button's segment (a web date field's month) is replaced by typing into it;
        // ctrl+a there can select the whole page.
        sender
            .key(&Combo::with(NamedKey::Ctrl, Key::Char('a')))
            .await?;
    }
    if value.is_empty() {
        sender
            .key(&Combo::key(Key::Named(NamedKey::Backspace)))
            .await?;
    } else {
        sender.text(value).await?;
    }
    if unread {
        return Ok(Ran {
            focus_moved: Some(true),
            ..Ran::from(Via::Keyboard)
        });
    }
    match reads_back(service, state, element, value).await {
        Ok(read) => Ok(Ran {
            value: read,
            focus_moved: Some(true),
            via: Via::Keyboard,
        }),
        Err(read) => Err(not_taken(element, read.as_deref(), Via::Keyboard)),
    }
}

/// The error of a value that did not take, whichever way it was entered.
pub(crate) fn not_taken(element: &SavedElement, read: Option<&str>, via: Via) -> Error {
    Error::new(
        ErrorCode::ActionFailed,
        format!(
            "the value of {} {:?} did not take ({}): details.value is what it reads",
            element.role,
            element.name,
            match via {
                Via::Keyboard => "set, then typed",
                _ => "set",
            },
        ),
    )
    .with_suggestion("Observe the element: the app ignored or reformatted the value. Click it and type the value, or use its own controls (arrows, a picker).")
    .with_details(serde_json::json!({ "value": read, "via": via }))
}
