//! Metrics: the run's tables, computed with polars from `events.jsonl`
//! alone — never from anything the runner kept on the side — so a report
//! can be rebuilt from the events file at any time.

use polars::prelude::*;

use crate::events::{Event, EventKind};
use crate::pipeline::{CallOutcome, InvalidKind};

/// The tables of one run.
#[derive(Debug, Clone)]
pub struct Tables {
    /// One row per model.
    pub summary: DataFrame,
    /// One row per model × tool.
    pub by_tool: DataFrame,
    /// One row per model × scenario × trial.
    pub scenarios: DataFrame,
}

/// Rows pulled out of the events, column by column.
#[derive(Default)]
struct Columns {
    model_order: Vec<String>,
    sc_model: Vec<String>,
    sc_suite: Vec<String>,
    sc_scenario: Vec<String>,
    sc_trial: Vec<u32>,
    sc_passed: Vec<bool>,
    sc_reason: Vec<String>,
    call_model: Vec<String>,
    call_tool: Vec<String>,
    call_invalid: Vec<bool>,
    call_kinds: Vec<Vec<bool>>, // one column per InvalidKind::ALL
    req_model: Vec<String>,
    req_input: Vec<u64>,
    req_output: Vec<u64>,
    req_cached: Vec<u64>,
    req_cost: Vec<f64>,
    req_latency: Vec<f64>,
    req_error: Vec<bool>,
}

impl Columns {
    fn from_events(events: &[Event]) -> Columns {
        let mut c = Columns { call_kinds: vec![Vec::new(); InvalidKind::ALL.len()], ..Default::default() };
        for e in events {
            match &e.kind {
                EventKind::RunStarted { models, .. } => {
                    for m in models {
                        if !c.model_order.contains(&m.name) {
                            c.model_order.push(m.name.clone());
                        }
                    }
                }
                EventKind::ScenarioFinished { unit, passed, reason, .. } => {
                    c.sc_model.push(unit.model.clone());
                    c.sc_suite.push(unit.suite.clone());
                    c.sc_scenario.push(unit.scenario.clone());
                    c.sc_trial.push(unit.trial);
                    c.sc_passed.push(*passed);
                    c.sc_reason.push(reason.clone());
                }
                EventKind::ToolCall { unit, tool, outcome, invalid_kinds, .. } => {
                    c.call_model.push(unit.model.clone());
                    c.call_tool.push(tool.clone());
                    c.call_invalid.push(*outcome != CallOutcome::Valid);
                    for (i, kind) in InvalidKind::ALL.iter().enumerate() {
                        c.call_kinds[i].push(invalid_kinds.contains(kind));
                    }
                }
                EventKind::ModelRequest { unit, input_tokens, output_tokens, cached_input_tokens, cost_usd, latency_ms, error, .. } => {
                    c.req_model.push(unit.model.clone());
                    c.req_input.push(*input_tokens);
                    c.req_output.push(*output_tokens);
                    c.req_cached.push(*cached_input_tokens);
                    c.req_cost.push(*cost_usd);
                    c.req_latency.push(*latency_ms);
                    c.req_error.push(error.is_some());
                }
                _ => {}
            }
        }
        // Models seen in rows but not announced (e.g. merged runs) go last.
        for m in c.sc_model.iter().chain(&c.req_model) {
            if !c.model_order.contains(m) {
                c.model_order.push(m.clone());
            }
        }
        c
    }
}

fn frame(columns: Vec<Column>) -> PolarsResult<DataFrame> {
    DataFrame::new_infer_height(columns)
}

fn col_of<T, V>(name: &str, values: V) -> Column
where
    Series: NamedFrom<V, T>,
    T: ?Sized,
{
    Column::from(Series::new(name.into(), values))
}

fn rate(numerator: &str, denominator: &str) -> Expr {
    when(col(denominator).gt(lit(0)))
        .then(col(numerator).cast(DataType::Float64) / col(denominator).cast(DataType::Float64))
        .otherwise(lit(0.0))
}

fn count_of(name: &str) -> Expr {
    col(name).cast(DataType::UInt64).sum().alias(name)
}

/// Builds every table from a run's events.
pub fn build_tables(events: &[Event]) -> PolarsResult<Tables> {
    let c = Columns::from_events(events);
    let order: Vec<u32> = (0..c.model_order.len() as u32).collect();
    let models = frame(vec![col_of("model", c.model_order.clone()), col_of("order", order)])?.lazy();

    let scenarios = frame(vec![
        col_of("model", c.sc_model),
        col_of("suite", c.sc_suite),
        col_of("scenario", c.sc_scenario),
        col_of("trial", c.sc_trial),
        col_of("passed", c.sc_passed),
        col_of("reason", c.sc_reason),
    ])?;

    let mut call_columns = vec![col_of("model", c.call_model), col_of("tool", c.call_tool), col_of("invalid", c.call_invalid)];
    for (kind, values) in InvalidKind::ALL.iter().zip(c.call_kinds) {
        call_columns.push(col_of(kind.as_str(), values));
    }
    let calls = frame(call_columns)?.lazy();

    let requests = frame(vec![
        col_of("model", c.req_model),
        col_of("input_tokens", c.req_input),
        col_of("output_tokens", c.req_output),
        col_of("cached_input_tokens", c.req_cached),
        col_of("cost_usd", c.req_cost),
        col_of("latency_ms", c.req_latency),
        col_of("request_errors", c.req_error),
    ])?
    .lazy();

    let left = || JoinArgs::new(JoinType::Left);
    let per_scenario = scenarios
        .clone()
        .lazy()
        .group_by([col("model")])
        .agg([len().cast(DataType::UInt64).alias("scenarios"), count_of("passed")]);
    let per_call = calls.clone().group_by([col("model")]).agg([len().cast(DataType::UInt64).alias("calls"), count_of("invalid")]);
    let per_request = requests.group_by([col("model")]).agg([
        col("input_tokens").sum(),
        col("output_tokens").sum(),
        col("cached_input_tokens").sum(),
        col("cost_usd").sum(),
        col("latency_ms").quantile(lit(0.5), QuantileMethod::Linear).alias("latency_p50_ms"),
        col("latency_ms").quantile(lit(0.95), QuantileMethod::Linear).alias("latency_p95_ms"),
        count_of("request_errors"),
    ]);
    let counts = ["scenarios", "passed", "calls", "invalid", "input_tokens", "output_tokens", "cached_input_tokens", "request_errors"];
    let summary = models
        .clone()
        .join(per_scenario, [col("model")], [col("model")], left())
        .join(per_call, [col("model")], [col("model")], left())
        .join(per_request, [col("model")], [col("model")], left())
        .with_columns(counts.iter().map(|n| col(*n).fill_null(lit(0u64))).collect::<Vec<_>>())
        .with_columns([col("cost_usd").fill_null(lit(0.0))])
        .with_columns([rate("passed", "scenarios").alias("pass_rate"), rate("invalid", "calls").alias("invalid_rate")])
        .sort(["order"], Default::default())
        .select([
            col("model"),
            col("scenarios"),
            col("passed"),
            col("pass_rate"),
            col("calls"),
            col("invalid"),
            col("invalid_rate"),
            col("input_tokens"),
            col("output_tokens"),
            col("cached_input_tokens"),
            col("cost_usd"),
            col("latency_p50_ms"),
            col("latency_p95_ms"),
            col("request_errors"),
        ])
        .collect()?;

    let mut tool_aggs = vec![len().cast(DataType::UInt64).alias("calls"), count_of("invalid")];
    tool_aggs.extend(InvalidKind::ALL.iter().map(|k| count_of(k.as_str())));
    let mut tool_columns = vec![col("model"), col("tool"), col("calls"), col("invalid"), col("invalid_rate")];
    tool_columns.extend(InvalidKind::ALL.iter().map(|k| col(k.as_str())));
    let by_tool = calls
        .group_by([col("model"), col("tool")])
        .agg(tool_aggs)
        .join(models.clone(), [col("model")], [col("model")], left())
        .with_columns([rate("invalid", "calls").alias("invalid_rate")])
        .sort(["order", "tool"], Default::default())
        .select(tool_columns)
        .collect()?;

    let scenarios = scenarios
        .lazy()
        .join(models.clone(), [col("model")], [col("model")], left())
        .sort(["order", "suite", "scenario", "trial"], Default::default())
        .select([col("model"), col("suite"), col("scenario"), col("trial"), col("passed"), col("reason")])
        .collect()?;
    Ok(Tables { summary, by_tool, scenarios })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Prices, ProviderKind, Tier};
    use crate::events::{ModelInfo, RequestPurpose, UnitKey};
    use crate::pipeline::StageTimings;

    fn unit(model: &str, scenario: &str) -> UnitKey {
        UnitKey { model: model.into(), suite: "s".into(), scenario: scenario.into(), trial: 0 }
    }

    fn ev(kind: EventKind) -> Event {
        Event { ts_ms: 0, kind }
    }

    fn request(model: &str, input: u64, latency_ms: f64, cost_usd: f64) -> Event {
        ev(EventKind::ModelRequest {
            unit: unit(model, "a"),
            step: 1,
            purpose: RequestPurpose::Turn,
            status: Some(200),
            input_tokens: input,
            output_tokens: 5,
            cached_input_tokens: 0,
            cost_usd,
            latency_ms,
            error: None,
        })
    }

    fn call(model: &str, tool: &str, outcome: CallOutcome, kinds: Vec<InvalidKind>) -> Event {
        ev(EventKind::ToolCall {
            unit: unit(model, "a"),
            step: 1,
            call_id: "c".into(),
            raw_name: tool.into(),
            tool: tool.into(),
            arguments: "{}".into(),
            outcome,
            invalid_kinds: kinds,
            issues: vec![],
            fixes: vec![],
            timings: StageTimings::default(),
        })
    }

    fn finished(model: &str, scenario: &str, passed: bool) -> Event {
        ev(EventKind::ScenarioFinished { unit: unit(model, scenario), passed, reason: String::new(), steps: 1, error: false })
    }

    fn info(name: &str) -> ModelInfo {
        ModelInfo { name: name.into(), provider: ProviderKind::Sim, model_id: name.into(), tier: Tier::Cheap, price: Prices::default() }
    }

    /// m1: 2 scenarios (1 passed), 3 calls (1 valid, 1 invalid, 1 repaired),
    /// 4 requests with latencies 100..400 ms; m2: 1 scenario, no calls.
    fn events() -> Vec<Event> {
        vec![
            ev(EventKind::RunStarted { run_id: "r".into(), models: vec![info("m2"), info("m1")], suites: vec![], trials: 1, seed: 0, config: String::new() }),
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

    fn f64_at(df: &DataFrame, column: &str, row: usize) -> f64 {
        df.column(column).unwrap().get(row).unwrap().extract::<f64>().unwrap()
    }

    #[test]
    fn summary_matches_a_hand_computed_case() {
        let t = build_tables(&events()).unwrap();
        let s = &t.summary;
        // Models keep the configured order: m2 first.
        assert_eq!(s.column("model").unwrap().str().unwrap().get(0), Some("m2"));
        assert_eq!(f64_at(s, "scenarios", 1), 2.0);
        assert_eq!(f64_at(s, "passed", 1), 1.0);
        assert_eq!(f64_at(s, "pass_rate", 1), 0.5);
        assert_eq!(f64_at(s, "calls", 1), 3.0);
        assert_eq!(f64_at(s, "invalid", 1), 2.0);
        assert!((f64_at(s, "invalid_rate", 1) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(f64_at(s, "input_tokens", 1), 100.0);
        assert!((f64_at(s, "cost_usd", 1) - 0.010).abs() < 1e-12);
        // Linear interpolation: p50 of 100,200,300,400 = 250; p95 at rank 2.85 = 385.
        assert_eq!(f64_at(s, "latency_p50_ms", 1), 250.0);
        assert!((f64_at(s, "latency_p95_ms", 1) - 385.0).abs() < 1e-9);
        // A model without calls has zero counts and rate, not nulls.
        assert_eq!(f64_at(s, "calls", 0), 0.0);
        assert_eq!(f64_at(s, "invalid_rate", 0), 0.0);
        assert_eq!(f64_at(s, "pass_rate", 0), 1.0);
    }

    #[test]
    fn by_tool_counts_each_invalid_kind() {
        let t = build_tables(&events()).unwrap();
        let b = &t.by_tool;
        assert_eq!(b.height(), 2);
        // Sorted by tool: Bash, read_file.
        assert_eq!(b.column("tool").unwrap().str().unwrap().get(0), Some("Bash"));
        assert_eq!(f64_at(b, "calls", 0), 1.0);
        assert_eq!(f64_at(b, "missing_required", 0), 1.0);
        assert_eq!(f64_at(b, "wrong_type", 0), 1.0);
        assert_eq!(f64_at(b, "calls", 1), 2.0);
        assert_eq!(f64_at(b, "invalid", 1), 1.0);
        assert_eq!(f64_at(b, "parse_error", 1), 1.0);
        assert_eq!(f64_at(b, "invalid_rate", 1), 0.5);
        assert_eq!(t.scenarios.height(), 3);
    }
}
