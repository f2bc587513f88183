//! Linux desktop adapter: AT-SPI for the element tree and semantic actions, X11 for windows,
//! input and capture.
//!
//! Shape (see `ARCHITECTURE.md`):
//!
//! - [`translate`]: pure, cfg-free mapping of AT-SPI roles, states and action names into the
//!   shared vocabulary of `cu-core`, and key names into X keysyms. Tested everywhere.
//! - [`listing`]: pure, cfg-free join of the window system's list with the accessible frames
//!   (which frame is which X11 window; which frames are windows on Wayland). Tested everywhere.
//! - [`session_env`]: finds `DISPLAY` and the bus addresses, recovering them from the
//!   systemd user environment when the process started outside the graphical session (the
//!   parsing pure and tested everywhere; the discovery Linux only).
//! - [`misplaced`]: pure: LibreOffice's content pane reported a menu bar too high, moved to
//!   where it is drawn.
//! - [`changes`]: pure: what an AT-SPI change event says a window shows differently (its
//!   content, or only its focus), for the effect watch.
//! - [`trees`]: pure: the last walk of each window, answered again while its application sends
//!   no event and the window system describes the window as it was.
//! - [`frame`]: pure: where a window sits in a ScreenCast stream's frame (the portal path).
//! - `sys/` (Linux only): the glue, as `uia/` and `ax/` are for the other adapters: `atspi/`
//!   (one tree layer over the accessibility bus), `x11.rs` (X11 input and capture), `portal.rs`
//!   (feature `portal`: the Wayland input/capture path through the XDG desktop portal), and
//!   `backend.rs`, whose [`LinuxBackend`] ties them together behind `cu_core::model::backend::Backend`
//!   and connects lazily on the first GUI call.
//!
//! On other targets the crate compiles to the pure modules only.

pub mod changes;
pub mod frame;
pub mod keys;
pub mod listing;
pub mod misplaced;
pub mod session_env;
pub mod translate;
pub mod trees;

#[cfg(target_os = "linux")]
mod sys;

#[cfg(target_os = "linux")]
pub use sys::backend::LinuxBackend;
