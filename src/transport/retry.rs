//! When to try a request again and how long to wait first: exponential
//! backoff with jitter, or the server's own `Retry-After` when it gives one.

use std::time::Duration;

use crate::sim::rng::Rng;

/// How a live transport retries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub base_delay: Duration,
    /// No wait is longer than this, `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_retries: 4, base_delay: Duration::from_millis(500), max_delay: Duration::from_secs(60) }
    }
}

/// Whether an HTTP status is worth trying again: rate limits and server errors.
pub fn is_retryable_status(status: u16) -> bool {
    status == 429 || status == 408 || (500..=599).contains(&status)
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based): the server's
    /// `retry_after` if it gave one, else backoff with "equal jitter" (half
    /// fixed, half random) so many clients do not retry in step.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, rng: &mut Rng) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let exp = self.base_delay.saturating_mul(1u32.checked_shl(retry.min(16)).unwrap_or(u32::MAX)).min(self.max_delay);
        let half = exp / 2;
        let jitter = rng.next_u64() % (half.as_millis() as u64 + 1);
        half + Duration::from_millis(jitter)
    }
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), or `retry-after`
/// in seconds. An HTTP-date `Retry-After` is rare from these APIs and falls
/// back to backoff.
pub fn retry_after(headers: &[(String, String)]) -> Option<Duration> {
    let get = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1e3));
    }
    get("retry-after").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0).map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(k: &str, v: &str) -> Vec<(String, String)> {
        vec![(k.to_string(), v.to_string())]
    }

    #[test]
    fn retry_after_in_seconds_and_milliseconds() {
        assert_eq!(retry_after(&h("Retry-After", "2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(&h("retry-after-ms", "250")), Some(Duration::from_millis(250)));
        assert_eq!(retry_after(&h("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after(&h("retry-after", "-1")), None);
        assert_eq!(retry_after(&[]), None);
    }

    #[test]
    fn backoff_doubles_within_jitter_and_is_capped() {
        let p = RetryPolicy { max_retries: 5, base_delay: Duration::from_millis(100), max_delay: Duration::from_millis(1000) };
        let mut rng = Rng::from_parts(&["t"]);
        for retry in 0..8 {
            let full = Duration::from_millis(100 * (1 << retry.min(10))).min(p.max_delay);
            let d = p.delay(retry, None, &mut rng);
            assert!(d >= full / 2 && d <= full, "retry {retry}: {d:?} not in [{:?}, {full:?}]", full / 2);
        }
        assert_eq!(p.delay(0, Some(Duration::from_secs(30)), &mut rng), Duration::from_millis(1000));
        assert_eq!(p.delay(0, Some(Duration::from_millis(300)), &mut rng), Duration::from_millis(300));
    }

    #[test]
    fn which_statuses_are_retried() {
        for s in [429, 500, 502, 503, 504, 408] {
            assert!(is_retryable_status(s), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 422] {
            assert!(!is_retryable_status(s), "{s}");
        }
    }
}
