//! `look_at_screen`: one window read in code (profiles), a local model's short answer to one
//! question, what changed since the session's last look, and optionally the window's image.
//! On a model failure the answer is the error plus `extracted`, so the agent can go on.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use cu_core::model::element::SnapshotOptions;
use cu_core::model::window::WindowInfo;
use cu_core::policy::extract::{self, Extracted, Status};
use cu_core::store::sessions::{self, SessionKey, SessionRecord, Sessions};
use cu_core::{policy::question, Error, ErrorCode, Result};
use cu_llm::{prompt, Chat};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::llm::{MemoryReport, SessionUse, TimingReport};
use super::{image, target};
use crate::service::Service;

/// `look_at_screen`'s request. The field docs are the tool's input schema, as agents read it.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LookRequest {
    /// One short question, in English.
    #[schemars(length(min = 1, max = 300))]
    pub question: String,
    /// Application name or window title ("Claude", "Calculator"), or a window id from gui_list.
    /// Default: the focused window.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub app: Option<String>,
    /// Your agent's name (codex, claude…), with session_id; A-Z a-z 0-9 _ -, at most 64.
    #[serde(default)]
    pub client: Option<String>,
    /// Your task's id (A-Z a-z 0-9 _ -, at most 64): enables changed_since_last and cached
    /// answers on an unchanged screen. A new id replaces your client's old session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Also return a JPEG of the window (max 1024 px wide).
    #[serde(default)]
    pub include_image: bool,
    /// Keep the model loaded 10 minutes (more looks coming).
    #[serde(default)]
    pub keep_warm: bool,
}

/// `look_at_screen`'s answer: the body, and the window's JPEG when asked for and taken.
pub struct LookOutcome {
    /// The answer; when the model failed, `error` and `extracted` instead of `summary`.
    pub body: LookAnswer,
    /// The window's JPEG, when asked for and taken.
    pub jpeg: Option<Vec<u8>>,
}

impl LookOutcome {
    /// The model failed: the body is an error answer (with `extracted`, so the agent can go on).
    pub fn failed(&self) -> bool {
        self.body.error.is_some()
    }
}

/// `look_at_screen`'s body. Fields in alphabetical order, as the JSON text has always listed
/// them; empty ones are left out.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct LookAnswer {
    /// The answer came from the session's cache (the screen did not change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<bool>,
    /// What changed since the session's last look.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_since_last: Vec<String>,
    /// The model's confidence, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Per-app facts read in code (project, session, failures, next_step, url…).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<&'static str, Value>,
    /// Seconds the call took.
    pub duration_seconds: f64,
    /// Why the model gave no answer (the call is then a tool error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
    /// What code read of the window, when the model gave no answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extracted: Option<Extracted>,
    /// What to do to get more out of the next look.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The attached image's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<LookImage>,
    /// Why the image asked for is missing (the text answer still stands).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_error: Option<Error>,
    /// Keep-alive and free memory after the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryReport>,
    /// The model that answered, or `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_used: Option<String>,
    /// The session this look belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionKey>,
    /// The window's state as code reads it.
    pub status: Status,
    /// The answer to the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The model's timeout and time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingReport>,
    /// The window looked at, by title.
    pub windows_seen: Vec<String>,
}

/// The size of `look_at_screen`'s image.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LookImage {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// JPEG bytes.
    pub bytes: usize,
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

        let mut body = LookAnswer {
            windows_seen: vec![window.title.clone()],
            status: extracted.status,
            changed_since_last: changed,
            ..LookAnswer::default()
        };

        let mut discarded = None;
        let cached = previous
            .as_ref()
            .and_then(|p| p.cached_answer(&req.question, record.screen))
            .map(str::to_owned);
        if let Some(answer) = cached {
            body.summary = Some(answer);
            body.cached = Some(true);
        } else if !self.model.enabled() {
            body.summary = Some(summary_without_model(&extracted));
            body.model_used = Some("none".into());
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
            body.model_used = Some(config.model.clone());
            match self
                .model
                .ask(chat, chars, started, session_use, req.keep_warm)
                .await
            {
                Ok(answered) => {
                    let summary = answered.reply.answer["summary"]
                        .as_str()
                        .unwrap_or_default();
                    let around = [
                        window.title.as_str(),
                        window.app.as_str(),
                        req.question.as_str(),
                    ];
                    let shown = extracted.text.iter().map(String::as_str).chain(around);
                    let read = extracted.readable.iter().map(String::as_str).chain(around);
                    match cu_core::policy::sanity::judge(summary, shown, read) {
                        Ok(()) => {
                            body.summary = Some(summary.to_owned());
                            body.confidence = answered.reply.answer["confidence"]
                                .as_f64()
                                .filter(|c| (0.0..=1.0).contains(c))
                                .map(|c| (c * 100.0).round() / 100.0);
                        }
                        // Junk is never passed on as a summary, nor its confidence.
                        Err(junk) => {
                            body.summary = Some(summary_without_model(&extracted));
                            discarded = Some(junk.hint());
                        }
                    }
                    body.timing = Some(answered.timing);
                    body.memory = Some(answered.memory);
                }
                Err(unanswered) => {
                    body.error = Some(unanswered.error);
                    body.timing = unanswered.timing;
                }
            }
        }
        if body.error.is_some() {
            body.extracted = Some(extracted.clone());
        } else {
            body.details = extracted.details.clone();
        }
        body.summary = body.summary.filter(|s| !s.is_empty());
        if let Some(k) = &key {
            if let Some(summary) = &body.summary {
                record.remember(&req.question, summary);
            }
            store.save(k, &record)?;
            body.session = Some(k.clone());
        }
        let mut hint_texts: Vec<&str> = hints.iter().map(question::Hint::text).collect();
        hint_texts.extend(discarded);
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
            body.hint = Some(hint_texts.join(" "));
        }
        let mut jpeg = None;
        if req.include_image {
            match image::capture_jpeg(self.backend.as_ref(), &window.id, config).await {
                Ok(shot) => {
                    body.image = Some(LookImage {
                        width: shot.info.width,
                        height: shot.info.height,
                        bytes: shot.jpeg.len(),
                    });
                    jpeg = Some(shot.jpeg);
                }
                Err(e) => body.image_error = Some(image_error(e)),
            }
        }
        body.duration_seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
        Ok(LookOutcome { body, jpeg })
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

/// A capture failure as `image_error` (the text answer still returns), without details.
fn image_error(e: Error) -> Error {
    let code = match e.code {
        ErrorCode::ImageCaptureBlank
        | ErrorCode::ImageWindowMinimized
        | ErrorCode::ImageCaptureTimeout
        | ErrorCode::ImageCaptureFailed => e.code,
        _ => ErrorCode::ImageCaptureFailed,
    };
    Error {
        code,
        details: None,
        ..e
    }
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
    fn image_failures_keep_their_image_codes() {
        let v = image_error(Error::new(ErrorCode::ImageWindowMinimized, "minimized"));
        assert_eq!(v.code, ErrorCode::ImageWindowMinimized);
        let v = image_error(
            Error::new(ErrorCode::WindowNotFound, "gone").with_details(json!({ "windows": [] })),
        );
        assert_eq!(v.code, ErrorCode::ImageCaptureFailed);
        assert_eq!(v.details, None);
    }

    #[test]
    fn empty_fields_are_left_out() {
        let answer = LookAnswer {
            windows_seen: vec!["A".into()],
            status: Status::Unknown,
            summary: Some("ok".into()),
            ..LookAnswer::default()
        };
        let keys: Vec<String> = match serde_json::to_value(&answer) {
            Ok(Value::Object(map)) => map.keys().cloned().collect(),
            other => panic!("not an object: {other:?}"),
        };
        assert_eq!(
            keys,
            ["duration_seconds", "status", "summary", "windows_seen"]
        );
    }
}
