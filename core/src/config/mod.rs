//! Configuration: defaults < the user's TOML file < `MCP_CU_*` environment < a project file that
//! can only tighten, validated.
//!
//! The user's file is `MCP_CU_CONFIG` if set, else `~/.config/mcp-computer-use/config.toml`
//! (`%USERPROFILE%\.config\…` on Windows). Environment variables then override single settings.
//! A `./mcp-computer-use.toml` in the working directory (a cloned repository can carry one) is
//! applied last and may only tighten ([`PROJECT_KEYS`]): add blocked words, turn approvals on,
//! lower limits; any other key in it is an error naming the key.
//!
//! Every setting is declared once, in [`settings::SETTINGS`]: its TOML key, its environment
//! variable, its type and range, and where it lands in [`Config`]. Loading checks every value
//! against that table, so an unknown key, a wrong type or an out-of-range value is an error that
//! names the key and where it came from, never a silent default.

mod fleet;
mod load;
mod machines;
mod settings;

use std::path::PathBuf;

use serde::Serialize;

pub use fleet::FleetConfig;
pub use load::{ConfigError, ConfigSource};
pub use machines::{
    normalize_fingerprint, valid_machine_name, MachineConfig, DEFAULT_MACHINE_TIMEOUT,
};
pub use settings::{Setting, SETTINGS};

/// Which API the model server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmApi {
    /// Ollama's native API (`/api/chat`).
    Ollama,
    /// An OpenAI-compatible API (`/v1/chat/completions`).
    Openai,
}

/// The whole configuration, after layering and validation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Model server URL.
    pub ollama_url: String,
    /// Model name; `none` answers from extraction only.
    pub model: String,
    /// Model server API.
    pub llm_api: LlmApi,
    /// Context length sent to the model.
    pub num_ctx: u32,
    /// Let the model pick among weak label candidates.
    pub resolve_with_model: bool,
    /// Smart timeout base, seconds.
    pub timeout_base: f64,
    /// Smart timeout per 1000 characters of input, seconds.
    pub timeout_per_1k_chars: f64,
    /// Smart timeout lower bound, seconds.
    pub timeout_min: f64,
    /// Smart timeout upper bound, seconds.
    pub timeout_max: f64,
    /// Added when the model is cold, seconds.
    pub cold_load_extra: f64,
    /// Adapt the timeout to observed latencies.
    pub adaptive_timeout: bool,
    /// Number of recent samples the adaptive timeout uses.
    pub adaptive_window: u32,
    /// Whole-call budget, seconds; 0 = off.
    pub call_budget_seconds: f64,
    /// Start Ollama when it is not running.
    pub autostart_ollama: bool,
    /// How long to wait for an auto-started Ollama, seconds.
    pub autostart_timeout: f64,
    /// Keep-alive for a single call, seconds.
    pub keep_alive_idle_secs: u64,
    /// Keep-alive while a session is active, seconds.
    pub keep_alive_session_secs: u64,
    /// Unload the model below this much free RAM, MB; 0 = off.
    pub min_free_mb: u64,
    /// Run the background memory watcher.
    pub memory_watch: bool,
    /// Memory watcher interval, seconds.
    pub memory_watch_interval: f64,
    /// Sessions, audit log, timing stats and locks.
    pub sessions_dir: PathBuf,
    /// Session file lifetime, hours.
    pub session_ttl_hours: u32,
    /// Audit log retention, hours.
    pub action_log_ttl_hours: u32,
    /// Extra blocked words (they only add to the built-in list).
    pub safety_blocklist: Vec<String>,
    /// More extra blocked words (same effect; kept for the predecessor's two names).
    pub safety_blocklist_extra: Vec<String>,
    /// Actions the gate stops wait for a person's approval on the Desktop page (and
    /// `confirm_dangerous` alone is not enough).
    pub approvals: bool,
    /// Programs `gui_open` may start besides desktop applications.
    pub apps_allow: Vec<String>,
    /// `gui_clipboard` may read the clipboard.
    pub clipboard_read: bool,
    /// `type_text` limit, characters.
    pub max_type_chars: u32,
    /// `look_at_screen` question limit, characters.
    pub max_question_chars: u32,
    /// Window capture timeout, seconds.
    pub image_timeout: f64,
    /// Widest screenshot sent, pixels; wider windows are scaled down.
    pub image_max_width: u32,
    /// Screenshot JPEG quality, 1-100.
    pub image_quality: u8,
    /// Extra snapshot inspection for `details`.
    pub snapshot_details: bool,
    /// Serve GET /health on 127.0.0.1:8765.
    pub health_http: bool,
    /// Port of the health endpoint (default 8765).
    pub health_port: u16,
    /// Remote workers this process may forward tool calls to (`[machines.NAME]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub machines: Vec<MachineConfig>,
    /// Workers found in DNS (`[fleet]`), beside the typed ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetConfig>,
    /// Where the configuration came from (for `--health` and error messages).
    #[serde(skip)]
    pub file: Option<PathBuf>,
    /// A project file in the working directory that tightened it (see [`PROJECT_KEYS`]).
    #[serde(skip)]
    pub project_file: Option<PathBuf>,
}

/// What a project file (`./mcp-computer-use.toml`, which a cloned repository can carry) may set:
/// it can add blocked words, turn approvals on and lower limits, never loosen anything or say
/// where window text is sent.
pub const PROJECT_KEYS: &[&str] = &[
    "safety.blocklist",
    "safety.blocklist_extra",
    "safety.approvals",
    "limits.max_type_chars",
    "limits.max_question_chars",
];

impl Config {
    /// The built-in defaults, with `sessions_dir` derived from `env`.
    pub fn defaults(env: &dyn Fn(&str) -> Option<String>) -> Config {
        Config {
            ollama_url: "http://127.0.0.1:11435".into(),
            model: "gpt-oss:20b".into(),
            llm_api: LlmApi::Ollama,
            num_ctx: 8192,
            resolve_with_model: true,
            timeout_base: 30.0,
            timeout_per_1k_chars: 4.0,
            timeout_min: 20.0,
            timeout_max: 90.0,
            cold_load_extra: 45.0,
            adaptive_timeout: true,
            adaptive_window: 8,
            call_budget_seconds: 110.0,
            autostart_ollama: true,
            autostart_timeout: 30.0,
            keep_alive_idle_secs: 180,
            keep_alive_session_secs: 600,
            min_free_mb: 2048,
            memory_watch: true,
            memory_watch_interval: 30.0,
            sessions_dir: default_state_dir(env),
            session_ttl_hours: 24,
            action_log_ttl_hours: 24,
            safety_blocklist: Vec::new(),
            safety_blocklist_extra: Vec::new(),
            approvals: false,
            apps_allow: Vec::new(),
            clipboard_read: false,
            max_type_chars: 2000,
            max_question_chars: 300,
            image_timeout: 15.0,
            image_max_width: 1024,
            image_quality: 70,
            snapshot_details: true,
            health_http: false,
            health_port: 8765,
            machines: Vec::new(),
            fleet: None,
            file: None,
            project_file: None,
        }
    }

    /// Loads the configuration from the process environment and working directory.
    pub fn load() -> Result<Config, ConfigError> {
        let env = |name: &str| std::env::var(name).ok();
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Config::load_with(&env, &cwd)
    }

    /// Loads with an explicit environment and working directory (for tests and embedding).
    pub fn load_with(
        env: &dyn Fn(&str) -> Option<String>,
        cwd: &std::path::Path,
    ) -> Result<Config, ConfigError> {
        load::load(env, cwd)
    }

    /// The extra blocked words from both keys, deduplicated, in order.
    pub fn extra_blocked_words(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in self
            .safety_blocklist
            .iter()
            .chain(&self.safety_blocklist_extra)
        {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
        out
    }
}

/// The per-user state directory: `$XDG_STATE_HOME/mcp-computer-use`,
/// `~/.local/state/mcp-computer-use`, `%LOCALAPPDATA%\mcp-computer-use` on Windows, or
/// `~/Library/Application Support/mcp-computer-use` on macOS.
fn default_state_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    const APP: &str = "mcp-computer-use";
    let non_empty = |k: &str| env(k).filter(|v| !v.is_empty());
    if cfg!(windows) {
        if let Some(dir) = non_empty("LOCALAPPDATA") {
            return PathBuf::from(dir).join(APP);
        }
    } else if cfg!(target_os = "macos") {
        if let Some(home) = non_empty("HOME") {
            return PathBuf::from(home)
                .join("Library/Application Support")
                .join(APP);
        }
    } else if let Some(dir) = non_empty("XDG_STATE_HOME") {
        return PathBuf::from(dir).join(APP);
    }
    match non_empty("HOME").or_else(|| non_empty("USERPROFILE")) {
        Some(home) => PathBuf::from(home).join(".local/state").join(APP),
        // No shared fallback (a /tmp directory others can create first): the sessions
        // directory must then be set; `private::ensure_dir` says so.
        None => PathBuf::new(),
    }
}

#[cfg(test)]
mod tests;
