//! The AX vocabulary → `cu-core`'s: `AXRole` and `AXSubrole` strings, attributes, actions.

use cu_core::model::element::{ActionKind, State, StateSet};
use cu_core::model::role::Role;

/// The role of an element from its `AXRole` and `AXSubrole`.
pub fn role(ax_role: &str, ax_subrole: Option<&str>) -> Role {
    match (ax_role, ax_subrole.unwrap_or("")) {
        ("AXButton", _) => Role::Button,
        ("AXCheckBox", "AXSwitch") => Role::Switch,
        ("AXCheckBox", "AXToggle") => Role::ToggleButton,
        ("AXCheckBox", _) => Role::CheckBox,
        ("AXRadioButton", "AXTabButton") => Role::Tab,
        ("AXRadioButton", _) => Role::RadioButton,
        ("AXPopUpButton" | "AXComboBox" | "AXMenuButton", _) => Role::ComboBox,
        ("AXTextField", "AXSecureTextField") | ("AXSecureTextField", _) => Role::PasswordInput,
        ("AXTextField" | "AXSearchField", _) => Role::TextInput,
        ("AXTextArea", _) => Role::TextArea,
        ("AXStaticText", _) => Role::Label,
        ("AXHeading", _) => Role::Heading,
        ("AXLink", _) => Role::Link,
        ("AXImage", _) => Role::Image,
        ("AXSlider", _) => Role::Slider,
        ("AXIncrementor" | "AXStepper", _) => Role::SpinButton,
        ("AXProgressIndicator" | "AXBusyIndicator" | "AXLevelIndicator", _) => Role::ProgressBar,
        ("AXScrollBar", _) => Role::ScrollBar,
        ("AXScrollArea", _) => Role::ScrollPane,
        ("AXMenuBar", _) => Role::MenuBar,
        ("AXMenu", _) => Role::Menu,
        ("AXMenuItem" | "AXMenuBarItem", _) => Role::MenuItem,
        ("AXList", _) => Role::List,
        ("AXOutline", _) => Role::Tree,
        ("AXRow", "AXOutlineRow") => Role::TreeItem,
        ("AXRow", _) => Role::Row,
        ("AXCell", _) => Role::Cell,
        ("AXTable" | "AXGrid", _) => Role::Table,
        ("AXTabGroup", _) => Role::TabList,
        ("AXToolbar", _) => Role::Toolbar,
        ("AXWindow", "AXDialog" | "AXSystemDialog") | ("AXSheet", _) => Role::Dialog,
        ("AXWindow", _) => Role::Window,
        ("AXWebArea", _) => Role::Document,
        ("AXGroup" | "AXSplitGroup" | "AXLayoutArea" | "AXRadioGroup", _) => Role::Group,
        ("AXSplitter", _) => Role::Separator,
        ("AXHelpTag", _) => Role::Tooltip,
        ("AXApplication", _) => Role::Application,
        _ => Role::Unknown,
    }
}

/// The attributes a snapshot reads in one batched call (`AXUIElementCopyMultipleAttributeValues`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes {
    /// `AXEnabled`.
    pub enabled: Option<bool>,
    /// `AXFocused`.
    pub focused: Option<bool>,
    /// `AXSelected`.
    pub selected: Option<bool>,
    /// `AXExpanded` (disclosure triangles, outline rows, combo boxes).
    pub expanded: Option<bool>,
    /// `AXValue` as a number, for check boxes and radio buttons (0 off, 1 on, 2 mixed).
    pub toggle_value: Option<i64>,
    /// `AXRequired` (web content).
    pub required: Option<bool>,
    /// `AXModal` (windows).
    pub modal: Option<bool>,
    /// `AXValue` is settable (`AXUIElementIsAttributeSettable`).
    pub value_settable: Option<bool>,
}

/// The states of an element.
pub fn states(role: Role, a: &Attributes) -> StateSet {
    let mut s = StateSet::default();
    let mut set = |on: bool, state: State| {
        if on {
            s.insert(state);
        }
    };
    set(a.enabled == Some(false), State::Disabled);
    set(a.focused == Some(true), State::Focused);
    set(a.selected == Some(true), State::Selected);
    set(a.required == Some(true), State::Required);
    set(a.modal == Some(true), State::Modal);
    match a.expanded {
        Some(true) => set(true, State::Expanded),
        Some(false) => set(true, State::Collapsed),
        None => {}
    }
    if matches!(
        role,
        Role::CheckBox | Role::RadioButton | Role::Switch | Role::ToggleButton
    ) {
        match a.toggle_value {
            Some(1) => set(true, State::Checked),
            Some(2) => set(true, State::Mixed),
            _ => {}
        }
    }
    if matches!(role, Role::TextInput | Role::TextArea | Role::PasswordInput) {
        match a.value_settable {
            Some(true) => set(true, State::Editable),
            Some(false) => set(true, State::ReadOnly),
            None => {}
        }
    }
    s
}

/// The semantic actions an element's `AXActionNames` offer, in trial order.
pub fn actions(role: Role, ax_actions: &[&str], a: &Attributes) -> Vec<ActionKind> {
    let has = |name: &str| ax_actions.contains(&name);
    let mut out = Vec::new();
    if has("AXPress") || has("AXConfirm") {
        out.push(
            if matches!(role, Role::CheckBox | Role::Switch | Role::ToggleButton) {
                ActionKind::Toggle
            } else {
                ActionKind::Invoke
            },
        );
    }
    if a.value_settable == Some(true) {
        out.push(match role {
            Role::Slider | Role::SpinButton | Role::ScrollBar => ActionKind::SetValue,
            _ => ActionKind::SetText,
        });
    }
    if has("AXPick") || a.selected.is_some() && role.is_interactive() {
        out.push(ActionKind::Select);
    }
    if has("AXShowMenu") || a.expanded.is_some() {
        out.push(ActionKind::Expand);
    }
    if has("AXScrollToVisible") {
        out.push(ActionKind::ScrollIntoView);
    }
    if a.focused.is_some() && role.is_interactive() {
        out.push(ActionKind::Focus);
    }
    out
}

/// True when a window's tree is too thin to be the real one: Chromium and Electron apps expose
/// only their frame until an assistive technology asks (`AXManualAccessibility`).
pub fn tree_too_thin(nodes: usize) -> bool {
    const MIN_NODES: usize = 12;
    nodes < MIN_NODES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_subroles_map_as_documented() {
        for (r, sub, want) in [
            ("AXButton", None, Role::Button),
            ("AXCheckBox", Some("AXSwitch"), Role::Switch),
            ("AXCheckBox", None, Role::CheckBox),
            ("AXRadioButton", Some("AXTabButton"), Role::Tab),
            (
                "AXTextField",
                Some("AXSecureTextField"),
                Role::PasswordInput,
            ),
            ("AXTextField", Some("AXSearchField"), Role::TextInput),
            ("AXTextArea", None, Role::TextArea),
            ("AXStaticText", None, Role::Label),
            ("AXWindow", Some("AXStandardWindow"), Role::Window),
            ("AXWindow", Some("AXDialog"), Role::Dialog),
            ("AXSheet", None, Role::Dialog),
            ("AXRow", Some("AXOutlineRow"), Role::TreeItem),
            ("AXWebArea", None, Role::Document),
            ("AXPopUpButton", None, Role::ComboBox),
            ("AXSomethingNew", None, Role::Unknown),
        ] {
            assert_eq!(role(r, sub), want, "{r} {sub:?}");
        }
    }

    #[test]
    fn attributes_become_states() {
        let a = Attributes {
            enabled: Some(false),
            focused: Some(true),
            toggle_value: Some(1),
            expanded: Some(false),
            ..Attributes::default()
        };
        let s = states(Role::CheckBox, &a);
        for st in [
            State::Disabled,
            State::Focused,
            State::Checked,
            State::Collapsed,
        ] {
            assert!(s.contains(st), "{st:?}");
        }
        // AXValue 1 on a text field is text, not a check mark.
        assert!(!states(Role::TextInput, &a).contains(State::Checked));
        let field = Attributes {
            value_settable: Some(false),
            ..Attributes::default()
        };
        assert!(states(Role::TextInput, &field).contains(State::ReadOnly));
    }

    #[test]
    fn ax_actions_become_semantic_actions() {
        let settable = Attributes {
            value_settable: Some(true),
            focused: Some(false),
            ..Attributes::default()
        };
        assert_eq!(
            actions(
                Role::Button,
                &["AXPress", "AXShowMenu"],
                &Attributes::default()
            ),
            vec![ActionKind::Invoke, ActionKind::Expand]
        );
        assert_eq!(
            actions(Role::CheckBox, &["AXPress"], &Attributes::default()),
            vec![ActionKind::Toggle]
        );
        assert_eq!(
            actions(Role::TextInput, &[], &settable),
            vec![ActionKind::SetText, ActionKind::Focus]
        );
        assert_eq!(
            actions(Role::Slider, &["AXIncrement"], &settable),
            vec![ActionKind::SetValue, ActionKind::Focus]
        );
    }
}
