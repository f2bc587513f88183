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
//! - `tls` (cargo feature `tls`): certificate pinning by SHA-256 fingerprint or a CA file for
//!   the client, and a self-signed certificate for a worker.

pub mod client;
#[cfg(feature = "tls")]
pub mod tls;

pub use client::RemoteMachines;
