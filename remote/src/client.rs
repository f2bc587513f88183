//! [`RemoteMachines`]: an MCP client per configured worker.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::config::MachineConfig;
use cu_core::{Error, ErrorCode};
use cu_mcp::remote::Remote;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;
use tokio::sync::Mutex;

/// The workers of the configuration, reached over MCP.
pub struct RemoteMachines {
    machines: Vec<Machine>,
}

struct Machine {
    config: MachineConfig,
    /// The open session, if any; calls share its peer concurrently.
    session: Mutex<Option<Session>>,
}

struct Session {
    peer: Peer<RoleClient>,
    // Keeps the session's task alive; dropped (closed) when the session is replaced.
    _running: RunningService<RoleClient, ()>,
}

impl RemoteMachines {
    /// Clients for `machines`; nothing connects until the first call.
    pub fn new(machines: &[MachineConfig]) -> RemoteMachines {
        RemoteMachines {
            machines: machines
                .iter()
                .map(|config| Machine {
                    config: config.clone(),
                    session: Mutex::new(None),
                })
                .collect(),
        }
    }

    fn machine(&self, name: &str) -> Result<&Machine, Error> {
        self.machines
            .iter()
            .find(|m| m.config.name == name)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidArgument,
                    format!("unknown machine {name:?}"),
                )
            })
    }
}

#[async_trait]
impl Remote for RemoteMachines {
    fn machines(&self) -> Vec<String> {
        self.machines
            .iter()
            .map(|m| m.config.name.clone())
            .collect()
    }

    async fn call(
        &self,
        machine: &str,
        tool: &str,
        mut args: JsonObject,
    ) -> Result<CallToolResult, Error> {
        let m = self.machine(machine)?;
        if tool == cu_mcp::wire::INTERNAL_DESKTOP_CALL {
            // The Desktop page's requests carry the worker's desktop credential, when this
            // controller has one: the tool token alone cannot decide approvals there.
            if let Some(credential) = m.desktop_credential()? {
                args.insert(cu_mcp::wire::DESKTOP_CREDENTIAL.into(), credential.into());
            }
        }
        let bound = Duration::from_secs(m.config.timeout_seconds);
        match tokio::time::timeout(bound, m.call(tool, args)).await {
            Ok(result) => result,
            Err(_) => {
                // A worker that accepts and never answers: forget the session, say so in time.
                *m.session.lock().await = None;
                Err(unreachable(
                    &m.config,
                    &format!("no answer within {} s", bound.as_secs()),
                ))
            }
        }
    }
}

impl Machine {
    /// The worker's desktop credential, read from its file now (`None` when none is configured).
    fn desktop_credential(&self) -> Result<Option<String>, Error> {
        let Some(path) = &self.config.desktop_token_file else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "machine {}: cannot read its desktop token file {}: {e}",
                    self.config.name,
                    path.display()
                ),
            )
        })?;
        Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty()))
    }

    async fn call(&self, tool: &str, args: JsonObject) -> Result<CallToolResult, Error> {
        let mut request = CallToolRequestParams::new(tool.to_owned());
        request.arguments = Some(args);
        // One retry on a fresh session: the worker may have restarted since the last call. Only
        // for tools that observe: a tool that acts may have acted before the connection broke,
        // and must not act twice. Which tools act is the tool table's to say.
        let attempts = if cu_mcp::tools::may_retry(tool) { 2 } else { 1 };
        for attempt in 0..attempts {
            let peer = self.peer().await?;
            match peer.call_tool(request.clone()).await {
                Ok(result) => return Ok(result),
                Err(e) => {
                    *self.session.lock().await = None;
                    if attempt + 1 == attempts {
                        return Err(Failure::of_call(&e).error(&self.config, &chain(&e)));
                    }
                    tracing::debug!(machine = %self.config.name, "call failed, reconnecting: {e}");
                }
            }
        }
        Err(unreachable(&self.config, "the call failed twice"))
    }

    async fn peer(&self) -> Result<Peer<RoleClient>, Error> {
        let mut session = self.session.lock().await;
        if let Some(s) = session.as_ref() {
            if !s.peer.is_transport_closed() {
                return Ok(s.peer.clone());
            }
        }
        let running = connect(&self.config).await?;
        let peer = running.peer().clone();
        *session = Some(Session {
            peer: peer.clone(),
            _running: running,
        });
        Ok(peer)
    }
}

async fn connect(config: &MachineConfig) -> Result<RunningService<RoleClient, ()>, Error> {
    let token = std::fs::read_to_string(&config.token_file).map_err(|e| {
        Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "machine {}: cannot read its token file {}: {e}",
                config.name,
                config.token_file.display()
            ),
        )
    })?;
    let mismatch = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let http = http_client(config, &mismatch)?;
    let mut transport_config = StreamableHttpClientTransportConfig::with_uri(config.url.as_str())
        .auth_header(token.trim().to_owned());
    // A result stream that breaks (the worker died mid-call) ends the call at once: reconnecting
    // to a dead worker would only hold the agent until the machine's timeout.
    transport_config.retry_config =
        Arc::new(rmcp::transport::common::client_side_sse::NeverRetry::default());
    let transport = StreamableHttpClientTransport::with_client(http, transport_config);
    ().serve(transport).await.map_err(|e| {
        Failure::of_connect(&e, mismatch.load(std::sync::atomic::Ordering::SeqCst))
            .error(config, &chain(&e))
    })
}

fn http_client(
    config: &MachineConfig,
    mismatch: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<reqwest::Client, Error> {
    let builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(config.timeout_seconds.min(10)));
    #[cfg(feature = "tls")]
    crate::tls::install_provider();
    #[cfg(feature = "tls")]
    let builder = if config.url.starts_with("https://") {
        builder.tls_backend_preconfigured(crate::tls::client_config(config, mismatch)?)
    } else {
        builder
    };
    #[cfg(not(feature = "tls"))]
    let _ = mismatch;
    #[cfg(not(feature = "tls"))]
    if config.url.starts_with("https://") {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "machine {}: this build has no TLS client (cargo feature `tls`)",
                config.name
            ),
        ));
    }
    builder.build().map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("machine {}: HTTP client: {e}", config.name),
        )
    })
}

/// An error with its causes ("error sending request: … certificate fingerprint … not pinned").
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Why a connection or call to a worker failed, read from the error's typed causes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The worker refused the token (HTTP 401/403): nothing ran.
    Unauthorized,
    /// The worker's certificate was refused (pinned fingerprint or CA).
    Certificate,
    /// Anything else: the machine cannot be reached now.
    Unreachable,
}

impl Failure {
    /// A failed connection: the transport's typed 401/403 challenge, or the certificate flag.
    fn of_connect(e: &rmcp::service::ClientInitializeError, certificate_refused: bool) -> Failure {
        if certificate_refused {
            Failure::Certificate
        } else if e.auth_challenge().is_some() {
            Failure::Unauthorized
        } else {
            Failure::Unreachable
        }
    }

    /// A failed call on an open session: a token revoked meanwhile, or anything else.
    fn of_call(e: &rmcp::ServiceError) -> Failure {
        if e.auth_challenge().is_some() {
            Failure::Unauthorized
        } else {
            Failure::Unreachable
        }
    }

    /// The wire error: a refused token is UNAUTHORIZED (nothing ran); a refused certificate and
    /// anything else are MACHINE_UNREACHABLE (the first not worth retrying).
    fn error(self, config: &MachineConfig, message: &str) -> Error {
        match self {
            Failure::Unauthorized => Error::new(
                ErrorCode::Unauthorized,
                format!("machine {} refused the token", config.name),
            )
            .with_suggestion("Check the machine's token_file against the worker's token.")
            .with_details(serde_json::json!({ "machine": config.name, "url": config.url })),
            Failure::Certificate => Error::new(
                ErrorCode::MachineUnreachable,
                format!(
                    "machine {}: its TLS certificate is not the pinned one or not signed by the configured CA ({message})",
                    config.name
                ),
            )
            .with_retryable(false)
            .with_suggestion("Check `fingerprint` / `ca_file` for this machine; the worker prints its fingerprint at start.")
            .with_details(serde_json::json!({ "machine": config.name, "url": config.url })),
            Failure::Unreachable => unreachable(config, message),
        }
    }
}

fn unreachable(config: &MachineConfig, why: &str) -> Error {
    Error::new(
        ErrorCode::MachineUnreachable,
        format!(
            "machine {} at {} is unreachable: {why}",
            config.name, config.url
        ),
    )
    .with_details(serde_json::json!({ "machine": config.name, "url": config.url }))
}
