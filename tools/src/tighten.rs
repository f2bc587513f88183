//! A call forwarded by a controller carries the controller's own safety settings, and the worker
//! applies them on top of its own for that call alone: the controller's extra blocked words join
//! the worker's list, and the controller's approvals make the worker hold what its gate stops for
//! a person. They can only tighten (words only add; approvals only turn on).
//!
//! The settings travel as the hidden argument `_gate` of the forwarded call (never in a tool's
//! schema), taken off at the MCP edge, and are in force while that call runs
//! ([`Service::tightened`]); the gate reads them through [`Service::gate`] and
//! [`Service::approvals_on`].

use std::future::Future;
use std::sync::Arc;

use cu_core::config::Config;
use cu_core::policy::safety::Gate;
use serde::{Deserialize, Serialize};

/// The hidden argument that carries a controller's settings.
pub const ARGUMENT: &str = "_gate";

/// A controller's safety settings, sent with each acting call it forwards.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tightening {
    /// The controller holds what its gate stops for a person.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approvals: bool,
    /// The controller's extra blocked words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_words: Vec<String>,
}

impl Tightening {
    /// What `config` adds to the built-in gate; `None` when it adds nothing.
    pub fn of(config: &Config) -> Option<Tightening> {
        let t = Tightening {
            approvals: config.approvals,
            blocked_words: config.extra_blocked_words(),
        };
        (t != Tightening::default()).then_some(t)
    }
}

/// The settings in force for the running call.
struct InForce {
    approvals: bool,
    gate: Option<Arc<Gate>>,
}

tokio::task_local! {
    static IN_FORCE: InForce;
}

/// The gate in force: the service's own, or one with a controller's words added.
pub enum GateInForce<'a> {
    /// The service's own.
    Own(&'a Gate),
    /// With a controller's words.
    Tightened(Arc<Gate>),
}

impl std::ops::Deref for GateInForce<'_> {
    type Target = Gate;
    fn deref(&self) -> &Gate {
        match self {
            GateInForce::Own(g) => g,
            GateInForce::Tightened(g) => g,
        }
    }
}

/// Runs `call` with `tightening` in force on top of `own_words` (the settings' blocked words).
pub(crate) async fn run<F: Future>(
    own_words: Vec<String>,
    tightening: Tightening,
    call: F,
) -> F::Output {
    let gate = (!tightening.blocked_words.is_empty()).then(|| {
        let mut words = own_words;
        words.extend(tightening.blocked_words);
        Arc::new(Gate::new(&words))
    });
    IN_FORCE
        .scope(
            InForce {
                approvals: tightening.approvals,
                gate,
            },
            call,
        )
        .await
}

/// The blocklist in force for the running call: `own`, or a controller's tightening of it.
pub(crate) fn gate_in_force(own: &Gate) -> GateInForce<'_> {
    IN_FORCE
        .try_with(|f| f.gate.clone())
        .ok()
        .flatten()
        .map_or(GateInForce::Own(own), GateInForce::Tightened)
}

/// Whether a controller asked that what the gate stops waits for a person, for the running call.
pub(crate) fn approvals_in_force() -> bool {
    IN_FORCE.try_with(|f| f.approvals).unwrap_or(false)
}
