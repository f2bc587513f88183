//! Points, sizes and rectangles in the public coordinate space.
//!
//! Every coordinate that crosses the [`Backend`](crate::backend::Backend) boundary is in
//! *window-relative logical pixels*: relative to the top-left corner of the window's own rectangle
//! as the platform's accessibility API reports it. Backends convert from their native spaces
//! (screen pixels, physical pixels, points) at the edge.

use serde::{Deserialize, Serialize};

/// A point in window-relative logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

    /// True when `p` lies inside (left/top edges inclusive, right/bottom exclusive).
    pub const fn contains(&self, p: Point) -> bool {
        p.x >= self.x && p.y >= self.y && p.x < self.x + self.width && p.y < self.y + self.height
    }

    /// The centre point, rounded towards the top-left.
    pub const fn center(&self) -> Point {
        Point::new(self.x + self.width / 2, self.y + self.height / 2)
    }

    /// The same rectangle moved by `(-origin.x, -origin.y)`: converts screen coordinates into
    /// coordinates relative to `origin`.
    pub const fn relative_to(&self, origin: Point) -> Rect {
        Rect::new(
            self.x - origin.x,
            self.y - origin.y,
            self.width,
            self.height,
        )
    }

    /// The overlap of two rectangles, or `None` when they do not overlap.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        let x0 = self.x.max(other.x);
        let y0 = self.y.max(other.y);
        let x1 = (self.x + self.width).min(other.x + other.width);
        let y1 = (self.y + self.height).min(other.y + other.height);
        (x1 > x0 && y1 > y0).then(|| Rect::new(x0, y0, x1 - x0, y1 - y0))
    }

    /// The size of the rectangle.
    pub const fn size(&self) -> Size {
        Size {
            width: self.width,
            height: self.height,
        }
    }
}

/// A width and height in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
