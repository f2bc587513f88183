//! `--health`: configuration, display, accessibility bus, model server and model, as one JSON
//! report (the `health` tool's, plus the backend's own checks).

use cu_core::error::{Error, ExitCode};

pub(crate) async fn run(service: cu_tools::Service) -> Result<ExitCode, Error> {
    let checks = service.backend().health().await;
    let file = service
        .config()
        .file
        .as_ref()
        .map(|p| p.display().to_string());
    let mut report = serde_json::to_value(service.health().await).unwrap_or_default();
    let ok = checks.iter().all(|c| c.ok) && report["ok"] == true;
    report["ok"] = serde_json::json!(ok);
    report["config_file"] = serde_json::json!(file);
    report["checks"] = serde_json::json!(checks);
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
