//! The MCP tool definitions: names, descriptions, JSON Schemas and annotations, in one place.
//! `tests/golden/tools_list.json` pins them, so the surface changes only on purpose.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::json;

fn schema(value: serde_json::Value) -> Arc<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Every tool this server offers, each with the optional `machine` every tool takes.
pub fn definitions() -> Vec<Tool> {
    let mut tools = local_definitions();
    for tool in &mut tools {
        let mut schema = (*tool.input_schema).clone();
        if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
            let all = if tool.name == "gui_list" {
                " \"all\" lists every machine's windows."
            } else {
                ""
            };
            properties.insert(
                "machine".into(),
                json!({ "type": "string", "description": format!("A configured remote machine (default: this one). Ids it returns carry its name (lab1/…) and route there by themselves.{all}") }),
            );
        }
        tool.input_schema = Arc::new(schema);
    }
    tools
}

fn local_definitions() -> Vec<Tool> {
    let no_args =
        || schema(json!({ "type": "object", "properties": {}, "additionalProperties": false }));
    vec![
        Tool::new(
            "look_at_screen",
            "Ask one short question about a window (\"Is Claude finished?\") and get ~100 tokens of JSON: status (working, finished, waiting, error, unknown; read in code from the app's controls), summary (a local model's answer), confidence, details (project, session, failures, next_step, url… per app), changed_since_last (with client+session_id). Read-only. Ask in English, one thing per call. include_image adds a JPEG of that window only (expensive: use when text is not enough).",
            schema(json!({
                "type": "object",
                "properties": {
                    "question": { "type": "string", "minLength": 1, "maxLength": 300, "description": "One short question, in English." },
                    "app": { "type": "string", "minLength": 1, "description": "Application name or window title (\"Claude\", \"Calculator\"), or a window id from gui_list. Default: the focused window." },
                    "client": { "type": "string", "description": "Your agent's name (codex, claude…), with session_id; A-Z a-z 0-9 _ -, at most 64." },
                    "session_id": { "type": "string", "description": "Your task's id (A-Z a-z 0-9 _ -, at most 64): enables changed_since_last and cached answers on an unchanged screen. A new id replaces your client's old session." },
                    "include_image": { "type": "boolean", "description": "Also return a JPEG of the window (max 1024 px wide)." },
                    "keep_warm": { "type": "boolean", "description": "Keep the model loaded 10 minutes (more looks coming)." }
                },
                "required": ["question"],
                "additionalProperties": false
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "ping",
            "Check the bridge before a task: the model server answers and the model loads (so the next look_at_screen is warm).",
            no_args(),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "health",
            "Everything at once: the desktop backend, the model server and model, Ollama auto-start, free RAM. ok is true when all work.",
            no_args(),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "release_model",
            "Unload the local model now to free RAM (call it when your task is done); reports freed_mb.",
            no_args(),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "gui_list",
            "List the visible application windows (id, app, title, pid, bounds, focused) and the desktop backend's capabilities. Start here.",
            schema(json!({ "type": "object", "properties": {}, "additionalProperties": false })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "gui_state",
            "Observe one window: a state_id (valid once, for 30 s) and a compact outline, one line per element: id (e1…), role, \"name\", =value, @x,y (window-relative centre; bounds=true gives x,y wxh), key states. Interactive and text elements by default.",
            schema(json!({
                "type": "object",
                "properties": {
                    "window_id": { "type": "string", "description": "From gui_list." },
                    "all": { "type": "boolean", "description": "List every element, not only interactive and text ones." },
                    "max_depth": { "type": "integer", "minimum": 0, "description": "Do not descend below this depth." },
                    "subtree": { "type": "string", "description": "Observe only this element (an id from state_id)." },
                    "state_id": { "type": "string", "description": "The observation subtree refers to (not used up)." },
                    "max_elements": { "type": "integer", "minimum": 1, "maximum": 5000, "description": "List at most this many elements (default 300)." },
                    "screenshot": { "type": "boolean", "description": "Attach a JPEG of the window (same window-relative space; see image.scale)." },
                    "bounds": { "type": "boolean", "description": "Full bounds x,y wxh per element instead of the click point @x,y." }
                },
                "required": ["window_id"],
                "additionalProperties": false
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false).idempotent(false).open_world(false)),
        Tool::new(
            "gui_action",
            "Act on the window observed by state_id (used once): steps by element_id (preferred, semantic) or window-relative x/y. Stops at the first failing step. Dangerous labels need confirm_dangerous=true after the user agrees.",
            schema(json!({
                "type": "object",
                "properties": {
                    "window_id": { "type": "string" },
                    "state_id": { "type": "string" },
                    "confirm_dangerous": { "type": "boolean", "description": "Only after the user explicitly approved." },
                    "actions": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 50,
                        "items": {
                            "type": "object",
                            "properties": {
                                "type": { "type": "string", "enum": ["click", "double_click", "right_click", "move", "scroll", "drag", "type", "key", "set_value", "focus", "wait"] },
                                "element_id": { "type": "string" },
                                "x": { "type": "integer" },
                                "y": { "type": "integer" },
                                "to_element_id": { "type": "string" },
                                "to_x": { "type": "integer" },
                                "to_y": { "type": "integer" },
                                "text": { "type": "string", "description": "type: the text; set_value: the new value." },
                                "keys": { "type": "string", "description": "key: e.g. ctrl+s, Return, alt+F4." },
                                "dx": { "type": "integer" },
                                "dy": { "type": "integer" },
                                "ms": { "type": "integer", "minimum": 0, "maximum": 10000 }
                            },
                            "required": ["type"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["window_id", "state_id", "actions"],
                "additionalProperties": false
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(false)),
        Tool::new(
            "click",
            "Click an element of an app's window by its visible label, in any language (\"7\", \"Search\", \"שלח\"), or a known sequence with steps (1-10 labels, a fresh observation each, stops at the first failure). Matching: exact, normalized, synonyms (\"seven\", \"×\"/\"*\", \"שבע\") and ids; role phrases (\"button 7\", \"field Search\") narrow the role; weak matches act on nothing and return candidates (TARGET_AMBIGUOUS), unless the local model picks one (how: \"model\"), which still passes the safety gate. Pass visible labels, never @eN refs. Dangerous labels (Delete, Send, מחק…) need confirm_dangerous=true, only after the user explicitly agreed.",
            schema(json!({
                "type": "object",
                "properties": {
                    "app": { "type": "string", "minLength": 1, "description": "Application name or window title (\"Calculator\", \"מחשבון\"), or a window id from gui_list." },
                    "target": { "type": "string", "minLength": 1, "maxLength": 200, "description": "The visible label to click." },
                    "steps": { "type": "array", "minItems": 1, "maxItems": 10, "items": { "type": "string", "minLength": 1, "maxLength": 200 }, "description": "Labels to click in order, instead of target (e.g. [\"7\", \"+\", \"5\", \"=\"])." },
                    "confirm_dangerous": { "type": "boolean", "description": "Only after the user explicitly approved." }
                },
                "required": ["app"],
                "additionalProperties": false
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(false)),
        Tool::new(
            "type_text",
            "Replace the content of an editable field (text field, text area, combo box, document) found by its label, or by a role word (\"text field\", \"textarea\", \"שדה\") when the window has one such field. Never presses Enter, never types into another window; the field is read back. Text up to max_type_chars (default 2000).",
            schema(json!({
                "type": "object",
                "properties": {
                    "app": { "type": "string", "minLength": 1, "description": "Application name or window title, or a window id from gui_list." },
                    "target": { "type": "string", "minLength": 1, "maxLength": 200, "description": "The field's label, or a role word when it is the only field of that kind." },
                    "text": { "type": "string", "description": "The new content." },
                    "confirm_dangerous": { "type": "boolean", "description": "Only after the user explicitly approved." }
                },
                "required": ["app", "target", "text"],
                "additionalProperties": false
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(false)),
    ]
}
