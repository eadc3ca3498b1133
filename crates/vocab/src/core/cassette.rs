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

/// A replay speed outside [`SPEED_RANGE`] (or not a number); the message
/// says the valid range.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error(
    "the replay speed must be a positive number from {} to {} (1: as recorded, 2: twice as fast), got {speed:?}",
    SPEED_RANGE.start(),
    SPEED_RANGE.end()
)]
pub struct SpeedError {
    /// The speed refused.
    pub speed: f64,
}

/// A replay speed, checked: `Err` says the valid range.
pub fn check_speed(speed: f64) -> Result<f64, SpeedError> {
    if SPEED_RANGE.contains(&speed) {
        return Ok(speed);
    }
    Err(SpeedError { speed })
}

/// A `[cassettes]` setting the types let through but calltape cannot use;
/// the message names the setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CassetteSettingsError {
    /// `speed` is out of range.
    #[error("cassettes.speed: {source}")]
    Speed {
        #[source]
        source: SpeedError,
    },
    /// `ignore_fields` lists an empty name, which would match nothing.
    #[error("cassettes.ignore_fields holds an empty name ({name:?})")]
    EmptyIgnoredField { name: String },
}

impl CassetteSettings {
    /// Checks what the types cannot.
    pub fn validate(&self) -> Result<(), CassetteSettingsError> {
        check_speed(self.speed).map_err(|source| CassetteSettingsError::Speed { source })?;
        if let Some(bad) = self.ignore_fields.iter().find(|f| f.is_empty()) {
            return Err(CassetteSettingsError::EmptyIgnoredField { name: bad.clone() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_errors_say_the_range_and_name_the_setting() {
        let e = check_speed(0.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the replay speed must be a positive number from 0.001 to 1000 (1: as recorded, 2: twice as fast), got 0.0"
        );
        let settings = CassetteSettings { speed: f64::NAN, ..CassetteSettings::default() };
        let e = settings.validate().unwrap_err();
        assert!(e.to_string().starts_with("cassettes.speed: the replay speed must be"), "{e}");
        assert!(e.to_string().ends_with("got NaN"), "{e}");
        assert_eq!(std::error::Error::source(&e).map(ToString::to_string), Some(SpeedError { speed: f64::NAN }.to_string()));
        let settings = CassetteSettings { ignore_fields: vec![String::new()], ..CassetteSettings::default() };
        assert_eq!(settings.validate().unwrap_err().to_string(), "cassettes.ignore_fields holds an empty name (\"\")");
    }
}
