//! Top-level windows as a backend lists them.

use serde::{Deserialize, Serialize};

use crate::model::geometry::Rect;

/// A window id that stays the same for the window's whole life on one desktop instance.
///
/// The text is backend-defined (an X11 window number such as `x11:0x1c00007`, an AT-SPI path, a
/// UIA runtime id, a CGWindowID) and opaque to everything above the backend.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct WindowId(pub String);

impl WindowId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WindowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for WindowId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// One top-level window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WindowInfo {
    /// Stable id for the window's life.
    pub id: WindowId,
    /// Application name (as the accessibility API reports it).
    pub app: String,
    /// Window title.
    pub title: String,
    /// Owning process, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The window's rectangle in screen logical pixels. `None` where the platform has no global
    /// coordinates (Wayland): the size is then known from the snapshot's root, not from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// Has keyboard focus.
    #[serde(default, skip_serializing_if = "crate::model::element::is_false")]
    pub focused: bool,
    /// Minimized (iconified).
    #[serde(default, skip_serializing_if = "crate::model::element::is_false")]
    pub minimized: bool,
    /// The window exposes no accessibility tree (its app has none, or has not registered one):
    /// it is listed, captured and driven by coordinates, and the gate cannot see what a click
    /// there touches, so every press asks for confirmation.
    #[serde(default, skip_serializing_if = "crate::model::element::is_false")]
    pub no_tree: bool,
}
