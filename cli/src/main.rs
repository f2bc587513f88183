//! The `mcp-computer-use` binary: argument parsing, logging and the runtime.
//!
//! Commands print one JSON document on stdout and exit 0 (success), 1 (the action or question
//! failed; the JSON says why) or 2 (bad usage or configuration). Logs go to stderr.

use std::process::ExitCode;

use clap::Parser;
use cu_core::config::Config;
use cu_core::error::{Error, ExitCode as CuExit};
use cu_core::window::WindowId;

mod health;
mod selftest;
mod worker;

/// See and operate desktop windows from coding agents, cheaply and safely.
///
/// The modes (`--health`, `--ask`, `--release`, `--click`, `--click-steps`, `--type`,
/// `--health-http`, or a command) exclude each other: `--health list` is a usage error, not a
/// health check that ignores `list`.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-computer-use",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
#[command(group(clap::ArgGroup::new("mode").multiple(false)
    .args(["health", "ask", "release", "health_http", "click", "click_steps", "type_text"])))]
#[command(group(clap::ArgGroup::new("label_mode").multiple(false)
    .args(["click", "click_steps", "type_text"])))]
struct Cli {
    /// Check everything (configuration, display, accessibility bus, model server and model) and
    /// print a JSON report; exit 1 when something does not work.
    #[arg(long)]
    health: bool,

    /// Ask one question about a window (look_at_screen) and print the JSON answer.
    #[arg(long, value_name = "QUESTION", conflicts_with_all = ["health", "click", "click_steps", "type_text", "release"])]
    ask: Option<String>,

    /// With --ask: the app name, window title or window id (default: the focused window).
    #[arg(long, value_name = "APP", requires = "ask")]
    app: Option<String>,

    /// With --ask: also capture the window and write the JPEG here.
    #[arg(long, value_name = "FILE", requires = "ask")]
    image_out: Option<std::path::PathBuf>,

    /// With --ask: the session's client and id (changed_since_last, cached answers).
    #[arg(long, value_names = ["CLIENT", "SESSION_ID"], num_args = 2, requires = "ask")]
    session: Option<Vec<String>>,

    /// Unload the local model now and print how much memory was freed.
    #[arg(long)]
    release: bool,

    /// With the stdio MCP server: also serve GET /health on 127.0.0.1:8765 (health.port).
    #[arg(long)]
    health_http: bool,

    /// Click the element labelled LABEL in APP's window: --click APP LABEL.
    #[arg(long, num_args = 2, value_names = ["APP", "LABEL"], conflicts_with_all = ["click_steps", "type_text"])]
    click: Option<Vec<String>>,

    /// Click labels in order, each on a fresh observation (1 to 10): --click-steps APP L1 L2…
    #[arg(long, num_args = 2..=11, value_names = ["APP", "LABEL"], conflicts_with = "type_text")]
    click_steps: Option<Vec<String>>,

    /// Replace the text of APP's field TARGET (its label, or a role word such as "text field").
    #[arg(long = "type", num_args = 3, value_names = ["APP", "TARGET", "TEXT"])]
    type_text: Option<Vec<String>>,

    /// With --click, --click-steps or --type: the user explicitly approved a dangerous action.
    #[arg(long, requires = "label_mode")]
    confirm_dangerous: bool,

    #[command(subcommand)]
    command: Option<Command>,
}

/// The token and TLS files every HTTP listener takes (`serve --http`, `worker`, `webui`).
#[derive(Debug, clap::Args)]
struct ListenerArgs {
    /// File holding the bearer token (else MCP_CU_HTTP_TOKEN; never on the command line).
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// TLS certificate chain (PEM); needed for non-loopback addresses (build feature `tls`).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
}

impl ListenerArgs {
    /// The listener options for `addr` (the token read now).
    fn options(
        self,
        addr: std::net::SocketAddr,
        insecure_no_auth: bool,
    ) -> Result<cu_mcp::http::HttpOptions, Error> {
        Ok(cu_mcp::http::HttpOptions {
            addr,
            token: cu_mcp::http::read_token(self.token_file.as_deref())?,
            insecure_no_auth,
            tls: self
                .tls_cert
                .zip(self.tls_key)
                .map(|(cert, key)| cu_mcp::http::TlsFiles { cert, key }),
        })
    }
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List windows with ids, app, title, pid, bounds and focus, and the backend's capabilities.
    List,
    /// Observe one window: a state_id (30 s, single use) and the compact outline.
    State {
        /// Window id from `list`.
        window: String,
        /// List every element, not only interactive and text ones.
        #[arg(long)]
        all: bool,
        /// Print the whole answer as JSON.
        #[arg(long)]
        json: bool,
        /// Also write a JPEG of the window here.
        #[arg(long, value_name = "FILE")]
        screenshot: Option<std::path::PathBuf>,
        /// List at most this many elements.
        #[arg(long)]
        max_elements: Option<usize>,
        /// Each element's click point (@x,y, its centre).
        #[arg(long)]
        points: bool,
        /// Each element's full bounds (x,y wxh).
        #[arg(long)]
        bounds: bool,
        /// Only the elements whose name, value or description contains this text.
        #[arg(long)]
        query: Option<String>,
    },
    /// Act on a window with the state_id of an observation: ACTIONS_JSON is a JSON list such as
    /// '[{"type":"click","element_id":"e7"}]'.
    Act {
        /// Window id the state was taken of.
        window: String,
        /// The state_id `state` printed.
        state_id: String,
        /// The steps, as a JSON list.
        actions_json: String,
        /// The user explicitly approved a dangerous action.
        #[arg(long)]
        confirm_dangerous: bool,
    },
    /// Serve MCP: over stdio (the default with no command at all), or over Streamable HTTP at
    /// http://ADDR/mcp with a bearer token from --token-file or MCP_CU_HTTP_TOKEN.
    Serve {
        /// Listen on this address (loopback; other addresses need TLS).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Serve without a token (loopback only; for local tools).
        #[arg(long)]
        insecure_no_auth: bool,
        #[command(flatten)]
        listener: ListenerArgs,
    },
    /// Launch an app (program, path or URI), wait for its window, check it can be observed, and
    /// print one JSON line: ok, app (to use with the tools), title, process, pid, seconds, hint,
    /// verified. Exits 1 when no window came. Never closes or moves other windows.
    Open {
        /// Program name or path, document path, or URI.
        program: String,
        /// Seconds to wait for the window.
        #[arg(long, default_value_t = 15.0)]
        timeout: f64,
        /// Do not check that the window can be observed.
        #[arg(long)]
        no_verify: bool,
        /// Arguments for the program (everything after --args).
        #[arg(long, num_args = 1.., allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Serve this machine's whole tool service to controllers over MCP Streamable HTTP at
    /// https://ADDR/mcp (http on loopback). Run it as the user who owns the desktop session. The
    /// token comes from --token-file or MCP_CU_HTTP_TOKEN; non-loopback addresses need TLS
    /// (--tls-cert/--tls-key, or --tls-self-signed). Prints one JSON line when listening.
    Worker {
        /// Address to listen on.
        #[arg(long, value_name = "ADDR")]
        listen: std::net::SocketAddr,
        #[command(flatten)]
        listener: ListenerArgs,
        /// Make (once, in the sessions directory) and use a self-signed certificate; its SHA-256
        /// fingerprint is printed for the controller's `fingerprint`.
        #[arg(long, conflicts_with = "tls_cert")]
        tls_self_signed: bool,
        /// File holding the desktop credential (else MCP_CU_DESKTOP_TOKEN), a second token that
        /// a controller's Desktop page needs to decide approvals and send a person's input here.
        /// Without it those are off; the tool token never allows them.
        #[arg(long, value_name = "FILE")]
        desktop_token_file: Option<std::path::PathBuf>,
    },
    /// Serve the Desktop page at http://ADDR/ (loopback by default; other addresses need TLS):
    /// a person sees and operates windows of this machine and the configured ones, and approves
    /// or denies actions the safety gate holds (with `approvals` on). Open it once with
    /// /?token=TOKEN (from --token-file or MCP_CU_HTTP_TOKEN).
    Webui {
        /// Address to listen on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8766")]
        listen: std::net::SocketAddr,
        #[command(flatten)]
        listener: ListenerArgs,
    },
    /// Call any tool of the MCP server in this process, with its JSON arguments, and print its
    /// JSON answer: `call gui_wait '{"window_id":"x11:0x…","condition":{"until":"appears","name":"Done"}}'`.
    /// The same table, checks and audit as over MCP (`machine` routes to a worker too).
    Call {
        /// The tool's name, as `tools/list` gives it.
        tool: String,
        /// Its arguments, a JSON object (default `{}`).
        #[arg(default_value = "{}")]
        args_json: String,
    },
    /// The Desktop page's internal call, for tests and tools: REQUEST_JSON such as
    /// '{"op":"windows"}', '{"op":"capture","window_id":"…"}' or an input with its geometry,
    /// answered by MACHINE's worker (or this machine with `local`). Never an MCP tool.
    DesktopCall {
        /// A configured machine, or `local`.
        machine: String,
        /// The request.
        request_json: String,
    },
    /// First contact on a new OS: opens the platform's calculator and a text editor, runs
    /// list → observe → act (7 × 6 = by element ids, then by label) → verify, a click at an
    /// element's point, a capture, non-ASCII typing read back, and closes what it opened (the
    /// editor's "Don't save"). Prints a table; exit 1 when a check failed.
    Selftest {
        /// Print the report as JSON (versions, OS, backend, scale, each check with its error).
        #[arg(long)]
        json: bool,
    },
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

/// What one invocation does. The predecessor's flags and the subcommands are one grammar: clap
/// lets at most one mode through (`--health list` is a usage error), and it becomes exactly one
/// of these, dispatched once in [`Mode::run`].
enum Mode {
    /// No mode, or `serve` without `--http`: MCP over stdio, the way agents start us (with the
    /// health endpoint when `--health-http` or the configuration asks).
    Stdio { health_http: bool },
    /// `--health`.
    Health,
    /// `--ask QUESTION [--app APP] [--image-out FILE] [--session CLIENT ID]`.
    Ask {
        request: cu_tools::LookRequest,
        image_out: Option<std::path::PathBuf>,
    },
    /// `--release`.
    Release,
    /// `--click APP LABEL` or `--click-steps APP L1 L2…`.
    Click(cu_tools::ClickRequest),
    /// `--type APP TARGET TEXT`.
    Type(cu_tools::TypeRequest),
    /// A subcommand.
    Command(Command),
}

impl Mode {
    fn from_cli(cli: Cli) -> Mode {
        let confirm_dangerous = cli.confirm_dangerous;
        if cli.health {
            return Mode::Health;
        }
        if let Some(question) = cli.ask {
            let (client, session_id) = match cli.session.as_deref() {
                Some([client, id]) => (Some(client.clone()), Some(id.clone())),
                _ => (None, None),
            };
            return Mode::Ask {
                request: cu_tools::LookRequest {
                    question,
                    app: cli.app,
                    client,
                    session_id,
                    include_image: cli.image_out.is_some(),
                    keep_warm: false,
                },
                image_out: cli.image_out,
            };
        }
        if cli.release {
            return Mode::Release;
        }
        if let Some([app, label]) = cli.click.as_deref() {
            return Mode::Click(cu_tools::ClickRequest {
                app: app.clone(),
                target: Some(label.clone()),
                steps: None,
                confirm_dangerous,
                ..Default::default()
            });
        }
        if let Some([app, steps @ ..]) = cli.click_steps.as_deref() {
            return Mode::Click(cu_tools::ClickRequest {
                app: app.clone(),
                target: None,
                steps: Some(steps.to_vec()),
                confirm_dangerous,
                ..Default::default()
            });
        }
        if let Some([app, target, text]) = cli.type_text.as_deref() {
            return Mode::Type(cu_tools::TypeRequest {
                app: app.clone(),
                target: target.clone(),
                text: text.clone(),
                confirm_dangerous,
            });
        }
        match cli.command {
            None => Mode::Stdio {
                health_http: cli.health_http,
            },
            Some(command) => Mode::Command(command),
        }
    }

    /// The one service this invocation uses.
    fn service(&self, config: Config) -> cu_tools::Service {
        let backend = cu_backends::platform_backend();
        match self {
            // A worker marks its states with this process's life.
            Mode::Command(Command::Worker { .. }) => cu_tools::Service::for_worker(backend, config),
            _ => cu_tools::Service::new(backend, config),
        }
    }

    async fn run(self, service: cu_tools::Service) -> Result<CuExit, Error> {
        match self {
            Mode::Stdio { health_http } => stdio(service, health_http).await,
            Mode::Health => health::run(service).await,
            Mode::Ask { request, image_out } => ask(&service, request, image_out.as_deref()).await,
            Mode::Release => {
                emit(&service.model().release().await?);
                Ok(CuExit::Success)
            }
            Mode::Click(request) => {
                emit(&service.click(&request).await?);
                Ok(CuExit::Success)
            }
            Mode::Type(request) => {
                emit(&service.type_text(&request).await?);
                Ok(CuExit::Success)
            }
            Mode::Command(command) => run_command(command, service).await,
        }
    }
}

/// MCP over stdio, with the health endpoint when `health_http` or the configuration asks.
async fn stdio(service: cu_tools::Service, health_http: bool) -> Result<CuExit, Error> {
    let server = mcp_server(service);
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

/// `--ask`: one look_at_screen, its JSON on stdout, the image to `image_out`; exit 1 when the
/// model failed (the JSON then carries the error and `extracted`).
async fn ask(
    service: &cu_tools::Service,
    request: cu_tools::LookRequest,
    image_out: Option<&std::path::Path>,
) -> Result<CuExit, Error> {
    let outcome = service.look_at_screen(&request).await?;
    if let (Some(path), Some(jpeg)) = (image_out, &outcome.jpeg) {
        write_atomically(path, jpeg)?;
    }
    emit(&outcome.body);
    Ok(if outcome.failed() {
        CuExit::Failed
    } else {
        CuExit::Success
    })
}

async fn run_command(command: Command, service: cu_tools::Service) -> Result<CuExit, Error> {
    let internal = |e: serde_json::Error| Error::new(cu_core::ErrorCode::Internal, e.to_string());
    let value = match command {
        Command::List => serde_json::to_value(service.gui_list().await?).map_err(internal)?,
        Command::State {
            window,
            all,
            json,
            screenshot,
            max_elements,
            points,
            bounds,
            query,
        } => {
            let request = cu_tools::StateRequest {
                window_id: WindowId(window),
                all,
                max_elements,
                points,
                bounds,
                query,
                screenshot: screenshot.is_some(),
                ..Default::default()
            };
            let result = service.gui_state(&request).await?;
            if let (Some(path), Some(jpeg)) = (&screenshot, &result.jpeg) {
                write_atomically(path, jpeg)?;
            }
            if !json {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "state_id: {} (use once, within 30 s)", result.state_id);
                let _ = write!(out, "{}", result.outline);
                return Ok(CuExit::Success);
            }
            serde_json::to_value(result).map_err(internal)?
        }
        Command::Act {
            window,
            state_id,
            actions_json,
            confirm_dangerous,
        } => {
            let actions: Vec<cu_tools::Step> =
                serde_json::from_str(&actions_json).map_err(|e| {
                    Error::new(
                        cu_core::ErrorCode::InvalidArgument,
                        format!("ACTIONS_JSON is not a valid list of actions: {e}"),
                    )
                    .with_suggestion(
                        r#"Pass a JSON list such as '[{"type":"click","element_id":"e7"}]'."#,
                    )
                })?;
            let request = cu_tools::ActionRequest {
                window_id: WindowId(window),
                state_id,
                actions,
                confirm_dangerous,
                ..Default::default()
            };
            serde_json::to_value(service.gui_action(&request).await?).map_err(internal)?
        }
        Command::Serve { http: None, .. } => return stdio(service, false).await,
        Command::Worker {
            listen,
            listener,
            tls_self_signed,
            desktop_token_file,
        } => {
            let options = listener.options(listen, false)?;
            let desktop = match cu_mcp::http::read_desktop_token(
                desktop_token_file.as_deref(),
                options.token.as_deref(),
            )? {
                Some(token) => cu_mcp::server::DesktopAccess::Credential(token.into()),
                None => cu_mcp::server::DesktopAccess::ReadOnly,
            };
            return worker::run(service, options, tls_self_signed, desktop).await;
        }
        Command::Serve {
            http: Some(addr),
            insecure_no_auth,
            listener,
        } => {
            let options = listener.options(addr, insecure_no_auth)?;
            cu_mcp::http::serve_http(mcp_server(service), options).await?;
            return Ok(CuExit::Success);
        }
        Command::Webui { listen, listener } => {
            let options = listener.options(listen, false)?;
            let remote = remote_machines(service.config());
            let webui = cu_webui::WebUi::new(std::sync::Arc::new(service), remote);
            cu_webui::serve(webui, options).await?;
            return Ok(CuExit::Success);
        }
        Command::Call { tool, args_json } => {
            let args = match serde_json::from_str::<serde_json::Value>(&args_json) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => {
                    return Err(Error::new(
                        cu_core::ErrorCode::InvalidArgument,
                        "the arguments must be one JSON object",
                    )
                    .with_suggestion("Quote them for the shell: '{\"window_id\":\"x11:0x…\"}'."))
                }
            };
            let remote = remote_machines(service.config());
            let mut server = cu_mcp::server::McpServer::new(std::sync::Arc::new(service));
            if let Some(machines) = remote {
                server = server.with_remote(machines);
            }
            let answer =
                cu_mcp::wire::answer_json(server.call_answering_panics(&tool, args).await)?;
            emit(&answer);
            return Ok(CuExit::Success);
        }
        Command::DesktopCall {
            machine,
            request_json,
        } => {
            let value = worker::desktop_call(&machine, &request_json, service).await?;
            emit(&value);
            return Ok(CuExit::Success);
        }
        Command::Open {
            program,
            timeout,
            no_verify,
            args,
        } => {
            if !(timeout.is_finite() && timeout > 0.0 && timeout <= 600.0) {
                return Err(Error::new(
                    cu_core::ErrorCode::InvalidArgument,
                    "--timeout must be between 0 and 600 seconds",
                ));
            }
            let request = cu_tools::OpenRequest {
                program,
                args,
                timeout: std::time::Duration::from_secs_f64(timeout),
                verify: !no_verify,
            };
            let result = service.open(&request).await?;
            let line = serde_json::to_string(&result).map_err(internal)?;
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "{line}");
            return Ok(if result.ok {
                CuExit::Success
            } else {
                CuExit::Failed
            });
        }
        Command::Selftest { json } => {
            let report = selftest::run(&service).await;
            if json {
                emit(&report);
            } else {
                use std::io::Write;
                let _ = write!(std::io::stdout().lock(), "{}", report.table());
            }
            return Ok(if report.ok {
                CuExit::Success
            } else {
                CuExit::Failed
            });
        }
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
            serde_json::to_value(
                service
                    .backend()
                    .snapshot(&window.as_str().into(), &options)
                    .await?,
            )
            .map_err(internal)?
        }
    };
    emit(&value);
    Ok(CuExit::Success)
}

/// The MCP server over `service`, forwarding to the configured machines, if any.
fn mcp_server(service: cu_tools::Service) -> cu_mcp::server::McpServer {
    let remote = remote_machines(service.config());
    let server = cu_mcp::server::McpServer::new(std::sync::Arc::new(service));
    match remote {
        Some(remote) => server.with_remote(remote),
        None => server,
    }
}

/// The configured remote machines, if any.
fn remote_machines(config: &Config) -> Option<std::sync::Arc<dyn cu_mcp::remote::Remote>> {
    (!config.machines.is_empty()).then(|| {
        std::sync::Arc::new(cu_remote::RemoteMachines::new(&config.machines))
            as std::sync::Arc<dyn cu_mcp::remote::Remote>
    })
}

/// Writes a file whole (never half a file on failure).
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    cu_core::persist::write_atomic(path, bytes).map_err(|e| {
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
