//! `worker` and `desktop-call`: this machine as a remote worker, and the Desktop page's internal
//! call from the command line.

use std::sync::Arc;

use cu_core::config::Config;
use cu_core::error::{Error, ExitCode as CuExit};
use cu_core::ErrorCode;
use cu_mcp::remote::Remote as _;

/// Serves this machine's tool service until the process ends; `self_signed` makes (once) and
/// uses a self-signed certificate instead of the listener's TLS files; `desktop` says who may
/// decide approvals and send input from a Desktop page.
pub(crate) async fn run(
    service: cu_tools::Service,
    mut options: cu_mcp::http::HttpOptions,
    self_signed: bool,
    desktop: cu_mcp::server::DesktopAccess,
) -> Result<CuExit, Error> {
    let mut fingerprint = None;
    if self_signed {
        let (files, print) = self_signed_files(service.config(), &options.addr)?;
        options.tls = Some(files);
        fingerprint = Some(print);
    }
    cu_mcp::http::check_listener(&options)?;
    let scheme = if options.tls.is_some() {
        "https"
    } else {
        "http"
    };
    // Say at once whether this user's desktop session is reachable; without one the worker
    // still serves, and its GUI calls answer GUI_UNAVAILABLE with the same reason.
    let problems: Vec<String> = service
        .backend()
        .health()
        .await
        .into_iter()
        .filter(|check| !check.ok)
        .map(|check| format!("{}: {}", check.name, check.detail))
        .collect();
    if !problems.is_empty() {
        tracing::warn!(
            "no desktop session reachable as this user ({}); run the worker as the user who owns the graphical session",
            problems.join("; ")
        );
    }
    let session = if problems.is_empty() {
        "available".to_owned()
    } else {
        format!("unavailable: {}", problems.join("; "))
    };
    let announce = serde_json::json!({
        "listening": format!("{scheme}://{}/mcp", options.addr),
        "fingerprint": fingerprint,
        "desktop": session,
    });
    let server = cu_mcp::server::McpServer::new(Arc::new(service)).with_internal_calls(desktop);
    // Announced once the socket is bound: a controller reading the line connects at once.
    crate::until_stopped(cu_mcp::http::serve_http_then(server, options, || {
        crate::emit_line(&announce)
    }))
    .await?;
    Ok(CuExit::Success)
}

fn self_signed_files(
    config: &Config,
    listen: &std::net::SocketAddr,
) -> Result<(cu_mcp::http::TlsFiles, String), Error> {
    let names = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        listen.ip().to_string(),
    ];
    let made = cu_remote::self_signed(&config.sessions_dir.join("worker-tls"), &names)?;
    tracing::info!(fingerprint = %made.fingerprint, "self-signed worker certificate");
    Ok((
        cu_mcp::http::TlsFiles {
            cert: made.cert,
            key: made.key,
        },
        made.fingerprint,
    ))
}

/// Runs one internal desktop request on `machine` (or here, for `local`).
pub(crate) async fn desktop_call(
    machine: &str,
    request_json: &str,
    service: cu_tools::Service,
) -> Result<serde_json::Value, Error> {
    let request: serde_json::Value = serde_json::from_str(request_json).map_err(|e| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!("REQUEST_JSON is not JSON: {e}"),
        )
    })?;
    let summarize = cu_mcp::wire::answer_json;
    let args = request.as_object().cloned().unwrap_or_default();
    if machine == "local" {
        let server = cu_mcp::server::McpServer::new(Arc::new(service))
            .with_internal_calls(cu_mcp::server::DesktopAccess::InProcess);
        return summarize(
            server
                .call(cu_mcp::wire::INTERNAL_DESKTOP_CALL, args)
                .await?,
        );
    }
    let remote = cu_remote::RemoteMachines::new(&service.config().machines);
    summarize(
        remote
            .call(machine, cu_mcp::wire::INTERNAL_DESKTOP_CALL, args)
            .await?,
    )
}
