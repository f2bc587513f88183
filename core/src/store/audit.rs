//! The append-only audit log: one JSON line per acting call in `<sessions_dir>/actions.log`.
//!
//! Only whitelisted fields exist (the [`AuditRecord`] struct is the whitelist). Typed text is
//! never written, only its length; any logged string that contains the typed text, or a fragment
//! of 6 or more characters of it, is replaced by `<redacted>`. Appends take an exclusive lock on
//! `actions.log.lock`, so threads and processes never interleave or lose lines, and records older
//! than the retention are purged under the same lock by rewriting to a temporary file and
//! renaming it over the log (atomic: a reader sees the old or the new file, never half of one).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::geometry::Point;

/// One audit record. Every field is optional and left out when empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// UTC time, `YYYY-MM-DDTHH:MM:SS.mmmZ` (set by [`AuditLog::append`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub time: String,
    /// The MCP client, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The session, when the caller uses one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Application or window title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The tool or step type (`gui_action.click`, `click`, `type_text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The requested label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A reference (state id).
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The element's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's role.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `ok`, `refused` or `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Whether `confirm_dangerous` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// The error code of a refused or failed call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// Length of typed text, in characters (never the text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_len: Option<usize>,
    /// A short note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Window id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Element id (`e7`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// Window-relative point of a coordinate action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    /// `semantic`, `coordinates`, `keyboard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// The observed effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// The machine that acted (remote worker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// A person's approval decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
}

/// The log file and its lock.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    lock: PathBuf,
    retention: Duration,
}

const REDACTED: &str = "<redacted>";
/// Fragments of the typed text this long or longer are redacted wherever they appear.
const FRAGMENT: usize = 6;

impl AuditLog {
    /// The log in `sessions_dir`, keeping records for `retention_hours`.
    pub fn new(sessions_dir: &Path, retention_hours: u32) -> AuditLog {
        AuditLog {
            path: sessions_dir.join("actions.log"),
            lock: sessions_dir.join("actions.log.lock"),
            retention: Duration::from_secs(u64::from(retention_hours) * 3600),
        }
    }

    /// Where the log lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record, stamped with the current time, redacted against `typed_text`.
    pub fn append(&self, mut record: AuditRecord, typed_text: Option<&str>) -> Result<()> {
        record.time = format_time(SystemTime::now());
        if let Some(text) = typed_text.filter(|t| !t.is_empty()) {
            record.text_len = Some(text.chars().count());
            redact(&mut record, text);
        }
        let mut line = serde_json::to_string(&record)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        line.push('\n');
        if let Some(dir) = self.path.parent() {
            crate::store::private::ensure_dir(dir)?;
        }
        let lock_file = crate::store::private::file_options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock)
            .map_err(|e| {
                crate::store::private::storage_error("audit log: cannot open", &self.lock, e)
            })?;
        let mut lock = fd_lock::RwLock::new(lock_file);
        let _guard = lock.write().map_err(|e| {
            crate::store::private::storage_error("audit log: cannot lock", &self.lock, e)
        })?;
        self.purge_expired()?;
        let mut file = crate::store::private::file_options()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| {
                crate::store::private::storage_error("audit log: cannot open", &self.path, e)
            })?;
        // A line is written whole or not at all: a short write (a full disk) is cut off again,
        // under the lock, so no reader ever sees a torn record.
        let before = file
            .metadata()
            .map_err(|e| {
                crate::store::private::storage_error("audit log: cannot stat", &self.path, e)
            })?
            .len();
        file.write_all(line.as_bytes()).map_err(|e| {
            let _ = file.set_len(before);
            crate::store::private::storage_error("audit log: cannot write", &self.path, e)
        })
    }

    /// Rewrites the log without expired records, if its first record is expired. Caller holds
    /// the lock.
    fn purge_expired(&self) -> Result<()> {
        let Ok(file) = std::fs::File::open(&self.path) else {
            return Ok(());
        };
        let cutoff = SystemTime::now()
            .checked_sub(self.retention)
            .unwrap_or(UNIX_EPOCH);
        let expired = |line: &str| -> bool {
            serde_json::from_str::<AuditRecord>(line)
                .ok()
                .and_then(|r| parse_time(&r.time))
                .is_none_or(|t| t < cutoff)
        };
        let mut lines = std::io::BufReader::new(file).lines();
        let first = match lines.next() {
            Some(Ok(l)) => l,
            _ => return Ok(()),
        };
        if !expired(&first) {
            return Ok(());
        }
        let kept: Vec<String> = lines
            .map_while(|l| l.ok())
            .filter(|l| !expired(l))
            .collect();
        let tmp = self.path.with_extension("log.tmp");
        let mut body = kept.join("\n");
        if !body.is_empty() {
            body.push('\n');
        }
        std::fs::write(&tmp, body).map_err(|e| {
            crate::store::private::storage_error("audit log: cannot write", &tmp, e)
        })?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            crate::store::private::storage_error("audit log: cannot replace", &self.path, e)
        })
    }
}

/// Replaces every string field that contains `typed`, or a fragment of it of [`FRAGMENT`]+
/// characters, with `<redacted>`.
fn redact(record: &mut AuditRecord, typed: &str) {
    let chars: Vec<char> = typed.chars().collect();
    let fragments: Vec<String> = if chars.len() >= FRAGMENT {
        chars
            .windows(FRAGMENT)
            .map(|w| w.iter().collect())
            .collect()
    } else {
        Vec::new()
    };
    let leaks =
        |value: &str| value.contains(typed) || fragments.iter().any(|f| value.contains(f.as_str()));
    let fields = [
        &mut record.client,
        &mut record.session_id,
        &mut record.app,
        &mut record.action,
        &mut record.target,
        &mut record.reference,
        &mut record.name,
        &mut record.role,
        &mut record.result,
        &mut record.error_code,
        &mut record.hint,
        &mut record.window,
        &mut record.element_id,
        &mut record.how,
        &mut record.effect,
        &mut record.machine,
        &mut record.approval,
    ];
    for field in fields {
        if field.as_deref().is_some_and(leaks) {
            *field = Some(REDACTED.to_owned());
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC.
pub fn format_time(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, day) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Parses what [`format_time`] writes.
pub fn parse_time(s: &str) -> Option<SystemTime> {
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    if s.len() != 24 || !s.ends_with('Z') {
        return None;
    }
    let days = days_from_civil(num(0..4)?, num(5..7)?, num(8..10)?);
    let secs = days * 86_400 + num(11..13)? * 3600 + num(14..16)? * 60 + num(17..19)?;
    let millis = num(20..23)?;
    UNIX_EPOCH.checked_add(Duration::from_millis(
        u64::try_from(secs * 1000 + millis).ok()?,
    ))
}

// Howard Hinnant's civil-calendar algorithms.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &AuditLog) -> Vec<AuditRecord> {
        std::fs::read_to_string(log.path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("corrupt line {l:?}: {e}")))
            .collect()
    }

    #[test]
    fn time_round_trips() {
        let t = UNIX_EPOCH + Duration::from_millis(1_796_096_445_123);
        let s = format_time(t);
        assert_eq!(s, "2026-12-01T03:40:45.123Z");
        assert_eq!(parse_time(&s), Some(t));
        assert_eq!(parse_time("yesterday"), None);
    }

    #[test]
    fn typed_text_never_reaches_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path(), 24);
        let secret = "hunter2 is my password";
        let record = AuditRecord {
            action: Some("gui_action.type".into()),
            name: Some("Secret field".into()),
            target: Some(format!("field with {secret}")),
            hint: Some("typed: word".into()),
            app: Some("my password manager".into()),
            ..Default::default()
        };
        log.append(record, Some(secret)).unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap_or_default();
        assert!(!text.contains("hunter2"), "{text}");
        let r = &read(&log)[0];
        assert_eq!(r.text_len, Some(secret.chars().count()));
        assert_eq!(r.target.as_deref(), Some(REDACTED));
        assert_eq!(
            r.app.as_deref(),
            Some(REDACTED),
            "a 6+ character fragment (\"passwo\") leaks too"
        );
        assert_eq!(r.name.as_deref(), Some("Secret field"));
        assert_eq!(r.hint.as_deref(), Some("typed: word"));
    }

    #[test]
    fn old_records_are_purged_on_append() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path(), 1);
        let old = AuditRecord {
            time: "2020-01-01T00:00:00.000Z".into(),
            action: Some("old".into()),
            ..Default::default()
        };
        std::fs::write(
            log.path(),
            format!("{}\n", serde_json::to_string(&old).unwrap_or_default()),
        )
        .unwrap();
        log.append(
            AuditRecord {
                action: Some("new".into()),
                ..Default::default()
            },
            None,
        )
        .unwrap();
        let actions: Vec<Option<String>> = read(&log).into_iter().map(|r| r.action).collect();
        assert_eq!(actions, vec![Some("new".to_owned())]);
    }

    #[test]
    fn concurrent_appenders_lose_and_corrupt_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // Threads here; scripts/test.sh runs the multi-process variant through the binary.
        std::thread::scope(|s| {
            for t in 0..8 {
                let path = dir.path().to_owned();
                s.spawn(move || {
                    let log = AuditLog::new(&path, 24);
                    for i in 0..50 {
                        let record = AuditRecord {
                            action: Some(format!("t{t}-{i}")),
                            hint: Some("x".repeat(500)),
                            ..Default::default()
                        };
                        log.append(record, None).unwrap();
                    }
                });
            }
        });
        let records = read(&AuditLog::new(dir.path(), 24));
        assert_eq!(records.len(), 400);
        let distinct: std::collections::HashSet<_> =
            records.iter().map(|r| r.action.clone()).collect();
        assert_eq!(distinct.len(), 400);
    }
}
