//! macOS desktop adapter (Accessibility, AX) — its pure part so far.
//!
//! The translation from the AX vocabulary into `cu-core`'s lives in cfg-free modules,
//! unit-tested on every platform from the values Apple documents (`AXRoleConstants.h`,
//! `AXAttributeConstants.h`, `AXActionConstants.h`); they cannot be recorded here, as no Mac runs
//! in CI. The glue (CGWindowList joined with AX windows, batched attribute reads,
//! AXManualAccessibility for Electron, CGEvent input, window capture, permission errors) comes
//! next and is gated on `target_os = "macos"`.
//!
//! - [`translate`]: roles and subroles, attributes and actions → roles, states and actions.
//! - [`points`]: AX and CGWindow geometry (points, top-left origin) against capture pixels
//!   (the backing scale).

pub mod points;
pub mod translate;
