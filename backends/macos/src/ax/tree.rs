//! Element trees through AX: batched attribute reads per element, walked within the limits;
//! finding an element again by its checked index path; semantic actions.

use std::time::{Duration, Instant};

use core_foundation::array::CFArray;
use core_foundation::base::TCFType;
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use cu_core::model::backend::SemanticAction;
use cu_core::model::element::{Node, SnapshotOptions, Truncation};
use cu_core::model::geometry::Rect;
use cu_core::model::role::Role;
use cu_core::model::walk::{walk_tree, TreeSource};
use cu_core::{Error, ErrorCode, Result};

use super::element::{frame_of, names, AxElement, AxValue};
use crate::ids::{self, ElementPath};
use crate::{points, translate};

/// Attributes read per element in one call, in this order.
const ATTRIBUTES: &[&str] = &[
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXValue",
    "AXHelp",
    "AXIdentifier",
    "AXEnabled",
    "AXFocused",
    "AXPosition",
    "AXSize",
    "AXSelected",
    "AXExpanded",
    "AXModal",
    "AXRequired",
    "AXChildren",
];

/// Longest value text kept per element, in characters.
const MAX_VALUE_CHARS: usize = 2000;

/// Reads the tree under `window` (its AX window element), `window_frame` in global points.
pub(super) fn snapshot(
    window: &AxElement,
    window_frame: Rect,
    options: &SnapshotOptions,
) -> Option<(Vec<Node>, Option<Truncation>)> {
    let deadline = Instant::now() + Duration::from_millis(options.time_budget_ms);
    let mut source = Source {
        names: names(ATTRIBUTES),
        window_frame,
        read_text: options.read_text,
        children: Vec::new(),
    };
    let root = match &options.subtree {
        Some(identity) => {
            let path = ids::parse_element_identity(identity).ok()?;
            (find(window, &path).ok()?, path.path)
        }
        None => (window.clone(), Vec::new()),
    };
    walk_tree(&mut source, root, options, deadline)
}

/// One element read like the walk reads it (no text contents), for the gate's probes; `path` is
/// its index path from the window.
pub(super) fn read_node(element: &AxElement, path: Vec<u32>, window_frame: Rect) -> Option<Node> {
    let mut source = Source {
        names: names(ATTRIBUTES),
        window_frame,
        read_text: false,
        children: Vec::new(),
    };
    source.node(&(element.clone(), path))
}

struct Source {
    names: CFArray<CFString>,
    window_frame: Rect,
    read_text: bool,
    /// The children read with the last node, handed to `children` right after.
    children: Vec<AxElement>,
}

impl TreeSource for Source {
    type Element = (AxElement, Vec<u32>);

    fn node(&mut self, (element, path): &(AxElement, Vec<u32>)) -> Option<Node> {
        let values = element.attributes(&self.names).ok()?;
        let get = |name: &str| {
            ATTRIBUTES
                .iter()
                .position(|a| *a == name)
                .and_then(|i| values.get(i).cloned().flatten())
        };
        let text = |name: &str| match get(name) {
            Some(AxValue::Text(t)) if !t.is_empty() => Some(t),
            _ => None,
        };
        let flag = |name: &str| match get(name) {
            Some(AxValue::Bool(b)) => Some(b),
            _ => None,
        };
        let ax_role = text("AXRole").unwrap_or_default();
        let role = translate::role(&ax_role, text("AXSubrole").as_deref());
        let value = get("AXValue");
        let value_settable = matches!(
            role,
            Role::TextInput
                | Role::TextArea
                | Role::PasswordInput
                | Role::Slider
                | Role::SpinButton
                | Role::ComboBox
        )
        .then(|| element.settable("AXValue"));
        let attrs = translate::Attributes {
            enabled: flag("AXEnabled"),
            focused: flag("AXFocused"),
            selected: flag("AXSelected"),
            expanded: flag("AXExpanded"),
            toggle_value: match &value {
                Some(AxValue::Number(n)) => Some(*n as i64),
                _ => None,
            },
            required: flag("AXRequired"),
            modal: flag("AXModal"),
            value_settable,
        };
        let name = text("AXTitle")
            .or_else(|| text("AXDescription"))
            .unwrap_or_default();
        let actions = if role.is_interactive() || role == Role::Unknown {
            element.actions()
        } else {
            Vec::new()
        };
        let action_refs: Vec<&str> = actions.iter().map(String::as_str).collect();
        let identity = ids::element_identity(&ElementPath {
            path: path.clone(),
            role: ax_role.clone(),
            name_hash: ids::name_hash(&name),
        });
        let mut node = Node::new(role, identity);
        node.states = translate::states(role, &attrs);
        node.actions = translate::actions(role, &action_refs, &attrs);
        node.description = text("AXHelp");
        node.toolkit_id = text("AXIdentifier");
        node.bounds = frame_of(get("AXPosition"), get("AXSize"))
            .map(|r| points::to_window(r, self.window_frame));
        if self.read_text && role != Role::PasswordInput {
            node.value = match value {
                Some(AxValue::Text(t)) if !t.is_empty() => {
                    Some(t.chars().take(MAX_VALUE_CHARS).collect())
                }
                Some(AxValue::Number(n))
                    if !matches!(
                        role,
                        Role::CheckBox | Role::RadioButton | Role::Switch | Role::ToggleButton
                    ) =>
                {
                    Some(n.to_string())
                }
                _ => None,
            };
        }
        node.name = name;
        self.children = match get("AXChildren") {
            Some(AxValue::Elements(children)) => children,
            _ => Vec::new(),
        };
        Some(node)
    }

    fn children(
        &mut self,
        (_, path): &(AxElement, Vec<u32>),
    ) -> Option<Vec<(AxElement, Vec<u32>)>> {
        Some(
            std::mem::take(&mut self.children)
                .into_iter()
                .enumerate()
                .map(|(i, child)| {
                    let mut p = path.clone();
                    p.push(i as u32);
                    (child, p)
                })
                .collect(),
        )
    }
}

/// The element at `path` under `window`, checked to be the one observed.
pub(super) fn find(window: &AxElement, path: &ElementPath) -> Result<AxElement> {
    let gone = || {
        Error::new(ErrorCode::ElementNotFound, "the element observed is gone")
            .with_suggestion("Observe again; the window changed.")
    };
    let mut current = window.clone();
    for index in &path.path {
        let Ok(AxValue::Elements(children)) = current.attribute("AXChildren") else {
            return Err(gone());
        };
        current = children.get(*index as usize).cloned().ok_or_else(gone)?;
    }
    let text = |name: &str| match current.attribute(name) {
        Ok(AxValue::Text(t)) if !t.is_empty() => Some(t),
        _ => None,
    };
    let role = text("AXRole").unwrap_or_default();
    let name = text("AXTitle")
        .or_else(|| text("AXDescription"))
        .unwrap_or_default();
    ids::check_same(path, &role, &name)?;
    Ok(current)
}

/// Performs `action` on `element`.
pub(super) fn perform(element: &AxElement, action: &SemanticAction) -> Result<()> {
    let failed = |what: &str, code: i32| {
        Error::new(
            ErrorCode::ActionFailed,
            format!("{what} failed (AXError {code})"),
        )
    };
    match action {
        SemanticAction::Invoke | SemanticAction::Toggle => {
            let offered = element.actions();
            let offers = |name: &str| offered.iter().any(|a| a == name);
            let name = if offers("AXPress") || !offers("AXConfirm") {
                "AXPress"
            } else {
                "AXConfirm"
            };
            element.perform(name).map_err(|c| failed(name, c))
        }
        SemanticAction::SetText { text } => {
            if !element.settable("AXValue") {
                return Err(Error::new(
                    ErrorCode::NotEditable,
                    "the element's AXValue cannot be set",
                ));
            }
            element
                .set("AXValue", &CFString::new(text).as_CFType())
                .map_err(|c| failed("setting AXValue", c))
        }
        SemanticAction::SetValue { value } => element
            .set("AXValue", &CFNumber::from(*value).as_CFType())
            .map_err(|c| failed("setting AXValue", c)),
        SemanticAction::Focus => element
            .set_bool("AXFocused", true)
            .map_err(|c| failed("setting AXFocused", c)),
        SemanticAction::Select => element
            .set_bool("AXSelected", true)
            .or_else(|_| element.perform("AXPick"))
            .map_err(|c| failed("selecting", c)),
        SemanticAction::Expand { expand } => element
            .set_bool("AXExpanded", *expand)
            .or_else(|c| {
                if *expand {
                    element.perform("AXShowMenu")
                } else {
                    Err(c)
                }
            })
            .map_err(|c| failed("setting AXExpanded", c)),
        SemanticAction::ScrollIntoView => element
            .perform("AXScrollToVisible")
            .map_err(|c| failed("AXScrollToVisible", c)),
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            "this action is not supported on macOS",
        )),
    }
}
