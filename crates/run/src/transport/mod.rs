//! Transports carry one HTTP exchange: a request built by a provider adapter
//! goes out, a response comes back. The cassette layer sits here, under the
//! adapters, so replay exercises the same parsing code as a live run.

pub mod cassette;
pub mod client;
pub mod limit;
pub mod live;
pub mod redirect;
pub mod retry;
pub mod server_error;
pub mod sim;
pub mod stdio;

use std::future::Future;
use std::pin::Pin;

pub use crate::wire::{body, redact, scrub, sse, HttpRequest, HttpResponse, ResponseBody, SseEvent};

/// Why an exchange produced no response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransportError {
    /// Shown with every URL's credentials scrubbed, however it was made.
    #[error("connection failed: {}", scrub::scrub_text(.0))]
    Connection(String),
    #[error("request timed out after {0} s")]
    Timeout(u64),
    /// The response passed one of the model's limits (size, events, idle
    /// time, stream duration); the message names it and how to raise it.
    /// Not retried: the same server would most likely do it again.
    #[error("{0}")]
    Limit(String),
    /// calltape would not send the request on as the server asked (a
    /// redirect to another origin); the message says why. Not retried.
    #[error("{0}")]
    Refused(String),
    /// The cassette layer could not answer: no recording (replay), or nothing to record from.
    #[error("{0}")]
    Cassette(#[from] CassetteMiss),
}

/// Why a cassette could not answer a request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CassetteMiss {
    /// Nothing recorded answers the request; says how to record it.
    #[error("no recording for {unit}{to} (request key {key}): {why}. Record it with `{record}`, or run with --mode live", to = .model.as_ref().map(|m| format!(", a request to {m}")).unwrap_or_default())]
    NoRecording {
        /// The unit whose cassette it is.
        unit: String,
        /// The model asked, where it is not the unit's own (a judge, a simulated user).
        model: Option<String>,
        key: String,
        /// Boxed: the error stays small on the hot path's `Result`.
        why: Box<NoRecording>,
        /// The command that records it.
        record: String,
    },
    /// Record or auto mode with no transport to send the request on.
    #[error("{mode} mode needs a transport to {model} to record from, and there is none")]
    NoSource { mode: &'static str, model: String },
}

/// Why a cassette holds no recording of a request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoRecording {
    /// The cassette's next unused request to the model has another key.
    #[error("{} holds no recording of it; its next unused request to {model} has key {next_key}, so the request changed since it was recorded", path.display())]
    Changed { path: std::path::PathBuf, model: String, next_key: String },
    #[error("{} holds no recording of it", path.display())]
    NotHeld { path: std::path::PathBuf },
    #[error("there is no cassette {}", path.display())]
    Absent { path: std::path::PathBuf },
    #[error("cannot use the cassette: {message}")]
    Broken { message: String },
}

/// A boxed future, so transports can be chosen at run time.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Sends one request and returns its response.
pub trait Transport: Send + Sync {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>>;
}

/// A transport shared between units (a live model's, with its rate limits).
impl<T: Transport + ?Sized> Transport for std::sync::Arc<T> {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        (**self).send(request)
    }
}
