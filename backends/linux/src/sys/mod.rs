//! The Linux glue (Linux only): everything here talks to the desktop. The pure translation it
//! relies on (`translate`, `keys`, `listing`, `frame`, `session_env::parse_env_lines`) sits beside
//! it, compiled and tested on every target.
//!
//! - `atspi/`: one tree layer over the accessibility bus: applications, windows, pipelined
//!   snapshots, probes, semantic actions.
//! - `x11.rs`: the X11 input/capture path: `_NET_CLIENT_LIST`, `_NET_ACTIVE_WINDOW`, XTEST and
//!   GetImage.
//! - `portal.rs` (feature `portal`): the Wayland input/capture path through the XDG desktop
//!   portal (RemoteDesktop + ScreenCast).
//! - `process.rs`: whether a process still runs (`/proc`).
//! - `backend.rs`: [`LinuxBackend`](backend::LinuxBackend), tying them together behind
//!   `cu_core::model::backend::Backend`; `backend/wayland.rs` is its Wayland half.

pub(crate) mod atspi;
pub(crate) mod backend;
#[cfg(feature = "portal")]
pub(crate) mod portal;
pub(crate) mod process;
pub(crate) mod x11;
