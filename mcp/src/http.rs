//! MCP over Streamable HTTP, with the listener rules every HTTP surface of ours shares.
//!
//! - A bearer token is always required (read from a file or an environment variable, never from
//!   the command line) and compared in constant time; only an explicit `insecure_no_auth` on a
//!   loopback address serves without one (for local tools such as the conformance suite).
//! - Any non-loopback bind needs TLS. This build has no TLS listener yet, so such binds are
//!   refused with a clear error rather than served in the clear.
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
use crate::service::Service;

/// How to listen.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind.
    pub addr: SocketAddr,
    /// The bearer token; `None` only with `insecure_no_auth`.
    pub token: Option<String>,
    /// Serve without a token (loopback only).
    pub insecure_no_auth: bool,
}

/// Reads the token: `token_file` if given, else the environment variable `MCP_CU_HTTP_TOKEN`.
pub fn read_token(token_file: Option<&std::path::Path>) -> Result<Option<String>, Error> {
    let token = match token_file {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("cannot read the token file {}: {e}", path.display()),
            )
        })?),
        None => std::env::var("MCP_CU_HTTP_TOKEN").ok(),
    };
    let token = token.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    if token.as_ref().is_some_and(|t| t.len() < 16) {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            "the HTTP token is shorter than 16 characters",
        )
        .with_suggestion("Use a long random token, e.g. `openssl rand -hex 32`."));
    }
    Ok(token)
}

/// Checks the listener rules before binding.
pub fn check_listener(options: &HttpOptions) -> Result<(), Error> {
    let loopback = options.addr.ip().is_loopback();
    if !loopback {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!("binding {} (not loopback) needs TLS, and this build has no TLS listener", options.addr),
        )
        .with_suggestion("Bind 127.0.0.1 and reach it through an SSH tunnel, or use a TLS-terminating proxy on this machine."));
    }
    if options.token.is_none() && !options.insecure_no_auth {
        return Err(Error::new(ErrorCode::ConfigInvalid, "no HTTP token: set MCP_CU_HTTP_TOKEN or pass --token-file")
            .with_suggestion("Tokens never go on the command line. For local tools only: --insecure-no-auth on 127.0.0.1."));
    }
    Ok(())
}

/// Compares in time independent of where the first difference is.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u8;
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

fn unauthorized() -> Response {
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

/// Builds the router: `/mcp` (Streamable HTTP) behind the token check.
pub fn router(service: Arc<Service>, options: &HttpOptions) -> axum::Router {
    let port = options.addr.port();
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = ["localhost", "127.0.0.1", "::1", "[::1]"]
        .iter()
        .flat_map(|h| [h.to_string(), format!("{h}:{port}")])
        .collect();
    config = config.with_allowed_origins([
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("http://[::1]:{port}"),
    ]);
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(service.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = options.token.clone().map(Arc::<str>::from);
    axum::Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn(
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
                        if !constant_time_eq(given.as_bytes(), token.as_bytes()) {
                            return unauthorized();
                        }
                    }
                    next.run(request).await
                }
            },
        ))
}

/// Serves until the process ends.
pub async fn serve_http(service: Arc<Service>, options: HttpOptions) -> Result<(), Error> {
    check_listener(&options)?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("cannot listen on {}: {e}", options.addr),
            )
        })?;
    tracing::info!(addr = %options.addr, auth = options.token.is_some(), "serving MCP over Streamable HTTP at /mcp");
    axum::serve(listener, router(service, &options))
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("HTTP server failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(addr: &str, token: Option<&str>, insecure: bool) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap_or_else(|e| panic!("{e}")),
            token: token.map(str::to_owned),
            insecure_no_auth: insecure,
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
    fn constant_time_comparison_is_exact() {
        assert!(constant_time_eq(b"secret-token", b"secret-token"));
        assert!(!constant_time_eq(b"secret-token", b"secret-tokem"));
        assert!(!constant_time_eq(b"secret-token", b"secret-token-longer"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
