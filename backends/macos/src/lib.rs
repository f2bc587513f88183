//! macOS desktop adapter of mcp-computer-use: Accessibility (AX) for windows, trees and actions,
//! Quartz events for input, the window server for the window list and captures.
//!
//! Everything that is translation or arithmetic lives in cfg-free modules, unit-tested on every
//! platform from the values Apple documents (`AXRoleConstants.h`, `AXAttributeConstants.h`,
//! `AXActionConstants.h`, `Events.h`); they cannot be recorded here, as no Mac runs in CI. The
//! glue in `ax` is compiled only for macOS with the `ax` feature (on by default) and is
//! type-checked and linted for `aarch64-apple-darwin` and `x86_64-apple-darwin` on every change;
//! it is not run against real applications in CI.
//!
//! - [`translate`]: roles and subroles, attributes and actions → roles, states and actions.
//! - [`points`]: AX and CGWindow geometry (points) against capture pixels (the backing scale).
//! - [`ids`]: window ids (`CGWindowID`) and element identities (checked index paths).
//! - [`keys`]: key combinations → key codes and modifier flags.
//! - [`changes`]: what an AX notification says about the watched window (the effect watch).
//! - [`listing`]: the window server's list joined with the apps' AX windows.
//! - [`permissions`]: Accessibility and Screen Recording errors that say how to grant them.
//!
//! # Platform-specific
//!
//! Only macOS has a `MacBackend`; elsewhere this crate is its pure modules.

pub mod changes;
pub mod ids;
pub mod keys;
pub mod listing;
pub mod permissions;
pub mod points;
pub mod translate;

#[cfg(all(target_os = "macos", feature = "ax"))]
mod ax;

#[cfg(all(target_os = "macos", feature = "ax"))]
pub use ax::MacBackend;
