//! What an AT-SPI change event says, for the effect watch: pure, cfg-free.
//!
//! An event is told by its D-Bus interface (`org.a11y.atspi.Event.Object`, `…Window`, …), its
//! member (`StateChanged`) and its first argument (`focused`). What a window observation shows
//! (names, values, states, text, children) is [`Seen::Content`]; where the focus went is
//! [`Seen::Focus`]; what no observation shows (geometry, the caret, text attributes, a button's
//! transient press) is nothing, so it cannot make a step look `changed`.

use cu_core::model::backend::Seen;

/// What the event `member` (with first argument `detail`) of the AT-SPI event interface
/// `interface` says about its element; `None` for what no observation shows, and for
/// interfaces that are not events.
pub fn seen(interface: &str, member: &str, detail: &str) -> Option<Seen> {
    let kind = interface.strip_prefix("org.a11y.atspi.Event.")?;
    match (kind, member) {
        ("Object", "StateChanged") => match detail {
            "focused" => Some(Seen::Focus),
            // Qt shows a pushed button pressed for 100 ms before it acts; the fingerprint of an
            // observation leaves that out too.
            "pressed" | "armed" => None,
            // An element being destroyed; its parent says so with `ChildrenChanged`.
            "defunct" => None,
            _ => Some(Seen::Content),
        },
        ("Object", "ActiveDescendantChanged") | ("Focus", _) => Some(Seen::Focus),
        (
            "Object",
            "BoundsChanged"
            | "TextCaretMoved"
            | "TextBoundsChanged"
            | "TextAttributesChanged"
            | "TextSelectionChanged"
            | "VisibleDataChanged"
            | "AttributesChanged"
            | "LinkSelected"
            | "Announcement",
        ) => None,
        ("Mouse" | "Keyboard", _) => None,
        // Names, values, children, text, selection, rows, the window's own activation, a
        // document's load: all shown. An event not known here counts as a change, so nothing
        // real is missed.
        _ => Some(Seen::Content),
    }
}

/// What an event from an element *outside* the watched window says: a window of the same
/// application created or activated ([`Seen::NewWindow`]), else that the app is at work
/// elsewhere ([`Seen::Elsewhere`]).
pub fn seen_elsewhere(interface: &str, member: &str) -> Seen {
    if may_be_new_window(interface, member) {
        Seen::NewWindow
    } else {
        Seen::Elsewhere
    }
}

/// Whether an event says [`Seen::NewWindow`] when its element is not in the watched window.
pub fn may_be_new_window(interface: &str, member: &str) -> bool {
    interface == "org.a11y.atspi.Event.Window" && matches!(member, "Create" | "Activate")
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBJECT: &str = "org.a11y.atspi.Event.Object";

    #[test]
    fn focus_content_and_what_no_observation_shows() {
        assert_eq!(seen(OBJECT, "StateChanged", "focused"), Some(Seen::Focus));
        assert_eq!(
            seen(OBJECT, "ActiveDescendantChanged", ""),
            Some(Seen::Focus)
        );
        assert_eq!(seen(OBJECT, "StateChanged", "checked"), Some(Seen::Content));
        assert_eq!(seen(OBJECT, "TextChanged", "insert"), Some(Seen::Content));
        assert_eq!(seen(OBJECT, "ChildrenChanged", "add"), Some(Seen::Content));
        assert_eq!(
            seen(OBJECT, "PropertyChange", "accessible-name"),
            Some(Seen::Content)
        );
        assert_eq!(
            seen("org.a11y.atspi.Event.Window", "Deactivate", ""),
            Some(Seen::Content)
        );
        assert_eq!(seen(OBJECT, "BoundsChanged", ""), None);
        assert_eq!(seen(OBJECT, "TextCaretMoved", ""), None);
        assert_eq!(seen(OBJECT, "StateChanged", "pressed"), None);
        assert_eq!(seen("org.freedesktop.DBus", "NameOwnerChanged", ""), None);
        let window = "org.a11y.atspi.Event.Window";
        assert_eq!(seen_elsewhere(window, "Create"), Seen::NewWindow);
        assert_eq!(seen_elsewhere(window, "Activate"), Seen::NewWindow);
        assert_eq!(seen_elsewhere(window, "Deactivate"), Seen::Elsewhere);
        assert_eq!(seen_elsewhere(OBJECT, "ChildrenChanged"), Seen::Elsewhere);
    }
}
