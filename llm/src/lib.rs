//! The local model behind `look_at_screen` and click's model resolution.
//!
//! [`ModelClient`] speaks two APIs behind one interface, chosen in the configuration: Ollama's
//! native API (`/api/chat` with a JSON schema in `format`, `keep_alive`, `/api/ps`, `/api/tags`,
//! unload with `keep_alive: 0`) and the OpenAI-compatible API (`/v1/chat/completions` with a
//! `json_schema` response format: llama.cpp's server, LM Studio, vLLM). Every request carries a
//! schema with bounded string lengths, so even a tiny model answers valid JSON.
//!
//! [`autostart`] starts a local `ollama serve` once, guarded by a port check and a lock file;
//! [`memory`] picks the keep-alive and watches free RAM. What to ask and how long to wait are
//! the caller's (`cu-tools`), built on [`prompt`] and `cu_core::policy::timeouts`.

pub mod autostart;
mod client;
mod error;
pub mod memory;
pub mod prompt;

pub use client::{Chat, Loaded, ModelClient, Reply, CONNECT_TIMEOUT};
pub use error::{ModelError, TimeoutStage};
