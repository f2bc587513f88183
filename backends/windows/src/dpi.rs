//! Pixels on Windows: UI Automation and window rectangles are in physical pixels for a
//! per-monitor-DPI-aware process; our coordinates are window-relative logical pixels (96 DPI
//! = scale 1.0); SendInput's absolute coordinates are normalized to 0..=65535 over the virtual
//! desktop.

use cu_core::model::geometry::{Point, Rect};

/// The scale of a monitor at `dpi` (96 = 1.0, 144 = 1.5).
pub fn scale(dpi: u32) -> f64 {
    f64::from(dpi.max(1)) / 96.0
}

/// A physical rectangle in logical pixels, in place (a window's screen bounds).
pub fn to_logical(rect: Rect, dpi: u32) -> Rect {
    let s = scale(dpi);
    let f = |v: i32| (f64::from(v) / s).round() as i32;
    Rect::new(f(rect.x), f(rect.y), f(rect.width), f(rect.height))
}

/// A physical screen rectangle as window-relative logical pixels of the window at
/// `window_physical`.
pub fn to_window_logical(rect: Rect, window_physical: Rect, dpi: u32) -> Rect {
    let s = scale(dpi);
    let f = |v: i32| (f64::from(v) / s).round() as i32;
    Rect::new(
        f(rect.x.saturating_sub(window_physical.x)),
        f(rect.y.saturating_sub(window_physical.y)),
        f(rect.width),
        f(rect.height),
    )
}

/// A window-relative logical point as a physical screen point.
pub fn to_screen_physical(p: Point, window_physical: Rect, dpi: u32) -> Point {
    let s = scale(dpi);
    Point::new(
        window_physical
            .x
            .saturating_add((f64::from(p.x) * s).round() as i32),
        window_physical
            .y
            .saturating_add((f64::from(p.y) * s).round() as i32),
    )
}

/// Where `SetWindowPos` must put the outer rectangle (physical) so that the window's listed
/// bounds (its visible frame, logical) become `target`: DWM's invisible resize borders, the
/// difference between `outer_physical` and `frame_physical`, are kept around it.
pub fn outer_for(target: Rect, frame_physical: Rect, outer_physical: Rect, dpi: u32) -> Rect {
    let s = scale(dpi);
    let f = |v: i32| (f64::from(v) * s).round() as i32;
    let left = frame_physical.x - outer_physical.x;
    let top = frame_physical.y - outer_physical.y;
    let right =
        (outer_physical.x + outer_physical.width) - (frame_physical.x + frame_physical.width);
    let bottom =
        (outer_physical.y + outer_physical.height) - (frame_physical.y + frame_physical.height);
    Rect::new(
        f(target.x) - left,
        f(target.y) - top,
        f(target.width) + left + right,
        f(target.height) + top + bottom,
    )
}

/// A physical screen point as SendInput's normalized absolute coordinates over the virtual
/// desktop (`MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK`), where `desktop` is the virtual
/// screen (`SM_XVIRTUALSCREEN`… in physical pixels). `None` outside it.
pub fn to_sendinput(p: Point, desktop: Rect) -> Option<(i32, i32)> {
    if !desktop.contains(p) || desktop.width < 2 || desktop.height < 2 {
        return None;
    }
    let n = |v: i32, origin: i32, size: i32| {
        ((f64::from(v - origin) * 65535.0) / f64::from(size - 1)).round() as i32
    };
    Some((
        n(p.x, desktop.x, desktop.width),
        n(p.y, desktop.y, desktop.height),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_150_percent_physical_rectangles_shrink_to_logical() {
        let window = Rect::new(300, 150, 1500, 900);
        let button = Rect::new(450, 300, 150, 60);
        assert_eq!(
            to_window_logical(button, window, 144),
            Rect::new(100, 100, 100, 40)
        );
        assert_eq!(
            to_screen_physical(Point::new(100, 100), window, 144),
            Point::new(450, 300)
        );
        assert_eq!(
            to_window_logical(button, window, 96),
            Rect::new(150, 150, 150, 60)
        );
        assert_eq!(to_logical(window, 144), Rect::new(200, 100, 1000, 600));
        assert_eq!(to_logical(window, 120), Rect::new(240, 120, 1200, 720));
    }

    #[test]
    fn sendinput_coordinates_span_the_virtual_desktop() {
        // Two monitors side by side, the second left of the primary (negative x).
        let desktop = Rect::new(-1920, 0, 3840, 1080);
        assert_eq!(to_sendinput(Point::new(-1920, 0), desktop), Some((0, 0)));
        assert_eq!(
            to_sendinput(Point::new(1919, 1079), desktop),
            Some((65535, 65535))
        );
        assert_eq!(
            to_sendinput(Point::new(0, 540), desktop),
            Some((32776, 32798))
        );
        assert_eq!(to_sendinput(Point::new(1920, 0), desktop), None);
    }

    #[test]
    fn outer_rectangles_keep_the_invisible_borders_around_the_frame() {
        // A 150 % window whose outer rectangle has 7 px invisible borders left, right, bottom.
        let frame = Rect::new(307, 200, 600, 450);
        let outer = Rect::new(300, 200, 614, 457);
        let target = Rect::new(100, 50, 400, 300);
        assert_eq!(
            outer_for(target, frame, outer, 144),
            Rect::new(143, 75, 614, 457)
        );
        assert_eq!(outer_for(frame, frame, outer, 96), outer);
    }
}
