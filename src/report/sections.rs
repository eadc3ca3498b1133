//! What the human-readable reports show, defined once: titled tables, each
//! a few columns of one of the run's tables, short enough for a 120-column
//! terminal and a pull-request comment. The terminal and Markdown renderers
//! both draw these; CSV and JSON carry every column.

use polars::prelude::*;

use std::collections::HashMap;

use crate::metrics::columns::{bools, f64s, strings};
use crate::metrics::schema;
use crate::metrics::Tables;

/// Columns the reports add to a copy of the summary, for display only.
const PASS_CI: &str = "pass_ci";
const MODEL_MARKED: &str = "model_marked";

/// One titled table of a report.
pub struct Section {
    pub title: String,
    pub frame: DataFrame,
    /// (column, label) pairs, in order.
    pub columns: Vec<(String, String)>,
    /// A line under the table, e.g. rows left out.
    pub note: Option<String>,
    /// Shown on the terminal too (else only in `report.md`).
    pub terminal: bool,
    /// On the terminal, only this many rows (the rest are in `report.md`).
    pub terminal_rows: Option<usize>,
}

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

/// "lo–hi" of an interval's two columns, as text.
fn interval_text(df: &DataFrame, rate: &str) -> PolarsResult<Vec<String>> {
    let (lo, hi) = schema::interval_of(rate);
    let (lo, hi) = (f64s(df, lo)?, f64s(df, hi)?);
    Ok(lo.iter().zip(hi).map(|(l, h)| format!("{l:.2}–{h:.2}")).collect())
}

/// Strong models against cheap ones, paired on the runs both made.
fn strong_vs_cheap(tables: &Tables) -> PolarsResult<Option<Section>> {
    let tiers: HashMap<String, String> =
        strings(&tables.summary, schema::MODEL)?.into_iter().zip(strings(&tables.summary, schema::TIER)?).collect();
    let p = &tables.pairs;
    let (a, b) = (strings(p, schema::MODEL_A)?, strings(p, schema::MODEL_B)?);
    let mask: Vec<bool> = a.iter().zip(&b).map(|(a, b)| tiers.get(a) != tiers.get(b)).collect();
    if !mask.contains(&true) {
        return Ok(None);
    }
    let rows = p.filter(&BooleanChunked::from_slice("mask".into(), &mask))?;
    let mut s = section(
        "Strong vs cheap, paired on the same runs (McNemar's exact test)",
        rows,
        &[
            (schema::MODEL_A, "model a"),
            (schema::MODEL_B, "model b"),
            (schema::SHARED, "runs"),
            (schema::PASS_RATE_A, "pass a"),
            (schema::PASS_RATE_B, "pass b"),
            (schema::ONLY_A, "only a"),
            (schema::ONLY_B, "only b"),
            (schema::P_VALUE, "p"),
            (schema::COST_RATIO, "cost a/b"),
        ],
    );
    s.note = Some("p: McNemar's exact p-value; cost a/b over the shared runs".into());
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
    let mut out = vec![
        section(
            "Per model: calls and outcomes",
            s.clone(),
            &[
                (schema::MODEL, "model"),
                (schema::SCENARIOS, "runs"),
                (schema::PASS_RATE, "pass"),
                (PASS_CI, "95% CI"),
                (schema::PASS_RATE_NO_REPAIR, "pass w/o repair"),
                (schema::CALLS, "calls"),
                (schema::INVALID_RATE, "invalid rate"),
                (schema::REPAIRED_LOCAL, "fixed local"),
                (schema::REPAIRED_MODEL, "fixed model"),
                (schema::STILL_INVALID, "still invalid"),
            ],
        ),
        section(
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
        ),
    ];
    out.extend(strong_vs_cheap(tables)?);
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

/// The failed runs, with why (the first `listed`).
pub fn first_failures(tables: &Tables, listed: usize) -> PolarsResult<Section> {
    let failed = tables.scenarios.clone().lazy().filter(col(schema::PASSED).not()).collect()?;
    let total = failed.height();
    let mut section = section(
        &format!("Failed scenarios ({total})"),
        failed.head(Some(listed)),
        &[
            (schema::MODEL, "model"),
            (schema::SUITE, "suite"),
            (schema::SCENARIO, "scenario"),
            (schema::TRIAL, "trial"),
            (schema::REASON, "reason"),
        ],
    );
    if total > listed {
        section.note = Some(format!("The first {listed} of {total}; every one is in scenarios.csv (`passed` false)."));
    }
    Ok(section)
}
