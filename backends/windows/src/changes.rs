//! What a UI Automation event on the watched window says, for the effect watch: pure and
//! cfg-free, so every platform tests it (the `uia` glue maps the crate's event and property
//! enums onto these before anything is decided).
//!
//! As on Linux (`cu_backend_linux::events`): what a window observation shows (names, values,
//! states, text, children) is [`Seen::Content`]; where the keyboard focus went is
//! [`Seen::Focus`]; what no observation shows (an element's rectangle) is nothing, so it cannot
//! make a step look `changed`. A wait still wakes on it (its condition may be a place).

use cu_core::model::backend::Seen;

/// A UI Automation event received from the watched window's subtree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UiaChange {
    /// `StructureChanged`: a child added, removed, invalidated or reordered.
    Structure,
    /// `AutomationPropertyChanged` of one of the [`Property`] values the watch registers.
    Property(Property),
    /// `Text_TextChanged`.
    Text,
}

/// The properties the watch registers (whose change can satisfy a wait condition or show an
/// action's effect).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Property {
    /// `UIA_NamePropertyId`.
    Name,
    /// `UIA_ValueValuePropertyId`.
    Value,
    /// `UIA_IsEnabledPropertyId`.
    Enabled,
    /// `UIA_ToggleToggleStatePropertyId`.
    Toggle,
    /// `UIA_HasKeyboardFocusPropertyId` (sent by the element that lost focus and by the one
    /// that gained it).
    KeyboardFocus,
    /// `UIA_IsOffscreenPropertyId`.
    Offscreen,
    /// `UIA_ExpandCollapseExpandCollapseStatePropertyId`.
    ExpandCollapse,
    /// `UIA_SelectionItemIsSelectedPropertyId`.
    Selected,
    /// `UIA_BoundingRectanglePropertyId`.
    Bounds,
}

/// What `change` says about the watched window; `None` for what no observation shows.
pub fn seen(change: UiaChange) -> Option<Seen> {
    match change {
        UiaChange::Structure | UiaChange::Text => Some(Seen::Content),
        UiaChange::Property(Property::KeyboardFocus) => Some(Seen::Focus),
        // The outline gives no places by default, and the effect fingerprint leaves them out:
        // a moved element alone is no effect.
        UiaChange::Property(Property::Bounds) => None,
        UiaChange::Property(
            Property::Name
            | Property::Value
            | Property::Enabled
            | Property::Toggle
            | Property::Offscreen
            | Property::ExpandCollapse
            | Property::Selected,
        ) => Some(Seen::Content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_content_and_what_no_observation_shows() {
        assert_eq!(
            seen(UiaChange::Property(Property::KeyboardFocus)),
            Some(Seen::Focus)
        );
        assert_eq!(seen(UiaChange::Property(Property::Bounds)), None);
        for shown in [
            Property::Name,
            Property::Value,
            Property::Enabled,
            Property::Toggle,
            Property::Offscreen,
            Property::ExpandCollapse,
            Property::Selected,
        ] {
            assert_eq!(
                seen(UiaChange::Property(shown)),
                Some(Seen::Content),
                "{shown:?}"
            );
        }
        assert_eq!(seen(UiaChange::Structure), Some(Seen::Content));
        assert_eq!(seen(UiaChange::Text), Some(Seen::Content));
    }
}
