//! Geometry on macOS: AX positions and CGWindow bounds are in points with a top-left origin on
//! the main display (the global Quartz space); our coordinates are window-relative points (the
//! logical pixels of the other platforms); window captures are in pixels, `backing_scale` (2.0
//! on Retina) pixels per point.

use cu_core::model::geometry::{Point, Rect};

/// A global AX rectangle as window-relative points of the window at `window`.
pub fn to_window(rect: Rect, window: Rect) -> Rect {
    rect.relative_to(Point::new(window.x, window.y))
}

/// A window-relative point as a global point for a CGEvent.
pub fn to_global(p: Point, window: Rect) -> Point {
    Point::new(window.x.saturating_add(p.x), window.y.saturating_add(p.y))
}

/// The size in points of a capture `width`×`height` pixels at `backing_scale`.
pub fn capture_points(width: u32, height: u32, backing_scale: f64) -> (i32, i32) {
    let s = if backing_scale > 0.0 {
        backing_scale
    } else {
        1.0
    };
    (
        (f64::from(width) / s).round() as i32,
        (f64::from(height) / s).round() as i32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_window_relative_and_captures_scale_by_the_backing_factor() {
        let window = Rect::new(200, 100, 800, 600);
        assert_eq!(
            to_window(Rect::new(250, 160, 80, 24), window),
            Rect::new(50, 60, 80, 24)
        );
        assert_eq!(to_global(Point::new(50, 60), window), Point::new(250, 160));
        // A Retina capture of that window is 1600x1200 pixels.
        assert_eq!(capture_points(1600, 1200, 2.0), (800, 600));
        assert_eq!(capture_points(800, 600, 0.0), (800, 600));
        // A second display left of the main one has negative x.
        assert_eq!(
            to_window(Rect::new(-900, 50, 10, 10), Rect::new(-1000, 0, 500, 400)),
            Rect::new(100, 50, 10, 10)
        );
    }
}
