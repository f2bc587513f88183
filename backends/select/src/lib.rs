//! The one place that picks the platform backend.
//!
//! [`platform_backend`] returns the adapter compiled in for this OS, or the
//! [`Unavailable`](cu_core::backend::Unavailable) fallback that answers every GUI call with
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
        Arc::new(Unavailable::new(unavailable_reason()))
    }
}

/// Why no adapter is available in this build, for the fallback's error message.
pub fn unavailable_reason() -> String {
    let os = std::env::consts::OS;
    let adapter_feature = match os {
        "linux" => "linux",
        "windows" => "windows",
        "macos" => "macos",
        _ => return format!("no desktop backend exists for {os}"),
    };
    let compiled = match os {
        "linux" => cfg!(feature = "linux"),
        _ => false,
    };
    if compiled {
        format!("the {adapter_feature} adapter is compiled in")
    } else {
        format!(
            "this build has no {adapter_feature} desktop adapter (cargo feature `{adapter_feature}` of cu-backends is off or not yet implemented for {os})"
        )
    }
}

/// A backend that never connects: used by tests and by builds that want no GUI at all.
pub fn no_gui_backend(reason: &str) -> Arc<dyn Backend> {
    Arc::new(Unavailable::new(reason))
}
