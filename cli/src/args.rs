//! The command line: the predecessor's mode flags and the subcommands, one grammar for clap.

use clap::Parser;
use cu_core::error::Error;

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
pub(crate) struct Cli {
    /// Check everything (configuration, display, accessibility bus, model server and model) and
    /// print a JSON report; exit 1 when something does not work.
    #[arg(long)]
    pub(crate) health: bool,

    /// Ask one question about a window (look_at_screen) and print the JSON answer.
    #[arg(long, value_name = "QUESTION", conflicts_with_all = ["health", "click", "click_steps", "type_text", "release"])]
    pub(crate) ask: Option<String>,

    /// With --ask: the app name, window title or window id (default: the focused window).
    #[arg(long, value_name = "APP", requires = "ask")]
    pub(crate) app: Option<String>,

    /// With --ask: also capture the window and write the JPEG here.
    #[arg(long, value_name = "FILE", requires = "ask")]
    pub(crate) image_out: Option<std::path::PathBuf>,

    /// With --ask: the session's client and id (changed_since_last, cached answers).
    #[arg(long, value_names = ["CLIENT", "SESSION_ID"], num_args = 2, requires = "ask")]
    pub(crate) session: Option<Vec<String>>,

    /// Unload the local model now and print how much memory was freed.
    #[arg(long)]
    pub(crate) release: bool,

    /// With the stdio MCP server: also serve GET /health on 127.0.0.1:8765 (health.port).
    #[arg(long)]
    pub(crate) health_http: bool,

    /// Click the element labelled LABEL in APP's window: --click APP LABEL.
    #[arg(long, num_args = 2, value_names = ["APP", "LABEL"], conflicts_with_all = ["click_steps", "type_text"])]
    pub(crate) click: Option<Vec<String>>,

    /// Click labels in order, each on a fresh observation (1 to 10): --click-steps APP L1 L2…
    #[arg(long, num_args = 2..=11, value_names = ["APP", "LABEL"], conflicts_with = "type_text")]
    pub(crate) click_steps: Option<Vec<String>>,

    /// Replace the text of APP's field TARGET (its label, or a role word such as "text field").
    #[arg(long = "type", num_args = 3, value_names = ["APP", "TARGET", "TEXT"])]
    pub(crate) type_text: Option<Vec<String>>,

    /// With --click, --click-steps or --type: the user explicitly approved a dangerous action.
    #[arg(long, requires = "label_mode")]
    pub(crate) confirm_dangerous: bool,

    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// The token and TLS files every HTTP listener takes (`serve --http`, `worker`, `webui`).
#[derive(Debug, clap::Args)]
pub(crate) struct ListenerArgs {
    /// File holding the bearer token (else MCP_CU_HTTP_TOKEN; never on the command line).
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// TLS certificate chain (PEM); needed for non-loopback addresses (build feature `tls`).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// Another name clients reach this listener by, accepted in `Host` (repeatable): a fleet
    /// worker's pod name when its certificate is a wildcard one. The certificate's own DNS
    /// names are accepted without it.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
}

impl ListenerArgs {
    /// The listener options for `addr` (the token read now).
    pub(crate) fn options(
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
            also_hosts: self.allow_host,
        })
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// List windows with ids, app, title, pid, bounds and focus, and the backend's capabilities.
    List,
    /// Observe one window: a state_id (30 s, single use) and the compact outline.
    State(StateArgs),
    /// Act on a window with the state_id of an observation: ACTIONS_JSON is a JSON list such as
    /// '[{"type":"click","element_id":"e7"}]'.
    Act(ActArgs),
    /// Serve MCP: over stdio (the default with no command at all), or over Streamable HTTP at
    /// http://ADDR/mcp with a bearer token from --token-file or MCP_CU_HTTP_TOKEN.
    Serve(ServeArgs),
    /// Launch an app (program, path or URI), wait for its window, check it can be observed, and
    /// print one JSON line: ok, app (to use with the tools), title, process, pid, seconds, hint,
    /// verified. Exits 1 when no window came. Never closes or moves other windows.
    Open(OpenArgs),
    /// Serve this machine's whole tool service to controllers over MCP Streamable HTTP at
    /// https://ADDR/mcp (http on loopback). Run it as the user who owns the desktop session. The
    /// token comes from --token-file or MCP_CU_HTTP_TOKEN; non-loopback addresses need TLS
    /// (--tls-cert/--tls-key, or --tls-self-signed). Prints one JSON line when listening.
    Worker(WorkerArgs),
    /// Serve the Desktop page at http://ADDR/ (loopback by default; other addresses need TLS):
    /// a person sees and operates windows of this machine and the configured ones, and approves
    /// or denies actions the safety gate holds (with `approvals` on). Open it once with
    /// /?token=TOKEN (from --token-file or MCP_CU_HTTP_TOKEN).
    Webui(WebuiArgs),
    /// Call any tool of the MCP server in this process, with its JSON arguments, and print its
    /// JSON answer: `call gui_wait '{"window_id":"x11:0x…","condition":{"until":"appears","name":"Done"}}'`.
    /// The same table, checks and audit as over MCP (`machine` routes to a worker too).
    Call(CallArgs),
    /// The Desktop page's internal call, for tests and tools: REQUEST_JSON such as
    /// '{"op":"windows"}', '{"op":"capture","window_id":"…"}' or an input with its geometry,
    /// answered by MACHINE's worker (or this machine with `local`). Never an MCP tool.
    DesktopCall(DesktopCallArgs),
    /// First contact on a new OS: opens the platform's calculator and a text editor, runs
    /// list → observe → act (7 × 6 = by element ids, then by label) → verify, a click at an
    /// element's point, a capture, non-ASCII typing read back, and closes what it opened (the
    /// editor's "Don't save"). Prints a table; exit 1 when a check failed.
    Selftest(SelftestArgs),
    /// Print one window's raw element tree as JSON (the backend's snapshot).
    Snapshot(SnapshotArgs),
}

/// `state`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct StateArgs {
    /// Window id from `list`.
    pub(crate) window: String,
    /// List every element, not only interactive and text ones.
    #[arg(long)]
    pub(crate) all: bool,
    /// Print the whole answer as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write a JPEG of the window here.
    #[arg(long, value_name = "FILE")]
    pub(crate) screenshot: Option<std::path::PathBuf>,
    /// List at most this many elements.
    #[arg(long)]
    pub(crate) max_elements: Option<usize>,
    /// Each element's click point (@x,y, its centre).
    #[arg(long)]
    pub(crate) points: bool,
    /// Each element's full bounds (x,y wxh).
    #[arg(long)]
    pub(crate) bounds: bool,
    /// Only the elements whose name, value or description contains this text.
    #[arg(long)]
    pub(crate) query: Option<String>,
}

/// `act`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ActArgs {
    /// Window id the state was taken of.
    pub(crate) window: String,
    /// The state_id `state` printed.
    pub(crate) state_id: String,
    /// The steps, as a JSON list.
    pub(crate) actions_json: String,
    /// The user explicitly approved a dangerous action.
    #[arg(long)]
    pub(crate) confirm_dangerous: bool,
}

/// `serve`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Listen on this address (loopback; other addresses need TLS).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// Serve without a token (loopback only; for local tools).
    #[arg(long)]
    pub(crate) insecure_no_auth: bool,
    #[command(flatten)]
    pub(crate) listener: ListenerArgs,
}

/// `open`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct OpenArgs {
    /// Program name or path, document path, or URI.
    pub(crate) program: String,
    /// Seconds to wait for the window.
    #[arg(long, default_value_t = 15.0)]
    pub(crate) timeout: f64,
    /// Do not check that the window can be observed.
    #[arg(long)]
    pub(crate) no_verify: bool,
    /// Arguments for the program (everything after --args).
    #[arg(long, num_args = 1.., allow_hyphen_values = true)]
    pub(crate) args: Vec<String>,
}

/// `worker`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct WorkerArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: std::net::SocketAddr,
    #[command(flatten)]
    pub(crate) listener: ListenerArgs,
    /// Make (once, in the sessions directory) and use a self-signed certificate; its SHA-256
    /// fingerprint is printed for the controller's `fingerprint`.
    #[arg(long, conflicts_with = "tls_cert")]
    pub(crate) tls_self_signed: bool,
    /// File holding the desktop credential (else MCP_CU_DESKTOP_TOKEN), a second token that
    /// a controller's Desktop page needs to decide approvals and send a person's input here.
    /// Without it those are off; the tool token never allows them.
    #[arg(long, value_name = "FILE")]
    pub(crate) desktop_token_file: Option<std::path::PathBuf>,
}

/// `webui`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct WebuiArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8766")]
    pub(crate) listen: std::net::SocketAddr,
    #[command(flatten)]
    pub(crate) listener: ListenerArgs,
}

/// `call`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct CallArgs {
    /// The tool's name, as `tools/list` gives it.
    pub(crate) tool: String,
    /// Its arguments, a JSON object (default `{}`).
    #[arg(default_value = "{}")]
    pub(crate) args_json: String,
}

/// `desktopcall`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct DesktopCallArgs {
    /// A configured machine, or `local`.
    pub(crate) machine: String,
    /// The request.
    pub(crate) request_json: String,
}

/// `selftest`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SelftestArgs {
    /// Print the report as JSON (versions, OS, backend, scale, each check with its error).
    #[arg(long)]
    pub(crate) json: bool,
}

/// `snapshot`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SnapshotArgs {
    /// Window id from `list`.
    pub(crate) window: String,
    /// Stop after this many nodes.
    #[arg(long, default_value_t = 5000)]
    pub(crate) max_nodes: u32,
    /// Time budget in milliseconds.
    #[arg(long, default_value_t = 3000)]
    pub(crate) budget_ms: u64,
}
