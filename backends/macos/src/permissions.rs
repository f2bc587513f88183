//! The two permissions macOS asks a person to grant, and the errors that say how.
//!
//! Accessibility (System Settings → Privacy & Security → Accessibility) lets a process read AX
//! trees and post events; Screen Recording lets it read other windows' pixels (and titles in the
//! window list). Both are granted to the program that runs us: the terminal or the agent's app,
//! not to `mcp-computer-use` alone, which surprises people, so the suggestion says it.

use cu_core::{Error, ErrorCode};

/// `AXIsProcessTrusted()` said no.
pub fn accessibility_denied(host: &str) -> Error {
    Error::new(
        ErrorCode::GuiUnavailable,
        "macOS has not granted Accessibility permission to this process, so windows cannot be read or operated",
    )
    .with_suggestion(format!(
        "Open System Settings → Privacy & Security → Accessibility, turn on {host} (the app that starts mcp-computer-use), then restart it."
    ))
}

/// `CGPreflightScreenCaptureAccess()` said no.
pub fn screen_recording_denied(host: &str) -> Error {
    Error::new(
        ErrorCode::ImageCaptureFailed,
        "macOS has not granted Screen Recording permission to this process, so window images would be blank",
    )
    .with_suggestion(format!(
        "Open System Settings → Privacy & Security → Screen Recording (Screen & System Audio Recording), turn on {host}, then restart it; element outlines work without it."
    ))
}

/// The app to name in the suggestion: the terminal or agent app we run under, from
/// `__CFBundleIdentifier` or `TERM_PROGRAM`, else a generic phrase.
pub fn host_app(bundle_id: Option<&str>, term_program: Option<&str>) -> String {
    let known = [
        ("com.apple.Terminal", "Terminal"),
        ("com.googlecode.iterm2", "iTerm"),
        ("com.microsoft.VSCode", "Visual Studio Code"),
        ("com.todesktop.230313mzl4w4u92", "Cursor"),
        ("com.anthropic.claudefordesktop", "Claude"),
        ("dev.warp.Warp-Stable", "Warp"),
    ];
    if let Some(name) = bundle_id.and_then(|b| known.iter().find(|(id, _)| *id == b)) {
        return name.1.to_owned();
    }
    match term_program {
        Some("Apple_Terminal") => "Terminal".to_owned(),
        Some("iTerm.app") => "iTerm".to_owned(),
        Some("vscode") => "Visual Studio Code (or Cursor)".to_owned(),
        Some(other) if !other.is_empty() => other.to_owned(),
        _ => "the terminal or app".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_name_the_host_app_and_the_settings_pane() {
        let host = host_app(Some("com.googlecode.iterm2"), Some("iTerm.app"));
        assert_eq!(host, "iTerm");
        let e = accessibility_denied(&host);
        assert_eq!(e.code, ErrorCode::GuiUnavailable);
        assert!(
            e.suggestion.contains("Privacy & Security → Accessibility")
                && e.suggestion.contains("iTerm")
        );
        let e = screen_recording_denied(&host_app(None, Some("Apple_Terminal")));
        assert!(e.suggestion.contains("Screen Recording") && e.suggestion.contains("Terminal"));
        assert_eq!(host_app(None, None), "the terminal or app");
    }
}
