//! How a step was carried out ([`Via`]) and what it was checked to have done ([`Ran`]), and
//! where an element is pressed when it offers no action of its own ([`center`]): what the step
//! runner (`steps.rs`) and the checks of what took (`taken.rs`) both answer with.

use cu_core::model::geometry::Point;
use cu_core::store::state_registry::SavedElement;
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;

/// How a step was carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The element's own accessibility action (press, set text, focus).
    Semantic,
    /// Pointer input at window-relative coordinates.
    Coordinates,
    /// Keyboard input.
    Keyboard,
    /// A pause.
    Wait,
}

impl Via {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Semantic => "semantic",
            Via::Coordinates => "coordinates",
            Via::Keyboard => "keyboard",
            Via::Wait => "wait",
        }
    }
}

/// What running a step did: how, and what it checked took (a focus step's focus, a set
/// value as it reads back).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ran {
    pub(crate) via: Via,
    /// The value the element reads after `set_value`.
    pub(crate) value: Option<String>,
    /// Keyboard focus was checked to have moved into the element (`focus`, `type` into an
    /// element, a click on a field).
    pub(crate) focus_moved: Option<bool>,
}

impl From<Via> for Ran {
    fn from(via: Via) -> Ran {
        Ran {
            via,
            value: None,
            focus_moved: None,
        }
    }
}

/// The centre of `element`, where a coordinate step presses it.
pub(crate) fn center(element: &SavedElement) -> Result<Point> {
    element
        .bounds
        .filter(|b| !b.is_empty())
        .map(|b| b.center())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::ActionNotSupported,
                format!(
                    "{} offers no semantic action and has no bounds to click",
                    element.id
                ),
            )
        })
}
