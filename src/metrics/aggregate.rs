//! The tables, aggregated by polars from the rows of the events, in stages:
//! the rows become input frames (`Inputs`), which are grouped and joined
//! into the per-model summary, the per-tool table and the per-scenario
//! tables; `derived` then adds the statistics. Every column is named
//! through `schema`.

use polars::prelude::*;

use super::derived;
use super::rows::{ApprovalCounts, CallCounts, OutcomeRow, RepairRow, Rows};
use super::schema::{self as s, APPROVAL_COUNTS, INVALID_KINDS};
use super::Tables;
use crate::events::{RepairStage, UnitError};

// Working columns of the input frames, never in a table.
/// A model's place in the configured order.
const ORDER: &str = "order";
/// Whether a request was a repair request.
const REPAIR: &str = "repair";
/// A repair attempt's latency in its stage's unit.
const US: &str = "us";
const MS: &str = "ms";
/// Repairs, local and by a model, per group.
const REPAIRED: &str = "repaired";

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

fn cols(names: &[&str]) -> Vec<Expr> {
    names.iter().map(|n| col(*n)).collect()
}

fn left() -> JoinArgs {
    JoinArgs::new(JoinType::Left)
}

/// Joins `other` on the key columns `keys`, keeping every row of `lf`.
fn join_on(lf: LazyFrame, other: LazyFrame, keys: &[&str]) -> LazyFrame {
    lf.join(other, cols(keys), cols(keys), left())
}

/// Call counts of the call outcomes, used per model and per model × tool.
const CALL_COUNTS: [&str; 5] = [s::CALLS, s::INVALID, s::REPAIRED_LOCAL, s::REPAIRED_MODEL, s::STILL_INVALID];

/// Call counts per group: calls, invalid before repair, how each was repaired, and by kind.
fn call_aggregates() -> Vec<Expr> {
    CALL_COUNTS.iter().chain(&INVALID_KINDS).map(|c| count_of(c)).collect()
}

/// Token and cost sums of requests, the scenario's own apart from repair's.
fn request_aggregates() -> Vec<Expr> {
    let turn = || col(REPAIR).not();
    let repair = || col(REPAIR);
    vec![
        sum_where(s::INPUT_TOKENS, turn(), s::INPUT_TOKENS),
        sum_where(s::OUTPUT_TOKENS, turn(), s::OUTPUT_TOKENS),
        sum_where(s::CACHED_INPUT_TOKENS, turn(), s::CACHED_INPUT_TOKENS),
        sum_where(s::COST_USD, turn(), s::COST_USD),
        sum_where(s::INPUT_TOKENS, repair(), s::REPAIR_INPUT_TOKENS),
        sum_where(s::OUTPUT_TOKENS, repair(), s::REPAIR_OUTPUT_TOKENS),
        sum_where(s::COST_USD, repair(), s::REPAIR_COST_USD),
        count_of(s::REQUEST_ERRORS),
    ]
}

/// Counts and sums of the summary, zero where a model has no rows.
const COUNT_COLUMNS: [&str; 17] = [
    s::SCENARIOS,
    s::ERRORED,
    s::PASSED,
    s::PASSED_NO_REPAIR,
    s::CALLS,
    s::INVALID,
    s::REPAIRED_LOCAL,
    s::REPAIRED_MODEL,
    s::STILL_INVALID,
    s::INPUT_TOKENS,
    s::OUTPUT_TOKENS,
    s::CACHED_INPUT_TOKENS,
    s::REPAIR_INPUT_TOKENS,
    s::REPAIR_OUTPUT_TOKENS,
    s::REQUEST_ERRORS,
    s::COST_USD,
    s::REPAIR_COST_USD,
];

/// Repair token and cost sums of a tool, zero where it had no repair requests.
const TOOL_REPAIR_SUMS: [&str; 3] = [s::REPAIR_INPUT_TOKENS, s::REPAIR_OUTPUT_TOKENS, s::REPAIR_COST_USD];

/// Fills the named counts and sums that a left join left empty with zero.
fn zero_missing(lf: LazyFrame, columns: &[&str]) -> LazyFrame {
    let fills: Vec<Expr> =
        columns.iter().map(|n| if n.ends_with(s::COST_USD) { col(*n).fill_null(lit(0.0)) } else { col(*n).fill_null(lit(0u64)) }).collect();
    lf.with_columns(fills)
}

/// The rows as polars frames, the input of every table.
struct Inputs {
    /// Model and its configured `ORDER`.
    models: LazyFrame,
    /// One row per scenario run, in the columns of `schema::SCENARIO_RUNS`.
    scenarios: DataFrame,
    /// Call counts per model × tool.
    calls: LazyFrame,
    /// One row per model request.
    requests: LazyFrame,
    /// Local repair attempts with their latency in µs (`US`).
    local_repairs: LazyFrame,
    /// Model repair attempts with their latency in ms (`MS`).
    model_repairs: LazyFrame,
    /// Approval counts per model × tool.
    approvals: LazyFrame,
}

impl Inputs {
    fn new(r: &Rows) -> PolarsResult<Inputs> {
        let order: Vec<u32> = (0..r.model_order.len() as u32).collect();
        let models = frame(vec![col_of(s::MODEL, r.model_order.clone()), col_of(ORDER, order)])?.lazy();
        Ok(Inputs {
            models,
            scenarios: scenario_frame(r)?,
            calls: call_frame(r)?,
            requests: request_frame(r)?,
            local_repairs: repair_frame(r, RepairStage::Local, US, |p| p.latency_us)?,
            model_repairs: repair_frame(r, RepairStage::Model, MS, |p| p.latency_ms)?,
            approvals: approval_frame(r)?,
        })
    }

    /// Quantiles of local and model repair latency per group of `keys`.
    fn repair_latency(&self, keys: &[&str]) -> [LazyFrame; 2] {
        let local = self
            .local_repairs
            .clone()
            .group_by(cols(keys))
            .agg([quantile_of(US, 0.5, s::REPAIR_LOCAL_P50_US), quantile_of(US, 0.95, s::REPAIR_LOCAL_P95_US)]);
        let model = self
            .model_repairs
            .clone()
            .group_by(cols(keys))
            .agg([quantile_of(MS, 0.5, s::REPAIR_MODEL_P50_MS), quantile_of(MS, 0.95, s::REPAIR_MODEL_P95_MS)]);
        [local, model]
    }

    /// Approval counts per group of `keys`.
    fn approval_counts(&self, keys: &[&str]) -> LazyFrame {
        self.approvals.clone().group_by(cols(keys)).agg(APPROVAL_COUNTS.map(count_of))
    }
}

fn scenario_frame(r: &Rows) -> PolarsResult<DataFrame> {
    let name = |id: u32| r.names.name(id);
    // A count of a stateful scenario's outcome; empty (null) for the others.
    let outcome = |f: &dyn Fn(&OutcomeRow) -> Option<u32>| r.scenarios.iter().map(|s| s.outcome.as_ref().and_then(f)).collect::<Vec<_>>();
    let units = || r.scenarios.iter().map(|s| &r.units[s.unit as usize]);
    frame(vec![
        col_of(s::MODEL, units().map(|u| name(u.model)).collect::<Vec<_>>()),
        col_of(s::SUITE, units().map(|u| name(u.suite)).collect::<Vec<_>>()),
        col_of(s::SCENARIO, units().map(|u| name(u.scenario)).collect::<Vec<_>>()),
        col_of(s::TRIAL, units().map(|u| u.trial).collect::<Vec<_>>()),
        col_of(s::PASSED, r.scenarios.iter().map(|s| s.passed).collect::<Vec<_>>()),
        // Without repair, a call that needed it would have failed the scenario.
        col_of(s::PASSED_NO_REPAIR, r.scenarios.iter().map(|s| s.passed && !r.units[s.unit as usize].repaired).collect::<Vec<_>>()),
        col_of(s::REASON, r.scenarios.iter().map(|s| name(s.reason)).collect::<Vec<_>>()),
        col_of(s::LATENCY_MS, units().map(|u| u.latency_ms).collect::<Vec<_>>()),
        col_of(s::COST_USD, units().map(|u| u.cost_usd).collect::<Vec<_>>()),
        col_of(s::ERRORED, r.scenarios.iter().map(|s| s.error.is_some()).collect::<Vec<_>>()),
        col_of(s::ERROR_KIND, r.scenarios.iter().map(|s| s.error.map_or("", UnitError::as_str)).collect::<Vec<_>>()),
        col_of(s::MILESTONES_REACHED, outcome(&|o| (o.milestones > 0).then_some(o.milestones_reached))),
        col_of(s::MILESTONES, outcome(&|o| (o.milestones > 0).then_some(o.milestones))),
        col_of(
            s::LAST_MILESTONE,
            r.scenarios.iter().map(|s| s.outcome.as_ref().and_then(|o| o.last_milestone).map(name)).collect::<Vec<_>>(),
        ),
        col_of(s::STATE_CHECKS_PASSED, outcome(&|o| (o.state_checks > 0).then_some(o.state_checks_passed))),
        col_of(s::STATE_CHECKS, outcome(&|o| (o.state_checks > 0).then_some(o.state_checks))),
    ])
}

/// Runs that reached a verdict: the denominator of every pass rate (the
/// errored ones are counted apart, see `schema::ERRORED`).
fn answered(alias: &str) -> Expr {
    col(s::ERRORED).not().cast(DataType::UInt64).sum().alias(alias)
}

/// The model and tool columns of counts kept per (model, tool) name ids.
fn model_and_tool<'a>(r: &Rows, keys: impl Iterator<Item = &'a (u32, u32)> + Clone) -> Vec<Column> {
    vec![
        col_of(s::MODEL, keys.clone().map(|k| r.names.name(k.0)).collect::<Vec<_>>()),
        col_of(s::TOOL, keys.map(|k| r.names.name(k.1)).collect::<Vec<_>>()),
    ]
}

/// Counted per model × tool as the events were read.
fn call_frame(r: &Rows) -> PolarsResult<LazyFrame> {
    let counts = |f: &dyn Fn(&CallCounts) -> u64| r.calls.values().map(f).collect::<Vec<u64>>();
    let mut columns = model_and_tool(r, r.calls.keys());
    columns.extend([
        col_of(s::CALLS, counts(&|c| c.calls)),
        col_of(s::INVALID, counts(&|c| c.invalid)),
        col_of(s::REPAIRED_LOCAL, counts(&|c| c.repaired_local)),
        col_of(s::REPAIRED_MODEL, counts(&|c| c.repaired_model)),
        col_of(s::STILL_INVALID, counts(&|c| c.still_invalid)),
    ]);
    for (i, kind) in INVALID_KINDS.iter().enumerate() {
        columns.push(col_of(kind, counts(&|c| c.kinds[i])));
    }
    Ok(frame(columns)?.lazy())
}

fn request_frame(r: &Rows) -> PolarsResult<LazyFrame> {
    let q = &r.requests;
    Ok(frame(vec![
        col_of(s::MODEL, q.iter().map(|q| r.model_of(q.unit)).collect::<Vec<_>>()),
        col_of(s::TOOL, q.iter().map(|q| q.tool.map(|t| r.names.name(t))).collect::<Vec<_>>()),
        col_of(REPAIR, q.iter().map(|q| q.repair).collect::<Vec<_>>()),
        col_of(s::INPUT_TOKENS, q.iter().map(|q| q.input_tokens).collect::<Vec<_>>()),
        col_of(s::OUTPUT_TOKENS, q.iter().map(|q| q.output_tokens).collect::<Vec<_>>()),
        col_of(s::CACHED_INPUT_TOKENS, q.iter().map(|q| q.cached_input_tokens).collect::<Vec<_>>()),
        col_of(s::COST_USD, q.iter().map(|q| q.cost_usd).collect::<Vec<_>>()),
        col_of(s::LATENCY_MS, q.iter().map(|q| q.latency_ms).collect::<Vec<_>>()),
        col_of(TTFT_MS, q.iter().map(|q| q.ttft_ms).collect::<Vec<_>>()),
        col_of(s::REQUEST_ERRORS, q.iter().map(|q| q.error).collect::<Vec<_>>()),
    ])?
    .lazy())
}

/// Time to first token of a request (streaming requests only).
const TTFT_MS: &str = "ttft_ms";

/// One stage's repair attempts: model, tool and the latency in that stage's unit.
fn repair_frame(r: &Rows, stage: RepairStage, unit: &str, latency: fn(&RepairRow) -> Option<f64>) -> PolarsResult<LazyFrame> {
    let of_stage = || r.repairs.iter().filter(|p| p.stage == stage);
    Ok(frame(vec![
        col_of(s::MODEL, of_stage().map(|p| r.model_of(p.unit)).collect::<Vec<_>>()),
        col_of(s::TOOL, of_stage().map(|p| r.names.name(p.tool)).collect::<Vec<_>>()),
        col_of(unit, of_stage().map(|p| latency(p).unwrap_or(0.0)).collect::<Vec<_>>()),
    ])?
    .lazy())
}

fn approval_frame(r: &Rows) -> PolarsResult<LazyFrame> {
    let approved = |f: &dyn Fn(&ApprovalCounts) -> u64| r.approvals.values().map(f).collect::<Vec<u64>>();
    let mut columns = model_and_tool(r, r.approvals.keys());
    columns.extend([
        col_of(s::APPROVALS_REQUESTED, approved(&|a| a.requested)),
        col_of(s::APPROVED, approved(&|a| a.approved)),
        col_of(s::DENIED, approved(&|a| a.requested - a.approved)),
        col_of(s::APPROVAL_WARNINGS, approved(&|a| a.warnings)),
    ]);
    for (i, column) in s::AFTER_DENIAL.iter().enumerate() {
        columns.push(col_of(column, approved(&|a| a.after_denial[i])));
    }
    Ok(frame(columns)?.lazy())
}

/// One row per model, in configured order: every summary column but those
/// `derived` adds afterwards.
fn summary(inputs: &Inputs) -> PolarsResult<DataFrame> {
    let keys = [s::MODEL];
    let per_scenario = inputs.scenarios.clone().lazy().group_by([col(s::MODEL)]).agg([
        answered(s::SCENARIOS),
        count_of(s::ERRORED),
        count_of(s::PASSED),
        count_of(s::PASSED_NO_REPAIR),
    ]);
    let per_call = inputs.calls.clone().group_by([col(s::MODEL)]).agg(call_aggregates());
    let mut per_request_aggs = request_aggregates();
    // Turn requests only: a repair request is not the scenario's own latency.
    let turn =
        |column: &str, q: f64, alias: &str| col(column).filter(col(REPAIR).not()).quantile(lit(q), QuantileMethod::Linear).alias(alias);
    per_request_aggs.extend([
        turn(s::LATENCY_MS, 0.5, s::LATENCY_P50_MS),
        turn(s::LATENCY_MS, 0.95, s::LATENCY_P95_MS),
        turn(s::LATENCY_MS, 0.99, s::LATENCY_P99_MS),
        // Null for models that did not stream: there is no first token to time.
        turn(TTFT_MS, 0.5, s::TTFT_P50_MS),
        turn(TTFT_MS, 0.95, s::TTFT_P95_MS),
    ]);
    let per_request = inputs.requests.clone().group_by([col(s::MODEL)]).agg(per_request_aggs);
    let [local_latency, model_latency] = inputs.repair_latency(&keys);
    let mut joined = inputs.models.clone();
    for other in [per_scenario, per_call, per_request, local_latency, model_latency, inputs.approval_counts(&keys)] {
        joined = join_on(joined, other, &keys);
    }
    let aggregated: Vec<&str> = s::SUMMARY.iter().copied().filter(|c| !s::SUMMARY_DERIVED.contains(c)).collect();
    zero_missing(joined, &[&COUNT_COLUMNS[..], &APPROVAL_COUNTS[..], &INVALID_KINDS[..]].concat())
        .with_column((col(s::REPAIRED_LOCAL) + col(s::REPAIRED_MODEL)).alias(REPAIRED))
        .with_columns([
            rate(s::PASSED, s::SCENARIOS).alias(s::PASS_RATE),
            rate(s::PASSED_NO_REPAIR, s::SCENARIOS).alias(s::PASS_RATE_NO_REPAIR),
            rate(s::INVALID, s::CALLS).alias(s::INVALID_RATE),
            rate(REPAIRED, s::INVALID).alias(s::REPAIR_RATE),
        ])
        .sort([ORDER], Default::default())
        .select(cols(&aggregated))
        .collect()
}

/// One row per model × tool that was called, but the intervals `derived` adds.
fn by_tool(inputs: &Inputs) -> PolarsResult<DataFrame> {
    let keys = [s::MODEL, s::TOOL];
    let per_tool_requests = inputs.requests.clone().filter(col(s::TOOL).is_not_null()).group_by(cols(&keys)).agg([
        sum_where(s::INPUT_TOKENS, col(REPAIR), s::REPAIR_INPUT_TOKENS),
        sum_where(s::OUTPUT_TOKENS, col(REPAIR), s::REPAIR_OUTPUT_TOKENS),
        sum_where(s::COST_USD, col(REPAIR), s::REPAIR_COST_USD),
    ]);
    let [local_latency, model_latency] = inputs.repair_latency(&keys);
    let mut joined = inputs.calls.clone().group_by(cols(&keys)).agg(call_aggregates());
    for other in [per_tool_requests, local_latency, model_latency, inputs.approval_counts(&keys)] {
        joined = join_on(joined, other, &keys);
    }
    joined = join_on(joined, inputs.models.clone(), &[s::MODEL]);
    let aggregated = &s::BY_TOOL[..s::BY_TOOL.len() - s::BY_TOOL_DERIVED];
    zero_missing(joined, &[&TOOL_REPAIR_SUMS[..], &APPROVAL_COUNTS[..]].concat())
        .with_columns([
            rate(s::INVALID, s::CALLS).alias(s::INVALID_RATE),
            (col(s::REPAIRED_LOCAL) + col(s::REPAIRED_MODEL)).alias(REPAIRED),
        ])
        .with_column(rate(REPAIRED, s::INVALID).alias(s::REPAIR_RATE))
        .sort([ORDER, s::TOOL], Default::default())
        .select(cols(aggregated))
        .collect()
}

/// The scenario runs, per scenario over trials, and per suite (without the
/// interval `derived` adds), each in model order.
fn scenario_tables(inputs: &Inputs) -> PolarsResult<[DataFrame; 3]> {
    let in_order = |lf: LazyFrame| join_on(lf, inputs.models.clone(), &[s::MODEL]);
    let scenarios = in_order(inputs.scenarios.clone().lazy())
        .sort([ORDER, s::SUITE, s::SCENARIO, s::TRIAL], Default::default())
        .select(cols(&s::SCENARIO_RUNS))
        .collect()?;
    let by_scenario = in_order(
        scenarios
            .clone()
            .lazy()
            .group_by(cols(&[s::MODEL, s::SUITE, s::SCENARIO]))
            .agg([
                answered(s::TRIALS),
                count_of(s::ERRORED),
                count_of(s::PASSED),
                col(s::COST_USD).sum(),
                col(s::LATENCY_MS).mean().alias(s::MEAN_LATENCY_MS),
                col(s::MILESTONES_REACHED).cast(DataType::Float64).mean().alias(s::MEAN_MILESTONES_REACHED),
            ])
            .with_columns([
                rate(s::PASSED, s::TRIALS).alias(s::PASS_RATE),
                (col(s::PASSED).gt(lit(0)).and(col(s::PASSED).lt(col(s::TRIALS)))).alias(s::FLAKY),
            ]),
    )
    .sort([ORDER, s::SUITE, s::SCENARIO], Default::default())
    .select(cols(&s::BY_SCENARIO))
    .collect()?;
    let suites = in_order(
        scenarios
            .clone()
            .lazy()
            .group_by(cols(&[s::MODEL, s::SUITE]))
            .agg([answered(s::SCENARIOS), count_of(s::ERRORED), count_of(s::PASSED), col(s::COST_USD).sum().alias(s::TOTAL_COST_USD)])
            .with_column(rate(s::PASSED, s::SCENARIOS).alias(s::PASS_RATE)),
    )
    .sort([ORDER, s::SUITE], Default::default())
    .select(cols(&s::SUITES[..s::SUITES.len() - s::SUITES_DERIVED]))
    .collect()?;
    Ok([scenarios, by_scenario, suites])
}

/// One row per repair attempt, local latency in µs and a model's in µs too.
fn repairs(r: &Rows) -> PolarsResult<DataFrame> {
    let p = &r.repairs;
    frame(vec![
        col_of(s::MODEL, p.iter().map(|p| r.model_of(p.unit)).collect::<Vec<_>>()),
        col_of(s::TOOL, p.iter().map(|p| r.names.name(p.tool)).collect::<Vec<_>>()),
        col_of(s::STAGE, p.iter().map(|p| if p.stage == RepairStage::Local { s::STAGE_LOCAL } else { s::STAGE_MODEL }).collect::<Vec<_>>()),
        col_of(s::LATENCY_US, p.iter().map(|p| p.latency_us.unwrap_or_else(|| p.latency_ms.unwrap_or(0.0) * 1e3)).collect::<Vec<_>>()),
        col_of(s::SUCCEEDED, p.iter().map(|p| p.succeeded).collect::<Vec<_>>()),
    ])
}

/// The polars part: every table from the extracted rows.
pub(super) fn aggregate(r: Rows) -> PolarsResult<Tables> {
    let inputs = Inputs::new(&r)?;
    let mut summary = summary(&inputs)?;
    let mut by_tool = by_tool(&inputs)?;
    let [scenarios, by_scenario, mut suites] = scenario_tables(&inputs)?;
    let repairs = repairs(&r)?;
    derived::extend_summary(&mut summary, &by_scenario, &r.model_tier, &r.model_arm, r.trials)?;
    derived::extend_by_tool(&mut by_tool, &r.model_arm)?;
    derived::extend_suites(&mut suites)?;
    // Two models are compared on the runs both answered.
    let answered = scenarios.clone().lazy().filter(col(s::ERRORED).not()).collect()?;
    let pairs = derived::pairs(&answered, &r.model_order, &r.model_tier, &r.model_arm)?;
    Ok(Tables { run: r.run, summary, by_tool, scenarios, by_scenario, suites, repairs, pairs, events: r.events })
}
