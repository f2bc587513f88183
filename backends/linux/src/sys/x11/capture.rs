//! One window's pixels with GetImage, refused when another window covers it (what would be
//! captured is not the window).

use cu_core::model::backend::WindowImage;
use cu_core::model::geometry::Rect;
use cu_core::{Error, ErrorCode, Result};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, MapState, Window, WindowClass};

use super::{x_err, X11};

impl X11 {
    /// Captures the window's own pixels; refuses when they are not the window's.
    pub(crate) fn capture(&self, id: Window) -> Result<WindowImage> {
        let w = self.describe(id)?;
        if w.minimized {
            return Err(Error::new(
                ErrorCode::ImageWindowMinimized,
                format!("window 0x{id:x} is minimized"),
            ));
        }
        if self.screen.intersection(&w.bounds) != Some(w.bounds) {
            return Err(Error::new(
                ErrorCode::ImageWindowObscured,
                "the window is partly off screen",
            )
            .with_suggestion("Move the window fully onto the screen, then capture again."));
        }
        if let Some(cover) = self.covering_window(id, w.bounds)? {
            return Err(Error::new(
                ErrorCode::ImageWindowObscured,
                format!("window 0x{id:x} is covered by window 0x{cover:x}; X11 cannot capture a covered window without raising it"),
            ));
        }
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                id,
                0,
                0,
                w.bounds.width as u16,
                w.bounds.height as u16,
                !0,
            )
            .map_err(|e| Error::new(ErrorCode::ImageCaptureFailed, format!("GetImage: {e}")))?
            .reply()
            .map_err(|e| Error::new(ErrorCode::ImageCaptureFailed, format!("GetImage: {e}")))?;
        let (width, height) = (w.bounds.width as u32, w.bounds.height as u32);
        let expected = (width * height * 4) as usize;
        if reply.data.len() < expected {
            return Err(Error::new(
                ErrorCode::ImageCaptureFailed,
                format!(
                    "GetImage returned {} bytes for a {width}x{height} window at depth {}",
                    reply.data.len(),
                    reply.depth
                ),
            ));
        }
        let mut rgba = Vec::with_capacity(expected);
        for px in reply.data[..expected].chunks_exact(4) {
            rgba.extend_from_slice(&[px[2], px[1], px[0], 255]);
        }
        Ok(WindowImage {
            width,
            height,
            rgba,
        })
    }
    /// A mapped window of another client stacked above `id`'s top-level frame that overlaps
    /// `bounds`. The app's own popups and tooltips (same X client) draw its pixels, not others'.
    pub(crate) fn covering_window(&self, id: Window, bounds: Rect) -> Result<Option<Window>> {
        let mask = self.conn.setup().resource_id_mask;
        let client = |w: Window| w & !mask;
        let top = self.toplevel_of(id)?;
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| x_err("query_tree", e))?
            .reply()
            .map_err(|e| x_err("query_tree", e))?;
        let Some(pos) = tree.children.iter().position(|c| *c == top) else {
            return Ok(None);
        };
        for &above in tree.children[pos + 1..]
            .iter()
            .filter(|w| client(**w) != client(id))
        {
            // An InputOnly window draws nothing (issue 40: a Tk app's input-only area made
            // every capture of its window IMAGE_WINDOW_OBSCURED).
            let viewable = self
                .conn
                .get_window_attributes(above)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| {
                    a.map_state == MapState::VIEWABLE && a.class != WindowClass::INPUT_ONLY
                });
            if viewable
                && self
                    .bounds(above)
                    .ok()
                    .and_then(|r| r.intersection(&bounds))
                    .is_some()
            {
                return Ok(Some(above));
            }
        }
        Ok(None)
    }
}
