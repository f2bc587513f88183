//! The MCP surface of mcp-computer-use: protocol only.
//!
//! The tools themselves are plain async functions in `cu_tools::Service` (MCP-free). This crate
//! declares them to MCP clients ([`tools`], their schemas made lean in `schema`), dispatches
//! calls to them ([`server`]), converts their answers and errors to and from the wire
//! ([`wire`]), serves them over stdio and Streamable HTTP under one set of listener rules
//! ([`http`], [`listen`]), and routes calls that name another machine ([`remote`]); bearer
//! tokens are compared in [`token`]. The agent guide is also a skill and a resource ([`skill`]).

pub mod http;
pub mod listen;
pub mod remote;
mod schema;
pub mod server;
pub mod skill;
pub mod token;
pub mod tools;
pub mod untrusted;
pub mod wire;
