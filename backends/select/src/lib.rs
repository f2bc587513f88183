//! The one place that picks the platform backend.
//!
//! [`platform_backend`] returns the adapter compiled in for this OS, or the
//! [`Unavailable`] fallback that answers every GUI call with
//! `GUI_UNAVAILABLE` and says why. Nothing connects here: adapters connect lazily on their first
//! GUI call, so a machine without a desktop starts fine.
//!
//! # Platform-specific
//!
//! - **Linux**: feature `linux` (default) selects AT-SPI + X11 (or the portal on Wayland).
//! - **Windows**: feature `windows` (default) selects UI Automation + SendInput + PrintWindow.
//! - **macOS**: feature `macos` (default) selects Accessibility (AX) + Quartz events and capture.
//!
//! A build without the feature for its OS answers `GUI_UNAVAILABLE` and says why.

use std::sync::Arc;

use cu_core::model::backend::{Backend, Unavailable};

/// The backend for this machine, not yet connected.
pub fn platform_backend() -> Arc<dyn Backend> {
    #[cfg(all(target_os = "linux", feature = "linux"))]
    {
        Arc::new(cu_backend_linux::LinuxBackend::new())
    }
    #[cfg(all(windows, feature = "windows"))]
    {
        Arc::new(cu_backend_windows::WindowsBackend::new())
    }
    #[cfg(all(target_os = "macos", feature = "macos"))]
    {
        Arc::new(cu_backend_macos::MacBackend::new())
    }
    #[cfg(not(any(
        all(target_os = "linux", feature = "linux"),
        all(windows, feature = "windows"),
        all(target_os = "macos", feature = "macos")
    )))]
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

#[cfg(test)]
mod tests {
    use cu_core::ErrorCode;

    /// Runs under `cargo test -p cu-backends --no-default-features` (scripts/test.sh does): a
    /// build without adapters compiles and answers GUI calls with GUI_UNAVAILABLE.
    #[cfg(not(any(
        all(target_os = "linux", feature = "linux"),
        all(windows, feature = "windows"),
        all(target_os = "macos", feature = "macos")
    )))]
    #[test]
    fn build_without_adapters_answers_gui_unavailable() {
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        let Ok(runtime) = runtime else {
            panic!("no runtime")
        };
        let backend = super::platform_backend();
        let err = runtime.block_on(backend.list_windows()).err();
        assert_eq!(
            err.as_ref().map(|e| e.code),
            Some(ErrorCode::GuiUnavailable)
        );
        assert!(err.is_some_and(|e| e.message.contains("no desktop adapter")));
    }

    #[test]
    fn the_fallback_never_connects_and_says_why() {
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        let Ok(runtime) = runtime else {
            panic!("no runtime")
        };
        let backend = super::no_gui_backend("headless worker");
        let err = runtime.block_on(backend.info()).err();
        assert_eq!(
            err.as_ref().map(|e| e.code),
            Some(ErrorCode::GuiUnavailable)
        );
        assert_eq!(err.map(|e| e.message), Some("headless worker".to_owned()));
    }
}
