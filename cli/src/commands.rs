//! One function per command: each takes the service and its arguments, prints its answer on
//! stdout and says how the process exits. [`crate::mode::Mode::run`] is the one dispatcher.

use std::io::Write;
use std::sync::Arc;

use cu_core::error::{Error, ExitCode as CuExit};
use cu_core::model::window::WindowId;
use cu_core::ErrorCode;
use cu_tools::Service;

use crate::args::{
    ActArgs, CallArgs, DesktopCallArgs, OpenArgs, SelftestArgs, ServeArgs, SnapshotArgs, StateArgs,
    WebuiArgs, WorkerArgs,
};
use crate::{emit, mcp_server, remote_machines, selftest, worker, write_atomically};

/// A serialization failure of one of our own answers.
fn internal(e: serde_json::Error) -> Error {
    Error::new(ErrorCode::Internal, e.to_string())
}

/// Prints `value` as the answer and exits 0.
fn answered<T: serde::Serialize>(value: &T) -> Result<CuExit, Error> {
    emit(&serde_json::to_value(value).map_err(internal)?);
    Ok(CuExit::Success)
}

/// Exit 0 when `ok`, else 1 (the answer says why).
fn exit_of(ok: bool) -> CuExit {
    if ok {
        CuExit::Success
    } else {
        CuExit::Failed
    }
}

/// MCP over stdio, with the health endpoint when `health_http` or the configuration asks.
pub(crate) async fn stdio(service: Service, health_http: bool) -> Result<CuExit, Error> {
    let server = mcp_server(service).await?;
    let service = server.service().clone();
    if health_http || service.config().health_http {
        let port = service.config().health_port;
        tokio::spawn(async move {
            if let Err(e) = cu_mcp::http::serve_health(service, port).await {
                tracing::warn!("health endpoint: {e}");
            }
        });
    }
    cu_mcp::server::serve_stdio(server).await?;
    Ok(CuExit::Success)
}

/// `--ask`: one look_at_screen, its JSON on stdout, the image to `image_out`; exit 1 when the
/// model failed (the JSON then carries the error and `extracted`).
pub(crate) async fn ask(
    service: &Service,
    request: cu_tools::LookRequest,
    image_out: Option<&std::path::Path>,
) -> Result<CuExit, Error> {
    let outcome = service.look_at_screen(&request).await?;
    if let (Some(path), Some(jpeg)) = (image_out, &outcome.jpeg) {
        write_atomically(path, jpeg)?;
    }
    emit(&outcome.body);
    Ok(exit_of(!outcome.failed()))
}

/// `--release`.
pub(crate) async fn release(service: &Service) -> Result<CuExit, Error> {
    answered(&service.model().release().await?)
}

/// `--click` and `--click-steps`.
pub(crate) async fn click(
    service: &Service,
    request: cu_tools::ClickRequest,
) -> Result<CuExit, Error> {
    answered(&service.click(&request).await?)
}

/// `--type`.
pub(crate) async fn type_text(
    service: &Service,
    request: cu_tools::TypeRequest,
) -> Result<CuExit, Error> {
    answered(&service.type_text(&request).await?)
}

/// `list`.
pub(crate) async fn list(service: &Service) -> Result<CuExit, Error> {
    answered(&service.gui_list().await?)
}

/// `state`: the outline as text (or the whole answer with `--json`), the JPEG to a file.
pub(crate) async fn state(service: &Service, args: StateArgs) -> Result<CuExit, Error> {
    let request = cu_tools::StateRequest {
        window_id: WindowId(args.window),
        all: args.all,
        max_elements: args.max_elements,
        points: args.points,
        bounds: args.bounds,
        query: args.query,
        screenshot: args.screenshot.is_some(),
        ..Default::default()
    };
    let result = service.gui_state(&request).await?;
    if let (Some(path), Some(jpeg)) = (&args.screenshot, &result.jpeg) {
        write_atomically(path, jpeg)?;
    }
    if args.json {
        return answered(&result);
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "state_id: {} (use once, within 30 s)", result.state_id);
    let _ = write!(out, "{}", result.outline);
    Ok(CuExit::Success)
}

/// `act`: the steps of ACTIONS_JSON on the observed window.
pub(crate) async fn act(service: &Service, args: ActArgs) -> Result<CuExit, Error> {
    let actions: Vec<cu_tools::Step> = serde_json::from_str(&args.actions_json).map_err(|e| {
        Error::new(
            ErrorCode::InvalidArgument,
            format!("ACTIONS_JSON is not a valid list of actions: {e}"),
        )
        .with_suggestion(r#"Pass a JSON list such as '[{"type":"click","element_id":"e7"}]'."#)
    })?;
    let request = cu_tools::ActionRequest {
        window_id: WindowId(args.window),
        state_id: args.state_id,
        actions,
        confirm_dangerous: args.confirm_dangerous,
        ..Default::default()
    };
    answered(&service.gui_action(&request).await?)
}

/// `serve`: MCP over stdio, or over Streamable HTTP with `--http`.
pub(crate) async fn serve(service: Service, args: ServeArgs) -> Result<CuExit, Error> {
    let Some(addr) = args.http else {
        return stdio(service, false).await;
    };
    let options = args.listener.options(addr, args.insecure_no_auth)?;
    crate::until_stopped(cu_mcp::http::serve_http(
        mcp_server(service).await?,
        options,
    ))
    .await?;
    Ok(CuExit::Success)
}

/// `worker`: this machine's tool service for controllers.
pub(crate) async fn worker(service: Service, args: WorkerArgs) -> Result<CuExit, Error> {
    let options = args.listener.options(args.listen, false)?;
    let desktop = match cu_mcp::http::read_desktop_token(
        args.desktop_token_file.as_deref(),
        options.token.as_deref(),
    )? {
        Some(token) => cu_mcp::server::DesktopAccess::Credential(token.into()),
        None => cu_mcp::server::DesktopAccess::ReadOnly,
    };
    worker::run(service, options, args.tls_self_signed, desktop).await
}

/// `webui`: the Desktop page.
pub(crate) async fn webui(service: Service, args: WebuiArgs) -> Result<CuExit, Error> {
    let options = args.listener.options(args.listen, false)?;
    let remote = remote_machines(service.config()).await?;
    let webui = cu_webui::WebUi::new(Arc::new(service), remote);
    crate::until_stopped(cu_webui::serve(webui, options)).await?;
    Ok(CuExit::Success)
}

/// `call`: any tool of the MCP server in this process.
pub(crate) async fn call(service: Service, args: CallArgs) -> Result<CuExit, Error> {
    let arguments = match serde_json::from_str::<serde_json::Value>(&args.args_json) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the arguments must be one JSON object",
            )
            .with_suggestion("Quote them for the shell: '{\"window_id\":\"x11:0x…\"}'."))
        }
    };
    let server = mcp_server(service).await?;
    let answer =
        cu_mcp::wire::answer_json(server.call_answering_panics(&args.tool, arguments).await)?;
    emit(&answer);
    Ok(CuExit::Success)
}

/// `desktop-call`: the Desktop page's internal call.
pub(crate) async fn desktop_call(service: Service, args: DesktopCallArgs) -> Result<CuExit, Error> {
    let value = worker::desktop_call(&args.machine, &args.request_json, service).await?;
    emit(&value);
    Ok(CuExit::Success)
}

/// `open`: one JSON line; exit 1 when no window came.
pub(crate) async fn open(service: &Service, args: OpenArgs) -> Result<CuExit, Error> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 600.0) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            "--timeout must be between 0 and 600 seconds",
        ));
    }
    let request = cu_tools::OpenRequest {
        program: args.program,
        args: args.args,
        timeout: std::time::Duration::from_secs_f64(args.timeout),
        verify: !args.no_verify,
    };
    let result = service.open(&request).await?;
    let line = serde_json::to_string(&result).map_err(internal)?;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
    Ok(exit_of(result.ok))
}

/// `selftest`: a table (or JSON); exit 1 when a check failed.
pub(crate) async fn selftest(service: &Service, args: SelftestArgs) -> Result<CuExit, Error> {
    let report = selftest::run(service).await;
    if args.json {
        emit(&report);
    } else {
        let _ = write!(std::io::stdout().lock(), "{}", report.table());
    }
    Ok(exit_of(report.ok))
}

/// `snapshot`: one window's raw element tree.
pub(crate) async fn snapshot(service: &Service, args: SnapshotArgs) -> Result<CuExit, Error> {
    let options = cu_core::model::element::SnapshotOptions {
        max_nodes: args.max_nodes,
        time_budget_ms: args.budget_ms,
        ..Default::default()
    };
    answered(
        &service
            .backend()
            .snapshot(&args.window.as_str().into(), &options)
            .await?,
    )
}
