//! Points, sizes and rectangles in the public coordinate space.
//!
//! Every coordinate that crosses the [`Backend`](crate::model::backend::Backend) boundary is in
//! *window-relative logical pixels*: relative to the top-left corner of the window's own rectangle
//! as the platform's accessibility API reports it. Backends convert from their native spaces
//! (screen pixels, physical pixels, points) at the edge.

use serde::{Deserialize, Serialize};

/// A point in window-relative logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Point {
    /// Horizontal offset from the window's left edge.
    pub x: i32,
    /// Vertical offset from the window's top edge.
    pub y: i32,
}

impl Point {
    /// Creates a point.
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

/// A rectangle: origin plus size. Used for window bounds (in screen space, when known) and for
/// element bounds (window-relative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width; never negative in a valid rectangle.
    #[serde(rename = "w")]
    pub width: i32,
    /// Height; never negative in a valid rectangle.
    #[serde(rename = "h")]
    pub height: i32,
}

impl Rect {
    /// Creates a rectangle.
    pub const fn new(x: i32, y: i32, width: i32, height: i32) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// True when the rectangle covers no pixel.
    pub const fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0
    }

    /// The right edge (exclusive), computed without overflow: toolkits report any `i32`.
    pub const fn right(&self) -> i64 {
        self.x as i64 + self.width as i64
    }

    /// The bottom edge (exclusive), computed without overflow.
    pub const fn bottom(&self) -> i64 {
        self.y as i64 + self.height as i64
    }

    /// True when `p` lies inside (left/top edges inclusive, right/bottom exclusive).
    pub const fn contains(&self, p: Point) -> bool {
        p.x >= self.x
            && p.y >= self.y
            && (p.x as i64) < self.right()
            && (p.y as i64) < self.bottom()
    }

    /// The centre point, rounded towards the top-left.
    pub const fn center(&self) -> Point {
        Point::new(
            clamp(self.x as i64 + self.width as i64 / 2),
            clamp(self.y as i64 + self.height as i64 / 2),
        )
    }

    /// The same rectangle moved by `(-origin.x, -origin.y)`: converts screen coordinates into
    /// coordinates relative to `origin` (saturating at the ends of `i32`).
    pub const fn relative_to(&self, origin: Point) -> Rect {
        Rect::new(
            self.x.saturating_sub(origin.x),
            self.y.saturating_sub(origin.y),
            self.width,
            self.height,
        )
    }

    /// The overlap of two rectangles, or `None` when they do not overlap.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        let x0 = self.x.max(other.x);
        let y0 = self.y.max(other.y);
        let x1 = self.right().min(other.right());
        let y1 = self.bottom().min(other.bottom());
        (x1 > x0 as i64 && y1 > y0 as i64)
            .then(|| Rect::new(x0, y0, clamp(x1 - x0 as i64), clamp(y1 - y0 as i64)))
    }

    /// The size of the rectangle.
    pub const fn size(&self) -> Size {
        Size {
            width: self.width,
            height: self.height,
        }
    }
}

/// `v` clamped to the range of `i32`.
pub const fn clamp(v: i64) -> i32 {
    if v > i32::MAX as i64 {
        i32::MAX
    } else if v < i32::MIN as i64 {
        i32::MIN
    } else {
        v as i32
    }
}

/// A width and height in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Size {
    /// Width.
    #[serde(rename = "w")]
    pub width: i32,
    /// Height.
    #[serde(rename = "h")]
    pub height: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`fuzz/fuzz_targets/outline.rs`): a toolkit's bounds near `i32::MAX`
    /// overflowed the centre, the containment test and the overlap.
    #[test]
    fn fuzz_extreme_bounds_do_not_overflow() {
        let huge = Rect::new(i32::MAX - 1, i32::MAX - 1, i32::MAX, i32::MAX);
        assert_eq!(huge.center(), Point::new(i32::MAX, i32::MAX));
        assert!(huge.contains(Point::new(i32::MAX, i32::MAX)));
        assert_eq!(
            huge.intersection(&Rect::new(0, 0, i32::MAX, i32::MAX)),
            Some(Rect::new(i32::MAX - 1, i32::MAX - 1, 1, 1))
        );
        let low = Rect::new(i32::MIN, i32::MIN, 10, 10);
        assert_eq!(low.relative_to(Point::new(5, 5)).x, i32::MIN);
        assert!(Rect::new(i32::MIN, 0, i32::MAX, 1)
            .intersection(&Rect::new(-5, 0, 10, 1))
            .is_some());
    }

    #[test]
    fn contains_is_half_open() {
        let r = Rect::new(10, 10, 5, 5);
        assert!(r.contains(Point::new(10, 10)));
        assert!(r.contains(Point::new(14, 14)));
        assert!(!r.contains(Point::new(15, 14)));
        assert!(!r.contains(Point::new(9, 12)));
    }

    #[test]
    fn intersection_and_relative() {
        let a = Rect::new(0, 0, 10, 10);
        let b = Rect::new(5, 5, 10, 10);
        assert_eq!(a.intersection(&b), Some(Rect::new(5, 5, 5, 5)));
        assert_eq!(a.intersection(&Rect::new(10, 0, 3, 3)), None);
        assert_eq!(
            Rect::new(110, 220, 3, 4).relative_to(Point::new(100, 200)),
            Rect::new(10, 20, 3, 4)
        );
        assert_eq!(Rect::new(0, 0, 9, 7).center(), Point::new(4, 3));
    }

    #[test]
    fn serde_uses_short_keys() {
        let json = serde_json::to_string(&Rect::new(1, 2, 3, 4)).unwrap_or_default();
        assert_eq!(json, r#"{"x":1,"y":2,"w":3,"h":4}"#);
    }
}
