//! The one place that picks the platform backend.
//!
//! [`platform_backend`] returns the adapter compiled in for this OS, or the
//! [`Unavailable`] fallback that answers every GUI call with
//! `GUI_UNAVAILABLE` and says why. Nothing connects here: adapters connect lazily on their first
//! GUI call, so a machine without a desktop starts fine.
//!
//! # Platform-specific
//!
//! - **Linux**: feature `linux` (default) selects AT-SPI + X11.
//! - **Windows**, **macOS**: features `windows` and `macos` are reserved for their adapters; until
//!   those land the fallback answers `GUI_UNAVAILABLE`.

use std::sync::Arc;

use cu_core::backend::{Backend, Unavailable};

/// The backend for this machine, not yet connected.
pub fn platform_backend() -> Arc<dyn Backend> {
    #[cfg(all(target_os = "linux", feature = "linux"))]
    {
        Arc::new(cu_backend_linux::LinuxBackend::new())
    }
    #[cfg(not(all(target_os = "linux", feature = "linux")))]
    {
        no_gui_backend(&format!(
            "this build has no desktop adapter for {} (the cargo feature for it is off, or the adapter is not implemented yet)",
            std::env::consts::OS
        ))
    }
}

/// A backend that never connects and answers every GUI call with `GUI_UNAVAILABLE` and `reason`.
pub fn no_gui_backend(reason: &str) -> Arc<dyn Backend> {
    Arc::new(Unavailable::new(reason))
}
