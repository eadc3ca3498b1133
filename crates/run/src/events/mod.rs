//! Events are the spine of a run: the runner emits typed events, each is
//! appended to `events.jsonl` and flushed as it happens (an interrupted run
//! loses nothing), and every table is computed from them alone.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::check::{FailedExpectation, OutcomeReport};
use crate::core::provider::ProviderKind;

use crate::core::modes::CassetteMode;
use crate::core::prices::{Prices, Tier};
use crate::pipeline::approval::Decider;
mod decode;
pub mod stream;

use crate::pipeline::{CallIssue, CallOutcome, Fix, InvalidKind, StageTimings};

/// Characters of a model's text or reasoning kept in an event: enough to
/// read a turn, not a cassette's whole body.
pub const TEXT_CHARS: usize = 2000;

/// Characters of a tool's result kept in an event.
pub const RESULT_CHARS: usize = crate::quote::CELL_CHARS;

/// Which (model, scenario, trial) an event belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnitKey {
    pub model: String,
    pub suite: String,
    pub scenario: String,
    pub trial: u32,
}

/// A model as the run saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub provider: ProviderKind,
    pub model_id: String,
    pub tier: Tier,
    pub price: Prices,
    /// The arm this model runs under, when the run has arms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arm: Option<ArmInfo>,
    /// For a simulator with a fitted profile: what it was fitted to
    /// (`FittedFrom::describe`), so reports name it as a model of a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<String>,
}

/// A model variant's arm and the configured model it is a variant of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmInfo {
    pub name: String,
    pub base: String,
    /// The arm's repair mode.
    pub repair: crate::core::modes::RepairMode,
}

/// Why a request was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestPurpose {
    /// A turn of the scenario's conversation.
    Turn,
    /// A request asking a model to fix an invalid tool call.
    Repair,
}

/// Which repair stage an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairStage {
    /// Name, syntax and schema fixes in-process.
    Local,
    /// A model asked to fix the call.
    Model,
}

/// What a model did in the turn after a denial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DenialBehaviour {
    /// Made the same call again.
    RetriedSame,
    /// Called the same tool with other arguments.
    RetriedChanged,
    /// Called other tools only.
    OtherTool,
    /// Answered without calling a tool.
    Answered,
    /// The step limit ended the conversation first.
    StepLimit,
}

impl DenialBehaviour {
    /// Every behaviour, in report column order.
    pub const ALL: [DenialBehaviour; 5] = [
        DenialBehaviour::RetriedSame,
        DenialBehaviour::RetriedChanged,
        DenialBehaviour::OtherTool,
        DenialBehaviour::Answered,
        DenialBehaviour::StepLimit,
    ];

    /// The report column of this behaviour.
    pub fn column(self) -> &'static str {
        match self {
            DenialBehaviour::RetriedSame => "after_denial_retried_same",
            DenialBehaviour::RetriedChanged => "after_denial_retried_changed",
            DenialBehaviour::OtherTool => "after_denial_other_tool",
            DenialBehaviour::Answered => "after_denial_answered",
            DenialBehaviour::StepLimit => "after_denial_step_limit",
        }
    }
}

/// Why a unit ended without the model's answer to judge: the model never
/// answered, so the unit is an error, not a failure of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitError {
    /// Replay found no recording of a request.
    NoRecording,
    /// The server refused the key (HTTP 401 or 403).
    Auth,
    /// The server answered with another error status (after retries).
    Status,
    /// The server could not be reached, or did not answer in time.
    Connection,
    /// Anything else: an unreadable response, a limit passed, no transport.
    Request,
    /// A tool's schema that provider strict mode cannot take, for a model
    /// with `strict_tools`: the unit is not run rather than run non-strict.
    StrictUnsupported,
}

impl UnitError {
    /// Every kind, in the order reports list them.
    pub const ALL: [UnitError; 6] = [
        UnitError::NoRecording,
        UnitError::Auth,
        UnitError::Status,
        UnitError::Connection,
        UnitError::Request,
        UnitError::StrictUnsupported,
    ];

    /// Its name in events and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitError::NoRecording => "no_recording",
            UnitError::Auth => "auth",
            UnitError::Status => "status",
            UnitError::Connection => "connection",
            UnitError::Request => "request",
            UnitError::StrictUnsupported => "strict_unsupported",
        }
    }

    /// The kind of this name (`as_str`), if any.
    pub fn from_name(name: &str) -> Option<UnitError> {
        UnitError::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// What it means, as a user reads it.
    pub fn describe(self) -> &'static str {
        match self {
            UnitError::NoRecording => "no recording to replay",
            UnitError::Auth => "the server refused the API key (HTTP 401/403)",
            UnitError::Status => "the server answered with an error status",
            UnitError::Connection => "the server could not be reached or timed out",
            UnitError::Request => "the request failed",
            UnitError::StrictUnsupported => "schema not supported by strict mode (strict_tools)",
        }
    }
}

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    RunStarted(RunStartedEvent),
    ScenarioStarted(ScenarioStartedEvent),
    ModelRequest(ModelRequestEvent),
    ToolCall(ToolCallEvent),
    ToolRepair(ToolRepairEvent),
    ToolApproval(ToolApprovalEvent),
    /// What the model did next after one of its calls was denied.
    DenialFollowup(DenialFollowupEvent),
    ToolExecuted(ToolExecutedEvent),
    ScenarioFinished(ScenarioFinishedEvent),
    /// What a unit's cassette did, when there is something to say: it
    /// recorded or wrote, a request found no recording, or recorded
    /// interactions went unused. An exact replay emits none.
    Cassette(CassetteEvent),
    RunFinished(RunFinishedEvent),
    /// The run was stopped (Ctrl-C, SIGTERM) before every unit ran;
    /// `calltape run --resume` runs the rest.
    RunInterrupted(RunInterruptedEvent),
}

/// The body of [`EventKind::RunStarted`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStartedEvent {
    pub run_id: String,
    pub models: Vec<ModelInfo>,
    pub suites: Vec<String>,
    pub trials: u32,
    pub seed: u64,
    pub config: String,
}

/// The body of [`EventKind::ScenarioStarted`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioStartedEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
}

/// The body of [`EventKind::ModelRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequestEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub step: u32,
    pub purpose: RequestPurpose,
    /// For a repair request: the tool whose call it repairs.
    pub repair_of: Option<String>,
    pub status: Option<u16>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cost_usd: f64,
    pub latency_ms: f64,
    /// Time to the first streamed event (streaming requests only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    pub error: Option<String>,
    /// The server's message when it rejected the model's output as a
    /// call (the model answered; this is not a request error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected_call: Option<String>,
    /// The answer's text, as the transport redacted it, cut to
    /// [`TEXT_CHARS`] with a byte count (see `quote::bounded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Reasoning text the provider returned beside the answer; bounded likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`…), as the provider said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

/// The body of [`EventKind::ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub step: u32,
    pub call_id: String,
    /// The name as the model wrote it.
    pub raw_name: String,
    /// The resolved tool, or the raw name when none matched.
    pub tool: String,
    pub arguments: String,
    pub outcome: CallOutcome,
    /// Which stage made it valid, when it was repaired.
    pub repaired_by: Option<RepairStage>,
    /// What was wrong with the call as the model sent it.
    pub invalid_kinds: Vec<InvalidKind>,
    pub issues: Vec<CallIssue>,
    /// What is still wrong, when the outcome is invalid.
    pub remaining_kinds: Vec<InvalidKind>,
    pub fixes: Vec<Fix>,
    pub timings: StageTimings,
    /// The arguments as they went on (after repair); absent for an invalid call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_arguments: Option<serde_json::Value>,
}

/// The body of [`EventKind::ToolRepair`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRepairEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub call_id: String,
    pub tool: String,
    pub stage: RepairStage,
    /// 1-based attempt number (model repair); 1 for local repair.
    pub attempt: u32,
    pub fixes: Vec<Fix>,
    pub succeeded: bool,
    /// Local repair: microseconds in-process. Model repair: the request's milliseconds.
    pub latency_us: Option<f64>,
    pub latency_ms: Option<f64>,
    pub error: Option<String>,
}

/// The body of [`EventKind::ToolApproval`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolApprovalEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub call_id: String,
    pub tool: String,
    /// The arguments judged: after repair, as they would run.
    pub arguments: serde_json::Value,
    pub approved: bool,
    pub reason: Option<String>,
    pub decided_by: Decider,
    /// The script rule that decided, as `scenario#N` or `config#N`.
    pub rule: Option<String>,
    /// Set when the call was approved only because nothing could answer.
    pub warning: Option<String>,
    pub latency_ms: f64,
}

/// The body of [`EventKind::DenialFollowup`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DenialFollowupEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub call_id: String,
    pub tool: String,
    pub behaviour: DenialBehaviour,
}

/// The body of [`EventKind::ToolExecuted`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolExecutedEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub call_id: String,
    pub tool: String,
    pub is_error: bool,
    pub scripted: bool,
    /// What went back to the model, cut to [`RESULT_CHARS`] with a byte count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// The body of [`EventKind::ScenarioFinished`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioFinishedEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub passed: bool,
    pub reason: String,
    pub steps: u32,
    /// The unit could not run to a verdict (see `error_kind`): it is
    /// counted apart from the pass rates, not as a failure.
    pub error: bool,
    /// The expectation a failed unit missed (absent when it passed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<FailedExpectation>,
    /// Why it could not, when `error` is set (absent in events files
    /// written before it was recorded: read as `UnitError::Request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<UnitError>,
    /// How a stateful scenario's outcome expectations came out (absent for others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeReport>,
}

/// The body of [`EventKind::Cassette`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteEvent {
    #[serde(flatten)]
    pub unit: UnitKey,
    pub path: String,
    pub mode: CassetteMode,
    pub replayed: u32,
    pub recorded: u32,
    pub missing: u32,
    /// Recorded interactions nothing asked for, as `#N model key`.
    pub unused: Vec<String>,
    pub written: bool,
    pub error: Option<String>,
}

/// The body of [`EventKind::RunFinished`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFinishedEvent {
    pub units: u64,
    pub elapsed_ms: f64,
}

/// The body of [`EventKind::RunInterrupted`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInterruptedEvent {
    pub completed: u64,
    pub remaining: u64,
}

impl EventKind {
    /// The unit an event belongs to, if any.
    pub fn unit(&self) -> Option<&UnitKey> {
        match self {
            EventKind::ScenarioStarted(ScenarioStartedEvent { unit })
            | EventKind::ModelRequest(ModelRequestEvent { unit, .. })
            | EventKind::ToolCall(ToolCallEvent { unit, .. })
            | EventKind::ToolRepair(ToolRepairEvent { unit, .. })
            | EventKind::ToolApproval(ToolApprovalEvent { unit, .. })
            | EventKind::DenialFollowup(DenialFollowupEvent { unit, .. })
            | EventKind::ToolExecuted(ToolExecutedEvent { unit, .. })
            | EventKind::ScenarioFinished(ScenarioFinishedEvent { unit, .. })
            | EventKind::Cassette(CassetteEvent { unit, .. }) => Some(unit),
            EventKind::RunStarted(RunStartedEvent { .. })
            | EventKind::RunFinished(RunFinishedEvent { .. })
            | EventKind::RunInterrupted(RunInterruptedEvent { .. }) => None,
        }
    }

    /// Whether the events before it are all a resume would keep: a unit's
    /// end, a run's start or end, a cassette's report. The log flushes there.
    fn closes_a_unit_or_run(&self) -> bool {
        !matches!(
            self,
            EventKind::ScenarioStarted(_)
                | EventKind::ModelRequest(_)
                | EventKind::ToolCall(_)
                | EventKind::ToolRepair(_)
                | EventKind::ToolApproval(_)
                | EventKind::DenialFollowup(_)
                | EventKind::ToolExecuted(_)
        )
    }
}

/// An event with its wall-clock time (milliseconds since the Unix epoch).
/// Written by serde's derive; read by `decode`, which takes the body
/// straight from the line when `ts_ms` and `event` come first, as calltape
/// writes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub ts_ms: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Problems with an events file.
#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: not a calltape event: {message}")]
    Parse { path: PathBuf, line: usize, message: String },
    #[error(transparent)]
    Folder(Box<crate::run_folder::FolderError>),
    /// A line or the file passed a read limit (`core::limits`); says which and how to raise it.
    #[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    TooBig { path: PathBuf, line: Option<usize>, message: String },
}

/// The append-only events file of a run.
pub struct EventLog {
    path: PathBuf,
    writer: Mutex<BufWriter<File>>,
    /// The run's configured secrets: the last net before a line is written.
    redactor: crate::wire::redact::Redactor,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl EventLog {
    /// Creates a new events file; an existing file (or a link) at `path` is
    /// an error, never truncated.
    pub fn create(path: &Path) -> Result<EventLog, EventsError> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| EventsError::Io { path: path.into(), source })?;
        Ok(EventLog::over(path, file))
    }

    /// The events file of a new run folder (see `run_folder::create_events`).
    pub fn create_in(dir: &Path) -> Result<EventLog, EventsError> {
        let path = dir.join(crate::run_folder::EVENTS_FILE);
        let file = crate::run_folder::create_events(dir).map_err(|e| EventsError::Folder(Box::new(e)))?;
        Ok(EventLog::over(&path, file))
    }

    /// The events file of a run folder being resumed, opened to add to it:
    /// a regular file in a folder calltape made, never a link's target.
    pub fn append_in(dir: &Path) -> Result<EventLog, EventsError> {
        let path = dir.join(crate::run_folder::EVENTS_FILE);
        let file = crate::run_folder::append_events(dir).map_err(|e| EventsError::Folder(Box::new(e)))?;
        Ok(EventLog::over(&path, file))
    }

    fn over(path: &Path, file: File) -> EventLog {
        EventLog { path: path.into(), writer: Mutex::new(BufWriter::new(file)), redactor: Default::default() }
    }

    /// This log with `redactor` applied to every string of every event it writes.
    pub fn with_redactor(mut self, redactor: crate::wire::redact::Redactor) -> EventLog {
        self.redactor = redactor;
        self
    }

    /// The run's configured secrets, for what is redacted before an event is made.
    pub fn redactor(&self) -> &crate::wire::redact::Redactor {
        &self.redactor
    }

    /// Appends one event; a unit's events are flushed to disk when it finishes.
    pub fn emit(&self, kind: EventKind) -> Result<(), EventsError> {
        self.emit_event(&Event { ts_ms: now_ms(), kind })
    }

    /// Appends an event as it is, with its own time (merging runs).
    pub fn emit_event(&self, event: &Event) -> Result<(), EventsError> {
        let mut line = serde_json::to_string(event).expect("events serialise");
        // Rewritten (as decoded JSON, so escapes are caught) only when a secret is in it.
        if self.redactor.finds(&line) {
            let mut value = serde_json::to_value(event).expect("events serialise");
            self.redactor.json(&mut value);
            line = value.to_string();
        }
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let written = writeln!(w, "{line}");
        // A unit's events reach the file together when it ends (a flush per
        // event was a write call each, ~10% of a simulated run): resume
        // drops a unit cut off half-way and any half line, so nothing a
        // resume keeps waits in the buffer.
        let written = if event.kind.closes_a_unit_or_run() { written.and_then(|_| w.flush()) } else { written };
        written.map_err(|source| EventsError::Io { path: self.path.clone(), source })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads every event of an events file.
///
/// The whole file is held, so it is refused past `EVENTS_FILE_BYTES`.
pub fn read_events(path: &Path) -> Result<Vec<Event>, EventsError> {
    let file = File::open(path).map_err(|source| EventsError::Io { path: path.into(), source })?;
    let limit = crate::core::limits::EVENTS_FILE_BYTES;
    let size = file.metadata().map_err(|source| EventsError::Io { path: path.into(), source })?.len();
    if size > limit.in_force() {
        let message = limit.passed(&format!("the events file ({size} bytes) is read whole here and"));
        return Err(EventsError::TooBig { path: path.into(), line: None, message });
    }
    parse_events(BufReader::new(file), path)
}

/// Reads every event from `reader`; `path` names it in errors. A line
/// longer than `EVENT_LINE_BYTES` is an error, not an allocation.
pub fn parse_events(mut reader: impl BufRead, path: &Path) -> Result<Vec<Event>, EventsError> {
    let max = crate::core::limits::EVENT_LINE_BYTES;
    let max_bytes = max.in_force();
    let mut events = Vec::new();
    let mut bytes = Vec::new();
    for i in 0.. {
        bytes.clear();
        let read = (&mut reader)
            .take(max_bytes.saturating_add(1))
            .read_until(b'\n', &mut bytes)
            .map_err(|source| EventsError::Io { path: path.into(), source })?;
        if read == 0 {
            break;
        }
        if bytes.len() as u64 > max_bytes && bytes.last() != Some(&b'\n') {
            return Err(EventsError::TooBig { path: path.into(), line: Some(i + 1), message: max.passed("the line") });
        }
        let line = std::str::from_utf8(&bytes).map_err(|_| EventsError::Parse {
            path: path.into(),
            line: i + 1,
            message: "not UTF-8 text".into(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let event =
            serde_json::from_str(line).map_err(|e| EventsError::Parse { path: path.into(), line: i + 1, message: e.to_string() })?;
        events.push(event);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let log = EventLog::create(&path).unwrap();
        let unit = UnitKey { model: "m".into(), suite: "s".into(), scenario: "a".into(), trial: 0 };
        let kind = EventKind::ScenarioFinished(ScenarioFinishedEvent {
            outcome: None,
            unit,
            passed: true,
            reason: "passed".into(),
            steps: 2,
            error: false,
            expectation: None,
            error_kind: None,
        });
        log.emit(kind.clone()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""event":"scenario_finished","model":"m""#), "{text}");
        let events = read_events(&path).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].kind, kind);
    }
}
