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
pub mod recorded;
pub mod secrets;
pub mod store;
pub mod unit;
pub mod verify;

use std::path::PathBuf;

pub use format::{Cassette, Interaction, FORMAT_VERSION};
pub use secrets::{SecretFinding, SecretScan};
pub use unit::{CassetteOutcome, CassetteSummary, CassetteTransport, RecordAdvice, Recordings, UnitCassette};

/// Why a cassette could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    /// The file is not a cassette this calltape reads; the source says why.
    #[error("{path}: {source}")]
    Format { path: PathBuf, source: format::FormatError },
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
