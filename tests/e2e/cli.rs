//! The binary itself: `--health` and exit codes.

use std::process::Command;

use crate::harness::desktop;

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-computer-use"))
}

#[test]
fn health_reports_display_and_atspi_bus() {
    let Some(_d) = desktop("health_reports_display_and_atspi_bus") else {
        return;
    };
    // The model part is tested against a real model server (tests/mcp/test_look.py).
    let out = binary()
        .arg("--health")
        .env("MCP_CU_MODEL", "none")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(json["ok"], true, "{json}");
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<&str> = json["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"display") && names.contains(&"atspi_bus"),
        "{names:?}"
    );
}

#[test]
fn health_without_a_display_fails_with_exit_code_1() {
    let out = binary()
        .arg("--health")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("PATH", "/nonexistent") // no systemctl to recover a session from
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], false, "{json}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn gui_call_without_a_display_is_gui_unavailable() {
    let out = binary()
        .arg("list")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"]["code"], "GUI_UNAVAILABLE", "{json}");
    assert!(json["error"]["suggestion"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn bad_configuration_exits_2_naming_the_variable() {
    let out = binary()
        .arg("--health")
        .env("MCP_CU_NUM_CTX", "lots")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"]["code"], "CONFIG_INVALID");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("MCP_CU_NUM_CTX")),
        "{json}"
    );
}

#[test]
fn typed_text_reaches_no_log_even_at_trace_level() {
    use std::io::Write;
    let sessions = tempfile::tempdir().unwrap();
    let mut child = binary()
        .env("MCP_CU_LOG", "trace")
        .env("MCP_CU_SESSIONS_DIR", sessions.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gui_action","arguments":{"window_id":"x11:0x1","state_id":"s000000000001","actions":[{"type":"type","text":"SECRET-TYPED-TEXT"}]}}}"#,
    ];
    if let Some(stdin) = child.stdin.as_mut() {
        for m in messages {
            let _ = writeln!(stdin, "{m}");
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("\"id\":2"),
        "the call was answered: {stdout}"
    );
    assert!(
        !stderr.contains("SECRET"),
        "typed text in the log: {stderr}"
    );
    let log = std::fs::read_to_string(sessions.path().join("actions.log")).unwrap_or_default();
    assert!(
        log.contains("\"text_len\":17"),
        "the refused call is audited with the text length: {log}"
    );
    assert!(!log.contains("SECRET"));
}
