//! Element trees through UI Automation: the cached snapshot, the plain-walk fallback, finding an
//! element again by runtime id, and the semantic actions through control patterns.

use std::time::{Duration, Instant};

use cu_core::model::backend::SemanticAction;
use cu_core::model::element::{ElementIdentity, Node, SnapshotOptions, Truncation};
use cu_core::model::geometry::Rect;
use cu_core::model::walk::{walk_tree, TreeSource};
use cu_core::{Error, ErrorCode, Result};
use uiautomation::patterns::{
    UIExpandCollapsePattern, UIInvokePattern, UILegacyIAccessiblePattern, UIRangeValuePattern,
    UIScrollItemPattern, UISelectionItemPattern, UITogglePattern, UIValuePattern,
};
use uiautomation::types::{TreeScope, UIProperty};
use uiautomation::variants::{Value, Variant};
use uiautomation::{UIAutomation, UIElement, UITreeWalker};

use super::win32::hwnd;
use crate::translate::{self, pattern};
use crate::{dpi, ids};

/// Longest value text kept per element, in characters.
const MAX_VALUE_CHARS: usize = 2000;

/// Properties a snapshot reads, all fetched in the one cache request.
const PROPERTIES: &[UIProperty] = &[
    UIProperty::RuntimeId,
    UIProperty::ControlType,
    UIProperty::Name,
    UIProperty::AutomationId,
    UIProperty::HelpText,
    UIProperty::BoundingRectangle,
    UIProperty::IsEnabled,
    UIProperty::HasKeyboardFocus,
    UIProperty::IsKeyboardFocusable,
    UIProperty::IsOffscreen,
    UIProperty::IsPassword,
    UIProperty::HeadingLevel,
    UIProperty::IsRequiredForForm,
    UIProperty::ToggleToggleState,
    UIProperty::ExpandCollapseExpandCollapseState,
    UIProperty::SelectionItemIsSelected,
    UIProperty::ValueIsReadOnly,
    UIProperty::ValueValue,
    UIProperty::RangeValueValue,
    UIProperty::WindowIsModal,
    UIProperty::IsInvokePatternAvailable,
    UIProperty::IsTogglePatternAvailable,
    UIProperty::IsValuePatternAvailable,
    UIProperty::IsRangeValuePatternAvailable,
    UIProperty::IsExpandCollapsePatternAvailable,
    UIProperty::IsSelectionItemPatternAvailable,
    UIProperty::IsScrollItemPatternAvailable,
    UIProperty::IsLegacyIAccessiblePatternAvailable,
];

/// Pattern availability properties and the pattern each stands for.
const PATTERN_FLAGS: &[(UIProperty, i32)] = &[
    (UIProperty::IsInvokePatternAvailable, pattern::INVOKE),
    (UIProperty::IsTogglePatternAvailable, pattern::TOGGLE),
    (UIProperty::IsValuePatternAvailable, pattern::VALUE),
    (
        UIProperty::IsRangeValuePatternAvailable,
        pattern::RANGE_VALUE,
    ),
    (
        UIProperty::IsExpandCollapsePatternAvailable,
        pattern::EXPAND_COLLAPSE,
    ),
    (
        UIProperty::IsSelectionItemPatternAvailable,
        pattern::SELECTION_ITEM,
    ),
    (
        UIProperty::IsScrollItemPatternAvailable,
        pattern::SCROLL_ITEM,
    ),
    (
        UIProperty::IsLegacyIAccessiblePatternAvailable,
        pattern::LEGACY_IACCESSIBLE,
    ),
];

/// Where the window is, to make element bounds window-relative.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub physical: Rect,
    pub dpi: u32,
}

pub(super) fn uia_error(code: ErrorCode, what: &str, e: &uiautomation::Error) -> Error {
    // UIA_E_ELEMENTNOTAVAILABLE: the element is gone.
    if e.result().is_some_and(|hr| hr.0 as u32 == 0x8004_0201) {
        return Error::new(
            ErrorCode::ElementNotFound,
            format!("{what}: the element is gone"),
        )
        .with_suggestion("Observe again; the window changed.");
    }
    Error::new(code, format!("{what}: {e}"))
}

/// The window's own UI Automation element.
pub(super) fn window_element(automation: &UIAutomation, window: isize) -> Result<UIElement> {
    automation
        .element_from_handle(hwnd(window).into())
        .map_err(|e| {
            uia_error(
                ErrorCode::WindowNotFound,
                "the window has no UI Automation element",
                &e,
            )
        })
}

/// Reads the window's tree: one cached round trip for the whole subtree, then a bounded walk
/// over the cache; a plain walk instead where the cache comes back thin (Chromium, Electron).
pub(super) fn snapshot(
    automation: &UIAutomation,
    window: isize,
    class: &str,
    frame: Frame,
    options: &SnapshotOptions,
) -> Result<(Vec<Node>, Option<Truncation>)> {
    let deadline = Instant::now() + Duration::from_millis(options.time_budget_ms);
    let root = match &options.subtree {
        Some(identity) => find(automation, window, identity)?,
        None => window_element(automation, window)?,
    };
    let request = automation
        .create_cache_request()
        .map_err(|e| uia_error(ErrorCode::Internal, "CreateCacheRequest", &e))?;
    for p in PROPERTIES {
        request
            .add_property(*p)
            .map_err(|e| uia_error(ErrorCode::Internal, "AddProperty", &e))?;
    }
    let control_view = automation
        .get_control_view_condition()
        .map_err(|e| uia_error(ErrorCode::Internal, "ControlViewCondition", &e))?;
    let configured = request
        .set_tree_scope(TreeScope::Subtree)
        .and_then(|()| request.set_tree_filter(control_view));
    configured.map_err(|e| uia_error(ErrorCode::Internal, "cache request", &e))?;
    let cached = root.build_updated_cache(&request);
    let reader = Reader {
        frame,
        read_text: options.read_text,
    };
    if let Err(e) = &cached {
        tracing::debug!(error = %e, "BuildUpdatedCache failed: walking instead");
    }
    if let Ok(cached) = cached {
        let mut source = Cached { reader };
        let walked = walk_tree(&mut source, cached, options, deadline);
        if let Some((nodes, truncation)) = walked {
            if !translate::cache_too_thin(nodes.len(), class) {
                return Ok((nodes, truncation));
            }
            tracing::debug!(
                nodes = nodes.len(),
                class,
                "thin UIA cache: walking instead"
            );
        }
    }
    let walker = automation
        .get_control_view_walker()
        .map_err(|e| uia_error(ErrorCode::Internal, "ControlViewWalker", &e))?;
    let mut source = Live { reader, walker };
    walk_tree(&mut source, root, options, deadline).ok_or_else(|| {
        Error::new(
            ErrorCode::Timeout,
            "the window's UI Automation element does not answer",
        )
        .with_suggestion("The application may be busy; try again.")
    })
}

/// Reads one live element into a node (no text contents), for the gate's probes.
pub(super) fn live_reader(frame: Frame) -> impl Fn(&UIElement) -> Option<Node> {
    let reader = Reader {
        frame,
        read_text: false,
    };
    move |element| reader.node(&|p| element.get_property_value(p).ok())
}

/// Reads a node from property values, cached or live.
#[derive(Clone, Copy)]
struct Reader {
    frame: Frame,
    read_text: bool,
}

impl Reader {
    fn node(&self, prop: &dyn Fn(UIProperty) -> Option<Variant>) -> Option<Node> {
        let runtime_id = match prop(UIProperty::RuntimeId)?.get_value().ok()? {
            Value::ArrayI4(ids) => ids,
            _ => return None,
        };
        let int = |p| prop(p).and_then(|v| TryInto::<i32>::try_into(v).ok());
        let flag = |p| prop(p).and_then(|v| TryInto::<bool>::try_into(v).ok());
        let text = |p| {
            prop(p)
                .and_then(|v| TryInto::<String>::try_into(v).ok())
                .filter(|s| !s.is_empty())
        };
        let patterns: Vec<i32> = PATTERN_FLAGS
            .iter()
            .filter(|(p, _)| flag(*p) == Some(true))
            .map(|(_, id)| *id)
            .collect();
        let has = |id| patterns.contains(&id);
        let element = translate::Element {
            control_type: int(UIProperty::ControlType).unwrap_or(0),
            is_password: flag(UIProperty::IsPassword).unwrap_or(false),
            heading_level: int(UIProperty::HeadingLevel).unwrap_or(80050),
            is_enabled: flag(UIProperty::IsEnabled).unwrap_or(true),
            has_keyboard_focus: flag(UIProperty::HasKeyboardFocus).unwrap_or(false),
            is_keyboard_focusable: flag(UIProperty::IsKeyboardFocusable).unwrap_or(false),
            is_offscreen: flag(UIProperty::IsOffscreen).unwrap_or(false),
            toggle_state: has(pattern::TOGGLE)
                .then(|| int(UIProperty::ToggleToggleState))
                .flatten(),
            expand_state: has(pattern::EXPAND_COLLAPSE)
                .then(|| int(UIProperty::ExpandCollapseExpandCollapseState))
                .flatten(),
            is_selected: has(pattern::SELECTION_ITEM)
                .then(|| flag(UIProperty::SelectionItemIsSelected))
                .flatten(),
            value_read_only: has(pattern::VALUE)
                .then(|| flag(UIProperty::ValueIsReadOnly))
                .flatten(),
            is_required: flag(UIProperty::IsRequiredForForm).unwrap_or(false),
            is_modal: flag(UIProperty::WindowIsModal).unwrap_or(false),
        };
        let mut node = Node::new(
            translate::role(&element),
            ids::element_identity(&runtime_id),
        );
        node.name = text(UIProperty::Name).unwrap_or_default();
        node.description = text(UIProperty::HelpText);
        node.toolkit_id = text(UIProperty::AutomationId);
        node.states = translate::states(&element);
        node.actions = translate::actions(&patterns, &element);
        node.bounds = match prop(UIProperty::BoundingRectangle).and_then(|v| v.get_value().ok()) {
            Some(Value::ArrayR8(r)) if r.len() == 4 && r[2] > 0.0 && r[3] > 0.0 => {
                let physical = Rect::new(r[0] as i32, r[1] as i32, r[2] as i32, r[3] as i32);
                Some(dpi::to_window_logical(
                    physical,
                    self.frame.physical,
                    self.frame.dpi,
                ))
            }
            _ => None,
        };
        if self.read_text && !element.is_password {
            node.value = if has(pattern::VALUE) {
                text(UIProperty::ValueValue)
            } else if has(pattern::RANGE_VALUE) {
                prop(UIProperty::RangeValueValue)
                    .and_then(|v| TryInto::<f64>::try_into(v).ok())
                    .map(|v| v.to_string())
            } else {
                None
            }
            .map(|v| v.chars().take(MAX_VALUE_CHARS).collect());
        }
        Some(node)
    }
}

/// The walk over a built cache: no cross-process calls.
struct Cached {
    reader: Reader,
}

impl TreeSource for Cached {
    type Element = UIElement;

    fn node(&mut self, element: &UIElement) -> Option<Node> {
        self.reader
            .node(&|p| element.get_cached_property_value(p).ok())
    }

    fn children(&mut self, element: &UIElement) -> Option<Vec<UIElement>> {
        // A leaf has no cached children array: an error that means "none".
        Some(element.get_cached_children().unwrap_or_default())
    }
}

/// The walk element by element (one call per property): slower, but it reaches Chromium
/// content that the cache request does not.
struct Live {
    reader: Reader,
    walker: UITreeWalker,
}

impl TreeSource for Live {
    type Element = UIElement;

    fn node(&mut self, element: &UIElement) -> Option<Node> {
        self.reader.node(&|p| element.get_property_value(p).ok())
    }

    fn children(&mut self, element: &UIElement) -> Option<Vec<UIElement>> {
        let mut out = Vec::new();
        let Ok(mut child) = self.walker.get_first_child(element) else {
            return Some(out);
        };
        loop {
            let next = self.walker.get_next_sibling(&child);
            out.push(child);
            match next {
                Ok(n) => child = n,
                Err(_) => return Some(out),
            }
        }
    }
}

/// The element of `window` with this identity (its runtime id).
pub(super) fn find(
    automation: &UIAutomation,
    window: isize,
    identity: &ElementIdentity,
) -> Result<UIElement> {
    let runtime_id = ids::parse_element_identity(identity)?;
    let root = window_element(automation, window)?;
    let condition = automation
        .create_property_condition(
            UIProperty::RuntimeId,
            Variant::from(Value::ArrayI4(runtime_id)),
            None,
        )
        .map_err(|e| uia_error(ErrorCode::Internal, "CreatePropertyCondition", &e))?;
    root.find_first(TreeScope::Subtree, &condition)
        .map_err(|_| {
            Error::new(
                ErrorCode::ElementNotFound,
                format!("no element {} in the window any more", identity.0),
            )
            .with_suggestion("Observe again and use an element id from the new outline.")
        })
}

/// Performs `action` on `element` through its control patterns.
pub(super) fn perform(element: &UIElement, action: &SemanticAction) -> Result<()> {
    let failed = |what: &str, e: &uiautomation::Error| uia_error(ErrorCode::ActionFailed, what, e);
    let unsupported = |what: &str| {
        Error::new(
            ErrorCode::ActionNotSupported,
            format!("the element has no {what} pattern"),
        )
    };
    match action {
        SemanticAction::Invoke => {
            if let Ok(p) = element.get_pattern::<UIInvokePattern>() {
                return p.invoke().map_err(|e| failed("Invoke", &e));
            }
            if let Ok(p) = element.get_pattern::<UITogglePattern>() {
                return p.toggle().map_err(|e| failed("Toggle", &e));
            }
            if let Ok(p) = element.get_pattern::<UISelectionItemPattern>() {
                return p.select().map_err(|e| failed("SelectionItem.Select", &e));
            }
            let p = element
                .get_pattern::<UILegacyIAccessiblePattern>()
                .map_err(|_| unsupported("Invoke, Toggle, SelectionItem or LegacyIAccessible"))?;
            p.do_default_action()
                .map_err(|e| failed("LegacyIAccessible.DoDefaultAction", &e))
        }
        SemanticAction::Toggle => element
            .get_pattern::<UITogglePattern>()
            .map_err(|_| unsupported("Toggle"))?
            .toggle()
            .map_err(|e| failed("Toggle", &e)),
        SemanticAction::SetText { text } => {
            let p = element.get_pattern::<UIValuePattern>().map_err(|_| {
                Error::new(ErrorCode::NotEditable, "the element has no Value pattern")
            })?;
            p.set_value(text).map_err(|e| failed("Value.SetValue", &e))
        }
        SemanticAction::SetValue { value } => element
            .get_pattern::<UIRangeValuePattern>()
            .map_err(|_| unsupported("RangeValue"))?
            .set_value(*value)
            .map_err(|e| failed("RangeValue.SetValue", &e)),
        SemanticAction::Focus => element.set_focus().map_err(|e| failed("SetFocus", &e)),
        SemanticAction::Select | SemanticAction::Choose => element
            .get_pattern::<UISelectionItemPattern>()
            .map_err(|_| unsupported("SelectionItem"))?
            .select()
            .map_err(|e| failed("SelectionItem.Select", &e)),
        SemanticAction::Expand { expand } => {
            let p = element
                .get_pattern::<UIExpandCollapsePattern>()
                .map_err(|_| unsupported("ExpandCollapse"))?;
            let done = if *expand { p.expand() } else { p.collapse() };
            done.map_err(|e| failed("ExpandCollapse", &e))
        }
        SemanticAction::ScrollIntoView => element
            .get_pattern::<UIScrollItemPattern>()
            .map_err(|_| unsupported("ScrollItem"))?
            .scroll_into_view()
            .map_err(|e| failed("ScrollItem.ScrollIntoView", &e)),
        _ => Err(unsupported("matching")),
    }
}
