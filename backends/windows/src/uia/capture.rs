//! One window's pixels with PrintWindow(`PW_RENDERFULLCONTENT`): the window draws itself into
//! our bitmap, so it works while covered and never focuses, raises or moves it.

use cu_core::model::backend::WindowImage;
use cu_core::model::geometry::Rect;
use cu_core::{Error, ErrorCode, Result};
use windows::Win32::Graphics::Gdi::{
    CreateCompatibleBitmap, CreateCompatibleDC, DeleteDC, DeleteObject, GetDC, GetDIBits,
    ReleaseDC, SelectObject, BITMAPINFO, BITMAPINFOHEADER, BI_RGB, DIB_RGB_COLORS, HGDIOBJ,
};
use windows::Win32::Storage::Xps::{PrintWindow, PRINT_WINDOW_FLAGS};
use windows::Win32::UI::WindowsAndMessaging::{IsIconic, PW_RENDERFULLCONTENT};

use super::win32::{self, hwnd};
use crate::dpi;

/// Captures the window's visible frame and scales it to logical pixels.
pub(super) fn capture(value: isize) -> Result<WindowImage> {
    let window = hwnd(value);
    // SAFETY: a window handle value; IsIconic fails cleanly on a stale one.
    if unsafe { IsIconic(window) }.as_bool() {
        return Err(Error::new(
            ErrorCode::ImageWindowMinimized,
            "the window is minimized: it has no pixels to capture",
        ));
    }
    let gone = || Error::new(ErrorCode::WindowNotFound, "the window has closed");
    let outer = win32::outer_rect(window).ok_or_else(gone)?;
    let frame = win32::frame(window).ok_or_else(gone)?;
    let bgra = print_window(window, outer)?;
    // PrintWindow draws the outer rectangle; keep the visible frame (no resize border, shadow).
    let clip = frame.intersection(&outer).unwrap_or(outer);
    let stride = outer.width as usize * 4;
    let offset = (clip.y - outer.y) as usize * stride + (clip.x - outer.x) as usize * 4;
    let image = WindowImage::from_bgra(
        clip.width as u32,
        clip.height as u32,
        stride,
        bgra.get(offset..).unwrap_or_default(),
    )
    .ok_or_else(|| {
        Error::new(
            ErrorCode::ImageCaptureFailed,
            "the captured bitmap is short",
        )
    })?;
    if image.is_uniform() {
        return Err(Error::new(
            ErrorCode::ImageCaptureBlank,
            "the window drew nothing (an all-one-colour bitmap): it may still be drawing, or it renders with a method PrintWindow cannot reach",
        ));
    }
    let logical = dpi::to_logical(clip, win32::dpi(window));
    Ok(image.resized(logical.width as u32, logical.height as u32))
}

/// The window's BGRA pixels, top row first, `outer.width * 4` bytes per row.
fn print_window(window: windows::Win32::Foundation::HWND, outer: Rect) -> Result<Vec<u8>> {
    let (w, h) = (outer.width, outer.height);
    if w <= 0 || h <= 0 {
        return Err(Error::new(
            ErrorCode::ImageCaptureFailed,
            "the window has no area",
        ));
    }
    let failed = |what: &str| Error::new(ErrorCode::ImageCaptureFailed, format!("{what} failed"));
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    // SAFETY: every GDI object made here is selected out and deleted before returning; the
    // screen DC is released; `pixels` has room for h rows of w 32-bit pixels, as `info` says.
    unsafe {
        let screen = GetDC(None);
        if screen.is_invalid() {
            return Err(failed("GetDC"));
        }
        let memory = CreateCompatibleDC(Some(screen));
        let bitmap = CreateCompatibleBitmap(screen, w, h);
        let previous = SelectObject(memory, HGDIOBJ(bitmap.0));
        let printed = PrintWindow(window, memory, PRINT_WINDOW_FLAGS(PW_RENDERFULLCONTENT));
        let mut info = BITMAPINFO {
            bmiHeader: BITMAPINFOHEADER {
                biSize: std::mem::size_of::<BITMAPINFOHEADER>() as u32,
                biWidth: w,
                // Negative: top-down rows.
                biHeight: -h,
                biPlanes: 1,
                biBitCount: 32,
                biCompression: BI_RGB.0,
                ..BITMAPINFOHEADER::default()
            },
            ..BITMAPINFO::default()
        };
        let _ = SelectObject(memory, previous);
        let rows = GetDIBits(
            memory,
            bitmap,
            0,
            h as u32,
            Some(pixels.as_mut_ptr().cast()),
            &mut info,
            DIB_RGB_COLORS,
        );
        let _ = DeleteObject(HGDIOBJ(bitmap.0));
        let _ = DeleteDC(memory);
        ReleaseDC(None, screen);
        if !printed.as_bool() {
            return Err(failed("PrintWindow"));
        }
        if rows != h {
            return Err(failed("GetDIBits"));
        }
    }
    Ok(pixels)
}
