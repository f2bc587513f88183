//! The system clipboard's text for the desktop adapters of mcp-computer-use, through arboard:
//! - X11 (and XWayland): the `CLIPBOARD` selection, which this process serves from arboard's own
//!   thread for as long as it owns it (so the server keeps one clipboard for its life; a
//!   short-lived CLI process loses what it wrote when it exits, unless a clipboard manager takes
//!   it over);
//! - Wayland: the data-control protocol (`ext-data-control-v1` or `wlr-data-control`, offered by
//!   wlroots compositors such as sway, by KWin and others), served from a thread in the same way.
//!   A compositor that offers neither and has no XWayland (GNOME's mutter up to 46) keeps its
//!   clipboard from other programs: `NOT_SUPPORTED`, saying so;
//! - Windows and macOS: the system pasteboard.
//!
//! Blocking calls: the adapters run them off the async runtime.

use std::sync::Mutex;

use cu_core::{Error, ErrorCode, Result};

/// The one clipboard connection of the backend, opened on first use.
#[derive(Default)]
pub struct Clipboard {
    inner: Mutex<Option<arboard::Clipboard>>,
}

/// Which display servers this process can reach, from its environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Session {
    /// `DISPLAY` is set (X11, or XWayland beside Wayland).
    X11,
    /// Only `WAYLAND_DISPLAY`: the compositor's data-control protocol is the only way in.
    WaylandOnly,
    /// Neither.
    Headless,
}

impl Session {
    fn current() -> Session {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        match (set("DISPLAY"), set("WAYLAND_DISPLAY")) {
            (true, _) => Session::X11,
            (false, true) => Session::WaylandOnly,
            (false, false) => Session::Headless,
        }
    }
}

/// Why the clipboard could not be opened, as the wire sees it.
fn open_failed(e: &arboard::Error, session: Session) -> Error {
    match (e, session) {
        (_, Session::WaylandOnly) => Error::new(
            ErrorCode::NotSupported,
            "this Wayland compositor lets no other program use its clipboard: it offers neither \
             ext-data-control nor wlr-data-control, and there is no XWayland",
        )
        .with_suggestion(
            "Type the text instead, or use a compositor with data-control (sway, KWin, Hyprland) \
             or a session with XWayland (DISPLAY set).",
        )
        .with_details(serde_json::json!({ "reason": "no_data_control" })),
        (arboard::Error::ClipboardNotSupported, _) | (_, Session::Headless) => Error::new(
            ErrorCode::NotSupported,
            "this session has no clipboard the backend can reach",
        )
        .with_suggestion("Run inside a desktop session (DISPLAY or WAYLAND_DISPLAY set)."),
        (other, Session::X11) => Error::new(
            ErrorCode::ActionFailed,
            format!("cannot open the clipboard: {other}"),
        ),
    }
}

fn failed(e: arboard::Error) -> Error {
    match e {
        arboard::Error::ClipboardNotSupported => Error::new(
            ErrorCode::NotSupported,
            "this session's clipboard does not support that",
        ),
        other => Error::new(ErrorCode::ActionFailed, format!("clipboard: {other}")),
    }
}

impl Clipboard {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut arboard::Clipboard) -> std::result::Result<T, arboard::Error>,
    ) -> Result<T> {
        let mut guard = match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if guard.is_none() {
            *guard =
                Some(arboard::Clipboard::new().map_err(|e| open_failed(&e, Session::current()))?);
        }
        match guard.as_mut() {
            Some(clipboard) => f(clipboard).map_err(failed),
            None => Err(Error::new(ErrorCode::Internal, "clipboard not opened")),
        }
    }

    /// The clipboard's text; empty when it holds none (or no text).
    pub fn read(&self) -> Result<String> {
        self.with(|c| match c.get_text() {
            Err(arboard::Error::ContentNotAvailable) => Ok(String::new()),
            other => other,
        })
    }

    /// Puts `text` on the clipboard.
    pub fn write(&self, text: &str) -> Result<()> {
        self.with(|c| c.set_text(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wayland_session_without_data_control_says_why() {
        let e = open_failed(
            &arboard::Error::Unknown {
                description: "no protocol".into(),
            },
            Session::WaylandOnly,
        );
        assert_eq!(e.code, ErrorCode::NotSupported);
        assert_eq!(e.details.unwrap()["reason"], "no_data_control");
        assert!(!e.suggestion.is_empty());
    }

    #[test]
    fn no_display_at_all_is_not_supported_and_an_x11_failure_is_a_failed_action() {
        let unknown = || arboard::Error::Unknown {
            description: "x".into(),
        };
        assert_eq!(
            open_failed(&unknown(), Session::Headless).code,
            ErrorCode::NotSupported
        );
        assert_eq!(
            open_failed(&unknown(), Session::X11).code,
            ErrorCode::ActionFailed
        );
    }
}
