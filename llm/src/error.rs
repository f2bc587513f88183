//! What can go wrong talking to a model server, by kind, and how each kind reaches the agent.

use cu_core::{Error, ErrorCode};

/// A failed model request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelError {
    /// Nothing answers at the URL (connection refused, DNS, reset).
    Unreachable {
        /// The server's URL.
        url: String,
        /// The transport's words.
        detail: String,
    },
    /// The server did not accept the connection, or did not answer, in time.
    Timeout {
        /// The model.
        model: String,
        /// Which part of the exchange gave up.
        stage: TimeoutStage,
        /// The seconds really waited, from the request's start until it gave up.
        waited: f64,
    },
    /// The server does not have the model.
    ModelNotFound {
        /// The model.
        model: String,
    },
    /// The server answered with an error status.
    Http {
        /// HTTP status.
        status: u16,
        /// The start of its body.
        body: String,
    },
    /// The answer was not what the schema asked for.
    BadAnswer(String),
    /// This API cannot do that (unload or load state over the OpenAI-compatible API).
    NotSupported(&'static str),
}

/// The part of a model request that ran out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutStage {
    /// Opening the connection (bounded by [`crate::CONNECT_TIMEOUT`]).
    Connect,
    /// The answer, headers and body (bounded by the call's timeout).
    Answer,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Unreachable { url, detail } => {
                write!(f, "no model server answers at {url}: {detail}")
            }
            ModelError::Timeout {
                model,
                stage: TimeoutStage::Connect,
                waited,
            } => write!(
                f,
                "the server of {model} did not accept the connection; gave up after {waited:.1}s"
            ),
            ModelError::Timeout {
                model,
                stage: TimeoutStage::Answer,
                waited,
            } => write!(f, "{model} did not answer; gave up after {waited:.1}s"),
            ModelError::ModelNotFound { model } => {
                write!(f, "the model server has no model {model:?}")
            }
            ModelError::Http { status, body } => {
                write!(f, "the model server answered HTTP {status}: {body}")
            }
            ModelError::BadAnswer(why) => write!(f, "the model's answer was unusable: {why}"),
            ModelError::NotSupported(what) => {
                write!(f, "{what} is not supported by this model API")
            }
        }
    }
}

impl std::error::Error for ModelError {}

impl From<ModelError> for Error {
    fn from(e: ModelError) -> Error {
        let message = e.to_string();
        match e {
            ModelError::Unreachable { .. } => Error::new(ErrorCode::OllamaUnreachable, message)
                .with_suggestion("Start the model server (`ollama serve` with OLLAMA_HOST set to the configured port), check model.ollama_url, or use the `extracted` text."),
            ModelError::Timeout { .. } => Error::new(ErrorCode::ModelTimeout, message)
                .with_suggestion("Retry once (the model may have been cold-loading) or use the raw `extracted` text."),
            ModelError::ModelNotFound { model } => Error::new(ErrorCode::ConfigInvalid, message)
                .with_suggestion(format!("Pull it (`ollama pull {model}`) or set model.name to a model the server has; `none` answers without a model.")),
            ModelError::Http { .. } | ModelError::BadAnswer(_) => Error::new(ErrorCode::Internal, message)
                .with_suggestion("Retry once, or use the raw `extracted` text."),
            ModelError::NotSupported(_) => Error::new(ErrorCode::NotSupported, message)
                .with_suggestion("Unload the model in the server itself, or use Ollama's API (model.api = \"ollama\")."),
        }
    }
}
