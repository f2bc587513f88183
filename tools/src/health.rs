//! `health`: the desktop backend and the model server, each checked now.

use cu_core::model::backend::BackendInfo;
use serde::Serialize;

use crate::llm::ModelHealth;
use crate::service::Service;

impl Service {
    /// `health`: the desktop backend, the model server, auto-start; `ok` when both work.
    pub async fn health(&self) -> HealthReport {
        // What the backend depends on, checked now (a display that went away since the
        // backend connected shows here, not only in the next failing call).
        let (info, checks) = tokio::join!(self.backend.info(), self.backend.health());
        let gui = match info {
            Ok(info) => GuiHealth {
                backend: Some(info),
                ok: checks.iter().all(|c| c.ok),
                checks,
                error: None,
            },
            Err(e) => GuiHealth {
                backend: None,
                checks,
                error: Some(e.to_json()["error"].clone()),
                ok: false,
            },
        };
        let model = self.model.health().await;
        let (ollama_autostarted, last_autostart) = self.model.autostart_report();
        HealthReport {
            ok: gui.ok && model.ok,
            gui,
            last_autostart,
            model,
            ollama_autostarted,
            sessions_dir: self.config.sessions_dir.clone(),
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// `health`'s answer (fields in alphabetical order, as the JSON text has always listed them).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HealthReport {
    /// The desktop side.
    pub gui: GuiHealth,
    /// The last Ollama auto-start attempt, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_autostart: Option<cu_llm::autostart::AutostartReport>,
    /// The model side.
    pub model: ModelHealth,
    /// Both sides work.
    pub ok: bool,
    /// This process started Ollama.
    pub ollama_autostarted: bool,
    /// Where states, sessions and the audit log live.
    pub sessions_dir: std::path::PathBuf,
    /// This build's version.
    pub version: &'static str,
}

/// The desktop side of `health`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GuiHealth {
    /// The backend and its capabilities, when it connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendInfo>,
    /// The backend's own checks (session, display, accessibility bus).
    pub checks: Vec<cu_core::model::backend::HealthCheck>,
    /// Why the backend could not connect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
    /// Every check passed and the backend connected.
    pub ok: bool,
}
