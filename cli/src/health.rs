//! `--health`: configuration, display and accessibility bus, as one JSON report.

use cu_core::config::Config;
use cu_core::error::{Error, ExitCode};

pub(crate) async fn run(config: &Config) -> Result<ExitCode, Error> {
    let backend = cu_backends::platform_backend();
    let checks = backend.health().await;
    let ok = checks.iter().all(|c| c.ok);
    let report = serde_json::json!({
        "ok": ok,
        "config_file": config.file.as_ref().map(|p| p.display().to_string()),
        "sessions_dir": config.sessions_dir.display().to_string(),
        "checks": checks,
        "backend": backend.info().await.ok(),
    });
    crate::emit(&strip_nulls(report));
    Ok(if ok {
        ExitCode::Success
    } else {
        ExitCode::Failed
    })
}

/// Removes null fields, so answers stay small.
fn strip_nulls(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k, strip_nulls(v)))
            .collect(),
        serde_json::Value::Array(items) => items.into_iter().map(strip_nulls).collect(),
        other => other,
    }
}
