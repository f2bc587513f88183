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
    let out = binary()
        .arg("--health")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
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
        .unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
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
        .unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
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
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json["error"]["code"], "CONFIG_INVALID");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("MCP_CU_NUM_CTX")),
        "{json}"
    );
}
