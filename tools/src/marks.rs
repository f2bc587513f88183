//! Set-of-marks: each listed element's box and id drawn on a screenshot, so a vision model can
//! answer with `e12` instead of pixels. Pure drawing on an RGB image: a 2 px outline in one of
//! six colours, and the id in a small built-in 3×5 font (digits and `e`, doubled) on a box of
//! the same colour at the element's top-left corner, kept inside the image.

use cu_core::model::geometry::Rect;
use image::{Rgb, RgbImage};

/// Outline and label colours, cycled by element.
const COLOURS: [[u8; 3]; 6] = [
    [230, 25, 75],
    [0, 130, 200],
    [60, 160, 60],
    [245, 130, 48],
    [145, 30, 180],
    [0, 128, 128],
];

/// Each glyph is 5 rows of 3 bits, high bit left.
fn glyph(c: char) -> Option<[u8; 5]> {
    Some(match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        'e' => [0b000, 0b111, 0b111, 0b100, 0b111],
        _ => return None,
    })
}

/// Pixels per font pixel.
const SCALE: u32 = 2;

/// Draws `marks` (id, bounds in window pixels) on `img`, whose pixels are `scale` window
/// pixels each (the screenshot's `image.scale`).
pub(crate) fn draw(img: &mut RgbImage, marks: &[(String, Rect)], scale: f64) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    if w == 0 || h == 0 {
        return;
    }
    let s = |v: i32| (f64::from(v) * scale).round() as i64;
    for (i, (id, r)) in marks.iter().enumerate() {
        let colour = Rgb(COLOURS[i % COLOURS.len()]);
        let (x0, y0) = (s(r.x), s(r.y));
        let (x1, y1) = (s(r.x + r.width) - 1, s(r.y + r.height) - 1);
        if x1 < 0 || y1 < 0 || x0 >= w || y0 >= h || x1 < x0 || y1 < y0 {
            continue;
        }
        for t in 0..2 {
            hline(img, x0, x1, y0 + t, colour);
            hline(img, x0, x1, y1 - t, colour);
            vline(img, x0 + t, y0, y1, colour);
            vline(img, x1 - t, y0, y1, colour);
        }
        label(img, id, x0.clamp(0, w - 1), y0.clamp(0, h - 1), colour);
    }
}

fn put(img: &mut RgbImage, x: i64, y: i64, colour: Rgb<u8>) {
    if x >= 0 && y >= 0 && x < img.width() as i64 && y < img.height() as i64 {
        img.put_pixel(x as u32, y as u32, colour);
    }
}

fn hline(img: &mut RgbImage, x0: i64, x1: i64, y: i64, colour: Rgb<u8>) {
    for x in x0..=x1 {
        put(img, x, y, colour);
    }
}

fn vline(img: &mut RgbImage, x: i64, y0: i64, y1: i64, colour: Rgb<u8>) {
    for y in y0..=y1 {
        put(img, x, y, colour);
    }
}

/// The id in white on a box of `colour`, its top-left at (x, y), moved left and up as needed
/// to stay inside the image.
fn label(img: &mut RgbImage, id: &str, x: i64, y: i64, colour: Rgb<u8>) {
    let glyphs: Vec<[u8; 5]> = id.chars().filter_map(glyph).collect();
    let char_w = (3 + 1) * SCALE as i64;
    let box_w = glyphs.len() as i64 * char_w + SCALE as i64;
    let box_h = (5 + 2) * SCALE as i64;
    let x = x.min(img.width() as i64 - box_w).max(0);
    let y = y.min(img.height() as i64 - box_h).max(0);
    for dy in 0..box_h {
        hline(img, x, x + box_w - 1, y + dy, colour);
    }
    let white = Rgb([255, 255, 255]);
    for (n, rows) in glyphs.iter().enumerate() {
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) == 0 {
                    continue;
                }
                for sy in 0..SCALE as i64 {
                    for sx in 0..SCALE as i64 {
                        put(
                            img,
                            x + SCALE as i64 + n as i64 * char_w + col * SCALE as i64 + sx,
                            y + SCALE as i64 + row as i64 * SCALE as i64 + sy,
                            white,
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_and_labels_land_where_the_elements_are() {
        let mut img = RgbImage::from_pixel(200, 100, Rgb([0, 0, 0]));
        draw(
            &mut img,
            &[
                ("e1".into(), Rect::new(20, 20, 60, 30)),
                ("e12".into(), Rect::new(190, 95, 100, 40)),
            ],
            1.0,
        );
        // The first box's outline, in the first colour.
        assert_eq!(img.get_pixel(50, 49), &Rgb(COLOURS[0]));
        assert_eq!(img.get_pixel(79, 35), &Rgb(COLOURS[0]));
        // Inside the box, away from the label: untouched.
        assert_eq!(img.get_pixel(60, 40), &Rgb([0, 0, 0]));
        // The label's white pixels sit inside its box at the top-left corner ("e" row 1).
        assert_eq!(img.get_pixel(22, 24), &Rgb([255, 255, 255]));
        // A box that runs off the image is clipped, its label moved back inside.
        assert_eq!(img.get_pixel(195, 95), &Rgb(COLOURS[1]));
        let (label_x, label_y) = (200 - (3 * 8 + 2), 100 - 14);
        assert_eq!(img.get_pixel(label_x, label_y), &Rgb(COLOURS[1]));
    }

    #[test]
    fn scaled_images_get_scaled_boxes_and_off_image_ones_are_skipped() {
        let mut img = RgbImage::from_pixel(100, 50, Rgb([0, 0, 0]));
        draw(
            &mut img,
            &[
                ("e3".into(), Rect::new(40, 40, 40, 20)),
                ("e4".into(), Rect::new(-500, -500, 10, 10)),
            ],
            0.5,
        );
        assert_eq!(img.get_pixel(39, 25), &Rgb(COLOURS[0]));
        assert_eq!(img.get_pixel(30, 29), &Rgb(COLOURS[0]));
        assert!(img.pixels().all(|p| *p != Rgb(COLOURS[1])));
    }
}
