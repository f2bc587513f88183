//! The tool service of mcp-computer-use and (next) its MCP surface.
//!
//! [`service::Service`] holds what every tool shares (the backend, the state registry, the safety
//! gate) and implements `gui_list`, `gui_state` and `gui_action` as plain async functions with
//! serde types. The CLI calls them directly; the MCP server wraps the same functions, so no tool
//! logic is written twice.

pub mod http;
pub mod listen;
pub mod remote;
pub mod server;
pub mod service;
pub mod tools;
