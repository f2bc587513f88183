//! The MCP surface: [`McpServer`] answers `initialize`, `tools/list` and `tools/call` by calling
//! the [`Service`] functions; errors become tool errors carrying `{code, message, retryable,
//! suggestion}`, and screenshots travel as native image content.

use std::sync::Arc;

use cu_core::Error;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::remote::{EveryMachine, ListedWindows, MachineWindows, Remote, Route};
use crate::wire::{error_result, jpeg_block, json_result, parse};
use cu_tools::{DesktopAnswer, DesktopRequest, Service};

/// The instructions sent on `initialize`; the same text is `docs/AGENTS_SNIPPET.md`.
pub const INSTRUCTIONS: &str = include_str!("../../docs/AGENTS_SNIPPET.md");

/// How long `gui_list` with `machine: "*"` waits for the slowest machine: the listing answers
/// with the machines that did answer, and names the others.
pub const FAN_OUT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// The MCP server over one [`Service`], optionally forwarding calls to other machines.
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
    remote: Option<Arc<dyn Remote>>,
    internal: Option<DesktopAccess>,
}

/// Who may send the Desktop page's internal requests that change something on this machine (a
/// decision on an approval, input, bringing a window forward). The tool token is not enough:
/// whoever holds it can call every tool, so it must not also be able to approve what the gate
/// held back, or send input the gate never judges.
#[derive(Clone)]
pub enum DesktopAccess {
    /// The page of this very process (`desktop-call local`): nothing to check.
    InProcess,
    /// A worker: such requests carry this credential (`credential`), the worker's own.
    Credential(Arc<str>),
    /// A worker started without a desktop credential: read-only requests only.
    ReadOnly,
}

use crate::wire::INTERNAL_DESKTOP_CALL;

impl McpServer {
    /// A server over `service`, for this machine only.
    pub fn new(service: Arc<Service>) -> McpServer {
        McpServer {
            service,
            remote: None,
            internal: None,
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
    pub fn with_internal_calls(mut self, access: DesktopAccess) -> McpServer {
        self.internal = Some(access);
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
            Route::All if name == "gui_list" => {
                let present = self
                    .remote
                    .as_ref()
                    .map(|r| r.present())
                    .unwrap_or_default();
                self.list_everywhere(&present).await
            }
            Route::All => Err(Error::new(
                cu_core::ErrorCode::InvalidArgument,
                "machine \"*\" is only for gui_list",
            )
            .with_suggestion("Name one machine, from gui_list with machine \"*\".")),
        }
    }

    /// [`McpServer::call`] as a tool result: an error becomes an error result, and a panic
    /// inside the call answers that call with `INTERNAL` at once; the server and the next call
    /// go on (the first round's `look_at_screen` never answered after one). The window text in
    /// the answer is marked ([`crate::untrusted`]).
    pub async fn call_answering_panics(&self, name: &str, args: JsonObject) -> CallToolResult {
        let call = std::panic::AssertUnwindSafe(self.call(name, args));
        let mut result = match futures_util::FutureExt::catch_unwind(call).await {
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
                    // The same call on the same window meets the same bug: retrying does not help.
                    .with_retryable(false)
                    .with_suggestion("Do not repeat the same call: it will fail the same way. Report it with the server's log; use another tool or window meanwhile."),
                )
            }
        };
        // Window text is data: named and fenced once, here, whatever machine answered.
        crate::untrusted::mark(name, &mut result);
        result
    }

    async fn forward(
        &self,
        machine: &str,
        name: &str,
        mut args: JsonObject,
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
        args.remove(cu_tools::TIGHTENING_ARGUMENT);
        if !crate::tools::may_retry(name) {
            // This controller's extra words and approvals hold on the machine that acts, on top
            // of its own (they only tighten).
            if let Some(t) = cu_tools::Tightening::of(self.service.config()) {
                let value = serde_json::to_value(t).unwrap_or_default();
                args.insert(cu_tools::TIGHTENING_ARGUMENT.into(), value);
            }
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

    /// `gui_list` of this machine and every other one at once, all within [`FAN_OUT_DEADLINE`];
    /// a machine that fails or does not answer in time says why, and is named in `unanswered`.
    async fn list_everywhere(&self, machines: &[String]) -> Result<CallToolResult, Error> {
        let started = std::time::Instant::now();
        let late = |machine: &str| {
            Error::new(
                cu_core::ErrorCode::MachineUnreachable,
                format!(
                    "machine {machine} did not answer within {} s",
                    FAN_OUT_DEADLINE.as_secs()
                ),
            )
        };
        let local = async {
            tokio::time::timeout(FAN_OUT_DEADLINE, self.service.gui_list())
                .await
                .unwrap_or_else(|_| Err(late("local")))
        };
        let remote = join_all(machines.iter().map(|m| async move {
            let answer = tokio::time::timeout(
                FAN_OUT_DEADLINE,
                self.forward(m, "gui_list", JsonObject::new()),
            )
            .await
            .unwrap_or_else(|_| Err(late(m)));
            (m.clone(), answer)
        }));
        let (local, remote) = tokio::join!(local, remote);
        let mut listed = vec![MachineWindows::new(
            "local".into(),
            local.map(|list| list.windows),
        )];
        for (machine, answer) in remote {
            let windows = answer.and_then(crate::wire::answer_json).and_then(|value| {
                serde_json::from_value::<ListedWindows>(value)
                    .map(|listed| listed.windows)
                    .map_err(|e| {
                        Error::new(
                            cu_core::ErrorCode::Internal,
                            format!(
                                "machine {machine} answered gui_list with an unknown shape: {e}"
                            ),
                        )
                    })
            });
            listed.push(MachineWindows::new(machine, windows));
        }
        let unanswered = listed
            .iter()
            .skip(1)
            .filter(|m| m.windows.is_none())
            .map(|m| m.machine.clone())
            .collect();
        Ok(json_result(&EveryMachine {
            machines: listed,
            unanswered,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }))
    }

    async fn dispatch(
        &self,
        name: &str,
        mut args: serde_json::Value,
    ) -> Result<CallToolResult, Error> {
        let _running = self.service.begin_call();
        if let Some(tool) = crate::tools::find(name) {
            // A controller's own safety settings, sent with the call it forwarded here.
            let (args, tightening) = take_tightening(args)?;
            return self
                .service
                .tightened(tightening, (tool.run)(&self.service, args))
                .await;
        }
        let (true, Some(access)) = (name == INTERNAL_DESKTOP_CALL, &self.internal) else {
            return Err(unknown_tool(name));
        };
        let credential = args
            .as_object_mut()
            .and_then(|a| a.remove(crate::wire::DESKTOP_CREDENTIAL))
            .and_then(|c| c.as_str().map(str::to_owned));
        let request: DesktopRequest = parse(args)?;
        if request.changes_something() {
            access.admits(credential.as_deref())?;
        }
        let answer = self.service.desktop(&request).await?;
        let mut result = json_result(&answer);
        if let DesktopAnswer::Capture { jpeg, .. } | DesktopAnswer::Crop { jpeg } = &answer {
            result.content.push(jpeg_block(jpeg));
        }
        Ok(result)
    }
}

impl DesktopAccess {
    /// Whether a request that changes something, carrying `credential`, may run.
    fn admits(&self, credential: Option<&str>) -> Result<(), Error> {
        let refused = |why: &str| {
            Err(Error::new(cu_core::ErrorCode::Unauthorized, why.to_owned())
                .with_suggestion("Start the worker with --desktop-token-file and give the controller the same file as the machine's desktop_token_file (a credential of its own, not the tool token)."))
        };
        match self {
            DesktopAccess::InProcess => Ok(()),
            DesktopAccess::ReadOnly => refused(
                "this worker has no desktop credential: approvals, input and activation from a Desktop page are off",
            ),
            DesktopAccess::Credential(own) => match credential {
                Some(given) if crate::token::constant_time_eq(given.as_bytes(), own.as_bytes()) => {
                    Ok(())
                }
                _ => refused("missing or wrong desktop credential: the tool token cannot decide approvals or send a person's input"),
            },
        }
    }
}

/// `args` without the hidden tightening argument, and the settings it carried.
fn take_tightening(
    mut args: serde_json::Value,
) -> Result<(serde_json::Value, Option<cu_tools::Tightening>), Error> {
    let Some(value) = args
        .as_object_mut()
        .and_then(|a| a.remove(cu_tools::TIGHTENING_ARGUMENT))
    else {
        return Ok((args, None));
    };
    let tightening = serde_json::from_value(value).map_err(|e| {
        Error::new(
            cu_core::ErrorCode::InvalidArgument,
            format!(
                "{} is not a controller's safety settings: {e}",
                cu_tools::TIGHTENING_ARGUMENT
            ),
        )
    })?;
    Ok((args, Some(tightening)))
}

fn unknown_tool(name: &str) -> Error {
    Error::new(
        cu_core::ErrorCode::InvalidArgument,
        format!("unknown tool {name:?}"),
    )
    .with_suggestion("Call tools/list for the tools this server offers.")
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

impl ServerHandler for McpServer {
    fn get_info(&self) -> InitializeResult {
        let mut info = Implementation::from_build_env();
        info.name = "mcp-computer-use".into();
        info.version = env!("CARGO_PKG_VERSION").into();
        // The agent guide is served three ways: these instructions, and the same text as a
        // skill and a resource (`skill.rs`).
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_skills()
            .build();
        let mut result = InitializeResult::new(capabilities).with_instructions(INSTRUCTIONS);
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

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListSkillsResult, ErrorData> {
        Ok(crate::skill::list_skills())
    }

    async fn get_skill(
        &self,
        request: rmcp::model::GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetSkillResult, ErrorData> {
        crate::skill::get_skill(&request.uri)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(crate::skill::list_resources())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        Ok(crate::skill::list_resource_templates())
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        crate::skill::read_resource(&request.uri).map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let call = self.call_answering_panics(&request.name, args);
        let result = match context.meta.get_progress_token() {
            Some(token) => with_progress(call, &context.peer, token, &request.name).await,
            None => call.await,
        };
        Ok(result.into())
    }
}

/// How often a call that runs long reports progress.
pub const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs `call`, and while it runs sends the client a progress notification every
/// [`PROGRESS_EVERY`] (seconds so far, and the tool's name), so clients show status and keep a
/// long call (a model loading, a wait, a launch) alive. Only for clients that asked with a
/// progress token.
async fn with_progress<F: std::future::Future>(
    call: F,
    peer: &rmcp::Peer<RoleServer>,
    token: rmcp::model::ProgressToken,
    tool: &str,
) -> F::Output {
    let started = tokio::time::Instant::now();
    let mut tick = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    tokio::pin!(call);
    loop {
        tokio::select! {
            out = &mut call => return out,
            _ = tick.tick() => {
                let seconds = started.elapsed().as_secs();
                let note = rmcp::model::ProgressNotificationParam::new(token.clone(), seconds as f64)
                    .with_message(format!("{tool}: running for {seconds} s"));
                if let Err(e) = peer.notify_progress(note).await {
                    tracing::debug!("progress notification not sent: {e}");
                }
            }
        }
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
    use cu_core::model::geometry::Point;

    use super::*;

    /// A service on a scripted window with one button named `button`, its sessions in `dir`.
    fn scripted(
        dir: &tempfile::TempDir,
        button: &str,
    ) -> (Scripted, cu_core::model::window::WindowId, Arc<Service>) {
        let backend = Scripted::new();
        let window = backend
            .open(
                &format!(
                    "app: a\ntitle: A\n---\nwindow \"A\" @0,0 100x100\n  button \"{button}\" @10,10 40x20\n"
                ),
                Point::new(0, 0),
            )
            .unwrap();
        let mut config = Config::defaults(&|_| None);
        config.sessions_dir = dir.path().to_path_buf();
        let service = Arc::new(Service::new(Arc::new(backend.clone()), config));
        (backend, window, service)
    }

    /// The first round's bug: a panic inside `look_at_screen` left the call unanswered.
    #[tokio::test]
    async fn a_panic_inside_a_tool_call_answers_internal_and_the_next_call_works() {
        let dir = tempfile::tempdir().unwrap();
        let (backend, window, service) = scripted(&dir, "OK");
        let server = McpServer::new(service);
        let mut args = JsonObject::new();
        args.insert("window_id".into(), window.0.clone().into());
        backend.panic_next(Call::Snapshot);
        let answer = server
            .call_answering_panics("gui_state", args.clone())
            .await;
        assert_eq!(answer.is_error, Some(true));
        let error = crate::wire::answer_json(answer).err().map(|e| e.code);
        assert_eq!(error, Some(cu_core::ErrorCode::Internal));
        let next = server.call_answering_panics("gui_state", args).await;
        assert!(
            crate::wire::answer_json(next).is_ok(),
            "the next call works"
        );
    }

    /// Issue 39: a worker's tool token decided approvals and sent input through `_desktop`.
    /// Those need the desktop credential now; looking does not.
    #[tokio::test]
    async fn regression_the_tool_token_alone_sent_a_persons_input_through_a_worker() {
        let dir = tempfile::tempdir().unwrap();
        let (backend, window, service) = scripted(&dir, "OK");
        let input = |credential: Option<&str>| {
            let mut args = serde_json::json!({
                "op": "input",
                "window_id": window.0,
                "geometry": {"x": 0, "y": 0, "w": 100, "h": 100},
                "event": {"kind": "click", "at": {"x": 20, "y": 15}, "button": "left", "count": 1},
            });
            if let Some(c) = credential {
                args["credential"] = c.into();
            }
            args.as_object().cloned().unwrap_or_default()
        };
        let code = |answer: CallToolResult| crate::wire::answer_json(answer).err().map(|e| e.code);
        let own = "desktop-credential-0123456789";
        for (access, credential) in [
            (DesktopAccess::ReadOnly, None),
            (DesktopAccess::ReadOnly, Some(own)),
            (DesktopAccess::Credential(own.into()), None),
            (
                DesktopAccess::Credential(own.into()),
                Some("desktop-credential-9876543210"),
            ),
        ] {
            let server = McpServer::new(service.clone()).with_internal_calls(access);
            let answer = server
                .call_answering_panics(INTERNAL_DESKTOP_CALL, input(credential))
                .await;
            assert_eq!(code(answer), Some(cu_core::ErrorCode::Unauthorized));
            // Looking needs no more than the tool token.
            let mut windows = JsonObject::new();
            windows.insert("op".into(), "windows".into());
            let answer = server
                .call_answering_panics(INTERNAL_DESKTOP_CALL, windows)
                .await;
            assert_eq!(code(answer), None);
        }
        assert!(backend.inputs().is_empty(), "nothing was sent");
        let server =
            McpServer::new(service).with_internal_calls(DesktopAccess::Credential(own.into()));
        let answer = server
            .call_answering_panics(INTERNAL_DESKTOP_CALL, input(Some(own)))
            .await;
        assert_eq!(code(answer), None);
        assert_eq!(backend.inputs().len(), 1);
    }

    /// Issue 39: a controller's extra words and approvals did not reach the worker that acts.
    /// They travel with the forwarded call and hold there for that call alone.
    #[tokio::test]
    async fn a_controllers_extra_words_hold_on_the_worker_for_that_call() {
        let dir = tempfile::tempdir().unwrap();
        let (backend, window, service) = scripted(&dir, "Frobnicate");
        let server = McpServer::new(service);
        let click = |gate: Option<serde_json::Value>| {
            let mut args = serde_json::json!({"app": window.0, "target": "Frobnicate"});
            if let Some(g) = gate {
                args[cu_tools::TIGHTENING_ARGUMENT] = g;
            }
            args.as_object().cloned().unwrap_or_default()
        };
        let code = |answer: CallToolResult| crate::wire::answer_json(answer).err().map(|e| e.code);
        let tightened = serde_json::json!({"blocked_words": ["frobnicate"]});
        let answer = server
            .call_answering_panics("click", click(Some(tightened)))
            .await;
        assert_eq!(
            code(answer),
            Some(cu_core::ErrorCode::DangerousActionNeedsConfirmation)
        );
        assert!(backend.presses().is_empty());
        // Only for that call: the next one, without it, passes.
        let answer = server.call_answering_panics("click", click(None)).await;
        assert_eq!(code(answer), None);
        assert_eq!(backend.presses(), ["Frobnicate"]);
        // Anything else in it is refused, not ignored.
        let answer = server
            .call_answering_panics("click", click(Some(serde_json::json!({"approvals": "no"}))))
            .await;
        assert_eq!(code(answer), Some(cu_core::ErrorCode::InvalidArgument));
    }
}
