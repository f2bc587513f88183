//! Windows desktop adapter of mcp-computer-use: UI Automation for the tree and actions, SendInput
//! for input, PrintWindow for capture.
//!
//! AccessKit's shape: everything that is translation or arithmetic lives in cfg-free modules,
//! unit-tested on every platform from the values Microsoft documents (they cannot be recorded
//! here: no Windows machine runs in CI). The I/O glue in `uia` is compiled only for Windows with
//! the `uia` feature (on by default) and is type-checked and linted for `x86_64-pc-windows-msvc`
//! on every change; it is not run against real applications in CI.
//!
//! - [`translate`]: control type ids, properties and patterns → roles, states and actions.
//! - [`changes`]: what a UI Automation event says about the watched window (the effect watch).
//! - [`dpi`]: physical and logical pixels, window-relative points, SendInput's normalized
//!   absolute coordinates.
//! - [`ids`]: window ids (`HWND`) and element identities (runtime ids) as text.
//! - [`keys`]: key combinations and text → virtual keys and UTF-16 units.
//! - [`listing`]: which top-level windows are app windows; UWP apps named by their title.
//! - [`session`]: a locked workstation or disconnected session → `GUI_UNAVAILABLE` with the fix.
//!
//! # Platform-specific
//!
//! Only Windows has a `WindowsBackend`; elsewhere this crate is its pure modules.

pub mod changes;
pub mod dpi;
pub mod ids;
pub mod keys;
pub mod listing;
pub mod session;
pub mod translate;

#[cfg(all(windows, feature = "uia"))]
mod uia;

#[cfg(all(windows, feature = "uia"))]
pub use uia::WindowsBackend;
