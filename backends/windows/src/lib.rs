//! Windows desktop adapter (UI Automation) — its pure part so far.
//!
//! AccessKit's shape: the translation from UI Automation's vocabulary into `cu-core`'s lives in
//! cfg-free modules, unit-tested on every platform from the values Microsoft documents (they
//! cannot be recorded here: no Windows machine runs in CI). The COM glue (a thread that owns
//! COM, CacheRequest snapshots, patterns, PrintWindow, SendInput) comes next and is gated on
//! `target_os = "windows"`.
//!
//! - [`translate`]: control type ids, properties and patterns → roles, states and actions.
//! - [`dpi`]: physical and logical pixels, window-relative points, SendInput's normalized
//!   absolute coordinates.

pub mod dpi;
pub mod translate;
