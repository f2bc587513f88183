//! Where a window sits in a ScreenCast window stream's frame (pure, tested everywhere).
//!
//! Measured on GNOME (docs/wayland-notes.md): a window stream's frame is monitor-sized and shows
//! only that window, at its place, with its translucent shadow around it, on a transparent
//! background. The window itself is the frame's opaque rectangle, whose size equals the
//! window's size as AT-SPI reports it. Its origin turns window-relative points into stream
//! coordinates for the portal's absolute pointer, and the rectangle cropped is the window's
//! capture.

use cu_core::model::geometry::Rect;

/// The bounding box of fully opaque pixels of an RGBA frame, `None` when there are none.
pub fn opaque_rect(rgba: &[u8], width: u32, height: u32) -> Option<Rect> {
    let (w, h) = (width as usize, height as usize);
    if rgba.len() < w * h * 4 {
        return None;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0usize, 0usize);
    for y in 0..h {
        let row = &rgba[y * w * 4..(y + 1) * w * 4];
        for (x, px) in row.chunks_exact(4).enumerate() {
            if px[3] == 255 {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    (x0 != usize::MAX).then(|| {
        Rect::new(
            x0 as i32,
            y0 as i32,
            (x1 - x0 + 1) as i32,
            (y1 - y0 + 1) as i32,
        )
    })
}

/// What of a window's surface is the window itself, in surface coordinates: the union of its
/// top-level children's extents (GTK 3 surfaces carry an invisible shadow margin around the
/// window; GTK 4 and Qt report the window alone), else the whole surface.
pub fn content_rect(surface: (i32, i32), children: &[(i32, i32, i32, i32)]) -> Rect {
    let valid = children
        .iter()
        .filter(|(x, y, w, h)| *x != i32::MIN && *y != i32::MIN && *w > 1 && *h > 1);
    // In i64: a toolkit may report any i32.
    let mut union: Option<(i64, i64, i64, i64)> = None;
    for &(x, y, w, h) in valid {
        let (x, y, right, bottom) = (x as i64, y as i64, x as i64 + w as i64, y as i64 + h as i64);
        union = Some(match union {
            None => (x, y, right, bottom),
            Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(right), y1.max(bottom)),
        });
    }
    match union {
        Some((x0, y0, x1, y1))
            if x0 >= 0 && y0 >= 0 && x1 <= surface.0 as i64 && y1 <= surface.1 as i64 =>
        {
            // Inside the surface: every value fits in i32.
            Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32)
        }
        _ => Rect::new(0, 0, surface.0, surface.1),
    }
}

/// Where the window's surface (the space of its element bounds) sits in the frame: the opaque
/// rectangle is the window's content, checked against the content's own size (width within
/// 4 px, height within 12) so a stream of another window is never taken for this one; the surface's origin is the
/// content's origin minus the content's offset in the surface.
pub fn locate_window(
    rgba: &[u8],
    width: u32,
    height: u32,
    surface: (i32, i32),
    content: Rect,
) -> Result<Rect, String> {
    let opaque = opaque_rect(rgba, width, height)
        .ok_or_else(|| "the stream's frame shows no window".to_owned())?;
    // The children's union can miss the window's own bottom padding (GTK 3 dialogs: 7 px), so
    // the height is allowed more slack than the width; the origin comes from the top-left.
    let width_ok = (opaque.width as i64 - content.width as i64).abs() <= 4;
    let height_ok = (opaque.height as i64 - content.height as i64).abs() <= 12;
    if width_ok && height_ok {
        Ok(Rect::new(
            opaque.x.saturating_sub(content.x),
            opaque.y.saturating_sub(content.y),
            surface.0,
            surface.1,
        ))
    } else {
        Err(format!(
            "the stream shows a {}x{} window, not this {}x{} one",
            opaque.width, opaque.height, content.width, content.height
        ))
    }
}

/// The pixels of `rect` as a new RGBA buffer of exactly `rect`'s size; parts outside the frame
/// are transparent. A rectangle larger than the frame and than 256 MiB of pixels gives an empty
/// buffer rather than an allocation that size.
pub fn crop(rgba: &[u8], width: u32, height: u32, rect: Rect) -> Vec<u8> {
    // In i64: frame sizes are u32, and a rectangle may be any i32.
    let (fw, fh) = (width as i64, height as i64);
    let (rw, rh) = (rect.width.max(0) as i64, rect.height.max(0) as i64);
    let Some(len) = (rw * rh)
        .checked_mul(4)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n <= rgba.len().max(1 << 28))
    else {
        return Vec::new();
    };
    let mut out = vec![0u8; len];
    for row in 0..rh {
        let y = rect.y as i64 + row;
        if y < 0 || y >= fh {
            continue;
        }
        let x0 = (rect.x as i64).max(0);
        let x1 = (rect.x as i64 + rw).min(fw);
        if x0 >= x1 {
            continue;
        }
        let src = ((y * fw + x0) * 4) as usize..((y * fw + x1) * 4) as usize;
        let dst_start = ((row * rw + (x0 - rect.x as i64)) * 4) as usize;
        if let (Some(from), Some(to)) = (
            rgba.get(src.clone()),
            out.get_mut(dst_start..dst_start + src.len()),
        ) {
            to.copy_from_slice(from);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20x10 frame: transparent, a translucent shadow ring, and an opaque 6x4 window at (7,3).
    fn frame() -> Vec<u8> {
        let mut f = vec![0u8; 20 * 10 * 4];
        for y in 2..8 {
            for x in 6..14 {
                f[(y * 20 + x) * 4 + 3] = 60;
            }
        }
        for y in 3..7 {
            for x in 7..13 {
                let i = (y * 20 + x) * 4;
                f[i..i + 4].copy_from_slice(&[200, 100, 50, 255]);
            }
        }
        f
    }

    #[test]
    fn the_window_is_the_opaque_rectangle_not_its_shadow() {
        assert_eq!(opaque_rect(&frame(), 20, 10), Some(Rect::new(7, 3, 6, 4)));
        let whole = Rect::new(0, 0, 6, 4);
        assert_eq!(
            locate_window(&frame(), 20, 10, (6, 4), whole),
            Ok(Rect::new(7, 3, 6, 4))
        );
        // A GTK 3 surface: 10x8 with the window at (2,1) inside its shadow margin.
        assert_eq!(
            locate_window(&frame(), 20, 10, (10, 8), Rect::new(2, 1, 6, 4)),
            Ok(Rect::new(5, 2, 10, 8))
        );
        assert!(
            locate_window(&frame(), 20, 10, (30, 4), Rect::new(0, 0, 30, 4))
                .err()
                .is_some_and(|e| e.contains("not this"))
        );
        assert!(opaque_rect(&vec![0; 20 * 10 * 4], 20, 10).is_none());
        assert!(
            opaque_rect(&[0; 4], 20, 10).is_none(),
            "a short buffer is no frame"
        );
    }

    #[test]
    fn a_crop_is_the_window_alone_and_always_its_own_size() {
        let c = crop(&frame(), 20, 10, Rect::new(7, 3, 6, 4));
        assert_eq!(c.len(), 6 * 4 * 4);
        assert!(c.chunks_exact(4).all(|p| p == [200, 100, 50, 255]));
        let edge = crop(&frame(), 20, 10, Rect::new(-2, 8, 4, 4));
        assert_eq!(edge.len(), 4 * 4 * 4, "outside the frame is transparent");
    }

    #[test]
    fn content_is_the_union_of_the_top_level_children() {
        // zenity (GTK 3) on Wayland: a 252x209 surface, header bar and body inside a margin.
        let kids = [
            (26, 23, 200, 37),
            (33, 67, 186, 106),
            (i32::MIN, i32::MIN, 1, 1),
        ];
        assert_eq!(content_rect((252, 209), &kids), Rect::new(26, 23, 200, 150));
        assert_eq!(content_rect((360, 489), &[]), Rect::new(0, 0, 360, 489));
        assert_eq!(
            content_rect((100, 100), &[(0, 0, 500, 10)]),
            Rect::new(0, 0, 100, 100),
            "children outside the surface are not trusted"
        );
    }
}
