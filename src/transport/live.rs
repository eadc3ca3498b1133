//! The live transport: real HTTP through reqwest, with the API key from the
//! environment, a timeout, retries with backoff on 429/5xx/connection
//! errors, and per-model rate limits. Streamed bodies are split into SSE
//! events as they arrive, each stamped with its offset, so time to first
//! token is measured and a stream cut off mid-way still yields what came.

use std::time::{Duration, Instant};

use super::limit::{estimate_tokens, RateLimiter};
use super::redact::Redactor;
use super::retry::{is_retryable_status, retry_after, RetryPolicy};
use super::scrub::{is_secret_param, scrub_text, url_secrets};
use super::sse::SseParser;
use super::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};
use crate::config::ModelConfig;
use crate::provider::auth_header;
use crate::sim::rng::Rng;

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
    /// The header carrying the API key, if the model needs one.
    auth: Option<(String, String)>,
    /// The key, the base URL's credentials and secret-looking extra header
    /// values: only to redact them from what the server sends back.
    secrets: Vec<String>,
    extra_headers: Vec<(String, String)>,
    limiter: RateLimiter,
    retry: RetryPolicy,
    timeout: Duration,
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
        let auth = key.as_deref().map(|k| auth_header(model.provider, k));
        let client = reqwest::Client::builder()
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
            auth,
            secrets,
            extra_headers,
            limiter: RateLimiter::new(model.requests_per_minute, model.tokens_per_minute),
            retry: RetryPolicy { max_retries: model.max_retries, ..RetryPolicy::default() },
            timeout: Duration::from_secs(model.timeout_secs.max(1)),
        })
    }

    /// Replaces the retry policy (tests use short waits).
    pub fn with_retry(mut self, retry: RetryPolicy) -> LiveTransport {
        self.retry = retry;
        self
    }

    /// One attempt, with no retry.
    async fn send_once(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let started = Instant::now();
        let elapsed_ms = || started.elapsed().as_secs_f64() * 1e3;
        let redactor = self.redactor(&request.url);
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).unwrap_or(reqwest::Method::POST);
        let mut builder = self.client.request(method, &request.url).timeout(self.timeout).json(&request.body);
        for (name, value) in request.headers.iter().chain(&self.extra_headers).chain(self.auth.iter()) {
            builder = builder.header(name, value);
        }
        let mut response = builder.send().await.map_err(|e| self.classify(e, &redactor))?;
        let status = response.status().as_u16();
        let mut headers: Vec<(String, String)> =
            response.headers().iter().map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
        redactor.headers(&mut headers);
        let streamed = headers.iter().any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
        let body = if streamed {
            let mut parser = SseParser::new();
            let mut events = Vec::new();
            loop {
                match response.chunk().await {
                    Ok(Some(bytes)) => events.extend(parser.feed(&bytes, elapsed_ms())),
                    Ok(None) => break,
                    // A stream cut off mid-way keeps what arrived: the adapter
                    // hands truncated arguments to the repair pipeline.
                    Err(e) if !events.is_empty() => {
                        let _ = e;
                        break;
                    }
                    Err(e) => return Err(self.classify(e, &redactor)),
                }
            }
            events.extend(parser.finish(elapsed_ms()));
            // On the whole stream: a key split across chunks or events is still whole here.
            redactor.events(&mut events);
            ResponseBody::Events(events)
        } else {
            let bytes = response.bytes().await.map_err(|e| self.classify(e, &redactor))?;
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

    /// The error a failed exchange becomes. reqwest's message names the URL:
    /// its credentials are scrubbed, and any secret the text repeats redacted.
    fn classify(&self, e: reqwest::Error, redactor: &Redactor) -> TransportError {
        if e.is_timeout() {
            TransportError::Timeout(self.timeout.as_secs())
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
fn is_secret_header(name: &str) -> bool {
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
                    Ok(r) if is_retryable_status(r.status) && crate::provider::rejected_call(r).is_none() => retry_after(&r.headers),
                    Ok(_) => return result,
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
