//! Metrics: the run's tables, computed from `events.jsonl` alone — never
//! from anything the runner kept on the side — so a report can be rebuilt
//! from the events file at any time. `rows` reads the events one by one
//! into counts and compact rows, `runs` and `aggregate` add those up (the
//! per-run tables in one pass each, the per-model and per-tool ones joined
//! with polars, with polars' own arithmetic: `exact`), `derived` adds the
//! statistics (intervals, pass@k, paired tests, the Pareto front).

mod aggregate;
mod derived;
pub mod errored;
mod exact;
pub mod injection;
mod rows;
mod runs;
pub mod schema;
pub mod table;

use std::io::Read;
use std::path::Path;

use polars::prelude::*;

use crate::events::{Event, EventsError};

/// What the run was asked to do, from its `run_started` event (the first,
/// if several runs' events were merged) and its `run_finished` event; the
/// models are the summary's rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    pub run_id: String,
    pub suites: Vec<String>,
    pub trials: u32,
    pub seed: u64,
    /// Where the configuration came from.
    pub config: String,
    /// Wall time of the whole run; absent when the run was interrupted.
    pub elapsed_ms: Option<f64>,
    /// Simulators with fitted profiles: (model, what it was fitted to).
    pub fitted: Vec<(String, String)>,
}

/// The tables of one run.
#[derive(Debug, Clone)]
pub struct Tables {
    /// The run these tables describe.
    pub run: RunInfo,
    /// Every table as typed rows: one row per model (`summary`), per model
    /// × tool (`by_tool`), per model × scenario × trial (`scenarios`), per
    /// model × scenario over trials (`by_scenario`), per model × suite
    /// (`suites`), per repair attempt (`repairs`), per two models run on
    /// the same scenarios (`pairs`), and per model × attack style of the
    /// runs with prompt injections (`injection`, empty when none has one).
    pub rows: table::TableRows,
    /// How many events the tables were built from.
    pub events: u64,
}

/// Builds every table from events in memory, through the same `Rows::add`
/// as `tables_from_file`, so there is one way events become rows.
pub fn build_tables(events: &[Event]) -> PolarsResult<Tables> {
    let mut rows = rows::Rows::default();
    for event in events {
        rows.add(&rows::Parsed::new(event.kind.clone()));
    }
    rows.finish();
    aggregate::aggregate(rows)
}

/// Why the tables of an events file could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error("cannot build the tables: {0}")]
    Polars(#[from] PolarsError),
}

/// Builds every table from a run's `events.jsonl`, streaming it (see
/// `events::stream`): a block of lines is parsed in parallel, folded into
/// the rows, and dropped.
pub fn tables_from_file(path: &Path) -> Result<Tables, TablesError> {
    let file = std::fs::File::open(path).map_err(|source| EventsError::Io { path: path.into(), source })?;
    tables_from_reader(path, file, crate::events::stream::BLOCK_BYTES)
}

/// `tables_from_file` over any reader; `path` names it in errors.
fn tables_from_reader(path: &Path, file: impl Read + Send, block_bytes: usize) -> Result<Tables, TablesError> {
    let mut rows = rows::Rows::default();
    crate::events::stream::for_each_line(path, file, block_bytes, |line| rows::parse_line(line).map(Some), |parsed| rows.add(parsed))?;
    rows.finish();
    Ok(aggregate::aggregate(rows)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderKind;
    use crate::core::prices::{Prices, Tier};
    use crate::events::{
        CassetteEvent, DenialBehaviour, DenialFollowupEvent, EventKind, ModelInfo, ModelRequestEvent, RepairStage, RequestPurpose,
        RunFinishedEvent, RunInterruptedEvent, RunStartedEvent, ScenarioFinishedEvent, ScenarioStartedEvent, ToolApprovalEvent,
        ToolCallEvent, ToolExecutedEvent, ToolRepairEvent, UnitKey,
    };
    use crate::pipeline::StageTimings;
    use crate::pipeline::{CallOutcome, InvalidKind};

    fn unit(model: &str, scenario: &str) -> UnitKey {
        UnitKey { model: model.into(), suite: "s".into(), scenario: scenario.into(), trial: 0 }
    }

    fn ev(kind: EventKind) -> Event {
        Event { ts_ms: 0, kind }
    }

    fn request(model: &str, input: u64, latency_ms: f64, cost_usd: f64) -> Event {
        ev(EventKind::ModelRequest(ModelRequestEvent {
            unit: unit(model, "a"),
            step: 1,
            purpose: RequestPurpose::Turn,
            repair_of: None,
            status: Some(200),
            input_tokens: input,
            output_tokens: 5,
            cached_input_tokens: 0,
            cost_usd,
            latency_ms,
            ttft_ms: None,
            rejected_call: None,
            error: None,
            text: Some("said".into()),
            reasoning: Some("thought".into()),
            finish_reason: Some("stop".into()),
        }))
    }

    fn call(model: &str, tool: &str, outcome: CallOutcome, kinds: Vec<InvalidKind>) -> Event {
        ev(EventKind::ToolCall(ToolCallEvent {
            unit: unit(model, "a"),
            step: 1,
            call_id: "c".into(),
            raw_name: tool.into(),
            tool: tool.into(),
            arguments: "{}".into(),
            outcome,
            repaired_by: (outcome == CallOutcome::Repaired).then_some(RepairStage::Local),
            invalid_kinds: kinds,
            issues: vec![],
            remaining_kinds: vec![],
            fixes: vec![],
            timings: StageTimings::default(),
            final_arguments: None,
        }))
    }

    fn finished(model: &str, scenario: &str, passed: bool) -> Event {
        ev(EventKind::ScenarioFinished(ScenarioFinishedEvent {
            outcome: None,
            unit: unit(model, scenario),
            passed,
            reason: String::new(),
            steps: 1,
            error: false,
            // What the transcript reads; no table counts it.
            expectation: (!passed).then(|| crate::check::FailedExpectation {
                kind: crate::check::ExpectationKind::Calls,
                tool: Some("t".into()),
                expected: None,
            }),
            error_kind: None,
        }))
    }

    fn info(name: &str) -> ModelInfo {
        ModelInfo {
            name: name.into(),
            provider: ProviderKind::Sim,
            model_id: name.into(),
            tier: Tier::Cheap,
            price: Prices::default(),
            arm: None,
            fitted: None,
        }
    }

    /// m1: 2 scenarios (1 passed), 3 calls (1 valid, 1 invalid, 1 repaired),
    /// 4 requests with latencies 100..400 ms; m2: 1 scenario, no calls.
    fn events() -> Vec<Event> {
        vec![
            ev(EventKind::RunStarted(RunStartedEvent {
                run_id: "r".into(),
                models: vec![info("m2"), info("m1")],
                suites: vec![],
                trials: 1,
                seed: 0,
                config: String::new(),
            })),
            request("m1", 10, 100.0, 0.001),
            request("m1", 20, 200.0, 0.002),
            request("m1", 30, 300.0, 0.003),
            request("m1", 40, 400.0, 0.004),
            request("m2", 7, 50.0, 0.5),
            call("m1", "read_file", CallOutcome::Valid, vec![]),
            call("m1", "read_file", CallOutcome::Invalid, vec![InvalidKind::ParseError]),
            call("m1", "Bash", CallOutcome::Repaired, vec![InvalidKind::MissingRequired, InvalidKind::WrongType]),
            finished("m1", "a", true),
            finished("m1", "b", false),
            finished("m2", "a", true),
        ]
    }

    #[test]
    fn summary_matches_a_hand_computed_case() {
        let t = build_tables(&events()).unwrap();
        let s = &t.rows.summary;
        // Models keep the configured order: m2 first.
        assert_eq!(s[0].model, "m2");
        assert_eq!((s[1].scenarios, s[1].passed, s[1].pass_rate), (2, 1, Some(0.5)));
        assert_eq!((s[1].calls, s[1].invalid), (3, 2));
        assert!((s[1].invalid_rate.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s[1].input_tokens, 100);
        assert!((s[1].cost_usd - 0.010).abs() < 1e-12);
        // Linear interpolation: p50 of 100,200,300,400 = 250; p95 at rank 2.85 = 385.
        assert_eq!(s[1].latency_p50_ms, Some(250.0));
        assert!((s[1].latency_p95_ms.unwrap() - 385.0).abs() < 1e-9);
        // A model without calls has zero counts and rate, not nulls.
        assert_eq!((s[0].calls, s[0].invalid_rate, s[0].pass_rate), (0, Some(0.0), Some(1.0)));
    }

    /// A model whose every unit errored has no pass rate (empty, not 0), no
    /// interval, and is off the Pareto front, though it cost nothing; one
    /// with some errored units is rated over the rest.
    #[test]
    fn errored_units_are_neither_passed_nor_failed() {
        let errored = |model: &str, scenario: &str| {
            let mut e = finished(model, scenario, false);
            if let EventKind::ScenarioFinished(f) = &mut e.kind {
                (f.error, f.error_kind) = (true, Some(crate::events::UnitError::Connection));
            }
            e
        };
        let mut events = events();
        events.push(errored("m1", "c"));
        if let EventKind::RunStarted(r) = &mut events[0].kind {
            r.models.push(info("m3"));
        }
        events.push(errored("m3", "a"));
        events.push(errored("m3", "b"));
        let t = build_tables(&events).unwrap();
        let s = &t.rows.summary;
        // m1 (row 1): 1 of its 2 answered units passed; the errored one is counted apart.
        assert_eq!((s[1].scenarios, s[1].errored, s[1].pass_rate), (2, 1, Some(0.5)));
        // m3 (row 2): nothing answered.
        assert_eq!((s[2].scenarios, s[2].errored), (0, 2));
        let m3 = &s[2];
        for (column, value) in [
            ("pass_rate", m3.pass_rate),
            ("pass_rate_lo", m3.pass_rate_lo),
            ("pass_rate_hi", m3.pass_rate_hi),
            ("pass_rate_no_repair", m3.pass_rate_no_repair),
            ("pass_rate_no_repair_lo", m3.pass_rate_no_repair_lo),
            ("cost_per_passed_usd", m3.cost_per_passed_usd),
        ] {
            assert_eq!(value, None, "{column} of a model that never answered");
        }
        assert!(!s[2].pareto, "a model that never answered is off the front");
        assert!(s[0].pareto, "m2 (pass 1.0) is on the front");
    }

    /// Two models, three scenarios, two trials each:
    /// m1 passes a twice, b once (flaky), c never; m2 passes a twice, b never, c twice.
    #[test]
    fn trials_give_pass_k_flakiness_intervals_and_pairs() {
        let mut events = vec![ev(EventKind::RunStarted(RunStartedEvent {
            run_id: "r".into(),
            models: vec![info("m1"), info("m2")],
            suites: vec![],
            trials: 2,
            seed: 0,
            config: String::new(),
        }))];
        let verdicts = [
            ("m1", [("a", [true, true]), ("b", [true, false]), ("c", [false, false])]),
            ("m2", [("a", [true, true]), ("b", [false, false]), ("c", [true, true])]),
        ];
        for (model, scenarios) in verdicts {
            for (scenario, trials) in scenarios {
                for (trial, passed) in trials.into_iter().enumerate() {
                    let unit = UnitKey { model: model.into(), suite: "s".into(), scenario: scenario.into(), trial: trial as u32 };
                    events.push(ev(EventKind::ScenarioFinished(ScenarioFinishedEvent {
                        outcome: None,
                        unit,
                        passed,
                        reason: String::new(),
                        steps: 1,
                        error: false,
                        expectation: None,
                        error_kind: None,
                    })));
                }
            }
        }
        let t = build_tables(&events).unwrap();
        let s = &t.rows.summary;
        // m1: 3 of 6 runs passed. Wilson(3, 6) = [0.18761, 0.81239].
        assert_eq!(s[0].pass_rate, Some(0.5));
        assert!((s[0].pass_rate_lo.unwrap() - 0.18761).abs() < 1e-4 && (s[0].pass_rate_hi.unwrap() - 0.81239).abs() < 1e-4);
        // pass^2 = mean(C(2,2)/C(2,2), C(1,2)/C(2,2), 0) = 1/3; pass@2 = mean(1, 1, 0) = 2/3.
        assert!((s[0].pass_hat_k.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!((s[0].pass_at_k.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!((s[0].flaky, s[1].flaky), (1, 0));
        // Pairs on the 6 shared runs: both a×2; only m1: b trial 0; only m2: c×2; neither: b trial 1.
        let p = &t.rows.pairs;
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].both_passed, p[0].only_a, p[0].only_b, p[0].neither), (2, 1, 2, 1));
        // McNemar exact, b = 1, c = 2: 2 · (1 + 3) / 8 = 1 → capped at 1.
        assert_eq!(p[0].p_value, Some(1.0));
        // Flip rates: m1's scenarios flip 0, 1, 0 over 2 trials; m2's never.
        assert!((s[0].flip_rate.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((s[0].flip_scenarios, s[1].flip_rate), (3, Some(0.0)));
        assert_eq!(t.rows.by_scenario[1].flip_rate, Some(1.0));
        // Per-scenario differences m2 − m1: 0, −0.5, 1 → mean 1/6, sd 0.7638,
        // t(0.975, 2) · sd / √3 = 1.8974: not decisive, and trials cannot
        // get there (the spread is between scenarios): more scenarios.
        let diff_lo = p[0].diff_lo.unwrap();
        assert!((diff_lo - (1.0 / 6.0 - 1.897_4)).abs() < 1e-3 || diff_lo == -1.0);
        assert!(!p[0].decisive);
        assert!(p[0].cost_needed_usd.unwrap() >= 0.0);
        assert_eq!(t.rows.by_scenario.len(), 6);
        assert_eq!(t.rows.suites.len(), 2);
    }

    #[test]
    fn by_tool_counts_each_invalid_kind() {
        let t = build_tables(&events()).unwrap();
        let b = &t.rows.by_tool;
        assert_eq!(b.len(), 2);
        // Sorted by tool: Bash, read_file.
        assert_eq!(b[0].tool, "Bash");
        assert_eq!((b[0].calls, b[0].kinds.missing_required, b[0].kinds.wrong_type), (1, 1, 1));
        assert_eq!((b[1].calls, b[1].invalid, b[1].kinds.parse_error, b[1].invalid_rate), (2, 1, 1, Some(0.5)));
        assert_eq!(t.rows.scenarios.len(), 3);
    }

    /// The events as `events.jsonl` holds them.
    fn jsonl(events: &[Event]) -> String {
        events.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect()
    }

    #[test]
    fn streaming_a_file_in_small_blocks_gives_the_same_tables() {
        let events = events();
        let text = jsonl(&events);
        let whole = build_tables(&events).unwrap();
        // Blocks shorter than a line: every line is carried over at least once.
        for block in [16, 100, 1 << 20] {
            let t = tables_from_reader(Path::new("e.jsonl"), text.as_bytes(), block).unwrap();
            assert_eq!(whole.rows, t.rows, "the tables differ with blocks of {block} bytes");
        }
        // No final newline, blank lines: still the same.
        let ragged = text.replace("}\n{", "}\n\n{").trim_end().to_string();
        let t = tables_from_reader(Path::new("e.jsonl"), ragged.as_bytes(), 64).unwrap();
        assert_eq!(whole.rows.summary, t.rows.summary);
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line() {
        let mut text = jsonl(&events());
        text.push_str("{\"ts_ms\":1,\"event\":\"tool_call\",\"model\":\"m1\"}\n");
        let err = tables_from_reader(Path::new("run/events.jsonl"), text.as_bytes(), 50).unwrap_err().to_string();
        assert!(err.starts_with("run/events.jsonl:13: not a calltape event: missing field"), "{err}");
        let mut bytes = jsonl(&events()[..2]).into_bytes();
        bytes.extend_from_slice(b"{\"event\":\"\xff\"}\n");
        let err = tables_from_reader(Path::new("e.jsonl"), &bytes[..], 50).unwrap_err().to_string();
        assert_eq!(err, "e.jsonl:3: not a calltape event: not UTF-8 text");
        let err = tables_from_reader(Path::new("e.jsonl"), "{\"ts_ms\":1,\"event\":\"nope\"}".as_bytes(), 50).unwrap_err().to_string();
        assert!(err.contains("e.jsonl:1: not a calltape event: unknown variant `nope`"), "{err}");
        // Past several blocks: the line is still counted right.
        let line = jsonl(&events()[1..2]);
        let lines = 10_000;
        let mut many = jsonl(&events()[..1]) + &line.repeat(lines);
        many.push_str("{}\n");
        for block in [1 << 20, 100_000] {
            assert!(many.len() > 2 * block);
            let err = tables_from_reader(Path::new("e.jsonl"), many.as_bytes(), block).unwrap_err().to_string();
            assert!(err.starts_with(&format!("e.jsonl:{}: ", lines + 2)), "{err}");
        }
    }

    #[test]
    fn run_info_comes_from_the_run_events() {
        let mut events = events();
        events.push(ev(EventKind::RunFinished(RunFinishedEvent { units: 3, elapsed_ms: 12.5 })));
        let run = build_tables(&events).unwrap().run;
        assert_eq!(run.run_id, "r");
        assert_eq!(run.suites, Vec::<String>::new());
        assert_eq!((run.trials, run.seed, run.elapsed_ms), (1, 0, Some(12.5)));
        assert_eq!(build_tables(&[]).unwrap().run, RunInfo::default());
    }
    #[test]
    fn every_table_has_the_columns_of_its_schema() {
        let mut events = events();
        events.push(ev(EventKind::ToolRepair(ToolRepairEvent {
            unit: unit("m1", "a"),
            call_id: "c".into(),
            tool: "Bash".into(),
            stage: RepairStage::Local,
            attempt: 1,
            fixes: vec![],
            succeeded: true,
            latency_us: Some(3.0),
            latency_ms: None,
            error: None,
        })));
        let t = build_tables(&events).unwrap();
        let expected: [&[&str]; 7] = [
            &schema::SUMMARY,
            &schema::BY_TOOL,
            &schema::SCENARIO_RUNS,
            &schema::BY_SCENARIO,
            &schema::SUITES,
            &schema::REPAIRS,
            &schema::PAIRS,
        ];
        for ((name, rows), columns) in table::json_rows(&t.rows).into_iter().zip(expected) {
            let mut columns: Vec<&str> = columns.to_vec();
            columns.sort_unstable();
            assert!(!rows.is_empty(), "{name}");
            for row in rows {
                assert_eq!(row.keys().map(String::as_str).collect::<Vec<_>>(), columns, "{name}");
            }
        }
        // And with no events at all: every table, empty.
        let empty = build_tables(&[]).unwrap();
        assert!(table::json_rows(&empty.rows).iter().all(|(_, rows)| rows.is_empty()));
    }

    /// One event of every kind, with every optional field set, so each
    /// field shows in its serialised form.
    fn one_of_each_kind() -> Vec<Event> {
        use crate::core::modes::CassetteMode;
        use crate::pipeline::approval::Decider;
        use crate::pipeline::{CallIssue, Fix, FixStage};
        let u = || unit("m", "a");
        let fix = || Fix { stage: FixStage::Syntax, kind: "trailing_comma".into(), path: String::new(), detail: String::new() };
        let mut request = request("m", 1, 2.0, 0.1);
        if let EventKind::ModelRequest(ModelRequestEvent { repair_of, ttft_ms, error, rejected_call, .. }) = &mut request.kind {
            (*repair_of, *ttft_ms, *error, *rejected_call) = (Some("t".into()), Some(1.0), Some("e".into()), Some("r".into()));
        }
        let mut call = call("m", "t", CallOutcome::Repaired, vec![InvalidKind::WrongType]);
        if let EventKind::ToolCall(ToolCallEvent { issues, fixes, final_arguments, .. }) = &mut call.kind {
            *issues = vec![CallIssue { kind: InvalidKind::WrongType, path: "/a".into(), message: "m".into() }];
            *fixes = vec![fix()];
            *final_arguments = Some(serde_json::json!({}));
        }
        vec![
            events()[0].clone(),
            ev(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: u() })),
            request,
            call,
            ev(EventKind::ToolRepair(ToolRepairEvent {
                unit: u(),
                call_id: "c".into(),
                tool: "t".into(),
                stage: RepairStage::Model,
                attempt: 1,
                fixes: vec![fix()],
                succeeded: false,
                latency_us: None,
                latency_ms: Some(4.0),
                error: Some("e".into()),
            })),
            ev(EventKind::ToolApproval(ToolApprovalEvent {
                unit: u(),
                call_id: "c".into(),
                tool: "t".into(),
                arguments: serde_json::json!({}),
                approved: false,
                reason: Some("no".into()),
                decided_by: Decider::Rule,
                rule: Some("config#1".into()),
                warning: Some("w".into()),
                latency_ms: 1.0,
            })),
            ev(EventKind::DenialFollowup(DenialFollowupEvent {
                unit: u(),
                call_id: "c".into(),
                tool: "t".into(),
                behaviour: DenialBehaviour::Answered,
            })),
            ev(EventKind::ToolExecuted(ToolExecutedEvent {
                unit: u(),
                call_id: "c".into(),
                tool: "t".into(),
                is_error: false,
                scripted: true,
                result: Some("ok".into()),
            })),
            ev(EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: u(),
                passed: false,
                reason: "request failed".into(),
                steps: 1,
                error: true,
                error_kind: Some(crate::events::UnitError::Auth),
                expectation: Some(crate::check::FailedExpectation {
                    kind: crate::check::ExpectationKind::Calls,
                    tool: Some("t".into()),
                    expected: None,
                }),
            })),
            ev(EventKind::Cassette(CassetteEvent {
                unit: u(),
                path: "p".into(),
                mode: CassetteMode::Replay,
                replayed: 1,
                recorded: 0,
                missing: 0,
                unused: vec![],
                written: false,
                error: None,
            })),
            ev(EventKind::RunFinished(RunFinishedEvent { units: 1, elapsed_ms: 1.0 })),
            ev(EventKind::RunInterrupted(RunInterruptedEvent { completed: 1, remaining: 1 })),
        ]
    }

    /// The place of a kind in `rows::FIELDS`. No wildcard: a new variant
    /// must be given a place here, and a sample in `one_of_each_kind`.
    fn place(kind: &EventKind) -> usize {
        match kind {
            EventKind::RunStarted(RunStartedEvent { .. }) => 0,
            EventKind::ScenarioStarted(ScenarioStartedEvent { .. }) => 1,
            EventKind::ModelRequest(ModelRequestEvent { .. }) => 2,
            EventKind::ToolCall(ToolCallEvent { .. }) => 3,
            EventKind::ToolRepair(ToolRepairEvent { .. }) => 4,
            EventKind::ToolApproval(ToolApprovalEvent { .. }) => 5,
            EventKind::DenialFollowup(DenialFollowupEvent { .. }) => 6,
            EventKind::ToolExecuted(ToolExecutedEvent { .. }) => 7,
            EventKind::ScenarioFinished(ScenarioFinishedEvent { .. }) => 8,
            EventKind::Cassette(CassetteEvent { .. }) => 9,
            EventKind::RunFinished(RunFinishedEvent { .. }) => 10,
            EventKind::RunInterrupted(RunInterruptedEvent { .. }) => 11,
        }
    }

    #[test]
    fn every_event_field_is_counted_or_listed_as_not_counted() {
        let samples = one_of_each_kind();
        let mut places: Vec<usize> = samples.iter().map(|e| place(&e.kind)).collect();
        places.sort_unstable();
        assert_eq!(places, (0..rows::FIELDS.len()).collect::<Vec<_>>(), "one sample of every kind");
        for event in &samples {
            let value = serde_json::to_value(event).unwrap();
            let object = value.as_object().unwrap();
            let tag = object["event"].as_str().unwrap();
            let (listed_tag, counted, not_counted) = rows::FIELDS[place(&event.kind)];
            assert_eq!(tag, listed_tag, "rows::FIELDS is in the order of `place`");
            let mut fields: Vec<&str> = object.keys().map(String::as_str).filter(|k| *k != "event").collect();
            fields.retain(|f| !rows::EVENT_NOT_COUNTED.contains(f));
            fields.sort_unstable();
            let mut listed: Vec<&str> = counted.iter().chain(not_counted).copied().collect();
            listed.sort_unstable();
            assert_eq!(fields, listed, "{tag}: every field is counted or listed as not counted, once");
        }
        assert!(rows::EVENT_NOT_COUNTED.iter().all(|f| serde_json::to_value(&samples[0]).unwrap().get(f).is_some()));
    }

    #[test]
    fn the_listed_fields_are_what_the_tables_read() {
        // Changing a not-counted field changes no table; changing a counted one does.
        let base = one_of_each_kind();
        let tables = |events: &[Event]| {
            let t = build_tables(events).unwrap();
            let csv = crate::report::Exporter::export(&crate::report::csv::Csv, &t).unwrap();
            (csv, t.run)
        };
        let before = tables(&base);
        let mut quiet = base.clone();
        for e in &mut quiet {
            e.ts_ms += 7;
            match &mut e.kind {
                EventKind::ModelRequest(ModelRequestEvent { step, status, rejected_call, text, reasoning, .. }) => {
                    (*step, *status, *rejected_call, *text, *reasoning) = (9, Some(500), None, None, Some("other".into()))
                }
                EventKind::ToolCall(ToolCallEvent { raw_name, arguments, issues, fixes, final_arguments, .. }) => {
                    (*raw_name, *arguments, *final_arguments) = ("x".into(), "[]".into(), None);
                    issues.clear();
                    fixes.clear();
                }
                EventKind::ScenarioFinished(ScenarioFinishedEvent { steps, .. }) => *steps = 9,
                EventKind::ToolExecuted(ToolExecutedEvent { is_error, .. }) => *is_error = true,
                EventKind::RunFinished(RunFinishedEvent { units, .. }) => *units = 9,
                _ => {}
            }
        }
        assert!(tables(&quiet) == before, "a not-counted field changed a table");
        let mut loud = base.clone();
        if let EventKind::ModelRequest(ModelRequestEvent { cached_input_tokens, .. }) = &mut loud[2].kind {
            *cached_input_tokens = 99;
        }
        assert!(tables(&loud) != before, "a counted field changed no table");
        // An errored unit is counted apart, by kind.
        use crate::events::UnitError;
        let changes: [(bool, Option<UnitError>); 2] = [(true, Some(UnitError::NoRecording)), (false, None)];
        for (to_error, to_kind) in changes {
            let mut loud = base.clone();
            for e in &mut loud {
                if let EventKind::ScenarioFinished(ScenarioFinishedEvent { error, error_kind, .. }) = &mut e.kind {
                    (*error, *error_kind) = (to_error, to_kind);
                }
            }
            assert!(tables(&loud) != before, "a unit's error changed no table");
        }
    }
}
