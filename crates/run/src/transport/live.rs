//! The live transport: real HTTP through reqwest, with the API key from the
//! environment, a timeout, retries with backoff on 429/5xx/connection
//! errors, and per-model rate limits. Streamed bodies are split into SSE
//! events as they arrive, each stamped with its offset, so time to first
//! token is measured and a stream cut off mid-way still yields what came.
//! Bodies are read within the model's limits (see `body`): a server that
//! sends too much, too long or nothing at all ends in an error, not an abort.

use std::time::{Duration, Instant};

use super::body::{BoundedBody, ReadError, ResponseLimits};
use super::limit::{estimate_tokens, RateLimiter};
use super::redact::Redactor;
use super::retry::{is_retryable_status, retry_after, RetryPolicy};
use super::scrub::{is_secret_param, scrub_text, url_secrets};
use super::sse::SseParser;
use super::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};
use crate::config::ModelConfig;
use crate::core::rng::Rng;

/// Why a live transport could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("model {model:?}: the environment variable {variable} is not set; export it with the API key (calltape never reads keys from files)")]
    MissingKey { model: String, variable: String },
    #[error("model {model:?}: cannot build the HTTP client: {message}")]
    Client { model: String, message: String },
}

/// Real HTTP for one model, shared by all its units.
pub struct LiveTransport {
    client: reqwest::Client,
    /// The configured model's name, for errors.
    model: String,
    /// The header carrying the API key, if the model needs one.
    auth: Option<(String, String)>,
    /// The key, the base URL's credentials and secret-looking extra header
    /// values: only to redact them from what the server sends back.
    secrets: Vec<String>,
    extra_headers: Vec<(String, String)>,
    limiter: RateLimiter,
    retry: RetryPolicy,
    timeout: Duration,
    limits: ResponseLimits,
}

impl LiveTransport {
    /// The transport for `model`, reading its key from the environment.
    pub fn for_model(model: &ModelConfig) -> Result<LiveTransport, LiveError> {
        let key = match &model.api_key_env {
            Some(variable) => Some(
                std::env::var(variable)
                    .ok()
                    .map(|k| k.trim().to_string())
                    .filter(|k| !k.is_empty())
                    .ok_or_else(|| LiveError::MissingKey { model: model.name.clone(), variable: variable.clone() })?,
            ),
            None => None,
        };
        let auth = key.as_deref().map(|k| model.provider.auth_header(k));
        let client = super::client::builder()
            .connect_timeout(Duration::from_secs(model.timeout_secs.clamp(1, 30)))
            .build()
            .map_err(|e| LiveError::Client { model: model.name.clone(), message: scrub_text(&e.to_string()) })?;
        let extra_headers: Vec<(String, String)> = model.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let secrets = key
            .into_iter()
            .chain(model.base_url.as_deref().map(url_secrets).unwrap_or_default())
            .chain(extra_headers.iter().filter(|(name, _)| is_secret_header(name)).map(|(_, value)| value.clone()))
            .collect();
        Ok(LiveTransport {
            client,
            model: model.name.clone(),
            auth,
            secrets,
            extra_headers,
            limiter: RateLimiter::new(model.requests_per_minute, model.tokens_per_minute),
            retry: RetryPolicy { max_retries: model.max_retries, ..RetryPolicy::default() },
            timeout: Duration::from_secs(model.timeout_secs.max(1)),
            limits: model.limits,
        })
    }

    /// Replaces the retry policy (tests use short waits).
    pub fn with_retry(mut self, retry: RetryPolicy) -> LiveTransport {
        self.retry = retry;
        self
    }

    /// One attempt, with no retry.
    async fn send_once(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let started = tokio::time::Instant::now();
        let elapsed_ms = || started.elapsed().as_secs_f64() * 1e3;
        let redactor = self.redactor(&request.url);
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).unwrap_or(reqwest::Method::POST);
        // The deadline is kept here rather than by reqwest, so a body or a
        // stream that outlasts it can be told apart from a silent server.
        let mut builder = self.client.request(method, &request.url).json(&request.body);
        for (name, value) in request.headers.iter().chain(&self.extra_headers).chain(self.auth.iter()) {
            builder = builder.header(name, value);
        }
        let mut response = tokio::time::timeout(self.timeout, builder.send())
            .await
            .map_err(|_| TransportError::Timeout(self.timeout.as_secs()))?
            .map_err(|e| self.classify(e, &redactor))?;
        let mut reader = BoundedBody::new(&self.limits, &self.model, started, self.timeout);
        let status = response.status().as_u16();
        let mut headers: Vec<(String, String)> =
            response.headers().iter().map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
        redactor.headers(&mut headers);
        let streamed = headers.iter().any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
        let body = if streamed {
            let mut parser = SseParser::with_max_event_bytes(usize::try_from(self.limits.max_event_bytes).unwrap_or(usize::MAX));
            let mut events = Vec::new();
            loop {
                match reader.next_chunk(&mut response).await {
                    Ok(Some(bytes)) => events.extend(parser.feed(&bytes, elapsed_ms())),
                    Ok(None) => break,
                    Err(ReadError::Deadline) => return Err(TransportError::Limit(reader.stream_deadline(events.len()))),
                    Err(ReadError::Limit(message)) => return Err(TransportError::Limit(message)),
                    // A stream cut off mid-way keeps what arrived: the adapter
                    // hands truncated arguments to the repair pipeline.
                    Err(ReadError::Http(_)) if !events.is_empty() => break,
                    Err(ReadError::Http(e)) => return Err(self.classify(e, &redactor)),
                }
                if let Some(bytes) = parser.overflow() {
                    return Err(self.read_error(reader.event_too_long(bytes), &redactor));
                }
                reader.check_events(events.len()).map_err(|e| self.read_error(e, &redactor))?;
            }
            events.extend(parser.finish(elapsed_ms()));
            // On the whole stream: a key split across chunks or events is still whole here.
            redactor.events(&mut events);
            ResponseBody::Events(events)
        } else {
            let bytes = reader.read_all(&mut response).await.map_err(|e| self.read_error(e, &redactor))?;
            redactor.body(&bytes)
        };
        Ok(HttpResponse { status, headers, body, latency_ms: elapsed_ms() })
    }

    /// What to redact from the answer to a request to `url`: a server that
    /// echoes the key back (some error messages do) must not get it into
    /// events, reports or cassettes; nor a credential in the URL.
    fn redactor(&self, url: &str) -> Redactor {
        Redactor::new(self.secrets.iter().cloned().chain(url_secrets(url)))
    }

    fn read_error(&self, e: ReadError, redactor: &Redactor) -> TransportError {
        match e {
            ReadError::Http(e) => self.classify(e, redactor),
            ReadError::Deadline => TransportError::Timeout(self.timeout.as_secs()),
            ReadError::Limit(message) => TransportError::Limit(message),
        }
    }

    /// The error a failed exchange becomes. reqwest's message names the URL:
    /// its credentials are scrubbed, and any secret the text repeats redacted.
    fn classify(&self, e: reqwest::Error, redactor: &Redactor) -> TransportError {
        if e.is_timeout() {
            TransportError::Timeout(self.timeout.as_secs())
        } else if let Some(refused) = super::redirect::refused(&e) {
            TransportError::Refused(redactor.text(&refused.to_string()))
        } else {
            // reqwest's own message is terse ("error sending request"); its source says why.
            let mut message = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                message = format!("{message}: {s}");
                source = s.source();
            }
            TransportError::Connection(scrub_text(&redactor.text(&message)))
        }
    }
}

/// Whether an extra header's value is a credential (it should not be one:
/// keys belong in `api_key_env`; but if it is, it is redacted like one).
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    is_secret_param(&name) || name.contains("cookie")
}

impl Transport for LiveTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let tokens = estimate_tokens(request.body.to_string().len());
            let mut rng = Rng::from_parts(&[&request.url, &format!("{:?}", Instant::now())]);
            let mut retry = 0;
            loop {
                self.limiter.acquire(tokens).await;
                let result = self.send_once(request).await;
                // A server's rejection of the model's call is the model's answer:
                // asking again would only ask the same question.
                let wait = match &result {
                    Ok(r) if is_retryable_status(r.status) && super::server_error::rejected_call(r).is_none() => retry_after(&r.headers),
                    Ok(_) | Err(TransportError::Limit(_) | TransportError::Refused(_)) => return result,
                    Err(_) => None,
                };
                if retry >= self.retry.max_retries {
                    return result;
                }
                tokio::time::sleep(self.retry.delay(retry, wait, &mut rng)).await;
                retry += 1;
            }
        })
    }
}
