//! Cassette settings as `calltape.toml` declares them (`[cassettes]`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::modes::ReplayTiming;

/// `[cassettes]` in `calltape.toml`. The mode itself is `[run] mode` (or a
/// model's own `mode`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CassetteSettings {
    /// The folder cassettes live in: `<dir>/<suite>/<model>/<scenario>.t<trial>.json`.
    pub dir: PathBuf,
    /// Request-body fields left out of the match key: a top-level name, or a
    /// JSON Pointer (`/metadata/user_id`) for a nested one.
    pub ignore_fields: Vec<String>,
    /// Replay at once, or keep the recorded latency.
    pub timing: ReplayTiming,
    /// With `timing = "recorded"`: 2.0 replays twice as fast as recorded.
    pub speed: f64,
    /// A replay that is not exact fails the run: a request with no recording,
    /// or a recorded interaction left unused.
    pub strict: bool,
}

/// Fields that say who is asking rather than what: they change from one
/// caller or run to the next without changing the answer.
pub const DEFAULT_IGNORE_FIELDS: [&str; 4] = ["metadata", "prompt_cache_key", "safety_identifier", "user"];

impl Default for CassetteSettings {
    fn default() -> Self {
        CassetteSettings {
            dir: PathBuf::from("recordings"),
            ignore_fields: DEFAULT_IGNORE_FIELDS.map(String::from).to_vec(),
            timing: ReplayTiming::Instant,
            speed: 1.0,
            strict: false,
        }
    }
}

/// The replay speeds calltape takes: a slower one would make a replay sleep
/// for ages, a faster one is instant anyway.
pub const SPEED_RANGE: std::ops::RangeInclusive<f64> = 0.001..=1000.0;

/// A replay speed, checked: `Err` says the valid range.
pub fn check_speed(speed: f64) -> Result<f64, String> {
    if SPEED_RANGE.contains(&speed) {
        return Ok(speed);
    }
    Err(format!(
        "the replay speed must be a positive number from {} to {} (1: as recorded, 2: twice as fast), got {speed:?}",
        SPEED_RANGE.start(),
        SPEED_RANGE.end()
    ))
}

impl CassetteSettings {
    /// Checks what the types cannot.
    pub fn validate(&self) -> Result<(), String> {
        check_speed(self.speed).map_err(|e| format!("cassettes.speed: {e}"))?;
        if let Some(bad) = self.ignore_fields.iter().find(|f| f.is_empty()) {
            return Err(format!("cassettes.ignore_fields holds an empty name ({bad:?})"));
        }
        Ok(())
    }
}
