//! What the human-readable reports show, defined once: titled tables, each
//! a few columns of one of the run's tables, short enough for a 120-column
//! terminal and a pull-request comment. The terminal and Markdown renderers
//! both draw these; CSV and JSON carry every column.

use polars::prelude::*;

use std::collections::HashMap;

use crate::events::DenialBehaviour;
use crate::metrics::columns::{bools, f64s, strings};
use crate::metrics::Tables;
use crate::pipeline::InvalidKind;

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
    for kind in InvalidKind::ALL {
        if total(df, kind.as_str())? > 0 {
            kinds.push((kind.as_str(), kind.as_str().replace('_', " ")));
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
    let (lo, hi) = (f64s(df, &format!("{rate}_lo"))?, f64s(df, &format!("{rate}_hi"))?);
    Ok(lo.iter().zip(hi).map(|(l, h)| format!("{l:.2}–{h:.2}")).collect())
}

/// Strong models against cheap ones, paired on the runs both made.
fn strong_vs_cheap(tables: &Tables) -> PolarsResult<Option<Section>> {
    let tiers: HashMap<String, String> = strings(&tables.summary, "model")?.into_iter().zip(strings(&tables.summary, "tier")?).collect();
    let p = &tables.pairs;
    let (a, b) = (strings(p, "model_a")?, strings(p, "model_b")?);
    let mask: Vec<bool> = a.iter().zip(&b).map(|(a, b)| tiers.get(a) != tiers.get(b)).collect();
    if !mask.contains(&true) {
        return Ok(None);
    }
    let rows = p.filter(&BooleanChunked::from_slice("mask".into(), &mask))?;
    let mut s = section(
        "Strong vs cheap, paired on the same runs (McNemar's exact test)",
        rows,
        &[
            ("model_a", "model a"),
            ("model_b", "model b"),
            ("shared", "runs"),
            ("pass_rate_a", "pass a"),
            ("pass_rate_b", "pass b"),
            ("only_a", "only a"),
            ("only_b", "only b"),
            ("p_value", "p"),
            ("cost_ratio", "cost a/b"),
        ],
    );
    s.note = Some("p: McNemar's exact p-value; cost a/b over the shared runs".into());
    Ok(Some(s))
}

/// The sections of a report, in reading order.
pub fn sections(tables: &Tables) -> PolarsResult<Vec<Section>> {
    let mut s = tables.summary.clone();
    let ci = interval_text(&s, "pass_rate")?;
    s.with_column(Column::from(Series::new("pass_ci".into(), ci)))?;
    let pareto = bools(&s, "pareto")?;
    let marked: Vec<String> = strings(&s, "model")?.into_iter().zip(pareto).map(|(m, p)| if p { format!("{m} *") } else { m }).collect();
    s.with_column(Column::from(Series::new("model_marked".into(), marked)))?;
    let s = &s;
    let mut out = vec![
        section(
            "Per model: calls and outcomes",
            s.clone(),
            &[
                ("model", "model"),
                ("scenarios", "runs"),
                ("pass_rate", "pass"),
                ("pass_ci", "95% CI"),
                ("pass_rate_no_repair", "pass w/o repair"),
                ("calls", "calls"),
                ("invalid_rate", "invalid rate"),
                ("repaired_local", "fixed local"),
                ("repaired_model", "fixed model"),
                ("still_invalid", "still invalid"),
            ],
        ),
        section(
            "Per model: tokens, cost and latency (* on the pass-rate/cost Pareto front)",
            s.clone(),
            &[
                ("model_marked", "model"),
                ("input_tokens", "in tok"),
                ("output_tokens", "out tok"),
                ("cost_usd", "cost $"),
                ("repair_cost_usd", "repair $"),
                ("latency_p50_ms", "p50 ms"),
                ("latency_p95_ms", "p95 ms"),
                ("repair_local_p50_us", "local fix p50 µs"),
                ("repair_model_p50_ms", "model fix p50 ms"),
            ],
        ),
    ];
    out.extend(strong_vs_cheap(tables)?);
    if total(s, "approvals_requested")? > 0 {
        let mut columns = vec![("model", "model"), ("approvals_requested", "asked"), ("approved", "approved"), ("denied", "denied")];
        if total(s, "approval_warnings")? > 0 {
            columns.push(("approval_warnings", "approved unanswered"));
        }
        let labels = ["retried same", "retried changed", "other tool", "answered", "step limit"];
        for (b, label) in DenialBehaviour::ALL.iter().zip(labels) {
            columns.push((b.column(), label));
        }
        let mut approvals = section("Per model: approvals, and what models did after a denial", s.clone(), &columns);
        if total(s, "approval_warnings")? > 0 {
            approvals.note =
                Some("warning: some calls were approved only because nothing could answer (approval.on_unanswered = \"approve\")".into());
        }
        out.push(approvals);
    }

    // Per model: invalid calls by kind, only the kinds that occurred.
    let kinds = kinds_present(s)?;
    if !kinds.is_empty() {
        let mut columns = vec![("model", "model"), ("calls", "calls"), ("invalid", "invalid")];
        columns.extend(kinds.iter().map(|(c, l)| (*c, l.as_str())));
        out.push(section("Per model: invalid calls by kind", s.clone(), &columns));
    }

    // Per tool: rows with invalid calls, most first, and only the invalid kinds that occurred.
    let (invalid, note) = rows_with(&tables.by_tool, "invalid", "invalid call", "by_tool.csv")?;
    let invalid = invalid.sort(["invalid"], SortMultipleOptions::default().with_order_descending(true).with_maintain_order(true))?;
    let mut columns = vec![
        ("model", "model"),
        ("tool", "tool"),
        ("calls", "calls"),
        ("invalid", "invalid"),
        ("repaired_local", "fixed local"),
        ("repaired_model", "fixed model"),
        ("still_invalid", "still invalid"),
    ];
    let kinds = kinds_present(&invalid)?;
    columns.extend(kinds.iter().map(|(c, l)| (*c, l.as_str())));
    let none = invalid.height() == 0;
    let mut per_tool = section("Per model × tool: invalid calls by kind", invalid, &columns);
    per_tool.note = if none { Some("No invalid calls.".into()) } else { note };
    per_tool.terminal_rows = Some(TERMINAL_TOOL_ROWS);
    out.push(per_tool);

    if total(&tables.by_tool, "denied")? > 0 {
        let (denials, note) = rows_with(&tables.by_tool, "denied", "denial", "by_tool.csv")?;
        let mut per_tool = section(
            "Per model × tool: denials",
            denials,
            &[
                ("model", "model"),
                ("tool", "tool"),
                ("approvals_requested", "asked"),
                ("denied", "denied"),
                ("after_denial_retried_same", "retried same"),
                ("after_denial_retried_changed", "retried changed"),
                ("after_denial_other_tool", "other tool"),
                ("after_denial_answered", "answered"),
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
    let failed = tables.scenarios.clone().lazy().filter(col("passed").not()).collect()?;
    let total = failed.height();
    let mut section = section(
        &format!("Failed scenarios ({total})"),
        failed.head(Some(FAILURES_LISTED)),
        &[("model", "model"), ("suite", "suite"), ("scenario", "scenario"), ("trial", "trial"), ("reason", "reason")],
    );
    if total > FAILURES_LISTED {
        section.note = Some(format!("The first {FAILURES_LISTED} of {total}; every one is in scenarios.csv (`passed` false)."));
    }
    Ok(section)
}
