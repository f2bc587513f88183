//! The model as the tools use it: one JSON answer within the smart timeout and the call budget,
//! auto-start, keep-alive and the free-memory floor, and the `ping`, `health` and
//! `release_model` tools. Timing history lives in `timing_stats.json`, not in this process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cu_core::config::{Config, LlmApi};
use cu_core::policy::timeouts::{Timeout, TimingStats};
use cu_core::store::sessions::Sessions;
use cu_core::{Error, ErrorCode, Result};
use cu_llm::autostart::{self, Outcome};
use cu_llm::memory::{self, KeepReason};
use cu_llm::{Chat, ModelClient, ModelError, Reply};
use serde::Serialize;
use serde_json::Value;

/// The model side of the service.
pub struct ModelRuntime {
    config: Config,
    client: Option<ModelClient>,
    /// Why there is no client although a model is configured.
    client_error: Option<String>,
    /// This process started Ollama.
    autostarted: AtomicBool,
    /// The memory watcher while the model is loaded.
    watcher: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// The `memory` field of an answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MemoryReport {
    /// Seconds the model stays loaded after this call.
    pub keep_alive: u64,
    /// Why.
    pub reason: KeepReason,
    /// The model was loaded before the call (Ollama only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_loaded: Option<bool>,
    /// Free RAM after the call, MB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_ram_mb: Option<u64>,
    /// Unloaded at once because free RAM fell under the floor.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unloaded_low_memory: bool,
}

/// The `timing` field: the timeout used and the model's wall time.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TimingReport {
    /// The computed timeout and where it came from.
    #[serde(flatten)]
    pub timeout: Timeout,
    /// Seconds the model took (left out when it did not answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_wall_seconds: Option<f64>,
}

/// A model answer with what it cost.
pub struct Answered {
    /// The parsed answer.
    pub reply: Reply,
    /// The timeout used.
    pub timing: TimingReport,
    /// Keep-alive and memory.
    pub memory: MemoryReport,
}

/// A failed model call, with the timing known so far.
pub struct Unanswered {
    /// Why.
    pub error: Error,
    /// The timeout used, when one was computed.
    pub timing: Option<TimingReport>,
}

/// How a call stands towards sessions (auto-start and keep-alive depend on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionUse {
    /// No session.
    None,
    /// The first call of a session (no file yet).
    First,
    /// A later call inside a session.
    Inside,
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl ModelRuntime {
    /// The runtime for `config` (no client when the model is `none`).
    pub fn new(config: &Config) -> ModelRuntime {
        let (client, client_error) = if config.model == "none" {
            (None, None)
        } else {
            match ModelClient::new(config.llm_api, &config.ollama_url, &config.model) {
                Ok(c) => (Some(c), None),
                Err(e) => (None, Some(e.to_string())),
            }
        };
        ModelRuntime {
            config: config.clone(),
            client,
            client_error,
            autostarted: AtomicBool::new(false),
            watcher: Mutex::new(None),
        }
    }

    /// A model is configured (not `none`).
    pub fn enabled(&self) -> bool {
        self.config.model != "none"
    }

    fn client(&self) -> Result<&ModelClient> {
        self.client.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::ConfigInvalid,
                self.client_error
                    .clone()
                    .unwrap_or_else(|| "no model is configured (model.name = \"none\")".into()),
            )
            .with_suggestion(
                "Set model.name (MCP_CU_MODEL) and model.ollama_url (MCP_CU_OLLAMA_URL).",
            )
        })
    }

    /// Starts Ollama when that applies, leaving room for the model within the budget; `true`
    /// when it had to be started (the next call is cold).
    async fn autostart(&self, call_started: Instant) -> bool {
        let Ok(client) = self.client() else {
            return false;
        };
        let mut wait = Duration::from_secs_f64(self.config.autostart_timeout);
        if self.config.call_budget_seconds > 0.0 {
            let left = self.config.call_budget_seconds
                - call_started.elapsed().as_secs_f64()
                - 2.0 * cu_core::policy::timeouts::MIN_USEFUL_BUDGET;
            wait = wait.min(Duration::from_secs_f64(left.max(1.0)));
        }
        match autostart::ensure_running(client, &self.config, wait).await {
            Outcome::Started(_) => {
                self.autostarted.store(true, Ordering::SeqCst);
                true
            }
            _ => false,
        }
    }

    /// Whether the model must be loaded first: not in memory, or with another context length,
    /// or Ollama was just started. The OpenAI-compatible API cannot tell (warm assumed).
    async fn load_state(&self, client: &ModelClient) -> (bool, Option<bool>) {
        match client.loaded(Duration::from_secs(3)).await {
            Ok(l) => {
                let other_ctx = l.context_length.is_some_and(|c| c != self.config.num_ctx);
                (!l.loaded || other_ctx, Some(l.loaded))
            }
            Err(_) => (false, None),
        }
    }

    /// Asks one question. `chars` sizes the timeout; `call_started` is the tool call's start.
    pub async fn ask(
        &self,
        mut chat: Chat,
        chars: usize,
        call_started: Instant,
        session: SessionUse,
        keep_warm: bool,
    ) -> std::result::Result<Answered, Unanswered> {
        let unanswered = |error: Error| Unanswered {
            error,
            timing: None,
        };
        let client = self.client().map_err(unanswered)?;
        let just_started = match session {
            SessionUse::None | SessionUse::First => self.autostart(call_started).await,
            SessionUse::Inside => false,
        };
        let sessions = Sessions::new(&self.config.sessions_dir, self.config.session_ttl_hours);
        let active = session != SessionUse::None
            || sessions.any_updated_within(memory::ACTIVE_SESSION_WINDOW);
        let mut retried = false;
        loop {
            let (cold, was_loaded) = self.load_state(client).await;
            let cold = cold || just_started;
            let free_before = memory::free_ram_mb();
            let (keep, reason) = memory::keep_alive(&self.config, active, keep_warm, free_before);
            chat.keep_alive = Some(keep);
            let mut stats = TimingStats::load(&self.config.sessions_dir);
            let elapsed = call_started.elapsed().as_secs_f64();
            let Some(timeout) = stats.timeout(&self.config, chars, cold, elapsed) else {
                return Err(unanswered(budget_spent(client.model(), &self.config)));
            };
            let wait = Duration::from_secs_f64(timeout.timeout_seconds);
            match client.chat(&chat, wait).await {
                Ok(reply) => {
                    let wall = reply.wall.as_secs_f64();
                    stats.record_success(wall, cold, self.config.adaptive_window as usize);
                    stats.save(&self.config.sessions_dir);
                    let memory = self.after_call(client, keep, reason, was_loaded).await;
                    return Ok(Answered {
                        timing: TimingReport {
                            timeout,
                            model_wall_seconds: Some(round1(wall)),
                        },
                        memory,
                        reply,
                    });
                }
                Err(ModelError::Unreachable { .. })
                    if session == SessionUse::Inside
                        && !retried
                        && self.autostart(call_started).await =>
                {
                    // Inside a session the start-up check is skipped; Ollama went away, so it
                    // was started once and the question is asked once more.
                    retried = true;
                }
                Err(e) => {
                    if matches!(e, ModelError::Timeout { .. }) {
                        stats.record_timeout();
                        stats.save(&self.config.sessions_dir);
                    }
                    return Err(Unanswered {
                        error: e.into(),
                        timing: Some(TimingReport {
                            timeout,
                            model_wall_seconds: None,
                        }),
                    });
                }
            }
        }
    }

    /// After a call: unload at once under the free-memory floor, else watch memory while the
    /// model stays loaded.
    async fn after_call(
        &self,
        client: &ModelClient,
        keep: Duration,
        reason: KeepReason,
        was_loaded: Option<bool>,
    ) -> MemoryReport {
        let free = memory::free_ram_mb();
        let mut unloaded_low_memory = reason == KeepReason::LowMemory;
        if !unloaded_low_memory && memory::below_floor(&self.config, free) {
            unloaded_low_memory = client.unload(Duration::from_secs(10)).await.is_ok();
        }
        if !unloaded_low_memory && !keep.is_zero() {
            self.watch_memory(client.clone(), keep);
        }
        MemoryReport {
            keep_alive: if unloaded_low_memory {
                0
            } else {
                keep.as_secs()
            },
            reason: if unloaded_low_memory {
                KeepReason::LowMemory
            } else {
                reason
            },
            was_loaded,
            free_ram_mb: free,
            unloaded_low_memory,
        }
    }

    /// While the model stays loaded (`keep`), checks free RAM every interval and unloads it
    /// under the floor. One watcher at a time; a newer call replaces it.
    fn watch_memory(&self, client: ModelClient, keep: Duration) {
        if !self.config.memory_watch
            || self.config.min_free_mb == 0
            || client.api() != LlmApi::Ollama
        {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let config = self.config.clone();
        let interval = Duration::from_secs_f64(config.memory_watch_interval);
        let task = runtime.spawn(async move {
            let until = Instant::now() + keep;
            while Instant::now() < until {
                tokio::time::sleep(interval).await;
                if memory::below_floor(&config, memory::free_ram_mb()) {
                    let freed = client.unload(Duration::from_secs(10)).await;
                    tracing::info!(?freed, "free RAM under the floor: model unloaded");
                    return;
                }
            }
        });
        if let Ok(mut slot) = self.watcher.lock() {
            if let Some(old) = slot.replace(task) {
                old.abort();
            }
        }
    }

    /// Click's model resolution: which of the weak `candidates` ("role \"name\"") means
    /// `label`, within `timeout_base` (+ cold extra) capped by the call budget. `None` when the
    /// model declines, fails, or less than the useful minimum of the budget is left.
    pub async fn pick(
        &self,
        label: &str,
        candidates: &[String],
        call_started: Instant,
    ) -> Option<usize> {
        let client = self.client().ok()?;
        let (cold, _) = self.load_state(client).await;
        let mut seconds = self.config.timeout_base
            + if cold {
                self.config.cold_load_extra
            } else {
                0.0
            };
        if self.config.call_budget_seconds > 0.0 {
            let left = self.config.call_budget_seconds - call_started.elapsed().as_secs_f64();
            if left < cu_core::policy::timeouts::MIN_USEFUL_BUDGET {
                return None;
            }
            seconds = seconds.min(left);
        }
        let chat = Chat {
            system: cu_llm::prompt::PICK_SYSTEM.into(),
            user: cu_llm::prompt::pick_user(label, candidates),
            schema: cu_llm::prompt::pick_schema(candidates.len()),
            num_ctx: self.config.num_ctx,
            keep_alive: Some(Duration::from_secs(self.config.keep_alive_idle_secs)),
            max_tokens: 16,
        };
        match client.chat(&chat, Duration::from_secs_f64(seconds)).await {
            Ok(reply) => {
                let choice = reply.answer["choice"].as_u64()? as usize;
                (1..=candidates.len()).contains(&choice).then(|| choice - 1)
            }
            Err(e) => {
                tracing::info!("model resolution failed: {e}");
                None
            }
        }
    }

    /// `ping`: the model server answers and the model loads (with the same context length as
    /// `look_at_screen`, so the next call finds it warm).
    pub async fn ping(&self, call_started: Instant) -> Result<PingResult> {
        if !self.enabled() {
            return Ok(PingResult {
                cold: None,
                duration_seconds: None,
                model_used: "none".into(),
                ok: true,
            });
        }
        let client = self.client()?;
        let just_started = self.autostart(call_started).await;
        let (cold, _) = self.load_state(client).await;
        let mut seconds = self.config.timeout_base;
        if cold || just_started {
            seconds += self.config.cold_load_extra;
        }
        if self.config.call_budget_seconds > 0.0 {
            let left = self.config.call_budget_seconds - call_started.elapsed().as_secs_f64();
            if left < cu_core::policy::timeouts::MIN_USEFUL_BUDGET {
                return Err(budget_spent(client.model(), &self.config));
            }
            seconds = seconds.min(left);
        }
        let keep = Duration::from_secs(self.config.keep_alive_idle_secs);
        let took = client
            .load(self.config.num_ctx, keep, Duration::from_secs_f64(seconds))
            .await
            .map_err(Error::from)?;
        Ok(PingResult {
            cold: Some(cold || just_started),
            duration_seconds: Some(round1(took.as_secs_f64())),
            model_used: client.model().to_owned(),
            ok: true,
        })
    }

    /// `release_model`: unloads now; `freed_mb` is what it held.
    pub async fn release(&self) -> Result<ReleaseResult> {
        if !self.enabled() {
            return Ok(ReleaseResult {
                freed_mb: None,
                reason: Some("no model is configured"),
                released: false,
                was_loaded: None,
            });
        }
        let client = self.client()?;
        if let Ok(mut slot) = self.watcher.lock() {
            if let Some(old) = slot.take() {
                old.abort();
            }
        }
        let freed = client
            .unload(Duration::from_secs(15))
            .await
            .map_err(Error::from)?;
        Ok(ReleaseResult {
            freed_mb: Some(freed.unwrap_or(0)),
            reason: None,
            released: true,
            was_loaded: Some(freed.is_some()),
        })
    }

    /// `ollama_autostarted` (this process started Ollama) and `last_autostart` for `health`.
    pub fn autostart_report(&self) -> (bool, Option<autostart::AutostartReport>) {
        (
            self.autostarted.load(Ordering::SeqCst),
            autostart::last_attempt(&self.config.sessions_dir),
        )
    }

    /// The model part of `health`.
    pub async fn health(&self) -> ModelHealth {
        let mut out = ModelHealth {
            api: match self.config.llm_api {
                LlmApi::Ollama => "ollama",
                LlmApi::Openai => "openai",
            },
            error: None,
            free_ram_mb: memory::free_ram_mb(),
            loaded: None,
            model: self.config.model.clone(),
            model_available: None,
            ok: true,
            reachable: None,
            url: self.config.ollama_url.clone(),
        };
        if !self.enabled() {
            return out;
        }
        let Ok(client) = self.client() else {
            out.ok = false;
            out.error = self.client_error.clone().map(Value::String);
            return out;
        };
        match client.models(Duration::from_secs(5)).await {
            Ok(models) => {
                // A single-model OpenAI-compatible server (llama.cpp) answers under any name.
                let present = models
                    .iter()
                    .any(|m| m == client.model() || m.split(':').next() == Some(client.model()))
                    || (client.api() == LlmApi::Openai && models.len() == 1);
                out.reachable = Some(true);
                out.model_available = Some(present);
                out.ok = present;
                if let Ok(l) = client.loaded(Duration::from_secs(3)).await {
                    out.loaded = Some(l.loaded);
                }
            }
            Err(e) => {
                out.reachable = Some(false);
                out.ok = false;
                out.error = Some(Error::from(e).to_json()["error"].clone());
            }
        }
        out
    }
}

fn budget_spent(model: &str, config: &Config) -> Error {
    Error::new(
        ErrorCode::ModelTimeout,
        format!(
            "less than {}s of the {}s call budget is left for {model}",
            cu_core::policy::timeouts::MIN_USEFUL_BUDGET,
            config.call_budget_seconds
        ),
    )
    .with_suggestion("Retry the call; it starts with a fresh budget.")
}

/// `ping`'s answer (fields in alphabetical order, as the JSON text has always listed them).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PingResult {
    /// The model had to be loaded (or the server started) first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold: Option<bool>,
    /// How long loading took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// The model, or `none`.
    pub model_used: String,
    /// Always true in an answer (a failure is an error).
    pub ok: bool,
}

/// `release_model`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ReleaseResult {
    /// Memory the model held, MB (0 when it was not loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freed_mb: Option<u64>,
    /// Why nothing was released.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The unload was sent.
    pub released: bool,
    /// The model was loaded before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_loaded: Option<bool>,
}

/// The model part of `health`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelHealth {
    /// `ollama` or `openai`.
    pub api: &'static str,
    /// Why the server or client is not usable (`{code, message, …}`, or the configuration's
    /// complaint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Free RAM now, MB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_ram_mb: Option<u64>,
    /// The model is in memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// The configured model (`none`: answers from extraction only).
    pub model: String,
    /// The server has the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_available: Option<bool>,
    /// The model part works.
    pub ok: bool,
    /// The server answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<bool>,
    /// The server's URL.
    pub url: String,
}
