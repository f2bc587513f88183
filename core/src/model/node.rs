//! The nodes of the element tree: one element's role, name, value, states, bounds and actions,
//! its identity another process can resolve again, and its place among its parent's children.

use serde::{Deserialize, Serialize};

use crate::model::geometry::Rect;
use crate::model::role::Role;

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// A backend-defined identity of an element that survives the process that observed it.
///
/// AT-SPI: `bus_name|object_path`; UIA: the runtime id; AX: an index path checked against role
/// and name. Opaque above the backend.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ElementIdentity(pub String);

/// Marks the desktop instance (display + accessibility bus + boot) that issued an observation,
/// so that a saved state from a restarted desktop or another machine is refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct DesktopInstance(pub String);

macro_rules! states {
    ($($(#[$doc:meta])* $name:ident = $bit:expr, $text:literal;)*) => {
        /// One element state, in the shared vocabulary.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum State {
            $($(#[$doc])* $name,)*
        }

        impl State {
            /// Every state, in display order.
            pub const ALL: &'static [State] = &[$(State::$name,)*];

            const fn bit(self) -> u32 {
                match self { $(State::$name => 1 << $bit,)* }
            }

            /// The snake_case name used in JSON and outlines.
            pub const fn as_str(self) -> &'static str {
                match self { $(State::$name => $text,)* }
            }

            /// Parses a name produced by [`State::as_str`].
            pub fn parse(text: &str) -> Option<State> {
                match text { $($text => Some(State::$name),)* _ => None }
            }
        }
    };
}

states! {
    /// Has keyboard focus.
    Focused = 0, "focused";
    /// Can take keyboard focus.
    Focusable = 1, "focusable";
    /// Cannot be used now (greyed out).
    Disabled = 2, "disabled";
    /// Checked (check box, radio, toggle).
    Checked = 3, "checked";
    /// Partially checked.
    Mixed = 4, "mixed";
    /// Pressed (toggle button).
    Pressed = 5, "pressed";
    /// Selected (list item, tab).
    Selected = 6, "selected";
    /// Expanded (tree item, combo box, menu).
    Expanded = 7, "expanded";
    /// Can expand but is collapsed.
    Collapsed = 8, "collapsed";
    /// Text can be edited.
    Editable = 9, "editable";
    /// Read-only text.
    ReadOnly = 10, "read_only";
    /// Multi-line text.
    MultiLine = 11, "multi_line";
    /// Not on screen (scrolled away or hidden).
    Offscreen = 12, "offscreen";
    /// Modal dialog.
    Modal = 13, "modal";
    /// Required form field.
    Required = 14, "required";
    /// Invalid input.
    Invalid = 15, "invalid";
    /// Busy (loading).
    Busy = 16, "busy";
    /// The default button of a dialog.
    Default = 17, "default";
    /// Has a popup (menu button, combo).
    HasPopup = 18, "has_popup";
    /// Visible in principle (may still be scrolled off).
    Visible = 19, "visible";
}

/// A set of [`State`]s; serialized as a list of names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct StateSet(u32);

impl StateSet {
    /// The empty set.
    pub const EMPTY: StateSet = StateSet(0);

    /// True when `state` is in the set.
    pub const fn contains(self, state: State) -> bool {
        self.0 & state.bit() != 0
    }

    /// Adds `state`.
    pub fn insert(&mut self, state: State) {
        self.0 |= state.bit();
    }

    /// Removes `state`.
    pub fn remove(&mut self, state: State) {
        self.0 &= !state.bit();
    }

    /// The set with `state` added.
    #[must_use]
    pub const fn with(self, state: State) -> StateSet {
        StateSet(self.0 | state.bit())
    }

    /// The set without `state`.
    #[must_use]
    pub const fn without(self, state: State) -> StateSet {
        StateSet(self.0 & !state.bit())
    }

    /// True when the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The states in display order.
    pub fn iter(self) -> impl Iterator<Item = State> {
        State::ALL
            .iter()
            .copied()
            .filter(move |s| self.contains(*s))
    }
}

impl FromIterator<State> for StateSet {
    fn from_iter<I: IntoIterator<Item = State>>(iter: I) -> Self {
        let mut set = StateSet::EMPTY;
        for s in iter {
            set.insert(s);
        }
        set
    }
}

impl Serialize for StateSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(State::as_str))
    }
}

impl<'de> Deserialize<'de> for StateSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(deserializer)?;
        names
            .iter()
            .map(|n| {
                State::parse(n)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown state {n}")))
            })
            .collect()
    }
}

/// What can be done to an element without synthesizing input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ActionKind {
    /// Press, click or activate.
    Invoke,
    /// Toggle a check box or toggle button.
    Toggle,
    /// Replace the text content.
    SetText,
    /// Set a numeric value.
    SetValue,
    /// Take keyboard focus.
    Focus,
    /// Select (list item, tab).
    Select,
    /// Expand or collapse.
    Expand,
    /// Scroll into view.
    ScrollIntoView,
}

/// One element of a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The role in the shared vocabulary.
    pub role: Role,
    /// The accessible name (label).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Value or text content, when the element has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Accessible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The toolkit's own id for the element (AT-SPI accessible id, UIA AutomationId).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolkit_id: Option<String>,
    /// States.
    #[serde(default, skip_serializing_if = "StateSet::is_empty")]
    pub states: StateSet,
    /// Bounds in window-relative logical pixels, when the element has a position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// Semantic actions the element offers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActionKind>,
    /// Identity the backend can resolve again.
    pub identity: ElementIdentity,
    /// Index of the parent in [`Snapshot::nodes`](crate::model::element::Snapshot::nodes); `None` for the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// Indexes of the children in [`Snapshot::nodes`](crate::model::element::Snapshot::nodes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<u32>,
    /// Children that exist but were not read (limits); see [`Snapshot::truncated`](crate::model::element::Snapshot::truncated).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted_children: u32,
    /// For a table too large to read whole (a spreadsheet): its size and the cells read, the
    /// ones on screen. Its children are those cells, row by row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridView>,
}

/// The part of a large table that is on screen, 0-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridView {
    /// Rows the table has.
    pub rows: u32,
    /// Columns the table has.
    pub columns: u32,
    /// First row on screen.
    pub first_row: u32,
    /// Last row read (on screen, or the last one the cell limit allowed).
    pub last_row: u32,
    /// First column on screen.
    pub first_column: u32,
    /// Last column on screen.
    pub last_column: u32,
}

impl GridView {
    /// The cells read.
    pub fn cells(&self) -> u64 {
        let rows = u64::from(self.last_row.saturating_sub(self.first_row)) + 1;
        let columns = u64::from(self.last_column.saturating_sub(self.first_column)) + 1;
        rows * columns
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Node {
    /// A node with only a role and an identity; the rest empty.
    pub fn new(role: Role, identity: ElementIdentity) -> Node {
        Node {
            role,
            name: String::new(),
            value: None,
            description: None,
            toolkit_id: None,
            states: StateSet::EMPTY,
            bounds: None,
            actions: Vec::new(),
            identity,
            parent: None,
            children: Vec::new(),
            omitted_children: 0,
            grid: None,
        }
    }
}
