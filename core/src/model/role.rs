//! One role vocabulary shared by every platform.
//!
//! Backends translate their native roles (AT-SPI roles, UIA control types, AX roles) into
//! [`Role`] in cfg-free modules that are unit-tested on Linux. Tools read only [`Role`].

use serde::{Deserialize, Serialize};

/// What an element is, in one vocabulary for all platforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// A top-level window or frame.
    Window,
    /// A dialog window.
    Dialog,
    /// An alert or message box.
    Alert,
    /// A push button.
    Button,
    /// A button that stays pressed or released.
    ToggleButton,
    /// A check box.
    CheckBox,
    /// A radio button.
    RadioButton,
    /// A switch (on/off toggle).
    Switch,
    /// A drop-down list or combo box.
    ComboBox,
    /// A single-line editable text field.
    TextInput,
    /// A password field.
    PasswordInput,
    /// A multi-line editable text area.
    TextArea,
    /// A numeric spin button.
    SpinButton,
    /// A slider.
    Slider,
    /// A scroll bar.
    ScrollBar,
    /// A progress bar or level indicator.
    ProgressBar,
    /// A hyperlink.
    Link,
    /// A menu bar.
    MenuBar,
    /// A menu (popup or submenu).
    Menu,
    /// A menu item.
    MenuItem,
    /// A checkable menu item.
    CheckMenuItem,
    /// A radio menu item.
    RadioMenuItem,
    /// A list box.
    List,
    /// An item of a list.
    ListItem,
    /// A tree view.
    Tree,
    /// An item of a tree.
    TreeItem,
    /// A table or grid.
    Table,
    /// A table row.
    Row,
    /// A table cell.
    Cell,
    /// A column header.
    ColumnHeader,
    /// A row header.
    RowHeader,
    /// A tab strip.
    TabList,
    /// One tab.
    Tab,
    /// The content panel of a tab.
    TabPanel,
    /// A toolbar.
    Toolbar,
    /// A status bar.
    StatusBar,
    /// Static text.
    Label,
    /// A heading.
    Heading,
    /// A paragraph of text.
    Paragraph,
    /// An image or icon.
    Image,
    /// A document (web page, editor document).
    Document,
    /// A form landmark.
    Form,
    /// A generic container (panel, filler, section, pane).
    Group,
    /// A scrollable container.
    ScrollPane,
    /// A separator.
    Separator,
    /// A tooltip.
    Tooltip,
    /// A custom-drawn canvas.
    Canvas,
    /// A terminal emulator.
    Terminal,
    /// The application object at the root of a process's tree.
    Application,
    /// Anything else.
    Unknown,
}

impl Role {
    /// Elements a user acts on directly: the default `gui_state` outline keeps these.
    pub const fn is_interactive(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::ToggleButton
                | Role::CheckBox
                | Role::RadioButton
                | Role::Switch
                | Role::ComboBox
                | Role::TextInput
                | Role::PasswordInput
                | Role::TextArea
                | Role::SpinButton
                | Role::Slider
                | Role::Link
                | Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::ListItem
                | Role::TreeItem
                | Role::Tab
                | Role::Cell
                | Role::Terminal
        )
    }

    /// Text-bearing elements that are not interactive but carry what a window shows.
    pub const fn is_text(self) -> bool {
        matches!(
            self,
            Role::Label | Role::Heading | Role::Paragraph | Role::StatusBar | Role::Alert
        )
    }

    /// Editable text roles.
    pub const fn is_editable_text(self) -> bool {
        matches!(
            self,
            Role::TextInput | Role::PasswordInput | Role::TextArea | Role::Terminal
        )
    }

    /// Pure structure: may be folded away when it has no name of its own.
    pub const fn is_container(self) -> bool {
        matches!(
            self,
            Role::Group
                | Role::ScrollPane
                | Role::Form
                | Role::Application
                | Role::Unknown
                | Role::Toolbar
                | Role::TabPanel
        )
    }

    /// The snake_case name used in JSON and outlines.
    pub fn as_str(self) -> &'static str {
        // serde's names are the single source of truth; this only avoids a JSON round trip.
        match self {
            Role::Window => "window",
            Role::Dialog => "dialog",
            Role::Alert => "alert",
            Role::Button => "button",
            Role::ToggleButton => "toggle_button",
            Role::CheckBox => "check_box",
            Role::RadioButton => "radio_button",
            Role::Switch => "switch",
            Role::ComboBox => "combo_box",
            Role::TextInput => "text_input",
            Role::PasswordInput => "password_input",
            Role::TextArea => "text_area",
            Role::SpinButton => "spin_button",
            Role::Slider => "slider",
            Role::ScrollBar => "scroll_bar",
            Role::ProgressBar => "progress_bar",
            Role::Link => "link",
            Role::MenuBar => "menu_bar",
            Role::Menu => "menu",
            Role::MenuItem => "menu_item",
            Role::CheckMenuItem => "check_menu_item",
            Role::RadioMenuItem => "radio_menu_item",
            Role::List => "list",
            Role::ListItem => "list_item",
            Role::Tree => "tree",
            Role::TreeItem => "tree_item",
            Role::Table => "table",
            Role::Row => "row",
            Role::Cell => "cell",
            Role::ColumnHeader => "column_header",
            Role::RowHeader => "row_header",
            Role::TabList => "tab_list",
            Role::Tab => "tab",
            Role::TabPanel => "tab_panel",
            Role::Toolbar => "toolbar",
            Role::StatusBar => "status_bar",
            Role::Label => "label",
            Role::Heading => "heading",
            Role::Paragraph => "paragraph",
            Role::Image => "image",
            Role::Document => "document",
            Role::Form => "form",
            Role::Group => "group",
            Role::ScrollPane => "scroll_pane",
            Role::Separator => "separator",
            Role::Tooltip => "tooltip",
            Role::Canvas => "canvas",
            Role::Terminal => "terminal",
            Role::Application => "application",
            Role::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_matches_serde_name() {
        for role in [
            Role::Window,
            Role::ToggleButton,
            Role::CheckMenuItem,
            Role::PasswordInput,
            Role::ColumnHeader,
            Role::Unknown,
        ] {
            let json = serde_json::to_string(&role).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", role.as_str()));
        }
    }
}
