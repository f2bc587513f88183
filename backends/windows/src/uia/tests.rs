//! The Win32 glue against real windows these tests make. They run wherever the Windows target
//! runs: under Wine in CI (`scripts/wine-test.sh`) and on a Windows machine. UI Automation itself
//! is absent under Wine 8.0; one test pins down that this is reported, not hung on.

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use cu_core::ErrorCode;
use windows::core::{w, PCWSTR};
use windows::Win32::Foundation::{COLORREF, HWND, LPARAM, LRESULT, POINT, RECT, WPARAM};
use windows::Win32::Graphics::Gdi::ClientToScreen;
use windows::Win32::Graphics::Gdi::{CreateSolidBrush, DeleteObject, FillRect, HDC};
use windows::Win32::System::LibraryLoader::GetModuleHandleW;
use windows::Win32::UI::WindowsAndMessaging::{
    CreateWindowExW, DefWindowProcW, DestroyWindow, DispatchMessageW, GetForegroundWindow,
    GetWindowTextW, PeekMessageW, RegisterClassW, ShowWindow, TranslateMessage, MSG, PM_REMOVE,
    SW_MINIMIZE, WINDOW_EX_STYLE, WM_CHAR, WM_KEYDOWN, WM_LBUTTONDOWN, WM_PRINTCLIENT, WNDCLASSW,
    WS_OVERLAPPEDWINDOW, WS_VISIBLE,
};

use super::thread::ComThread;
use super::{capture, input, win32};
use crate::listing;
use cu_core::model::backend::{InputEvent, MouseButton};
use cu_core::model::geometry::Point;

const CLASS: PCWSTR = w!("cu-backend-windows-test");

/// The class background (COLORREF is 0x00BBGGRR): RGB (0xA0, 0x40, 0x20).
const BACKGROUND: COLORREF = COLORREF(0x0020_40A0);
/// A red block that windows titled "…painted…" draw into their client area.
const BLOCK: COLORREF = COLORREF(0x0000_00FF);

/// Held by every test that makes windows: they share one desktop, and a window made by one test
/// would take the foreground from another's input.
static DESKTOP: Mutex<()> = Mutex::new(());

fn desktop() -> std::sync::MutexGuard<'static, ()> {
    DESKTOP
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Messages windows titled "…input…" received: (message, wparam, screen point for clicks).
static SEEN: Mutex<Vec<(u32, usize, POINT)>> = Mutex::new(Vec::new());

fn title_has(h: HWND, word: &str) -> bool {
    let mut title = [0u16; 64];
    // SAFETY: `title` is writable; the call writes at most its length.
    let n = unsafe { GetWindowTextW(h, &mut title) };
    String::from_utf16_lossy(&title[..n.max(0) as usize]).contains(word)
}

/// Delivers this thread's queued messages for up to `wait`.
fn pump(wait: Duration) {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        let mut msg = MSG::default();
        // SAFETY: `msg` is a writable MSG; messages are translated and dispatched as usual.
        unsafe {
            while PeekMessageW(&mut msg, None, 0, 0, PM_REMOVE).as_bool() {
                let _ = TranslateMessage(&msg);
                DispatchMessageW(&msg);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

unsafe extern "system" fn window_proc(h: HWND, msg: u32, w: WPARAM, l: LPARAM) -> LRESULT {
    // The title is read only for these messages: reading it sends WM_GETTEXT to this procedure.
    if matches!(msg, WM_LBUTTONDOWN | WM_CHAR | WM_KEYDOWN) && title_has(h, "input") {
        let mut at = POINT {
            x: (l.0 & 0xFFFF) as i16 as i32,
            y: ((l.0 >> 16) & 0xFFFF) as i16 as i32,
        };
        if msg == WM_LBUTTONDOWN {
            // SAFETY: `at` is a writable POINT of this window's client area.
            let _ = unsafe { ClientToScreen(h, &mut at) };
        }
        if let Ok(mut seen) = SEEN.lock() {
            seen.push((msg, w.0, at));
        }
    }
    if msg == WM_PRINTCLIENT && title_has(h, "painted") {
        // SAFETY: WM_PRINTCLIENT's wparam is the device context to draw into, valid for the
        // message; the brush is deleted after use.
        unsafe {
            let dc = HDC(w.0 as *mut std::ffi::c_void);
            let brush = CreateSolidBrush(BLOCK);
            FillRect(
                dc,
                &RECT {
                    left: 0,
                    top: 0,
                    right: 120,
                    bottom: 60,
                },
                brush,
            );
            let _ = DeleteObject(brush.into());
        }
    }
    // SAFETY: forwards the message it was given, unchanged.
    unsafe { DefWindowProcW(h, msg, w, l) }
}

/// A visible top-level window painted one colour, destroyed on drop. Made on the test's own
/// thread, which is also the thread that captures it (PrintWindow then calls straight in).
struct TestWindow(isize);

impl TestWindow {
    fn new(title: &str) -> TestWindow {
        static REGISTER: Once = Once::new();
        REGISTER.call_once(|| {
            // SAFETY: registers a class whose strings are 'static and whose procedure only
            // forwards to DefWindowProcW.
            unsafe {
                let instance = GetModuleHandleW(None).unwrap_or_default();
                let class = WNDCLASSW {
                    lpfnWndProc: Some(window_proc),
                    hInstance: instance.into(),
                    hbrBackground: CreateSolidBrush(BACKGROUND),
                    lpszClassName: CLASS,
                    ..WNDCLASSW::default()
                };
                RegisterClassW(&class);
            }
        });
        let title: Vec<u16> = title.encode_utf16().chain([0]).collect();
        // SAFETY: the class is registered above; `title` outlives the call.
        let window = unsafe {
            CreateWindowExW(
                WINDOW_EX_STYLE(0),
                CLASS,
                PCWSTR(title.as_ptr()),
                WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                60,
                60,
                320,
                200,
                None,
                None,
                None,
                None,
            )
        }
        .expect("CreateWindowExW");
        TestWindow(window.0 as isize)
    }
}

impl Drop for TestWindow {
    fn drop(&mut self) {
        // SAFETY: destroys the window this value made, on the thread that made it.
        let _ = unsafe { DestroyWindow(win32::hwnd(self.0)) };
    }
}

#[test]
fn our_window_is_listed_with_its_title_pid_process_and_frame() {
    let _desktop = desktop();
    let title = "cu test — listed ש";
    let window = TestWindow::new(title);
    let listed = win32::app_windows().unwrap();
    let ours = listed
        .iter()
        .find(|l| l.hwnd == window.0)
        .unwrap_or_else(|| panic!("not listed among {} windows", listed.len()));
    assert_eq!(ours.top.title, title);
    assert_eq!(ours.pid, std::process::id());
    assert!(
        listing::app_name(&ours.top).starts_with("cu_backend_windows"),
        "{:?}",
        ours.top.exe_path
    );
    assert!(!ours.minimized);
    assert!(
        ours.frame.width >= 300 && ours.frame.height >= 180,
        "{:?}",
        ours.frame
    );
    assert!(ours.dpi >= 96);
}

#[test]
fn a_window_painted_one_colour_is_a_blank_capture_not_an_image() {
    let _desktop = desktop();
    let window = TestWindow::new("cu test — blank");
    let err = capture::capture(window.0).err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::ImageCaptureBlank));
}

#[test]
fn a_drawn_window_captures_in_rgba_at_its_frame_size() {
    let _desktop = desktop();
    let window = TestWindow::new("cu test — painted");
    let image = capture::capture(window.0).unwrap();
    let frame = win32::describe(window.0, 0)
        .unwrap_or_else(|| panic!("exists"))
        .frame;
    assert_eq!(
        (image.width as i32, image.height as i32),
        (frame.width, frame.height)
    );
    let has = |rgb: [u8; 3]| {
        image
            .rgba
            .chunks_exact(4)
            .any(|p| p[..3] == rgb && p[3] == 255)
    };
    assert!(has([0xFF, 0, 0]), "the red block, in RGBA order");
    assert!(
        has([0xA0, 0x40, 0x20]),
        "the class background, in RGBA order"
    );
}

#[test]
fn a_minimized_window_gives_image_window_minimized() {
    let _desktop = desktop();
    let window = TestWindow::new("cu test — minimized");
    // SAFETY: a window this test made.
    let _ = unsafe { ShowWindow(win32::hwnd(window.0), SW_MINIMIZE) };
    let err = capture::capture(window.0).err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::ImageWindowMinimized));
    let listed = win32::describe(window.0, 0).unwrap_or_else(|| panic!("still exists"));
    assert!(listed.minimized);
}

#[test]
fn a_destroyed_window_is_gone_for_every_call() {
    let _desktop = desktop();
    let stale = TestWindow::new("cu test — closed").0;
    // Dropping destroys it.
    assert!(win32::describe(stale, 0).is_none());
    assert_eq!(
        win32::activate(stale).err().map(|e| e.code),
        Some(ErrorCode::WindowNotFound)
    );
    let listed = win32::app_windows().unwrap();
    assert!(listed.iter().all(|l| l.hwnd != stale));
}

#[test]
fn the_test_session_desktop_can_be_driven() {
    // A logged-in desktop (or Wine's): the probe must not call it locked or disconnected.
    win32::check_desktop().unwrap_or_else(|e| panic!("{}: {}", e.message, e.suggestion));
}

#[test]
fn a_missing_ui_automation_is_reported_promptly_not_hung_on() {
    let started = Instant::now();
    match ComThread::start() {
        // A real Windows machine has UI Automation.
        Ok(_) => {}
        // Wine 8.0 has no CUIAutomation class (REGDB_E_CLASSNOTREG).
        Err(e) => {
            assert_eq!(e.code, ErrorCode::GuiUnavailable, "{}", e.message);
            assert!(e.message.contains("UI Automation"), "{}", e.message);
        }
    }
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn activation_then_sendinput_lands_at_the_window_relative_point_and_types_unicode() {
    let _desktop = desktop();
    let window = TestWindow::new("cu test — input");
    pump(Duration::from_millis(200));
    win32::activate(window.0).unwrap();
    // SAFETY: no arguments.
    assert_eq!(unsafe { GetForegroundWindow() }.0 as isize, window.0);
    let listed = win32::describe(window.0, 0).unwrap_or_else(|| panic!("exists"));
    let place = input::Placement {
        frame: listed.frame,
        dpi: listed.dpi,
    };
    if let Ok(mut seen) = SEEN.lock() {
        seen.clear();
    }
    let at = Point::new(150, 120);
    let click = InputEvent::Click {
        at,
        button: MouseButton::Left,
        count: 1,
    };
    input::send(place, &click).unwrap();
    let text = InputEvent::Text {
        text: "hé ש".into(),
    };
    input::send(place, &text).unwrap();
    let key = InputEvent::Key {
        combo: "Delete".parse().unwrap(),
    };
    input::send(place, &key).unwrap();
    pump(Duration::from_millis(500));
    let seen = SEEN.lock().map(|s| s.clone()).unwrap_or_default();
    let clicks: Vec<POINT> = seen
        .iter()
        .filter(|(m, _, _)| *m == WM_LBUTTONDOWN)
        .map(|(_, _, p)| *p)
        .collect();
    let expected = crate::dpi::to_screen_physical(at, listed.frame, listed.dpi);
    assert_eq!(clicks.len(), 1, "{seen:?}");
    assert!(
        (clicks[0].x - expected.x).abs() <= 1 && (clicks[0].y - expected.y).abs() <= 1,
        "clicked {:?}, expected {expected:?}",
        clicks[0]
    );
    let typed: String = seen
        .iter()
        .filter(|(m, _, _)| *m == WM_CHAR)
        .filter_map(|(_, c, _)| char::from_u32(*c as u32))
        .collect();
    assert_eq!(typed, "hé ש");
    assert!(
        seen.iter()
            .any(|(m, vk, _)| *m == WM_KEYDOWN && *vk == 0x2E),
        "VK_DELETE pressed: {seen:?}"
    );
}

#[test]
fn a_hung_job_times_out_and_a_panicking_one_leaves_the_thread_serving() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let thread = ComThread::<()>::start_with(|| Ok(())).unwrap();
    runtime.block_on(async {
        let started = Instant::now();
        let hung = thread
            .run(Duration::from_millis(100), |()| {
                std::thread::sleep(Duration::from_millis(1500));
                Ok(())
            })
            .await;
        assert_eq!(hung.err().map(|e| e.code), Some(ErrorCode::Timeout));
        assert!(started.elapsed() < Duration::from_millis(1000));
        let panicked = thread
            .run(Duration::from_secs(5), |()| -> cu_core::Result<()> {
                panic!("a bug")
            })
            .await;
        assert_eq!(panicked.err().map(|e| e.code), Some(ErrorCode::Internal));
        let answer = thread.run(Duration::from_secs(5), |()| Ok(42)).await;
        assert_eq!(answer.ok(), Some(42));
    });
}
