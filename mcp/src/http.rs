//! MCP over Streamable HTTP, with the listener rules every HTTP surface of ours shares.
//!
//! - A bearer token is always required (read from a file or an environment variable, never from
//!   the command line) and compared in constant time; only an explicit `insecure_no_auth` on a
//!   loopback address serves without one (for local tools such as the conformance suite).
//! - Any non-loopback bind needs TLS: a certificate and key (PEM), served by rustls behind the
//!   `tls` cargo feature. Without the feature such binds are refused with a clear error rather
//!   than served in the clear.
//! - `Host` and `Origin` are checked against DNS rebinding (loopback names and the bound port).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cu_core::{Error, ErrorCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::McpServer;

/// How to listen.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind.
    pub addr: SocketAddr,
    /// The bearer token; `None` only with `insecure_no_auth`.
    pub token: Option<String>,
    /// Serve without a token (loopback only).
    pub insecure_no_auth: bool,
    /// Serve HTTPS with this certificate chain and key (PEM files).
    pub tls: Option<TlsFiles>,
    /// More names accepted in `Host` (`--allow-host`).
    pub also_hosts: Vec<String>,
}

/// A PEM certificate chain and its private key.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// Certificate chain, PEM.
    pub cert: std::path::PathBuf,
    /// Private key, PEM.
    pub key: std::path::PathBuf,
}

/// Reads the token: `token_file` if given, else the environment variable `MCP_CU_HTTP_TOKEN`.
pub fn read_token(token_file: Option<&std::path::Path>) -> Result<Option<String>, Error> {
    read_secret(token_file, "MCP_CU_HTTP_TOKEN")
}

/// Reads a worker's desktop credential: `file` if given, else `MCP_CU_DESKTOP_TOKEN`. It must
/// differ from the tool token.
pub fn read_desktop_token(
    file: Option<&std::path::Path>,
    tool_token: Option<&str>,
) -> Result<Option<String>, Error> {
    let desktop = read_secret(file, "MCP_CU_DESKTOP_TOKEN")?;
    if desktop.is_some() && desktop.as_deref() == tool_token {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "the desktop credential is the tool token: whoever can call the tools could then approve what the gate held back",
        )
        .with_suggestion("Use a second random token, e.g. `openssl rand -hex 32`."));
    }
    Ok(desktop)
}

/// A secret from `file`, else the environment variable `var`: trimmed, at least 16 characters.
fn read_secret(file: Option<&std::path::Path>, var: &str) -> Result<Option<String>, Error> {
    let token = match file {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("cannot read the token file {}: {e}", path.display()),
            )
        })?),
        None => std::env::var(var).ok(),
    };
    let token = token.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    if token.as_ref().is_some_and(|t| t.len() < 16) {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!("the token ({var} or its file) is shorter than 16 characters"),
        )
        .with_suggestion("Use a long random token, e.g. `openssl rand -hex 32`."));
    }
    Ok(token)
}

/// Checks the listener rules before binding.
pub fn check_listener(options: &HttpOptions) -> Result<(), Error> {
    let loopback = options.addr.ip().is_loopback();
    if options.tls.is_some() && !cfg!(feature = "tls") {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "this build has no TLS listener (cargo feature `tls`)",
        )
        .with_suggestion("Rebuild with `--features tls`, or bind 127.0.0.1 without TLS."));
    }
    if !loopback && options.tls.is_none() {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "binding {} (not loopback) needs TLS: pass --tls-cert and --tls-key",
                options.addr
            ),
        )
        .with_suggestion(
            "Bind 127.0.0.1 and reach it through an SSH tunnel, or serve with a certificate.",
        ));
    }
    if !loopback && options.insecure_no_auth {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "--insecure-no-auth is accepted only on a loopback address",
        ));
    }
    if options.token.is_none() && !options.insecure_no_auth {
        return Err(Error::new(ErrorCode::ConfigInvalid, "no HTTP token: set MCP_CU_HTTP_TOKEN or pass --token-file")
            .with_suggestion("Tokens never go on the command line. For local tools only: --insecure-no-auth on 127.0.0.1."));
    }
    Ok(())
}

/// The 401 answer every listener gives for a missing or wrong token.
pub fn unauthorized() -> Response {
    let body = Error::new(ErrorCode::Unauthorized, "missing or wrong bearer token")
        .to_json()
        .to_string();
    (
        StatusCode::UNAUTHORIZED,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::WWW_AUTHENTICATE, "Bearer"),
        ],
        body,
    )
        .into_response()
}

/// Requests larger than this are refused (MCP tool calls are small; typed text is ≤ 2000 chars).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// Requests per second a listener accepts (with a burst of [`REQUEST_BURST`]); beyond, 429.
pub const MAX_REQUESTS_PER_SECOND: f64 = 100.0;

/// Requests a listener accepts at once before the rate applies (fifty clients starting together
/// send about four requests each).
pub const REQUEST_BURST: f64 = 400.0;

/// Builds the router: `/mcp` (Streamable HTTP) behind the token check and the rate limit, and
/// `GET /health` (no token; says only whether tool calls are running).
pub fn router(server: McpServer, options: &HttpOptions) -> axum::Router {
    let service = server.service().clone();
    let port = options.addr.port();
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = allowed_hosts(options);
    config = config.with_allowed_origins([
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("http://[::1]:{port}"),
    ]);
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = options.token.clone().map(Arc::<str>::from);
    let limiter = Arc::new(RateLimit::new(MAX_REQUESTS_PER_SECOND, REQUEST_BURST));
    let health = move || {
        let busy = service.calls_in_flight();
        async move {
            let body = serde_json::json!({
                "status": if busy > 0 { "busy" } else { "idle" },
                "calls_in_flight": busy,
                "version": env!("CARGO_PKG_VERSION"),
            });
            (
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
        }
    };
    let protected = axum::Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let limiter = limiter.clone();
                async move {
                    if !limiter.allow() {
                        return too_many();
                    }
                    if request
                        .headers()
                        .get(header::CONTENT_LENGTH)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.parse::<usize>().ok())
                        .is_some_and(|n| n > MAX_REQUEST_BYTES)
                    {
                        return (StatusCode::PAYLOAD_TOO_LARGE, "request too large")
                            .into_response();
                    }
                    next.run(request).await
                }
            },
        ));
    axum::Router::new()
        .route("/health", axum::routing::get(health))
        .merge(protected.layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let token = token.clone();
                async move {
                    if let Some(token) = token {
                        let given = request
                            .headers()
                            .get(header::AUTHORIZATION)
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.strip_prefix("Bearer "))
                            .unwrap_or_default();
                        if !crate::token::constant_time_eq(given.as_bytes(), token.as_bytes()) {
                            return unauthorized();
                        }
                    }
                    next.run(request).await
                }
            },
        )))
}

fn too_many() -> Response {
    let body = Error::new(ErrorCode::ActionFailed, "too many requests")
        .with_suggestion("Slow down and retry in a second.")
        .to_json()
        .to_string();
    (
        StatusCode::TOO_MANY_REQUESTS,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::RETRY_AFTER, "1"),
        ],
        body,
    )
        .into_response()
}

/// A token bucket shared by every connection of one listener.
struct RateLimit {
    per_second: f64,
    burst: f64,
    bucket: std::sync::Mutex<(f64, std::time::Instant)>,
}

impl RateLimit {
    fn new(per_second: f64, burst: f64) -> RateLimit {
        RateLimit {
            per_second,
            burst,
            bucket: std::sync::Mutex::new((burst, std::time::Instant::now())),
        }
    }

    fn allow(&self) -> bool {
        let Ok(mut bucket) = self.bucket.lock() else {
            return true;
        };
        let now = std::time::Instant::now();
        let refill = now.duration_since(bucket.1).as_secs_f64() * self.per_second;
        bucket.0 = (bucket.0 + refill).min(self.burst);
        bucket.1 = now;
        if bucket.0 >= 1.0 {
            bucket.0 -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Serves `GET /health` on loopback `port` (the `health` tool's JSON; 200 when ok, else 503)
/// until the process ends; beside the stdio server when `health.http` is on.
pub async fn serve_health(
    service: std::sync::Arc<cu_tools::Service>,
    port: u16,
) -> Result<(), Error> {
    let app = axum::Router::new().route(
        "/health",
        axum::routing::get(move || {
            let service = service.clone();
            async move {
                let report = service.health().await;
                let status = if report.ok {
                    axum::http::StatusCode::OK
                } else {
                    axum::http::StatusCode::SERVICE_UNAVAILABLE
                };
                (
                    status,
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    serde_json::to_string(&report).unwrap_or_default(),
                )
            }
        }),
    );
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let listener = crate::listen::bind(addr).map_err(|e| {
        e.with_suggestion(
            "Another process serves health there; set health.port (MCP_CU_HEALTH_PORT).",
        )
    })?;
    tracing::info!(%addr, "serving GET /health");
    crate::listen::serve(
        listener,
        app,
        crate::listen::Transport::Plain,
        crate::listen::LIMITS,
    )
    .await
}

/// Serves MCP at `/mcp` until the process ends.
pub async fn serve_http(server: McpServer, options: HttpOptions) -> Result<(), Error> {
    serve_http_then(server, options, || {}).await
}

/// Serves MCP at `/mcp`, calling `listening` once the socket is bound (so whoever reads an
/// announcement can connect at once; announcing before binding lost races).
pub async fn serve_http_then(
    server: McpServer,
    options: HttpOptions,
    listening: impl FnOnce(),
) -> Result<(), Error> {
    check_listener(&options)?;
    let app = router(server, &options);
    serve_router_then(app, &options, "MCP at /mcp", listening).await
}

/// Serves any router under the listener rules (checked first): TLS when configured.
pub async fn serve_router(
    app: axum::Router,
    options: &HttpOptions,
    what: &str,
) -> Result<(), Error> {
    serve_router_then(app, options, what, || {}).await
}

async fn serve_router_then(
    app: axum::Router,
    options: &HttpOptions,
    what: &str,
    listening: impl FnOnce(),
) -> Result<(), Error> {
    check_listener(options)?;
    let listener = crate::listen::bind(options.addr)?;
    tracing::info!(addr = %options.addr, auth = options.token.is_some(), tls = options.tls.is_some(), "serving {what}");
    let transport = match &options.tls {
        #[cfg(feature = "tls")]
        Some(files) => crate::listen::Transport::Tls(tokio_rustls::TlsAcceptor::from(Arc::new(
            tls::config(files)?,
        ))),
        #[cfg(not(feature = "tls"))]
        Some(_) => {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                "this build has no TLS listener",
            ))
        }
        None => crate::listen::Transport::Plain,
    };
    listening();
    crate::listen::serve(listener, app, transport, crate::listen::LIMITS).await
}

/// Host names a listener accepts in `Host` (DNS-rebinding defence): loopback names, the bound
/// address, the DNS names its TLS certificate was issued for (a fleet worker is called by its
/// pod name, `worker-0.workers.NS.svc.cluster.local`) and those given (`--allow-host`), each
/// with and without the port.
pub fn allowed_hosts(options: &HttpOptions) -> Vec<String> {
    let port = options.addr.port();
    let bound = options.addr.ip().to_string();
    let mut names: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]", bound.as_str()]
        .iter()
        .map(|h| h.to_string())
        .collect();
    #[cfg(feature = "tls")]
    if let Some(files) = &options.tls {
        names.extend(tls::dns_names(files));
    }
    names.extend(options.also_hosts.iter().cloned());
    names
        .iter()
        .flat_map(|h| [h.clone(), format!("{h}:{port}")])
        .collect()
}

#[cfg(feature = "tls")]
mod tls {
    //! HTTPS: rustls (ring) in front of the same router.

    use std::sync::Arc;

    use cu_core::{Error, ErrorCode};
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    use tokio_rustls::rustls;

    use super::TlsFiles;

    fn bad(what: &str, e: impl std::fmt::Display) -> Error {
        Error::new(ErrorCode::ConfigInvalid, format!("TLS: {what}: {e}"))
    }

    /// The DNS names the first certificate of `files` was issued for (none when unreadable:
    /// the listener's own start then says why).
    pub(super) fn dns_names(files: &TlsFiles) -> Vec<String> {
        let Some(Ok(first)) = CertificateDer::pem_file_iter(&files.cert)
            .ok()
            .and_then(|mut certs| certs.next())
        else {
            return Vec::new();
        };
        webpki::EndEntityCert::try_from(&first)
            .map(|cert| cert.valid_dns_names().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    pub(super) fn config(files: &TlsFiles) -> Result<rustls::ServerConfig, Error> {
        let certs = CertificateDer::pem_file_iter(&files.cert)
            .map_err(|e| bad(&format!("cannot read {}", files.cert.display()), e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(&format!("bad certificate in {}", files.cert.display()), e))?;
        if certs.is_empty() {
            return Err(bad("no certificate", files.cert.display()));
        }
        let key = PrivateKeyDer::from_pem_file(&files.key)
            .map_err(|e| bad(&format!("cannot read the key {}", files.key.display()), e))?;
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| bad("protocol versions", e))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| bad("certificate and key do not match", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(addr: &str, token: Option<&str>, insecure: bool) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap(),
            token: token.map(str::to_owned),
            insecure_no_auth: insecure,
            tls: None,
            also_hosts: Vec::new(),
        }
    }

    #[test]
    fn listener_rules() {
        assert!(check_listener(&opts("127.0.0.1:8000", Some("0123456789abcdef"), false)).is_ok());
        assert!(check_listener(&opts("127.0.0.1:8000", None, true)).is_ok());
        let no_token = check_listener(&opts("127.0.0.1:8000", None, false)).err();
        assert_eq!(no_token.map(|e| e.code), Some(ErrorCode::ConfigInvalid));
        let public = check_listener(&opts("0.0.0.0:8000", Some("0123456789abcdef"), false)).err();
        assert!(public.is_some_and(|e| e.message.contains("needs TLS")));
        let public_insecure = check_listener(&opts("0.0.0.0:8000", None, true)).err();
        assert!(
            public_insecure.is_some(),
            "--insecure-no-auth never opens a public port"
        );
    }

    #[test]
    fn a_listener_accepts_its_loopback_bound_and_given_names_with_and_without_port() {
        let mut options = opts("10.1.0.7:8443", Some("0123456789abcdef"), false);
        options.also_hosts = vec!["worker-0.workers.cu.svc.cluster.local".into()];
        let hosts = allowed_hosts(&options);
        for host in [
            "localhost:8443",
            "10.1.0.7",
            "10.1.0.7:8443",
            "worker-0.workers.cu.svc.cluster.local",
            "worker-0.workers.cu.svc.cluster.local:8443",
        ] {
            assert!(hosts.iter().any(|h| h == host), "{host} in {hosts:?}");
        }
        assert!(!hosts.iter().any(|h| h.starts_with("worker-1")));
    }

    #[test]
    fn the_rate_limit_allows_a_burst_then_refuses() {
        let limit = RateLimit::new(5.0, 10.0);
        let allowed = (0..20).filter(|_| limit.allow()).count();
        assert_eq!(allowed, 10, "the burst, then the rate");
    }
}
