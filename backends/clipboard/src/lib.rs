//! The system clipboard's text for the desktop adapters of mcp-computer-use, through arboard:
//! on X11 the `CLIPBOARD` selection, which this process serves from arboard's own thread for as
//! long as it owns it (so the server keeps one clipboard for its life; a short-lived CLI
//! process loses what it wrote when it exits, unless a clipboard manager takes it over); on
//! Windows and macOS the system pasteboard. Wayland without XWayland has no clipboard here
//! (`NOT_SUPPORTED`). Blocking calls: the adapters run them off the async runtime.

use std::sync::Mutex;

use cu_core::{Error, ErrorCode, Result};

/// The one clipboard connection of the backend, opened on first use.
#[derive(Default)]
pub struct Clipboard {
    inner: Mutex<Option<arboard::Clipboard>>,
}

fn failed(e: arboard::Error) -> Error {
    match e {
        arboard::Error::ClipboardNotSupported => Error::new(
            ErrorCode::NotSupported,
            "this session has no clipboard the backend can reach",
        )
        .with_suggestion("Run under X11 or XWayland (DISPLAY set)."),
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
            *guard = Some(arboard::Clipboard::new().map_err(failed)?);
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
