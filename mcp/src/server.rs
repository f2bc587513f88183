//! The MCP surface: [`McpServer`] answers `initialize`, `tools/list` and `tools/call` by calling
//! the [`Service`] functions; errors become tool errors carrying `{code, message, retryable,
//! suggestion}`, and screenshots travel as native image content.

use std::sync::Arc;

use base64::Engine as _;
use cu_core::Error;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;

use crate::service::{ActionRequest, ClickRequest, Service, StateRequest, TypeRequest};

/// The instructions sent on `initialize`; the same text is `docs/AGENTS_SNIPPET.md`.
pub const INSTRUCTIONS: &str = include_str!("../../docs/AGENTS_SNIPPET.md");

/// The MCP server over one [`Service`].
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
}

impl McpServer {
    /// A server over `service`.
    pub fn new(service: Arc<Service>) -> McpServer {
        McpServer { service }
    }

    async fn dispatch(&self, name: &str, args: serde_json::Value) -> Result<CallToolResult, Error> {
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
                    let data = base64::engine::general_purpose::STANDARD.encode(jpeg);
                    answer.content.push(ContentBlock::image(data, "image/jpeg"));
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
            other => Err(Error::new(
                cu_core::ErrorCode::InvalidArgument,
                format!("unknown tool {other:?}"),
            )
            .with_suggestion("Call tools/list for the tools this server offers.")),
        }
    }
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
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let result = match self.dispatch(&request.name, args).await {
            Ok(result) => result,
            Err(e) => error_result(&e),
        };
        Ok(result.into())
    }
}

/// Serves MCP over stdin/stdout until the client closes the stream.
pub async fn serve_stdio(service: Arc<Service>) -> Result<(), Error> {
    use rmcp::ServiceExt as _;
    let internal = |what: &str, e: &dyn std::fmt::Display| {
        Error::new(cu_core::ErrorCode::Internal, format!("{what}: {e}"))
    };
    let running = McpServer::new(service)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| internal("MCP initialization over stdio failed", &e))?;
    running
        .waiting()
        .await
        .map_err(|e| internal("MCP stdio session ended with an error", &e))?;
    Ok(())
}
