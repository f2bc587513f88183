//! A fleet: workers found in DNS (`[fleet]`), refreshed, named by pod, forgotten when gone.
//!
//! A Kubernetes headless Service publishes an SRV record per ready pod of the workers'
//! StatefulSet (`_mcp._tcp.workers.NS.svc.cluster.local` → `worker-3.workers.NS.svc…:8443`) and
//! an address record per pod name. [`lookup`] reads them (the I/O), [`machines_of`] turns them
//! into workers (pure): each named by its target's first label, reached at its pod's name (what
//! its certificate says) on the address DNS gave. [`Roster`] keeps the current fleet beside the
//! names that left it, so a call naming a worker that went away answers `MACHINE_UNREACHABLE`
//! rather than "unknown machine".

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use cu_core::config::{FleetConfig, MachineConfig};
use cu_core::{Error, ErrorCode};
use hickory_resolver::config::{NameServerConfig, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::RData;
use hickory_resolver::TokioResolver;

/// How long a worker that left the fleet is still named in answers (`MACHINE_UNREACHABLE`)
/// before it is forgotten.
pub const DEPARTED_FOR: Duration = Duration::from_secs(600);

/// One SRV answer: a worker's host name and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The pod's DNS name, without the trailing dot.
    pub host: String,
    /// The worker's port.
    pub port: u16,
}

/// The workers `targets` describe, by name: each named by its host's first label (lower case),
/// reached at the address `addresses` gives for its host (a host without one is skipped: it is
/// not ready). Names a machine may not have are skipped, and so is every target of a name two
/// hosts share: DNS answers in any order, and a name must not move between pods.
pub fn machines_of(
    fleet: &FleetConfig,
    targets: &[Target],
    addresses: &BTreeMap<String, IpAddr>,
) -> Vec<MachineConfig> {
    let name_of = |target: &Target| {
        target
            .host
            .split('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let mut out: Vec<MachineConfig> = Vec::new();
    for target in targets {
        let name = name_of(target);
        let shared = targets
            .iter()
            .any(|other| other.host != target.host && name_of(other) == name);
        if !cu_core::config::valid_machine_name(&name) || shared {
            tracing::warn!(host = %target.host, "fleet: a target whose pod name cannot name a machine, or that another host shares; skipped");
            continue;
        }
        if out.iter().any(|m| m.name == name) {
            continue;
        }
        let Some(ip) = addresses.get(&target.host) else {
            continue;
        };
        out.push(MachineConfig {
            name,
            url: format!("https://{}:{}{}", target.host, target.port, fleet.path),
            token_file: fleet.token_file.clone(),
            desktop_token_file: None,
            fingerprint: None,
            ca_file: Some(fleet.ca_file.clone()),
            timeout_seconds: fleet.timeout_seconds,
            address: Some(SocketAddr::new(*ip, target.port)),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A resolver for `fleet`: its `nameserver`, or the system's.
pub fn resolver(fleet: &FleetConfig) -> Result<TokioResolver, Error> {
    let failed = |e: &dyn std::fmt::Display| {
        Error::new(
            ErrorCode::ConfigInvalid,
            format!("fleet: no DNS resolver: {e}"),
        )
    };
    let builder = match fleet.nameserver {
        Some(at) => {
            let mut server = NameServerConfig::udp_and_tcp(at.ip());
            for connection in &mut server.connections {
                connection.port = at.port();
            }
            TokioResolver::builder_with_config(
                ResolverConfig::from_parts(None, Vec::new(), vec![server]),
                TokioRuntimeProvider::default(),
            )
        }
        None => TokioResolver::builder_tokio().map_err(|e| failed(&e))?,
    };
    let mut builder = builder;
    // The fleet changes as pods come and go: ask every time, keep nothing.
    builder.options_mut().cache_size = 0;
    builder.build().map_err(|e| failed(&e))
}

/// The fleet's workers as DNS lists them now. No records is an empty fleet, not an error.
pub async fn lookup(
    resolver: &TokioResolver,
    fleet: &FleetConfig,
) -> Result<Vec<MachineConfig>, Error> {
    let query = format!("{}.", fleet.srv.trim_end_matches('.'));
    let found = match resolver.srv_lookup(query.as_str()).await {
        Ok(found) => found,
        Err(e) if e.is_no_records_found() => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::new(
                ErrorCode::MachineUnreachable,
                format!("fleet: DNS lookup of {} failed: {e}", fleet.srv),
            ))
        }
    };
    let host = |name: &hickory_resolver::proto::rr::Name| {
        name.to_ascii().trim_end_matches('.').to_ascii_lowercase()
    };
    let mut targets = Vec::new();
    let mut addresses = BTreeMap::new();
    for record in found.answers() {
        if let RData::SRV(srv) = &record.data {
            targets.push(Target {
                host: host(&srv.target),
                port: srv.port,
            });
        }
    }
    // The server's additional records usually carry the targets' addresses already.
    for record in found.additionals() {
        match &record.data {
            RData::A(a) => {
                addresses.insert(host(&record.name), IpAddr::V4(a.0));
            }
            RData::AAAA(a) => {
                addresses.insert(host(&record.name), IpAddr::V6(a.0));
            }
            _ => {}
        }
    }
    for target in &targets {
        if addresses.contains_key(&target.host) {
            continue;
        }
        let name = format!("{}.", target.host);
        match resolver.lookup_ip(name.as_str()).await {
            Ok(ips) => {
                if let Some(ip) = ips.iter().next() {
                    addresses.insert(target.host.clone(), ip);
                }
            }
            // No address: the pod is not ready. Any other failure fails the whole lookup, so
            // the fleet stays as it was rather than losing a live worker to a DNS blip.
            Err(e) if e.is_no_records_found() => {}
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::MachineUnreachable,
                    format!("fleet: DNS lookup of {} failed: {e}", target.host),
                ))
            }
        }
    }
    Ok(machines_of(fleet, &targets, &addresses))
}

/// The fleet as last looked up, and who left it.
#[derive(Debug, Default)]
pub struct Roster {
    present: Vec<MachineConfig>,
    departed: BTreeMap<String, Instant>,
}

/// What one lookup changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// Names new to the fleet, or whose address changed (their sessions must be replaced).
    pub joined: Vec<String>,
    /// Names no longer in DNS.
    pub left: Vec<String>,
}

impl Roster {
    /// Takes the fleet `now_found` at `now`, and says what changed.
    pub fn update(&mut self, now_found: Vec<MachineConfig>, now: Instant) -> Change {
        let mut change = Change::default();
        for old in &self.present {
            if !now_found.iter().any(|m| m.name == old.name) {
                change.left.push(old.name.clone());
                self.departed.insert(old.name.clone(), now);
            }
        }
        for new in &now_found {
            if !self.present.iter().any(|m| m == new) {
                change.joined.push(new.name.clone());
            }
            self.departed.remove(&new.name);
        }
        self.departed
            .retain(|_, left| now.saturating_duration_since(*left) < DEPARTED_FOR);
        self.present = now_found;
        change
    }

    /// The workers in the fleet now.
    pub fn present(&self) -> &[MachineConfig] {
        &self.present
    }

    /// Whether `name` left the fleet (recently enough to be remembered).
    pub fn departed(&self, name: &str) -> bool {
        self.departed.contains_key(name)
    }

    /// The names that left, remembered.
    pub fn departed_names(&self) -> impl Iterator<Item = &String> {
        self.departed.keys()
    }
}

/// The answer for a call to a worker that left the fleet.
pub fn gone(name: &str) -> Error {
    Error::new(
        ErrorCode::MachineUnreachable,
        format!("machine {name} left the fleet: DNS no longer lists it"),
    )
    .with_retryable(true)
    .with_suggestion(
        "List the machines there now (gui_list with machine \"*\"); a pod that comes back is a new desktop: observe it again.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fleet() -> FleetConfig {
        FleetConfig {
            srv: "_mcp._tcp.workers.cu.svc.cluster.local".into(),
            path: "/mcp".into(),
            token_file: PathBuf::from("/t"),
            ca_file: PathBuf::from("/ca"),
            refresh_seconds: 15,
            timeout_seconds: 60,
            nameserver: None,
        }
    }

    fn target(host: &str) -> Target {
        Target {
            host: host.into(),
            port: 8443,
        }
    }

    #[test]
    fn workers_are_named_by_pod_and_reached_at_their_dns_address_under_their_pod_name() {
        let ip: IpAddr = [10, 1, 0, 7].into();
        let addresses = BTreeMap::from([
            ("worker-0.workers.cu.svc.cluster.local".to_owned(), ip),
            ("worker-1.workers.cu.svc.cluster.local".to_owned(), ip),
            ("worker-3.workers.cu.svc.cluster.local".to_owned(), ip),
            ("worker-3.other.cu.svc.cluster.local".to_owned(), ip),
        ]);
        let found = machines_of(
            &fleet(),
            &[
                target("worker-1.workers.cu.svc.cluster.local"),
                target("worker-0.workers.cu.svc.cluster.local"),
                // Not ready: no address yet.
                target("worker-2.workers.cu.svc.cluster.local"),
                // A name no machine may have, and a name two hosts share (neither is taken).
                target("all.workers.cu.svc.cluster.local"),
                target("worker-3.workers.cu.svc.cluster.local"),
                target("worker-3.other.cu.svc.cluster.local"),
            ],
            &addresses,
        );
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["worker-0", "worker-1"]);
        assert_eq!(
            found[0].url,
            "https://worker-0.workers.cu.svc.cluster.local:8443/mcp"
        );
        assert_eq!(found[0].address, Some(SocketAddr::new(ip, 8443)));
        assert_eq!(
            found[0].ca_file.as_deref(),
            Some(std::path::Path::new("/ca"))
        );
    }

    #[test]
    fn a_worker_that_leaves_is_remembered_as_departed_then_forgotten() {
        let at = |host: &str, last: u8| {
            let addresses = BTreeMap::from([(host.to_owned(), IpAddr::from([10, 0, 0, last]))]);
            machines_of(&fleet(), &[target(host)], &addresses)
        };
        let t0 = Instant::now();
        let mut roster = Roster::default();
        let mut both = at("w-0.x", 1);
        both.extend(at("w-1.x", 2));
        assert_eq!(roster.update(both, t0).joined, ["w-0", "w-1"]);
        let change = roster.update(at("w-0.x", 1), t0 + Duration::from_secs(15));
        assert_eq!(
            change,
            Change {
                joined: vec![],
                left: vec!["w-1".into()]
            }
        );
        assert!(roster.departed("w-1"));
        assert_eq!(roster.present().len(), 1);
        // Back with a new address: joined again (a new session), no longer departed.
        let change = roster.update(at("w-0.x", 9), t0 + Duration::from_secs(30));
        assert_eq!(change.joined, ["w-0"]);
        roster.update(at("w-0.x", 9), t0 + DEPARTED_FOR + Duration::from_secs(16));
        assert!(!roster.departed("w-1"));
    }
}
