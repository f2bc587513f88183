//! What the service tests over the scripted backend share: a runtime, a service over a scripted
//! desktop (`Lab`), and `gui_action` steps.

use std::sync::Arc;

use cu_backend_scripted::Scripted;
use cu_core::config::Config;

use super::{ActionSpec, Service};

/// A scripted desktop with one window and the service over it; the sessions directory lives
/// as long as the lab.
pub(crate) struct Lab {
    pub backend: Scripted,
    pub service: Service,
    pub window: cu_core::window::WindowId,
    pub _dir: tempfile::TempDir,
}

impl Lab {
    /// A lab with one window from `fixture` at `origin`, effects watched for 50 ms.
    pub(crate) fn with_window(fixture: &str, origin: cu_core::geometry::Point) -> Lab {
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("{e}"),
        };
        let backend = Scripted::new();
        let window = match backend.open(fixture, origin) {
            Ok(window) => window,
            Err(e) => panic!("{e}"),
        };
        let service = service(&backend, dir.path(), 50);
        Lab {
            backend,
            service,
            window,
            _dir: dir,
        }
    }
}

/// Runs `f` to completion on a current-thread runtime with timers.
pub(crate) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(rt) => rt.block_on(f),
        Err(e) => panic!("{e}"),
    }
}

/// A service over `backend`, its sessions in `dir`, watching each step's effect for
/// `effect_wait_ms` (the scripted backend's effects are immediate).
pub(crate) fn service(backend: &Scripted, dir: &std::path::Path, effect_wait_ms: u64) -> Service {
    let mut config = Config::defaults(&|_| None);
    config.sessions_dir = dir.to_path_buf();
    let mut service = Service::new(Arc::new(backend.clone()), config);
    service.effect_wait = std::time::Duration::from_millis(effect_wait_ms);
    service
}

/// A step of `kind` with nothing else set.
pub(crate) fn step(kind: &str) -> ActionSpec {
    ActionSpec {
        kind: kind.into(),
        element_id: None,
        x: None,
        y: None,
        to_element_id: None,
        to_x: None,
        to_y: None,
        text: None,
        keys: None,
        dx: None,
        dy: None,
        ms: None,
    }
}

/// A step of `kind` on element `id`.
pub(crate) fn on(kind: &str, id: &str) -> ActionSpec {
    ActionSpec {
        element_id: Some(id.into()),
        ..step(kind)
    }
}
