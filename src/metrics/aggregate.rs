//! The tables, aggregated from the rows of the events, in stages: what has
//! a row per request or per run is added up first, in unit order (requests
//! here, runs in `runs`), into a row per model or per group; polars then
//! joins those small frames and the per-tool counts into the per-model
//! summary and the per-tool table; `derived` adds the statistics. Every
//! column is named through `schema`.

use polars::prelude::*;

use super::derived;
use super::exact::{quantile_linear, KahanSum};
use super::rows::{ApprovalCounts, CallCounts, RepairRow, Rows, NO_TOOL};
use super::runs::Runs;
use super::schema::{self as s, APPROVAL_COUNTS, INVALID_KINDS};
use super::table::{rows_of, TableRows};
use super::Tables;
use crate::events::RepairStage;

// Working columns of the input frames, never in a table.
/// A model's place in the configured order.
const ORDER: &str = "order";
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

/// A pass rate: over answered runs, and null (empty) when none answered —
/// a model that never answered has no rate, not a rate of 0.
fn pass_rate(passed: &str) -> Expr {
    when(col(s::SCENARIOS).gt(lit(0)))
        .then(col(passed).cast(DataType::Float64) / col(s::SCENARIOS).cast(DataType::Float64))
        .otherwise(lit(NULL).cast(DataType::Float64))
}

fn count_of(name: &str) -> Expr {
    col(name).cast(DataType::UInt64).sum().alias(name)
}

fn quantile_of(name: &str, q: f64, alias: &str) -> Expr {
    col(name).quantile(lit(q), QuantileMethod::Linear).alias(alias)
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

/// The rows as polars frames, the input of the per-model and per-tool tables.
struct Inputs {
    /// Model and its configured `ORDER`.
    models: LazyFrame,
    /// Run counts per model (`Runs::per_model`).
    runs: LazyFrame,
    /// Call counts per model × tool.
    calls: LazyFrame,
    /// Token, cost and latency aggregates of the requests per model.
    requests: LazyFrame,
    /// Repair token and cost sums per model × tool.
    tool_requests: LazyFrame,
    /// Local repair attempts with their latency in µs (`US`).
    local_repairs: LazyFrame,
    /// Model repair attempts with their latency in ms (`MS`).
    model_repairs: LazyFrame,
    /// Approval counts per model × tool.
    approvals: LazyFrame,
}

impl Inputs {
    /// `runs` are the per-model run counts; the requests' rows are
    /// consumed (summed), the rest read.
    fn new(r: &mut Rows, runs: DataFrame) -> PolarsResult<Inputs> {
        let order: Vec<u32> = (0..r.model_order.len() as u32).collect();
        let models = frame(vec![col_of(s::MODEL, r.model_order.clone()), col_of(ORDER, order)])?.lazy();
        let [requests, tool_requests] = request_frames(r)?;
        Ok(Inputs {
            models,
            runs: runs.lazy(),
            calls: call_frame(r)?,
            requests: requests.lazy(),
            tool_requests: tool_requests.lazy(),
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

/// The requests added up: per model, the token and cost sums of the
/// scenario's own (turn) requests apart from repair's, errors, and the
/// turn requests' latency and time-to-first-token percentiles; per model ×
/// tool, the sums of the requests that repaired that tool's calls. The
/// float sums run over the requests in unit order, as polars would add a
/// frame of them (see `exact`). Consumes the rows of the requests.
fn request_frames(r: &mut Rows) -> PolarsResult<[DataFrame; 2]> {
    let requests = std::mem::take(&mut r.requests);
    let mut turn_cost: foldhash::HashMap<u32, KahanSum> = Default::default();
    let mut repair_cost: foldhash::HashMap<u32, KahanSum> = Default::default();
    let mut tool_cost: foldhash::HashMap<(u32, u32), KahanSum> = Default::default();
    for q in &requests {
        let model = r.units[q.unit as usize].model;
        if q.repair {
            repair_cost.entry(model).or_default().add(q.cost_usd);
            if q.tool != NO_TOOL {
                tool_cost.entry((model, q.tool)).or_default().add(q.cost_usd);
            }
        } else {
            turn_cost.entry(model).or_default().add(q.cost_usd);
        }
    }
    drop(requests);
    let totals = std::mem::take(&mut r.request_totals);
    let sum = |costs: &foldhash::HashMap<u32, KahanSum>, model: &u32| costs.get(model).map_or(0.0, KahanSum::sum);
    let (mut model, mut cost, mut repair) = (vec![], vec![], vec![]);
    let (mut input, mut output, mut cached, mut repair_input, mut repair_output, mut errors) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut latency: [Vec<Option<f64>>; 3] = Default::default();
    let mut ttft: [Vec<Option<f64>>; 2] = Default::default();
    for (id, mut t) in totals {
        model.push(r.names.name(id));
        cost.push(sum(&turn_cost, &id));
        repair.push(sum(&repair_cost, &id));
        input.push(t.input_tokens);
        output.push(t.output_tokens);
        cached.push(t.cached_input_tokens);
        repair_input.push(t.repair_input_tokens);
        repair_output.push(t.repair_output_tokens);
        errors.push(t.errors);
        for (column, q) in latency.iter_mut().zip([0.5, 0.95, 0.99]) {
            column.push(quantile_linear(&mut t.turn_latency_ms, 0, q));
        }
        // Null for models that did not stream: there is no first token to time.
        for (column, q) in ttft.iter_mut().zip([0.5, 0.95]) {
            column.push(quantile_linear(&mut t.turn_ttft_ms, t.turn_without_ttft, q));
        }
    }
    let [p50, p95, p99] = latency;
    let [ttft_p50, ttft_p95] = ttft;
    let per_model = frame(vec![
        col_of(s::MODEL, model),
        col_of(s::INPUT_TOKENS, input),
        col_of(s::OUTPUT_TOKENS, output),
        col_of(s::CACHED_INPUT_TOKENS, cached),
        col_of(s::COST_USD, cost),
        col_of(s::REPAIR_INPUT_TOKENS, repair_input),
        col_of(s::REPAIR_OUTPUT_TOKENS, repair_output),
        col_of(s::REPAIR_COST_USD, repair),
        col_of(s::REQUEST_ERRORS, errors),
        col_of(s::LATENCY_P50_MS, p50),
        col_of(s::LATENCY_P95_MS, p95),
        col_of(s::LATENCY_P99_MS, p99),
        col_of(s::TTFT_P50_MS, ttft_p50),
        col_of(s::TTFT_P95_MS, ttft_p95),
    ])?;
    let tools = std::mem::take(&mut r.repair_tokens);
    let keys: Vec<(u32, u32)> = tools.keys().copied().collect();
    let mut columns = model_and_tool(r, keys.iter());
    columns.extend([
        col_of(s::REPAIR_INPUT_TOKENS, keys.iter().map(|k| tools[k].input_tokens).collect::<Vec<_>>()),
        col_of(s::REPAIR_OUTPUT_TOKENS, keys.iter().map(|k| tools[k].output_tokens).collect::<Vec<_>>()),
        col_of(s::REPAIR_COST_USD, keys.iter().map(|k| tool_cost.get(k).map_or(0.0, KahanSum::sum)).collect::<Vec<_>>()),
    ]);
    Ok([per_model, frame(columns)?])
}

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
    let per_call = inputs.calls.clone().group_by([col(s::MODEL)]).agg(call_aggregates());
    let [local_latency, model_latency] = inputs.repair_latency(&keys);
    let mut joined = inputs.models.clone();
    for other in [inputs.runs.clone(), per_call, inputs.requests.clone(), local_latency, model_latency, inputs.approval_counts(&keys)] {
        joined = join_on(joined, other, &keys);
    }
    let aggregated: Vec<&str> = s::SUMMARY.iter().copied().filter(|c| !s::SUMMARY_DERIVED.contains(c)).collect();
    zero_missing(joined, &[&COUNT_COLUMNS[..], &APPROVAL_COUNTS[..], &INVALID_KINDS[..]].concat())
        .with_column((col(s::REPAIRED_LOCAL) + col(s::REPAIRED_MODEL)).alias(REPAIRED))
        .with_columns([
            pass_rate(s::PASSED).alias(s::PASS_RATE),
            pass_rate(s::PASSED_NO_REPAIR).alias(s::PASS_RATE_NO_REPAIR),
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
    let [local_latency, model_latency] = inputs.repair_latency(&keys);
    let mut joined = inputs.calls.clone().group_by(cols(&keys)).agg(call_aggregates());
    for other in [inputs.tool_requests.clone(), local_latency, model_latency, inputs.approval_counts(&keys)] {
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

/// Every table from the extracted rows.
pub(super) fn aggregate(mut r: Rows) -> PolarsResult<Tables> {
    let runs = Runs::new(&r);
    let (scenarios, by_scenario, mut suites) = (runs.scenarios()?, runs.by_scenario()?, runs.suites()?);
    let (per_model, pair_rows) = (runs.per_model()?, runs.pairs());
    let repairs = repairs(&r)?;
    let injection = r.injection.table(&r.model_order)?;
    let inputs = Inputs::new(&mut r, per_model)?;
    // The per-unit rows are in the frames now.
    (r.units, r.scenarios, r.repairs) = (Vec::new(), Vec::new(), Vec::new());
    let mut summary = summary(&inputs)?;
    let mut by_tool = by_tool(&inputs)?;
    drop(inputs);
    derived::extend_summary(&mut summary, &by_scenario, &r.model_tier, &r.model_arm, r.trials)?;
    derived::extend_by_tool(&mut by_tool, &r.model_arm)?;
    derived::extend_suites(&mut suites)?;
    // Two models are compared on the runs both answered.
    let pairs = derived::pairs(pair_rows, &r.model_tier, &r.model_arm)?;
    // The frames become rows once, here; the sinks read only rows.
    let rows = TableRows {
        summary: rows_of(&summary)?,
        by_tool: rows_of(&by_tool)?,
        scenarios: rows_of(&scenarios)?,
        by_scenario: rows_of(&by_scenario)?,
        suites: rows_of(&suites)?,
        repairs: rows_of(&repairs)?,
        pairs: rows_of(&pairs)?,
        injection: rows_of(&injection)?,
    };
    Ok(Tables { run: r.run, rows, events: r.events })
}
