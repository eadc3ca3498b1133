//! The closed sets of modes that configuration, scenarios and the pipeline
//! share: how approvals are decided, how much repair runs, how requests are
//! answered.

use serde::{Deserialize, Serialize};

/// How approvals are decided.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Approve every call, as autonomous agents run.
    #[default]
    Auto,
    /// Deny every call that needs approval.
    Deny,
    /// Ordered rules, first match wins.
    Script,
    /// A person answers at the terminal.
    Interactive,
}

/// What to do when approval is needed and nothing can answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unanswered {
    /// Fail closed: deny.
    #[default]
    Deny,
    /// Approve, with a warning in the events and the report.
    Approve,
}

/// How much of the repair pipeline runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum RepairMode {
    /// No repair: exact tool names and strict JSON only.
    Off,
    /// Name, syntax and schema repair in-process; no model is asked.
    Local,
    /// Local repair, then ask a model to fix what is still invalid.
    #[default]
    Full,
}

impl RepairMode {
    /// The name a configuration and the tables use.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairMode::Off => "off",
            RepairMode::Local => "local",
            RepairMode::Full => "full",
        }
    }
}

/// How a model's requests are answered: straight through, or through a cassette.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum CassetteMode {
    /// Straight to the model over the network; nothing is read or written.
    /// (A simulated model is computed in-process in every mode.)
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
