//! Semantic actions over AT-SPI: Action by name, EditableText, Value, Component focus and
//! scrolling, Selection. Each says honestly when the element offers none of them.

use cu_core::model::backend::SemanticAction;
use cu_core::{Error, ErrorCode, Result};

use super::{Atspi, ObjRef, ACCESSIBLE, ACTION, COMPONENT, EDITABLE_TEXT, SELECTION, TEXT, VALUE};
use crate::translate::{self, atspi_role, atspi_state};

/// How long an action's call is waited for before it counts as taken and still running.
const ACTION_ANSWERS: std::time::Duration = std::time::Duration::from_millis(1000);

/// AT-SPI scroll type "anywhere".
const SCROLL_ANYWHERE: u32 = 6;

pub(crate) async fn perform(atspi: &Atspi, obj: &ObjRef, action: &SemanticAction) -> Result<()> {
    match action {
        SemanticAction::Invoke => {
            do_named_action(
                atspi,
                obj,
                translate::invoke_rank,
                "press or activate",
                Selecting::Wont,
            )
            .await
        }
        SemanticAction::Toggle => {
            do_named_action(
                atspi,
                obj,
                |n| match n.to_ascii_lowercase().as_str() {
                    "toggle" | "check" | "uncheck" => Some(0),
                    "click" | "press" => Some(1),
                    _ => None,
                },
                "toggle",
                Selecting::Will,
            )
            .await
        }
        SemanticAction::Expand { .. } => {
            do_named_action(
                atspi,
                obj,
                |n| match n.to_ascii_lowercase().as_str() {
                    "expand or contract" | "expand" | "collapse" | "showmenu" | "popup" => Some(0),
                    "click" | "press" | "activate" => Some(1),
                    _ => None,
                },
                "expand or collapse",
                Selecting::Will,
            )
            .await
        }
        SemanticAction::SetText { text } => set_text(atspi, obj, text).await,
        SemanticAction::SetValue { value } => atspi
            .set_property(
                obj,
                VALUE,
                "CurrentValue",
                zbus::zvariant::Value::F64(*value),
            )
            .await
            .map_err(|e| not_supported_if_missing(e, "set a value (no Value interface)")),
        SemanticAction::Focus => {
            let ok: bool = atspi
                .call(obj, COMPONENT, "GrabFocus", &())
                .await
                .map_err(|e| not_supported_if_missing(e, "take focus"))?;
            ok.then_some(()).ok_or_else(|| {
                Error::new(
                    ErrorCode::ActionFailed,
                    "the element refused focus (GrabFocus returned false)",
                )
                .with_suggestion("Click the element instead.")
                .before_sending()
            })
        }
        SemanticAction::ScrollIntoView => {
            let _: bool = atspi
                .call(obj, COMPONENT, "ScrollTo", &(SCROLL_ANYWHERE,))
                .await
                .map_err(|e| not_supported_if_missing(e, "scroll into view"))?;
            Ok(())
        }
        SemanticAction::Select => select(atspi, obj).await,
        // GTK 3 sets its combo box from the item's own "click", the menu left closed.
        SemanticAction::Choose => {
            match do_named_action(
                atspi,
                obj,
                translate::invoke_rank,
                "choose",
                Selecting::Wont,
            )
            .await
            {
                Err(e) if e.code == ErrorCode::ActionNotSupported => select(atspi, obj).await,
                done => done,
            }
        }
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!("{action:?} is not supported on Linux yet"),
        )),
    }
}

/// Whether `obj`, offering only `actions`, is a list item whose one action is Qt's `Toggle`:
/// it selects the item in its view and nothing more (in a combo box's open list the choice
/// stays as it was), where a click chooses it. The role is asked only for such an offer.
async fn only_selects(atspi: &Atspi, obj: &ObjRef, actions: &[String]) -> bool {
    let toggle_only = matches!(actions, [one] if one.eq_ignore_ascii_case("toggle"));
    toggle_only
        && atspi
            .role(obj)
            .await
            .is_ok_and(|r| r == atspi_role::LIST_ITEM)
}

/// Whether an action that only selects (Qt's `Toggle` on a list item) may stand for this one:
/// not for a press or a choice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Selecting {
    Will,
    Wont,
}

async fn do_named_action(
    atspi: &Atspi,
    obj: &ObjRef,
    rank: impl Fn(&str) -> Option<u8>,
    what: &str,
    selecting: Selecting,
) -> Result<()> {
    let actions = atspi
        .action_names(obj)
        .await
        .map_err(|e| not_supported_if_missing(e, what))?;
    let best = actions
        .iter()
        .enumerate()
        .filter_map(|(i, name)| rank(name).map(|r| (r, i)))
        .min();
    let best = match best {
        // Pressing (or choosing) by Qt's Toggle only selects: a click does it instead.
        Some(_) if selecting == Selecting::Wont && only_selects(atspi, obj, &actions).await => {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                "the item's one action only selects it in its list (Qt's Toggle); a click chooses it",
            )
            .before_sending());
        }
        best => best,
    };
    let Some((_, index)) = best else {
        let names: Vec<&str> = actions.iter().map(String::as_str).collect();
        return Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!(
                "the element offers no action to {what} (it offers: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ),
        )
        .with_suggestion("Use a coordinate click at the element's centre, or another element."));
    };
    let asked = (index as i32,);
    let call = atspi.call::<_, bool>(obj, ACTION, "DoAction", &asked);
    let ok = match tokio::time::timeout(ACTION_ANSWERS, call).await {
        Ok(answer) => answer?,
        // Qt runs a dialog the action opens in a loop of its own inside the handler, and
        // answers only once the dialog closes: the action was taken, and what it did is for
        // the effect to see (a timeout here answered "try again", which opened it twice).
        Err(_) => {
            tracing::debug!(action = %actions[index], "the action is still running in the app");
            return Ok(());
        }
    };
    ok.then_some(()).ok_or_else(|| {
        Error::new(
            ErrorCode::ActionFailed,
            format!("the application refused the action {:?}", actions[index]),
        )
    })
}

async fn set_text(atspi: &Atspi, obj: &ObjRef, text: &str) -> Result<()> {
    let ok: bool = atspi
        .call(obj, EDITABLE_TEXT, "SetTextContents", &(text,))
        .await
        .map_err(|e| {
            if e.code == ErrorCode::ActionNotSupported {
                Error::new(
                    ErrorCode::NotEditable,
                    "the element has no EditableText interface (Chromium fields have none)",
                )
                .with_suggestion("Focus the field and type the text (gui_action focus, then type).")
            } else {
                e
            }
        })?;
    if !ok {
        return Err(Error::new(
            ErrorCode::NotEditable,
            "the application refused to set the text",
        )
        .with_suggestion("Focus the field and type the text instead."));
    }
    // Some toolkits answer true and change nothing (Firefox): read it back.
    let count = atspi
        .property(obj, TEXT, "CharacterCount")
        .await
        .ok()
        .and_then(|v| i32::try_from(v).ok());
    if let Some(count) = count {
        let now: String = atspi
            .call(obj, TEXT, "GetText", &(0i32, count))
            .await
            .unwrap_or_default();
        if now != text {
            return Err(Error::new(
                ErrorCode::ActionNotSupported,
                "the application accepted the new text but did not apply it",
            )
            .with_suggestion("Focus the field and type the text instead."));
        }
    }
    Ok(())
}

/// How far up [`showing_in`] looks for the window's frame.
const MAX_ANCESTORS: usize = 64;

/// The drop-down `option` belongs to: its nearest combo box ancestor (a few levels up: the
/// combo's menu or list between). `None` when it sits in none.
pub(crate) async fn drop_down_of(atspi: &Atspi, option: &ObjRef) -> Option<ObjRef> {
    let mut current = option.clone();
    for _ in 0..4 {
        current = atspi.parent(&current).await?;
        let role = atspi.role(&current).await.ok()?;
        if role == atspi_role::COMBO_BOX {
            return Some(current);
        }
    }
    None
}

/// Whether `obj` reports `SHOWING`, read now, and so does every ancestor up to its top-level
/// (`frame`, or a popup menu's own window beside it) that would hide it
/// ([`translate::hides_descendants`]). Firefox keeps a background tab's elements `SHOWING` for a
/// moment after the switch while their document no longer is, and a press that reaches such a
/// page made it abort.
pub(crate) async fn showing_in(atspi: &Atspi, obj: &ObjRef, frame: &ObjRef) -> Result<bool> {
    let mut current = obj.clone();
    for _ in 0..MAX_ANCESTORS {
        if !atspi.states(&current).await?.has(atspi_state::SHOWING)
            && (&current == obj || translate::hides_descendants(atspi.role(&current).await?))
        {
            return Ok(false);
        }
        if &current == frame {
            return Ok(true);
        }
        match atspi.parent(&current).await {
            // The application itself is never SHOWING: its child is a top-level.
            Some(parent) if parent != Atspi::app_root(&parent.bus) => current = parent,
            _ => return Ok(true),
        }
    }
    Ok(true)
}

async fn select(atspi: &Atspi, obj: &ObjRef) -> Result<()> {
    let (parent, index) = tokio::join!(
        atspi.parent(obj),
        atspi.call::<_, i32>(obj, ACCESSIBLE, "GetIndexInParent", &()),
    );
    if let (Some(parent), Ok(index)) = (parent, index) {
        if let Ok(true) = atspi
            .call::<_, bool>(&parent, SELECTION, "SelectChild", &(index,))
            .await
        {
            return Ok(());
        }
    }
    do_named_action(
        atspi,
        obj,
        |n| (n.eq_ignore_ascii_case("select")).then_some(0),
        "select",
        Selecting::Will,
    )
    .await
}

fn not_supported_if_missing(e: Error, what: &str) -> Error {
    if e.code == ErrorCode::ActionNotSupported {
        // The interface or method is missing: nothing was done.
        Error::new(
            ErrorCode::ActionNotSupported,
            format!("the element cannot {what}: {}", e.message),
        )
        .before_sending()
    } else {
        e
    }
}
