//! When the desktop cannot be driven: a locked workstation, a secure desktop (UAC, Ctrl+Alt+Del)
//! or a disconnected Remote Desktop session. UI Automation then returns nothing useful and
//! SendInput is silently dropped, so the backend checks first and answers `GUI_UNAVAILABLE` with
//! the fix, rather than hanging or acting on nothing.

use cu_core::{Error, ErrorCode};

/// `WTS_CONNECTSTATE_CLASS::WTSDisconnected` (`WtsApi32.h`).
pub const WTS_DISCONNECTED: i32 = 4;

/// What the checks found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesktopProbe {
    /// The input desktop's name (`OpenInputDesktop` + `GetUserObjectInformationW(UOI_NAME)`):
    /// `Default` normally, `Winlogon` when locked or at Ctrl+Alt+Del; `None` when it cannot be
    /// opened (which also happens while locked).
    pub input_desktop: Option<String>,
    /// This session's `WTSConnectState`, when known.
    pub connect_state: Option<i32>,
}

/// `None` when the desktop can be driven; else the `GUI_UNAVAILABLE` error that says why and
/// what to do.
pub fn unavailable(probe: &DesktopProbe) -> Option<Error> {
    if probe.connect_state == Some(WTS_DISCONNECTED) {
        return Some(
            Error::new(
                ErrorCode::GuiUnavailable,
                "the Remote Desktop session is disconnected: Windows stops rendering its desktop, so UI Automation and input do not work",
            )
            .with_suggestion("Reconnect to the session; to leave it running unattended, hand it to the console instead of disconnecting: run `tscon %SESSIONNAME% /dest:console` as administrator from inside the session."),
        );
    }
    match probe.input_desktop.as_deref() {
        Some(name) if name.eq_ignore_ascii_case("Default") => None,
        Some(name) => Some(
            Error::new(
                ErrorCode::GuiUnavailable,
                format!("the workstation is locked or shows a secure desktop ({name}): UI Automation and input cannot reach applications"),
            )
            .with_suggestion("Unlock the workstation (or answer the UAC prompt), then retry; on an unattended machine turn off the automatic lock (screen saver \"On resume, display logon screen\", Dynamic Lock)."),
        ),
        None => Some(
            Error::new(
                ErrorCode::GuiUnavailable,
                "the input desktop cannot be opened: the workstation is locked, or this process runs outside the interactive session (a service, or SSH)",
            )
            .with_suggestion("Unlock the workstation, and run mcp-computer-use inside the logged-in user's desktop session (not as a service or over SSH)."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(desktop: Option<&str>, state: Option<i32>) -> DesktopProbe {
        DesktopProbe {
            input_desktop: desktop.map(str::to_owned),
            connect_state: state,
        }
    }

    #[test]
    fn only_the_default_desktop_of_a_connected_session_is_usable() {
        assert!(unavailable(&probe(Some("Default"), Some(0))).is_none());
        assert!(unavailable(&probe(Some("default"), None)).is_none());
        let locked = unavailable(&probe(Some("Winlogon"), Some(0)));
        assert_eq!(
            locked.as_ref().map(|e| e.code),
            Some(ErrorCode::GuiUnavailable)
        );
        assert!(
            locked.is_some_and(|e| e.message.contains("locked") && e.suggestion.contains("Unlock"))
        );
        let gone = unavailable(&probe(Some("Default"), Some(WTS_DISCONNECTED)));
        assert!(gone.is_some_and(|e| e.suggestion.contains("tscon")));
        let service = unavailable(&probe(None, None));
        assert!(service.is_some_and(|e| e.suggestion.contains("not as a service")));
    }
}
