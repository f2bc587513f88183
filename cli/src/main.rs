//! The `mcp-computer-use` binary: argument parsing, logging and the runtime.
//!
//! Commands print one JSON document on stdout and exit 0 (success), 1 (the action or question
//! failed; the JSON says why) or 2 (bad usage or configuration). Logs go to stderr.

use std::process::ExitCode;

use clap::Parser;
use cu_core::config::Config;
use cu_core::error::{Error, ExitCode as CuExit};

mod health;

/// See and operate desktop windows from coding agents, cheaply and safely.
#[derive(Debug, Parser)]
#[command(name = "mcp-computer-use", version, about)]
struct Cli {
    /// Check the configuration, the display and the accessibility bus, and print a JSON report.
    #[arg(long)]
    health: bool,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List windows with ids, app, title, pid, bounds and focus.
    List,
    /// Print one window's raw element tree as JSON (the backend's snapshot).
    Snapshot {
        /// Window id from `list`.
        window: String,
        /// Stop after this many nodes.
        #[arg(long, default_value_t = 5000)]
        max_nodes: u32,
        /// Time budget in milliseconds.
        #[arg(long, default_value_t = 3000)]
        budget_ms: u64,
    },
}

fn main() -> ExitCode {
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                CuExit::Usage
            } else {
                CuExit::Success
            };
            let _ = e.print();
            return ExitCode::from(code.code() as u8);
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => print_error(&e),
    };
    ExitCode::from(code.code() as u8)
}

fn run(cli: Cli) -> Result<CuExit, Error> {
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
    if cli.health {
        return runtime.block_on(health::run(&config));
    }
    if let Some(command) = cli.command {
        return runtime.block_on(run_command(command));
    }
    Err(Error::new(
        cu_core::ErrorCode::InvalidArgument,
        "no command given; the MCP server arrives with the server issue. Try --health.",
    )
    .with_suggestion("Run `mcp-computer-use --help`."))
}

async fn run_command(command: Command) -> Result<CuExit, Error> {
    let backend = cu_backends::platform_backend();
    let value = match command {
        Command::List => serde_json::json!({ "windows": backend.list_windows().await? }),
        Command::Snapshot {
            window,
            max_nodes,
            budget_ms,
        } => {
            let options = cu_core::element::SnapshotOptions {
                max_nodes,
                time_budget_ms: budget_ms,
                ..Default::default()
            };
            let snapshot = backend.snapshot(&window.as_str().into(), &options).await?;
            serde_json::to_value(snapshot)
                .map_err(|e| Error::new(cu_core::ErrorCode::Internal, e.to_string()))?
        }
    };
    emit(&value);
    Ok(CuExit::Success)
}

/// Prints `{"error": …}` on stdout and returns the matching exit code.
fn print_error(e: &Error) -> CuExit {
    emit(&e.to_json());
    e.exit_code()
}

/// Writes one JSON document to stdout.
pub(crate) fn emit(value: &serde_json::Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = writeln!(out);
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_CU_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
