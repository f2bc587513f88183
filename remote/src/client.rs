//! [`RemoteMachines`]: an MCP client per configured worker.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cu_core::config::{FleetConfig, MachineConfig};
use cu_core::{Error, ErrorCode};
use cu_mcp::remote::Remote;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;
use tokio::sync::Mutex;

/// The workers of the configuration and of the fleet, reached over MCP.
pub struct RemoteMachines {
    configured: Vec<Arc<Machine>>,
    #[cfg(feature = "tls")]
    fleet: Option<Members>,
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

/// The fleet's workers as DNS last listed them, each with its session.
#[cfg(feature = "tls")]
struct Members {
    config: FleetConfig,
    resolver: hickory_resolver::TokioResolver,
    now: std::sync::Mutex<(crate::fleet::Roster, Vec<Arc<Machine>>)>,
}

impl Machine {
    fn new(config: &MachineConfig) -> Arc<Machine> {
        Arc::new(Machine {
            config: config.clone(),
            session: Mutex::new(None),
        })
    }
}

impl RemoteMachines {
    /// Clients for `machines`; nothing connects until the first call.
    pub fn new(machines: &[MachineConfig]) -> RemoteMachines {
        RemoteMachines {
            configured: machines.iter().map(Machine::new).collect(),
            #[cfg(feature = "tls")]
            fleet: None,
        }
    }

    /// Clients for `machines` and for the workers `fleet` finds in DNS (looked up by
    /// [`RemoteMachines::refresh`]); a build without TLS has no fleet (`NOT_SUPPORTED`).
    pub fn with_fleet(
        machines: &[MachineConfig],
        fleet: Option<&FleetConfig>,
    ) -> Result<RemoteMachines, Error> {
        #[cfg_attr(not(feature = "tls"), allow(unused_mut))]
        let mut remote = RemoteMachines::new(machines);
        let Some(fleet) = fleet else {
            return Ok(remote);
        };
        #[cfg(feature = "tls")]
        {
            remote.fleet = Some(Members {
                config: fleet.clone(),
                resolver: crate::fleet::resolver(fleet)?,
                now: std::sync::Mutex::new(Default::default()),
            });
            Ok(remote)
        }
        #[cfg(not(feature = "tls"))]
        Err(Error::new(
            ErrorCode::NotSupported,
            format!(
                "[fleet] {}: this build has no TLS (cargo feature `tls`), and a fleet is https only",
                fleet.srv
            ),
        ))
    }

    /// Looks the fleet up in DNS again: new workers join, workers no longer listed leave (their
    /// sessions close; calls naming them answer `MACHINE_UNREACHABLE`). A failed lookup keeps
    /// the fleet as it was. Without a fleet, nothing to do.
    pub async fn refresh(&self) -> Result<(), Error> {
        #[cfg(feature = "tls")]
        if let Some(members) = &self.fleet {
            let mut found = crate::fleet::lookup(&members.resolver, &members.config).await?;
            // A configured machine keeps its name: a pod of the same name is not reachable.
            found.retain(|m| {
                let taken = self.configured.iter().any(|c| c.config.name == m.name);
                if taken {
                    tracing::warn!(machine = %m.name, "fleet: a pod named like a configured machine; skipped");
                }
                !taken
            });
            let mut now = members
                .now
                .lock()
                .map_err(|_| Error::new(ErrorCode::Internal, "fleet roster poisoned"))?;
            let (roster, machines) = &mut *now;
            let change = roster.update(found, std::time::Instant::now());
            if !change.joined.is_empty() || !change.left.is_empty() {
                tracing::info!(joined = ?change.joined, left = ?change.left, "fleet changed");
            }
            // In the roster's order; a worker unchanged keeps its session, one that joined (or
            // came back at another address) gets a new one.
            let kept = std::mem::take(machines);
            *machines = roster
                .present()
                .iter()
                .map(|config| {
                    kept.iter()
                        .find(|m| &m.config == config && !change.joined.contains(&config.name))
                        .cloned()
                        .unwrap_or_else(|| Machine::new(config))
                })
                .collect();
        }
        Ok(())
    }

    /// Keeps the fleet current: looks it up every `refresh_seconds` until `self` is dropped.
    pub fn keep_current(self: &Arc<Self>) {
        #[cfg(feature = "tls")]
        if let Some(members) = &self.fleet {
            let every = Duration::from_secs(members.config.refresh_seconds);
            let weak = Arc::downgrade(self);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(remote) = weak.upgrade() else { break };
                    if let Err(e) = remote.refresh().await {
                        tracing::warn!("fleet lookup failed, keeping the last one: {e}");
                    }
                }
            });
        }
    }

    fn machine(&self, name: &str) -> Result<Arc<Machine>, Error> {
        if let Some(m) = self.configured.iter().find(|m| m.config.name == name) {
            return Ok(m.clone());
        }
        #[cfg(feature = "tls")]
        if let Some(members) = &self.fleet {
            if let Ok(now) = members.now.lock() {
                if let Some(m) = now.1.iter().find(|m| m.config.name == name) {
                    return Ok(m.clone());
                }
                if now.0.departed(name) {
                    return Err(crate::fleet::gone(name));
                }
            }
        }
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("unknown machine {name:?}"),
        ))
    }

    /// The names of the fleet's workers now, and of those that left it recently.
    #[cfg(feature = "tls")]
    fn fleet_names(&self, departed_too: bool) -> Vec<String> {
        let Some(Ok(now)) = self.fleet.as_ref().map(|f| f.now.lock()) else {
            return Vec::new();
        };
        let mut names: Vec<String> = now.1.iter().map(|m| m.config.name.clone()).collect();
        if departed_too {
            names.extend(now.0.departed_names().cloned());
        }
        names
    }

    fn names(&self, departed_too: bool) -> Vec<String> {
        #[cfg(feature = "tls")]
        let fleet = self.fleet_names(departed_too);
        #[cfg(not(feature = "tls"))]
        let fleet: Vec<String> = {
            let _ = departed_too;
            Vec::new()
        };
        let mut names: Vec<String> = self
            .configured
            .iter()
            .map(|m| m.config.name.clone())
            .collect();
        for name in fleet {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

#[async_trait]
impl Remote for RemoteMachines {
    fn machines(&self) -> Vec<String> {
        self.names(true)
    }

    fn present(&self) -> Vec<String> {
        self.names(false)
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
    let mut builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(config.timeout_seconds.min(10)));
    // A fleet worker: connect where DNS said, check the certificate against its pod name.
    if let (Some(address), Some(host)) = (config.address, host_of(&config.url)) {
        builder = builder.resolve(host, address);
    }
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

/// The host of `url` (`https://worker-0.workers:8443/mcp` → `worker-0.workers`).
fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    Some(authority.rsplit_once(':').map_or(authority, |(h, _)| h))
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
