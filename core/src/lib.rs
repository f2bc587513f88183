//! The platform-free heart of mcp-computer-use: the model every backend fills and every tool
//! reads, the policies the tools decide by, and the stores they keep. No GUI or accessibility
//! API and no network (only the `queued` feature brings tokio's channels and timers), so all of
//! it is tested anywhere.
//!
//! How the pieces fit: a platform adapter implements [`model::backend::Backend`]; asked for a
//! window, it walks its accessibility tree and fills a [`model::element::Snapshot`] (nodes with
//! the shared roles and states, identities it can resolve again, window-relative bounds, a
//! truncation marker when partial), which the constructor tidies the same way for every
//! platform. The tools (`cu-tools`) render a snapshot as the compact outline
//! ([`model::outline`]), save it as a state and a view ([`store`]), match labels and judge
//! input by the policies ([`policy`]), and send input back through the same trait. Every
//! failure, in every layer, is one [`Error`]: a stable [`ErrorCode`], `retryable`, a
//! `suggestion` and details, mapped once to the wire by the MCP crate and to an exit code by
//! the CLI.
//!
//! - [`model`]: geometry, windows, the element tree and snapshots, the `Backend` trait, key
//!   combinations, live probes, the outline and diffs, label text, the bounded walk;
//! - [`policy`]: the safety gate and the consequence of a press, label matching, launching,
//!   wait conditions, `look_at_screen`'s extraction, questions, answers and timeouts;
//! - [`store`]: the sessions directory (private, written whole), saved states, views, sessions,
//!   the audit log, approvals;
//! - [`error`] and [`config`] (defaults < TOML file < `MCP_CU_*` environment, validated);
//! - `queued` (feature `queued`): the receiving half of the UIA and AX change-event watches.
//!
//! With the `schema` feature (on for the tools and the MCP surface, off for the backends), the
//! types the tools answer with describe their JSON Schema.

pub mod config;
pub mod error;
pub mod model;
pub mod policy;
#[cfg(any(feature = "queued", test))]
pub mod queued;
pub mod store;

pub use error::{Error, ErrorAnswer, ErrorCode, Result};
