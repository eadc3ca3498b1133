//! Metrics: the run's tables, computed with polars from `events.jsonl`
//! alone — never from anything the runner kept on the side — so a report
//! can be rebuilt from the events file at any time.

use polars::prelude::*;

use std::collections::HashSet;

use crate::events::{DenialBehaviour, Event, EventKind, RepairStage, RequestPurpose, UnitKey};
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
    sc_passed_no_repair: Vec<bool>,
    sc_reason: Vec<String>,
    call_model: Vec<String>,
    call_tool: Vec<String>,
    call_invalid: Vec<bool>,
    call_repaired_local: Vec<bool>,
    call_repaired_model: Vec<bool>,
    call_still_invalid: Vec<bool>,
    call_kinds: Vec<Vec<bool>>, // one column per InvalidKind::ALL
    req_model: Vec<String>,
    req_tool: Vec<Option<String>>,
    req_repair: Vec<bool>,
    req_input: Vec<u64>,
    req_output: Vec<u64>,
    req_cached: Vec<u64>,
    req_cost: Vec<f64>,
    req_latency: Vec<f64>,
    req_error: Vec<bool>,
    local_model: Vec<String>,
    local_tool: Vec<String>,
    local_us: Vec<f64>,
    remote_model: Vec<String>,
    remote_tool: Vec<String>,
    remote_ms: Vec<f64>,
    appr_model: Vec<String>,
    appr_tool: Vec<String>,
    appr_approved: Vec<bool>,
    appr_warning: Vec<bool>,
    follow_model: Vec<String>,
    follow_tool: Vec<String>,
    follow_behaviour: Vec<Vec<bool>>, // one column per DenialBehaviour::ALL
}

/// The unit an event belongs to, if any.
fn unit_of(kind: &EventKind) -> Option<&UnitKey> {
    match kind {
        EventKind::ScenarioStarted { unit }
        | EventKind::ModelRequest { unit, .. }
        | EventKind::ToolCall { unit, .. }
        | EventKind::ToolRepair { unit, .. }
        | EventKind::ToolApproval { unit, .. }
        | EventKind::DenialFollowup { unit, .. }
        | EventKind::ToolExecuted { unit, .. }
        | EventKind::ScenarioFinished { unit, .. } => Some(unit),
        EventKind::RunStarted { .. } | EventKind::RunFinished { .. } => None,
    }
}

impl Columns {
    fn from_events(events: &[Event]) -> Columns {
        // Units run concurrently, so the file interleaves them in no fixed
        // order; ordering by unit (stably: a unit's own events are in order)
        // makes float sums, and so the tables, the same on every run.
        let mut events: Vec<&Event> = events.iter().collect();
        events.sort_by(|a, b| unit_of(&a.kind).cmp(&unit_of(&b.kind)));
        let mut c = Columns {
            call_kinds: vec![Vec::new(); InvalidKind::ALL.len()],
            follow_behaviour: vec![Vec::new(); DenialBehaviour::ALL.len()],
            ..Default::default()
        };
        let repaired_units: HashSet<&UnitKey> = events
            .iter()
            .copied()
            .filter_map(|e| match &e.kind {
                EventKind::ToolCall { unit, outcome: CallOutcome::Repaired, .. } => Some(unit),
                _ => None,
            })
            .collect();
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
                    // Without repair, a call that needed it would have failed the scenario.
                    c.sc_passed_no_repair.push(*passed && !repaired_units.contains(unit));
                    c.sc_reason.push(reason.clone());
                }
                EventKind::ToolCall { unit, tool, outcome, repaired_by, invalid_kinds, .. } => {
                    c.call_model.push(unit.model.clone());
                    c.call_tool.push(tool.clone());
                    c.call_invalid.push(*outcome != CallOutcome::Valid);
                    c.call_repaired_local.push(*outcome == CallOutcome::Repaired && *repaired_by != Some(RepairStage::Model));
                    c.call_repaired_model.push(*outcome == CallOutcome::Repaired && *repaired_by == Some(RepairStage::Model));
                    c.call_still_invalid.push(*outcome == CallOutcome::Invalid);
                    for (i, kind) in InvalidKind::ALL.iter().enumerate() {
                        c.call_kinds[i].push(invalid_kinds.contains(kind));
                    }
                }
                EventKind::ModelRequest {
                    unit,
                    purpose,
                    repair_of,
                    input_tokens,
                    output_tokens,
                    cached_input_tokens,
                    cost_usd,
                    latency_ms,
                    error,
                    ..
                } => {
                    c.req_model.push(unit.model.clone());
                    c.req_tool.push(repair_of.clone());
                    c.req_repair.push(*purpose == RequestPurpose::Repair);
                    c.req_input.push(*input_tokens);
                    c.req_output.push(*output_tokens);
                    c.req_cached.push(*cached_input_tokens);
                    c.req_cost.push(*cost_usd);
                    c.req_latency.push(*latency_ms);
                    c.req_error.push(error.is_some());
                }
                EventKind::ToolApproval { unit, tool, approved, warning, .. } => {
                    c.appr_model.push(unit.model.clone());
                    c.appr_tool.push(tool.clone());
                    c.appr_approved.push(*approved);
                    c.appr_warning.push(warning.is_some());
                }
                EventKind::DenialFollowup { unit, tool, behaviour, .. } => {
                    c.follow_model.push(unit.model.clone());
                    c.follow_tool.push(tool.clone());
                    for (i, b) in DenialBehaviour::ALL.iter().enumerate() {
                        c.follow_behaviour[i].push(b == behaviour);
                    }
                }
                EventKind::ToolRepair { unit, tool, stage, latency_us, latency_ms, .. } => match stage {
                    RepairStage::Local => {
                        c.local_model.push(unit.model.clone());
                        c.local_tool.push(tool.clone());
                        c.local_us.push(latency_us.unwrap_or(0.0));
                    }
                    RepairStage::Model => {
                        c.remote_model.push(unit.model.clone());
                        c.remote_tool.push(tool.clone());
                        c.remote_ms.push(latency_ms.unwrap_or(0.0));
                    }
                },
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

fn quantile_of(name: &str, q: f64, alias: &str) -> Expr {
    col(name).quantile(lit(q), QuantileMethod::Linear).alias(alias)
}

fn sum_where(name: &str, condition: Expr, alias: &str) -> Expr {
    when(condition).then(col(name)).otherwise(lit(NULL)).sum().alias(alias)
}

/// Call counts per group: calls, invalid before repair, how each was repaired, and by kind.
fn call_aggregates() -> Vec<Expr> {
    let mut aggs = vec![
        len().cast(DataType::UInt64).alias("calls"),
        count_of("invalid"),
        count_of("repaired_local"),
        count_of("repaired_model"),
        count_of("still_invalid"),
    ];
    aggs.extend(InvalidKind::ALL.iter().map(|k| count_of(k.as_str())));
    aggs
}

/// Token and cost sums of requests, the scenario's own apart from repair's.
fn request_aggregates() -> Vec<Expr> {
    let turn = || col("repair").not();
    let repair = || col("repair");
    vec![
        sum_where("input_tokens", turn(), "input_tokens"),
        sum_where("output_tokens", turn(), "output_tokens"),
        sum_where("cached_input_tokens", turn(), "cached_input_tokens"),
        sum_where("cost_usd", turn(), "cost_usd"),
        sum_where("input_tokens", repair(), "repair_input_tokens"),
        sum_where("output_tokens", repair(), "repair_output_tokens"),
        sum_where("cost_usd", repair(), "repair_cost_usd"),
        count_of("request_errors"),
    ]
}

/// Counts and sums of the summary, zero where a model has no rows.
const COUNT_COLUMNS: [&str; 16] = [
    "scenarios",
    "passed",
    "passed_no_repair",
    "calls",
    "invalid",
    "repaired_local",
    "repaired_model",
    "still_invalid",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "repair_input_tokens",
    "repair_output_tokens",
    "request_errors",
    "cost_usd",
    "repair_cost_usd",
];

/// Approval counts, zero where a model or tool had no approvals.
const APPROVAL_COLUMNS: [&str; 9] = [
    "approvals_requested",
    "approved",
    "denied",
    "approval_warnings",
    "after_denial_retried_same",
    "after_denial_retried_changed",
    "after_denial_other_tool",
    "after_denial_answered",
    "after_denial_step_limit",
];

/// Fills the named counts and sums that a left join left empty with zero.
fn zero_missing(lf: LazyFrame, columns: &[&str]) -> LazyFrame {
    let fills: Vec<Expr> =
        columns.iter().map(|n| if n.ends_with("cost_usd") { col(*n).fill_null(lit(0.0)) } else { col(*n).fill_null(lit(0u64)) }).collect();
    lf.with_columns(fills)
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
        col_of("passed_no_repair", c.sc_passed_no_repair),
        col_of("reason", c.sc_reason),
    ])?;

    let mut call_columns = vec![
        col_of("model", c.call_model),
        col_of("tool", c.call_tool),
        col_of("invalid", c.call_invalid),
        col_of("repaired_local", c.call_repaired_local),
        col_of("repaired_model", c.call_repaired_model),
        col_of("still_invalid", c.call_still_invalid),
    ];
    for (kind, values) in InvalidKind::ALL.iter().zip(c.call_kinds) {
        call_columns.push(col_of(kind.as_str(), values));
    }
    let calls = frame(call_columns)?.lazy();

    let requests = frame(vec![
        col_of("model", c.req_model),
        col_of("tool", c.req_tool),
        col_of("repair", c.req_repair),
        col_of("input_tokens", c.req_input),
        col_of("output_tokens", c.req_output),
        col_of("cached_input_tokens", c.req_cached),
        col_of("cost_usd", c.req_cost),
        col_of("latency_ms", c.req_latency),
        col_of("request_errors", c.req_error),
    ])?
    .lazy();
    let local_repairs = frame(vec![col_of("model", c.local_model), col_of("tool", c.local_tool), col_of("us", c.local_us)])?.lazy();
    let model_repairs = frame(vec![col_of("model", c.remote_model), col_of("tool", c.remote_tool), col_of("ms", c.remote_ms)])?.lazy();
    let local_latency = |keys: &[&str]| {
        local_repairs
            .clone()
            .group_by(keys.iter().map(|k| col(*k)).collect::<Vec<_>>())
            .agg([quantile_of("us", 0.5, "repair_local_p50_us"), quantile_of("us", 0.95, "repair_local_p95_us")])
    };
    let model_latency = |keys: &[&str]| {
        model_repairs
            .clone()
            .group_by(keys.iter().map(|k| col(*k)).collect::<Vec<_>>())
            .agg([quantile_of("ms", 0.5, "repair_model_p50_ms"), quantile_of("ms", 0.95, "repair_model_p95_ms")])
    };

    let approvals = frame(vec![
        col_of("model", c.appr_model),
        col_of("tool", c.appr_tool),
        col_of("approved", c.appr_approved.clone()),
        col_of("denied", c.appr_approved.iter().map(|a| !a).collect::<Vec<bool>>()),
        col_of("approval_warnings", c.appr_warning),
    ])?
    .lazy();
    let mut follow_columns = vec![col_of("model", c.follow_model), col_of("tool", c.follow_tool)];
    for (b, values) in DenialBehaviour::ALL.iter().zip(c.follow_behaviour) {
        follow_columns.push(col_of(b.column(), values));
    }
    let followups = frame(follow_columns)?.lazy();
    let approval_counts = |keys: &[&str]| {
        approvals.clone().group_by(keys.iter().map(|k| col(*k)).collect::<Vec<_>>()).agg([
            len().cast(DataType::UInt64).alias("approvals_requested"),
            count_of("approved"),
            count_of("denied"),
            count_of("approval_warnings"),
        ])
    };
    let followup_counts = |keys: &[&str]| {
        followups
            .clone()
            .group_by(keys.iter().map(|k| col(*k)).collect::<Vec<_>>())
            .agg(DenialBehaviour::ALL.iter().map(|b| count_of(b.column())).collect::<Vec<_>>())
    };

    let left = || JoinArgs::new(JoinType::Left);
    let on = |keys: &[&str]| keys.iter().map(|k| col(*k)).collect::<Vec<_>>();
    let per_scenario = scenarios.clone().lazy().group_by([col("model")]).agg([
        len().cast(DataType::UInt64).alias("scenarios"),
        count_of("passed"),
        count_of("passed_no_repair"),
    ]);
    let per_call = calls.clone().group_by([col("model")]).agg(call_aggregates());
    let mut per_request_aggs = request_aggregates();
    let turn_latency = |q: f64| col("latency_ms").filter(col("repair").not()).quantile(lit(q), QuantileMethod::Linear);
    per_request_aggs.push(turn_latency(0.5).alias("latency_p50_ms"));
    per_request_aggs.push(turn_latency(0.95).alias("latency_p95_ms"));
    let per_request = requests.clone().group_by([col("model")]).agg(per_request_aggs);
    let summary_columns = [
        "model",
        "scenarios",
        "passed",
        "pass_rate",
        "pass_rate_no_repair",
        "calls",
        "invalid",
        "invalid_rate",
        "repaired_local",
        "repaired_model",
        "still_invalid",
        "repair_rate",
        "input_tokens",
        "output_tokens",
        "cached_input_tokens",
        "cost_usd",
        "repair_input_tokens",
        "repair_output_tokens",
        "repair_cost_usd",
        "latency_p50_ms",
        "latency_p95_ms",
        "repair_local_p50_us",
        "repair_local_p95_us",
        "repair_model_p50_ms",
        "repair_model_p95_ms",
        "request_errors",
        "approvals_requested",
        "approved",
        "denied",
        "approval_warnings",
        "after_denial_retried_same",
        "after_denial_retried_changed",
        "after_denial_other_tool",
        "after_denial_answered",
        "after_denial_step_limit",
    ];
    let summary = zero_missing(
        models
            .clone()
            .join(per_scenario, on(&["model"]), on(&["model"]), left())
            .join(per_call, on(&["model"]), on(&["model"]), left())
            .join(per_request, on(&["model"]), on(&["model"]), left())
            .join(local_latency(&["model"]), on(&["model"]), on(&["model"]), left())
            .join(model_latency(&["model"]), on(&["model"]), on(&["model"]), left())
            .join(approval_counts(&["model"]), on(&["model"]), on(&["model"]), left())
            .join(followup_counts(&["model"]), on(&["model"]), on(&["model"]), left()),
        &[&COUNT_COLUMNS[..], &APPROVAL_COLUMNS[..]].concat(),
    )
    .with_column((col("repaired_local") + col("repaired_model")).alias("repaired"))
    .with_columns([
        rate("passed", "scenarios").alias("pass_rate"),
        rate("passed_no_repair", "scenarios").alias("pass_rate_no_repair"),
        rate("invalid", "calls").alias("invalid_rate"),
        rate("repaired", "invalid").alias("repair_rate"),
    ])
    .sort(["order"], Default::default())
    .select(summary_columns.iter().map(|c| col(*c)).collect::<Vec<_>>())
    .collect()?;

    let tool_keys = ["model", "tool"];
    let per_tool_requests = requests.filter(col("tool").is_not_null()).group_by(on(&tool_keys)).agg([
        sum_where("input_tokens", col("repair"), "repair_input_tokens"),
        sum_where("output_tokens", col("repair"), "repair_output_tokens"),
        sum_where("cost_usd", col("repair"), "repair_cost_usd"),
    ]);
    let mut tool_columns =
        vec!["model", "tool", "calls", "invalid", "invalid_rate", "repaired_local", "repaired_model", "still_invalid", "repair_rate"];
    tool_columns.extend(InvalidKind::ALL.iter().map(|k| k.as_str()));
    tool_columns.extend(APPROVAL_COLUMNS);
    tool_columns.extend([
        "repair_input_tokens",
        "repair_output_tokens",
        "repair_cost_usd",
        "repair_local_p50_us",
        "repair_local_p95_us",
        "repair_model_p50_ms",
        "repair_model_p95_ms",
    ]);
    let by_tool = zero_missing(
        calls
            .group_by(on(&tool_keys))
            .agg(call_aggregates())
            .join(per_tool_requests, on(&tool_keys), on(&tool_keys), left())
            .join(local_latency(&tool_keys), on(&tool_keys), on(&tool_keys), left())
            .join(model_latency(&tool_keys), on(&tool_keys), on(&tool_keys), left())
            .join(approval_counts(&tool_keys), on(&tool_keys), on(&tool_keys), left())
            .join(followup_counts(&tool_keys), on(&tool_keys), on(&tool_keys), left())
            .join(models.clone(), on(&["model"]), on(&["model"]), left()),
        &[&["repair_input_tokens", "repair_output_tokens", "repair_cost_usd"][..], &APPROVAL_COLUMNS[..]].concat(),
    )
    .with_columns([rate("invalid", "calls").alias("invalid_rate"), (col("repaired_local") + col("repaired_model")).alias("repaired")])
    .with_column(rate("repaired", "invalid").alias("repair_rate"))
    .sort(["order", "tool"], Default::default())
    .select(tool_columns.iter().map(|c| col(*c)).collect::<Vec<_>>())
    .collect()?;

    let scenarios = scenarios
        .lazy()
        .join(models, on(&["model"]), on(&["model"]), left())
        .sort(["order", "suite", "scenario", "trial"], Default::default())
        .select([col("model"), col("suite"), col("scenario"), col("trial"), col("passed"), col("reason"), col("passed_no_repair")])
        .collect()?;
    Ok(Tables { summary, by_tool, scenarios })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Prices, ProviderKind, Tier};
    use crate::events::ModelInfo;
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
            repair_of: None,
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
            repaired_by: (outcome == CallOutcome::Repaired).then_some(RepairStage::Local),
            invalid_kinds: kinds,
            issues: vec![],
            remaining_kinds: vec![],
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
            ev(EventKind::RunStarted {
                run_id: "r".into(),
                models: vec![info("m2"), info("m1")],
                suites: vec![],
                trials: 1,
                seed: 0,
                config: String::new(),
            }),
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
