//! Window screenshots as JPEG, in the same window-relative space as element bounds.

use cu_core::config::Config;
use cu_core::model::backend::Backend;
use cu_core::model::window::WindowId;
use cu_core::{Error, ErrorCode, Result};
use serde::Serialize;

/// Size of the image and how it maps back to window coordinates.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImageInfo {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Image pixels per window pixel; divide a point read off the image by it to get window
    /// coordinates. Left out when 1.
    #[serde(skip_serializing_if = "is_one")]
    pub scale: f64,
}

fn is_one(x: &f64) -> bool {
    (*x - 1.0).abs() < f64::EPSILON
}

pub(crate) struct Shot {
    pub info: ImageInfo,
    pub jpeg: Vec<u8>,
}

pub(crate) async fn capture_jpeg(
    backend: &dyn Backend,
    window: &WindowId,
    config: &Config,
) -> Result<Shot> {
    capture_region(backend, window, config, None, &[]).await
}

/// A screenshot with each element's box and id drawn on it (set-of-marks).
pub(crate) async fn capture_marked(
    backend: &dyn Backend,
    window: &WindowId,
    config: &Config,
    marks: &[(String, cu_core::model::geometry::Rect)],
) -> Result<Shot> {
    capture_region(backend, window, config, None, marks).await
}

/// A JPEG of the part of the window around `around` (80 px of margin), unscaled: the crop an
/// approval shows.
pub(crate) async fn capture_crop(
    backend: &dyn Backend,
    window: &WindowId,
    config: &Config,
    around: cu_core::model::geometry::Rect,
) -> Result<Vec<u8>> {
    Ok(capture_region(backend, window, config, Some(around), &[])
        .await?
        .jpeg)
}

async fn capture_region(
    backend: &dyn Backend,
    window: &WindowId,
    config: &Config,
    around: Option<cu_core::model::geometry::Rect>,
    marks: &[(String, cu_core::model::geometry::Rect)],
) -> Result<Shot> {
    let timeout = std::time::Duration::from_secs_f64(config.image_timeout);
    let raw = tokio::time::timeout(timeout, backend.capture(window))
        .await
        .map_err(|_| {
            Error::new(
                ErrorCode::ImageCaptureTimeout,
                format!("capture took longer than {} s", config.image_timeout),
            )
        })??;
    let rgba = image::RgbaImage::from_raw(raw.width, raw.height, raw.rgba).ok_or_else(|| {
        Error::new(
            ErrorCode::ImageCaptureFailed,
            "the capture has the wrong size",
        )
    })?;
    let mut rgb = image::DynamicImage::ImageRgba8(rgba).to_rgb8();
    if let Some(r) = around {
        const MARGIN: i32 = 80;
        let (iw, ih) = (rgb.width() as i32, rgb.height() as i32);
        let x0 = (r.x - MARGIN).clamp(0, iw - 1);
        let y0 = (r.y - MARGIN).clamp(0, ih - 1);
        let x1 = (r.x + r.width + MARGIN).clamp(x0 + 1, iw);
        let y1 = (r.y + r.height + MARGIN).clamp(y0 + 1, ih);
        rgb = image::imageops::crop_imm(
            &rgb,
            x0 as u32,
            y0 as u32,
            (x1 - x0) as u32,
            (y1 - y0) as u32,
        )
        .to_image();
    }
    let (w, h) = rgb.dimensions();
    let max_width = config.image_max_width.max(1);
    let (mut rgb, scale) = if w > max_width {
        let scale = f64::from(max_width) / f64::from(w);
        let nh = ((f64::from(h) * scale).round() as u32).max(1);
        (
            image::imageops::resize(&rgb, max_width, nh, image::imageops::FilterType::Triangle),
            scale,
        )
    } else {
        (rgb, 1.0)
    };
    super::marks::draw(&mut rgb, marks, scale);
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(
        &mut jpeg,
        config.image_quality.clamp(1, 100),
    )
    .encode_image(&rgb)
    .map_err(|e| {
        Error::new(
            ErrorCode::ImageCaptureFailed,
            format!("JPEG encoding failed: {e}"),
        )
    })?;
    Ok(Shot {
        info: ImageInfo {
            width: rgb.width(),
            height: rgb.height(),
            scale,
        },
        jpeg,
    })
}
