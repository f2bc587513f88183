//! `[machines.NAME]` sections: the remote workers a controller may forward tool calls to.
//!
//! ```toml
//! [machines.lab1]
//! url = "https://10.0.0.12:8443/mcp"
//! token_file = "/home/me/.config/mcp-computer-use/lab1.token"
//! # the worker's --desktop-token-file: lets this controller's Desktop page decide approvals
//! # and send a person's input there (never the tool token)
//! desktop_token_file = "/home/me/.config/mcp-computer-use/lab1.desktop-token"
//! fingerprint = "sha256 of the worker's certificate, hex (colons allowed)"
//! # or: ca_file = "/path/to/ca.pem"
//! timeout_seconds = 60
//! ```
//!
//! Plain `http://` is accepted only for loopback hosts (an SSH tunnel, a test): the token must not
//! cross a network in the clear.

use std::path::PathBuf;

use serde::Serialize;

/// One remote worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineConfig {
    /// The name tools take as `machine` and that prefixes its ids (`lab1/x11:0x…`).
    pub name: String,
    /// The worker's MCP endpoint.
    pub url: String,
    /// File holding the worker's bearer token.
    pub token_file: PathBuf,
    /// File holding the worker's desktop credential, which the Desktop page's decisions, input
    /// and activation need there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desktop_token_file: Option<PathBuf>,
    /// SHA-256 of the worker's certificate (64 hex digits): pins a self-signed certificate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// A CA certificate (PEM) the worker's certificate must chain to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// Longest wait for one call, connection included.
    pub timeout_seconds: u64,
    /// Where to connect, when known apart from the URL's host (a fleet worker's address from
    /// DNS): the URL's host is then only the name its certificate must carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<std::net::SocketAddr>,
}

/// Default per-call bound for a remote worker.
pub const DEFAULT_MACHINE_TIMEOUT: u64 = 120;

/// Names tools reserve: `local` is this machine, `all` lists every machine.
const RESERVED: &[&str] = &["local", "all"];

/// Whether `name` may name a machine: 1-32 of A-Z a-z 0-9 - _, and not a reserved name.
pub fn valid_machine_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !RESERVED.contains(&name)
}

/// Parses one `[machines.NAME]` table; the error names the problem (the caller adds the key).
pub(super) fn parse(name: &str, body: &toml::Value) -> Result<MachineConfig, (String, String)> {
    let key = |k: &str| format!("machines.{name}.{k}");
    if !valid_machine_name(name) {
        return Err((
            format!("machines.{name}"),
            "a machine name is 1-32 of A-Z a-z 0-9 - _, and not `local` or `all`".into(),
        ));
    }
    let table = body
        .as_table()
        .ok_or_else(|| (format!("machines.{name}"), "expected a table".to_owned()))?;
    let text = |k: &str| -> Result<Option<String>, (String, String)> {
        match table.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(_) => Err((key(k), "expected a non-empty string".into())),
        }
    };
    for k in table.keys() {
        if ![
            "url",
            "token_file",
            "desktop_token_file",
            "fingerprint",
            "ca_file",
            "timeout_seconds",
        ]
        .contains(&k.as_str())
        {
            return Err((
                key(k),
                "unknown key; keys of a machine: url, token_file, desktop_token_file, fingerprint, ca_file, timeout_seconds".into(),
            ));
        }
    }
    let url = text("url")?.ok_or_else(|| (key("url"), "missing".to_owned()))?;
    let token_file = text("token_file")?.map(PathBuf::from).ok_or_else(|| {
        (
            key("token_file"),
            "missing (tokens never go in the config itself)".to_owned(),
        )
    })?;
    let fingerprint = text("fingerprint")?
        .map(|f| {
            normalize_fingerprint(&f).ok_or_else(|| {
                (
                    key("fingerprint"),
                    "expected 64 hex digits (SHA-256), colons allowed".to_owned(),
                )
            })
        })
        .transpose()?;
    let ca_file = text("ca_file")?.map(PathBuf::from);
    let desktop_token_file = text("desktop_token_file")?.map(PathBuf::from);
    let timeout_seconds = match table.get("timeout_seconds") {
        None => DEFAULT_MACHINE_TIMEOUT,
        Some(toml::Value::Integer(n)) if (1..=600).contains(n) => *n as u64,
        Some(_) => {
            return Err((
                key("timeout_seconds"),
                "expected an integer from 1 to 600".into(),
            ))
        }
    };
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| (key("url"), "expected http(s)://host:port/mcp".to_owned()))?;
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = host
        .rsplit_once(':')
        .map_or(host, |(h, _)| h)
        .trim_matches(['[', ']']);
    match scheme {
        "https" => {}
        "http" if is_loopback_host(host) => {}
        "http" => {
            return Err((
                key("url"),
                "plain http is only for loopback hosts; use https (the worker's --tls-*)".into(),
            ))
        }
        _ => return Err((key("url"), "expected an http:// or https:// URL".into())),
    }
    if scheme == "https" && fingerprint.is_none() && ca_file.is_none() {
        return Err((
            key("fingerprint"),
            "an https machine needs `fingerprint` (pinned certificate) or `ca_file`".into(),
        ));
    }
    Ok(MachineConfig {
        name: name.to_owned(),
        url,
        token_file,
        desktop_token_file,
        fingerprint,
        ca_file,
        timeout_seconds,
        address: None,
    })
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Lower-case hex without separators, when `text` is a SHA-256 fingerprint.
pub fn normalize_fingerprint(text: &str) -> Option<String> {
    let hex: String = text
        .chars()
        .filter(|c| *c != ':' && !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    (hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit())).then_some(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Value {
        toml::Value::Table(text.parse::<toml::Table>().unwrap_or_default())
    }

    #[test]
    fn a_machine_needs_a_url_a_token_file_and_tls_pinning() {
        let fp = "AB:".repeat(31) + "AB";
        let ok = parse(
            "lab1",
            &table(&format!(
                "url = \"https://10.0.0.2:8443/mcp\"\ntoken_file = \"/t\"\nfingerprint = \"{fp}\""
            )),
        );
        let m = ok.map_err(|e| e.1);
        assert_eq!(
            m.as_ref().map(|m| m.fingerprint.clone()),
            Ok(Some("ab".repeat(32)))
        );
        assert_eq!(m.map(|m| m.timeout_seconds), Ok(DEFAULT_MACHINE_TIMEOUT));
        let tunnel = parse(
            "t",
            &table("url = \"http://127.0.0.1:9000/mcp\"\ntoken_file = \"/t\""),
        );
        assert!(tunnel.is_ok());
        for (name, body, bad_key) in [
            (
                "lab1",
                "url = \"http://10.0.0.2:9000/mcp\"\ntoken_file = \"/t\"",
                "machines.lab1.url",
            ),
            (
                "lab1",
                "url = \"https://10.0.0.2:9000/mcp\"\ntoken_file = \"/t\"",
                "machines.lab1.fingerprint",
            ),
            (
                "lab1",
                "url = \"https://h/mcp\"\ntoken_file = \"/t\"\nfingerprint = \"abc\"",
                "machines.lab1.fingerprint",
            ),
            (
                "lab1",
                "url = \"http://127.0.0.1/mcp\"",
                "machines.lab1.token_file",
            ),
            (
                "lab1",
                "url = \"http://127.0.0.1/mcp\"\ntoken_file = \"/t\"\ntoken = \"x\"",
                "machines.lab1.token",
            ),
            (
                "local",
                "url = \"http://127.0.0.1/mcp\"\ntoken_file = \"/t\"",
                "machines.local",
            ),
            (
                "a/b",
                "url = \"http://127.0.0.1/mcp\"\ntoken_file = \"/t\"",
                "machines.a/b",
            ),
        ] {
            assert_eq!(
                parse(name, &table(body)).err().map(|e| e.0),
                Some(bad_key.to_owned()),
                "{body}"
            );
        }
    }
}
