//! Per-model rate limits: token buckets for requests per minute and tokens
//! per minute, so a run stays under a provider's quota instead of spending
//! its retries on 429s.

use std::time::Duration;

use tokio::time::Instant;

use tokio::sync::Mutex;

/// One bucket: holds up to `capacity`, refills `capacity` per minute.
#[derive(Debug)]
struct Bucket {
    capacity: f64,
    available: f64,
    refilled_at: Instant,
}

impl Bucket {
    fn per_minute(capacity: f64) -> Bucket {
        Bucket { capacity, available: capacity, refilled_at: Instant::now() }
    }

    fn refill(&mut self, now: Instant) {
        let rate = self.capacity / 60.0;
        self.available = (self.available + now.duration_since(self.refilled_at).as_secs_f64() * rate).min(self.capacity);
        self.refilled_at = now;
    }

    /// How long until `amount` is available (zero: take it now).
    fn wait_for(&self, amount: f64) -> Duration {
        let missing = amount.min(self.capacity) - self.available;
        if missing <= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(missing / (self.capacity / 60.0))
        }
    }
}

/// Requests-per-minute and tokens-per-minute limits of one model.
#[derive(Debug, Default)]
pub struct RateLimiter {
    buckets: Mutex<(Option<Bucket>, Option<Bucket>)>,
}

impl RateLimiter {
    /// A limiter; `None` leaves that dimension unlimited.
    pub fn new(requests_per_minute: Option<u32>, tokens_per_minute: Option<u64>) -> RateLimiter {
        RateLimiter {
            buckets: Mutex::new((
                requests_per_minute.filter(|&r| r > 0).map(|r| Bucket::per_minute(f64::from(r))),
                tokens_per_minute.filter(|&t| t > 0).map(|t| Bucket::per_minute(t as f64)),
            )),
        }
    }

    /// Waits until one request of about `tokens` tokens may go, then takes
    /// them. A request larger than the whole bucket waits for a full bucket.
    pub async fn acquire(&self, tokens: u64) {
        loop {
            let wait = {
                let mut guard = self.buckets.lock().await;
                let now = Instant::now();
                let (requests, token_bucket) = &mut *guard;
                let mut wait = Duration::ZERO;
                for (bucket, amount) in [(requests.as_mut(), 1.0), (token_bucket.as_mut(), tokens as f64)] {
                    if let Some(b) = bucket {
                        b.refill(now);
                        wait = wait.max(b.wait_for(amount));
                    }
                }
                if wait.is_zero() {
                    if let Some(b) = requests.as_mut() {
                        b.available -= 1.0;
                    }
                    if let Some(b) = token_bucket.as_mut() {
                        b.available -= (tokens as f64).min(b.capacity);
                    }
                    return;
                }
                wait
            };
            tokio::time::sleep(wait).await;
        }
    }
}

/// A rough token count for a request body, for the tokens-per-minute bucket
/// before the provider says the real figure: about four bytes a token.
pub fn estimate_tokens(body_bytes: usize) -> u64 {
    (body_bytes as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_per_minute_spread_requests_out() {
        let limiter = RateLimiter::new(Some(60), None);
        let start = tokio::time::Instant::now();
        for _ in 0..63 {
            limiter.acquire(0).await;
        }
        // 60 go at once from the full bucket; the next 3 come one a second.
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(2900) && waited <= Duration::from_millis(3200), "{waited:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn tokens_per_minute_and_oversized_requests() {
        let limiter = RateLimiter::new(None, Some(600));
        let start = tokio::time::Instant::now();
        limiter.acquire(600).await;
        limiter.acquire(5000).await; // larger than the bucket: waits for a full bucket, not forever
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(59_000) && waited <= Duration::from_millis(61_000), "{waited:?}");
    }

    #[tokio::test]
    async fn unlimited_never_waits() {
        let limiter = RateLimiter::new(None, None);
        for _ in 0..1000 {
            limiter.acquire(1_000_000).await;
        }
    }
}
