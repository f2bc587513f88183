//! What the service tests over the scripted backend share: a runtime, a service over a scripted
//! desktop (`Lab`), and `gui_action` steps.

use std::sync::Arc;

use cu_backend_scripted::Scripted;
use cu_core::config::Config;

use cu_backend_scripted::DESKTOP;
use cu_core::model::element::DesktopInstance;

use super::{ActionRequest, Service, StateRequest, Step};

/// A scripted desktop with one window and the service over it; the sessions directory lives
/// as long as the lab.
pub(crate) struct Lab {
    pub backend: Scripted,
    pub service: Service,
    pub window: cu_core::model::window::WindowId,
    pub _dir: tempfile::TempDir,
}

impl Lab {
    /// A lab with one window from `fixture` at `origin`, effects watched for 50 ms.
    pub(crate) fn with_window(fixture: &str, origin: cu_core::model::geometry::Point) -> Lab {
        Lab::watching(fixture, origin, 50)
    }

    /// A lab with one window from `fixture` at `origin`, effects watched for `effect_wait_ms`.
    pub(crate) fn watching(
        fixture: &str,
        origin: cu_core::model::geometry::Point,
        effect_wait_ms: u64,
    ) -> Lab {
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("{e}"),
        };
        let backend = Scripted::new();
        let window = match backend.open(fixture, origin) {
            Ok(window) => window,
            Err(e) => panic!("{e}"),
        };
        let service = service(&backend, dir.path(), effect_wait_ms);
        Lab {
            backend,
            service,
            window,
            _dir: dir,
        }
    }
}

/// What the gate's tests do with a lab: observe, act, and check the state.
impl Lab {
    /// `gui_state`, optionally limited; returns (state_id, outline).
    pub(crate) async fn observe(&self, max_elements: Option<usize>) -> (String, String) {
        self.observe_with(StateRequest {
            window_id: self.window.clone(),
            max_elements,
            ..StateRequest::default()
        })
        .await
    }

    pub(crate) async fn observe_with(&self, req: StateRequest) -> (String, String) {
        match self.service.gui_state(&req).await {
            Ok(s) => (s.state_id, s.outline),
            Err(e) => panic!("gui_state: {}", e.message),
        }
    }

    /// The id of the outline line naming `name`.
    pub(crate) fn id(outline: &str, name: &str) -> String {
        outline
            .lines()
            .find(|l| l.contains(&format!("\"{name}\"")))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no {name:?} in\n{outline}"))
    }

    pub(crate) async fn act(
        &self,
        state: &str,
        actions: Vec<Step>,
        confirm: bool,
    ) -> cu_core::Result<super::ActionResult> {
        self.service
            .gui_action(&ActionRequest {
                window_id: self.window.clone(),
                state_id: state.to_owned(),
                actions,
                confirm_dangerous: confirm,
                ..Default::default()
            })
            .await
    }

    /// The state can still be used (not consumed, not expired).
    pub(crate) fn usable(&self, state: &str) -> bool {
        self.service
            .states
            .load(state, &DesktopInstance(DESKTOP.into()))
            .is_ok()
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

/// A step as the wire writes it (`{"type": "click", "element_id": "e2"}`).
pub(crate) fn step(wire: serde_json::Value) -> Step {
    serde_json::from_value(wire.clone()).unwrap_or_else(|e| panic!("{wire}: {e}"))
}

/// A step of `kind` on element `id`.
pub(crate) fn on(kind: &str, id: &str) -> Step {
    step(serde_json::json!({ "type": kind, "element_id": id }))
}
