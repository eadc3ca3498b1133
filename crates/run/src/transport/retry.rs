//! When to try a request again and how long to wait first: exponential
//! backoff with jitter, or the server's own `Retry-After` when it gives one.
//! A server's number is validated before it becomes a wait: nonsense is
//! ignored, a huge wait is capped.

use std::time::Duration;

use crate::core::rng::Rng;

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

/// The longest wait a server's `Retry-After` is taken at (the policy's
/// `max_delay` then caps it further).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

/// A number of seconds from outside (a header, a cassette, a flag) as a
/// duration: `None` for NaN or a negative number, `cap` for anything longer
/// (infinity included). `Duration::from_secs_f64` would panic on all three.
pub fn bounded_secs(secs: f64, cap: Duration) -> Option<Duration> {
    if secs.is_nan() || secs < 0.0 {
        return None;
    }
    if secs >= cap.as_secs_f64() {
        return Some(cap);
    }
    Duration::try_from_secs_f64(secs).ok().map(|d| d.min(cap))
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), or `retry-after`
/// in seconds (integer or decimal) or as an HTTP date. A value that is not a
/// number or a date, or is negative, is ignored (backoff applies); a huge
/// one is capped at `MAX_RETRY_AFTER`.
pub fn retry_after(headers: &[(String, String)]) -> Option<Duration> {
    let get = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    if let Some(wait) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).and_then(|ms| bounded_secs(ms / 1e3, MAX_RETRY_AFTER)) {
        return Some(wait);
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return bounded_secs(secs, MAX_RETRY_AFTER);
    }
    // A date in the past asks for no wait at all.
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(std::time::SystemTime::now()).unwrap_or_default().min(MAX_RETRY_AFTER))
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
        assert_eq!(retry_after(&h("retry-after", "1.5")), Some(Duration::from_millis(1500)));
        assert_eq!(retry_after(&h("retry-after", "-1")), None);
        assert_eq!(retry_after(&[]), None);
    }

    #[test]
    fn hostile_retry_after_values_never_panic_and_stay_bounded() {
        for v in ["1e300", "inf", "+infinity", "1e19", "18446744073709551616", "9e15"] {
            assert_eq!(retry_after(&h("retry-after", v)), Some(MAX_RETRY_AFTER), "{v}");
            assert_eq!(retry_after(&h("retry-after-ms", v)), Some(MAX_RETRY_AFTER), "ms {v}");
        }
        for v in ["NaN", "nan", "-5", "-inf", "-0.5", "", "soon", "1e", "0x10", "Wed, 99 Oct 2015 07:28:00 GMT"] {
            assert_eq!(retry_after(&h("retry-after", v)), None, "{v}");
        }
        // An unusable retry-after-ms falls back to retry-after.
        let both = vec![("retry-after-ms".to_string(), "NaN".to_string()), ("retry-after".to_string(), "2".to_string())];
        assert_eq!(retry_after(&both), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(&h("retry-after", "1e-300")), Some(Duration::ZERO));
        // HTTP dates: one in the past asks for no wait, one far ahead is capped.
        assert_eq!(retry_after(&h("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")), Some(Duration::ZERO));
        assert_eq!(retry_after(&h("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")), Some(MAX_RETRY_AFTER));
        let soon = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(30));
        let wait = retry_after(&h("retry-after", &soon)).unwrap();
        assert!(wait > Duration::from_secs(27) && wait <= Duration::from_secs(30), "{wait:?}");
        // And through the policy, a capped wait is the policy's max_delay.
        let p = RetryPolicy::default();
        let mut rng = Rng::from_parts(&["t"]);
        assert_eq!(p.delay(0, retry_after(&h("retry-after", "1e300")), &mut rng), p.max_delay);
    }

    #[test]
    fn bounded_secs_takes_any_float() {
        let cap = Duration::from_secs(10);
        assert_eq!(bounded_secs(f64::NAN, cap), None);
        assert_eq!(bounded_secs(-0.0, cap), Some(Duration::ZERO));
        assert_eq!(bounded_secs(-1e-300, cap), None);
        assert_eq!(bounded_secs(f64::INFINITY, cap), Some(cap));
        assert_eq!(bounded_secs(f64::MAX, cap), Some(cap));
        assert_eq!(bounded_secs(f64::MIN_POSITIVE, cap), Some(Duration::ZERO));
        assert_eq!(bounded_secs(2.5, cap), Some(Duration::from_millis(2500)));
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
