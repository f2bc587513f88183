//! One client, two wire formats: Ollama's native API and the OpenAI-compatible API.

use std::time::{Duration, Instant};

use cu_core::config::LlmApi;
use serde_json::{json, Value};

use crate::{ModelError, TimeoutStage};

/// A model server and the model to use on it.
#[derive(Debug, Clone)]
pub struct ModelClient {
    api: LlmApi,
    base: String,
    model: String,
    http: reqwest::Client,
}

/// One request: a system and a user message, answered as JSON matching `schema`.
#[derive(Debug, Clone)]
pub struct Chat {
    /// The instructions.
    pub system: String,
    /// The window text and the question.
    pub user: String,
    /// The JSON schema the answer must match (bounded string lengths).
    pub schema: Value,
    /// Context length (Ollama `num_ctx`; the same for every call, so the model is not reloaded).
    pub num_ctx: u32,
    /// How long the model stays loaded after this call (Ollama only).
    pub keep_alive: Option<Duration>,
    /// Most tokens to generate.
    pub max_tokens: u32,
}

/// The model's answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The answer, parsed.
    pub answer: Value,
    /// Wall-clock time of the request.
    pub wall: Duration,
    /// Generation speed, when the server reports it.
    pub tokens_per_second: Option<f64>,
    /// Seconds the server spent loading the model, when it reports it.
    pub load_seconds: Option<f64>,
}

/// Whether the model is in memory (Ollama's `/api/ps`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    /// Loaded now.
    pub loaded: bool,
    /// The context length it was loaded with.
    pub context_length: Option<u32>,
    /// Its size in memory, MB.
    pub size_mb: Option<u64>,
}

/// How long opening a connection to the model server may take. A server on this machine
/// accepts at once unless the machine is very busy; a remote one across a slow link takes longer.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl ModelClient {
    /// A client for `model` at `base_url` over `api`.
    pub fn new(api: LlmApi, base_url: &str, model: &str) -> Result<ModelClient, ModelError> {
        #[cfg(feature = "tls")]
        {
            // Err means a provider is installed already, which is what we want.
            let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
        }
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ModelError::Unreachable {
                url: base_url.to_owned(),
                detail: format!("cannot build an HTTP client: {e}"),
            })?;
        let base = base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base).to_owned();
        Ok(ModelClient {
            api,
            base,
            model: model.to_owned(),
            http,
        })
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The server's base URL.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// The API spoken.
    pub fn api(&self) -> LlmApi {
        self.api
    }

    /// Asks for a JSON answer within `timeout`.
    pub async fn chat(&self, chat: &Chat, timeout: Duration) -> Result<Reply, ModelError> {
        let messages = json!([
            { "role": "system", "content": chat.system },
            { "role": "user", "content": chat.user },
        ]);
        let started = Instant::now();
        let (answer, tokens_per_second, load_seconds) = match self.api {
            LlmApi::Ollama => {
                let mut body = json!({
                    "model": self.model,
                    "messages": messages,
                    "stream": false,
                    "format": chat.schema,
                    "options": { "num_ctx": chat.num_ctx, "temperature": 0, "seed": 7, "num_predict": chat.max_tokens },
                });
                if let Some(keep) = chat.keep_alive {
                    body["keep_alive"] = json!(format!("{}s", keep.as_secs()));
                }
                let reply = self.post("/api/chat", &body, timeout).await?;
                let content = reply["message"]["content"].as_str().unwrap_or("");
                let speed = match (
                    reply["eval_count"].as_f64(),
                    reply["eval_duration"].as_f64(),
                ) {
                    (Some(n), Some(ns)) if ns > 0.0 => Some(n / (ns / 1e9)),
                    _ => None,
                };
                let load = reply["load_duration"].as_f64().map(|ns| ns / 1e9);
                (parse_answer(content)?, speed, load)
            }
            LlmApi::Openai => {
                let body = json!({
                    "model": self.model,
                    "messages": messages,
                    "response_format": { "type": "json_schema", "json_schema": { "name": "answer", "strict": true, "schema": chat.schema } },
                    "max_tokens": chat.max_tokens,
                    "temperature": 0,
                    "seed": 7,
                });
                let reply = self.post("/v1/chat/completions", &body, timeout).await?;
                let content = reply["choices"][0]["message"]["content"]
                    .as_str()
                    .unwrap_or("");
                let speed = reply["timings"]["predicted_per_second"].as_f64();
                (parse_answer(content)?, speed, None)
            }
        };
        Ok(Reply {
            answer,
            wall: started.elapsed(),
            tokens_per_second,
            load_seconds,
        })
    }

    /// Loads the model without asking anything (Ollama: an empty chat; OpenAI: a one-token
    /// request), so the next call is warm.
    pub async fn load(
        &self,
        num_ctx: u32,
        keep_alive: Duration,
        timeout: Duration,
    ) -> Result<Duration, ModelError> {
        let started = Instant::now();
        match self.api {
            LlmApi::Ollama => {
                let body = json!({
                    "model": self.model, "messages": [], "stream": false,
                    "keep_alive": format!("{}s", keep_alive.as_secs()),
                    "options": { "num_ctx": num_ctx },
                });
                self.post("/api/chat", &body, timeout).await?;
            }
            LlmApi::Openai => {
                let body = json!({
                    "model": self.model, "max_tokens": 1,
                    "messages": [{ "role": "user", "content": "ping" }],
                });
                self.post("/v1/chat/completions", &body, timeout).await?;
            }
        }
        Ok(started.elapsed())
    }

    /// The models the server offers (Ollama `/api/tags`, OpenAI `/v1/models`): its health check.
    pub async fn models(&self, timeout: Duration) -> Result<Vec<String>, ModelError> {
        let (path, list, key) = match self.api {
            LlmApi::Ollama => ("/api/tags", "models", "name"),
            LlmApi::Openai => ("/v1/models", "data", "id"),
        };
        let reply = self.get(path, timeout).await?;
        Ok(reply[list]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| m[key].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Whether the model is loaded (Ollama `/api/ps`); the OpenAI-compatible API cannot say.
    pub async fn loaded(&self, timeout: Duration) -> Result<Loaded, ModelError> {
        if self.api != LlmApi::Ollama {
            return Err(ModelError::NotSupported("reading the load state"));
        }
        let reply = self.get("/api/ps", timeout).await?;
        let entry = reply["models"].as_array().and_then(|models| {
            models
                .iter()
                .find(|m| {
                    m["name"].as_str() == Some(&self.model)
                        || m["model"].as_str() == Some(&self.model)
                })
                .cloned()
        });
        Ok(match entry {
            None => Loaded::default(),
            Some(m) => Loaded {
                loaded: true,
                context_length: m["context_length"]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok()),
                size_mb: m["size"].as_u64().map(|b| b / (1024 * 1024)),
            },
        })
    }

    /// Unloads the model (Ollama `keep_alive: 0`); the MB it held, when it was loaded.
    pub async fn unload(&self, timeout: Duration) -> Result<Option<u64>, ModelError> {
        if self.api != LlmApi::Ollama {
            return Err(ModelError::NotSupported("unloading the model"));
        }
        let before = self.loaded(timeout).await?;
        if !before.loaded {
            return Ok(None);
        }
        let body = json!({ "model": self.model, "messages": [], "keep_alive": 0, "stream": false });
        self.post("/api/chat", &body, timeout).await?;
        Ok(Some(before.size_mb.unwrap_or(0)))
    }

    async fn get(&self, path: &str, timeout: Duration) -> Result<Value, ModelError> {
        let request = self
            .http
            .get(format!("{}{path}", self.base))
            .timeout(timeout);
        self.send(request, timeout).await
    }

    async fn post(&self, path: &str, body: &Value, timeout: Duration) -> Result<Value, ModelError> {
        let request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string())
            .timeout(timeout);
        self.send(request, timeout).await
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        timeout: Duration,
    ) -> Result<Value, ModelError> {
        // The whole exchange, headers and body, within `timeout`: a server that accepts and
        // never answers must not hold the call.
        let started = Instant::now();
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|e| self.transport(&e, started))?;
            let status = response.status().as_u16();
            let bytes = response
                .bytes()
                .await
                .map_err(|e| self.transport(&e, started))?;
            Ok::<_, ModelError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| self.timed_out(TimeoutStage::Answer, started))??;
        let text = String::from_utf8_lossy(&bytes);
        if status == 404 && text.contains("not found") && text.contains(&self.model) {
            return Err(ModelError::ModelNotFound {
                model: self.model.clone(),
            });
        }
        if !(200..300).contains(&status) {
            return Err(ModelError::Http {
                status,
                body: text.chars().take(300).collect(),
            });
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| ModelError::BadAnswer(format!("the server's reply is not JSON: {e}")))
    }

    /// A timeout that says the time really waited: a connect timeout on a busy machine is
    /// not "the model did not answer within the call's timeout".
    fn timed_out(&self, stage: TimeoutStage, started: Instant) -> ModelError {
        ModelError::Timeout {
            model: self.model.clone(),
            stage,
            waited: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        }
    }

    fn transport(&self, e: &reqwest::Error, started: Instant) -> ModelError {
        if e.is_timeout() {
            let stage = if e.is_connect() {
                TimeoutStage::Connect
            } else {
                TimeoutStage::Answer
            };
            return self.timed_out(stage, started);
        }
        let mut detail = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            detail = format!("{detail}: {s}");
            source = s.source();
        }
        ModelError::Unreachable {
            url: self.base.clone(),
            detail,
        }
    }
}

/// The model's text as JSON; a reply wrapped in prose or a code fence is unwrapped.
fn parse_answer(content: &str) -> Result<Value, ModelError> {
    let trimmed = content.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        if v.is_object() {
            return Ok(v);
        }
    }
    let start = trimmed.find('{');
    let end = trimmed.rfind('}');
    if let (Some(s), Some(e)) = (start, end) {
        if let Ok(v) = serde_json::from_str::<Value>(&trimmed[s..=e]) {
            return Ok(v);
        }
    }
    // Cut off at the token limit inside a string: close it (the grammar kept it valid so far).
    if let Some(s) = start {
        for ending in ["\"}", "}", "\"]}"] {
            if let Ok(v @ Value::Object(_)) =
                serde_json::from_str(&format!("{}{ending}", &trimmed[s..]))
            {
                return Ok(v);
            }
        }
    }
    Err(ModelError::BadAnswer(format!(
        "not a JSON object: {}",
        trimmed.chars().take(120).collect::<String>()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_even_inside_a_code_fence() {
        assert_eq!(
            parse_answer("{\"summary\":\"ok\"}").ok(),
            Some(json!({"summary":"ok"}))
        );
        assert_eq!(
            parse_answer("```json\n{\"summary\":\"ok\"}\n```").ok(),
            Some(json!({"summary":"ok"}))
        );
        assert_eq!(
            parse_answer("{\"summary\":\"the build is runn").ok(),
            Some(json!({"summary":"the build is runn"})),
            "an answer cut at the token limit is closed"
        );
        assert!(matches!(parse_answer("no"), Err(ModelError::BadAnswer(_))));
        assert!(matches!(parse_answer("[1]"), Err(ModelError::BadAnswer(_))));
    }

    #[test]
    fn a_v1_suffix_is_not_doubled() {
        let c = ModelClient::new(LlmApi::Openai, "http://127.0.0.1:8080/v1/", "m");
        assert_eq!(
            c.map(|c| c.url().to_owned()).ok().as_deref(),
            Some("http://127.0.0.1:8080")
        );
    }

    #[tokio::test]
    async fn nothing_listening_is_unreachable_not_a_timeout() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().map(|a| a.port()).unwrap_or(1)
        };
        let c = ModelClient::new(LlmApi::Ollama, &format!("http://127.0.0.1:{port}"), "m").unwrap();
        let e = c.models(Duration::from_secs(2)).await.err();
        assert!(matches!(e, Some(ModelError::Unreachable { .. })), "{e:?}");
    }

    #[tokio::test]
    async fn a_server_that_accepts_and_never_answers_times_out_on_time() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(1);
        let hold = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((s, _)) = listener.accept().await {
                held.push(s);
            }
        });
        let c = ModelClient::new(LlmApi::Ollama, &format!("http://127.0.0.1:{port}"), "m").unwrap();
        let started = Instant::now();
        let e = c.models(Duration::from_millis(400)).await.err();
        let elapsed = started.elapsed().as_secs_f64();
        let Some(ModelError::Timeout { stage, waited, .. }) = e else {
            panic!("{e:?}")
        };
        assert_eq!(stage, TimeoutStage::Answer);
        assert!(elapsed < 3.0);
        // Regression (issue 42): the message said the call's limit, not the time waited.
        assert!(
            (0.3..=elapsed + 0.1).contains(&waited),
            "{waited} of {elapsed}"
        );
        hold.abort();
    }
}
