//! Tool answers and errors on the wire, both ways: a service answer or error into an MCP
//! `CallToolResult` (the server's side), and a `CallToolResult` back into JSON and a
//! `cu_core::Error` (the controller's side, for a worker's answers, and the CLI's). The one place
//! where images become base64 content and back.

use base64::Engine as _;
use cu_core::Error;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::de::DeserializeOwned;

/// The internal call of the Desktop page (never listed, only answered by a worker).
pub const INTERNAL_DESKTOP_CALL: &str = "_desktop";

/// The argument of [`INTERNAL_DESKTOP_CALL`] that carries a worker's desktop credential (what a
/// decision, input or activation needs there besides the tool token).
pub const DESKTOP_CREDENTIAL: &str = "credential";

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

/// The first JPEG image of a tool result, decoded.
pub fn first_jpeg(result: &CallToolResult) -> Option<Vec<u8>> {
    result
        .content
        .iter()
        .find_map(|c| c.as_image())
        .and_then(|i| {
            base64::engine::general_purpose::STANDARD
                .decode(&i.data)
                .ok()
        })
}

/// A JPEG as image content.
pub fn jpeg_block(jpeg: &[u8]) -> ContentBlock {
    ContentBlock::image(
        base64::engine::general_purpose::STANDARD.encode(jpeg),
        "image/jpeg",
    )
}

/// The arguments of a tool that takes none (unknown keys refused).
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Decodes a tool's arguments into its request type; a mismatch is `INVALID_ARGUMENT`.
pub fn parse<T: DeserializeOwned>(args: serde_json::Value) -> Result<T, Error> {
    serde_json::from_value(args).map_err(|e| {
        Error::new(
            cu_core::ErrorCode::InvalidArgument,
            format!("bad arguments: {e}"),
        )
        .with_suggestion("Pass the arguments the tool's input schema describes.")
    })
}

/// A service answer as a tool result: compact JSON text plus the same value as structured
/// content.
pub fn json_result<T: serde::Serialize>(value: &T) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}

/// A `cu_core::Error` as a tool error: the JSON text and the same value as structured content.
pub fn error_result(e: &Error) -> CallToolResult {
    let value = e.to_json();
    let mut result = CallToolResult::error(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result
}
