//! The MCP surface: [`McpServer`] answers `initialize`, `tools/list` and `tools/call` by calling
//! the [`Service`] functions; errors become tool errors carrying `{code, message, retryable,
//! suggestion}`, and screenshots travel as native image content.

use std::sync::Arc;

use base64::Engine as _;
use cu_core::Error;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;

use crate::remote::{Remote, Route};
use crate::service::{
    ActionRequest, ClickRequest, DesktopAnswer, DesktopRequest, LookRequest, Service, StateRequest,
    TypeRequest,
};

/// The instructions sent on `initialize`; the same text is `docs/AGENTS_SNIPPET.md`.
pub const INSTRUCTIONS: &str = include_str!("../../docs/AGENTS_SNIPPET.md");

/// The MCP server over one [`Service`], optionally forwarding calls to other machines.
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
    remote: Option<Arc<dyn Remote>>,
    internal: bool,
}

/// The internal call of the Desktop page (never listed, only answered by a worker).
pub const INTERNAL_DESKTOP_CALL: &str = "_desktop";

impl McpServer {
    /// A server over `service`, for this machine only.
    pub fn new(service: Arc<Service>) -> McpServer {
        McpServer {
            service,
            remote: None,
            internal: false,
        }
    }

    /// Forwards calls that name another machine (or carry its ids) through `remote`.
    #[must_use]
    pub fn with_remote(mut self, remote: Arc<dyn Remote>) -> McpServer {
        self.remote = Some(remote);
        self
    }

    /// Also answers the unlisted internal call of the Desktop page (a worker's listener).
    #[must_use]
    pub fn with_internal_calls(mut self) -> McpServer {
        self.internal = true;
        self
    }

    /// The service this server answers with.
    pub fn service(&self) -> &Arc<Service> {
        &self.service
    }

    /// Runs one tool call, routed to its machine.
    pub async fn call(&self, name: &str, mut args: JsonObject) -> Result<CallToolResult, Error> {
        let machines = self
            .remote
            .as_ref()
            .map(|r| r.machines())
            .unwrap_or_default();
        match crate::remote::route(&mut args, &machines)? {
            Route::Local => self.dispatch(name, serde_json::Value::Object(args)).await,
            Route::Machine(machine) => self.forward(&machine, name, args).await,
            Route::All if name == "gui_list" => self.list_everywhere(&machines).await,
            Route::All => Err(Error::new(
                cu_core::ErrorCode::InvalidArgument,
                "machine \"all\" is only for gui_list",
            )),
        }
    }

    /// [`McpServer::call`] as a tool result: an error becomes an error result, and a panic
    /// inside the call answers that call with `INTERNAL` at once; the server and the next call
    /// go on (the first round's `look_at_screen` never answered after one).
    pub async fn call_answering_panics(&self, name: &str, args: JsonObject) -> CallToolResult {
        let call = std::panic::AssertUnwindSafe(self.call(name, args));
        match futures_util::FutureExt::catch_unwind(call).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => error_result(&e),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!(tool = %name, "tool call panicked: {what}");
                error_result(
                    &Error::new(
                        cu_core::ErrorCode::Internal,
                        format!("{name} failed inside mcp-computer-use (a bug): {what}"),
                    )
                    .with_suggestion("Try again; if it repeats, report it with the server's log."),
                )
            }
        }
    }

    async fn forward(
        &self,
        machine: &str,
        name: &str,
        args: JsonObject,
    ) -> Result<CallToolResult, Error> {
        let Some(remote) = &self.remote else {
            return Err(Error::new(
                cu_core::ErrorCode::InvalidArgument,
                "no machines are configured",
            ));
        };
        if name == INTERNAL_DESKTOP_CALL {
            return Err(unknown_tool(name));
        }
        let outcome = remote.call(machine, name, args).await;
        let failure = match &outcome {
            Err(e) => Some(e.clone()),
            Ok(r) if r.is_error == Some(true) => {
                r.structured_content.as_ref().and_then(Error::from_json)
            }
            Ok(_) => None,
        };
        self.service.audit_forward(machine, name, failure.as_ref());
        let mut result = outcome?;
        // The worker may speak an older protocol revision; our client speaks the current one.
        result.result_type = Some(rmcp::model::ResultType::COMPLETE);
        if let Some(value) = result.structured_content.as_mut() {
            crate::remote::qualify(value, machine);
            let text = value.to_string();
            for block in result.content.iter_mut() {
                if let ContentBlock::Text(t) = block {
                    t.text = text.clone();
                }
            }
        }
        Ok(result)
    }

    /// `gui_list` of this machine and every configured one; a machine that fails says why.
    async fn list_everywhere(&self, machines: &[String]) -> Result<CallToolResult, Error> {
        let local = self.service.gui_list().await;
        let remote = join_all(machines.iter().map(|m| async move {
            (
                m.clone(),
                self.forward(m, "gui_list", JsonObject::new()).await,
            )
        }))
        .await;
        let mut all = vec![match local {
            Ok(list) => serde_json::json!({ "machine": "local", "windows": list.windows }),
            Err(e) => serde_json::json!({ "machine": "local", "error": e.to_json()["error"] }),
        }];
        for (machine, answer) in remote {
            all.push(match answer {
                Ok(r) if r.is_error != Some(true) => {
                    let windows = r.structured_content.as_ref().map(|v| v["windows"].clone());
                    serde_json::json!({ "machine": machine, "windows": windows })
                }
                Ok(r) => serde_json::json!({ "machine": machine, "error": r.structured_content.map(|v| v["error"].clone()) }),
                Err(e) => serde_json::json!({ "machine": machine, "error": e.to_json()["error"] }),
            });
        }
        Ok(json_result(&serde_json::json!({ "machines": all })))
    }

    async fn dispatch(&self, name: &str, args: serde_json::Value) -> Result<CallToolResult, Error> {
        let _running = self.service.begin_call();
        match name {
            "gui_list" => {
                let _: NoArgs = parse(args)?;
                Ok(json_result(&self.service.gui_list().await?))
            }
            "gui_state" => {
                let request: StateRequest = parse(args)?;
                let mut result = self.service.gui_state(&request).await?;
                let jpeg = result.jpeg.take();
                let mut answer = json_result(&result);
                if let Some(jpeg) = jpeg {
                    answer.content.push(jpeg_block(&jpeg));
                }
                Ok(answer)
            }
            "gui_action" => {
                let request: ActionRequest = parse(args)?;
                Ok(json_result(&self.service.gui_action(&request).await?))
            }
            "click" => {
                let request: ClickRequest = parse(args)?;
                Ok(json_result(&self.service.click(&request).await?))
            }
            "type_text" => {
                let request: TypeRequest = parse(args)?;
                Ok(json_result(&self.service.type_text(&request).await?))
            }
            "look_at_screen" => {
                let request: LookRequest = parse(args)?;
                let outcome = self.service.look_at_screen(&request).await?;
                let mut result = json_result(&outcome.body);
                if outcome.failed {
                    result.is_error = Some(true);
                }
                if let Some(jpeg) = &outcome.jpeg {
                    result.content.push(jpeg_block(jpeg));
                }
                Ok(result)
            }
            "ping" => {
                let _: NoArgs = parse(args)?;
                let started = std::time::Instant::now();
                Ok(json_result(&self.service.model().ping(started).await?))
            }
            "health" => {
                let _: NoArgs = parse(args)?;
                Ok(json_result(&self.service.health().await))
            }
            "release_model" => {
                let _: NoArgs = parse(args)?;
                Ok(json_result(&self.service.model().release().await?))
            }
            INTERNAL_DESKTOP_CALL if self.internal => {
                let request: DesktopRequest = parse(args)?;
                let answer = self.service.desktop(&request).await?;
                let mut result = json_result(&answer);
                if let DesktopAnswer::Capture { jpeg, .. } | DesktopAnswer::Crop { jpeg } = &answer
                {
                    result.content.push(jpeg_block(jpeg));
                }
                Ok(result)
            }
            other => Err(unknown_tool(other)),
        }
    }
}

/// A tool result as one JSON value for command-line use: the structured answer, with the sizes
/// of any images as `jpeg_bytes`; a tool error becomes the `Err`.
pub fn answer_json(result: CallToolResult) -> Result<serde_json::Value, Error> {
    let images: Vec<usize> = result
        .content
        .iter()
        .filter_map(|c| c.as_image().map(|i| i.data.len() * 3 / 4))
        .collect();
    let mut value = result.structured_content.unwrap_or_default();
    if result.is_error == Some(true) {
        return Err(Error::from_json(&value).unwrap_or_else(|| {
            Error::new(
                cu_core::ErrorCode::Internal,
                "an error answer without a body",
            )
        }));
    }
    if let (Some(map), false) = (value.as_object_mut(), images.is_empty()) {
        map.insert("jpeg_bytes".into(), serde_json::json!(images));
    }
    Ok(value)
}

fn unknown_tool(name: &str) -> Error {
    Error::new(
        cu_core::ErrorCode::InvalidArgument,
        format!("unknown tool {name:?}"),
    )
    .with_suggestion("Call tools/list for the tools this server offers.")
}

fn jpeg_block(jpeg: &[u8]) -> ContentBlock {
    ContentBlock::image(
        base64::engine::general_purpose::STANDARD.encode(jpeg),
        "image/jpeg",
    )
}

/// Runs the futures concurrently (one machine's slow answer does not wait for another's) and
/// returns their outputs in order.
async fn join_all<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    use std::task::Poll;
    let mut pending: Vec<std::pin::Pin<Box<F>>> = futures.map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (future, slot) in pending.iter_mut().zip(done.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    done.into_iter().flatten().collect()
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

fn parse<T: DeserializeOwned>(args: serde_json::Value) -> Result<T, Error> {
    serde_json::from_value(args).map_err(|e| {
        Error::new(
            cu_core::ErrorCode::InvalidArgument,
            format!("bad arguments: {e}"),
        )
        .with_suggestion("Pass the arguments the tool's input schema describes.")
    })
}

/// A compact JSON text block plus the same value as structured content.
fn json_result<T: serde::Serialize>(value: &T) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}

fn error_result(e: &Error) -> CallToolResult {
    let value = e.to_json();
    let mut result = CallToolResult::error(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> InitializeResult {
        let mut info = Implementation::from_build_env();
        info.name = "mcp-computer-use".into();
        info.version = env!("CARGO_PKG_VERSION").into();
        let mut result =
            InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
                .with_instructions(INSTRUCTIONS);
        result.server_info = info;
        result
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(crate::tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = self.call_answering_panics(&request.name, args).await;
        Ok(result.into())
    }
}

/// Serves MCP over stdin/stdout until the client closes the stream.
pub async fn serve_stdio(server: McpServer) -> Result<(), Error> {
    use rmcp::ServiceExt as _;
    let internal = |what: &str, e: &dyn std::fmt::Display| {
        Error::new(cu_core::ErrorCode::Internal, format!("{what}: {e}"))
    };
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| internal("MCP initialization over stdio failed", &e))?;
    running
        .waiting()
        .await
        .map_err(|e| internal("MCP stdio session ended with an error", &e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use cu_backend_scripted::{Call, Scripted};
    use cu_core::config::Config;
    use cu_core::geometry::Point;

    use super::*;

    /// The first round's bug: a panic inside `look_at_screen` left the call unanswered.
    #[tokio::test]
    async fn a_panic_inside_a_tool_call_answers_internal_and_the_next_call_works() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let backend = Scripted::new();
        let window = backend
            .open(
                "app: a\ntitle: A\n---\nwindow \"A\" @0,0 100x100\n  button \"OK\" @10,10 40x20\n",
                Point::new(0, 0),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let mut config = Config::defaults(&|_| None);
        config.sessions_dir = dir.path().to_path_buf();
        let server = McpServer::new(Arc::new(Service::new(Arc::new(backend.clone()), config)));
        let mut args = JsonObject::new();
        args.insert("window_id".into(), window.0.clone().into());
        backend.panic_next(Call::Snapshot);
        let answer = server
            .call_answering_panics("gui_state", args.clone())
            .await;
        assert_eq!(answer.is_error, Some(true));
        let error = answer_json(answer).err().map(|e| e.code);
        assert_eq!(error, Some(cu_core::ErrorCode::Internal));
        let next = server.call_answering_panics("gui_state", args).await;
        assert!(answer_json(next).is_ok(), "the next call works");
    }
}
