//! An observation's outline as it is kept, so a later observation of the same window can say
//! what changed ([`crate::model::changes`]): its lines by element, and the part of the window it
//! covered.

use serde::{Deserialize, Serialize};

use crate::model::element::{DesktopInstance, ElementIdentity};
use crate::model::window::WindowId;

/// One listed element of an observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewLine {
    /// Its short id (`e7`).
    pub id: String,
    /// What the backend resolves again.
    pub identity: ElementIdentity,
    /// What two views are compared by when it is not the identity (a sheet's cell by its
    /// name: [`crate::model::outline::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The key of the nearest listed element that holds it (`None`: at the top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Its outline line after the id.
    pub body: String,
}

/// An observation's outline, kept so a later one can say what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The observation's `state_id`.
    pub state_id: String,
    /// The observed window.
    pub window: WindowId,
    /// The desktop instance that observed it.
    pub desktop: DesktopInstance,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Every listed element, in outline order.
    pub lines: Vec<ViewLine>,
    /// What part of the window it covered: a later diff against it covers the same.
    #[serde(default)]
    pub scope: Scope,
}

/// What part of a window an observation listed, so a diff compares like with like (a diff
/// against a query's answer is a diff of that query).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// Only the elements matching this query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Only this element and what it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtree: Option<ElementIdentity>,
    /// Only the web page on screen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page: bool,
    /// Every element, not only interactive and text ones.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Rows of one table (not a base for a diff).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub table: bool,
}

impl ViewLine {
    /// What this line is compared by across observations.
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.identity.0)
    }
}
