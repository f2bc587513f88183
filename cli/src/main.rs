//! The `mcp-computer-use` binary: argument parsing, logging and the runtime.
//!
//! `args.rs` is the command line; [`Mode`] (`mode.rs`) is what one invocation does, made from it
//! once and run by one dispatcher, one function per command in `commands.rs` (`health.rs`,
//! `worker.rs` and `selftest.rs` hold the larger ones).
//!
//! Commands print one JSON document on stdout and exit 0 (success), 1 (the action or question
//! failed; the JSON says why) or 2 (bad usage or configuration). Logs go to stderr.

use std::process::ExitCode;

use clap::Parser;
use cu_core::config::Config;
use cu_core::error::{Error, ExitCode as CuExit};

mod args;
mod commands;
mod health;
mod mode;
mod selftest;
mod worker;

use args::Cli;
use mode::Mode;

fn main() -> ExitCode {
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help, --version.
            let _ = e.print();
            return ExitCode::from(CuExit::Success.code() as u8);
        }
        Err(e) => {
            // Bad usage answers like every other error: one JSON document with a code.
            let message = e.to_string();
            let first = message.lines().next().unwrap_or_default();
            let error = Error::new(
                cu_core::ErrorCode::InvalidArgument,
                first.trim_start_matches("error: ").to_owned(),
            )
            .with_suggestion("Run `mcp-computer-use --help` for the commands and flags.");
            emit(&error.to_json());
            eprint!("{message}");
            return ExitCode::from(CuExit::Usage.code() as u8);
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => print_error(&e),
    };
    ExitCode::from(code.code() as u8)
}

fn run(cli: Cli) -> Result<CuExit, Error> {
    let mode = Mode::from_cli(cli);
    let config = Config::load()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            Error::new(
                cu_core::ErrorCode::Internal,
                format!("cannot start the async runtime: {e}"),
            )
        })?;
    let service = mode.service(config);
    runtime.block_on(mode.run(service))
}

/// The MCP server over `service`, forwarding to the configured machines, if any.
async fn mcp_server(service: cu_tools::Service) -> Result<cu_mcp::server::McpServer, Error> {
    let remote = remote_machines(service.config()).await?;
    let server = cu_mcp::server::McpServer::new(std::sync::Arc::new(service));
    Ok(match remote {
        Some(remote) => server.with_remote(remote),
        None => server,
    })
}

/// The configured remote machines and the fleet, if any; the fleet is looked up once before the
/// first call and kept current after.
async fn remote_machines(
    config: &Config,
) -> Result<Option<std::sync::Arc<dyn cu_mcp::remote::Remote>>, Error> {
    if config.machines.is_empty() && config.fleet.is_none() {
        return Ok(None);
    }
    let remote = std::sync::Arc::new(cu_remote::RemoteMachines::with_fleet(
        &config.machines,
        config.fleet.as_ref(),
    )?);
    // A DNS server that does not answer must not hold the start: the refresh goes on after.
    match tokio::time::timeout(std::time::Duration::from_secs(3), remote.refresh()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            tracing::warn!("fleet lookup failed at start; asking again every refresh: {e}")
        }
        Err(_) => tracing::warn!("fleet lookup took over 3 s at start; asking again every refresh"),
    }
    remote.keep_current();
    Ok(Some(remote as std::sync::Arc<dyn cu_mcp::remote::Remote>))
}

/// Runs a listener until it ends or the process is asked to stop (SIGTERM, as a container
/// engine or Kubernetes sends, or Ctrl-C): then it ends at once and the process exits 0. A worker
/// runs as PID 1 in its container, where an unhandled SIGTERM would be ignored.
async fn until_stopped(
    serving: impl std::future::Future<Output = Result<(), Error>>,
) -> Result<(), Error> {
    tokio::select! {
        served = serving => served,
        () = stop_requested() => {
            tracing::info!("asked to stop");
            Ok(())
        }
    }
}

async fn stop_requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::warn!("cannot watch SIGTERM: {e}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Writes a file whole (never half a file on failure).
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    cu_core::store::persist::write_atomic(path, bytes).map_err(|e| {
        Error::new(
            cu_core::ErrorCode::Internal,
            format!("cannot write {}: {e}", path.display()),
        )
    })
}

/// Prints `{"error": …}` on stdout and returns the matching exit code.
fn print_error(e: &Error) -> CuExit {
    emit(&e.to_json());
    e.exit_code()
}

/// Writes one compact JSON line to stdout (and flushes: a worker stays running after it).
pub(crate) fn emit_line(value: &serde_json::Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

/// Writes one JSON document to stdout.
pub(crate) fn emit<T: serde::Serialize + ?Sized>(value: &T) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = writeln!(out);
}

/// Logs to stderr at `MCP_CU_LOG` (default `warn`). The MCP library's own logs are capped at
/// `warn` whatever the setting: at debug level it prints whole messages, typed text included,
/// and typed text never reaches a log.
fn init_logging() {
    let wanted = std::env::var("MCP_CU_LOG").unwrap_or_else(|_| "warn".to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(format!("{wanted},rmcp=warn,zbus=error"))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
