//! Linux desktop adapter: AT-SPI for the element tree and semantic actions, X11 for windows,
//! input and capture.
//!
//! Shape (see `ARCHITECTURE.md`):
//!
//! - [`translate`]: pure, cfg-free mapping of AT-SPI roles, states and action names into the
//!   shared vocabulary of `cu-core`, and key names into X keysyms. Tested everywhere.
//! - `session_env` (Linux only): finds `DISPLAY` and the bus addresses, recovering them from the
//!   systemd user environment when the process started outside the graphical session.
//! - `atspi` (Linux only): one tree layer over the accessibility bus: applications, windows,
//!   pipelined snapshots, semantic actions.
//! - `x11` (Linux only): the X11 input/capture path: `_NET_CLIENT_LIST`, `_NET_ACTIVE_WINDOW`,
//!   XTEST and GetImage.
//! - `portal` (Linux, feature `portal`): the Wayland input/capture path through the XDG desktop
//!   portal (RemoteDesktop + ScreenCast); [`frame`] is its pure part (where the window sits in a
//!   stream's frame).
//! - [`LinuxBackend`]: ties them together behind `cu_core::backend::Backend`; connects lazily on
//!   the first GUI call.
//!
//! On other targets the crate compiles to the pure modules only.

pub mod frame;
pub mod keys;
pub mod translate;

#[cfg(target_os = "linux")]
mod atspi;
#[cfg(target_os = "linux")]
mod backend;
#[cfg(all(target_os = "linux", feature = "portal"))]
mod portal;
#[cfg(target_os = "linux")]
mod session_env;
#[cfg(target_os = "linux")]
mod x11;

#[cfg(target_os = "linux")]
pub use backend::LinuxBackend;
