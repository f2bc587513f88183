//! Remote machines: the controller side of the remote worker.
//!
//! A worker is `mcp-computer-use worker --listen ADDR` on a desktop machine: the whole tool
//! service of that machine (state registry, safety gate, audit log) served as MCP over Streamable
//! HTTP, with a bearer token, and TLS on any non-loopback address (see `cu_mcp::http`). The
//! controller — the MCP server an agent talks to — forwards every call that names a machine to
//! that machine's worker through [`RemoteMachines`], an MCP client per worker, and never drives a
//! remote backend itself; the machine that acts enforces its own rules.
//!
//! - [`client`]: [`RemoteMachines`], one cached MCP session per worker, reconnected when it
//!   breaks, every call bounded in time (`MACHINE_UNREACHABLE`), a refused token
//!   `UNAUTHORIZED`.
//! - `fleet` (with the `tls` feature): workers found in DNS (`[fleet]`, a Kubernetes headless
//!   Service), refreshed, named by pod; those that left answer `MACHINE_UNREACHABLE`.
//! - `tls` (cargo feature `tls`): certificate pinning by SHA-256 fingerprint or a CA file for
//!   the client, and a self-signed certificate for a worker.

pub mod client;
#[cfg(feature = "tls")]
pub mod fleet;
#[cfg(feature = "tls")]
pub mod tls;

pub use client::RemoteMachines;
#[cfg(feature = "tls")]
pub use tls::self_signed;

/// A worker's self-signed certificate and key, made once in a directory and reused after.
pub struct SelfSigned {
    /// Certificate, PEM.
    pub cert: std::path::PathBuf,
    /// Private key, PEM (mode 0600).
    pub key: std::path::PathBuf,
    /// SHA-256 of the certificate: what controllers pin.
    pub fingerprint: String,
}

/// Without the `tls` feature there is no certificate to make: `NOT_SUPPORTED`, saying which
/// build has it (on Linux every build does; see the build features in docs/configuration.md).
#[cfg(not(feature = "tls"))]
pub fn self_signed(
    _dir: &std::path::Path,
    _names: &[String],
) -> Result<SelfSigned, cu_core::Error> {
    Err(cu_core::Error::new(
        cu_core::ErrorCode::NotSupported,
        "this build has no TLS (cargo feature `tls`; Linux builds and the release archives have it)",
    ))
}
