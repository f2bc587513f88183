//! Chromium and Electron windows (Claude, Codex, VS Code, browsers) that expose almost no tree:
//! Chromium builds its web-content tree only when it believes assistive technology is present.
//! Such a window is detected here and the answer says so, with the fix for the platform.

use crate::model::element::Snapshot;

/// App names of Chromium-based programs, lower case.
const CHROMIUM_APPS: &[&str] = &[
    "claude",
    "chatgpt",
    "codex",
    "code",
    "code - oss",
    "code-oss",
    "codium",
    "vscodium",
    "cursor",
    "windsurf",
    "antigravity",
    "slack",
    "discord",
    "electron",
    "chromium",
    "chromium-browser",
    "chrome",
    "google chrome",
    "msedge",
    "microsoft edge",
    "brave",
    "obsidian",
    "teams",
];

/// At most this many elements with at most one line of text is "almost no tree".
const FEW_NODES: usize = 12;

/// How to turn Chromium's tree on, per platform.
pub const FIX_LINUX: &str = "This Chromium/Electron window exposes almost no accessibility tree. Restart the app with --force-renderer-accessibility (e.g. `code --force-renderer-accessibility`), or with ACCESSIBILITY_ENABLED=1 in its environment.";
/// macOS: the backend sets AXManualAccessibility / AXEnhancedUserInterface itself.
pub const FIX_MACOS: &str = "This Chromium/Electron window exposes almost no accessibility tree. mcp-computer-use sets AXManualAccessibility on it; if it stays empty, grant Accessibility permission and restart the app, or start it with --force-renderer-accessibility.";
/// Windows: the switch, or any running screen reader.
pub const FIX_WINDOWS: &str = "This Chromium/Electron window exposes almost no accessibility tree. Restart the app with --force-renderer-accessibility (add it to the shortcut's target), or start Narrator once so Chromium turns its tree on.";

/// The fix for this build's platform.
pub const fn fix_for_this_platform() -> &'static str {
    if cfg!(target_os = "macos") {
        FIX_MACOS
    } else if cfg!(target_os = "windows") {
        FIX_WINDOWS
    } else {
        FIX_LINUX
    }
}

/// The hint when `snapshot` is a Chromium-based window with (almost) nothing in it.
pub fn missing_tree_hint(snapshot: &Snapshot, text: &[String]) -> Option<&'static str> {
    let app = snapshot.window.app.to_lowercase();
    let chromium = CHROMIUM_APPS.contains(&app.trim_end_matches(".exe"))
        || snapshot
            .nodes
            .iter()
            .any(|n| n.toolkit_id.as_deref() == Some("RootWebArea"));
    (chromium && snapshot.nodes.len() <= FEW_NODES && text.len() <= 1).then(fix_for_this_platform)
}
