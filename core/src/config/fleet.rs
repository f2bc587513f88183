//! `[fleet]`: workers found in DNS instead of typed into `[machines.NAME]` tables.
//!
//! ```toml
//! [fleet]
//! # SRV records of the workers' headless Service (Kubernetes publishes one per ready pod:
//! # `_mcp._tcp.workers.computer-use.svc.cluster.local` → `worker-0.workers….:8443`)
//! srv = "_mcp._tcp.workers.computer-use.svc.cluster.local"
//! token_file = "/var/run/secrets/computer-use/token"
//! # the CA every worker's certificate chains to (one pinned fingerprint cannot cover a fleet)
//! ca_file = "/var/run/secrets/computer-use/ca.crt"
//! refresh_seconds = 15
//! timeout_seconds = 60
//! # optional: ask this DNS server instead of the system's resolver
//! nameserver = "127.0.0.1:5353"
//! ```
//!
//! Each SRV target names a worker by its first label (a StatefulSet's pod name, `worker-0`),
//! reached at `https://TARGET:PORT/mcp` on the address DNS gave for it. A fleet is https only:
//! its workers listen on pod addresses, where the token must not cross in the clear.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Serialize;

use super::machines::DEFAULT_MACHINE_TIMEOUT;

/// How a controller finds its workers in DNS.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FleetConfig {
    /// The SRV name to look up.
    pub srv: String,
    /// The workers' MCP path (default `/mcp`).
    pub path: String,
    /// File holding the bearer token every worker of the fleet takes.
    pub token_file: PathBuf,
    /// CA certificate (PEM) the workers' certificates chain to.
    pub ca_file: PathBuf,
    /// How often DNS is asked again.
    pub refresh_seconds: u64,
    /// Longest wait for one call to a worker, connection included.
    pub timeout_seconds: u64,
    /// The DNS server to ask, instead of the system's resolver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nameserver: Option<SocketAddr>,
}

/// Default interval between two DNS lookups of the fleet.
pub const DEFAULT_REFRESH: u64 = 15;

const KEYS: &[&str] = &[
    "srv",
    "path",
    "token_file",
    "ca_file",
    "refresh_seconds",
    "timeout_seconds",
    "nameserver",
];

/// Parses the `[fleet]` table; the error names the key and the problem.
pub(super) fn parse(body: &toml::Value) -> Result<FleetConfig, (String, String)> {
    let key = |k: &str| format!("fleet.{k}");
    let table = body
        .as_table()
        .ok_or_else(|| ("fleet".to_owned(), "expected a table".to_owned()))?;
    if let Some(unknown) = table.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err((
            key(unknown),
            format!("unknown key; keys of [fleet]: {}", KEYS.join(", ")),
        ));
    }
    let text = |k: &str| -> Result<Option<String>, (String, String)> {
        match table.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(_) => Err((key(k), "expected a non-empty string".into())),
        }
    };
    let seconds = |k: &str, default: u64, max: i64| -> Result<u64, (String, String)> {
        match table.get(k) {
            None => Ok(default),
            Some(toml::Value::Integer(n)) if (1..=max).contains(n) => Ok(*n as u64),
            Some(_) => Err((key(k), format!("expected an integer from 1 to {max}"))),
        }
    };
    let srv = text("srv")?.ok_or_else(|| (key("srv"), "missing".to_owned()))?;
    if !srv.split('.').all(valid_label) || srv.len() > 253 {
        return Err((
            key("srv"),
            "expected a DNS name such as _mcp._tcp.workers.NAMESPACE.svc.cluster.local".into(),
        ));
    }
    let token_file = text("token_file")?.map(PathBuf::from).ok_or_else(|| {
        (
            key("token_file"),
            "missing (tokens never go in the config itself)".to_owned(),
        )
    })?;
    let nameserver = text("nameserver")?
        .map(|s| {
            s.parse::<SocketAddr>()
                .or_else(|_| s.parse::<std::net::IpAddr>().map(|ip| (ip, 53).into()))
                .map_err(|_| (key("nameserver"), "expected IP or IP:PORT".to_owned()))
        })
        .transpose()?;
    let ca_file = text("ca_file")?.map(PathBuf::from).ok_or_else(|| {
        (
            key("ca_file"),
            "missing: the CA every worker's certificate chains to (one pinned fingerprint cannot cover a fleet)".to_owned(),
        )
    })?;
    let path = text("path")?.unwrap_or_else(|| "/mcp".into());
    if !path.starts_with('/') {
        return Err((key("path"), "expected a path starting with /".into()));
    }
    Ok(FleetConfig {
        srv,
        path,
        token_file,
        ca_file,
        refresh_seconds: seconds("refresh_seconds", DEFAULT_REFRESH, 3600)?,
        timeout_seconds: seconds("timeout_seconds", DEFAULT_MACHINE_TIMEOUT, 600)?,
        nameserver,
    })
}

/// A DNS label as SRV names use them (`_mcp`, `workers`, `svc`).
fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= 63
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Value {
        toml::Value::Table(text.parse::<toml::Table>().unwrap_or_default())
    }

    #[test]
    fn a_fleet_needs_an_srv_name_a_token_file_and_a_ca() {
        let ok = parse(&table(
            "srv = \"_mcp._tcp.workers.cu.svc.cluster.local\"\ntoken_file = \"/t\"\nca_file = \"/ca\"",
        ));
        assert_eq!(ok.as_ref().map(|f| f.refresh_seconds), Ok(DEFAULT_REFRESH));
        assert_eq!(ok.map(|f| f.path), Ok("/mcp".to_owned()));
        let key = |text: &str| parse(&table(text)).err().map(|e| e.0);
        assert_eq!(
            key("srv = \"_mcp._tcp.w\"\ntoken_file = \"/t\""),
            Some("fleet.ca_file".into())
        );
        assert_eq!(
            key("srv = \"a b\"\ntoken_file = \"/t\"\nca_file = \"/c\""),
            Some("fleet.srv".into())
        );
        assert_eq!(
            key("srv = \"_mcp._tcp.w\""),
            Some("fleet.token_file".into())
        );
        let ns = parse(&table(
            "srv = \"w\"\ntoken_file = \"/t\"\nca_file = \"/c\"\nnameserver = \"127.0.0.1:5353\"",
        ));
        assert_eq!(
            ns.map(|f| f.nameserver),
            Ok(Some(([127, 0, 0, 1], 5353).into()))
        );
        assert_eq!(
            key("srv = \"x\"\ntoken_file = \"/t\"\nca_file = \"/c\"\nport = 1"),
            Some("fleet.port".into())
        );
    }
}
