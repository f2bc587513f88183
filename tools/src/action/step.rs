//! A `gui_action` step as the wire writes it: a tagged [`Step`] (`{"type": "click", …}`), each
//! type with its own fields, unknown fields refused; decoded one by one so an error names its
//! step. What a step may name is checked against the observation in `plan.rs`.

use cu_core::model::backend::MouseButton;
use cu_core::model::geometry::Point;
use cu_core::model::keys::Combo;
use serde::{Deserialize, Serialize};

/// One step of `gui_action`, chosen by its `type`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Click an element, or a point when no element fits.
    Click(Press),
    /// Double-click an element or a point.
    DoubleClick(Pointer),
    /// Right-click an element or a point (a context menu).
    RightClick(Pointer),
    /// Move the pointer over an element or a point.
    Move(Pointer),
    /// Press a button and keep it down (release it with mouse_up).
    MouseDown(Press),
    /// Release a button pressed with mouse_down.
    MouseUp(Press),
    /// Scroll the wheel over an element or a point.
    Scroll(Scroll),
    /// Press at an element or point, move to another, release.
    Drag(Drag),
    /// Type text: into element_id (focused first), else where the focus is.
    Type {
        /// The text.
        text: String,
        /// The field to type into.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element_id: Option<String>,
    },
    /// Press a key combination.
    Key {
        /// e.g. ctrl+s, Return, alt+F4.
        keys: Combo,
    },
    /// Set an element's value (text, number, slider) and read it back.
    SetValue {
        /// The element.
        element_id: String,
        /// The new value.
        text: String,
    },
    /// Give an element keyboard focus.
    Focus {
        /// The element.
        element_id: String,
    },
    /// Pause.
    Wait {
        /// Milliseconds (default 500).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(max = 10000))]
        ms: Option<u64>,
    },
}

/// Where a pointer step acts: an element (preferred) or a window-relative point.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pointer {
    /// Target element (preferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Window-relative x, when no element fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Window-relative y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Modifiers held meanwhile, e.g. ctrl or ctrl+shift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Combo>,
}

/// A click, or a button pressed or released alone, at an element or a point.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Press {
    /// Target element (preferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Window-relative x, when no element fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Window-relative y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// left (default), middle, right, back, forward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "button_schema")]
    pub button: Option<MouseButton>,
    /// click: 1–3 presses (3 = triple click).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 3))]
    pub count: Option<u8>,
    /// Modifiers held meanwhile, e.g. ctrl or ctrl+shift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Combo>,
}

/// A button's name on the wire, as a plain string enum.
fn button_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["left", "middle", "right", "back", "forward"]
    })
}

/// A scroll over an element or a point.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scroll {
    /// Element to scroll over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Window-relative x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Window-relative y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Notches, positive right (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<i32>,
    /// Notches, positive down (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<i32>,
    /// Modifiers held meanwhile (ctrl: zoom).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Combo>,
}

/// A drag from an element or point to another.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Drag {
    /// Start: element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Start: window-relative x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Start: window-relative y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// End: element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_element_id: Option<String>,
    /// End: x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_x: Option<i32>,
    /// End: y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_y: Option<i32>,
    /// left (default), middle, right, back, forward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "button_schema")]
    pub button: Option<MouseButton>,
    /// Modifiers held meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Combo>,
}

impl Step {
    /// The wire name of its type.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Click(_) => "click",
            Step::DoubleClick(_) => "double_click",
            Step::RightClick(_) => "right_click",
            Step::Move(_) => "move",
            Step::MouseDown(_) => "mouse_down",
            Step::MouseUp(_) => "mouse_up",
            Step::Scroll(_) => "scroll",
            Step::Drag(_) => "drag",
            Step::Type { .. } => "type",
            Step::Key { .. } => "key",
            Step::SetValue { .. } => "set_value",
            Step::Focus { .. } => "focus",
            Step::Wait { .. } => "wait",
        }
    }

    /// The element it names (a drag's start).
    pub fn element_id(&self) -> Option<&str> {
        match self {
            Step::DoubleClick(p) | Step::RightClick(p) | Step::Move(p) => p.element_id.as_deref(),
            Step::Click(p) | Step::MouseDown(p) | Step::MouseUp(p) => p.element_id.as_deref(),
            Step::Scroll(s) => s.element_id.as_deref(),
            Step::Drag(d) => d.element_id.as_deref(),
            Step::Type { element_id, .. } => element_id.as_deref(),
            Step::SetValue { element_id, .. } | Step::Focus { element_id } => Some(element_id),
            Step::Key { .. } | Step::Wait { .. } => None,
        }
    }

    /// The point it names (a drag's start), when both coordinates are given.
    pub fn point(&self) -> Option<Point> {
        let (x, y) = match self {
            Step::DoubleClick(p) | Step::RightClick(p) | Step::Move(p) => (p.x, p.y),
            Step::Click(p) | Step::MouseDown(p) | Step::MouseUp(p) => (p.x, p.y),
            Step::Scroll(s) => (s.x, s.y),
            Step::Drag(d) => (d.x, d.y),
            _ => return None,
        };
        x.zip(y).map(|(x, y)| Point::new(x, y))
    }

    /// The text it types or sets.
    pub fn text(&self) -> Option<&str> {
        match self {
            Step::Type { text, .. } | Step::SetValue { text, .. } => Some(text),
            _ => None,
        }
    }
}

/// The steps of a request, each decoded on its own so an error names its step.
pub(super) fn steps<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<Step>, D::Error> {
    let raw = Vec::<serde_json::Value>::deserialize(deserializer)?;
    raw.into_iter()
        .enumerate()
        .map(|(i, value)| {
            serde_json::from_value(value)
                .map_err(|e| serde::de::Error::custom(format!("step {i}: {e}")))
        })
        .collect()
}
