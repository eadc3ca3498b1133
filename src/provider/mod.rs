//! Provider adapters: turn a provider-agnostic `ChatRequest` into the
//! provider's HTTP request, and its HTTP response back into a `ModelTurn`.

pub mod openai;

use crate::chat::{ChatRequest, ModelTurn};
use crate::transport::{HttpRequest, HttpResponse};

/// Why a response could not be read as a model turn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    #[error("HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("response is not of the expected shape: {0}")]
    Shape(String),
}

/// One wire protocol.
pub trait Provider: Send + Sync {
    /// The HTTP request for a chat request.
    fn build_request(&self, request: &ChatRequest) -> HttpRequest;
    /// The model's turn in the HTTP response to `request` (the request lets
    /// an adapter map tool names it had to rename on the way out back again).
    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError>;
}
