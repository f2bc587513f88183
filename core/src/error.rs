//! One error type with stable codes, and the CLI exit codes.
//!
//! Every failure a user or agent sees is an [`Error`]: a stable [`ErrorCode`], a message saying
//! what happened, whether trying again can help (`retryable`), and a `suggestion` saying what to
//! do. Codes are part of the public contract: they are never renamed, only added.

use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident => $text:literal, $retry:expr, $suggest:literal;)*) => {
        /// A stable, machine-readable error code (serialized as `SCREAMING_SNAKE_CASE`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $name,)*
        }

        impl ErrorCode {
            /// Every code, for documentation and tests.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The code as it appears in JSON.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => $text,)* }
            }

            /// Parses the JSON form.
            pub fn parse(text: &str) -> Option<ErrorCode> {
                match text { $($text => Some(ErrorCode::$name),)* _ => None }
            }

            /// Whether the same call may succeed if simply tried again.
            pub const fn default_retryable(self) -> bool {
                match self { $(ErrorCode::$name => $retry,)* }
            }

            /// What the caller should do, when the error site has nothing more specific.
            pub const fn default_suggestion(self) -> &'static str {
                match self { $(ErrorCode::$name => $suggest,)* }
            }
        }
    };
}

codes! {
    /// The label or target is malformed (empty, too long, an `@eN` ref, …).
    InvalidTarget => "INVALID_TARGET", false,
        "Pass the visible label of one control, 1-200 characters.";
    /// Several elements match and none is clearly meant.
    TargetAmbiguous => "TARGET_AMBIGUOUS", false,
        "Pick one of the candidates and call again with its exact label.";
    /// The safety gate stopped an action that needs explicit confirmation.
    DangerousActionNeedsConfirmation => "DANGEROUS_ACTION_NEEDS_CONFIRMATION", false,
        "Ask the user; if they agree, call again with confirm_dangerous=true.";
    /// A person denied the action on the Desktop page.
    ApprovalDenied => "APPROVAL_DENIED", false,
        "The user said no: do not retry this action; ask them what to do instead.";
    /// The sessions directory cannot be written (disk full, read-only, permissions): nothing
    /// was done that needed it.
    StorageFailed => "STORAGE_FAILED", true,
        "Free space on the disk of MCP_CU_SESSIONS_DIR (or make it writable, or point it elsewhere) and call again.";
    /// Nobody approved or denied the action in time.
    ApprovalTimeout => "APPROVAL_TIMEOUT", true,
        "Ask the user to watch the Desktop page (mcp-computer-use webui) and call again.";
    /// The question is longer than allowed.
    QuestionTooLong => "QUESTION_TOO_LONG", false,
        "Ask one short, focused question (see max_question_chars).";
    /// The text is longer than allowed.
    TextTooLong => "TEXT_TOO_LONG", false,
        "Send shorter text (see max_type_chars), or split it.";
    /// The model did not answer in time.
    ModelTimeout => "MODEL_TIMEOUT", true,
        "Try again; the model may be loading. Ask a shorter question if it persists.";
    /// The model server cannot be reached.
    OllamaUnreachable => "OLLAMA_UNREACHABLE", true,
        "Start the model server (or check MCP_CU_OLLAMA_URL) and try again.";
    /// Capturing the window image failed.
    ImageCaptureFailed => "IMAGE_CAPTURE_FAILED", true,
        "Try again; if it persists, observe without an image.";
    /// The captured image was blank.
    ImageCaptureBlank => "IMAGE_CAPTURE_BLANK", true,
        "The window may still be drawing; wait a moment and try again.";
    /// The window is minimized; nothing to capture.
    ImageWindowMinimized => "IMAGE_WINDOW_MINIMIZED", false,
        "Restore the window, then capture again.";
    /// Another window covers the target; capture would return someone else's pixels.
    ImageWindowObscured => "IMAGE_WINDOW_OBSCURED", true,
        "Bring the window to the front (or move what covers it), then capture again.";
    /// Capture took too long.
    ImageCaptureTimeout => "IMAGE_CAPTURE_TIMEOUT", true,
        "Try again, or raise MCP_CU_IMAGE_TIMEOUT.";
    /// No desktop or accessibility bus is reachable from this process.
    GuiUnavailable => "GUI_UNAVAILABLE", false,
        "Run inside the graphical session (DISPLAY/WAYLAND_DISPLAY and the session bus set), with accessibility enabled.";
    /// The window does not exist (closed, or never existed).
    WindowNotFound => "WINDOW_NOT_FOUND", false,
        "Call gui_list and use a current window id.";
    /// The application named was not found among the windows.
    AppNotFound => "APP_NOT_FOUND", false,
        "Use an application name or window title from gui_list.";
    /// The observation has expired.
    StateExpired => "STATE_EXPIRED", false,
        "Observe again with gui_state and act on the new state_id.";
    /// The observation was already used by an earlier action call.
    StateAlreadyUsed => "STATE_ALREADY_USED", false,
        "Observe again with gui_state; each state_id can be used once.";
    /// A modal dialog of the window's application blocks it (named in the details): input would
    /// not reach the window until the dialog is answered.
    WindowBlocked => "WINDOW_BLOCKED", false,
        "Answer the dialog named in the details first (observe it with gui_state), then act on this window.";
    /// Keys would land in another window: the named one does not hold the keyboard focus, and
    /// the platform sends keys wherever focus is (Wayland), and it could not be brought forward.
    WindowNotFocused => "WINDOW_NOT_FOCUSED", false,
        "Bring the window forward first (a coordinate click into it, or ask the person), then act again.";
    /// The window moved or was resized since the observation.
    WindowMoved => "WINDOW_MOVED", false,
        "Observe again; never reuse old coordinates.";
    /// A point lies outside the window.
    OutOfWindow => "OUT_OF_WINDOW", false,
        "Use window-relative coordinates inside the window's bounds.";
    /// No element with that id or identity.
    ElementNotFound => "ELEMENT_NOT_FOUND", false,
        "Observe again and use an element id from the new outline.";
    /// The element is not on screen: a closed menu's item, a background tab's page, a row
    /// scrolled out of view, or outside the window.
    ElementNotVisible => "ELEMENT_NOT_VISIBLE", false,
        "Bring it into view first (open its menu or tab, or scroll), then observe again.";
    /// The application went away while it was handling the action (its accessibility
    /// connection closed mid-call): it crashed or quit. `details` say what was last sent.
    AppCrashed => "APP_CRASHED", false,
        "Relaunch the app (gui_open) and check what it lost; the same action may crash it again, so try another way (a key, a menu) or ask the user.";
    /// The element or backend cannot perform that action.
    ActionNotSupported => "ACTION_NOT_SUPPORTED", false,
        "Use another action the element lists, or a coordinate action.";
    /// The element does not accept text.
    NotEditable => "NOT_EDITABLE", false,
        "Target an editable field (text input or text area).";
    /// The action was performed and failed.
    ActionFailed => "ACTION_FAILED", true,
        "Observe again to see the current state, then retry.";
    /// The configuration does not allow starting this program (`apps.allow`).
    ProgramNotAllowed => "PROGRAM_NOT_ALLOWED", false,
        "Start a desktop application by name, or ask the user to add the program to apps.allow.";
    /// The configuration turns this off (the key is in the details), e.g. reading the clipboard.
    NotAllowed => "NOT_ALLOWED", false,
        "The user can turn it on with the configuration key named in the details.";
    /// The caller is not authenticated.
    Unauthorized => "UNAUTHORIZED", false,
        "Provide the bearer token configured for this server.";
    /// A remote machine cannot be reached.
    MachineUnreachable => "MACHINE_UNREACHABLE", true,
        "Check that the worker is running and reachable, then retry.";
    /// An argument is malformed or missing.
    InvalidArgument => "INVALID_ARGUMENT", false,
        "Fix the argument as the message says.";
    /// The configuration (file or environment) is invalid.
    ConfigInvalid => "CONFIG_INVALID", false,
        "Fix the named key in the named file or environment variable.";
    /// The platform does not support this operation.
    NotSupported => "NOT_SUPPORTED", false,
        "This operation is not available on this platform or backend.";
    /// Something timed out talking to the desktop.
    Timeout => "TIMEOUT", true,
        "The application may be busy; try again.";
    /// A bug or an unexpected condition.
    Internal => "INTERNAL", true,
        "Try again; if it persists, report the message.";
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({ "type": "string", "enum": codes })
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ErrorCode::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {text}")))
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as users and agents see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Error {
    /// Stable code.
    pub code: ErrorCode,
    /// What happened.
    pub message: String,
    /// Whether calling again unchanged may succeed.
    pub retryable: bool,
    /// What to do about it.
    pub suggestion: String,
    /// Structured extras (candidates, the windows that exist, the matched rule, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
    /// Set by a backend whose input or action failed before anything reached the app (a key it
    /// cannot map, an element that refused the action): the call that sent it has then sent
    /// nothing, and its state is not used up. Never on the wire (a worker's error arrives
    /// without it, and the state is then taken as used: the safe side).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub nothing_sent: bool,
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with the code's default `retryable` and `suggestion`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            retryable: code.default_retryable(),
            suggestion: code.default_suggestion().to_owned(),
            details: None,
            nothing_sent: false,
        }
    }

    /// Marks the error as raised before any input or action reached the app.
    #[must_use]
    pub fn before_sending(mut self) -> Error {
        self.nothing_sent = true;
        self
    }

    /// Replaces the suggestion.
    #[must_use]
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Error {
        self.suggestion = suggestion.into();
        self
    }

    /// Replaces `retryable`.
    #[must_use]
    pub fn with_retryable(mut self, retryable: bool) -> Error {
        self.retryable = retryable;
        self
    }

    /// Attaches structured details.
    #[must_use]
    pub fn with_details(mut self, details: serde_json::Value) -> Error {
        self.details = Some(details);
        self
    }

    /// The CLI exit code for this error.
    pub fn exit_code(&self) -> ExitCode {
        match self.code {
            ErrorCode::ConfigInvalid | ErrorCode::InvalidArgument => ExitCode::Usage,
            _ => ExitCode::Failed,
        }
    }

    /// Reads back the JSON form [`Error::to_json`] wrote (a remote machine's error).
    pub fn from_json(value: &serde_json::Value) -> Option<Error> {
        serde_json::from_value(value.get("error")?.clone()).ok()
    }

    /// The JSON form shown to callers: `{"error": {code, message, retryable, suggestion}}`
    /// ([`ErrorAnswer`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(ErrorAnswer {
            error: self.clone(),
        })
        .unwrap_or_default()
    }
}

/// An error as a tool answers it: the one JSON shape every failed call has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorAnswer {
    /// What went wrong, whether to retry, and what to do.
    pub error: Error,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Exit codes of the `mcp-computer-use` CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExitCode {
    /// The command did what was asked.
    Success = 0,
    /// The action or question failed; the JSON on stdout says why.
    Failed = 1,
    /// Bad usage or configuration.
    Usage = 2,
}

impl ExitCode {
    /// The numeric process exit status.
    pub const fn code(self) -> i32 {
        self as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_and_has_a_suggestion() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
            assert!(
                !code.default_suggestion().is_empty(),
                "{code} has no suggestion"
            );
            let json = serde_json::to_string(code).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_'),
                "{code} is not SCREAMING_SNAKE_CASE"
            );
        }
    }

    #[test]
    fn predecessor_and_loop_codes_exist() {
        for text in [
            "INVALID_TARGET",
            "TARGET_AMBIGUOUS",
            "DANGEROUS_ACTION_NEEDS_CONFIRMATION",
            "QUESTION_TOO_LONG",
            "MODEL_TIMEOUT",
            "OLLAMA_UNREACHABLE",
            "IMAGE_CAPTURE_FAILED",
            "IMAGE_CAPTURE_BLANK",
            "IMAGE_WINDOW_MINIMIZED",
            "IMAGE_CAPTURE_TIMEOUT",
            "GUI_UNAVAILABLE",
            "WINDOW_NOT_FOUND",
            "STATE_EXPIRED",
            "STATE_ALREADY_USED",
            "WINDOW_MOVED",
            "OUT_OF_WINDOW",
            "ELEMENT_NOT_FOUND",
            "ACTION_NOT_SUPPORTED",
            "APP_NOT_FOUND",
            "NOT_EDITABLE",
            "IMAGE_WINDOW_OBSCURED",
            "UNAUTHORIZED",
            "MACHINE_UNREACHABLE",
        ] {
            assert!(ErrorCode::parse(text).is_some(), "missing {text}");
        }
    }

    #[test]
    fn json_form_has_the_four_fields() {
        let err = Error::new(ErrorCode::WindowMoved, "moved by (3, 0)");
        let json = err.to_json();
        assert_eq!(json["error"]["code"], "WINDOW_MOVED");
        assert_eq!(json["error"]["message"], "moved by (3, 0)");
        assert_eq!(json["error"]["retryable"], false);
        assert!(json["error"]["suggestion"]
            .as_str()
            .is_some_and(|s| s.contains("Observe again")));
        assert!(
            json["error"].get("details").is_none(),
            "null fields are left out"
        );
        let back: Error = serde_json::from_value(json["error"].clone())
            .unwrap_or_else(|_| Error::new(ErrorCode::Internal, "did not parse"));
        assert_eq!(back, err);
    }

    #[test]
    fn exit_codes_follow_the_brief() {
        assert_eq!(ExitCode::Success.code(), 0);
        assert_eq!(
            Error::new(ErrorCode::TargetAmbiguous, "x")
                .exit_code()
                .code(),
            1
        );
        assert_eq!(
            Error::new(ErrorCode::ConfigInvalid, "x").exit_code().code(),
            2
        );
    }
}
