//! `look_at_screen` sessions: one small JSON file per (client, session id), so a series of calls
//! can say what changed and answer a repeated question on an unchanged screen from the file
//! (groundwork of issue 6). No state is kept in memory between calls.
//!
//! Files are `<sessions>/{client}__{session_id}.json`, written atomically. A client has one
//! active session: saving a new session id deletes the client's other files. Files not updated
//! within the TTL are deleted on every load.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::store::persist::now_ms;

/// How many questions and answers a session remembers.
pub const REMEMBERED_QUESTIONS: usize = 5;

/// A sanitized (client, session id) pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionKey {
    /// The client (`codex`, `claude`…); `default` when only a session id was given.
    pub client: String,
    /// The session id the client chose.
    pub session_id: String,
}

impl SessionKey {
    /// Both sanitized to `[A-Za-z0-9_-]{1,64}` (other characters dropped); a session id without
    /// a client uses client `default`.
    pub fn new(client: Option<&str>, session_id: &str) -> Result<SessionKey> {
        let mut client = sanitize("client", client.unwrap_or("default"))?;
        // "__" separates client from session id in file names.
        while client.contains("__") {
            client = client.replace("__", "_");
        }
        Ok(SessionKey {
            client,
            session_id: sanitize("session_id", session_id)?,
        })
    }

    fn file_name(&self) -> String {
        format!("{}__{}.json", self.client, self.session_id)
    }
}

fn sanitize(what: &str, raw: &str) -> Result<String> {
    let clean: String = raw
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect();
    if clean.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("{what} {raw:?} has none of the allowed characters A-Z a-z 0-9 _ -"),
        ));
    }
    Ok(clean)
}

/// One remembered question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    /// The question.
    pub question: String,
    /// A short answer.
    pub answer: String,
}

/// What a session remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The app looked at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Its project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Its session or chat title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The last message seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// The next step seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step: Option<String>,
    /// The status seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// A fingerprint of the screen's text, to know it is unchanged.
    #[serde(default)]
    pub screen: u64,
    /// The last questions, newest last.
    #[serde(default)]
    pub questions: Vec<Asked>,
    /// When it was written, ms since the epoch.
    #[serde(default)]
    pub updated_ms: u64,
}

impl SessionRecord {
    /// Remembers a question and its answer (the last few only).
    pub fn remember(&mut self, question: &str, answer: &str) {
        self.questions
            .retain(|q| !same_question(&q.question, question));
        self.questions.push(Asked {
            question: question.to_owned(),
            answer: answer.chars().take(300).collect(),
        });
        let extra = self.questions.len().saturating_sub(REMEMBERED_QUESTIONS);
        self.questions.drain(..extra);
    }

    /// The earlier answer to the same question, when the screen has not changed since.
    pub fn cached_answer(&self, question: &str, screen: u64) -> Option<&str> {
        if self.screen != screen {
            return None;
        }
        self.questions
            .iter()
            .rev()
            .find(|q| same_question(&q.question, question))
            .map(|q| q.answer.as_str())
    }
}

fn same_question(a: &str, b: &str) -> bool {
    crate::model::text::normalize(a) == crate::model::text::normalize(b)
}

/// The one notion of "the screen changed" that the answer cache and `changed_since_last` share:
/// a fingerprint of what the window says (its text lines, sorted, since toolkits reorder
/// siblings between observations) and of every field [`changed_since_last`] compares. Two
/// observations with the same fingerprint therefore never report a change, so an answer from
/// the cache can never say the screen changed (a cold CI run saw `cached: true` with "new text in
/// the last message": the last message depends on line order, the old fingerprint did not).
pub fn screen_fingerprint(record: &SessionRecord, text: &[String]) -> u64 {
    let mut lines: Vec<&str> = text.iter().map(String::as_str).collect();
    lines.sort_unstable();
    let fields = [
        &record.status,
        &record.app,
        &record.project,
        &record.session,
        &record.last_message,
        &record.next_step,
    ];
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |chunk: &str| {
        for byte in chunk.bytes().chain([0u8]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for line in lines {
        feed(line);
    }
    for field in fields {
        feed("\u{1}");
        feed(field.as_deref().unwrap_or(""));
    }
    hash
}

/// What changed between two observations of a session, in short phrases.
pub fn changed_since_last(before: &SessionRecord, now: &SessionRecord) -> Vec<String> {
    let mut out = Vec::new();
    let field = |name: &str, a: &Option<String>, b: &Option<String>, out: &mut Vec<String>| {
        if a != b && b.is_some() {
            match a {
                Some(a) => out.push(format!("{name}: {a} -> {}", b.as_deref().unwrap_or(""))),
                None => out.push(format!("{name}: {}", b.as_deref().unwrap_or(""))),
            }
        }
    };
    field("status", &before.status, &now.status, &mut out);
    field("app", &before.app, &now.app, &mut out);
    field("project", &before.project, &now.project, &mut out);
    field("session", &before.session, &now.session, &mut out);
    if before.last_message != now.last_message && now.last_message.is_some() {
        out.push("new text in the last message".into());
    }
    if before.next_step != now.next_step && now.next_step.is_some() {
        out.push("next step changed".into());
    }
    out
}

/// The session files of one sessions directory.
#[derive(Debug, Clone)]
pub struct Sessions {
    dir: PathBuf,
    ttl: Duration,
}

impl Sessions {
    /// Session files in `sessions_dir`, deleted after `ttl_hours` without an update.
    pub fn new(sessions_dir: &Path, ttl_hours: u32) -> Sessions {
        Sessions {
            dir: sessions_dir.to_owned(),
            ttl: Duration::from_secs(u64::from(ttl_hours) * 3600),
        }
    }

    /// The session's record, if it has one (expired files are deleted first).
    pub fn load(&self, key: &SessionKey) -> Result<Option<SessionRecord>> {
        self.purge();
        let path = self.dir.join(key.file_name());
        match std::fs::read(&path) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(crate::store::private::storage_error(
                "cannot read",
                &path,
                e,
            )),
        }
    }

    /// Writes the session's record and deletes the client's other sessions.
    pub fn save(&self, key: &SessionKey, record: &SessionRecord) -> Result<()> {
        crate::store::private::ensure_dir(&self.dir)?;
        let mut record = record.clone();
        record.updated_ms = now_ms();
        let path = self.dir.join(key.file_name());
        let bytes = serde_json::to_vec(&record)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        crate::store::persist::write_atomic(&path, &bytes)
            .map_err(|e| crate::store::private::storage_error("cannot store", &path, e))?;
        for (other, file) in self.files() {
            if other.client == key.client && other.session_id != key.session_id {
                let _ = std::fs::remove_file(file);
            }
        }
        Ok(())
    }

    /// Deletes session files older than the TTL.
    pub fn purge(&self) {
        let cutoff = std::time::SystemTime::now().checked_sub(self.ttl);
        for (_, file) in self.files() {
            let old = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .is_ok_and(|t| cutoff.is_some_and(|c| t < c));
            if old {
                let _ = std::fs::remove_file(file);
            }
        }
    }

    /// Some session was written within `window` (an active session keeps the model warm longer).
    pub fn any_updated_within(&self, window: Duration) -> bool {
        let cutoff = std::time::SystemTime::now().checked_sub(window);
        self.files().iter().any(|(_, file)| {
            std::fs::metadata(file)
                .and_then(|m| m.modified())
                .is_ok_and(|t| cutoff.is_none_or(|c| t >= c))
        })
    }

    fn files(&self) -> Vec<(SessionKey, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let (client, session_id) = name.strip_suffix(".json")?.split_once("__")?;
                let key = SessionKey {
                    client: client.to_owned(),
                    session_id: session_id.to_owned(),
                };
                Some((key, e.path()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sanitized_and_bad_ones_refused() {
        let key = SessionKey::new(Some("codex"), "fix ui/../x").unwrap();
        assert_eq!(
            (key.client.as_str(), key.session_id.as_str()),
            ("codex", "fixuix")
        );
        assert_eq!(
            SessionKey::new(None, "t1")
                .map(|k| k.client)
                .ok()
                .as_deref(),
            Some("default")
        );
        assert_eq!(
            SessionKey::new(Some("c"), &"a".repeat(100))
                .map(|k| k.session_id.len())
                .ok(),
            Some(64)
        );
        assert_eq!(
            SessionKey::new(Some("c"), "///").err().map(|e| e.code),
            Some(ErrorCode::InvalidArgument)
        );
        assert!(SessionKey::new(Some("שלום"), "x").is_err());
    }

    #[test]
    fn a_new_session_replaces_the_clients_old_one_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sessions::new(dir.path(), 24);
        let a = SessionKey::new(Some("codex"), "one").unwrap();
        let b = SessionKey::new(Some("codex"), "two").unwrap();
        let c = SessionKey::new(Some("claude"), "one").unwrap();
        let record = SessionRecord {
            status: Some("working".into()),
            ..SessionRecord::default()
        };
        for key in [&a, &c, &b] {
            store.save(key, &record).unwrap();
        }
        assert!(
            store.load(&a).ok().flatten().is_none(),
            "replaced by codex/two"
        );
        assert!(store.load(&b).ok().flatten().is_some());
        assert!(
            store.load(&c).ok().flatten().is_some(),
            "another client's session stays"
        );
    }

    #[test]
    fn expired_files_are_deleted_on_load() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sessions::new(dir.path(), 0);
        let key = SessionKey::new(Some("c"), "s").unwrap();
        store.save(&key, &SessionRecord::default()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(store.load(&key).ok().flatten().is_none());
    }

    #[test]
    fn regression_a_cached_answer_never_says_the_screen_changed() {
        // The same lines in another order, with a last message that depends on the order.
        let text_a = vec!["a".to_owned(), "b".to_owned()];
        let text_b = vec!["b".to_owned(), "a".to_owned()];
        let a = SessionRecord {
            last_message: Some("b".into()),
            ..SessionRecord::default()
        };
        let b = SessionRecord {
            last_message: Some("a".into()),
            ..SessionRecord::default()
        };
        assert!(!changed_since_last(&a, &b).is_empty());
        assert_ne!(
            screen_fingerprint(&a, &text_a),
            screen_fingerprint(&b, &text_b)
        );
        assert_eq!(
            screen_fingerprint(&a, &text_a),
            screen_fingerprint(&a, &text_b)
        );
    }

    #[test]
    fn what_changed_and_cached_answers() {
        let before = SessionRecord {
            status: Some("working".into()),
            last_message: Some("building".into()),
            screen: 7,
            ..SessionRecord::default()
        };
        let now = SessionRecord {
            status: Some("finished".into()),
            last_message: Some("all 916 tests pass".into()),
            ..before.clone()
        };
        assert_eq!(
            changed_since_last(&before, &now),
            vec![
                "status: working -> finished",
                "new text in the last message"
            ]
        );
        assert!(changed_since_last(&now, &now).is_empty());

        let mut record = before;
        for i in 0..7 {
            record.remember(&format!("question {i}?"), "answer");
        }
        assert_eq!(record.questions.len(), REMEMBERED_QUESTIONS);
        record.remember("Is Claude finished?", "Yes.");
        assert_eq!(record.cached_answer("is claude finished?", 7), Some("Yes."));
        assert_eq!(
            record.cached_answer("Is Claude finished?", 8),
            None,
            "the screen changed"
        );
    }
}
