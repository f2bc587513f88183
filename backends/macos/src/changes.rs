//! What an AX notification says about the watched window, for the effect watch: pure and
//! cfg-free, so every platform tests it, from the names Apple documents in
//! `AXNotificationConstants.h`.
//!
//! An `AXObserver` is registered on the application, so its notifications come from every window
//! of the app; the glue asks each element for its `AXWindow` where the verdict depends on it
//! ([`needs_place`]). As on Linux (`cu_backend_linux::events`): what a window observation shows is
//! [`Seen::Content`], where the keyboard focus went [`Seen::Focus`], a window created
//! [`Seen::NewWindow`], the app at work in another window [`Seen::Elsewhere`], and what no
//! observation shows (layout) nothing.

use cu_core::model::backend::Seen;

/// `kAXWindowCreatedNotification`.
pub const WINDOW_CREATED: &str = "AXWindowCreated";
/// `kAXFocusedUIElementChangedNotification`.
pub const FOCUS_CHANGED: &str = "AXFocusedUIElementChanged";
/// `kAXLayoutChangedNotification`.
pub const LAYOUT_CHANGED: &str = "AXLayoutChanged";
/// `kAXUIElementDestroyedNotification`.
pub const DESTROYED: &str = "AXUIElementDestroyed";

/// Where a notification's element is, as far as the glue could tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the watched window.
    InWindow,
    /// In another window of the application.
    Elsewhere,
    /// Not known (the element is gone, has no window, or did not answer): counted as the
    /// watched window's, so nothing real is missed.
    Unknown,
}

/// Whether the verdict on `notification` depends on where its element is (else the glue spares
/// the app a round trip).
pub fn needs_place(notification: &str) -> bool {
    !matches!(notification, WINDOW_CREATED | LAYOUT_CHANGED | DESTROYED)
}

/// What `notification` from an element at `place` says; `None` for what no observation shows.
pub fn seen(notification: &str, place: Place) -> Option<Seen> {
    match notification {
        WINDOW_CREATED => Some(Seen::NewWindow),
        // Sizes and positions: the outline gives no places by default and the effect
        // fingerprint leaves them out.
        LAYOUT_CHANGED => None,
        _ if place == Place::Elsewhere => Some(Seen::Elsewhere),
        FOCUS_CHANGED => Some(Seen::Focus),
        // Values, titles, elements created or destroyed, selections, menus, and any name not
        // known here: shown.
        _ => Some(Seen::Content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_content_new_windows_and_what_no_observation_shows() {
        assert_eq!(seen(FOCUS_CHANGED, Place::InWindow), Some(Seen::Focus));
        assert_eq!(seen(FOCUS_CHANGED, Place::Unknown), Some(Seen::Focus));
        assert_eq!(seen("AXValueChanged", Place::InWindow), Some(Seen::Content));
        assert_eq!(seen("AXTitleChanged", Place::Unknown), Some(Seen::Content));
        assert_eq!(seen(DESTROYED, Place::Unknown), Some(Seen::Content));
        assert_eq!(seen(WINDOW_CREATED, Place::Unknown), Some(Seen::NewWindow));
        assert_eq!(seen(LAYOUT_CHANGED, Place::InWindow), None);
        assert_eq!(seen("AXSomethingNew", Place::Unknown), Some(Seen::Content));
    }

    #[test]
    fn another_windows_changes_say_the_app_is_at_work_elsewhere() {
        for name in ["AXValueChanged", "AXCreated", FOCUS_CHANGED] {
            assert_eq!(
                seen(name, Place::Elsewhere),
                Some(Seen::Elsewhere),
                "{name}"
            );
        }
        assert_eq!(
            seen(WINDOW_CREATED, Place::Elsewhere),
            Some(Seen::NewWindow)
        );
    }

    #[test]
    fn only_verdicts_that_depend_on_the_place_ask_for_it() {
        assert!(needs_place("AXValueChanged"));
        assert!(needs_place(FOCUS_CHANGED));
        assert!(!needs_place(WINDOW_CREATED));
        assert!(!needs_place(LAYOUT_CHANGED));
        assert!(!needs_place(DESTROYED));
    }
}
