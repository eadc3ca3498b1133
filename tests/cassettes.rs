//! Cassettes through the runner: a suite recorded from models behind a real
//! HTTP server (the simulators, served by wiremock: see `common::served`)
//! and replayed with nothing under the cassettes gives the same events and
//! tables as the live run, apart from run ids and wall-clock times; missing
//! and unused recordings are reported as a user needs them to be; and a
//! simulated model is computed in-process whatever the mode.

mod common;

use std::path::{Path, PathBuf};

use calltape::config::{Config, EMBEDDED_DEFAULT};
use common::served::{as_remote, serve_sims};

use calltape::core::modes::CassetteMode;
use calltape::events::{self, CassetteEvent, Event, EventKind, ModelRequestEvent, ScenarioFinishedEvent, UnitKey};
use calltape::metrics::{self, Tables};
use calltape::runner::{self, RunError, RunFolder};
use calltape::scenario::{self, Suite};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn coding_suite() -> Vec<Suite> {
    scenario::load_suites(&[root().join("scenarios/coding")]).unwrap()
}

/// The embedded default, on `models`, writing runs under `out` and cassettes under `recordings`.
fn config(models: &[&str], out: &Path, recordings: &Path, mode: CassetteMode) -> Config {
    let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
    let names: Vec<String> = models.iter().map(|s| s.to_string()).collect();
    config.select_models(&names).unwrap();
    config.run.out_dir = out.to_path_buf();
    config.run.mode = mode;
    config.cassettes.dir = recordings.to_path_buf();
    config
}

/// `config`, with the simulated models as remote ones that no server
/// answers: only their recordings can.
fn remote_config(models: &[&str], out: &Path, recordings: &Path, mode: CassetteMode) -> Config {
    let mut config = config(models, out, recordings, mode);
    as_remote(&mut config, NO_SERVER);
    config
}

/// A base URL where nothing listens.
const NO_SERVER: &str = "http://127.0.0.1:9/v1";

async fn run(config: &Config, suites: &[Suite]) -> (RunFolder, Vec<Event>, Tables) {
    let folder =
        runner::run(config, "test", suites, false, runner::RunTarget::New(&calltape::plan::RunPlan::whole(config.clone(), "test")))
            .await
            .unwrap();
    let events = events::read_events(&folder.dir.join("events.jsonl")).unwrap();
    let tables = metrics::build_tables(&events).unwrap();
    (folder, events, tables)
}

/// The events as a comparable list: grouped by unit (units run
/// concurrently), without wall-clock times, run ids, in-process
/// measurements, and the cassette layer's own reports.
fn comparable(events: &[Event]) -> Vec<Value> {
    let mut rows: Vec<(Option<UnitKey>, Value)> = events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::Cassette(CassetteEvent { .. })))
        .map(|e| {
            let mut v = serde_json::to_value(e).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("ts_ms");
            // Measured on the wall clock over HTTP: differs between live runs.
            o.remove("latency_ms");
            match o["event"].as_str().unwrap() {
                "run_started" => {
                    o.remove("run_id");
                }
                "run_finished" => {
                    o.remove("elapsed_ms");
                }
                "tool_call" => {
                    o.remove("timings");
                }
                "tool_approval" => {
                    o.remove("latency_ms");
                }
                "tool_repair" if o["stage"] == "local" => {
                    o.remove("latency_us");
                }
                _ => {}
            }
            // Events of a unit carry its key; the run's own events do not.
            let unit = serde_json::from_value(v.clone()).ok();
            (unit, v)
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows.into_iter().map(|(_, v)| v).collect()
}

/// Whether a column is measured in-process on the wall clock (local repair
/// microseconds, latencies): the one thing that differs between identical runs.
fn measured(column: &str) -> bool {
    column.starts_with("repair_local_") || column.starts_with("repair_model_p") || column.contains("latency")
}

fn assert_same_tables(a: &Tables, b: &Tables, what: &str) {
    let (x, y) = (metrics::table::json_rows(&a.rows), metrics::table::json_rows(&b.rows));
    for ((name, x), (_, y)) in x.into_iter().zip(y) {
        assert_eq!(x.len(), y.len(), "{what}: {name} has another number of rows");
        let mut differ: Vec<&str> = Vec::new();
        for (rx, ry) in x.iter().zip(&y) {
            for (column, value) in rx.iter().filter(|(c, _)| !measured(c)) {
                if ry.get(column) != Some(value) && !differ.contains(&column.as_str()) {
                    differ.push(column);
                }
            }
        }
        assert!(differ.is_empty(), "{what}: {name} differs in {differ:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_with_nothing_under_the_cassettes_equals_the_live_run() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    let suites = coding_suite();
    // A strong model, one that needs model repair, one with wrong tool names; two trials.
    let models = ["sim-strong", "sim-cheap-types", "sim-cheap-names"];
    let mut live = config(&models, &dir.path().join("live"), &recordings, CassetteMode::Live);
    live.run.trials = 2;
    let server = serve_sims(&mut live, &suites).await;
    let (live_folder, live_events, live_tables) = run(&live, &suites).await;
    assert_eq!(live_folder.cassettes.units, 0, "a live run has no cassettes");
    assert!(!recordings.exists());

    let mut record = live.clone();
    record.run.mode = CassetteMode::Record;
    record.run.out_dir = dir.path().join("record");
    let (folder, record_events, record_tables) = run(&record, &suites).await;
    let units = models.len() * suites[0].len() * 2;
    assert_eq!((folder.cassettes.units, folder.cassettes.written), (units, units));
    assert!(folder.cassettes.errors.is_empty(), "{:?}", folder.cassettes.errors);
    assert!(recordings.join("coding/sim-cheap-types/edit-fix-typo.t1.json").is_file());
    assert_eq!(comparable(&record_events), comparable(&live_events), "recording changed what the run saw");
    assert_same_tables(&record_tables, &live_tables, "record vs live");

    // Replay with no server behind the models: nothing but the cassettes can answer.
    drop(server);
    let mut replay = live.clone();
    replay.run.mode = CassetteMode::Replay;
    replay.run.out_dir = dir.path().join("replay");
    as_remote(&mut replay, NO_SERVER);
    for m in &mut replay.models {
        m.base_url = Some(NO_SERVER.into());
    }
    let (folder, replay_events, replay_tables) = run(&replay, &suites).await;
    let c = &folder.cassettes;
    assert_eq!((c.missing, c.unused, c.recorded, c.written), (0, 0, 0, 0), "{:?}", c.warnings);
    assert!(c.replayed > units, "every unit made at least one request");
    assert!(!replay_events.iter().any(|e| matches!(e.kind, EventKind::Cassette(CassetteEvent { .. }))), "an exact replay reports nothing");
    assert_eq!(comparable(&replay_events), comparable(&live_events));
    assert_same_tables(&replay_tables, &live_tables, "replay vs live");
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_to_a_repair_model_are_recorded_in_the_unit_that_made_them() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    let suites = coding_suite();
    let mut record = config(&["sim-cheap-types", "sim-strong"], &dir.path().join("record"), &recordings, CassetteMode::Record);
    record.pipeline.repair_model = Some("sim-strong".into());
    let _server = serve_sims(&mut record, &suites).await;
    let (_, record_events, record_tables) = run(&record, &suites).await;
    let repairs_by_strong = record_events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::ModelRequest(ModelRequestEvent { unit, repair_of: Some(_), .. }) if unit.model == "sim-cheap-types"))
        .count();
    assert!(repairs_by_strong > 0, "the suite should make sim-cheap-types need model repair");
    let mut cassettes_with_repairs = 0;
    for entry in std::fs::read_dir(recordings.join("coding/sim-cheap-types")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let c: Value = serde_json::from_str(&text).unwrap();
        let by_strong = c["interactions"].as_array().unwrap().iter().filter(|i| i["model"] == "sim-strong").count();
        cassettes_with_repairs += usize::from(by_strong > 0);
    }
    assert!(cassettes_with_repairs > 0);

    let mut replay = record.clone();
    replay.run.mode = CassetteMode::Replay;
    replay.run.out_dir = dir.path().join("replay");
    for m in &mut replay.models {
        m.base_url = Some(NO_SERVER.into());
    }
    let (folder, replay_events, replay_tables) = run(&replay, &suites).await;
    assert_eq!((folder.cassettes.missing, folder.cassettes.unused), (0, 0));
    assert_eq!(comparable(&replay_events), comparable(&record_events));
    assert_same_tables(&replay_tables, &record_tables, "replay vs record, with a repair model");
}

/// The three `parallel-*` scenarios of the coding suite.
fn parallel_reads() -> Vec<Suite> {
    let mut suites = coding_suite();
    suites[0].retain(|id| id.starts_with("parallel-read"));
    suites
}

/// Records the three `parallel-*` scenarios of one (served) model into `recordings`.
async fn record_some(dir: &Path, recordings: &Path, model: &str) -> Vec<Suite> {
    let suites = parallel_reads();
    let mut record = config(&[model], &dir.join("record"), recordings, CassetteMode::Record);
    let _server = serve_sims(&mut record, &suites).await;
    run(&record, &suites).await;
    suites
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_recording_is_an_error_row_that_says_how_to_record_it() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    let suites = record_some(dir.path(), &recordings, "sim-cheap-syntax").await;
    let gone = recordings.join("coding/sim-cheap-syntax/parallel-read-two-ranges.t0.json");
    std::fs::remove_file(&gone).unwrap();

    let replay = remote_config(&["sim-cheap-syntax"], &dir.path().join("replay"), &recordings, CassetteMode::Replay);
    let (folder, events, tables) = run(&replay, &suites).await;
    assert_eq!(folder.cassettes.missing, 1);
    assert!(folder.cassettes.errors.is_empty(), "not strict: a warning, and the row is an error");
    let expected = format!(
        "no recording for model sim-cheap-syntax, scenario coding/parallel-read-two-ranges, trial 0 (request key {}): there is no \
         cassette {}. Record it with `calltape run --mode record --config test --suite scenarios/coding --recordings {} --model \
         sim-cheap-syntax --filter parallel-read-two-ranges`, or run with --mode live",
        request_key_of(&events),
        gone.display(),
        recordings.display()
    );
    assert_eq!(folder.cassettes.warnings, [expected.as_str()]);
    let finished = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ScenarioFinished(ScenarioFinishedEvent { unit, error, reason, .. })
                if unit.scenario == "parallel-read-two-ranges" =>
            {
                Some((*error, reason))
            }
            _ => None,
        })
        .unwrap();
    assert!(finished.0, "the unit is an error row");
    assert!(finished.1.contains(&expected), "{}", finished.1);
    // The other scenarios replayed and passed or failed on their own.
    assert_eq!(tables.rows.scenarios.len(), suites[0].len());

    let mut strict = replay.clone();
    strict.cassettes.strict = true;
    let (folder, _, _) = run(&strict, &suites).await;
    assert_eq!(folder.cassettes.errors, [expected.as_str()]);

    let mut fail_fast = replay.clone();
    fail_fast.run.fail_fast = true;
    match runner::run(
        &fail_fast,
        "test",
        &suites,
        false,
        runner::RunTarget::New(&calltape::plan::RunPlan::whole(fail_fast.clone(), "test")),
    )
    .await
    {
        Err(RunError::Stopped(message)) => assert_eq!(message, expected),
        other => panic!("expected the run to stop, got {other:?}"),
    }
}

/// The key of the request that found no recording, from its event.
fn request_key_of(events: &[Event]) -> String {
    let error = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ModelRequest(ModelRequestEvent { error: Some(error), .. }) => Some(error.clone()),
            _ => None,
        })
        .unwrap();
    let start = error.find("(request key ").unwrap() + "(request key ".len();
    error[start..start + 16].to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn unused_auto_and_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    let suites = record_some(dir.path(), &recordings, "sim-cheap-extra").await;
    let file = recordings.join("coding/sim-cheap-extra/parallel-read-client-server.t0.json");
    let original = std::fs::read_to_string(&file).unwrap();

    // An interaction nothing asks for: reported, and an error with --strict.
    let mut cassette: Value = serde_json::from_str(&original).unwrap();
    let mut extra = cassette["interactions"][0].clone();
    extra["request"]["body"]["messages"][1]["content"] = "something nobody asks".into();
    cassette["interactions"].as_array_mut().unwrap().push(extra);
    std::fs::write(&file, serde_json::to_string_pretty(&cassette).unwrap()).unwrap();
    let mut replay = remote_config(&["sim-cheap-extra"], &dir.path().join("replay"), &recordings, CassetteMode::Replay);
    let (folder, events, _) = run(&replay, &suites).await;
    assert_eq!((folder.cassettes.unused, folder.cassettes.missing), (1, 0));
    let n = cassette["interactions"].as_array().unwrap().len();
    assert!(folder.cassettes.warnings[0]
        .starts_with(&format!("1 recorded interaction left unused in {}: #{n} (sim-cheap-extra, key ", file.display())));
    let reported = events.iter().find_map(|e| match &e.kind {
        EventKind::Cassette(CassetteEvent { unused, written, .. }) => Some((unused.len(), *written)),
        _ => None,
    });
    assert_eq!(reported, Some((1, false)));
    replay.cassettes.strict = true;
    let (folder, _, _) = run(&replay, &suites).await;
    assert_eq!(folder.cassettes.errors.len(), 1);
    replay.cassettes.strict = false;

    // The simulated model itself is computed in replay mode too: its
    // recordings are neither read nor needed, with any seed.
    let mut simulated = config(&["sim-cheap-extra"], &dir.path().join("simulated"), &recordings, CassetteMode::Replay);
    simulated.run.seed = 7;
    simulated.cassettes.strict = true;
    let (folder, events, _) = run(&simulated, &suites).await;
    assert_eq!((folder.cassettes.units, folder.remaining), (0, 0), "no unit of a simulated model opens a cassette");
    assert!(!events.iter().any(|e| matches!(&e.kind, EventKind::ScenarioFinished(ScenarioFinishedEvent { error: true, .. }))));

    // Auto: replays what is there, records what is not, and drops what went unused.
    let two_ranges = recordings.join("coding/sim-cheap-extra/parallel-read-two-ranges.t0.json");
    let two_ranges_text = std::fs::read_to_string(&two_ranges).unwrap();
    std::fs::remove_file(&two_ranges).unwrap();
    let mut auto = config(&["sim-cheap-extra"], &dir.path().join("auto"), &recordings, CassetteMode::Auto);
    let _server = serve_sims(&mut auto, &suites).await;
    let (folder, _, _) = run(&auto, &suites).await;
    assert_eq!(folder.cassettes.written, 1, "only the missing cassette is written; the one with an unused interaction is kept");
    assert!(folder.cassettes.warnings[0].contains("left unused in"));
    assert_eq!(without_date(&std::fs::read_to_string(&two_ranges).unwrap()), without_date(&two_ranges_text));
}

fn without_date(text: &str) -> String {
    // The date, and the latency measured over HTTP, differ between recordings.
    text.lines().filter(|l| !l.contains("\"recorded_at\"") && !l.contains("\"latency_ms\"")).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bundled_recordings_replay_the_default_run_exactly() {
    // The default configuration replays the real local models from
    // recordings/ and computes the simulators; this fails when a scenario
    // or the agent loop changed without re-recording the real models
    // (README: "Comparing real local models").
    let mut replay = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
    replay.expand_arms().unwrap();
    let suites = scenario::load_suites(&replay.run.suites.iter().map(|s| root().join(s)).collect::<Vec<_>>()).unwrap();
    assert_eq!(
        suites.len(),
        5,
        "scenarios/coding, scenarios/bfcl-sample, scenarios/stateful, scenarios/bfcl-multi-turn and scenarios/injection"
    );
    // The recorded models only: the simulators are computed, with no cassette.
    replay.models.retain(|m| !m.is_simulated());
    assert!(replay.models.iter().any(|m| m.name.contains("local")), "the real local models are part of the default run");
    let out = tempfile::tempdir().unwrap();
    assert_eq!(replay.run.mode, CassetteMode::Replay, "the default run replays");
    replay.run.out_dir = out.path().join("replay");
    replay.cassettes.dir = root().join("recordings");
    replay.cassettes.strict = true;
    let (folder, _, _) = run(&replay, &suites).await;
    let c = &folder.cassettes;
    assert!(c.errors.is_empty() && c.warnings.is_empty(), "bundled recordings are out of date; re-record them:\n{:?}", c.errors);
    let units: usize = replay.models.iter().map(|m| suites.iter().flat_map(|s| s.ids()).filter(|id| m.runs(id)).count()).sum();
    assert_eq!(c.units, units);
    assert_eq!(c.replayed, c.units.max(c.replayed), "every unit replayed");
}
