//! UI Automation's vocabulary → `cu-core`'s: control types, properties, patterns.
//!
//! The numbers are the `UIA_*ControlTypeId` and `UIA_*PatternId` constants of
//! `UIAutomationClient.h` (Windows SDK), as Microsoft's "Control Type Identifiers" and
//! "Control Pattern Identifiers" pages list them.

use cu_core::model::element::{ActionKind, State, StateSet};
use cu_core::model::role::Role;

/// Control type ids this module names.
pub mod control_type {
    #![allow(missing_docs)]
    pub const BUTTON: i32 = 50000;
    pub const CALENDAR: i32 = 50001;
    pub const CHECK_BOX: i32 = 50002;
    pub const COMBO_BOX: i32 = 50003;
    pub const EDIT: i32 = 50004;
    pub const HYPERLINK: i32 = 50005;
    pub const IMAGE: i32 = 50006;
    pub const LIST_ITEM: i32 = 50007;
    pub const LIST: i32 = 50008;
    pub const MENU: i32 = 50009;
    pub const MENU_BAR: i32 = 50010;
    pub const MENU_ITEM: i32 = 50011;
    pub const PROGRESS_BAR: i32 = 50012;
    pub const RADIO_BUTTON: i32 = 50013;
    pub const SCROLL_BAR: i32 = 50014;
    pub const SLIDER: i32 = 50015;
    pub const SPINNER: i32 = 50016;
    pub const STATUS_BAR: i32 = 50017;
    pub const TAB: i32 = 50018;
    pub const TAB_ITEM: i32 = 50019;
    pub const TEXT: i32 = 50020;
    pub const TOOL_BAR: i32 = 50021;
    pub const TOOL_TIP: i32 = 50022;
    pub const TREE: i32 = 50023;
    pub const TREE_ITEM: i32 = 50024;
    pub const CUSTOM: i32 = 50025;
    pub const GROUP: i32 = 50026;
    pub const THUMB: i32 = 50027;
    pub const DATA_GRID: i32 = 50028;
    pub const DATA_ITEM: i32 = 50029;
    pub const DOCUMENT: i32 = 50030;
    pub const SPLIT_BUTTON: i32 = 50031;
    pub const WINDOW: i32 = 50032;
    pub const PANE: i32 = 50033;
    pub const HEADER: i32 = 50034;
    pub const HEADER_ITEM: i32 = 50035;
    pub const TABLE: i32 = 50036;
    pub const TITLE_BAR: i32 = 50037;
    pub const SEPARATOR: i32 = 50038;
    pub const SEMANTIC_ZOOM: i32 = 50039;
    pub const APP_BAR: i32 = 50040;
}

/// Pattern ids this module names.
pub mod pattern {
    #![allow(missing_docs)]
    pub const INVOKE: i32 = 10000;
    pub const SELECTION: i32 = 10001;
    pub const VALUE: i32 = 10002;
    pub const RANGE_VALUE: i32 = 10003;
    pub const SCROLL: i32 = 10004;
    pub const EXPAND_COLLAPSE: i32 = 10005;
    pub const WINDOW: i32 = 10009;
    pub const SELECTION_ITEM: i32 = 10010;
    pub const TEXT: i32 = 10014;
    pub const TOGGLE: i32 = 10015;
    pub const SCROLL_ITEM: i32 = 10017;
    pub const LEGACY_IACCESSIBLE: i32 = 10018;
}

/// What a UIA element is, as the properties a snapshot reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Element {
    /// `UIA_ControlTypePropertyId`.
    pub control_type: i32,
    /// `UIA_IsPasswordPropertyId`.
    pub is_password: bool,
    /// `UIA_HeadingLevelPropertyId` (`HeadingLevel_None` = 80050, levels 1-9 = 80051-80059).
    pub heading_level: i32,
    /// `UIA_IsEnabledPropertyId`.
    pub is_enabled: bool,
    /// `UIA_HasKeyboardFocusPropertyId`.
    pub has_keyboard_focus: bool,
    /// `UIA_IsKeyboardFocusablePropertyId`.
    pub is_keyboard_focusable: bool,
    /// `UIA_IsOffscreenPropertyId`.
    pub is_offscreen: bool,
    /// `UIA_ToggleToggleStatePropertyId` (`ToggleState_Off` 0, `_On` 1, `_Indeterminate` 2),
    /// when the Toggle pattern is there.
    pub toggle_state: Option<i32>,
    /// `UIA_ExpandCollapseExpandCollapseStatePropertyId` (`Collapsed` 0, `Expanded` 1,
    /// `PartiallyExpanded` 2, `LeafNode` 3), when the pattern is there.
    pub expand_state: Option<i32>,
    /// `UIA_SelectionItemIsSelectedPropertyId`, when the pattern is there.
    pub is_selected: Option<bool>,
    /// `UIA_ValueIsReadOnlyPropertyId`, when the Value pattern is there.
    pub value_read_only: Option<bool>,
    /// `UIA_IsRequiredForFormPropertyId`.
    pub is_required: bool,
    /// `UIA_WindowIsModalPropertyId`, for windows.
    pub is_modal: bool,
}

/// The role of an element.
pub fn role(e: &Element) -> Role {
    use control_type as ct;
    const HEADING_NONE: i32 = 80050;
    match e.control_type {
        ct::BUTTON | ct::SPLIT_BUTTON => Role::Button,
        ct::CHECK_BOX => Role::CheckBox,
        ct::RADIO_BUTTON => Role::RadioButton,
        ct::COMBO_BOX => Role::ComboBox,
        ct::EDIT if e.is_password => Role::PasswordInput,
        ct::EDIT => Role::TextInput,
        ct::DOCUMENT => Role::Document,
        ct::HYPERLINK => Role::Link,
        ct::IMAGE => Role::Image,
        ct::LIST | ct::DATA_GRID => Role::List,
        ct::LIST_ITEM | ct::DATA_ITEM => Role::ListItem,
        ct::MENU => Role::Menu,
        ct::MENU_BAR => Role::MenuBar,
        ct::MENU_ITEM => Role::MenuItem,
        ct::PROGRESS_BAR => Role::ProgressBar,
        ct::SCROLL_BAR => Role::ScrollBar,
        ct::SLIDER => Role::Slider,
        ct::SPINNER => Role::SpinButton,
        ct::STATUS_BAR => Role::StatusBar,
        ct::TAB => Role::TabList,
        ct::TAB_ITEM => Role::Tab,
        ct::TEXT if e.heading_level > HEADING_NONE => Role::Heading,
        ct::TEXT => Role::Label,
        ct::TOOL_BAR | ct::APP_BAR => Role::Toolbar,
        ct::TOOL_TIP => Role::Tooltip,
        ct::TREE => Role::Tree,
        ct::TREE_ITEM => Role::TreeItem,
        ct::GROUP => Role::Group,
        ct::WINDOW if e.is_modal => Role::Dialog,
        ct::WINDOW => Role::Window,
        ct::PANE | ct::SEMANTIC_ZOOM => Role::ScrollPane,
        ct::HEADER => Role::Row,
        ct::HEADER_ITEM => Role::ColumnHeader,
        ct::TABLE => Role::Table,
        ct::SEPARATOR => Role::Separator,
        ct::TITLE_BAR | ct::THUMB | ct::CALENDAR | ct::CUSTOM => Role::Unknown,
        _ => Role::Unknown,
    }
}

/// The states of an element.
pub fn states(e: &Element) -> StateSet {
    let mut s = StateSet::default();
    let mut set = |on: bool, state: State| {
        if on {
            s.insert(state);
        }
    };
    set(!e.is_enabled, State::Disabled);
    set(e.has_keyboard_focus, State::Focused);
    set(e.is_keyboard_focusable, State::Focusable);
    set(e.is_offscreen, State::Offscreen);
    set(e.is_required, State::Required);
    set(e.is_modal, State::Modal);
    match e.toggle_state {
        Some(1) => set(true, State::Checked),
        Some(2) => set(true, State::Mixed),
        _ => {}
    }
    match e.expand_state {
        Some(0) => set(true, State::Collapsed),
        Some(1) | Some(2) => set(true, State::Expanded),
        _ => {}
    }
    set(e.is_selected == Some(true), State::Selected);
    match e.value_read_only {
        Some(true) => set(true, State::ReadOnly),
        Some(false) => set(true, State::Editable),
        None => {}
    }
    s
}

/// The semantic actions the element's patterns offer, in the order the backend tries them.
pub fn actions(patterns: &[i32], e: &Element) -> Vec<ActionKind> {
    let has = |p: i32| patterns.contains(&p);
    let mut out = Vec::new();
    if has(pattern::INVOKE) || has(pattern::LEGACY_IACCESSIBLE) && role(e).is_interactive() {
        out.push(ActionKind::Invoke);
    }
    if has(pattern::TOGGLE) {
        out.push(ActionKind::Toggle);
    }
    if has(pattern::VALUE) && e.value_read_only != Some(true) {
        out.push(ActionKind::SetText);
    }
    if has(pattern::RANGE_VALUE) {
        out.push(ActionKind::SetValue);
    }
    if has(pattern::SELECTION_ITEM) {
        out.push(ActionKind::Select);
    }
    if has(pattern::EXPAND_COLLAPSE) && e.expand_state != Some(3) {
        out.push(ActionKind::Expand);
    }
    if has(pattern::SCROLL_ITEM) {
        out.push(ActionKind::ScrollIntoView);
    }
    if e.is_keyboard_focusable {
        out.push(ActionKind::Focus);
    }
    out
}

/// True when a cached snapshot came back too thin to trust: Chromium and Electron windows
/// (`Chrome_WidgetWin_*`) build their UIA tree lazily and often answer a subtree cache request
/// with only their frame, which a plain walk then wakes up; any window answering with its root
/// alone is walked again too.
pub fn cache_too_thin(cached_nodes: usize, window_class: &str) -> bool {
    const CHROMIUM_MIN_NODES: usize = 12;
    cached_nodes <= 1
        || (window_class.starts_with("Chrome_WidgetWin") && cached_nodes < CHROMIUM_MIN_NODES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(control_type: i32) -> Element {
        Element {
            control_type,
            is_enabled: true,
            heading_level: 80050,
            ..Element::default()
        }
    }

    #[test]
    fn control_types_map_to_roles_as_documented() {
        use control_type as ct;
        for (id, role_) in [
            (ct::BUTTON, Role::Button),
            (ct::SPLIT_BUTTON, Role::Button),
            (ct::CHECK_BOX, Role::CheckBox),
            (ct::EDIT, Role::TextInput),
            (ct::DOCUMENT, Role::Document),
            (ct::TAB_ITEM, Role::Tab),
            (ct::TEXT, Role::Label),
            (ct::WINDOW, Role::Window),
            (ct::PANE, Role::ScrollPane),
            (ct::CUSTOM, Role::Unknown),
            (12345, Role::Unknown),
        ] {
            assert_eq!(role(&el(id)), role_, "{id}");
        }
        let password = Element {
            is_password: true,
            ..el(ct::EDIT)
        };
        assert_eq!(role(&password), Role::PasswordInput);
        let heading = Element {
            heading_level: 80052,
            ..el(ct::TEXT)
        };
        assert_eq!(role(&heading), Role::Heading, "HeadingLevel2");
        let modal = Element {
            is_modal: true,
            ..el(ct::WINDOW)
        };
        assert_eq!(role(&modal), Role::Dialog);
    }

    #[test]
    fn properties_become_states() {
        let e = Element {
            is_enabled: false,
            has_keyboard_focus: true,
            toggle_state: Some(2),
            expand_state: Some(0),
            is_selected: Some(true),
            value_read_only: Some(true),
            ..el(control_type::CHECK_BOX)
        };
        let s = states(&e);
        for state in [
            State::Disabled,
            State::Focused,
            State::Mixed,
            State::Collapsed,
            State::Selected,
            State::ReadOnly,
        ] {
            assert!(s.contains(state), "{state:?}");
        }
        assert!(!s.contains(State::Checked));
        let on = states(&Element {
            toggle_state: Some(1),
            ..el(control_type::CHECK_BOX)
        });
        assert!(on.contains(State::Checked) && !on.contains(State::Disabled));
    }

    #[test]
    fn thin_caches_of_chromium_windows_are_walked_again() {
        assert!(cache_too_thin(3, "Chrome_WidgetWin_1"));
        assert!(!cache_too_thin(200, "Chrome_WidgetWin_1"));
        assert!(cache_too_thin(1, "Notepad"));
        assert!(
            !cache_too_thin(3, "Notepad"),
            "a small native dialog is fine"
        );
    }

    #[test]
    fn patterns_become_actions_in_trial_order() {
        let button = Element {
            is_keyboard_focusable: true,
            ..el(control_type::BUTTON)
        };
        assert_eq!(
            actions(&[pattern::INVOKE], &button),
            vec![ActionKind::Invoke, ActionKind::Focus]
        );
        let edit = Element {
            value_read_only: Some(false),
            ..el(control_type::EDIT)
        };
        assert_eq!(actions(&[pattern::VALUE], &edit), vec![ActionKind::SetText]);
        let read_only = Element {
            value_read_only: Some(true),
            ..edit
        };
        assert!(actions(&[pattern::VALUE], &read_only).is_empty());
        // LegacyIAccessible's default action stands in for Invoke on controls only.
        assert_eq!(
            actions(&[pattern::LEGACY_IACCESSIBLE], &el(control_type::BUTTON)),
            vec![ActionKind::Invoke]
        );
        assert!(actions(&[pattern::LEGACY_IACCESSIBLE], &el(control_type::TEXT)).is_empty());
        let leaf = Element {
            expand_state: Some(3),
            ..el(control_type::TREE_ITEM)
        };
        assert!(!actions(&[pattern::EXPAND_COLLAPSE], &leaf).contains(&ActionKind::Expand));
    }
}
