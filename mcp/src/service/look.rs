//! `look_at_screen`: one window read in code (profiles), a local model's short answer to one
//! question, what changed since the session's last look, and optionally the window's image.
//! On a model failure the answer is the error plus `extracted`, so the agent can go on.

use std::sync::atomic::Ordering;
use std::time::Instant;

use cu_core::element::SnapshotOptions;
use cu_core::extract::{self, Extracted};
use cu_core::sessions::{self, SessionKey, SessionRecord, Sessions};
use cu_core::window::WindowInfo;
use cu_core::{question, Error, ErrorCode, Result};
use cu_model::{prompt, Chat};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::model::SessionUse;
use super::{image, target, Service};

/// `look_at_screen`'s request.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookRequest {
    /// One short question, in English.
    pub question: String,
    /// Application name, window title or window id (default: the focused window).
    #[serde(default)]
    pub app: Option<String>,
    /// The calling agent (`codex`, `claude`…), for sessions.
    #[serde(default)]
    pub client: Option<String>,
    /// The caller's session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Also return a JPEG of the window.
    #[serde(default)]
    pub include_image: bool,
    /// Keep the model loaded 10 minutes.
    #[serde(default)]
    pub keep_warm: bool,
}

/// `look_at_screen`'s answer: a JSON body (an error body when `failed`) and an optional image.
pub struct LookOutcome {
    /// The answer, or `{error, extracted, …}`.
    pub body: Value,
    /// The window's JPEG, when asked for and taken.
    pub jpeg: Option<Vec<u8>>,
    /// The body is an error (the model failed; `extracted` is inside).
    pub failed: bool,
}

/// After this many calls without a session, answers suggest one.
const SESSION_HINT_AFTER: u32 = 2;

impl Service {
    /// `look_at_screen`.
    pub async fn look_at_screen(&self, req: &LookRequest) -> Result<LookOutcome> {
        let started = Instant::now();
        let config = self.config();
        let hints = question::check(&req.question, config.max_question_chars as usize)?;
        let key = match (&req.client, &req.session_id) {
            (_, Some(id)) => Some(SessionKey::new(req.client.as_deref(), id)?),
            (Some(_), None) => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "client was given without session_id",
                )
                .with_suggestion("Pass both client and session_id (e.g. client \"codex\", session_id \"fix-ui\"), or neither."))
            }
            (None, None) => None,
        };
        let windows = self.backend.list_windows().await?;
        let window = pick_window(req.app.as_deref(), &windows)?.clone();
        let snapshot = self
            .backend
            .snapshot(&window.id, &SnapshotOptions::default())
            .await?;
        let extracted = extract::extract(&snapshot, config.snapshot_details);

        let store = Sessions::new(&config.sessions_dir, config.session_ttl_hours);
        let previous = match &key {
            Some(k) => store.load(k)?,
            None => None,
        };
        let mut record = record_of(&window, &extracted);
        record.questions = previous
            .as_ref()
            .map(|p| p.questions.clone())
            .unwrap_or_default();
        let changed = previous
            .as_ref()
            .map(|p| sessions::changed_since_last(p, &record))
            .unwrap_or_default();

        let mut body = Map::new();
        body.insert("windows_seen".into(), json!([window.title]));
        body.insert("status".into(), json!(extracted.status));

        let cached = previous
            .as_ref()
            .and_then(|p| p.cached_answer(&req.question, record.screen))
            .map(str::to_owned);
        let mut failed = false;
        if let Some(answer) = cached {
            body.insert("summary".into(), json!(answer));
            body.insert("cached".into(), json!(true));
        } else if !self.model.enabled() {
            body.insert("summary".into(), json!(summary_without_model(&extracted)));
            body.insert("model_used".into(), json!("none"));
        } else {
            let session_use = match (&key, &previous) {
                (None, _) => SessionUse::None,
                (Some(_), None) => SessionUse::First,
                (Some(_), Some(_)) => SessionUse::Inside,
            };
            let details = serde_json::to_value(&extracted.details).unwrap_or_default();
            let status = serde_json::to_value(extracted.status).unwrap_or_default();
            let chat = Chat {
                system: prompt::SUMMARY_SYSTEM.into(),
                user: prompt::summary_user(
                    &format!("{} ({})", window.title, window.app),
                    status.as_str().unwrap_or("unknown"),
                    &details,
                    &extracted.text,
                    &req.question,
                ),
                schema: prompt::summary_schema(),
                num_ctx: config.num_ctx,
                keep_alive: None,
                max_tokens: prompt::SUMMARY_MAX_TOKENS,
            };
            let chars = chat.user.chars().count();
            match self
                .model
                .ask(chat, chars, started, session_use, req.keep_warm)
                .await
            {
                Ok(answered) => {
                    let summary = answered.reply.answer["summary"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    body.insert("summary".into(), json!(summary));
                    if let Some(c) = answered.reply.answer["confidence"].as_f64() {
                        body.insert("confidence".into(), json!((c * 100.0).round() / 100.0));
                    }
                    body.insert("model_used".into(), json!(config.model));
                    body.insert("timing".into(), json!(answered.timing));
                    body.insert("memory".into(), json!(answered.memory));
                }
                Err(unanswered) => {
                    failed = true;
                    body.insert("error".into(), json!(unanswered.error));
                    body.insert("extracted".into(), json!(extracted));
                    body.insert("model_used".into(), json!(config.model));
                    if let Some(timing) = unanswered.timing {
                        body.insert("timing".into(), json!(timing));
                    }
                }
            }
        }
        if !failed {
            body.insert("details".into(), json!(extracted.details));
        }
        body.insert("changed_since_last".into(), json!(changed));
        if let Some(k) = &key {
            body.insert(
                "session".into(),
                json!({ "client": k.client, "session_id": k.session_id }),
            );
            if let Some(summary) = body.get("summary").and_then(Value::as_str) {
                record.remember(&req.question, summary);
            }
            store.save(k, &record)?;
        }
        let mut hint_texts: Vec<&str> = hints.iter().map(question::Hint::text).collect();
        if let Some(h) = extracted.hint {
            hint_texts.push(h);
        }
        if key.is_none() {
            let calls = self.unsessioned_looks.fetch_add(1, Ordering::SeqCst) + 1;
            if calls >= SESSION_HINT_AFTER {
                hint_texts.push("Pass client and session_id to get changed_since_last and cached answers on repeated looks.");
            }
        }
        if !hint_texts.is_empty() {
            body.insert("hint".into(), json!(hint_texts.join(" ")));
        }
        let mut jpeg = None;
        if req.include_image {
            match image::capture_jpeg(self.backend.as_ref(), &window.id, config).await {
                Ok(shot) => {
                    body.insert(
                        "image".into(),
                        json!({ "width": shot.info.width, "height": shot.info.height, "bytes": shot.jpeg.len() }),
                    );
                    jpeg = Some(shot.jpeg);
                }
                Err(e) => {
                    body.insert("image_error".into(), image_error(e));
                }
            }
        }
        body.insert(
            "duration_seconds".into(),
            json!((started.elapsed().as_secs_f64() * 10.0).round() / 10.0),
        );
        Ok(LookOutcome {
            body: Value::Object(drop_empty(body)),
            jpeg,
            failed,
        })
    }
}

/// The window `app` names, or the focused one.
fn pick_window<'w>(app: Option<&str>, windows: &'w [WindowInfo]) -> Result<&'w WindowInfo> {
    match app {
        Some(app) => target::resolve_app(app, windows),
        None => windows.iter().find(|w| w.focused).ok_or_else(|| {
            Error::new(
                ErrorCode::AppNotFound,
                "no window has focus and no app was given",
            )
            .with_suggestion("Pass app: an application name or window title from gui_list.")
            .with_details(
                json!({ "windows": windows.iter().map(|w| &w.title).collect::<Vec<_>>() }),
            )
        }),
    }
}

/// What a session remembers of this look.
fn record_of(window: &WindowInfo, e: &Extracted) -> SessionRecord {
    let text = |key: &str| {
        e.details
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut record = SessionRecord {
        app: Some(window.app.clone()),
        project: text("project"),
        session: text("session"),
        last_message: e.last_message.clone(),
        next_step: text("next_step"),
        status: serde_json::to_value(e.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned)),
        screen: 0,
        questions: Vec::new(),
        updated_ms: 0,
    };
    record.screen = sessions::screen_fingerprint(&record, &e.text);
    record
}

/// With no model: the last message, or the title, as the summary.
fn summary_without_model(e: &Extracted) -> String {
    let text = e
        .last_message
        .clone()
        .unwrap_or_else(|| "The window shows no text.".into());
    let flat = text.replace('\n', " / ");
    if flat.chars().count() > prompt::SUMMARY_MAX_CHARS as usize {
        let cut: String = flat
            .chars()
            .take(prompt::SUMMARY_MAX_CHARS as usize - 1)
            .collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// A capture failure as `image_error` (the text answer still returns).
fn image_error(e: Error) -> Value {
    let e = match e.code {
        ErrorCode::ImageCaptureBlank
        | ErrorCode::ImageWindowMinimized
        | ErrorCode::ImageCaptureTimeout
        | ErrorCode::ImageCaptureFailed => e,
        _ => Error {
            code: ErrorCode::ImageCaptureFailed,
            ..e
        },
    };
    json!({ "code": e.code, "message": e.message, "retryable": e.retryable, "suggestion": e.suggestion })
}

/// Leaves out null, empty strings, empty lists and empty objects.
fn drop_empty(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter()
        .filter(|(_, v)| match v {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_changes_with_text_and_status_not_order() {
        let fp = |text: &[&str], status: &str| {
            let record = SessionRecord {
                status: Some(status.into()),
                ..SessionRecord::default()
            };
            let text: Vec<String> = text.iter().map(|t| (*t).to_owned()).collect();
            sessions::screen_fingerprint(&record, &text)
        };
        assert_eq!(
            fp(&["one", "two"], "working"),
            fp(&["one", "two"], "working")
        );
        assert_ne!(
            fp(&["one", "two"], "working"),
            fp(&["one", "two!"], "working")
        );
        assert_ne!(
            fp(&["one", "two"], "working"),
            fp(&["one", "two"], "finished")
        );
        assert_eq!(
            fp(&["one", "two"], "working"),
            fp(&["two", "one"], "working")
        );
        assert_ne!(fp(&["one", "two"], "unknown"), fp(&["onetwo"], "unknown"));
    }

    #[test]
    fn empty_fields_are_left_out() {
        let mut m = Map::new();
        m.insert("a".into(), json!(null));
        m.insert("b".into(), json!([]));
        m.insert("c".into(), json!({}));
        m.insert("d".into(), json!(""));
        m.insert("e".into(), json!(false));
        m.insert("f".into(), json!("x"));
        let kept: Vec<String> = drop_empty(m).keys().cloned().collect();
        assert_eq!(kept, vec!["e".to_owned(), "f".to_owned()]);
    }

    #[test]
    fn image_failures_keep_their_image_codes() {
        let v = image_error(Error::new(ErrorCode::ImageWindowMinimized, "minimized"));
        assert_eq!(v["code"], "IMAGE_WINDOW_MINIMIZED");
        let v = image_error(Error::new(ErrorCode::WindowNotFound, "gone"));
        assert_eq!(v["code"], "IMAGE_CAPTURE_FAILED");
    }
}
