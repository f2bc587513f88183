//! Pointer and keyboard input with SendInput, at window-relative logical points.
//!
//! Points go window-relative logical → physical screen ([`crate::dpi::to_screen_physical`]) →
//! SendInput's normalized virtual-desktop coordinates ([`crate::dpi::to_sendinput`]); a point
//! outside the window's frame is refused before anything is sent.

use std::time::Duration;

use cu_core::model::backend::{InputEvent, MouseButton};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::keys::Key;
use cu_core::{Error, ErrorCode, Result};
use windows::Win32::UI::Input::KeyboardAndMouse::{
    SendInput, VkKeyScanW, INPUT, INPUT_0, INPUT_KEYBOARD, INPUT_MOUSE, KEYBDINPUT,
    KEYBD_EVENT_FLAGS, KEYEVENTF_EXTENDEDKEY, KEYEVENTF_KEYUP, KEYEVENTF_UNICODE,
    MOUSEEVENTF_ABSOLUTE, MOUSEEVENTF_HWHEEL, MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP,
    MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_MOVE, MOUSEEVENTF_RIGHTDOWN,
    MOUSEEVENTF_RIGHTUP, MOUSEEVENTF_VIRTUALDESK, MOUSEEVENTF_WHEEL, MOUSEEVENTF_XDOWN,
    MOUSEEVENTF_XUP, MOUSEINPUT, MOUSE_EVENT_FLAGS, VIRTUAL_KEY,
};
use windows::Win32::UI::WindowsAndMessaging::{
    GetSystemMetrics, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN, SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN,
};

use crate::dpi;
use crate::keys::{decode_vk_key_scan, stroke, text_strokes, KeyStroke, TextStroke};

/// Where a window is, for turning its points into screen points.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    /// The visible frame, physical pixels.
    pub frame: Rect,
    pub dpi: u32,
}

impl Placement {
    fn screen(&self, at: Point) -> Result<(i32, i32)> {
        let p = dpi::to_screen_physical(at, self.frame, self.dpi);
        if !self.frame.contains(p) {
            return Err(Error::new(
                ErrorCode::OutOfWindow,
                format!("({}, {}) lies outside the window", at.x, at.y),
            ));
        }
        dpi::to_sendinput(p, virtual_desktop()).ok_or_else(|| {
            Error::new(
                ErrorCode::OutOfWindow,
                "the point is off every monitor (the window is partly off-screen)",
            )
            .with_suggestion("Move the window onto the screen, or use element actions.")
        })
    }
}

fn virtual_desktop() -> Rect {
    // SAFETY: plain metric reads.
    unsafe {
        Rect::new(
            GetSystemMetrics(SM_XVIRTUALSCREEN),
            GetSystemMetrics(SM_YVIRTUALSCREEN),
            GetSystemMetrics(SM_CXVIRTUALSCREEN),
            GetSystemMetrics(SM_CYVIRTUALSCREEN),
        )
    }
}

/// Sends `event` to the window at `place` (already in front).
pub(super) fn send(place: Placement, event: &InputEvent) -> Result<()> {
    match event {
        InputEvent::Move { at } => {
            let (x, y) = place.screen(*at)?;
            emit(&[mouse(x, y, MOUSE_EVENT_FLAGS(0), 0)])
        }
        InputEvent::Click { at, button, count } => {
            let (x, y) = place.screen(*at)?;
            let (down, up, data) = button_flags(*button);
            let mut events = vec![mouse(x, y, MOUSE_EVENT_FLAGS(0), 0)];
            for _ in 0..(*count).max(1) {
                events.push(mouse(x, y, down, data));
                events.push(mouse(x, y, up, data));
            }
            emit(&events)
        }
        InputEvent::Button {
            at,
            button,
            pressed,
        } => {
            let (x, y) = place.screen(*at)?;
            let (down, up, data) = button_flags(*button);
            let flags = if *pressed { down } else { up };
            emit(&[
                mouse(x, y, MOUSE_EVENT_FLAGS(0), 0),
                mouse(x, y, flags, data),
            ])
        }
        InputEvent::Held { modifiers, event } => {
            let downs: Vec<INPUT> = modifiers
                .keys()
                .into_iter()
                .flat_map(|k| key_downs(Key::Named(k)))
                .collect();
            emit(&downs)?;
            let done = send(place, event);
            let ups: Vec<INPUT> = downs.iter().rev().map(released).collect();
            done.and(emit(&ups))
        }
        InputEvent::Drag { from, to, button } => {
            let (x0, y0) = place.screen(*from)?;
            let (x1, y1) = place.screen(*to)?;
            let (down, up, data) = button_flags(*button);
            emit(&[
                mouse(x0, y0, MOUSE_EVENT_FLAGS(0), 0),
                mouse(x0, y0, down, data),
            ])?;
            // Intermediate moves, so drag-and-drop targets see the pointer travel.
            for step in 1..=10 {
                let x = x0 + (x1 - x0) * step / 10;
                let y = y0 + (y1 - y0) * step / 10;
                emit(&[mouse(x, y, MOUSE_EVENT_FLAGS(0), 0)])?;
                std::thread::sleep(Duration::from_millis(15));
            }
            emit(&[mouse(x1, y1, up, data)])
        }
        InputEvent::Scroll { at, dx, dy } => {
            let (x, y) = place.screen(*at)?;
            let mut events = vec![mouse(x, y, MOUSE_EVENT_FLAGS(0), 0)];
            // WHEEL_DELTA = 120 per notch; a positive wheel value scrolls up, ours scrolls down.
            if *dy != 0 {
                events.push(mouse(x, y, MOUSEEVENTF_WHEEL, (-dy * 120) as u32));
            }
            if *dx != 0 {
                events.push(mouse(x, y, MOUSEEVENTF_HWHEEL, (dx * 120) as u32));
            }
            emit(&events)
        }
        InputEvent::Key { combo } => {
            if combo
                .keys()
                .iter()
                .any(|k| stroke(*k) == KeyStroke::Unavailable)
            {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{combo} has a key Windows has no virtual key for"),
                )
                .before_sending());
            }
            let mut downs = Vec::new();
            for &key in combo.keys() {
                downs.extend(key_downs(key));
            }
            let ups: Vec<INPUT> = downs.iter().rev().map(released).collect();
            downs.extend(ups);
            emit(&downs)
        }
        InputEvent::Text { text } => {
            let mut events = Vec::with_capacity(text.len() * 2);
            for s in text_strokes(text) {
                let down = match s {
                    TextStroke::Unit(unit) => keyboard(0, unit, KEYEVENTF_UNICODE),
                    TextStroke::Virtual(vk) => keyboard(vk, 0, KEYBD_EVENT_FLAGS(0)),
                };
                events.push(down);
                events.push(released(&down));
            }
            // In chunks, so a long text does not overflow the target's input queue.
            for chunk in events.chunks(64) {
                emit(chunk)?;
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(())
        }
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            "this input is not supported on Windows",
        )),
    }
}

/// Key-down events for one key of a combination (Shift around layout characters).
fn key_downs(key: Key) -> Vec<INPUT> {
    match stroke(key) {
        KeyStroke::Virtual { vk, extended } => {
            let flags = if extended {
                KEYEVENTF_EXTENDEDKEY
            } else {
                KEYBD_EVENT_FLAGS(0)
            };
            vec![keyboard(vk, 0, flags)]
        }
        KeyStroke::Unavailable => Vec::new(),
        KeyStroke::Char(c) => {
            let mut units = [0u16; 2];
            let encoded = c.encode_utf16(&mut units);
            // SAFETY: a pure layout lookup.
            let scan = (encoded.len() == 1).then(|| unsafe { VkKeyScanW(encoded[0]) });
            match scan.and_then(decode_vk_key_scan) {
                Some((vk, true)) => vec![
                    keyboard(0xA0, 0, KEYBD_EVENT_FLAGS(0)),
                    keyboard(vk, 0, KEYBD_EVENT_FLAGS(0)),
                ],
                Some((vk, false)) => vec![keyboard(vk, 0, KEYBD_EVENT_FLAGS(0))],
                None => encoded
                    .iter()
                    .map(|u| keyboard(0, *u, KEYEVENTF_UNICODE))
                    .collect(),
            }
        }
    }
}

/// A button's down and up flags, and the `mouseData` that names an X button.
fn button_flags(button: MouseButton) -> (MOUSE_EVENT_FLAGS, MOUSE_EVENT_FLAGS, u32) {
    // XBUTTON1 and XBUTTON2 (WinUser.h).
    const XBUTTON1: u32 = 1;
    const XBUTTON2: u32 = 2;
    match button {
        MouseButton::Left => (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP, 0),
        MouseButton::Middle => (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP, 0),
        MouseButton::Right => (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP, 0),
        MouseButton::Back => (MOUSEEVENTF_XDOWN, MOUSEEVENTF_XUP, XBUTTON1),
        MouseButton::Forward => (MOUSEEVENTF_XDOWN, MOUSEEVENTF_XUP, XBUTTON2),
    }
}

fn mouse(x: i32, y: i32, flags: MOUSE_EVENT_FLAGS, data: u32) -> INPUT {
    INPUT {
        r#type: INPUT_MOUSE,
        Anonymous: INPUT_0 {
            mi: MOUSEINPUT {
                dx: x,
                dy: y,
                mouseData: data,
                dwFlags: flags | MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

fn keyboard(vk: u16, scan: u16, flags: KEYBD_EVENT_FLAGS) -> INPUT {
    INPUT {
        r#type: INPUT_KEYBOARD,
        Anonymous: INPUT_0 {
            ki: KEYBDINPUT {
                wVk: VIRTUAL_KEY(vk),
                wScan: scan,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

/// The key-up twin of a key-down event.
fn released(down: &INPUT) -> INPUT {
    let mut up = *down;
    // SAFETY: every event this is called with was built by `keyboard`, so `ki` is the active
    // union field.
    unsafe { up.Anonymous.ki.dwFlags |= KEYEVENTF_KEYUP };
    up
}

fn emit(events: &[INPUT]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    // SAFETY: `events` is a slice of fully initialised INPUTs and the size is INPUT's.
    let sent = unsafe { SendInput(events, std::mem::size_of::<INPUT>() as i32) };
    if sent as usize == events.len() {
        return Ok(());
    }
    super::win32::check_desktop()?;
    Err(Error::new(
        ErrorCode::ActionFailed,
        format!("SendInput delivered {sent} of {} events", events.len()),
    )
    .with_suggestion("Windows blocks input into windows of elevated (administrator) apps from a normal process: run mcp-computer-use elevated too, or use element actions."))
}
