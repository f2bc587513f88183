//! Which top-level windows are application windows, and what to call their app.
//!
//! `EnumWindows` returns every top-level window, most of them invisible helpers. An application
//! window is visible, not cloaked (`DWMWA_CLOAKED`: UWP windows of suspended apps and windows
//! on other virtual desktops), not a tool window, has no owner, and has a title. Packaged (UWP)
//! apps run inside `ApplicationFrameHost.exe`, whose name says nothing: their app is the window
//! title (localized: "Calculator", "מחשבון"), as the predecessor found.

/// What `EnumWindows` and friends say about one top-level window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopLevel {
    /// `IsWindowVisible`.
    pub visible: bool,
    /// `DwmGetWindowAttribute(DWMWA_CLOAKED)` is non-zero.
    pub cloaked: bool,
    /// `WS_EX_TOOLWINDOW` is set.
    pub tool_window: bool,
    /// `GetWindow(GW_OWNER)` is not null.
    pub owned: bool,
    /// `GetWindowTextW`.
    pub title: String,
    /// `GetClassNameW`.
    pub class: String,
    /// The owning process's image path (`QueryFullProcessImageNameW`), when readable.
    pub exe_path: Option<String>,
}

/// Window classes of the shell itself, never an application's window.
const SHELL_CLASSES: &[&str] = &[
    "Progman",
    "WorkerW",
    "Shell_TrayWnd",
    "Shell_SecondaryTrayWnd",
    "Windows.UI.Core.CoreWindow",
];

/// True for windows `gui_list` shows.
pub fn is_app_window(w: &TopLevel) -> bool {
    w.visible
        && !w.cloaked
        && !w.tool_window
        && !w.owned
        && !w.title.trim().is_empty()
        && !SHELL_CLASSES.contains(&w.class.as_str())
}

/// True when the window is a packaged app's frame, hosted by `ApplicationFrameHost.exe`.
pub fn is_hosted_uwp(w: &TopLevel) -> bool {
    w.class == "ApplicationFrameWindow"
        || exe_stem(w.exe_path.as_deref()).eq_ignore_ascii_case("ApplicationFrameHost")
}

/// The app name: the window title for a hosted UWP app, else the executable's file stem
/// (`C:\Windows\notepad.exe` → `notepad`), else the title.
pub fn app_name(w: &TopLevel) -> String {
    let stem = exe_stem(w.exe_path.as_deref());
    if is_hosted_uwp(w) || stem.is_empty() {
        w.title.trim().to_owned()
    } else {
        stem.to_owned()
    }
}

fn exe_stem(path: Option<&str>) -> &str {
    let Some(path) = path else { return "" };
    let file = path.rsplit(['\\', '/']).next().unwrap_or(path);
    match file.rfind('.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(title: &str, class: &str, exe: &str) -> TopLevel {
        TopLevel {
            visible: true,
            title: title.into(),
            class: class.into(),
            exe_path: Some(exe.into()),
            ..TopLevel::default()
        }
    }

    #[test]
    fn hosted_uwp_apps_are_named_by_their_localized_title() {
        let calc = window(
            "מחשבון",
            "ApplicationFrameWindow",
            r"C:\Windows\System32\ApplicationFrameHost.exe",
        );
        assert!(is_app_window(&calc) && is_hosted_uwp(&calc));
        assert_eq!(app_name(&calc), "מחשבון");
        let notepad = window("Untitled - Notepad", "Notepad", r"C:\Windows\notepad.exe");
        assert!(!is_hosted_uwp(&notepad));
        assert_eq!(app_name(&notepad), "notepad");
        let unreadable = TopLevel {
            exe_path: None,
            ..window("Task Manager", "TaskManagerWindow", "")
        };
        assert_eq!(app_name(&unreadable), "Task Manager");
    }

    #[test]
    fn helpers_cloaked_and_shell_windows_are_not_listed() {
        let base = window("Claude", "Chrome_WidgetWin_1", r"C:\x\claude.exe");
        assert!(is_app_window(&base));
        for hidden in [
            TopLevel {
                visible: false,
                ..base.clone()
            },
            TopLevel {
                cloaked: true,
                ..base.clone()
            },
            TopLevel {
                tool_window: true,
                ..base.clone()
            },
            TopLevel {
                owned: true,
                ..base.clone()
            },
            TopLevel {
                title: " ".into(),
                ..base.clone()
            },
            window("Program Manager", "Progman", r"C:\Windows\explorer.exe"),
        ] {
            assert!(!is_app_window(&hidden), "{hidden:?}");
        }
    }
}
