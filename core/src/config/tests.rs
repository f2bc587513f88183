//! Config layering and every kind of mistake, against real files in a temporary directory.

use std::collections::HashMap;
use std::path::Path;

use super::*;

/// The user's own file under the fixture's HOME.
const USER: &str = "home/.config/mcp-computer-use/config.toml";
/// A project file in the working directory (a cloned repository can carry one).
const PROJECT: &str = "mcp-computer-use.toml";

struct Fixture {
    dir: tempfile::TempDir,
    env: HashMap<String, String>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut env = HashMap::new();
        // A HOME without a config file, so the developer's own file never leaks into tests.
        env.insert(
            "HOME".to_owned(),
            dir.path().join("home").display().to_string(),
        );
        Fixture { dir, env }
    }

    fn cwd(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, text: &str) -> std::path::PathBuf {
        let path = self.dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    fn set(&mut self, key: &str, value: &str) -> &mut Self {
        self.env.insert(key.to_owned(), value.to_owned());
        self
    }

    fn load(&self) -> Result<Config, ConfigError> {
        let env = |k: &str| self.env.get(k).cloned();
        Config::load_with(&env, self.cwd())
    }

    fn ok(&self) -> Config {
        self.load()
            .unwrap_or_else(|e| panic!("expected a valid config, got {e}"))
    }

    fn err(&self) -> ConfigError {
        match self.load() {
            Ok(c) => panic!("expected an error, got {c:?}"),
            Err(e) => e,
        }
    }
}

#[test]
fn defaults_match_the_brief() {
    let c = Fixture::new().ok();
    assert_eq!(c.ollama_url, "http://127.0.0.1:11435");
    assert_eq!(c.model, "gpt-oss:20b");
    assert_eq!(c.llm_api, LlmApi::Ollama);
    assert_eq!(c.num_ctx, 8192);
    assert_eq!(
        (
            c.timeout_base,
            c.timeout_per_1k_chars,
            c.timeout_min,
            c.timeout_max
        ),
        (30.0, 4.0, 20.0, 90.0)
    );
    assert_eq!(c.cold_load_extra, 45.0);
    assert!(c.adaptive_timeout);
    assert_eq!(c.adaptive_window, 8);
    assert_eq!(c.call_budget_seconds, 110.0);
    assert!(c.autostart_ollama);
    assert_eq!(c.autostart_timeout, 30.0);
    assert_eq!(
        (c.keep_alive_idle_secs, c.keep_alive_session_secs),
        (180, 600)
    );
    assert_eq!(c.min_free_mb, 2048);
    assert!(c.memory_watch);
    assert_eq!(c.memory_watch_interval, 30.0);
    assert_eq!((c.session_ttl_hours, c.action_log_ttl_hours), (24, 24));
    assert!(c.resolve_with_model);
    assert_eq!((c.max_type_chars, c.max_question_chars), (2000, 300));
    assert_eq!(c.image_timeout, 15.0);
    assert!(c.snapshot_details);
    assert!(!c.health_http);
    assert!(c.sessions_dir.ends_with("mcp-computer-use"));
    assert_eq!(c.file, None);
}

#[test]
fn file_overrides_defaults_and_env_overrides_file() {
    let mut f = Fixture::new();
    f.write(
        USER,
        "[model]\nname = \"llama3\"\nnum_ctx = 4096\n[memory]\nkeep_alive_idle = \"5m\"\n",
    );
    let c = f.ok();
    assert_eq!(c.model, "llama3");
    assert_eq!(c.num_ctx, 4096);
    assert_eq!(c.keep_alive_idle_secs, 300);
    assert!(c.file.is_some());
    f.set("MCP_CU_MODEL", "none")
        .set("MCP_CU_KEEP_ALIVE_IDLE", "90");
    let c = f.ok();
    assert_eq!(c.model, "none", "env beats file");
    assert_eq!(c.num_ctx, 4096, "file value kept where env is silent");
    assert_eq!(c.keep_alive_idle_secs, 90);
}

#[test]
fn explicit_file_wins_and_files_are_not_merged() {
    let mut f = Fixture::new();
    f.write(USER, "[model]\nnum_ctx = 4096\n");
    let other = f.write("elsewhere/cfg.toml", "[model]\nname = \"other\"\n");
    f.set("MCP_CU_CONFIG", &other.display().to_string());
    let c = f.ok();
    assert_eq!(c.model, "other");
    assert_eq!(c.num_ctx, 8192, "the user file under HOME is not merged in");
    assert_eq!(c.file.as_deref(), Some(other.as_path()));
}

#[test]
fn a_project_file_can_only_tighten() {
    let mut f = Fixture::new();
    f.write(
        USER,
        "[limits]\nmax_type_chars = 500\n[safety]\nblocklist = [\"Wipe\"]\n",
    );
    f.write(
        PROJECT,
        "[safety]\napprovals = true\nblocklist_extra = [\"Purge\"]\n[limits]\nmax_type_chars = 100\nmax_question_chars = 9999\n",
    );
    let c = f.ok();
    assert!(c.approvals, "a project file can turn approvals on");
    assert_eq!(c.max_type_chars, 100, "and lower limits");
    assert_eq!(c.max_question_chars, 300, "but never raise them");
    assert_eq!(
        c.extra_blocked_words(),
        vec!["Wipe", "Purge"],
        "and add words"
    );
    assert_eq!(
        c.project_file.as_deref(),
        Some(f.cwd().join(PROJECT).as_path())
    );
    // The environment cannot be undone by it either.
    f.set("MCP_CU_APPROVALS", "1")
        .set("MCP_CU_MAX_TYPE_CHARS", "50");
    f.write(
        PROJECT,
        "[safety]\napprovals = false\n[limits]\nmax_type_chars = 100000\n",
    );
    let c = f.ok();
    assert!(c.approvals);
    assert_eq!(c.max_type_chars, 50);
}

#[test]
fn a_project_file_cannot_say_where_window_text_goes_or_loosen_anything() {
    for (text, key) in [
        (
            "[model]\nollama_url = \"http://evil.example:11434\"\n",
            "model.ollama_url",
        ),
        ("[model]\nname = \"x\"\n", "model.name"),
        ("[sessions]\ndir = \"/tmp/shared\"\n", "sessions.dir"),
        (
            "[machines.lab]\nurl = \"https://10.0.0.1:8443/mcp\"\n",
            "machines",
        ),
        ("[timeouts]\nbase = 10\n", "timeouts.base"),
    ] {
        let f = Fixture::new();
        f.write(PROJECT, text);
        let e = f.err();
        assert_eq!(e.key, key, "{e}");
        assert!(matches!(e.source, ConfigSource::File(_)));
    }
    // Pointed at explicitly, the same file is the user's own and may set anything.
    let mut f = Fixture::new();
    let path = f.write(PROJECT, "[model]\nname = \"llama3\"\n");
    f.set("MCP_CU_CONFIG", &path.display().to_string());
    assert_eq!(f.ok().model, "llama3");
}

#[test]
fn user_file_is_found_under_home() {
    let f = Fixture::new();
    f.write(
        "home/.config/mcp-computer-use/config.toml",
        "[limits]\nmax_type_chars = 10\n",
    );
    assert_eq!(f.ok().max_type_chars, 10);
}

#[test]
fn missing_explicit_file_is_an_error() {
    let mut f = Fixture::new();
    f.set("MCP_CU_CONFIG", "/nonexistent/cfg.toml");
    let e = f.err();
    assert_eq!(e.source, ConfigSource::Env("MCP_CU_CONFIG"));
    assert!(e.problem.contains("/nonexistent/cfg.toml"), "{e}");
}

#[test]
fn unknown_key_names_the_key_the_file_and_the_known_keys() {
    let f = Fixture::new();
    let path = f.write(USER, "[model]\nnmae = \"x\"\n");
    let e = f.err();
    assert_eq!(e.key, "model.nmae");
    assert_eq!(e.source, ConfigSource::File(path));
    assert!(e.problem.contains("model.name"), "{e}");
}

#[test]
fn unknown_section_lists_the_sections() {
    let f = Fixture::new();
    f.write(USER, "[modle]\nname = \"x\"\n");
    let e = f.err();
    assert!(
        e.problem.contains("unknown section [modle]") && e.problem.contains("model"),
        "{e}"
    );
}

#[test]
fn wrong_type_in_file_says_what_was_expected() {
    let f = Fixture::new();
    f.write(USER, "[model]\nnum_ctx = \"big\"\n");
    let e = f.err();
    assert_eq!(e.key, "model.num_ctx");
    assert!(
        e.problem.contains("expected a whole number") && e.problem.contains("found string"),
        "{e}"
    );
}

#[test]
fn out_of_range_in_file_and_env() {
    let f = Fixture::new();
    f.write(USER, "[timeouts]\nadaptive_window = 0\n");
    let e = f.err();
    assert_eq!(e.key, "timeouts.adaptive_window");
    assert!(e.problem.contains("out of range"), "{e}");

    let mut f = Fixture::new();
    f.set("MCP_CU_MAX_TYPE_CHARS", "-5");
    let e = f.err();
    assert_eq!(e.source, ConfigSource::Env("MCP_CU_MAX_TYPE_CHARS"));
    assert!(e.problem.contains("out of range"), "{e}");
}

#[test]
fn bad_env_values_name_the_variable() {
    for (var, value, needle) in [
        ("MCP_CU_ADAPTIVE_TIMEOUT", "maybe", "expected a boolean"),
        ("MCP_CU_NUM_CTX", "lots", "expected a whole number"),
        ("MCP_CU_TIMEOUT_BASE", "soon", "expected a number"),
        ("MCP_CU_OLLAMA_URL", "localhost:11434", "http://"),
        ("MCP_CU_LLM_API", "grpc", "one of ollama, openai"),
        (
            "MCP_CU_KEEP_ALIVE_SESSION",
            "10 fortnights",
            "not a duration",
        ),
        ("MCP_CU_MODEL", "  ", "empty"),
    ] {
        let mut f = Fixture::new();
        f.set(var, value);
        let e = f.err();
        assert_eq!(e.source, ConfigSource::Env(var), "{var}");
        assert!(e.problem.contains(needle), "{var}={value}: {e}");
        let as_error: crate::Error = e.into();
        assert_eq!(as_error.code, crate::ErrorCode::ConfigInvalid);
        assert!(as_error.message.contains(var), "{}", as_error.message);
        assert_eq!(as_error.exit_code().code(), 2);
    }
}

#[test]
fn syntax_error_names_the_file() {
    let f = Fixture::new();
    let path = f.write(USER, "[model\nname=1");
    let e = f.err();
    assert_eq!(e.source, ConfigSource::File(path));
    assert!(e.problem.contains("not valid TOML"), "{e}");
}

#[test]
fn inconsistent_min_max_is_refused() {
    let mut f = Fixture::new();
    f.set("MCP_CU_TIMEOUT_MIN", "100");
    let e = f.err();
    assert_eq!(e.source, ConfigSource::Combined);
    assert!(e.problem.contains("larger than"), "{e}");
}

#[test]
fn blocklist_words_add_from_both_keys_and_env() {
    let mut f = Fixture::new();
    f.write(
        USER,
        "[safety]\nblocklist = [\"Wipe\"]\nblocklist_extra = [\"נקה\", \"Wipe\"]\n",
    );
    assert_eq!(f.ok().extra_blocked_words(), vec!["Wipe", "נקה"]);
    f.set("MCP_CU_SAFETY_BLOCKLIST_EXTRA", "Purge, Nuke");
    assert_eq!(f.ok().extra_blocked_words(), vec!["Wipe", "Purge", "Nuke"]);
}

#[test]
fn openai_api_and_durations_parse() {
    let mut f = Fixture::new();
    f.set("MCP_CU_LLM_API", "openai")
        .set("MCP_CU_KEEP_ALIVE_SESSION", "1h")
        .set("MCP_CU_OLLAMA_URL", "http://127.0.0.1:8080/")
        .set("MCP_CU_HEALTH_HTTP", "1");
    let c = f.ok();
    assert_eq!(c.llm_api, LlmApi::Openai);
    assert_eq!(c.keep_alive_session_secs, 3600);
    assert_eq!(c.ollama_url, "http://127.0.0.1:8080");
    assert!(c.health_http);
}

#[test]
fn example_file_is_valid_and_documents_every_setting() {
    let example_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-computer-use.example.toml");
    let text = std::fs::read_to_string(&example_path).unwrap();
    for s in SETTINGS {
        let (section, name) = s.key.split_once('.').unwrap_or_default();
        assert!(
            text.contains(&format!("[{section}]")),
            "example lacks [{section}]"
        );
        assert!(
            text.contains(&format!("{name} =")),
            "example lacks {}",
            s.key
        );
        assert!(text.contains(s.env), "example does not name {}", s.env);
    }
    // Uncommented, the example must load and equal the defaults.
    let uncommented: String = text
        .lines()
        .map(|l| {
            l.strip_prefix("# ")
                .filter(|r| r.contains(" = ") || r.starts_with('['))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let f = Fixture::new();
    f.write(USER, &uncommented);
    let mut loaded = f.ok();
    let mut defaults = Fixture::new().ok();
    loaded.file = None;
    defaults.file = None;
    defaults.sessions_dir = loaded.sessions_dir.clone();
    assert_eq!(loaded, defaults);
}

#[test]
fn every_mistake_of_a_file_and_the_environment_is_reported_at_once() {
    let mut f = Fixture::new();
    f.write(
        USER,
        "[model]\nname = 42\nnum_ctx = 1\n[health]\nport = 99999999\nbogus = true\n[nowhere]\nx = 1\n",
    );
    f.set("MCP_CU_IMAGE_QUALITY", "lots");
    let e = f.err();
    let keys: Vec<&str> = std::iter::once(&e)
        .chain(&e.also)
        .map(|p| p.key.as_str())
        .collect();
    for key in [
        "model.name",
        "model.num_ctx",
        "health.port",
        "health.bogus",
        "nowhere.x",
        "images.quality",
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
    let wire = cu_error(e);
    let problems = wire
        .details
        .as_ref()
        .and_then(|d| d["problems"].as_array().map(Vec::len));
    assert_eq!(problems, Some(6));
}

fn cu_error(e: ConfigError) -> crate::error::Error {
    e.into()
}
