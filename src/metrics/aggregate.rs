//! The tables, aggregated by polars from the rows of the events.

use polars::prelude::*;

use super::derived;
use super::rows::{ApprovalCounts, CallCounts, RepairRow, Rows};
use super::Tables;
use crate::events::{DenialBehaviour, RepairStage};
use crate::pipeline::InvalidKind;

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
    let mut aggs: Vec<Expr> = ["calls", "invalid", "repaired_local", "repaired_model", "still_invalid"].map(count_of).into();
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

/// The polars part: every table from the extracted rows.
pub(super) fn aggregate(r: Rows) -> PolarsResult<Tables> {
    let order: Vec<u32> = (0..r.model_order.len() as u32).collect();
    let models = frame(vec![col_of("model", r.model_order.clone()), col_of("order", order)])?.lazy();
    let name = |id: u32| r.names.name(id);

    let units = || r.scenarios.iter().map(|s| &r.units[s.unit as usize]);
    let scenarios = frame(vec![
        col_of("model", units().map(|u| name(u.model)).collect::<Vec<_>>()),
        col_of("suite", units().map(|u| name(u.suite)).collect::<Vec<_>>()),
        col_of("scenario", units().map(|u| name(u.scenario)).collect::<Vec<_>>()),
        col_of("trial", units().map(|u| u.trial).collect::<Vec<_>>()),
        col_of("passed", r.scenarios.iter().map(|s| s.passed).collect::<Vec<_>>()),
        // Without repair, a call that needed it would have failed the scenario.
        col_of("passed_no_repair", r.scenarios.iter().map(|s| s.passed && !r.units[s.unit as usize].repaired).collect::<Vec<_>>()),
        col_of("reason", r.scenarios.iter().map(|s| name(s.reason)).collect::<Vec<_>>()),
        col_of("latency_ms", units().map(|u| u.latency_ms).collect::<Vec<_>>()),
        col_of("cost_usd", units().map(|u| u.cost_usd).collect::<Vec<_>>()),
    ])?;

    // Counted per model × tool as the events were read.
    let model_and_tool = |keys: Vec<&(u32, u32)>| {
        vec![
            col_of("model", keys.iter().map(|k| name(k.0)).collect::<Vec<_>>()),
            col_of("tool", keys.iter().map(|k| name(k.1)).collect::<Vec<_>>()),
        ]
    };
    let counts = |f: &dyn Fn(&CallCounts) -> u64| r.calls.values().map(f).collect::<Vec<u64>>();
    let mut call_columns = model_and_tool(r.calls.keys().collect());
    call_columns.extend([
        col_of("calls", counts(&|c| c.calls)),
        col_of("invalid", counts(&|c| c.invalid)),
        col_of("repaired_local", counts(&|c| c.repaired_local)),
        col_of("repaired_model", counts(&|c| c.repaired_model)),
        col_of("still_invalid", counts(&|c| c.still_invalid)),
    ]);
    for (i, kind) in InvalidKind::ALL.iter().enumerate() {
        call_columns.push(col_of(kind.as_str(), counts(&|c| c.kinds[i])));
    }
    let calls = frame(call_columns)?.lazy();

    let requests = frame(vec![
        col_of("model", r.requests.iter().map(|q| r.model_of(q.unit)).collect::<Vec<_>>()),
        col_of("tool", r.requests.iter().map(|q| q.tool.map(name)).collect::<Vec<_>>()),
        col_of("repair", r.requests.iter().map(|q| q.repair).collect::<Vec<_>>()),
        col_of("input_tokens", r.requests.iter().map(|q| q.input_tokens).collect::<Vec<_>>()),
        col_of("output_tokens", r.requests.iter().map(|q| q.output_tokens).collect::<Vec<_>>()),
        col_of("cached_input_tokens", r.requests.iter().map(|q| q.cached_input_tokens).collect::<Vec<_>>()),
        col_of("cost_usd", r.requests.iter().map(|q| q.cost_usd).collect::<Vec<_>>()),
        col_of("latency_ms", r.requests.iter().map(|q| q.latency_ms).collect::<Vec<_>>()),
        col_of("ttft_ms", r.requests.iter().map(|q| q.ttft_ms).collect::<Vec<_>>()),
        col_of("request_errors", r.requests.iter().map(|q| q.error).collect::<Vec<_>>()),
    ])?
    .lazy();
    // One stage's repair attempts: model, tool and the latency in that stage's unit.
    let repairs_of = |stage: RepairStage, unit: &str, latency: fn(&RepairRow) -> Option<f64>| {
        let of_stage = || r.repairs.iter().filter(|p| p.stage == stage);
        frame(vec![
            col_of("model", of_stage().map(|p| r.model_of(p.unit)).collect::<Vec<_>>()),
            col_of("tool", of_stage().map(|p| name(p.tool)).collect::<Vec<_>>()),
            col_of(unit, of_stage().map(|p| latency(p).unwrap_or(0.0)).collect::<Vec<_>>()),
        ])
        .map(DataFrame::lazy)
    };
    let local_repairs = repairs_of(RepairStage::Local, "us", |p| p.latency_us)?;
    let model_repairs = repairs_of(RepairStage::Model, "ms", |p| p.latency_ms)?;
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

    let approved = |f: &dyn Fn(&ApprovalCounts) -> u64| r.approvals.values().map(f).collect::<Vec<u64>>();
    let mut approval_columns = model_and_tool(r.approvals.keys().collect());
    approval_columns.extend([
        col_of("approvals_requested", approved(&|a| a.requested)),
        col_of("approved", approved(&|a| a.approved)),
        col_of("denied", approved(&|a| a.requested - a.approved)),
        col_of("approval_warnings", approved(&|a| a.warnings)),
    ]);
    for (i, b) in DenialBehaviour::ALL.iter().enumerate() {
        approval_columns.push(col_of(b.column(), approved(&|a| a.after_denial[i])));
    }
    let approvals = frame(approval_columns)?.lazy();
    let approval_counts =
        |keys: &[&str]| approvals.clone().group_by(keys.iter().map(|k| col(*k)).collect::<Vec<_>>()).agg(APPROVAL_COLUMNS.map(count_of));

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
    per_request_aggs.push(turn_latency(0.99).alias("latency_p99_ms"));
    // Null for models that did not stream: there is no first token to time.
    let ttft = |q: f64| col("ttft_ms").filter(col("repair").not()).quantile(lit(q), QuantileMethod::Linear);
    per_request_aggs.push(ttft(0.5).alias("ttft_p50_ms"));
    per_request_aggs.push(ttft(0.95).alias("ttft_p95_ms"));
    let per_request = requests.clone().group_by([col("model")]).agg(per_request_aggs);
    // Every summary column but those `derived` adds afterwards.
    let summary_columns: Vec<&str> = derived::SUMMARY_ORDER.iter().copied().filter(|c| !derived::DERIVED.contains(c)).collect();
    let summary = zero_missing(
        models
            .clone()
            .join(per_scenario, on(&["model"]), on(&["model"]), left())
            .join(per_call, on(&["model"]), on(&["model"]), left())
            .join(per_request, on(&["model"]), on(&["model"]), left())
            .join(local_latency(&["model"]), on(&["model"]), on(&["model"]), left())
            .join(model_latency(&["model"]), on(&["model"]), on(&["model"]), left())
            .join(approval_counts(&["model"]), on(&["model"]), on(&["model"]), left()),
        &[&COUNT_COLUMNS[..], &APPROVAL_COLUMNS[..], &InvalidKind::ALL.map(|k| k.as_str())[..]].concat(),
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
        .join(models.clone(), on(&["model"]), on(&["model"]), left())
        .sort(["order", "suite", "scenario", "trial"], Default::default())
        .select(["model", "suite", "scenario", "trial", "passed", "reason", "passed_no_repair", "latency_ms", "cost_usd"].map(col))
        .collect()?;
    let by_scenario = scenarios
        .clone()
        .lazy()
        .group_by(on(&["model", "suite", "scenario"]))
        .agg([
            len().cast(DataType::UInt64).alias("trials"),
            count_of("passed"),
            col("cost_usd").sum(),
            col("latency_ms").mean().alias("mean_latency_ms"),
        ])
        .with_columns([
            rate("passed", "trials").alias("pass_rate"),
            (col("passed").gt(lit(0)).and(col("passed").lt(col("trials")))).alias("flaky"),
        ])
        .join(models.clone(), on(&["model"]), on(&["model"]), left())
        .sort(["order", "suite", "scenario"], Default::default())
        .select(["model", "suite", "scenario", "trials", "passed", "pass_rate", "flaky", "cost_usd", "mean_latency_ms"].map(col))
        .collect()?;
    let mut suites = scenarios
        .clone()
        .lazy()
        .group_by(on(&["model", "suite"]))
        .agg([len().cast(DataType::UInt64).alias("scenarios"), count_of("passed"), col("cost_usd").sum().alias("total_cost_usd")])
        .with_column(rate("passed", "scenarios").alias("pass_rate"))
        .join(models, on(&["model"]), on(&["model"]), left())
        .sort(["order", "suite"], Default::default())
        .select(["model", "suite", "scenarios", "passed", "pass_rate", "total_cost_usd"].map(col))
        .collect()?;
    let repairs = frame(vec![
        col_of("model", r.repairs.iter().map(|p| r.model_of(p.unit)).collect::<Vec<_>>()),
        col_of("tool", r.repairs.iter().map(|p| name(p.tool)).collect::<Vec<_>>()),
        col_of("stage", r.repairs.iter().map(|p| if p.stage == RepairStage::Local { "local" } else { "model" }).collect::<Vec<_>>()),
        col_of(
            "latency_us",
            r.repairs.iter().map(|p| p.latency_us.unwrap_or_else(|| p.latency_ms.unwrap_or(0.0) * 1e3)).collect::<Vec<_>>(),
        ),
        col_of("succeeded", r.repairs.iter().map(|p| p.succeeded).collect::<Vec<_>>()),
    ])?;

    let mut summary = summary;
    let mut by_tool = by_tool;
    derived::extend_summary(&mut summary, &by_scenario, &r.model_tier, r.trials)?;
    derived::extend_by_tool(&mut by_tool)?;
    derived::extend_suites(&mut suites)?;
    let pairs = derived::pairs(&scenarios, &r.model_order)?;
    Ok(Tables { run: r.run.clone(), summary, by_tool, scenarios, by_scenario, suites, repairs, pairs, events: r.events })
}
