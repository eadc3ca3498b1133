//! Cassettes: record every HTTP exchange of a (model, scenario, trial) unit to
//! one JSON file, and replay it later with no network and no key.
//!
//! The layer wraps whatever transport answers a model (the simulator now,
//! reqwest later) and sits under the provider adapters, so a replay runs the
//! same parsing code as the run that was recorded. It knows nothing of
//! providers: a request is a method, a path, headers and a JSON body; a
//! response a status, headers and a JSON, text or event-stream body.
//!
//! - `format`: the file: what an interaction holds, canonical serialisation.
//! - `key`: the match key of a request (a hash of its canonical body).
//! - `secrets`: header allowlists, URL key stripping, the scan before a write.
//! - `store`: where a unit's file lives, reading it, writing it atomically.
//! - `unit`: the recording and replaying transport of one unit.
//! - `verify`: `calltape cassettes verify` and `prune`.

pub mod format;
pub mod key;
pub mod secrets;
pub mod store;
pub mod unit;
pub mod verify;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use format::{Cassette, Interaction, FORMAT_VERSION};
pub use secrets::{SecretFinding, SecretScan};
pub use unit::{sim_source, CassetteOutcome, CassetteSummary, CassetteTransport, Recordings, UnitCassette};

/// How a model's requests are answered: straight through, or through a cassette.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum CassetteMode {
    /// Straight to the model (the simulator or the network); nothing is read or written.
    #[default]
    Live,
    /// To the model, and every exchange of a unit is written to its cassette (replacing it).
    Record,
    /// From the cassettes only: a request with no recording is an error. No network, no key.
    Replay,
    /// Replay what is recorded; send what is not to the model and add it to the cassette.
    Auto,
}

impl CassetteMode {
    /// The name used in `calltape.toml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CassetteMode::Live => "live",
            CassetteMode::Record => "record",
            CassetteMode::Replay => "replay",
            CassetteMode::Auto => "auto",
        }
    }
}

/// How long a replayed response takes to arrive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ReplayTiming {
    /// At once.
    #[default]
    Instant,
    /// After the recorded latency, divided by the replay speed.
    Recorded,
}

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

/// Why a cassette could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error(
        "refused to write {path}: {finding}; nothing was written. Keys belong in environment variables, never in a \
         scenario, a request body or a header that is recorded; if this text is not a key, change it so it does not look like one"
    )]
    Secret { path: PathBuf, finding: SecretFinding },
    #[error("{path} was not written: {reason}")]
    Incomplete { path: PathBuf, reason: String },
}
