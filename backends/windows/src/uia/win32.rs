//! Plain Win32 around the UIA work: top-level windows, their geometry and DPI, the desktop
//! probe (locked / disconnected), and bringing a window to the front.

use std::ffi::c_void;
use std::sync::Once;
use std::time::{Duration, Instant};

use cu_core::model::backend::WindowChange;
use cu_core::model::geometry::Rect;
use cu_core::{Error, ErrorCode, Result};
use windows::core::{BOOL, PWSTR};
use windows::Win32::Foundation::WPARAM;
use windows::Win32::Foundation::{CloseHandle, HANDLE, HWND, LPARAM, RECT};
use windows::Win32::Graphics::Dwm::{
    DwmGetWindowAttribute, DWMWA_CLOAKED, DWMWA_EXTENDED_FRAME_BOUNDS,
};
use windows::Win32::System::RemoteDesktop::{
    ProcessIdToSessionId, WTSConnectState, WTSFreeMemory, WTSQuerySessionInformationW,
    WTS_CURRENT_SESSION,
};
use windows::Win32::System::StationsAndDesktops::{
    CloseDesktop, GetUserObjectInformationW, OpenInputDesktop, DESKTOP_CONTROL_FLAGS,
    DESKTOP_READOBJECTS, UOI_NAME,
};
use windows::Win32::System::Threading::{
    GetCurrentProcessId, GetCurrentThreadId, OpenProcess, QueryFullProcessImageNameW,
    PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
};
use windows::Win32::UI::HiDpi::{
    GetDpiForWindow, SetProcessDpiAwarenessContext, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
};
use windows::Win32::UI::Input::KeyboardAndMouse::SetFocus;
use windows::Win32::UI::WindowsAndMessaging::{
    BringWindowToTop, EnumWindows, GetClassNameW, GetForegroundWindow, GetWindow,
    GetWindowLongPtrW, GetWindowRect, GetWindowTextW, GetWindowThreadProcessId, IsIconic, IsWindow,
    IsWindowVisible, PostMessageW, SendMessageTimeoutW, SetForegroundWindow, SetWindowPos,
    ShowWindow, GWL_EXSTYLE, GW_OWNER, SMTO_ABORTIFHUNG, SWP_NOACTIVATE, SWP_NOZORDER, SW_MAXIMIZE,
    SW_MINIMIZE, SW_RESTORE, WM_CLOSE, WM_NULL, WS_EX_TOOLWINDOW,
};

use crate::listing::{self, TopLevel};
use crate::session::{self, DesktopProbe};

/// One application window as Win32 sees it.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub hwnd: isize,
    pub pid: u32,
    pub top: TopLevel,
    /// The visible frame in physical screen pixels (no drop shadow).
    pub frame: Rect,
    pub dpi: u32,
    pub minimized: bool,
    pub focused: bool,
}

pub(super) fn hwnd(value: isize) -> HWND {
    HWND(value as *mut c_void)
}

/// Readies this process for a GUI call: per-monitor DPI aware (once), so window rectangles,
/// UIA bounds and SendInput all speak physical pixels whichever call comes first; then
/// `GUI_UNAVAILABLE` with the fix when the workstation is locked or the session disconnected.
pub(super) fn ready() -> Result<()> {
    static DPI_AWARE: Once = Once::new();
    DPI_AWARE.call_once(|| {
        // SAFETY: a process-wide setting with no pointers; an error only means the manifest
        // already chose.
        let _ =
            unsafe { SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) };
    });
    check_desktop()
}

/// `GUI_UNAVAILABLE` with the fix when the workstation is locked or the session disconnected.
pub(super) fn check_desktop() -> Result<()> {
    match session::unavailable(&probe()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn probe() -> DesktopProbe {
    DesktopProbe {
        input_desktop: input_desktop_name(),
        connect_state: connect_state(),
    }
}

fn input_desktop_name() -> Option<String> {
    // SAFETY: plain handle calls; the handle is closed below on every path.
    let desk =
        unsafe { OpenInputDesktop(DESKTOP_CONTROL_FLAGS(0), false, DESKTOP_READOBJECTS) }.ok()?;
    let mut name = [0u16; 128];
    let mut needed = 0u32;
    // SAFETY: `name` is a writable buffer of the size passed; `desk` is a valid desktop handle.
    let got = unsafe {
        GetUserObjectInformationW(
            HANDLE(desk.0),
            UOI_NAME,
            Some(name.as_mut_ptr().cast()),
            (name.len() * 2) as u32,
            Some(&mut needed),
        )
    };
    // SAFETY: `desk` came from OpenInputDesktop and is closed once.
    let _ = unsafe { CloseDesktop(desk) };
    got.ok()?;
    Some(wide_to_string(&name))
}

fn connect_state() -> Option<i32> {
    let mut buffer = PWSTR::null();
    let mut bytes = 0u32;
    // SAFETY: out-pointers to locals; the buffer WTS allocates is freed with WTSFreeMemory.
    unsafe {
        WTSQuerySessionInformationW(
            None,
            WTS_CURRENT_SESSION,
            WTSConnectState,
            &mut buffer,
            &mut bytes,
        )
    }
    .ok()?;
    if buffer.is_null() {
        return None;
    }
    let state = (bytes as usize >= std::mem::size_of::<i32>())
        // SAFETY: WTS returned at least 4 bytes: a WTS_CONNECTSTATE_CLASS value.
        .then(|| unsafe { buffer.0.cast::<i32>().read_unaligned() });
    // SAFETY: `buffer` was allocated by WTSQuerySessionInformationW.
    unsafe { WTSFreeMemory(buffer.0.cast()) };
    state
}

/// This process's Terminal Services session id (stable across Remote Desktop reconnects).
pub(super) fn session_id() -> u32 {
    let mut id = 0u32;
    // SAFETY: `id` is a writable u32.
    let _ = unsafe { ProcessIdToSessionId(GetCurrentProcessId(), &mut id) };
    id
}

/// The foreground window's handle value (0 when none).
pub(super) fn foreground() -> isize {
    // SAFETY: no arguments.
    unsafe { GetForegroundWindow() }.0 as isize
}

/// The application windows, front to back (EnumWindows' Z order).
pub(super) fn app_windows() -> Result<Vec<Listed>> {
    unsafe extern "system" fn collect(window: HWND, lparam: LPARAM) -> BOOL {
        // SAFETY: `lparam` is the `&mut Vec<isize>` handed to EnumWindows below, alive for the
        // whole enumeration, and only this callback touches it.
        let list = unsafe { &mut *(lparam.0 as *mut Vec<isize>) };
        list.push(window.0 as isize);
        BOOL::from(true)
    }
    let mut handles: Vec<isize> = Vec::new();
    // SAFETY: the callback only pushes into `handles`, which outlives the call.
    unsafe {
        EnumWindows(
            Some(collect),
            LPARAM(&mut handles as *mut Vec<isize> as isize),
        )
    }
    .map_err(|e| {
        Error::new(
            ErrorCode::GuiUnavailable,
            format!("EnumWindows failed: {e}"),
        )
    })?;
    let foreground = foreground();
    Ok(handles
        .into_iter()
        .filter_map(|h| describe(h, foreground))
        .filter(|l| listing::is_app_window(&l.top))
        .collect())
}

/// What Win32 says about one window; `None` once it is gone.
pub(super) fn describe(value: isize, foreground: isize) -> Option<Listed> {
    let window = hwnd(value);
    // SAFETY: IsWindow accepts any value.
    if !unsafe { IsWindow(Some(window)) }.as_bool() {
        return None;
    }
    let mut pid = 0u32;
    // SAFETY: `pid` is a writable u32.
    unsafe { GetWindowThreadProcessId(window, Some(&mut pid)) };
    let mut cloaked = 0u32;
    // SAFETY: DWMWA_CLOAKED writes a DWORD into `cloaked`, whose size is passed.
    let cloaked = unsafe {
        DwmGetWindowAttribute(
            window,
            DWMWA_CLOAKED,
            (&mut cloaked as *mut u32).cast(),
            std::mem::size_of::<u32>() as u32,
        )
    }
    .is_ok()
        && cloaked != 0;
    // SAFETY: reads a window long of a valid window.
    let ex_style = unsafe { GetWindowLongPtrW(window, GWL_EXSTYLE) } as u32;
    // SAFETY: GetWindow on a valid window; an error means no owner.
    let owned = unsafe { GetWindow(window, GW_OWNER) }.is_ok_and(|o| !o.is_invalid());
    let top = TopLevel {
        // SAFETY: a valid window.
        visible: unsafe { IsWindowVisible(window) }.as_bool(),
        cloaked,
        tool_window: ex_style & WS_EX_TOOLWINDOW.0 != 0,
        owned,
        title: window_text(window),
        class: class_name(window),
        exe_path: exe_path(pid),
    };
    Some(Listed {
        hwnd: value,
        pid,
        top,
        frame: frame(window)?,
        dpi: dpi(window),
        // SAFETY: a valid window.
        minimized: unsafe { IsIconic(window) }.as_bool(),
        focused: value == foreground,
    })
}

/// The visible frame in physical pixels: DWM's extended frame bounds (without the invisible
/// resize border and shadow), else the window rectangle.
pub(super) fn frame(window: HWND) -> Option<Rect> {
    let mut r = RECT::default();
    // SAFETY: DWMWA_EXTENDED_FRAME_BOUNDS writes a RECT into `r`, whose size is passed.
    let dwm = unsafe {
        DwmGetWindowAttribute(
            window,
            DWMWA_EXTENDED_FRAME_BOUNDS,
            (&mut r as *mut RECT).cast(),
            std::mem::size_of::<RECT>() as u32,
        )
    };
    // SAFETY: `r` is a writable RECT.
    if dwm.is_err() && unsafe { GetWindowRect(window, &mut r) }.is_err() {
        return None;
    }
    Some(rect(&r))
}

/// The outer window rectangle in physical pixels (what PrintWindow draws).
pub(super) fn outer_rect(window: HWND) -> Option<Rect> {
    let mut r = RECT::default();
    // SAFETY: `r` is a writable RECT.
    unsafe { GetWindowRect(window, &mut r) }.ok()?;
    Some(rect(&r))
}

pub(super) fn rect(r: &RECT) -> Rect {
    Rect::new(r.left, r.top, r.right - r.left, r.bottom - r.top)
}

/// The window's DPI (96 when unknown).
pub(super) fn dpi(window: HWND) -> u32 {
    // SAFETY: a valid window; 0 means invalid.
    match unsafe { GetDpiForWindow(window) } {
        0 => 96,
        d => d,
    }
}

fn window_text(window: HWND) -> String {
    let mut buf = [0u16; 512];
    // SAFETY: `buf` is writable; the call writes at most its length.
    let n = unsafe { GetWindowTextW(window, &mut buf) };
    String::from_utf16_lossy(&buf[..n.max(0) as usize])
}

fn class_name(window: HWND) -> String {
    let mut buf = [0u16; 256];
    // SAFETY: `buf` is writable; the call writes at most its length.
    let n = unsafe { GetClassNameW(window, &mut buf) };
    String::from_utf16_lossy(&buf[..n.max(0) as usize])
}

fn exe_path(pid: u32) -> Option<String> {
    // SAFETY: opening with query-limited rights; the handle is closed below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) }.ok()?;
    let mut buf = [0u16; 1024];
    let mut len = buf.len() as u32;
    // SAFETY: `buf` holds `len` units; `len` is updated to the length written.
    let got = unsafe {
        QueryFullProcessImageNameW(
            process,
            PROCESS_NAME_WIN32,
            PWSTR(buf.as_mut_ptr()),
            &mut len,
        )
    };
    // SAFETY: `process` came from OpenProcess and is closed once.
    let _ = unsafe { CloseHandle(process) };
    got.ok()?;
    Some(String::from_utf16_lossy(&buf[..len as usize]))
}

fn wide_to_string(buf: &[u16]) -> String {
    let end = buf.iter().position(|c| *c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

/// Restores and brings `value` to the front, then checks it really is in front: Windows refuses
/// SetForegroundWindow to background processes, and input must never go to another window.
pub(super) fn activate(value: isize) -> Result<()> {
    let window = hwnd(value);
    // SAFETY: IsWindow accepts any value.
    if !unsafe { IsWindow(Some(window)) }.as_bool() {
        return Err(Error::new(
            ErrorCode::WindowNotFound,
            "the window has closed",
        ));
    }
    // SAFETY: plain window calls on a valid window. Attaching our input queue to the current
    // foreground thread's lets SetForegroundWindow succeed; it is detached right after.
    unsafe {
        if IsIconic(window).as_bool() {
            let _ = ShowWindow(window, SW_RESTORE);
        }
        let foreground = GetForegroundWindow();
        let theirs = GetWindowThreadProcessId(foreground, None);
        let ours = GetCurrentThreadId();
        let attached = theirs != 0
            && theirs != ours
            && windows::Win32::System::Threading::AttachThreadInput(ours, theirs, true).as_bool();
        let _ = BringWindowToTop(window);
        let _ = SetForegroundWindow(window);
        let _ = SetFocus(Some(window));
        if attached {
            let _ = windows::Win32::System::Threading::AttachThreadInput(ours, theirs, false);
        }
    }
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        // SAFETY: no arguments.
        let front = unsafe { GetForegroundWindow() };
        if front.0 as isize == value || is_owned_by(front, window) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::ActionFailed,
                "Windows did not bring the window to the front, so input was not sent (it would have gone to another window)",
            )
            .with_suggestion("Click the window once (or close what is in front of it), then retry; element actions work without focus."));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Moves, sizes, minimizes, maximizes, restores or closes `value` (focus is [`activate`]). The
/// listed bounds are the visible frame in logical pixels; the outer rectangle keeps DWM's
/// invisible borders around it ([`crate::dpi::outer_for`]).
pub(super) fn change(value: isize, change: &WindowChange) -> Result<()> {
    let window = hwnd(value);
    // SAFETY: IsWindow accepts any value.
    if !unsafe { IsWindow(Some(window)) }.as_bool() {
        return Err(Error::new(
            ErrorCode::WindowNotFound,
            "the window has closed",
        ));
    }
    let place = |target: Rect| -> Result<()> {
        let (Some(frame), Some(outer)) = (frame(window), outer_rect(window)) else {
            return Err(Error::new(
                ErrorCode::WindowNotFound,
                "the window has closed",
            ));
        };
        let to = crate::dpi::outer_for(target, frame, outer, dpi(window));
        // SAFETY: a valid window; no z-order change, no activation.
        unsafe {
            SetWindowPos(
                window,
                None,
                to.x,
                to.y,
                to.width,
                to.height,
                SWP_NOZORDER | SWP_NOACTIVATE,
            )
        }
        .map_err(|e| Error::new(ErrorCode::ActionFailed, format!("SetWindowPos: {e}")))
    };
    let listed = || frame(window).map(|f| crate::dpi::to_logical(f, dpi(window)));
    match change {
        WindowChange::Focus => activate(value),
        WindowChange::Move { to } => {
            let now = listed()
                .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has closed"))?;
            place(Rect::new(to.x, to.y, now.width, now.height))
        }
        WindowChange::Resize { size } => {
            let now = listed()
                .ok_or_else(|| Error::new(ErrorCode::WindowNotFound, "the window has closed"))?;
            place(Rect::new(now.x, now.y, size.width, size.height))
        }
        WindowChange::Minimize | WindowChange::Maximize | WindowChange::Restore => {
            let show = match change {
                WindowChange::Minimize => SW_MINIMIZE,
                WindowChange::Maximize => SW_MAXIMIZE,
                _ => SW_RESTORE,
            };
            // SAFETY: a valid window; the return value is the previous visibility, not an error.
            let _ = unsafe { ShowWindow(window, show) };
            Ok(())
        }
        WindowChange::Close => {
            // SAFETY: a valid window; WM_CLOSE asks, as the close button does.
            unsafe { PostMessageW(Some(window), WM_CLOSE, WPARAM(0), LPARAM(0)) }
                .map_err(|e| Error::new(ErrorCode::ActionFailed, format!("PostMessageW: {e}")))
        }
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            format!("{change:?} is not known to the Windows backend"),
        )),
    }
}

fn is_owned_by(candidate: HWND, owner: HWND) -> bool {
    let mut current = candidate;
    for _ in 0..8 {
        // SAFETY: GetWindow on any value fails cleanly.
        match unsafe { GetWindow(current, GW_OWNER) } {
            Ok(o) if !o.is_invalid() => {
                if o == owner {
                    return true;
                }
                current = o;
            }
            _ => return false,
        }
    }
    false
}

/// Whether the thread of `value` handled a `WM_NULL` within `within`: then it has handled what
/// was sent to it before (a click, a key) and raised the events that came of it. `false` for a
/// hung or closed window, or one that took longer.
pub(super) fn answers(value: isize, within: Duration) -> bool {
    let ms = u32::try_from(within.as_millis()).unwrap_or(u32::MAX);
    // SAFETY: `WM_NULL` carries no pointers; a window that has gone fails the call.
    let answered = unsafe {
        SendMessageTimeoutW(
            hwnd(value),
            WM_NULL,
            WPARAM(0),
            LPARAM(0),
            SMTO_ABORTIFHUNG,
            ms,
            None,
        )
    };
    answered.0 != 0
}
