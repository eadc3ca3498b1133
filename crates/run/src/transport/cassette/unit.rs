//! The cassette of one (model, scenario, trial) unit and the transports that
//! go through it: one for the model under test, one for the model asked to
//! repair its calls (the same model unless configured otherwise), both
//! recorded in the unit's file, as the unit saw them.
//!
//! A request is matched by its key (see `key`) and the model it goes to;
//! identical requests take the recorded answers in their recorded order.
//! When the unit ends, `finish` writes what record and auto mode gathered and
//! says what went unused or was missing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::format::{Cassette, Interaction, RecordedBody, RecordedRequest};
use super::secrets::SecretScan;
use super::{store, CassetteError};
use crate::core::cassette::CassetteSettings;
use crate::core::modes::{CassetteMode, ReplayTiming};
use crate::core::plural::count;
use crate::events::{CassetteEvent, EventKind, UnitKey};
use crate::interrupt::StopFlag;
use crate::transport::{BoxFuture, CassetteMiss, HttpRequest, HttpResponse, NoRecording, Transport, TransportError};

/// The cassette folder of a run, with the settings every unit shares.
#[derive(Debug)]
pub struct Recordings {
    settings: CassetteSettings,
    scan: SecretScan,
    /// Set when the run is asked to stop: replayed delays end at once.
    stop: StopFlag,
    /// How this run was set up, for the command that records a missing unit.
    advice: RecordAdvice,
}

/// What the "record it with" command needs beyond the unit itself, so that
/// it records the same unit when run exactly as printed.
#[derive(Debug, Clone, Default)]
pub struct RecordAdvice {
    /// `--config FILE`: the file the run's configuration came from (`None`: the embedded default).
    pub config: Option<String>,
    /// `--recordings DIR` when the cassette folder is not the default.
    pub recordings: Option<PathBuf>,
    /// `--seed N` when the run's seed is not the default (simulated answers depend on it).
    pub seed: Option<u64>,
    /// Each suite's folder, by suite name: `--suite DIR`.
    pub suites: BTreeMap<String, PathBuf>,
}

impl RecordAdvice {
    /// The command that records `unit`, each value one shell word.
    pub fn command(&self, unit: &UnitKey) -> String {
        let word = |t: &str| crate::quote::shell_word(t);
        let mut cmd = String::from("calltape run --mode record");
        if let Some(config) = &self.config {
            cmd += &format!(" --config {}", word(config));
        }
        if let Some(dir) = self.suites.get(&unit.suite) {
            cmd += &format!(" --suite {}", word(&dir.display().to_string()));
        }
        if let Some(dir) = &self.recordings {
            cmd += &format!(" --recordings {}", word(&dir.display().to_string()));
        }
        if let Some(seed) = self.seed {
            cmd += &format!(" --seed {seed}");
        }
        cmd += &format!(
            " --model {} --filter {}",
            word(&crate::core::glob::glob_escape(&unit.model)),
            word(&crate::core::glob::glob_escape(&unit.scenario))
        );
        if unit.trial > 0 {
            cmd += &format!(" --trials {}", unit.trial + 1);
        }
        cmd
    }
}

impl Recordings {
    pub fn new(settings: CassetteSettings, scan: SecretScan) -> Arc<Recordings> {
        Recordings::until_stopped(settings, scan, StopFlag::default())
    }

    /// Recordings whose replayed delays end as soon as `stop` is set, so
    /// Ctrl-C or SIGTERM stops a replay with recorded timing promptly.
    pub fn until_stopped(settings: CassetteSettings, scan: SecretScan, stop: StopFlag) -> Arc<Recordings> {
        Arc::new(Recordings { settings, scan, stop, advice: RecordAdvice::default() })
    }

    /// The same recordings, advising record commands made with `advice`.
    pub fn with_advice(settings: CassetteSettings, scan: SecretScan, stop: StopFlag, advice: RecordAdvice) -> Arc<Recordings> {
        Arc::new(Recordings { settings, scan, stop, advice })
    }

    pub fn settings(&self) -> &CassetteSettings {
        &self.settings
    }

    /// Opens a unit's cassette. `mode` must not be `Live` (a live unit has no
    /// cassette).
    pub fn open(self: &Arc<Self>, mode: CassetteMode, unit: UnitKey) -> UnitCassette {
        debug_assert!(mode != CassetteMode::Live, "a live unit has no cassette");
        let path = store::cassette_path(&self.settings.dir, &unit);
        let loaded = match mode {
            // Record never replays; the old file is read at the end only to see whether anything changed.
            CassetteMode::Record | CassetteMode::Live => Loaded::Absent,
            CassetteMode::Replay | CassetteMode::Auto => self.load(&path, &unit),
        };
        let state = State { loaded, log: Vec::new(), replayed: 0, recorded: 0, missing: Vec::new(), failure: None };
        UnitCassette { shared: Arc::new(Shared { recordings: self.clone(), mode, path, unit, state: Mutex::new(state) }) }
    }

    fn load(&self, path: &std::path::Path, unit: &UnitKey) -> Loaded {
        if !path.exists() {
            return Loaded::Absent;
        }
        let cassette = match store::read(path) {
            Ok(c) => c,
            Err(e) => return Loaded::Broken { message: e.to_string() },
        };
        if &cassette.unit != unit {
            return Loaded::Broken {
                message: format!("{} holds the cassette of another unit ({:?}): it is misfiled", path.display(), cassette.unit),
            };
        }
        let keys = cassette.interactions.iter().map(|i| i.request.key(&self.settings.ignore_fields)).collect();
        let used = vec![false; cassette.interactions.len()];
        Loaded::Present { interactions: cassette.interactions, keys, used }
    }
}

/// What the unit's file held when the unit started.
enum Loaded {
    /// No file (or record mode, which does not read it).
    Absent,
    Present {
        interactions: Vec<Interaction>,
        /// Each interaction's key, recomputed with this run's ignored fields.
        keys: Vec<String>,
        used: Vec<bool>,
    },
    /// Unreadable, or not this unit's.
    Broken { message: String },
}

struct State {
    loaded: Loaded,
    /// This run's exchanges, in order: replayed and newly recorded.
    log: Vec<Interaction>,
    replayed: usize,
    recorded: usize,
    /// Why each request that found no recording failed.
    missing: Vec<String>,
    /// The first request that failed below the cassette while recording.
    failure: Option<String>,
}

struct Shared {
    recordings: Arc<Recordings>,
    mode: CassetteMode,
    path: PathBuf,
    unit: UnitKey,
    state: Mutex<State>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The command that records this unit.
    fn record_command(&self) -> String {
        self.recordings.advice.command(&self.unit)
    }

    fn unit_label(&self) -> String {
        let u = &self.unit;
        format!("model {}, scenario {}/{}, trial {}", u.model, u.suite, u.scenario, u.trial)
    }
}

/// One unit's cassette. Make its transports with `endpoint`, run the unit,
/// then call `finish`.
pub struct UnitCassette {
    shared: Arc<Shared>,
}

impl UnitCassette {
    /// A transport for requests to `model` (by configured name) in this unit,
    /// recording from `inner` where the mode records. Replay needs no inner transport.
    pub fn endpoint(&self, model: &str, inner: Option<Box<dyn Transport>>) -> CassetteTransport {
        CassetteTransport { shared: self.shared.clone(), model: model.to_string(), inner }
    }

    /// The file this unit's cassette lives in.
    pub fn path(&self) -> &std::path::Path {
        &self.shared.path
    }

    /// Ends the unit: writes the cassette where the mode records and
    /// something was recorded, and reports what was replayed, recorded,
    /// missing and left unused.
    pub fn finish(self) -> CassetteOutcome {
        let shared = &self.shared;
        let mut state = shared.state();
        let unused = match &state.loaded {
            Loaded::Present { interactions, keys, used } => used
                .iter()
                .enumerate()
                .filter(|(_, used)| !**used)
                .map(|(i, _)| UnusedInteraction { index: i, model: interactions[i].model.clone(), key: keys[i].clone() })
                .collect(),
            _ => Vec::new(),
        };
        let mut outcome = CassetteOutcome {
            unit: shared.unit.clone(),
            path: shared.path.clone(),
            mode: shared.mode,
            replayed: state.replayed,
            recorded: state.recorded,
            missing: std::mem::take(&mut state.missing),
            unused,
            written: false,
            error: None,
        };
        let must_write = match shared.mode {
            CassetteMode::Record => true,
            CassetteMode::Auto => state.recorded > 0,
            CassetteMode::Replay | CassetteMode::Live => false,
        };
        if !must_write {
            return outcome;
        }
        if let Some(reason) = state.failure.take() {
            outcome.error = Some(CassetteError::Incomplete { path: shared.path.clone(), reason });
            return outcome;
        }
        let cassette = Cassette::new(shared.unit.clone(), std::mem::take(&mut state.log));
        drop(state);
        // Re-recording what is already there leaves the file (and its date) alone: no diff.
        if shared.mode == CassetteMode::Record && store::read(&shared.path).is_ok_and(|old| old.same_content(&cassette)) {
            return outcome;
        }
        let text = cassette.to_text();
        // The text and what a reader would join: a key split across a stream's events counts.
        if let Some(finding) = shared.recordings.scan.find_in_cassette(&text, &cassette) {
            outcome.error = Some(CassetteError::Secret { path: shared.path.clone(), finding });
            return outcome;
        }
        match store::write_atomic(&shared.path, &text) {
            Ok(()) => outcome.written = true,
            Err(e) => outcome.error = Some(e),
        }
        outcome
    }
}

/// A transport through a unit's cassette, for requests to one model.
pub struct CassetteTransport {
    shared: Arc<Shared>,
    model: String,
    inner: Option<Box<dyn Transport>>,
}

impl CassetteTransport {
    /// The recorded answer to a request with this key, if the cassette has
    /// one left (`None`: send it on and record it); or the error that says
    /// why there is none and how to record it.
    fn replay(&self, key: &str) -> Result<Option<Interaction>, CassetteMiss> {
        let shared = &self.shared;
        let mut state = shared.state();
        let state = &mut *state;
        let path = || shared.path.clone();
        let why = match &mut state.loaded {
            Loaded::Present { interactions, keys, used } => {
                let mine = |i: &usize| !used[*i] && interactions[*i].model == self.model;
                if let Some(i) = (0..keys.len()).filter(mine).find(|&i| keys[i] == key) {
                    used[i] = true;
                    let interaction = interactions[i].clone();
                    state.log.push(interaction.clone());
                    state.replayed += 1;
                    return Ok(Some(interaction));
                }
                if shared.mode == CassetteMode::Auto {
                    return Ok(None);
                }
                match (0..keys.len()).find(mine) {
                    Some(i) => NoRecording::Changed { path: path(), model: self.model.clone(), next_key: keys[i].clone() },
                    None => NoRecording::NotHeld { path: path() },
                }
            }
            Loaded::Absent if shared.mode == CassetteMode::Replay => NoRecording::Absent { path: path() },
            Loaded::Broken { message } => NoRecording::Broken { message: message.clone() },
            // Auto records what is absent; record mode never replays.
            Loaded::Absent => return Ok(None),
        };
        let miss = CassetteMiss::NoRecording {
            unit: shared.unit_label(),
            model: (self.model != shared.unit.model).then(|| self.model.clone()),
            key: key.to_string(),
            why: Box::new(why),
            record: shared.record_command(),
        };
        state.missing.push(miss.to_string());
        Err(miss)
    }

    async fn forward(&self, request: &HttpRequest, recorded: RecordedRequest) -> Result<HttpResponse, TransportError> {
        let shared = &self.shared;
        let Some(inner) = &self.inner else {
            return Err(CassetteMiss::NoSource { mode: shared.mode.name(), model: self.model.clone() }.into());
        };
        match inner.send(request).await {
            Ok(response) => {
                let interaction = Interaction::record(&self.model, recorded, &response, &shared.recordings.settings.ignore_fields);
                // Hand on what the cassette holds, so a recorded run sees exactly what its replay will.
                let response = interaction.response();
                let mut state = shared.state();
                state.log.push(interaction);
                state.recorded += 1;
                Ok(response)
            }
            Err(e) => {
                let mut state = shared.state();
                let n = state.log.len() + 1;
                state.failure.get_or_insert_with(|| format!("request {n} (to {}) failed: {e}", self.model));
                Err(e)
            }
        }
    }
}

impl Transport for CassetteTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let shared = &self.shared;
            let settings = &shared.recordings.settings;
            let key = RecordedRequest::key_of(request, &settings.ignore_fields);
            if shared.mode != CassetteMode::Record {
                if let Some(interaction) = self.replay(&key)? {
                    if let Some(delay) = replay_delay(&interaction, settings.timing, settings.speed) {
                        sleep_unless_stopped(delay, &shared.recordings.stop).await;
                    }
                    return Ok(interaction.response());
                }
            }
            self.forward(request, RecordedRequest::of(request)).await
        })
    }
}

/// The longest single replayed delay, whatever the recording and the speed.
pub const MAX_REPLAY_DELAY: Duration = Duration::from_secs(300);

/// How long to wait before handing back a replayed response: nothing when
/// instant; else the recorded latency (or the last event's offset, if later)
/// divided by `speed`, at most `MAX_REPLAY_DELAY`. Loading checked the
/// recorded times, but this takes any float without panicking.
pub fn replay_delay(interaction: &Interaction, timing: ReplayTiming, speed: f64) -> Option<Duration> {
    if timing == ReplayTiming::Instant {
        return None;
    }
    let last_event = match &interaction.response.body {
        RecordedBody::Events(events) => events.iter().map(|e| e.offset_ms).fold(0.0, f64::max),
        _ => 0.0,
    };
    let ms = interaction.latency_ms.max(last_event) / speed;
    crate::transport::retry::bounded_secs(ms / 1e3, MAX_REPLAY_DELAY).filter(|d| !d.is_zero())
}

/// Sleeps `delay`, waking early when the run is asked to stop.
async fn sleep_unless_stopped(delay: Duration, stop: &StopFlag) {
    let end = tokio::time::Instant::now() + delay;
    while !stop.is_set() {
        let left = end.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return;
        }
        tokio::time::sleep(left.min(Duration::from_millis(100))).await;
    }
}

/// A recorded interaction no request of the unit asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusedInteraction {
    /// 0-based position in the file's `interactions`.
    pub index: usize,
    pub model: String,
    pub key: String,
}

/// What a unit's cassette did.
#[derive(Debug)]
pub struct CassetteOutcome {
    pub unit: UnitKey,
    pub path: PathBuf,
    pub mode: CassetteMode,
    pub replayed: usize,
    pub recorded: usize,
    /// For each request that found no recording (and so failed), why.
    pub missing: Vec<String>,
    /// Recorded interactions nothing asked for (auto mode drops them when it rewrites the file).
    pub unused: Vec<UnusedInteraction>,
    /// Whether the file was (re)written.
    pub written: bool,
    /// Why the file could not be written, when it had to be.
    pub error: Option<CassetteError>,
}

impl CassetteOutcome {
    /// The `cassette` event of this unit, when there is something to say:
    /// an exact replay says nothing, so its events are those of the run it replays.
    pub fn event(&self) -> Option<EventKind> {
        let quiet = self.recorded == 0 && !self.written && self.missing.is_empty() && self.unused.is_empty() && self.error.is_none();
        (!quiet).then(|| {
            EventKind::Cassette(CassetteEvent {
                unit: self.unit.clone(),
                path: self.path.display().to_string(),
                mode: self.mode,
                replayed: self.replayed as u32,
                recorded: self.recorded as u32,
                missing: self.missing.len() as u32,
                unused: self.unused.iter().map(|u| format!("#{} {} {}", u.index + 1, u.model, u.key)).collect(),
                written: self.written,
                error: self.error.as_ref().map(|e| e.to_string()),
            })
        })
    }
}

/// A run's cassette activity, for the lines printed after the tables.
#[derive(Debug, Clone, Default)]
pub struct CassetteSummary {
    pub units: usize,
    pub replayed: usize,
    pub recorded: usize,
    pub written: usize,
    pub missing: usize,
    pub unused: usize,
    /// What the run should say but not fail for.
    pub warnings: Vec<String>,
    /// What fails the run: cassettes that could not be written, and with
    /// `strict`, any replay that was not exact.
    pub errors: Vec<String>,
}

impl CassetteSummary {
    /// Adds a unit's outcome.
    pub fn add(&mut self, outcome: CassetteOutcome, strict: bool) {
        self.units += 1;
        self.replayed += outcome.replayed;
        self.recorded += outcome.recorded;
        self.written += usize::from(outcome.written);
        self.missing += outcome.missing.len();
        self.unused += outcome.unused.len();
        if !outcome.unused.is_empty() {
            let keys: Vec<String> = outcome.unused.iter().map(|u| format!("#{} ({}, key {})", u.index + 1, u.model, u.key)).collect();
            let fate = if outcome.written { "dropped from" } else { "left unused in" };
            let line =
                format!("{} {fate} {}: {}", count(outcome.unused.len(), "recorded interaction"), outcome.path.display(), keys.join(", "));
            if strict {
                self.errors.push(line);
            } else {
                self.warnings.push(line);
            }
        }
        if let Some(first) = outcome.missing.first() {
            if strict {
                self.errors.push(first.clone());
            } else {
                self.warnings.push(first.clone());
            }
        }
        if let Some(e) = outcome.error {
            self.errors.push(e.to_string());
        }
    }

    /// One line on what the cassettes did, if they did anything.
    pub fn headline(&self, dir: &std::path::Path) -> Option<String> {
        if self.units == 0 {
            return None;
        }
        let mut parts = vec![format!("{} replayed", count(self.replayed, "interaction"))];
        if self.recorded > 0 || self.written > 0 {
            parts.push(format!("{} recorded, {} written", self.recorded, count(self.written, "file")));
        }
        if self.missing > 0 {
            parts.push(format!("{} with no recording (error rows)", count(self.missing, "request")));
        }
        if self.unused > 0 {
            parts.push(format!("{} unused", count(self.unused, "recorded interaction")));
        }
        Some(format!("cassettes ({}): {}", dir.display(), parts.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::ResponseBody;
    use serde_json::json;

    fn interaction(latency_ms: f64, body: RecordedBody) -> Interaction {
        let request = HttpRequest { method: "POST".into(), url: "/x".into(), headers: vec![], body: json!({}) };
        let mut i = Interaction::record(
            "m",
            RecordedRequest::of(&request),
            &HttpResponse { status: 200, headers: vec![], body: ResponseBody::Json(json!({})), latency_ms },
            &[],
        );
        i.response.body = body;
        i
    }

    #[test]
    fn replay_delay_scales_the_recorded_latency() {
        let i = interaction(400.0, RecordedBody::Json(json!({})));
        assert_eq!(replay_delay(&i, ReplayTiming::Instant, 1.0), None);
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, 1.0), Some(Duration::from_millis(400)));
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, 4.0), Some(Duration::from_millis(100)));
        let events = vec![crate::transport::SseEvent { offset_ms: 900.0, event: None, data: "[DONE]".into() }];
        let stream = interaction(100.0, RecordedBody::Events(events));
        assert_eq!(replay_delay(&stream, ReplayTiming::Recorded, 2.0), Some(Duration::from_millis(450)));
    }

    #[test]
    fn replay_delay_is_capped_and_takes_any_number() {
        let i = interaction(900.0, RecordedBody::Json(json!({})));
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, 0.001), Some(MAX_REPLAY_DELAY));
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, 1e-300), Some(MAX_REPLAY_DELAY));
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, 0.0), Some(MAX_REPLAY_DELAY));
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, f64::NAN), None);
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, -1.0), None);
        assert_eq!(replay_delay(&i, ReplayTiming::Recorded, f64::INFINITY), None);
        for latency in [1e300, f64::INFINITY, f64::MAX] {
            assert_eq!(
                replay_delay(&interaction(latency, RecordedBody::Json(json!({}))), ReplayTiming::Recorded, 1.0),
                Some(MAX_REPLAY_DELAY)
            );
        }
        for latency in [f64::NAN, -5.0, f64::NEG_INFINITY, 0.0] {
            assert_eq!(replay_delay(&interaction(latency, RecordedBody::Json(json!({}))), ReplayTiming::Recorded, 1.0), None, "{latency}");
        }
        let events = vec![crate::transport::SseEvent { offset_ms: 1e300, event: None, data: "[DONE]".into() }];
        assert_eq!(replay_delay(&interaction(1.0, RecordedBody::Events(events)), ReplayTiming::Recorded, 1.0), Some(MAX_REPLAY_DELAY));
    }

    #[tokio::test(start_paused = true)]
    async fn a_replayed_delay_ends_when_the_run_is_stopped() {
        let stop = StopFlag::default();
        let started = tokio::time::Instant::now();
        let sleeper = tokio::spawn({
            let stop = stop.clone();
            async move { sleep_unless_stopped(MAX_REPLAY_DELAY, &stop).await }
        });
        tokio::time::sleep(Duration::from_secs(2)).await;
        stop.set();
        sleeper.await.unwrap();
        let waited = started.elapsed();
        assert!(waited >= Duration::from_secs(2) && waited <= Duration::from_millis(2200), "{waited:?}");
        // Unstopped, it sleeps the whole delay.
        let started = tokio::time::Instant::now();
        sleep_unless_stopped(Duration::from_millis(1234), &StopFlag::default()).await;
        assert_eq!(started.elapsed(), Duration::from_millis(1234));
    }
}
