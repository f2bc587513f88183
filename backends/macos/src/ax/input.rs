//! Pointer and keyboard input as Quartz events (CGEvent), posted at the HID level.

use std::time::Duration;

use core_graphics::event::{
    CGEvent, CGEventFlags, CGEventTapLocation, CGEventType, CGMouseButton, EventField,
    ScrollEventUnit,
};
use core_graphics::event_source::{CGEventSource, CGEventSourceStateID};
use core_graphics::geometry::CGPoint;
use cu_core::model::backend::{InputEvent, MouseButton};
use cu_core::model::geometry::{Point, Rect};
use cu_core::model::keys::{Key, NamedKey};
use cu_core::{Error, ErrorCode, Result};

use crate::keys::{press, text_runs, KeyPress, FLAG_SHIFT};
use crate::points;

fn source() -> Result<CGEventSource> {
    CGEventSource::new(CGEventSourceStateID::HIDSystemState).map_err(|()| {
        Error::new(
            ErrorCode::GuiUnavailable,
            "cannot create a Quartz event source",
        )
    })
}

fn created(e: std::result::Result<CGEvent, ()>) -> Result<CGEvent> {
    e.map_err(|()| Error::new(ErrorCode::ActionFailed, "cannot create a Quartz event"))
}

/// Sends `event` to the window whose frame (global points) is `window`.
pub(super) fn send(window: Rect, event: &InputEvent) -> Result<()> {
    let global = |at: Point| -> Result<CGPoint> {
        let p = points::to_global(at, window);
        if !window.contains(p) {
            return Err(Error::new(
                ErrorCode::OutOfWindow,
                format!("({}, {}) lies outside the window", at.x, at.y),
            ));
        }
        Ok(CGPoint::new(f64::from(p.x), f64::from(p.y)))
    };
    match event {
        InputEvent::Move { at } => mouse(
            CGEventType::MouseMoved,
            global(*at)?,
            CGMouseButton::Left,
            1,
        ),
        InputEvent::Click { at, button, count } => {
            let p = global(*at)?;
            let (down, up, b) = buttons(*button);
            mouse(CGEventType::MouseMoved, p, CGMouseButton::Left, 1)?;
            for n in 1..=i64::from((*count).max(1)) {
                button_event(down, p, b, *button, n)?;
                button_event(up, p, b, *button, n)?;
            }
            Ok(())
        }
        InputEvent::Drag { from, to, button } => {
            let (a, b_) = (global(*from)?, global(*to)?);
            let (down, up, b) = buttons(*button);
            let dragged = match button {
                MouseButton::Left => CGEventType::LeftMouseDragged,
                MouseButton::Right => CGEventType::RightMouseDragged,
                MouseButton::Middle | MouseButton::Back | MouseButton::Forward => {
                    CGEventType::OtherMouseDragged
                }
            };
            button_event(down, a, b, *button, 1)?;
            for step in 1..=10 {
                let t = f64::from(step) / 10.0;
                let p = CGPoint::new(a.x + (b_.x - a.x) * t, a.y + (b_.y - a.y) * t);
                button_event(dragged, p, b, *button, 1)?;
                std::thread::sleep(Duration::from_millis(15));
            }
            button_event(up, b_, b, *button, 1)
        }
        InputEvent::Scroll { at, dx, dy } => {
            mouse(
                CGEventType::MouseMoved,
                global(*at)?,
                CGMouseButton::Left,
                1,
            )?;
            // Line units; a positive wheel value scrolls up (content down), ours scrolls down.
            let e = created(CGEvent::new_scroll_event(
                source()?,
                ScrollEventUnit::LINE,
                2,
                -dy,
                -dx,
                0,
            ))?;
            e.post(CGEventTapLocation::HID);
            Ok(())
        }
        InputEvent::Button {
            at,
            button,
            pressed,
        } => {
            let p = global(*at)?;
            let (down, up, b) = buttons(*button);
            mouse(CGEventType::MouseMoved, p, CGMouseButton::Left, 1)?;
            let kind = if *pressed { down } else { up };
            button_event(kind, p, b, *button, 1)
        }
        InputEvent::Held { modifiers, event } => {
            let presses: Vec<KeyPress> = modifiers
                .keys()
                .into_iter()
                .map(|k| press(Key::Named(k)))
                .collect();
            let mut flags = 0u64;
            for p in &presses {
                if let KeyPress::Code { flag, .. } = p {
                    flags |= flag;
                }
                key(p, true, flags)?;
            }
            let done = send(window, event);
            let mut released = Ok(());
            for p in presses.iter().rev() {
                released = released.and(key(p, false, 0));
            }
            done.and(released)
        }
        InputEvent::Key { combo } => {
            let presses: Vec<KeyPress> = combo.keys().iter().copied().map(press).collect();
            if presses.contains(&KeyPress::Text('\u{0}')) {
                return Err(Error::new(
                    ErrorCode::ActionNotSupported,
                    format!("{combo} has a key macOS sends no key code for"),
                )
                .before_sending());
            }
            let mut flags = 0u64;
            for p in &presses {
                if let KeyPress::Code { flag, .. } = p {
                    flags |= flag;
                }
            }
            for p in &presses {
                key(p, true, flags)?;
            }
            for p in presses.iter().rev() {
                key(p, false, flags)?;
            }
            Ok(())
        }
        InputEvent::Text { text } => {
            // Up to 20 UTF-16 units per event (the documented limit of
            // CGEventKeyboardSetUnicodeString); line breaks as Return.
            let enter = press(Key::Named(NamedKey::Return));
            for run in text_runs(text) {
                let Some(line) = run else {
                    key(&enter, true, 0)?;
                    key(&enter, false, 0)?;
                    continue;
                };
                let units: Vec<u16> = line.encode_utf16().collect();
                for chunk in units.chunks(20) {
                    for down in [true, false] {
                        let e = created(CGEvent::new_keyboard_event(source()?, 0, down))?;
                        e.set_string_from_utf16_unchecked(chunk);
                        e.post(CGEventTapLocation::HID);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            Ok(())
        }
        _ => Err(Error::new(
            ErrorCode::ActionNotSupported,
            "this input is not supported on macOS",
        )),
    }
}

fn buttons(button: MouseButton) -> (CGEventType, CGEventType, CGMouseButton) {
    match button {
        MouseButton::Left => (
            CGEventType::LeftMouseDown,
            CGEventType::LeftMouseUp,
            CGMouseButton::Left,
        ),
        MouseButton::Right => (
            CGEventType::RightMouseDown,
            CGEventType::RightMouseUp,
            CGMouseButton::Right,
        ),
        MouseButton::Middle | MouseButton::Back | MouseButton::Forward => (
            CGEventType::OtherMouseDown,
            CGEventType::OtherMouseUp,
            CGMouseButton::Center,
        ),
    }
}

/// A button event of `button`: the "other" buttons carry their number (2 middle, 3 back,
/// 4 forward), which `CGMouseButton` cannot name.
fn button_event(
    kind: CGEventType,
    at: CGPoint,
    cg: CGMouseButton,
    button: MouseButton,
    click_count: i64,
) -> Result<()> {
    let number = match button {
        MouseButton::Left => 0,
        MouseButton::Right => 1,
        MouseButton::Middle => 2,
        MouseButton::Back => 3,
        MouseButton::Forward => 4,
    };
    let e = created(CGEvent::new_mouse_event(source()?, kind, at, cg))?;
    e.set_integer_value_field(EventField::MOUSE_EVENT_CLICK_STATE, click_count);
    e.set_integer_value_field(EventField::MOUSE_EVENT_BUTTON_NUMBER, number);
    e.post(CGEventTapLocation::HID);
    Ok(())
}

fn mouse(kind: CGEventType, at: CGPoint, button: CGMouseButton, click_count: i64) -> Result<()> {
    let e = created(CGEvent::new_mouse_event(source()?, kind, at, button))?;
    e.set_integer_value_field(EventField::MOUSE_EVENT_CLICK_STATE, click_count);
    e.post(CGEventTapLocation::HID);
    Ok(())
}

fn key(p: &KeyPress, down: bool, held: u64) -> Result<()> {
    match *p {
        KeyPress::Code { code, shift, .. } => {
            let e = created(CGEvent::new_keyboard_event(source()?, code, down))?;
            let flags = held | if shift { FLAG_SHIFT } else { 0 };
            e.set_flags(CGEventFlags::from_bits_truncate(flags));
            e.post(CGEventTapLocation::HID);
        }
        KeyPress::Text('\u{0}') => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "macOS has no such key",
            ));
        }
        KeyPress::Text(c) => {
            let mut units = [0u16; 2];
            let e = created(CGEvent::new_keyboard_event(source()?, 0, down))?;
            e.set_string_from_utf16_unchecked(c.encode_utf16(&mut units));
            e.set_flags(CGEventFlags::from_bits_truncate(held));
            e.post(CGEventTapLocation::HID);
        }
    }
    Ok(())
}
