//! One window's pixels with `CGWindowListCreateImage(kCGWindowListOptionIncludingWindow)`:
//! that window only, even when covered, without raising it; scaled from backing pixels to points.

use core_graphics::geometry::{CGPoint, CGRect, CGSize};
use core_graphics::image::CGImage;
use core_graphics::window::{
    create_image, kCGWindowImageBestResolution, kCGWindowImageBoundsIgnoreFraming,
    kCGWindowListOptionIncludingWindow,
};
use cu_core::model::backend::WindowImage;
use cu_core::model::geometry::Rect;
use cu_core::{Error, ErrorCode, Result};

#[link(name = "CoreGraphics", kind = "framework")]
extern "C" {
    /// macOS 10.15+: whether this process may record the screen, without prompting.
    fn CGPreflightScreenCaptureAccess() -> bool;
    fn CGImageGetBitmapInfo(image: core_graphics::sys::CGImageRef) -> u32;
}

/// `kCGBitmapByteOrderMask` and `kCGBitmapByteOrder32Little`.
const BYTE_ORDER_MASK: u32 = 0x7000;
const BYTE_ORDER_32_LITTLE: u32 = 0x2000;

/// True when Screen Recording permission is granted.
pub(super) fn may_record_screen() -> bool {
    // SAFETY: a plain query with no arguments.
    unsafe { CGPreflightScreenCaptureAccess() }
}

/// Captures window `number` whose frame is `frame` (global points).
pub(super) fn capture(number: u32, frame: Rect) -> Result<WindowImage> {
    let bounds = CGRect::new(
        &CGPoint::new(f64::from(frame.x), f64::from(frame.y)),
        &CGSize::new(f64::from(frame.width), f64::from(frame.height)),
    );
    let image = create_image(
        bounds,
        kCGWindowListOptionIncludingWindow,
        number,
        kCGWindowImageBoundsIgnoreFraming | kCGWindowImageBestResolution,
    )
    .ok_or_else(|| {
        Error::new(
            ErrorCode::ImageCaptureFailed,
            "CGWindowListCreateImage returned nothing",
        )
    })?;
    let pixels = to_window_image(&image)?;
    if pixels.is_uniform() {
        return Err(Error::new(
            ErrorCode::ImageCaptureBlank,
            "the window image is a single colour: the window may still be drawing",
        ));
    }
    Ok(pixels.resized(frame.width.max(1) as u32, frame.height.max(1) as u32))
}

fn to_window_image(image: &CGImage) -> Result<WindowImage> {
    // SAFETY: `image` is a valid CGImage for the call.
    let info = unsafe { CGImageGetBitmapInfo(foreign_types::ForeignType::as_ptr(image)) };
    if image.bits_per_pixel() != 32 || info & BYTE_ORDER_MASK != BYTE_ORDER_32_LITTLE {
        return Err(Error::new(
            ErrorCode::ImageCaptureFailed,
            format!(
                "unexpected pixel format ({} bits per pixel, bitmap info {info:#x})",
                image.bits_per_pixel()
            ),
        ));
    }
    let data = image.data();
    WindowImage::from_bgra(
        image.width() as u32,
        image.height() as u32,
        image.bytes_per_row(),
        data.bytes(),
    )
    .ok_or_else(|| Error::new(ErrorCode::ImageCaptureFailed, "the window image is short"))
}
