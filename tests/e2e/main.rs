//! End-to-end tests: the real binary and the real backend against real apps on the headless
//! desktop that `scripts/test.sh` starts.
//!
//! Without a desktop (no `MCP_CU_TEST_DESKTOP`), each desktop test prints that it skipped; under
//! `CI=true` a missing desktop is a failure. Desktop tests take a global lock, so they never
//! fight over focus and the pointer even when the harness runs them on several threads.

// A test crate: its helpers outside #[test] functions may unwrap too (clippy.toml allows it
// only inside tests and #[cfg(test)] modules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod harness;
mod linux_backend;
