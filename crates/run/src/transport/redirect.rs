//! Which redirects a request may follow: only those to the same origin
//! (scheme, host and port). The HTTP client drops `Authorization` and
//! cookies on a cross-host redirect, but not `x-api-key`, `x-goog-api-key`
//! or a header the configuration adds, so a server could hand those to any
//! host it names with a 307. A redirect elsewhere is refused instead, and
//! the request ends in an error naming both origins.

use super::scrub::scrub_url;

/// The most redirects one request follows (the client's own default).
const MAX_REDIRECTS: usize = 10;

/// A redirect that would have carried the request's credentials to another origin.
#[derive(Debug, thiserror::Error)]
#[error("refused to follow a redirect from {from} to another origin, {to}: calltape never sends a request's credentials (API key, secret headers) to another origin; set base_url to the server that answers")]
pub struct CrossOriginRedirect {
    /// The origin the request was sent to.
    pub from: String,
    /// Where the server said to go, its credentials scrubbed.
    pub to: String,
}

/// The redirect policy of every client that sends credentials.
pub fn same_origin_only() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first() else { return attempt.follow() };
        if first.origin() != attempt.url().origin() {
            let error = CrossOriginRedirect { from: first.origin().ascii_serialization(), to: scrub_url(attempt.url().as_str()) };
            attempt.error(error)
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

/// The refused redirect behind a client error, if that is what it was.
pub fn refused(error: &reqwest::Error) -> Option<&CrossOriginRedirect> {
    let mut source = std::error::Error::source(error);
    while let Some(s) = source {
        if let Some(refused) = s.downcast_ref::<CrossOriginRedirect>() {
            return Some(refused);
        }
        source = s.source();
    }
    None
}
