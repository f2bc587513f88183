//! The one table of settings: TOML key, environment variable, type, range, and target field.

use std::path::PathBuf;

use super::{Config, LlmApi};

/// The type and allowed range of a setting.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `true`/`false` (env: 1/0, true/false, yes/no, on/off).
    Bool,
    /// Whole number within bounds.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Number of seconds (or any real quantity) within bounds.
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// A duration: seconds, or a number with `s`, `m` or `h` (`"3m"`), within bounds in seconds.
    Duration {
        /// Smallest allowed, seconds.
        min: u64,
        /// Largest allowed, seconds.
        max: u64,
    },
    /// An `http://` or `https://` URL.
    Url,
    /// Non-empty text.
    Text,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// A filesystem path.
    Path,
    /// A list of words (TOML array of strings; env: comma-separated).
    Words,
}

/// A checked value, ready to be stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// A whole number (also durations, in seconds).
    Int(u64),
    /// A real number.
    Float(f64),
    /// Text, a URL, a choice or a path.
    Text(String),
    /// A list of words.
    Words(Vec<String>),
}

/// One setting.
pub struct Setting {
    /// `section.key` in the TOML file.
    pub key: &'static str,
    /// The environment variable that overrides it.
    pub env: &'static str,
    /// Type and range.
    pub kind: Kind,
    /// One line of documentation.
    pub doc: &'static str,
    /// Stores a checked value.
    pub(crate) apply: fn(&mut Config, Value),
}

impl std::fmt::Debug for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setting")
            .field("key", &self.key)
            .field("env", &self.env)
            .finish()
    }
}

fn as_bool(v: Value) -> bool {
    matches!(v, Value::Bool(true))
}
fn as_u64(v: Value) -> u64 {
    match v {
        Value::Int(n) => n,
        _ => 0,
    }
}
fn as_u32(v: Value) -> u32 {
    u32::try_from(as_u64(v)).unwrap_or(u32::MAX)
}
fn as_f64(v: Value) -> f64 {
    match v {
        Value::Float(x) => x,
        Value::Int(n) => n as f64,
        _ => 0.0,
    }
}
fn as_text(v: Value) -> String {
    match v {
        Value::Text(s) => s,
        _ => String::new(),
    }
}
fn as_words(v: Value) -> Vec<String> {
    match v {
        Value::Words(w) => w,
        _ => Vec::new(),
    }
}

const SECS: Kind = Kind::Float {
    min: 0.1,
    max: 3600.0,
};

/// Every setting, in the order of the example file.
#[rustfmt::skip]
pub static SETTINGS: &[Setting] = &[
    Setting { key: "model.ollama_url", env: "MCP_CU_OLLAMA_URL", kind: Kind::Url,
        doc: "Model server URL.", apply: |c, v| c.ollama_url = as_text(v) },
    Setting { key: "model.name", env: "MCP_CU_MODEL", kind: Kind::Text,
        doc: "Model name; \"none\" answers from extraction only.", apply: |c, v| c.model = as_text(v) },
    Setting { key: "model.api", env: "MCP_CU_LLM_API", kind: Kind::Choice(&["ollama", "openai"]),
        doc: "\"ollama\" (native API) or \"openai\" (OpenAI-compatible /v1).",
        apply: |c, v| c.llm_api = if as_text(v) == "openai" { LlmApi::Openai } else { LlmApi::Ollama } },
    Setting { key: "model.num_ctx", env: "MCP_CU_NUM_CTX", kind: Kind::Int { min: 512, max: 1_048_576 },
        doc: "Context length sent to the model.", apply: |c, v| c.num_ctx = as_u32(v) },
    Setting { key: "model.resolve_with_model", env: "MCP_CU_RESOLVE_WITH_MODEL", kind: Kind::Bool,
        doc: "Let the model pick among weak label candidates.", apply: |c, v| c.resolve_with_model = as_bool(v) },
    Setting { key: "timeouts.base", env: "MCP_CU_TIMEOUT_BASE", kind: SECS,
        doc: "Smart timeout: base seconds.", apply: |c, v| c.timeout_base = as_f64(v) },
    Setting { key: "timeouts.per_1k_chars", env: "MCP_CU_TIMEOUT_PER_1K_CHARS", kind: Kind::Float { min: 0.0, max: 600.0 },
        doc: "Smart timeout: seconds added per 1000 characters of input.", apply: |c, v| c.timeout_per_1k_chars = as_f64(v) },
    Setting { key: "timeouts.min", env: "MCP_CU_TIMEOUT_MIN", kind: SECS,
        doc: "Smart timeout: lower bound, seconds.", apply: |c, v| c.timeout_min = as_f64(v) },
    Setting { key: "timeouts.max", env: "MCP_CU_TIMEOUT_MAX", kind: SECS,
        doc: "Smart timeout: upper bound, seconds.", apply: |c, v| c.timeout_max = as_f64(v) },
    Setting { key: "timeouts.cold_load_extra", env: "MCP_CU_COLD_LOAD_EXTRA", kind: Kind::Float { min: 0.0, max: 3600.0 },
        doc: "Seconds added when the model is not loaded.", apply: |c, v| c.cold_load_extra = as_f64(v) },
    Setting { key: "timeouts.adaptive", env: "MCP_CU_ADAPTIVE_TIMEOUT", kind: Kind::Bool,
        doc: "Adapt the timeout to recent latencies.", apply: |c, v| c.adaptive_timeout = as_bool(v) },
    Setting { key: "timeouts.adaptive_window", env: "MCP_CU_ADAPTIVE_WINDOW", kind: Kind::Int { min: 1, max: 100 },
        doc: "Recent samples the adaptive timeout uses.", apply: |c, v| c.adaptive_window = as_u32(v) },
    Setting { key: "timeouts.call_budget_seconds", env: "MCP_CU_CALL_BUDGET_SECONDS", kind: Kind::Float { min: 0.0, max: 3600.0 },
        doc: "Whole-call budget in seconds; 0 = off.", apply: |c, v| c.call_budget_seconds = as_f64(v) },
    Setting { key: "timeouts.image", env: "MCP_CU_IMAGE_TIMEOUT", kind: SECS,
        doc: "Window capture timeout, seconds.", apply: |c, v| c.image_timeout = as_f64(v) },
    Setting { key: "images.max_width", env: "MCP_CU_IMAGE_MAX_WIDTH", kind: Kind::Int { min: 64, max: 8192 },
        doc: "Widest screenshot sent (pixels); wider windows are scaled down.", apply: |c, v| c.image_max_width = as_u32(v) },
    Setting { key: "images.quality", env: "MCP_CU_IMAGE_QUALITY", kind: Kind::Int { min: 1, max: 100 },
        doc: "Screenshot JPEG quality.", apply: |c, v| c.image_quality = u8::try_from(as_u64(v)).unwrap_or(70) },
    Setting { key: "ollama.autostart", env: "MCP_CU_AUTOSTART_OLLAMA", kind: Kind::Bool,
        doc: "Start Ollama when it is not running.", apply: |c, v| c.autostart_ollama = as_bool(v) },
    Setting { key: "ollama.autostart_timeout", env: "MCP_CU_AUTOSTART_TIMEOUT", kind: SECS,
        doc: "Seconds to wait for an auto-started Ollama.", apply: |c, v| c.autostart_timeout = as_f64(v) },
    Setting { key: "memory.keep_alive_idle", env: "MCP_CU_KEEP_ALIVE_IDLE", kind: Kind::Duration { min: 0, max: 86_400 },
        doc: "Keep-alive after a single call (\"3m\", \"180s\" or seconds).", apply: |c, v| c.keep_alive_idle_secs = as_u64(v) },
    Setting { key: "memory.keep_alive_session", env: "MCP_CU_KEEP_ALIVE_SESSION", kind: Kind::Duration { min: 0, max: 86_400 },
        doc: "Keep-alive while a session is active.", apply: |c, v| c.keep_alive_session_secs = as_u64(v) },
    Setting { key: "memory.min_free_mb", env: "MCP_CU_MIN_FREE_MB", kind: Kind::Int { min: 0, max: 1_048_576 },
        doc: "Unload the model below this much free RAM (MB); 0 = off.", apply: |c, v| c.min_free_mb = as_u64(v) },
    Setting { key: "memory.watch", env: "MCP_CU_MEMORY_WATCH", kind: Kind::Bool,
        doc: "Background memory watcher.", apply: |c, v| c.memory_watch = as_bool(v) },
    Setting { key: "memory.watch_interval", env: "MCP_CU_MEMORY_WATCH_INTERVAL", kind: Kind::Float { min: 1.0, max: 3600.0 },
        doc: "Memory watcher interval, seconds.", apply: |c, v| c.memory_watch_interval = as_f64(v) },
    Setting { key: "sessions.dir", env: "MCP_CU_SESSIONS_DIR", kind: Kind::Path,
        doc: "Sessions, audit log, timing stats and locks.", apply: |c, v| c.sessions_dir = PathBuf::from(as_text(v)) },
    Setting { key: "sessions.ttl_hours", env: "MCP_CU_SESSION_TTL_HOURS", kind: Kind::Int { min: 1, max: 8760 },
        doc: "Session file lifetime, hours.", apply: |c, v| c.session_ttl_hours = as_u32(v) },
    Setting { key: "sessions.action_log_ttl_hours", env: "MCP_CU_ACTION_LOG_TTL_HOURS", kind: Kind::Int { min: 1, max: 87_600 },
        doc: "Audit log retention, hours.", apply: |c, v| c.action_log_ttl_hours = as_u32(v) },
    Setting { key: "safety.blocklist", env: "MCP_CU_SAFETY_BLOCKLIST", kind: Kind::Words,
        doc: "More blocked words; they only add to the built-in list.", apply: |c, v| c.safety_blocklist = as_words(v) },
    Setting { key: "safety.blocklist_extra", env: "MCP_CU_SAFETY_BLOCKLIST_EXTRA", kind: Kind::Words,
        doc: "More blocked words (same effect).", apply: |c, v| c.safety_blocklist_extra = as_words(v) },
    Setting { key: "safety.approvals", env: "MCP_CU_APPROVALS", kind: Kind::Bool,
        doc: "Blocked actions wait for a person's yes on the Desktop page (confirm_dangerous alone is not enough).", apply: |c, v| c.approvals = as_bool(v) },
    Setting { key: "apps.allow", env: "MCP_CU_APPS_ALLOW", kind: Kind::Words,
        doc: "Programs gui_open may start besides desktop applications (shells and terminals only when named here).", apply: |c, v| c.apps_allow = as_words(v) },
    Setting { key: "clipboard.read", env: "MCP_CU_CLIPBOARD_READ", kind: Kind::Bool,
        doc: "Let gui_clipboard read the clipboard (off: clipboards hold passwords).", apply: |c, v| c.clipboard_read = as_bool(v) },
    Setting { key: "limits.max_type_chars", env: "MCP_CU_MAX_TYPE_CHARS", kind: Kind::Int { min: 1, max: 1_000_000 },
        doc: "Longest text type_text accepts.", apply: |c, v| c.max_type_chars = as_u32(v) },
    Setting { key: "limits.max_question_chars", env: "MCP_CU_MAX_QUESTION_CHARS", kind: Kind::Int { min: 1, max: 100_000 },
        doc: "Longest look_at_screen question.", apply: |c, v| c.max_question_chars = as_u32(v) },
    Setting { key: "look.snapshot_details", env: "MCP_CU_SNAPSHOT_DETAILS", kind: Kind::Bool,
        doc: "Extra snapshot inspection for details.", apply: |c, v| c.snapshot_details = as_bool(v) },
    Setting { key: "health.http", env: "MCP_CU_HEALTH_HTTP", kind: Kind::Bool,
        doc: "Serve GET /health on 127.0.0.1 (port health.port) beside the stdio server.", apply: |c, v| c.health_http = as_bool(v) },
    Setting { key: "health.port", env: "MCP_CU_HEALTH_PORT", kind: Kind::Int { min: 1, max: 65_535 },
        doc: "Port of the health endpoint.", apply: |c, v| c.health_port = u16::try_from(as_u64(v)).unwrap_or(8765) },
];
