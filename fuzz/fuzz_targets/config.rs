//! The config loader: an arbitrary TOML file (user file and project file) and arbitrary
//! environment values. It answers a config or a `ConfigError`, never panics, and a project file
//! can only tighten the user's.
#![no_main]

use libfuzzer_sys::fuzz_target;

const VARS: &[&str] = &[
    "MCP_CU_CONFIG",
    "MCP_CU_SESSIONS_DIR",
    "MCP_CU_MODEL",
    "MCP_CU_LLM_URL",
    "MCP_CU_LLM_API",
    "MCP_CU_BLOCKED_WORDS",
    "MCP_CU_HEALTH_PORT",
    "MCP_CU_APPROVALS",
    "MCP_CU_ACTION_LOG_TTL_HOURS",
    "MCP_CU_MAX_ELEMENTS",
    "MCP_CU_TIMEOUT",
    "MCP_CU_MACHINES",
];

fuzz_target!(|input: (String, String, Vec<(u8, String)>)| {
    let (user, project, vars) = input;
    let Ok(dir) = tempfile::tempdir() else { return };
    let user_path = dir.path().join("user.toml");
    let project_dir = dir.path().join("project");
    if std::fs::write(&user_path, &user).is_err()
        || std::fs::create_dir(&project_dir).is_err()
        || std::fs::write(project_dir.join("mcp-computer-use.toml"), &project).is_err()
    {
        return;
    }
    let sessions = dir.path().join("sessions").display().to_string();
    let env = |name: &str| -> Option<String> {
        match name {
            "MCP_CU_CONFIG" => Some(user_path.display().to_string()),
            "MCP_CU_SESSIONS_DIR" => Some(sessions.clone()),
            "HOME" => Some(dir.path().display().to_string()),
            _ => vars
                .iter()
                .find(|(i, _)| VARS.get(*i as usize % VARS.len()) == Some(&name))
                .map(|(_, v)| v.clone()),
        }
    };
    let _ = cu_core::config::Config::load_with(&env, &project_dir);
});
