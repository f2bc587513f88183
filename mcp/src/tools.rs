//! The tool table: each tool declared once — its name, description, annotations, request and
//! answer types, and handler — and read by both `tools/list` and the dispatcher.
//!
//! Input and output schemas are derived from the request and answer types (their field docs are
//! the descriptions agents read), so a field cannot be accepted without being described, or
//! answered without being declared, and made lean for the wire (`schema.rs`). Every output
//! schema also admits the error answer ([`cu_core::ErrorAnswer`]): a failed call's body is
//! declared too. `tests/golden/tools_list.json` pins the whole surface as sent and
//! `tests/golden/answers.json` every answer's full shape (a `cargo test` here; the SDK tests in
//! `tests/mcp/test_surface.py` check the listing and its token count), so they change only on
//! purpose.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use cu_core::Error;
use cu_tools::{
    ActionRequest, ActionResult, ClickRequest, ClickResult, ClipboardRequest, ClipboardResult,
    HealthReport, ListResult, LookAnswer, LookRequest, OpenResult, OpenToolRequest, PingResult,
    ReleaseResult, Service, StateRequest, StateResult, TypeRequest, TypeResult, WaitRequest,
    WaitResult, WindowRequest, WindowResult,
};
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

use crate::remote::EveryMachine;
use crate::schema::{answers, answers_either, input};
use crate::wire::{jpeg_block, json_result, parse, NoArgs};

/// A tool call's answer, as the handler produces it.
pub(crate) type Answer<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResult, Error>> + Send + 'a>>;

/// One tool: what `tools/list` shows of it and what runs it.
pub(crate) struct ToolSpec {
    /// The tool's name.
    pub(crate) name: &'static str,
    description: &'static str,
    effect: Impact,
    input: fn() -> Value,
    /// The shapes of its answers (the error answer apart).
    output: fn() -> Vec<Value>,
    /// Decodes the arguments and runs the tool (after routing: always on this machine).
    pub(crate) run: for<'a> fn(&'a Service, Value) -> Answer<'a>,
}

/// What calling a tool may do, as the MCP annotations say it.
#[derive(Clone, Copy)]
enum Impact {
    /// Reads only; calling it twice is calling it once.
    Reads,
    /// Reads, but each call hands out something new (a state id).
    Observes,
    /// Changes the model server's memory, nothing on screen; safe to repeat.
    Frees,
    /// Sends input to a window.
    Acts,
}

impl Impact {
    fn annotations(self) -> ToolAnnotations {
        let (read_only, destructive, idempotent) = match self {
            Impact::Reads => (true, false, true),
            Impact::Observes => (true, false, false),
            Impact::Frees => (false, false, true),
            Impact::Acts => (false, true, false),
        };
        ToolAnnotations::new()
            .read_only(read_only)
            .destructive(destructive)
            .idempotent(idempotent)
            .open_world(false)
    }
}

/// Every tool, in the order `tools/list` shows them.
pub(crate) static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "look_at_screen",
        description: "Ask one short question about a window (\"Is Claude finished?\") and get ~100 tokens of JSON: status (working, finished, waiting, error, unknown; read in code from the app's controls), summary (a local model's answer), confidence, details (project, session, failures, next_step, url… per app), changed_since_last (with client+session_id). Read-only. Ask in English, one thing per call. include_image adds a JPEG of that window only (expensive: use when text is not enough).",
        effect: Impact::Reads,
        input: input::<LookRequest>,
        output: answers::<LookAnswer>,
        run: look_at_screen,
    },
    ToolSpec {
        name: "ping",
        description: "Check the bridge before a task: the model server answers and the model loads (so the next look_at_screen is warm).",
        effect: Impact::Reads,
        input: input::<NoArgs>,
        output: answers::<PingResult>,
        run: ping,
    },
    ToolSpec {
        name: "health",
        description: "Everything at once: the desktop backend, the model server and model, Ollama auto-start, free RAM. ok is true when all work.",
        effect: Impact::Reads,
        input: input::<NoArgs>,
        output: answers::<HealthReport>,
        run: health,
    },
    ToolSpec {
        name: "release_model",
        description: "Unload the local model now to free RAM (call it when your task is done); reports freed_mb.",
        effect: Impact::Frees,
        input: input::<NoArgs>,
        output: answers::<ReleaseResult>,
        run: release_model,
    },
    ToolSpec {
        name: "gui_list",
        description: "List the visible application windows (id, app, title, pid, bounds, focused) and the desktop backend's capabilities. Start here.",
        effect: Impact::Reads,
        input: input::<NoArgs>,
        output: answers_either::<ListResult, EveryMachine>,
        run: gui_list,
    },
    ToolSpec {
        name: "gui_state",
        description: "Observe one window: a state_id (valid once, for 30 s) and a compact outline, one line per element: id (e1…), role, \"name\", =value, key states (points=true adds each element's window-relative centre @x,y, bounds=true its x,y wxh; elements are acted on by id). Interactive and text elements by default; query=\"text\" lists only the elements that mention it, with their containers.",
        effect: Impact::Observes,
        input: input::<StateRequest>,
        output: answers::<StateResult>,
        run: gui_state,
    },
    ToolSpec {
        name: "gui_wait",
        description: "Wait for a condition instead of polling gui_state: an element appears, disappears, becomes enabled/checked/focused, its value is or contains a text (element by name, role, or element_id with state_id); a window with a title appears or the window closes; the window is stable for quiet_ms. Timeout default 10 s. Answers outcome satisfied | unsatisfied (with what was seen last) | unknown (could not observe: not a success), a new state_id and the outline lines that changed (+ added, ~ changed, - removed; ids kept).",
        effect: Impact::Observes,
        input: input::<WaitRequest>,
        output: answers::<WaitResult>,
        run: gui_wait,
    },
    ToolSpec {
        name: "gui_action",
        description: "Act on the window observed by state_id (used once; a call refused or failed before any input leaves it usable): steps by element_id (preferred, semantic) or window-relative x/y. Stops at the first failing step. Dangerous labels need confirm_dangerous=true after the user agrees.",
        effect: Impact::Acts,
        input: input::<ActionRequest>,
        output: answers::<ActionResult>,
        run: gui_action,
    },
    ToolSpec {
        name: "gui_window",
        description: "Change a window from gui_list: op focus, move (x, y: screen point of its top-left corner), resize (width, height), minimize, maximize, restore, close, quit (close every window of its app). Read back from the window list: outcome done, not_seen, or dialog (a close that opened \"Save changes?\" instead: answer it). Not on Wayland for move/resize/minimize.",
        effect: Impact::Acts,
        input: input::<WindowRequest>,
        output: answers::<WindowResult>,
        run: gui_window,
    },
    ToolSpec {
        name: "gui_open",
        description: "Start a desktop application (program name as its menu entry runs it, e.g. \"gnome-calculator\"), open a document path or an http(s)/mailto link, and wait for its window: answers window_id and the app name to pass to click/type_text. Shells, terminals and interpreters are refused (PROGRAM_NOT_ALLOWED) unless the user lists them in apps.allow.",
        effect: Impact::Acts,
        input: input::<OpenToolRequest>,
        output: answers::<OpenResult>,
        run: gui_open,
    },
    ToolSpec {
        name: "gui_clipboard",
        description: "Put text on the clipboard (op write), then paste it with gui_action key ctrl+v: the reliable way to enter text a keyboard layout cannot type. op read answers the clipboard's text only when the user turned on clipboard.read (NOT_ALLOWED otherwise: clipboards hold passwords). Never logged.",
        effect: Impact::Acts,
        input: input::<ClipboardRequest>,
        output: answers::<ClipboardResult>,
        run: gui_clipboard,
    },
    ToolSpec {
        name: "click",
        description: "Click an element of an app's window by its visible label, in any language (\"7\", \"Search\", \"שלח\"), or a known sequence with steps (1-10 labels, a fresh observation each, stops at the first failure). Matching: exact, normalized, synonyms (\"seven\", \"×\"/\"*\", \"שבע\") and ids; role phrases (\"button 7\", \"field Search\") narrow the role; weak matches act on nothing and return candidates (TARGET_AMBIGUOUS), unless the local model picks one (how: \"model\"), which still passes the safety gate. Pass visible labels, never @eN refs. Dangerous labels (Delete, Send, מחק…) need confirm_dangerous=true, only after the user explicitly agreed.",
        effect: Impact::Acts,
        input: input::<ClickRequest>,
        output: answers::<ClickResult>,
        run: click,
    },
    ToolSpec {
        name: "type_text",
        description: "Replace the content of an editable field (text field, text area, combo box, document) found by its label, or by a role word (\"text field\", \"textarea\", \"שדה\") when the window has one such field. Never presses Enter, never types into another window; the field is read back. Text up to max_type_chars (default 2000).",
        effect: Impact::Acts,
        input: input::<TypeRequest>,
        output: answers::<TypeResult>,
        run: type_text,
    },
];

/// The listed tool called `name`.
pub(crate) fn find(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Whether a call of `tool` may be sent again after a broken connection: only a tool that does
/// not act (the table's `Impact`). An acting tool may have acted before the connection broke (an
/// app started twice, a second click), and an unknown name is taken to act.
pub fn may_retry(tool: &str) -> bool {
    find(tool).is_some_and(|t| !matches!(t.effect, Impact::Acts))
}

/// Every tool as `tools/list` shows it, each with the optional `machine` every tool takes.
pub fn definitions() -> Vec<Tool> {
    TOOLS.iter().map(ToolSpec::definition).collect()
}

impl ToolSpec {
    fn definition(&self) -> Tool {
        let mut input = (self.input)();
        let all = if self.name == "gui_list" {
            " \"*\" lists every machine's windows at once."
        } else {
            ""
        };
        if let Value::Object(root) = &mut input {
            if let Value::Object(properties) = root.entry("properties").or_insert(json!({})) {
                properties.insert(
                    "machine".into(),
                    json!({ "type": "string", "description": format!("A configured remote machine (default: this one); the ids it answers route there.{all}") }),
                );
            }
        }
        let mut output = crate::schema::lean_output(&(self.output)());
        if crate::untrusted::carries_window_text(self.name) {
            if let Value::Object(root) = &mut output {
                root.insert(
                    "properties".into(),
                    json!({ "untrusted": crate::schema::declared(&crate::untrusted::schema(), 0) }),
                );
            }
        }
        Tool::new(self.name, self.description, object(input))
            .with_raw_output_schema(object(output))
            .with_annotations(self.effect.annotations())
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn look_at_screen(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: LookRequest = parse(args)?;
        let outcome = service.look_at_screen(&request).await?;
        let mut result = json_result(&outcome.body);
        if outcome.failed() {
            result.is_error = Some(true);
        }
        if let Some(jpeg) = &outcome.jpeg {
            result.content.push(jpeg_block(jpeg));
        }
        Ok(result)
    })
}

fn ping(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let _: NoArgs = parse(args)?;
        let started = std::time::Instant::now();
        Ok(json_result(&service.model().ping(started).await?))
    })
}

fn health(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let _: NoArgs = parse(args)?;
        Ok(json_result(&service.health().await))
    })
}

fn release_model(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let _: NoArgs = parse(args)?;
        Ok(json_result(&service.model().release().await?))
    })
}

fn gui_list(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let _: NoArgs = parse(args)?;
        Ok(json_result(&service.gui_list().await?))
    })
}

fn gui_state(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: StateRequest = parse(args)?;
        let mut result = service.gui_state(&request).await?;
        let jpeg = result.jpeg.take();
        let mut answer = json_result(&result);
        if let Some(jpeg) = jpeg {
            answer.content.push(jpeg_block(&jpeg));
        }
        Ok(answer)
    })
}

fn gui_wait(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: WaitRequest = parse(args)?;
        Ok(json_result(&service.gui_wait(&request).await?))
    })
}

fn gui_action(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: ActionRequest = parse(args)?;
        Ok(json_result(&service.gui_action(&request).await?))
    })
}

fn gui_window(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: WindowRequest = parse(args)?;
        Ok(json_result(&service.gui_window(&request).await?))
    })
}

fn gui_open(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: OpenToolRequest = parse(args)?;
        let opened = service.gui_open(&request).await?;
        let mut result = json_result(&opened);
        if !opened.ok {
            result.is_error = Some(true);
        }
        Ok(result)
    })
}

fn gui_clipboard(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: ClipboardRequest = parse(args)?;
        Ok(json_result(&service.gui_clipboard(&request).await?))
    })
}

fn click(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: ClickRequest = parse(args)?;
        Ok(json_result(&service.click(&request).await?))
    })
}

fn type_text(service: &Service, args: Value) -> Answer<'_> {
    Box::pin(async move {
        let request: TypeRequest = parse(args)?;
        Ok(json_result(&service.type_text(&request).await?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: &str = include_str!("../../tests/golden/tools_list.json");
    const ANSWERS: &str = include_str!("../../tests/golden/answers.json");

    /// The listing as the golden file holds it: sorted by name, the fields a client relies on.
    fn listing() -> Value {
        let mut tools: Vec<Value> = definitions()
            .iter()
            .map(|tool| {
                let full = serde_json::to_value(tool).unwrap();
                let mut kept = serde_json::Map::new();
                for key in [
                    "name",
                    "description",
                    "inputSchema",
                    "outputSchema",
                    "annotations",
                ] {
                    if let Some(v) = full.get(key) {
                        kept.insert(key.into(), v.clone());
                    }
                }
                Value::Object(kept)
            })
            .collect();
        tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        Value::Array(tools)
    }

    /// Every tool's answers in full, by tool name.
    fn answers_in_full() -> Value {
        TOOLS
            .iter()
            .map(|t| {
                let mut full = crate::schema::full_output((t.output)());
                if crate::untrusted::carries_window_text(t.name) {
                    full["properties"] = json!({ "untrusted": crate::untrusted::schema() });
                }
                (t.name.to_owned(), full)
            })
            .collect::<serde_json::Map<String, Value>>()
            .into()
    }

    /// Compares `now` with the golden file `name` holds (`text`), or rewrites the file with
    /// UPDATE_GOLDEN=1.
    fn golden(name: &str, text: &str, now: Value) {
        if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
            let path = format!("{}/../tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
            let text = serde_json::to_string_pretty(&now).unwrap();
            std::fs::write(path, text + "\n").unwrap();
            return;
        }
        let golden: Value = serde_json::from_str(text).unwrap();
        assert!(
            now == golden,
            "{name} changed: review it, then run with UPDATE_GOLDEN=1"
        );
    }

    #[test]
    fn the_tool_list_matches_the_golden_file() {
        golden("tools_list.json", GOLDEN, listing());
    }

    #[test]
    fn the_answers_match_their_golden_file() {
        golden("answers.json", ANSWERS, answers_in_full());
    }

    /// Issue 39: the controller's never-retry list named 3 acting tools of 6, so gui_open,
    /// gui_window and gui_clipboard were sent again after a broken connection.
    #[test]
    fn regression_no_acting_tool_is_retried() {
        let acting: Vec<&str> = TOOLS
            .iter()
            .filter(|t| {
                let a = t.effect.annotations();
                a.destructive_hint == Some(true)
                    || a.read_only_hint != Some(true) && a.idempotent_hint != Some(true)
            })
            .map(|t| t.name)
            .collect();
        for tool in [
            "gui_action",
            "click",
            "type_text",
            "gui_open",
            "gui_window",
            "gui_clipboard",
        ] {
            assert!(acting.contains(&tool), "{tool} acts");
            assert!(!may_retry(tool), "{tool} would be retried");
        }
        for tool in acting {
            assert!(!may_retry(tool), "{tool}");
        }
        assert!(may_retry("gui_state") && may_retry("gui_list") && !may_retry("no_such_tool"));
    }

    #[test]
    fn every_tool_has_an_object_input_and_an_output_that_admits_errors() {
        for tool in TOOLS {
            let input = (tool.input)();
            assert_eq!(input["type"], "object", "{}", tool.name);
            assert_eq!(input["additionalProperties"], false, "{}", tool.name);
            let output = crate::schema::lean_output(&(tool.output)());
            assert_eq!(output["type"], "object", "{}", tool.name);
            let shapes = output["anyOf"].as_array().unwrap();
            assert!(
                shapes.iter().any(|s| s["required"] == json!(["error"])),
                "{}: no error shape",
                tool.name
            );
        }
    }

    #[test]
    fn tool_names_are_unique_and_found() {
        for tool in TOOLS {
            assert!(std::ptr::eq(find(tool.name).unwrap(), tool));
        }
        assert!(find("_desktop").is_none());
    }

    /// An input schema never says `null` (an optional field is left out) nor carries `$ref`s.
    #[test]
    fn input_schemas_are_plain() {
        for tool in TOOLS {
            let text = (tool.input)().to_string();
            assert!(!text.contains("\"null\""), "{}: {text}", tool.name);
            assert!(!text.contains("$ref"), "{}: {text}", tool.name);
        }
    }
}
