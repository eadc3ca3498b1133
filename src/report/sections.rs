//! What the human-readable reports show, defined once: titled tables, each
//! a few columns of one of the run's tables, short enough for a 120-column
//! terminal and a pull-request comment. The terminal and Markdown renderers
//! both draw these; CSV and JSON carry every column.

use polars::prelude::*;

use std::collections::HashMap;

pub use super::Section;
use crate::metrics::columns::{bools, f64s, strings};
use crate::metrics::schema;
use crate::metrics::Tables;

/// Columns the reports add to a copy of the summary, for display only.
const PASS_CI: &str = "pass_ci";
const MODEL_MARKED: &str = "model_marked";
/// Display columns of the errored-units table.
const ERRORED_STATE: &str = "errored_state";
const FIRST_ERROR: &str = "first_error";
/// Display columns of the arms table: the base model, cost and latency of the arm over the first.
const ARM_MODEL: &str = "arm_model";
const ARM_COST: &str = "arm_cost_ratio";
const ARM_LATENCY: &str = "arm_latency_ratio";
/// Display columns of the cheap-vs-strong table, the cheap model first.
const CHEAP: &str = "cheap";
const STRONG: &str = "strong";
const CHEAP_PASS: &str = "pass_cheap";
const STRONG_PASS: &str = "pass_strong";
const ONLY_CHEAP: &str = "only_cheap";
const ONLY_STRONG: &str = "only_strong";
const CHEAP_COST: &str = "cost_cheap_over_strong";
const CHEAP_LATENCY: &str = "latency_cheap_over_strong";

fn section(title: &str, frame: DataFrame, columns: &[(&str, &str)]) -> Section {
    Section {
        title: title.into(),
        frame,
        columns: columns.iter().map(|(c, l)| (c.to_string(), l.to_string())).collect(),
        note: None,
        terminal: true,
        terminal_rows: None,
    }
}

/// Terminal rows of the per-tool table: a suite of hundreds of tools would
/// otherwise bury the rest of the report.
pub const TERMINAL_TOOL_ROWS: usize = 25;

/// The invalid kinds that occurred in `df`'s kind columns, as (column, label).
fn kinds_present(df: &DataFrame) -> PolarsResult<Vec<(&'static str, String)>> {
    let mut kinds = Vec::new();
    for kind in schema::INVALID_KINDS {
        if total(df, kind)? > 0 {
            kinds.push((kind, kind.replace('_', " ")));
        }
    }
    Ok(kinds)
}

fn total(df: &DataFrame, column: &str) -> PolarsResult<u64> {
    Ok(df.column(column)?.as_materialized_series().sum::<u64>().unwrap_or(0))
}

/// Rows of `df` where `column` > 0, with a note on how many were left out.
fn rows_with(df: &DataFrame, column: &str, what: &str, csv: &str) -> PolarsResult<(DataFrame, Option<String>)> {
    let kept = df.clone().lazy().filter(col(column).gt(lit(0))).collect()?;
    let omitted = df.height() - kept.height();
    let note = (omitted > 0).then(|| format!("({omitted} rows without {what} not shown; see {csv})"));
    Ok((kept, note))
}

/// "lo–hi" of an interval's two columns, as text; none where the rate is
/// empty (no run answered).
fn interval_text(df: &DataFrame, rate: &str) -> PolarsResult<Vec<Option<String>>> {
    let (lo, hi) = schema::interval_of(rate);
    let (lo, hi) = (df.column(lo)?.f64()?, df.column(hi)?.f64()?);
    Ok(lo.iter().zip(hi.iter()).map(|(l, h)| Some(format!("{:.2}–{:.2}", l?, h?))).collect())
}

/// The models with errored units (no answer: neither passed nor failed),
/// each with how many and its first error; `None` when every unit answered.
pub fn errored(tables: &Tables) -> PolarsResult<Option<Section>> {
    let errored = crate::metrics::errored::errored_models(tables)?;
    if errored.is_empty() {
        return Ok(None);
    }
    let column = |name: &str, values: Vec<String>| Column::from(Series::new(name.into(), values));
    let frame = DataFrame::new_infer_height(vec![
        column(schema::MODEL, errored.iter().map(|m| m.model.clone()).collect()),
        Column::from(Series::new(schema::ERRORED.into(), errored.iter().map(|m| m.errored).collect::<Vec<u64>>())),
        Column::from(Series::new(schema::SCENARIOS.into(), errored.iter().map(|m| m.answered).collect::<Vec<u64>>())),
        column(
            ERRORED_STATE,
            errored.iter().map(|m| if m.answered == 0 { "errored: never answered" } else { "some units errored" }.to_string()).collect(),
        ),
        column(FIRST_ERROR, errored.iter().map(|m| m.first.clone()).collect()),
    ])?;
    let mut s = section(
        "Errored units: no answer, so neither passed nor failed",
        frame,
        &[
            (schema::MODEL, "model"),
            (schema::ERRORED, "errored"),
            (schema::SCENARIOS, "answered"),
            (ERRORED_STATE, "state"),
            (FIRST_ERROR, "first error"),
        ],
    );
    s.note = Some("Pass rates count answered units only; \"errored\": none answered (no rate, off the Pareto front)".into());
    Ok(Some(s))
}

/// Rows of the pairs table of one kind (`schema::PAIR_*`) that `keep` accepts.
fn pairs_of(tables: &Tables, kind: &str, keep: impl Fn(&str, &str) -> bool) -> PolarsResult<Option<DataFrame>> {
    let p = &tables.pairs;
    let (a, b, kinds) = (strings(p, schema::MODEL_A)?, strings(p, schema::MODEL_B)?, strings(p, schema::PAIR_KIND)?);
    let mask: Vec<bool> = a.iter().zip(&b).zip(&kinds).map(|((a, b), k)| k == kind && keep(a, b)).collect();
    if !mask.contains(&true) {
        return Ok(None);
    }
    p.filter(&BooleanChunked::from_slice("mask".into(), &mask)).map(Some)
}

/// Cheap models (with each arm, where the run had arms) against strong
/// ones, paired on the runs both made: the question calltape answers. The
/// pairs table keeps model order; here the cheap model is always first.
fn cheap_vs_strong(tables: &Tables) -> PolarsResult<Option<Section>> {
    let Some(rows) = pairs_of(tables, schema::PAIR_CHEAP_VS_STRONG, |_, _| true)? else { return Ok(None) };
    let tiers: HashMap<String, String> =
        strings(&tables.summary, schema::MODEL)?.into_iter().zip(strings(&tables.summary, schema::TIER)?).collect();
    let a = strings(&rows, schema::MODEL_A)?;
    let cheap_first: Vec<bool> = a.iter().map(|m| tiers.get(m).is_some_and(|t| t == "cheap")).collect();
    // Each display column: A's value where A is the cheap one, else B's.
    let pick_text = |x: &str, y: &str| -> PolarsResult<Vec<String>> {
        Ok(strings(&rows, x)?.into_iter().zip(strings(&rows, y)?).zip(&cheap_first).map(|((x, y), c)| if *c { x } else { y }).collect())
    };
    let pick = |x: &str, y: &str| -> PolarsResult<Vec<f64>> {
        Ok(f64s(&rows, x)?.into_iter().zip(f64s(&rows, y)?).zip(&cheap_first).map(|((x, y), c)| if *c { x } else { y }).collect())
    };
    let ratio = |column: &str| -> PolarsResult<Vec<Option<f64>>> {
        Ok(f64s(&rows, column)?
            .into_iter()
            .zip(&cheap_first)
            .map(|(r, c)| (r > 0.0 && r.is_finite()).then(|| if *c { r } else { 1.0 / r }))
            .collect())
    };
    let display = DataFrame::new_infer_height(vec![
        Column::from(Series::new(CHEAP.into(), pick_text(schema::MODEL_A, schema::MODEL_B)?)),
        Column::from(Series::new(STRONG.into(), pick_text(schema::MODEL_B, schema::MODEL_A)?)),
        rows.column(schema::SHARED)?.clone(),
        Column::from(Series::new(CHEAP_PASS.into(), pick(schema::PASS_RATE_A, schema::PASS_RATE_B)?)),
        Column::from(Series::new(STRONG_PASS.into(), pick(schema::PASS_RATE_B, schema::PASS_RATE_A)?)),
        Column::from(Series::new(ONLY_CHEAP.into(), pick(schema::ONLY_A, schema::ONLY_B)?)),
        Column::from(Series::new(ONLY_STRONG.into(), pick(schema::ONLY_B, schema::ONLY_A)?)),
        rows.column(schema::P_VALUE)?.clone(),
        Column::from(Series::new(CHEAP_COST.into(), ratio(schema::COST_RATIO)?)),
        Column::from(Series::new(CHEAP_LATENCY.into(), ratio(schema::LATENCY_RATIO)?)),
    ])?;
    let mut s = section(
        "Cheap vs strong, paired on the same runs (McNemar's exact test)",
        display,
        &[
            (CHEAP, "cheap"),
            (STRONG, "strong"),
            (schema::SHARED, "runs"),
            (CHEAP_PASS, "pass cheap"),
            (STRONG_PASS, "pass strong"),
            (ONLY_CHEAP, "only cheap"),
            (ONLY_STRONG, "only strong"),
            (schema::P_VALUE, "p"),
            (CHEAP_COST, "cost cheap/strong"),
            (CHEAP_LATENCY, "latency cheap/strong"),
        ],
    );
    s.note = Some("p: McNemar's exact p-value; cost and latency over the shared runs".into());
    Ok(Some(s))
}

/// What each arm buys: every arm of a model paired with its first arm on
/// the same runs, or `None` when the run had no arms.
pub fn arms(tables: &Tables) -> PolarsResult<Option<Section>> {
    let summary = &tables.summary;
    let (models, bases) = (strings(summary, schema::MODEL)?, strings(summary, schema::BASE_MODEL)?);
    // A model's first arm is its first variant in model order.
    let mut first: HashMap<String, String> = HashMap::new();
    for (m, b) in models.iter().zip(&bases) {
        first.entry(b.clone()).or_insert_with(|| m.clone());
    }
    let base_of: HashMap<&String, &String> = models.iter().zip(&bases).collect();
    let is_first = |a: &str| base_of.get(&a.to_string()).is_some_and(|b| first.get(*b).is_some_and(|f| f == a));
    let Some(rows) = pairs_of(tables, schema::PAIR_ARMS, |a, _| is_first(a))? else { return Ok(None) };
    let b = strings(&rows, schema::MODEL_B)?;
    let mut rows = rows;
    let base: Vec<String> = b.iter().map(|m| base_of.get(m).map_or_else(|| m.clone(), |b| (*b).clone())).collect();
    rows.with_column(Column::from(Series::new(ARM_MODEL.into(), base)))?;
    let ratio = |column: &str| -> PolarsResult<Vec<Option<f64>>> {
        Ok(f64s(&rows, column)?.into_iter().map(|r| (r > 0.0 && r.is_finite()).then(|| 1.0 / r)).collect())
    };
    let (cost, latency) = (ratio(schema::COST_RATIO)?, ratio(schema::LATENCY_RATIO)?);
    rows.with_column(Column::from(Series::new(ARM_COST.into(), cost)))?;
    rows.with_column(Column::from(Series::new(ARM_LATENCY.into(), latency)))?;
    let mut s = section(
        "What each arm buys, paired with the model's first arm on the same runs (McNemar's exact test)",
        rows,
        &[
            (ARM_MODEL, "model"),
            (schema::ARM_B, "arm"),
            (schema::PASS_RATE_B, "pass"),
            (schema::ARM_A, "vs"),
            (schema::PASS_RATE_A, "pass vs"),
            (schema::PASS_RATE_DIFF, "diff"),
            (schema::SHARED, "runs"),
            (schema::ONLY_B, "only arm"),
            (schema::ONLY_A, "only vs"),
            (schema::P_VALUE, "p"),
            (ARM_COST, "cost ×"),
            (ARM_LATENCY, "latency ×"),
        ],
    );
    s.note = Some(
        "diff: pass − pass vs; cost × and latency ×: the arm's over the first arm's, on the shared runs; p: McNemar's exact p-value".into(),
    );
    Ok(Some(s))
}

/// The sections of a report, in reading order.
pub fn sections(tables: &Tables) -> PolarsResult<Vec<Section>> {
    let mut s = tables.summary.clone();
    let ci = interval_text(&s, schema::PASS_RATE)?;
    s.with_column(Column::from(Series::new(PASS_CI.into(), ci)))?;
    let pareto = bools(&s, schema::PARETO)?;
    let marked: Vec<String> =
        strings(&s, schema::MODEL)?.into_iter().zip(pareto).map(|(m, p)| if p { format!("{m} *") } else { m }).collect();
    s.with_column(Column::from(Series::new(MODEL_MARKED.into(), marked)))?;
    let s = &s;
    // The errored column only when some unit errored: honest runs keep their table.
    let any_errored = total(s, schema::ERRORED)? > 0;
    let errored_column: &[(&str, &str)] = if any_errored { &[(schema::ERRORED, "errored")] } else { &[] };
    let outcomes = [
        &[(schema::MODEL, "model"), (schema::SCENARIOS, "runs")][..],
        errored_column,
        &[
            (schema::PASS_RATE, "pass"),
            (PASS_CI, "95% CI"),
            (schema::PASS_RATE_NO_REPAIR, "pass w/o repair"),
            (schema::CALLS, "calls"),
            (schema::INVALID_RATE, "invalid rate"),
            (schema::REPAIRED_LOCAL, "fixed local"),
            (schema::REPAIRED_MODEL, "fixed model"),
            (schema::STILL_INVALID, "still invalid"),
        ],
    ]
    .concat();
    let mut out = vec![section("Per model: calls and outcomes", s.clone(), &outcomes)];
    out.extend(errored(tables)?);
    out.push(section(
        "Per model: tokens, cost and latency (* on the pass-rate/cost Pareto front)",
        s.clone(),
        &[
            (MODEL_MARKED, "model"),
            (schema::INPUT_TOKENS, "in tok"),
            (schema::OUTPUT_TOKENS, "out tok"),
            (schema::COST_USD, "cost $"),
            (schema::REPAIR_COST_USD, "repair $"),
            (schema::LATENCY_P50_MS, "p50 ms"),
            (schema::LATENCY_P95_MS, "p95 ms"),
            (schema::REPAIR_LOCAL_P50_US, "local fix p50 µs"),
            (schema::REPAIR_MODEL_P50_MS, "model fix p50 ms"),
        ],
    ));
    out.extend(arms(tables)?);
    out.extend(cheap_vs_strong(tables)?);
    out.extend(super::decision::section(tables)?);
    if total(s, schema::APPROVALS_REQUESTED)? > 0 {
        let mut columns = vec![
            (schema::MODEL, "model"),
            (schema::APPROVALS_REQUESTED, "asked"),
            (schema::APPROVED, "approved"),
            (schema::DENIED, "denied"),
        ];
        if total(s, schema::APPROVAL_WARNINGS)? > 0 {
            columns.push((schema::APPROVAL_WARNINGS, "approved unanswered"));
        }
        let labels = ["retried same", "retried changed", "other tool", "answered", "step limit"];
        for (column, label) in schema::AFTER_DENIAL.into_iter().zip(labels) {
            columns.push((column, label));
        }
        let mut approvals = section("Per model: approvals, and what models did after a denial", s.clone(), &columns);
        if total(s, schema::APPROVAL_WARNINGS)? > 0 {
            approvals.note =
                Some("warning: some calls were approved only because nothing could answer (approval.on_unanswered = \"approve\")".into());
        }
        out.push(approvals);
    }

    out.extend(super::injection::section(tables)?);

    // Per model: invalid calls by kind, only the kinds that occurred.
    let kinds = kinds_present(s)?;
    if !kinds.is_empty() {
        let mut columns = vec![(schema::MODEL, "model"), (schema::CALLS, "calls"), (schema::INVALID, "invalid")];
        columns.extend(kinds.iter().map(|(c, l)| (*c, l.as_str())));
        out.push(section("Per model: invalid calls by kind", s.clone(), &columns));
    }

    // Per tool: rows with invalid calls, most first, and only the invalid kinds that occurred.
    let (invalid, note) = rows_with(&tables.by_tool, schema::INVALID, "invalid call", "by_tool.csv")?;
    let invalid = invalid.sort([schema::INVALID], SortMultipleOptions::default().with_order_descending(true).with_maintain_order(true))?;
    let mut columns = vec![
        (schema::MODEL, "model"),
        (schema::TOOL, "tool"),
        (schema::CALLS, "calls"),
        (schema::INVALID, "invalid"),
        (schema::REPAIRED_LOCAL, "fixed local"),
        (schema::REPAIRED_MODEL, "fixed model"),
        (schema::STILL_INVALID, "still invalid"),
    ];
    let kinds = kinds_present(&invalid)?;
    columns.extend(kinds.iter().map(|(c, l)| (*c, l.as_str())));
    let none = invalid.height() == 0;
    let mut per_tool = section("Per model × tool: invalid calls by kind", invalid, &columns);
    per_tool.note = if none { Some("No invalid calls.".into()) } else { note };
    per_tool.terminal_rows = Some(TERMINAL_TOOL_ROWS);
    out.push(per_tool);

    if total(&tables.by_tool, schema::DENIED)? > 0 {
        let (denials, note) = rows_with(&tables.by_tool, schema::DENIED, "denial", "by_tool.csv")?;
        let mut per_tool = section(
            "Per model × tool: denials",
            denials,
            &[
                (schema::MODEL, "model"),
                (schema::TOOL, "tool"),
                (schema::APPROVALS_REQUESTED, "asked"),
                (schema::DENIED, "denied"),
                (schema::AFTER_DENIAL[0], "retried same"),
                (schema::AFTER_DENIAL[1], "retried changed"),
                (schema::AFTER_DENIAL[2], "other tool"),
                (schema::AFTER_DENIAL[3], "answered"),
            ],
        );
        per_tool.note = note;
        per_tool.terminal = false;
        out.push(per_tool);
    }
    Ok(out)
}

/// How many failed runs the Markdown and HTML reports list: enough to see
/// what goes wrong, short enough for a pull-request comment (GitHub takes
/// 65,536 characters) however big the suite. `scenarios.csv` has them all.
pub const FAILURES_LISTED: usize = 200;

/// The failed runs, with why (the first `FAILURES_LISTED`).
pub fn failures(tables: &Tables) -> PolarsResult<Section> {
    first_failures(tables, FAILURES_LISTED)
}

/// The failed runs, with why (the first `listed`). An errored run got no
/// answer: it did not fail, and is listed apart (`errored`).
pub fn first_failures(tables: &Tables, listed: usize) -> PolarsResult<Section> {
    // Only the listed rows are copied out of the per-run table.
    let passed = bools(&tables.scenarios, schema::PASSED)?;
    let errored = bools(&tables.scenarios, schema::ERRORED)?;
    let failed: Vec<bool> = passed.iter().zip(&errored).map(|(p, e)| !p && !e).collect();
    let total = failed.iter().filter(|f| **f).count();
    let mut shown = 0;
    let mask: Vec<bool> = failed
        .into_iter()
        .map(|f| {
            let show = f && shown < listed;
            shown += usize::from(show);
            show
        })
        .collect();
    let failed = tables.scenarios.filter(&BooleanChunked::from_slice("listed".into(), &mask))?;
    let mut section = section(
        &format!("Failed scenarios ({total})"),
        failed,
        &[
            (schema::MODEL, "model"),
            (schema::SUITE, "suite"),
            (schema::SCENARIO, "scenario"),
            (schema::TRIAL, "trial"),
            (schema::REASON, "reason"),
        ],
    );
    if total > listed {
        section.note = Some(format!("The first {listed} of {total}; every one is in scenarios.csv (`passed` and `errored` false)."));
    }
    Ok(section)
}
