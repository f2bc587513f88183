//! Finding the file, layering file and environment over the defaults, and checking every value.

use std::path::{Path, PathBuf};

use super::settings::{Kind, Setting, Value, SETTINGS};
use super::Config;
use crate::error::{Error, ErrorCode};

/// Where a configuration value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// A TOML file.
    File(PathBuf),
    /// An environment variable.
    Env(&'static str),
    /// A consistency check across settings.
    Combined,
}

impl std::fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigSource::File(p) => write!(f, "file {}", p.display()),
            ConfigSource::Env(name) => write!(f, "environment variable {name}"),
            ConfigSource::Combined => f.write_str("the combined configuration"),
        }
    }
}

/// A configuration mistake: which key, where it came from, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the bad value came from.
    pub source: ConfigSource,
    /// The TOML key (or `(file)` for problems with the file as a whole).
    pub key: String,
    /// What is wrong, and what is allowed.
    pub problem: String,
    /// Further mistakes found in the same load (a file is checked whole, not stopped at its
    /// first mistake).
    pub also: Vec<ConfigError>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid configuration: {} (from {}): {}",
            self.key, self.source, self.problem
        )?;
        for more in &self.also {
            write!(f, "; {} (from {}): {}", more.key, more.source, more.problem)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Error {
        Error::new(ErrorCode::ConfigInvalid, e.to_string())
            .with_suggestion(format!(
                "Fix {} in {}; mcp-computer-use.example.toml documents every key.",
                e.key, e.source
            ))
            .with_details(serde_json::json!({
                "key": e.key,
                "source": e.source.to_string(),
                "problems": std::iter::once(&e).chain(&e.also).map(|p| serde_json::json!({
                    "key": p.key, "source": p.source.to_string(), "problem": p.problem,
                })).collect::<Vec<_>>(),
            }))
    }
}

pub(super) fn load(
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
) -> Result<Config, ConfigError> {
    let mut config = Config::defaults(env);
    let user = find_file(env)?;
    // Every mistake of the file and the environment is reported at once.
    let mut problems = Vec::new();
    if let Some(path) = &user {
        problems.extend(apply_file(&mut config, path).err());
        config.file = Some(path.clone());
    }
    for setting in SETTINGS {
        if let Some(raw) = env(setting.env) {
            match parse_env(setting, raw.trim()) {
                Ok(value) => (setting.apply)(&mut config, value),
                Err(problem) => problems.push(ConfigError {
                    also: Vec::new(),
                    source: ConfigSource::Env(setting.env),
                    key: setting.key.into(),
                    problem,
                }),
            }
        }
    }
    let project = cwd.join("mcp-computer-use.toml");
    if project.is_file() && !same_file(&project, user.as_deref()) {
        problems.extend(tighten(&mut config, &project).err());
        config.project_file = Some(project);
    }
    gather(problems)?;
    check_consistency(&config)?;
    Ok(config)
}

/// One error carrying every problem found (the first, and the rest in `also`), if any.
fn gather(problems: Vec<ConfigError>) -> Result<(), ConfigError> {
    let mut all = problems.into_iter().flat_map(|mut p| {
        let also = std::mem::take(&mut p.also);
        std::iter::once(p).chain(also)
    });
    match all.next() {
        None => Ok(()),
        Some(mut first) => {
            first.also = all.collect();
            Err(first)
        }
    }
}

fn same_file(a: &Path, b: Option<&Path>) -> bool {
    b.is_some_and(|b| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    })
}

/// Applies a project file that may only tighten: more blocked words, approvals on, lower limits.
fn tighten(config: &mut Config, path: &Path) -> Result<(), ConfigError> {
    let mut wanted = config.clone();
    wanted.safety_blocklist.clear();
    wanted.safety_blocklist_extra.clear();
    apply_file_keys(&mut wanted, path, |key| {
        if super::PROJECT_KEYS.contains(&key) {
            Ok(())
        } else {
            Err(format!(
                "a project file in the working directory may only tighten: it may set {}; {key} belongs in your own file (MCP_CU_CONFIG, or ~/.config/mcp-computer-use/config.toml)",
                super::PROJECT_KEYS.join(", ")
            ))
        }
    })?;
    config.safety_blocklist.extend(wanted.safety_blocklist);
    config
        .safety_blocklist_extra
        .extend(wanted.safety_blocklist_extra);
    config.approvals |= wanted.approvals;
    config.max_type_chars = config.max_type_chars.min(wanted.max_type_chars);
    config.max_question_chars = config.max_question_chars.min(wanted.max_question_chars);
    Ok(())
}

/// The user's own file: `MCP_CU_CONFIG`, else `~/.config/mcp-computer-use/config.toml`.
fn find_file(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<PathBuf>, ConfigError> {
    if let Some(explicit) = env("MCP_CU_CONFIG").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(explicit);
        return if path.is_file() {
            Ok(Some(path))
        } else {
            Err(ConfigError {
                also: Vec::new(),
                source: ConfigSource::Env("MCP_CU_CONFIG"),
                key: "(file)".into(),
                problem: format!("{} does not exist or is not a file", path.display()),
            })
        };
    }
    let home = env("HOME")
        .filter(|h| !h.is_empty())
        .or_else(|| env("USERPROFILE").filter(|h| !h.is_empty()));
    if let Some(home) = home {
        let user = PathBuf::from(home).join(".config/mcp-computer-use/config.toml");
        if user.is_file() {
            return Ok(Some(user));
        }
    }
    Ok(None)
}

fn apply_file(config: &mut Config, path: &Path) -> Result<(), ConfigError> {
    apply_file_keys(config, path, |_| Ok(()))
}

/// Applies a file's keys, each first allowed by `allow` (which says why not).
fn apply_file_keys(
    config: &mut Config,
    path: &Path,
    allow: impl Fn(&str) -> Result<(), String>,
) -> Result<(), ConfigError> {
    let source = || ConfigSource::File(path.to_owned());
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        also: Vec::new(),
        source: source(),
        key: "(file)".into(),
        problem: format!("cannot read it: {e}"),
    })?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
        also: Vec::new(),
        source: source(),
        key: "(file)".into(),
        problem: format!("not valid TOML: {}", e.message().trim()),
    })?;
    let mut problems = Vec::new();
    let problem = |key: String, problem: String| ConfigError {
        also: Vec::new(),
        source: source(),
        key,
        problem,
    };
    for (section, body) in &table {
        if section == "machines" {
            if let Err(why) = allow("machines") {
                problems.push(problem("machines".into(), why));
                continue;
            }
            let Some(machines) = body.as_table() else {
                problems.push(problem(
                    "machines".into(),
                    "expected [machines.NAME] tables".into(),
                ));
                continue;
            };
            for (name, machine) in machines {
                match super::machines::parse(name, machine) {
                    Ok(parsed) => config.machines.push(parsed),
                    Err((key, why)) => problems.push(problem(key, why)),
                }
            }
            continue;
        }
        if section == "fleet" {
            if let Err(why) = allow("fleet") {
                problems.push(problem("fleet".into(), why));
                continue;
            }
            match super::fleet::parse(body) {
                Ok(fleet) => config.fleet = Some(fleet),
                Err((key, why)) => problems.push(problem(key, why)),
            }
            continue;
        }
        let Some(body) = body.as_table() else {
            problems.push(problem(
                section.clone(),
                format!("expected a [{section}] table; keys live in sections such as [model]"),
            ));
            continue;
        };
        for (name, value) in body {
            let key = format!("{section}.{name}");
            let Some(setting) = SETTINGS.iter().find(|s| s.key == key) else {
                problems.push(problem(key.clone(), unknown_key_problem(&key)));
                continue;
            };
            let checked = allow(setting.key).and_then(|()| parse_toml(setting, value));
            match checked {
                Ok(value) => (setting.apply)(config, value),
                Err(why) => problems.push(problem(key, why)),
            }
        }
    }
    gather(problems)
}

fn unknown_key_problem(key: &str) -> String {
    let section = key.split('.').next().unwrap_or_default();
    let known: Vec<&str> = SETTINGS
        .iter()
        .filter(|s| s.key.split('.').next() == Some(section))
        .map(|s| s.key)
        .collect();
    if known.is_empty() {
        let sections: std::collections::BTreeSet<&str> = SETTINGS
            .iter()
            .filter_map(|s| s.key.split('.').next())
            .collect();
        format!(
            "unknown section [{section}]; known sections: {}",
            sections.into_iter().collect::<Vec<_>>().join(", ")
        )
    } else {
        format!("unknown key; keys of [{section}]: {}", known.join(", "))
    }
}

fn parse_toml(setting: &Setting, value: &toml::Value) -> Result<Value, String> {
    let type_name = value.type_str();
    match (setting.kind, value) {
        (Kind::Bool, toml::Value::Boolean(b)) => Ok(Value::Bool(*b)),
        (Kind::Int { min, max }, toml::Value::Integer(n)) => check_int(*n, min, max),
        (Kind::Float { min, max }, toml::Value::Float(x)) => check_float(*x, min, max),
        (Kind::Float { min, max }, toml::Value::Integer(n)) => check_float(*n as f64, min, max),
        (Kind::Duration { min, max }, toml::Value::Integer(n)) => check_int(*n, min, max),
        (Kind::Duration { min, max }, toml::Value::String(s)) => check_duration(s, min, max),
        (Kind::Url | Kind::Text | Kind::Choice(_) | Kind::Path, toml::Value::String(s)) => {
            check_text(setting.kind, s)
        }
        (Kind::Words, toml::Value::Array(items)) => {
            let mut words = Vec::with_capacity(items.len());
            for item in items {
                match item.as_str() {
                    Some(w) if !w.trim().is_empty() => words.push(w.trim().to_owned()),
                    Some(_) => return Err("the list holds an empty word".into()),
                    None => {
                        return Err(format!(
                            "expected a list of strings, found a {} in it",
                            item.type_str()
                        ))
                    }
                }
            }
            Ok(Value::Words(words))
        }
        (kind, _) => Err(format!("expected {}, found {type_name}", describe(kind))),
    }
}

fn parse_env(setting: &Setting, raw: &str) -> Result<Value, String> {
    match setting.kind {
        Kind::Bool => match raw.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(Value::Bool(true)),
            "0" | "false" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "expected a boolean (1/0, true/false, yes/no, on/off), found {raw:?}"
            )),
        },
        Kind::Int { min, max } => match raw.parse::<i64>() {
            Ok(n) => check_int(n, min, max),
            Err(_) => Err(format!("expected a whole number, found {raw:?}")),
        },
        Kind::Float { min, max } => match raw.parse::<f64>() {
            Ok(x) => check_float(x, min, max),
            Err(_) => Err(format!("expected a number, found {raw:?}")),
        },
        Kind::Duration { min, max } => check_duration(raw, min, max),
        Kind::Words => Ok(Value::Words(
            raw.split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
        )),
        kind @ (Kind::Url | Kind::Text | Kind::Choice(_) | Kind::Path) => check_text(kind, raw),
    }
}

fn describe(kind: Kind) -> String {
    match kind {
        Kind::Bool => "a boolean".into(),
        Kind::Int { min, max } => format!("a whole number from {min} to {max}"),
        Kind::Float { min, max } => format!("a number from {min} to {max}"),
        Kind::Duration { min, max } => {
            format!("a duration from {min}s to {max}s (seconds, or \"90s\", \"3m\", \"1h\")")
        }
        Kind::Url => "an http:// or https:// URL".into(),
        Kind::Text => "non-empty text".into(),
        Kind::Choice(options) => format!("one of {}", options.join(", ")),
        Kind::Path => "a path".into(),
        Kind::Words => "a list of strings".into(),
    }
}

fn check_int(n: i64, min: u64, max: u64) -> Result<Value, String> {
    match u64::try_from(n) {
        Ok(v) if (min..=max).contains(&v) => Ok(Value::Int(v)),
        _ => Err(format!("{n} is out of range; expected {min} to {max}")),
    }
}

fn check_float(x: f64, min: f64, max: f64) -> Result<Value, String> {
    if x.is_finite() && x >= min && x <= max {
        Ok(Value::Float(x))
    } else {
        Err(format!("{x} is out of range; expected {min} to {max}"))
    }
}

fn check_duration(text: &str, min: u64, max: u64) -> Result<Value, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, "s"),
    };
    let factor = match unit.trim() {
        "s" | "" => 1,
        "m" => 60,
        "h" => 3600,
        _ => {
            return Err(format!(
                "{text:?} is not a duration; use seconds or a number with s, m or h"
            ))
        }
    };
    let n: u64 = digits.parse().map_err(|_| {
        format!("{text:?} is not a duration; use seconds or a number with s, m or h")
    })?;
    let secs = n.saturating_mul(factor);
    if (min..=max).contains(&secs) {
        Ok(Value::Int(secs))
    } else {
        Err(format!("{text} is out of range; expected {min}s to {max}s"))
    }
}

fn check_text(kind: Kind, text: &str) -> Result<Value, String> {
    let text = text.trim();
    match kind {
        _ if text.is_empty() => Err(format!(
            "expected {}, found an empty string",
            describe(kind)
        )),
        Kind::Url => {
            let host = text
                .strip_prefix("http://")
                .or_else(|| text.strip_prefix("https://"))
                .unwrap_or_default();
            if host.is_empty() || host.starts_with('/') {
                Err(format!(
                    "expected an http:// or https:// URL, found {text:?}"
                ))
            } else {
                Ok(Value::Text(text.trim_end_matches('/').to_owned()))
            }
        }
        Kind::Choice(options) if !options.contains(&text) => Err(format!(
            "expected one of {}, found {text:?}",
            options.join(", ")
        )),
        _ => Ok(Value::Text(text.to_owned())),
    }
}

fn check_consistency(config: &Config) -> Result<(), ConfigError> {
    if config.timeout_min > config.timeout_max {
        return Err(ConfigError {
            also: Vec::new(),
            source: ConfigSource::Combined,
            key: "timeouts.min".into(),
            problem: format!(
                "timeouts.min ({}) is larger than timeouts.max ({})",
                config.timeout_min, config.timeout_max
            ),
        });
    }
    Ok(())
}
