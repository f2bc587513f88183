//! Pure translation from AT-SPI's vocabulary into `cu-core`'s: roles, states, action names.
//!
//! The numbers are AT-SPI's `AtspiRole` and `AtspiStateType` (at-spi2-core
//! `atspi-constants.h`), checked against python3-pyatspi 2.46 on the test desktop.
//! Nothing here touches D-Bus, so it is tested on every platform.

use cu_core::model::element::{ActionKind, State, StateSet};
use cu_core::model::role::Role;

/// AT-SPI role numbers this module names explicitly.
pub mod atspi_role {
    #![allow(missing_docs)]
    pub const ALERT: u32 = 2;
    pub const CANVAS: u32 = 6;
    pub const CHECK_BOX: u32 = 7;
    pub const CHECK_MENU_ITEM: u32 = 8;
    pub const COLUMN_HEADER: u32 = 10;
    pub const COMBO_BOX: u32 = 11;
    pub const DIALOG: u32 = 16;
    pub const DRAWING_AREA: u32 = 18;
    pub const FILE_CHOOSER: u32 = 19;
    pub const FILLER: u32 = 20;
    pub const FRAME: u32 = 23;
    pub const ICON: u32 = 26;
    pub const IMAGE: u32 = 27;
    pub const INTERNAL_FRAME: u32 = 28;
    pub const LABEL: u32 = 29;
    pub const LIST: u32 = 31;
    pub const LIST_ITEM: u32 = 32;
    pub const MENU: u32 = 33;
    pub const MENU_BAR: u32 = 34;
    pub const MENU_ITEM: u32 = 35;
    pub const OPTION_PANE: u32 = 36;
    pub const PAGE_TAB: u32 = 37;
    pub const PAGE_TAB_LIST: u32 = 38;
    pub const PANEL: u32 = 39;
    pub const PASSWORD_TEXT: u32 = 40;
    pub const POPUP_MENU: u32 = 41;
    pub const PROGRESS_BAR: u32 = 42;
    pub const PUSH_BUTTON: u32 = 43;
    pub const RADIO_BUTTON: u32 = 44;
    pub const RADIO_MENU_ITEM: u32 = 45;
    pub const ROOT_PANE: u32 = 46;
    pub const ROW_HEADER: u32 = 47;
    pub const SCROLL_BAR: u32 = 48;
    pub const SCROLL_PANE: u32 = 49;
    pub const SEPARATOR: u32 = 50;
    pub const SLIDER: u32 = 51;
    pub const SPIN_BUTTON: u32 = 52;
    pub const SPLIT_PANE: u32 = 53;
    pub const STATUS_BAR: u32 = 54;
    pub const TABLE: u32 = 55;
    pub const TABLE_CELL: u32 = 56;
    pub const TABLE_COLUMN_HEADER: u32 = 57;
    pub const TABLE_ROW_HEADER: u32 = 58;
    pub const TEAROFF_MENU_ITEM: u32 = 59;
    pub const TERMINAL: u32 = 60;
    pub const TEXT: u32 = 61;
    pub const TOGGLE_BUTTON: u32 = 62;
    pub const TOOL_BAR: u32 = 63;
    pub const TOOL_TIP: u32 = 64;
    pub const TREE: u32 = 65;
    pub const TREE_TABLE: u32 = 66;
    pub const UNKNOWN: u32 = 67;
    pub const VIEWPORT: u32 = 68;
    pub const WINDOW: u32 = 69;
    pub const HEADER: u32 = 71;
    pub const FOOTER: u32 = 72;
    pub const PARAGRAPH: u32 = 73;
    pub const APPLICATION: u32 = 75;
    pub const AUTOCOMPLETE: u32 = 76;
    pub const EDITBAR: u32 = 77;
    pub const EMBEDDED: u32 = 78;
    pub const ENTRY: u32 = 79;
    pub const CAPTION: u32 = 81;
    pub const DOCUMENT_FRAME: u32 = 82;
    pub const HEADING: u32 = 83;
    pub const PAGE: u32 = 84;
    pub const SECTION: u32 = 85;
    pub const REDUNDANT_OBJECT: u32 = 86;
    pub const FORM: u32 = 87;
    pub const LINK: u32 = 88;
    pub const TABLE_ROW: u32 = 90;
    pub const TREE_ITEM: u32 = 91;
    pub const DOCUMENT_SPREADSHEET: u32 = 92;
    pub const DOCUMENT_PRESENTATION: u32 = 93;
    pub const DOCUMENT_TEXT: u32 = 94;
    pub const DOCUMENT_WEB: u32 = 95;
    pub const DOCUMENT_EMAIL: u32 = 96;
    pub const COMMENT: u32 = 97;
    pub const LIST_BOX: u32 = 98;
    pub const GROUPING: u32 = 99;
    pub const IMAGE_MAP: u32 = 100;
    pub const NOTIFICATION: u32 = 101;
    pub const INFO_BAR: u32 = 102;
    pub const LEVEL_BAR: u32 = 103;
    pub const TITLE_BAR: u32 = 104;
    pub const BLOCK_QUOTE: u32 = 105;
    pub const ARTICLE: u32 = 109;
    pub const LANDMARK: u32 = 110;
    pub const LOG: u32 = 111;
    pub const STATIC: u32 = 116;
    pub const DESCRIPTION_TERM: u32 = 122;
    pub const DESCRIPTION_VALUE: u32 = 123;
    pub const PUSH_BUTTON_MENU: u32 = 129;
    pub const SWITCH: u32 = 130;
}

/// AT-SPI state bit numbers (`AtspiStateType`), as they index the two-word bit set of GetState.
pub mod atspi_state {
    #![allow(missing_docs)]
    pub const ACTIVE: u32 = 1;
    pub const BUSY: u32 = 3;
    pub const CHECKED: u32 = 4;
    pub const COLLAPSED: u32 = 5;
    pub const DEFUNCT: u32 = 6;
    pub const EDITABLE: u32 = 7;
    pub const ENABLED: u32 = 8;
    pub const EXPANDABLE: u32 = 9;
    pub const EXPANDED: u32 = 10;
    pub const FOCUSABLE: u32 = 11;
    pub const FOCUSED: u32 = 12;
    pub const ICONIFIED: u32 = 15;
    pub const MODAL: u32 = 16;
    pub const MULTI_LINE: u32 = 17;
    pub const PRESSED: u32 = 20;
    pub const SELECTABLE: u32 = 22;
    pub const SELECTED: u32 = 23;
    pub const SENSITIVE: u32 = 24;
    pub const SHOWING: u32 = 25;
    pub const VISIBLE: u32 = 30;
    pub const MANAGES_DESCENDANTS: u32 = 31;
    pub const INDETERMINATE: u32 = 32;
    pub const REQUIRED: u32 = 33;
    pub const INVALID_ENTRY: u32 = 36;
    pub const IS_DEFAULT: u32 = 39;
    pub const CHECKABLE: u32 = 41;
    pub const HAS_POPUP: u32 = 42;
    pub const READ_ONLY: u32 = 43;
}

/// The raw AT-SPI state set: two 32-bit words as `GetState` returns them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtspiStates(pub u64);

impl AtspiStates {
    /// From the `au` GetState reply.
    pub fn from_words(words: &[u32]) -> AtspiStates {
        let lo = words.first().copied().unwrap_or(0) as u64;
        let hi = words.get(1).copied().unwrap_or(0) as u64;
        AtspiStates(lo | (hi << 32))
    }

    /// True when bit `state` is set.
    pub const fn has(self, state: u32) -> bool {
        state < 64 && self.0 & (1 << state) != 0
    }
}

/// Maps an AT-SPI role (and the states that refine it) to the shared role.
pub fn role(atspi: u32, states: AtspiStates) -> Role {
    use atspi_role as r;
    match atspi {
        r::FRAME | r::WINDOW => Role::Window,
        r::DIALOG | r::FILE_CHOOSER => Role::Dialog,
        r::ALERT | r::NOTIFICATION | r::INFO_BAR => Role::Alert,
        r::PUSH_BUTTON | r::PUSH_BUTTON_MENU => Role::Button,
        r::TOGGLE_BUTTON => Role::ToggleButton,
        r::CHECK_BOX => Role::CheckBox,
        r::RADIO_BUTTON => Role::RadioButton,
        r::SWITCH => Role::Switch,
        r::COMBO_BOX => Role::ComboBox,
        r::PASSWORD_TEXT => Role::PasswordInput,
        r::ENTRY | r::AUTOCOMPLETE | r::EDITBAR => Role::TextInput,
        r::TEXT if states.has(atspi_state::EDITABLE) => {
            if states.has(atspi_state::MULTI_LINE) {
                Role::TextArea
            } else {
                Role::TextInput
            }
        }
        r::TEXT
        | r::STATIC
        | r::CAPTION
        | r::DESCRIPTION_TERM
        | r::DESCRIPTION_VALUE
        | r::COMMENT => Role::Label,
        r::LABEL => Role::Label,
        r::SPIN_BUTTON => Role::SpinButton,
        r::SLIDER => Role::Slider,
        r::SCROLL_BAR => Role::ScrollBar,
        r::PROGRESS_BAR | r::LEVEL_BAR => Role::ProgressBar,
        r::LINK => Role::Link,
        r::MENU_BAR => Role::MenuBar,
        r::MENU | r::POPUP_MENU => Role::Menu,
        r::MENU_ITEM | r::TEAROFF_MENU_ITEM => Role::MenuItem,
        r::CHECK_MENU_ITEM => Role::CheckMenuItem,
        r::RADIO_MENU_ITEM => Role::RadioMenuItem,
        r::LIST | r::LIST_BOX => Role::List,
        r::LIST_ITEM => Role::ListItem,
        r::TREE | r::TREE_TABLE => Role::Tree,
        r::TREE_ITEM => Role::TreeItem,
        r::TABLE => Role::Table,
        r::TABLE_ROW => Role::Row,
        r::TABLE_CELL => Role::Cell,
        r::COLUMN_HEADER | r::TABLE_COLUMN_HEADER => Role::ColumnHeader,
        r::ROW_HEADER | r::TABLE_ROW_HEADER => Role::RowHeader,
        r::PAGE_TAB_LIST => Role::TabList,
        r::PAGE_TAB => Role::Tab,
        r::TOOL_BAR => Role::Toolbar,
        r::STATUS_BAR => Role::StatusBar,
        r::HEADING => Role::Heading,
        r::PARAGRAPH | r::BLOCK_QUOTE => Role::Paragraph,
        r::IMAGE | r::ICON | r::IMAGE_MAP => Role::Image,
        r::DOCUMENT_FRAME
        | r::DOCUMENT_WEB
        | r::DOCUMENT_TEXT
        | r::DOCUMENT_EMAIL
        | r::DOCUMENT_SPREADSHEET
        | r::DOCUMENT_PRESENTATION
        | r::ARTICLE => Role::Document,
        r::FORM => Role::Form,
        r::SCROLL_PANE | r::VIEWPORT => Role::ScrollPane,
        r::SEPARATOR => Role::Separator,
        r::TOOL_TIP => Role::Tooltip,
        r::CANVAS | r::DRAWING_AREA => Role::Canvas,
        r::TERMINAL => Role::Terminal,
        r::APPLICATION => Role::Application,
        r::PAGE => Role::TabPanel,
        r::FILLER
        | r::PANEL
        | r::SECTION
        | r::GROUPING
        | r::ROOT_PANE
        | r::INTERNAL_FRAME
        | r::OPTION_PANE
        | r::SPLIT_PANE
        | r::EMBEDDED
        | r::HEADER
        | r::FOOTER
        | r::LANDMARK
        | r::LOG
        | r::TITLE_BAR
        | r::REDUNDANT_OBJECT => Role::Group,
        _ => Role::Unknown,
    }
}

/// Whether an element with this AT-SPI role that is not `SHOWING` surely hides everything it
/// holds, so the walk need not ask their places: a menu (a closed menu's items, two thirds of an
/// empty LibreOffice Writer window), a document, a tab page, a window. Only these: an element of
/// another role may be left without `SHOWING` while what it holds is drawn (Firefox's fieldsets,
/// and perhaps a link around block content), and a place not asked is a place lost. The live
/// check before an action ([`hides_descendants`]) refuses more, which is its safe side.
pub fn hides_when_not_drawn(atspi: u32) -> bool {
    matches!(
        atspi,
        atspi_role::MENU
            | atspi_role::POPUP_MENU
            | atspi_role::DOCUMENT_FRAME
            | atspi_role::DOCUMENT_WEB
            | atspi_role::DOCUMENT_TEXT
            | atspi_role::DOCUMENT_SPREADSHEET
            | atspi_role::DOCUMENT_PRESENTATION
            | atspi_role::DOCUMENT_EMAIL
            | atspi_role::PAGE_TAB
            | atspi_role::INTERNAL_FRAME
            | atspi_role::FRAME
            | atspi_role::DIALOG
            | atspi_role::WINDOW
    )
}

/// Whether an ancestor with this AT-SPI role that is not `SHOWING` hides its descendants from a
/// person. A grouping (a panel, section, form, list, label) does not: Firefox leaves its
/// `<fieldset>` panels without `SHOWING` while they and everything in them are drawn (its
/// settings page's check boxes). A document, frame, tab page, menu or any other role does:
/// Firefox's background tab is a document that is no longer showing while its buttons still
/// say they are.
pub fn hides_descendants(atspi: u32) -> bool {
    !matches!(
        atspi,
        atspi_role::PANEL
            | atspi_role::SECTION
            | atspi_role::GROUPING
            | atspi_role::FORM
            | atspi_role::LANDMARK
            | atspi_role::PARAGRAPH
            | atspi_role::BLOCK_QUOTE
            | atspi_role::LABEL
            | atspi_role::LIST
            | atspi_role::LIST_ITEM
    )
}

/// Maps AT-SPI states to the shared states. `SENSITIVE`/`ENABLED` missing means disabled, except
/// on toolkits that never set them on children (GTK4 sets SENSITIVE but not ENABLED): a node is
/// disabled only when neither is set. Where the toolkit [reports
/// `SHOWING`](Toolkit::reports_showing), an element without it is offscreen.
pub fn states(s: AtspiStates, toolkit: Toolkit) -> StateSet {
    use atspi_state as a;
    let mut out = StateSet::EMPTY;
    let pairs = [
        (a::FOCUSED, State::Focused),
        (a::FOCUSABLE, State::Focusable),
        (a::CHECKED, State::Checked),
        (a::INDETERMINATE, State::Mixed),
        (a::PRESSED, State::Pressed),
        (a::SELECTED, State::Selected),
        (a::EXPANDED, State::Expanded),
        (a::EDITABLE, State::Editable),
        (a::READ_ONLY, State::ReadOnly),
        (a::MULTI_LINE, State::MultiLine),
        (a::MODAL, State::Modal),
        (a::REQUIRED, State::Required),
        (a::INVALID_ENTRY, State::Invalid),
        (a::BUSY, State::Busy),
        (a::IS_DEFAULT, State::Default),
        (a::HAS_POPUP, State::HasPopup),
        (a::VISIBLE, State::Visible),
    ];
    for (bit, state) in pairs {
        if s.has(bit) {
            out.insert(state);
        }
    }
    if s.has(a::EXPANDABLE) && !s.has(a::EXPANDED) {
        out.insert(State::Collapsed);
    }
    if !s.has(a::SENSITIVE) && !s.has(a::ENABLED) {
        out.insert(State::Disabled);
    }
    if toolkit.reports_showing && !s.has(a::SHOWING) {
        out.insert(State::Offscreen);
    }
    out
}

/// The AT-SPI interfaces that decide which semantic actions an element offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InterfaceSet {
    /// `org.a11y.atspi.Action`.
    pub action: bool,
    /// `org.a11y.atspi.EditableText`.
    pub editable_text: bool,
    /// `org.a11y.atspi.Value`.
    pub value: bool,
}

impl InterfaceSet {
    /// From the interface names `GetInterfaces` (or `Cache.GetItems`) lists.
    pub fn of(names: &[String]) -> InterfaceSet {
        let has = |n: &str| names.iter().any(|i| i == n);
        InterfaceSet {
            action: has("org.a11y.atspi.Action"),
            editable_text: has("org.a11y.atspi.EditableText"),
            value: has("org.a11y.atspi.Value"),
        }
    }
}

/// The semantic actions an element offers, from its role, states and interfaces, without asking
/// for its action names (browsers answer `GetActions` with empty names, and every call costs a
/// round trip per node). `act.rs` picks the concrete action by name when it performs one.
pub fn actions(role: Role, s: AtspiStates, ifaces: InterfaceSet) -> Vec<ActionKind> {
    use atspi_state as a;
    let mut out = Vec::new();
    if ifaces.action {
        let checkable = matches!(
            role,
            Role::CheckBox
                | Role::ToggleButton
                | Role::Switch
                | Role::CheckMenuItem
                | Role::RadioButton
                | Role::RadioMenuItem
        );
        if role.is_interactive() || matches!(role, Role::Image | Role::Unknown | Role::ComboBox) {
            out.push(ActionKind::Invoke);
        }
        if checkable {
            out.push(ActionKind::Toggle);
        }
        if s.has(a::EXPANDABLE) || matches!(role, Role::ComboBox) {
            out.push(ActionKind::Expand);
        }
    }
    if s.has(a::SELECTABLE)
        && matches!(
            role,
            Role::ListItem | Role::Tab | Role::TreeItem | Role::Cell
        )
    {
        out.push(ActionKind::Select);
    }
    if ifaces.editable_text && (s.has(a::EDITABLE) || role.is_editable_text()) {
        out.push(ActionKind::SetText);
    }
    if ifaces.value && matches!(role, Role::Slider | Role::SpinButton) {
        out.push(ActionKind::SetValue);
    }
    if s.has(a::FOCUSABLE) {
        out.push(ActionKind::Focus);
    }
    out
}

/// Which shared action an AT-SPI action name stands for, if any.
pub fn action_kind(name: &str) -> Option<ActionKind> {
    match name.to_ascii_lowercase().as_str() {
        "click" | "press" | "activate" | "jump" | "open" | "invoke" | "clickancestor" => {
            Some(ActionKind::Invoke)
        }
        "toggle" | "check" | "uncheck" => Some(ActionKind::Toggle),
        "expand or contract" | "expand" | "collapse" | "showmenu" | "popup" => {
            Some(ActionKind::Expand)
        }
        "select" => Some(ActionKind::Select),
        _ => None,
    }
}

/// Whether an AT-SPI action name presses or activates (the ones `Invoke` may use), best first.
pub fn invoke_rank(name: &str) -> Option<u8> {
    match name.to_ascii_lowercase().as_str() {
        "click" | "press" => Some(0),
        "activate" | "invoke" => Some(1),
        "jump" | "open" => Some(2),
        "toggle" | "check" | "uncheck" => Some(3),
        "clickancestor" => Some(4),
        "select" => Some(5),
        "expand or contract" | "showmenu" => Some(6),
        _ => None,
    }
}

/// GTK 4 names a button "label label" (its own name, then its label's), sometimes with the
/// label's mnemonic marker first ("_Replace Replace"): the label once, without the marker.
pub fn collapse_doubled_name(name: &str) -> &str {
    for (i, _) in name.match_indices(' ') {
        let (first, second) = (&name[..i], &name[i + 1..]);
        if !second.is_empty() && !second.starts_with(' ') && first.replace('_', "") == second {
            return second;
        }
    }
    name
}

/// GTK 4 names an unnamed widget after its class: GTK's own ("GtkButton", "GtkSourceView") or
/// the application's ("EditorSourceView", "AdwHeaderBar", three or more capitalized words run
/// together); that is no label a user sees. A label's mnemonic marker ("_Open") is no part of
/// it either. Returns the name as a user reads it, `""` for a class name.
pub fn visible_name(name: &str) -> std::borrow::Cow<'_, str> {
    let identifier = name.chars().all(|c| c.is_ascii_alphanumeric());
    let gtk_class = name.len() > 3
        && name.starts_with("Gtk")
        && name[3..].starts_with(|c: char| c.is_ascii_uppercase());
    let humps = name
        .as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase())
        .count();
    let app_class = humps >= 3 && name.starts_with(|c: char| c.is_ascii_uppercase());
    if identifier && (gtk_class || app_class) {
        return std::borrow::Cow::Borrowed("");
    }
    strip_mnemonics(name)
}

/// "_Open" → "Open", "Save _As" → "Save As"; an underscore inside a word ("file_name") stays.
fn strip_mnemonics(name: &str) -> std::borrow::Cow<'_, str> {
    let marks = |i: usize| {
        name[i + 1..].starts_with(|c: char| c.is_alphanumeric())
            && name[..i]
                .chars()
                .next_back()
                .is_none_or(char::is_whitespace)
    };
    if !name.match_indices('_').any(|(i, _)| marks(i)) {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.char_indices() {
        if !(c == '_' && marks(i)) {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Roles whose text content is worth reading as the node's value.
pub fn reads_text(role: Role) -> bool {
    role.is_editable_text()
        || matches!(
            role,
            Role::Label
                | Role::Paragraph
                | Role::Heading
                | Role::StatusBar
                | Role::Cell
                | Role::ComboBox
                | Role::SpinButton
        )
}

/// The placeholder a field shows while empty, from its object attributes: GTK 3's
/// `placeholder-text`, the browsers' `placeholder`. `None` when blank or absent.
pub fn placeholder(attrs: &std::collections::HashMap<String, String>) -> Option<&str> {
    ["placeholder-text", "placeholder"]
        .iter()
        .filter_map(|k| attrs.get(*k))
        .map(|v| v.trim())
        .find(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_a_firefox_fieldset_not_showing_hid_its_drawn_check_boxes() {
        assert!(!hides_descendants(atspi_role::PANEL));
        assert!(!hides_descendants(atspi_role::SECTION));
        assert!(hides_descendants(atspi_role::DOCUMENT_WEB));
        assert!(hides_descendants(atspi_role::PAGE_TAB));
        assert!(hides_descendants(atspi_role::MENU));
        // The walk skips places under these only.
        assert!(hides_when_not_drawn(atspi_role::MENU));
        assert!(hides_when_not_drawn(atspi_role::DOCUMENT_WEB));
        assert!(!hides_when_not_drawn(atspi_role::PANEL));
        assert!(!hides_when_not_drawn(atspi_role::LINK));
    }

    #[test]
    fn a_fields_placeholder_comes_from_gtk3s_or_the_browsers_attribute() {
        let attrs = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<std::collections::HashMap<_, _>>()
        };
        let gtk3 = attrs(&[("toolkit", "gtk"), ("placeholder-text", "Search files")]);
        assert_eq!(placeholder(&gtk3), Some("Search files"));
        assert_eq!(
            placeholder(&attrs(&[("placeholder", " Email ")])),
            Some("Email")
        );
        assert_eq!(placeholder(&attrs(&[("placeholder-text", "  ")])), None);
        assert_eq!(placeholder(&attrs(&[("toolkit", "GTK")])), None);
    }

    fn with(bits: &[u32]) -> AtspiStates {
        AtspiStates(bits.iter().fold(0u64, |acc, b| acc | (1 << b)))
    }

    #[test]
    fn state_words_combine() {
        let s = AtspiStates::from_words(&[
            1 << atspi_state::FOCUSED,
            1 << (atspi_state::READ_ONLY - 32),
        ]);
        assert!(s.has(atspi_state::FOCUSED));
        assert!(s.has(atspi_state::READ_ONLY));
        assert!(!s.has(atspi_state::CHECKED));
    }

    #[test]
    fn roles_map_by_toolkit_fixtures() {
        // gnome-calculator (GTK4) buttons, gtk3 entries, Firefox documents, Qt6 top-level filler.
        let sensitive = with(&[atspi_state::SENSITIVE]);
        assert_eq!(role(atspi_role::PUSH_BUTTON, sensitive), Role::Button);
        assert_eq!(role(atspi_role::ENTRY, sensitive), Role::TextInput);
        assert_eq!(
            role(
                atspi_role::TEXT,
                with(&[atspi_state::EDITABLE, atspi_state::MULTI_LINE])
            ),
            Role::TextArea
        );
        assert_eq!(
            role(atspi_role::TEXT, with(&[atspi_state::EDITABLE])),
            Role::TextInput
        );
        assert_eq!(role(atspi_role::TEXT, sensitive), Role::Label);
        assert_eq!(role(atspi_role::DOCUMENT_WEB, sensitive), Role::Document);
        assert_eq!(role(atspi_role::FILLER, sensitive), Role::Group);
        assert_eq!(role(atspi_role::FRAME, sensitive), Role::Window);
        assert_eq!(role(atspi_role::TABLE_CELL, sensitive), Role::Cell);
        assert_eq!(role(9999, sensitive), Role::Unknown);
    }

    #[test]
    fn gtk4_children_without_enabled_are_not_disabled() {
        let gtk4_button = with(&[
            atspi_state::VISIBLE,
            atspi_state::SENSITIVE,
            atspi_state::FOCUSABLE,
        ]);
        let s = states(gtk4_button, gtk4());
        assert!(!s.contains(State::Disabled));
        assert!(s.contains(State::Focusable));
        let greyed = with(&[atspi_state::VISIBLE]);
        assert!(states(greyed, gtk4()).contains(State::Disabled));
    }

    fn gtk4() -> Toolkit {
        Toolkit::from_name_and_version("GTK", "4.8.3")
    }

    #[test]
    fn regression_firefox_listed_the_page_of_a_background_tab() {
        // Firefox keeps every tab's document in the tree; only the active one is SHOWING.
        let firefox = Toolkit::from_name_and_version("Gecko", "115.0");
        let background = with(&[atspi_state::VISIBLE, atspi_state::ENABLED]);
        assert!(states(background, firefox).contains(State::Offscreen));
        let active = with(&[
            atspi_state::VISIBLE,
            atspi_state::SHOWING,
            atspi_state::ENABLED,
        ]);
        assert!(!states(active, firefox).contains(State::Offscreen));
        // GTK 4.8 marks only the window SHOWING: its children are drawn all the same.
        let gtk4_child = with(&[atspi_state::VISIBLE, atspi_state::SENSITIVE]);
        assert!(!states(gtk4_child, gtk4()).contains(State::Offscreen));
    }

    #[test]
    fn expandable_without_expanded_is_collapsed() {
        let s = states(
            with(&[atspi_state::EXPANDABLE, atspi_state::ENABLED]),
            gtk4(),
        );
        assert!(s.contains(State::Collapsed));
        let s = states(
            with(&[
                atspi_state::EXPANDABLE,
                atspi_state::EXPANDED,
                atspi_state::ENABLED,
            ]),
            gtk4(),
        );
        assert!(s.contains(State::Expanded) && !s.contains(State::Collapsed));
    }

    #[test]
    fn action_names_from_each_toolkit() {
        assert_eq!(action_kind("click"), Some(ActionKind::Invoke)); // GTK
        assert_eq!(action_kind("Press"), Some(ActionKind::Invoke)); // Qt
        assert_eq!(action_kind("press"), Some(ActionKind::Invoke)); // browsers
        assert_eq!(action_kind("activate"), Some(ActionKind::Invoke)); // GTK entries
        assert_eq!(action_kind("toggle"), Some(ActionKind::Toggle));
        assert_eq!(action_kind("SetFocus"), None);
        assert!(invoke_rank("click") < invoke_rank("activate"));
    }

    #[test]
    fn actions_follow_role_states_and_interfaces() {
        let all = InterfaceSet {
            action: true,
            editable_text: true,
            value: true,
        };
        let button = actions(
            Role::Button,
            with(&[atspi_state::FOCUSABLE]),
            InterfaceSet {
                action: true,
                ..Default::default()
            },
        );
        assert_eq!(button, vec![ActionKind::Invoke, ActionKind::Focus]);
        let check = actions(Role::CheckBox, AtspiStates::default(), all);
        assert_eq!(check, vec![ActionKind::Invoke, ActionKind::Toggle]);
        // Chromium fields: editable, but no EditableText interface: set_text is not offered.
        let field = actions(
            Role::TextInput,
            with(&[atspi_state::EDITABLE, atspi_state::FOCUSABLE]),
            InterfaceSet {
                action: true,
                ..Default::default()
            },
        );
        assert_eq!(field, vec![ActionKind::Invoke, ActionKind::Focus]);
        let gtk_entry = actions(Role::TextInput, with(&[atspi_state::EDITABLE]), all);
        assert!(gtk_entry.contains(&ActionKind::SetText));
        assert_eq!(
            actions(Role::Label, AtspiStates::default(), all),
            Vec::<ActionKind>::new()
        );
        let slider = actions(
            Role::Slider,
            AtspiStates::default(),
            InterfaceSet {
                value: true,
                ..Default::default()
            },
        );
        assert_eq!(slider, vec![ActionKind::SetValue]);
        let tab = actions(
            Role::Tab,
            with(&[atspi_state::SELECTABLE]),
            InterfaceSet {
                action: true,
                ..Default::default()
            },
        );
        assert_eq!(tab, vec![ActionKind::Invoke, ActionKind::Select]);
    }

    #[test]
    fn gtk4_class_names_are_not_labels() {
        assert_eq!(visible_name("GtkButton"), "");
        assert_eq!(visible_name("GtkSourceView"), "");
        assert_eq!(visible_name("Gtk"), "Gtk");
        assert_eq!(visible_name("Gtk settings"), "Gtk settings");
        assert_eq!(visible_name("7"), "7");
        // regression: gnome-text-editor's document was "EditorSourceView", its search field
        // "EditorSearchEntry"
        assert_eq!(visible_name("EditorSourceView"), "");
        assert_eq!(visible_name("AdwHeaderBar"), "");
        assert_eq!(visible_name("GitHub"), "GitHub");
        assert_eq!(visible_name("USB Drive"), "USB Drive");
        assert_eq!(visible_name("_Open"), "Open");
        assert_eq!(visible_name("Save _As"), "Save As");
        assert_eq!(visible_name("file_name.txt"), "file_name.txt");
    }

    #[test]
    fn gtk4_doubled_button_names_collapse() {
        assert_eq!(collapse_doubled_name("7 7"), "7");
        assert_eq!(collapse_doubled_name("× ×"), "×");
        assert_eq!(collapse_doubled_name("Save Save"), "Save");
        assert_eq!(collapse_doubled_name("7 8"), "7 8");
        assert_eq!(collapse_doubled_name("Delete"), "Delete");
        assert_eq!(collapse_doubled_name("a  a"), "a  a");
        // regression: gnome-text-editor's "_Replace Replace"
        assert_eq!(collapse_doubled_name("_Replace Replace"), "Replace");
        assert_eq!(
            collapse_doubled_name("Replace All Replace All"),
            "Replace All"
        );
    }
}

/// What the walk must know about an application's toolkit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Toolkit {
    /// Extents are relative to the window already (GTK 4), not to the screen.
    pub window_relative_extents: bool,
    /// `Properties.GetAll` is safe to call (Qt 5.15 and 6.4 crash on it).
    pub get_all_is_safe: bool,
    /// Buttons are named "label label" (GTK 4).
    pub doubles_button_names: bool,
    /// `Text.GetText(0, -1)` answers "" and the character count must be the end offset (GTK 4).
    pub text_needs_count: bool,
    /// `Cache.GetItems` answers with the current signature (GTK, Gecko, Chromium; not Qt).
    pub bulk_items: bool,
    /// Offers a direct socket (atk-bridge: GTK 3, Firefox, Chromium), worth using.
    pub peer_to_peer: bool,
    /// An element without `SHOWING` is not drawn (a closed menu's items, a background tab's
    /// page, rows scrolled out of view). GTK 4.8 sets `SHOWING` on the window only, so there its
    /// absence says nothing.
    pub reports_showing: bool,
    /// A combo box is named by its current choice, its own value (Qt: `currentText`); its
    /// closed list's selection is the popup view's, which an option's `Toggle` moves without
    /// changing the choice.
    pub combo_named_by_choice: bool,
}

impl Toolkit {
    /// From `Application.ToolkitName` and `Application.Version`.
    pub fn from_name_and_version(name: &str, version: &str) -> Toolkit {
        let gtk4 = name.eq_ignore_ascii_case("gtk") && version.starts_with('4');
        let qt = name.to_ascii_lowercase().starts_with("qt");
        Toolkit {
            window_relative_extents: gtk4,
            get_all_is_safe: !qt && !name.is_empty(),
            doubles_button_names: gtk4,
            text_needs_count: gtk4,
            bulk_items: !qt && !name.is_empty(),
            peer_to_peer: !qt && !gtk4 && !name.is_empty(),
            reports_showing: !gtk4,
            combo_named_by_choice: qt,
        }
    }
}

#[cfg(test)]
mod toolkit_tests {
    use super::Toolkit;

    #[test]
    fn toolkits_from_their_application_properties() {
        let gtk4 = Toolkit::from_name_and_version("GTK", "4.8.3");
        assert!(gtk4.window_relative_extents && gtk4.get_all_is_safe && gtk4.doubles_button_names);
        let gtk3 = Toolkit::from_name_and_version("GTK", "3.24.38");
        assert!(!gtk3.window_relative_extents && gtk3.get_all_is_safe);
        assert!(gtk3.reports_showing && !gtk4.reports_showing);
        let qt = Toolkit::from_name_and_version("Qt", "6.4.2");
        assert!(!qt.get_all_is_safe && !qt.window_relative_extents);
        assert!(
            !Toolkit::from_name_and_version("", "").get_all_is_safe,
            "unknown toolkits get single Gets"
        );
        assert!(Toolkit::from_name_and_version("Gecko", "153.8").get_all_is_safe);
        assert!(qt.combo_named_by_choice && !gtk3.combo_named_by_choice);
    }
}
