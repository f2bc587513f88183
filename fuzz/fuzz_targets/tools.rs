//! Every tool's argument decoding and validation, and `gui_action` plans, through the MCP
//! dispatcher over the scripted backend: arbitrary JSON (with a real state and window id mixed
//! in, so plans get past the first check) never panics and never answers INTERNAL.
#![no_main]

use std::sync::Arc;

use arbitrary::Unstructured;
use cu_backend_scripted::Scripted;
use cu_core::config::Config;
use cu_core::model::geometry::Point;
use cu_mcp::server::McpServer;
use cu_mcp::wire::answer_json;
use cu_tools::Service;
use libfuzzer_sys::fuzz_target;

const DIALOG: &str = r#"app: zenity
title: Question
---
dialog "Question" @0,0 400x160
  label "Delete the file?" @10,10 380x20
  text_input "Name" @10,40 200x24
  menu "Format" @220,40 60x24
  button "Cancel" @10,110 90x30 [focused]
  button @110,110 90x30 [default]
    label "_Delete" @120,115 70x20
  button "Next" @210,110 90x30
  list "Files" @300,40 90x60
    list_item "notes.txt" @300,40 90x20
"#;

// gui_open is left out: it starts real programs (its decision table is unit-tested in
// cu_core::policy::launch).
const TOOLS: &[&str] = &[
    "gui_list",
    "gui_state",
    "gui_wait",
    "gui_action",
    "gui_window",
    "gui_clipboard",
    "click",
    "type_text",
    "look_at_screen",
    "ping",
    "health",
    "release_model",
    "gui_internal_desktop",
    "no_such_tool",
];

fn runtime() -> Option<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(tool) = u.choose(TOOLS).map(|t| t.to_string()) else {
        return;
    };
    let Ok(mut args) = cu_fuzz::object(&mut u, 3) else {
        return;
    };
    let (Ok(real_state), Ok(real_window)) = (u.ratio(2, 3), u.ratio(3, 4)) else {
        return;
    };
    let (Some(rt), Ok(dir)) = (runtime(), tempfile::tempdir()) else {
        return;
    };
    let backend = Scripted::new();
    let Ok(window) = backend.open(DIALOG, Point::new(100, 100)) else {
        return;
    };
    let mut config = Config::defaults(&|name| (name == "MCP_CU_MODEL").then(|| "none".to_string()));
    config.sessions_dir = dir.path().to_path_buf();
    // Waits (gui_wait, expect) end within a second.
    config.call_budget_seconds = 1.0;
    let service = Service::new(Arc::new(backend), config)
        .with_effect_wait(std::time::Duration::from_millis(1));
    let server = McpServer::new(Arc::new(service));
    rt.block_on(async {
        if real_window {
            args.insert("window_id".into(), window.0.clone().into());
        }
        if real_state {
            let mut observe = serde_json::Map::new();
            observe.insert("window_id".into(), window.0.clone().into());
            if let Ok(Ok(state)) = server.call("gui_state", observe).await.map(answer_json) {
                if let Some(id) = state.get("state_id") {
                    args.insert("state_id".into(), id.clone());
                }
            }
        }
        let answer =
            tokio::time::timeout(std::time::Duration::from_secs(20), server.call(&tool, args))
                .await;
        let Ok(answer) = answer else {
            panic!("{tool} did not answer within 20 s")
        };
        let error = match answer {
            Ok(result) => answer_json(result).err(),
            Err(e) => Some(e),
        };
        if let Some(e) = error {
            assert!(
                e.code != cu_core::ErrorCode::Internal,
                "{tool}: INTERNAL: {}",
                e.message
            );
        }
    });
});
