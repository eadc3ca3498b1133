//! What the human-readable reports show, defined once: titled tables, each
//! a few columns of one of the run's tables, short enough for a 120-column
//! terminal and a pull-request comment. The terminal and Markdown renderers
//! both draw these; CSV and JSON carry every column.

use std::collections::HashMap;

pub use super::grid::Section;
use super::grid::Shown;
use crate::metrics::schema;
use crate::metrics::table::{PairRow, SummaryRow, ToolRow};
use crate::metrics::Tables;

/// Columns the reports add to the summary's, for display only.
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

/// Terminal rows of the per-tool table: a suite of hundreds of tools would
/// otherwise bury the rest of the report.
pub const TERMINAL_TOOL_ROWS: usize = 25;

/// The invalid kinds that occurred in `rows`, as (index in
/// `schema::INVALID_KINDS`, column, label).
fn kinds_present<R>(rows: &[R], kinds: impl Fn(&R) -> [u64; 10]) -> Vec<(usize, &'static str, String)> {
    let mut totals = [0u64; 10];
    for r in rows {
        totals.iter_mut().zip(kinds(r)).for_each(|(t, k)| *t += k);
    }
    schema::INVALID_KINDS.iter().enumerate().filter(|(i, _)| totals[*i] > 0).map(|(i, k)| (i, *k, k.replace('_', " "))).collect()
}

/// A column per invalid kind present, of rows with `kinds`.
fn kind_columns<R>(rows: &[R], present: &[(usize, &'static str, String)], kinds: impl Fn(&R) -> [u64; 10] + Copy) -> Vec<Shown> {
    present.iter().map(|(i, column, label)| Shown::of(column, label, rows, |r| kinds(r)[*i])).collect()
}

/// Rows of `rows` that `keep` accepts, with a note on how many were left out.
fn rows_with<R: Clone>(rows: &[R], keep: impl Fn(&R) -> bool, what: &str, csv: &str) -> (Vec<R>, Option<String>) {
    let kept: Vec<R> = rows.iter().filter(|r| keep(r)).cloned().collect();
    let omitted = rows.len() - kept.len();
    let note = (omitted > 0).then(|| format!("({omitted} rows without {what} not shown; see {csv})"));
    (kept, note)
}

/// "lo–hi" of an interval, as text; none where the rate is empty (no run answered).
fn interval_text(lo: Option<f64>, hi: Option<f64>) -> Option<String> {
    Some(format!("{:.2}–{:.2}", lo?, hi?))
}

/// Per model row: whether it answered no unit and errored some.
fn never_answered(summary: &[SummaryRow]) -> Option<Vec<bool>> {
    Some(summary.iter().map(|r| r.scenarios == 0 && r.errored > 0).collect())
}

/// The models with errored units (no answer: neither passed nor failed),
/// each with how many and its first error; `None` when every unit answered.
pub fn errored(tables: &Tables) -> Option<Section> {
    let errored = crate::metrics::errored::errored_models(tables);
    if errored.is_empty() {
        return None;
    }
    let mut s = Section::new(
        "Errored units: no answer, so neither passed nor failed",
        errored.len(),
        vec![
            Shown::of(schema::MODEL, "model", &errored, |m| m.model.clone()),
            Shown::of(schema::ERRORED, "errored", &errored, |m| m.errored),
            Shown::of(schema::SCENARIOS, "answered", &errored, |m| m.answered),
            Shown::of(ERRORED_STATE, "state", &errored, |m| if m.answered == 0 { "errored: never answered" } else { "some units errored" }),
            Shown::of(FIRST_ERROR, "first error", &errored, |m| m.first.clone()),
        ],
    );
    s.never_answered = Some(errored.iter().map(|m| m.answered == 0 && m.errored > 0).collect());
    s.note = Some("Pass rates count answered units only; \"errored\": none answered (no rate, off the Pareto front)".into());
    Some(s)
}

/// Rows of the pairs table of one kind (`schema::PAIR_*`) that `keep` accepts.
fn pairs_of(tables: &Tables, kind: &str, keep: impl Fn(&str, &str) -> bool) -> Option<Vec<PairRow>> {
    let rows: Vec<PairRow> = tables.rows.pairs.iter().filter(|p| p.kind == kind && keep(&p.model_a, &p.model_b)).cloned().collect();
    (!rows.is_empty()).then_some(rows)
}

/// A ratio the reports show: none where it is not a positive number.
fn shown_ratio(r: Option<f64>, invert: bool) -> Option<f64> {
    let r = r.unwrap_or(0.0);
    (r > 0.0 && r.is_finite()).then(|| if invert { 1.0 / r } else { r })
}

/// Cheap models (with each arm, where the run had arms) against strong
/// ones, paired on the runs both made: the question calltape answers. The
/// pairs table keeps model order; here the cheap model is always first.
fn cheap_vs_strong(tables: &Tables) -> Option<Section> {
    let rows = pairs_of(tables, schema::PAIR_CHEAP_VS_STRONG, |_, _| true)?;
    let tiers: HashMap<&str, &str> = tables.rows.summary.iter().map(|r| (r.model.as_str(), r.tier.as_str())).collect();
    let cheap_first = |p: &PairRow| tiers.get(p.model_a.as_str()).is_some_and(|t| *t == "cheap");
    // Each display column: A's value where A is the cheap one, else B's.
    let pick = |p: &PairRow, a: f64, b: f64| if cheap_first(p) { a } else { b };
    let rate = |x: Option<f64>| x.unwrap_or(0.0);
    let mut s = Section::new(
        "Cheap vs strong, paired on the same runs (McNemar's exact test)",
        rows.len(),
        vec![
            Shown::of(CHEAP, "cheap", &rows, |p| if cheap_first(p) { p.model_a.clone() } else { p.model_b.clone() }),
            Shown::of(STRONG, "strong", &rows, |p| if cheap_first(p) { p.model_b.clone() } else { p.model_a.clone() }),
            Shown::of(schema::SHARED, "runs", &rows, |p| p.shared),
            Shown::of(CHEAP_PASS, "pass cheap", &rows, |p| pick(p, rate(p.pass_rate_a), rate(p.pass_rate_b))),
            Shown::of(STRONG_PASS, "pass strong", &rows, |p| pick(p, rate(p.pass_rate_b), rate(p.pass_rate_a))),
            Shown::of(ONLY_CHEAP, "only cheap", &rows, |p| pick(p, p.only_a as f64, p.only_b as f64)),
            Shown::of(ONLY_STRONG, "only strong", &rows, |p| pick(p, p.only_b as f64, p.only_a as f64)),
            Shown::of(schema::P_VALUE, "p", &rows, |p| p.p_value),
            Shown::of(CHEAP_COST, "cost cheap/strong", &rows, |p| shown_ratio(p.cost_ratio, !cheap_first(p))),
            Shown::of(CHEAP_LATENCY, "latency cheap/strong", &rows, |p| shown_ratio(p.latency_ratio, !cheap_first(p))),
        ],
    );
    s.note = Some("p: McNemar's exact p-value; cost and latency over the shared runs".into());
    Some(s)
}

/// What each arm buys: every arm of a model paired with its first arm on
/// the same runs, or `None` when the run had no arms.
pub fn arms(tables: &Tables) -> Option<Section> {
    let summary = &tables.rows.summary;
    // A model's first arm is its first variant in model order.
    let mut first: HashMap<&str, &str> = HashMap::new();
    for r in summary {
        first.entry(&r.base_model).or_insert(&r.model);
    }
    let base_of: HashMap<&str, &str> = summary.iter().map(|r| (r.model.as_str(), r.base_model.as_str())).collect();
    let is_first = |a: &str| base_of.get(a).is_some_and(|b| first.get(b).is_some_and(|f| *f == a));
    let rows = pairs_of(tables, schema::PAIR_ARMS, |a, _| is_first(a))?;
    let mut s = Section::new(
        "What each arm buys, paired with the model's first arm on the same runs (McNemar's exact test)",
        rows.len(),
        vec![
            Shown::of(ARM_MODEL, "model", &rows, |p| base_of.get(p.model_b.as_str()).map_or_else(|| p.model_b.clone(), |b| b.to_string())),
            Shown::of(schema::ARM_B, "arm", &rows, |p| p.arm_b.clone()),
            Shown::of(schema::PASS_RATE_B, "pass", &rows, |p| p.pass_rate_b),
            Shown::of(schema::ARM_A, "vs", &rows, |p| p.arm_a.clone()),
            Shown::of(schema::PASS_RATE_A, "pass vs", &rows, |p| p.pass_rate_a),
            Shown::of(schema::PASS_RATE_DIFF, "diff", &rows, |p| p.pass_rate_diff),
            Shown::of(schema::SHARED, "runs", &rows, |p| p.shared),
            Shown::of(schema::ONLY_B, "only arm", &rows, |p| p.only_b),
            Shown::of(schema::ONLY_A, "only vs", &rows, |p| p.only_a),
            Shown::of(schema::P_VALUE, "p", &rows, |p| p.p_value),
            Shown::of(ARM_COST, "cost ×", &rows, |p| shown_ratio(p.cost_ratio, true)),
            Shown::of(ARM_LATENCY, "latency ×", &rows, |p| shown_ratio(p.latency_ratio, true)),
        ],
    );
    s.note = Some(
        "diff: pass − pass vs; cost × and latency ×: the arm's over the first arm's, on the shared runs; p: McNemar's exact p-value".into(),
    );
    Some(s)
}

/// A section of the summary: one row per model.
fn per_model(title: &str, summary: &[SummaryRow], columns: Vec<Shown>) -> Section {
    let mut s = Section::new(title, summary.len(), columns);
    s.never_answered = never_answered(summary);
    s
}

/// The sections of a report, in reading order.
pub fn sections(tables: &Tables) -> Vec<Section> {
    let s = &tables.rows.summary[..];
    let model = || Shown::of(schema::MODEL, "model", s, |r| r.model.clone());
    // The errored column only when some unit errored: honest runs keep their table.
    let any_errored = s.iter().any(|r| r.errored > 0);
    let mut outcomes = vec![model(), Shown::of(schema::SCENARIOS, "runs", s, |r| r.scenarios)];
    if any_errored {
        outcomes.push(Shown::of(schema::ERRORED, "errored", s, |r| r.errored));
    }
    outcomes.extend([
        Shown::of(schema::PASS_RATE, "pass", s, |r| r.pass_rate),
        Shown::of(PASS_CI, "95% CI", s, |r| interval_text(r.pass_rate_lo, r.pass_rate_hi)),
        Shown::of(schema::PASS_RATE_NO_REPAIR, "pass w/o repair", s, |r| r.pass_rate_no_repair),
        Shown::of(schema::CALLS, "calls", s, |r| r.calls),
        Shown::of(schema::INVALID_RATE, "invalid rate", s, |r| r.invalid_rate),
        Shown::of(schema::REPAIRED_LOCAL, "fixed local", s, |r| r.repaired_local),
        Shown::of(schema::REPAIRED_MODEL, "fixed model", s, |r| r.repaired_model),
        Shown::of(schema::STILL_INVALID, "still invalid", s, |r| r.still_invalid),
    ]);
    let mut out = vec![per_model("Per model: calls and outcomes", s, outcomes)];
    out.extend(errored(tables));
    out.push(per_model(
        "Per model: tokens, cost and latency (* on the pass-rate/cost Pareto front)",
        s,
        vec![
            Shown::of(MODEL_MARKED, "model", s, |r| if r.pareto { format!("{} *", r.model) } else { r.model.clone() }),
            Shown::of(schema::INPUT_TOKENS, "in tok", s, |r| r.input_tokens),
            Shown::of(schema::OUTPUT_TOKENS, "out tok", s, |r| r.output_tokens),
            Shown::of(schema::COST_USD, "cost $", s, |r| r.cost_usd),
            Shown::of(schema::REPAIR_COST_USD, "repair $", s, |r| r.repair_cost_usd),
            Shown::of(schema::LATENCY_P50_MS, "p50 ms", s, |r| r.latency_p50_ms),
            Shown::of(schema::LATENCY_P95_MS, "p95 ms", s, |r| r.latency_p95_ms),
            Shown::of(schema::REPAIR_LOCAL_P50_US, "local fix p50 µs", s, |r| r.repair_local_p50_us),
            Shown::of(schema::REPAIR_MODEL_P50_MS, "model fix p50 ms", s, |r| r.repair_model_p50_ms),
        ],
    ));
    out.extend(arms(tables));
    out.extend(cheap_vs_strong(tables));
    out.extend(super::decision::section(tables));
    if s.iter().any(|r| r.approvals.approvals_requested > 0) {
        let warnings = s.iter().any(|r| r.approvals.approval_warnings > 0);
        let mut columns = vec![
            model(),
            Shown::of(schema::APPROVALS_REQUESTED, "asked", s, |r| r.approvals.approvals_requested),
            Shown::of(schema::APPROVED, "approved", s, |r| r.approvals.approved),
            Shown::of(schema::DENIED, "denied", s, |r| r.approvals.denied),
        ];
        if warnings {
            columns.push(Shown::of(schema::APPROVAL_WARNINGS, "approved unanswered", s, |r| r.approvals.approval_warnings));
        }
        let labels = ["retried same", "retried changed", "other tool", "answered", "step limit"];
        for (i, (column, label)) in schema::AFTER_DENIAL.into_iter().zip(labels).enumerate() {
            columns.push(Shown::of(column, label, s, |r| r.approvals.after_denial()[i]));
        }
        let mut approvals = per_model("Per model: approvals, and what models did after a denial", s, columns);
        if warnings {
            approvals.note =
                Some("warning: some calls were approved only because nothing could answer (approval.on_unanswered = \"approve\")".into());
        }
        out.push(approvals);
    }

    out.extend(super::injection::section(tables));

    // Per model: invalid calls by kind, only the kinds that occurred.
    let summary_kinds = |r: &SummaryRow| r.kinds.counts();
    let kinds = kinds_present(s, summary_kinds);
    if !kinds.is_empty() {
        let mut columns =
            vec![model(), Shown::of(schema::CALLS, "calls", s, |r| r.calls), Shown::of(schema::INVALID, "invalid", s, |r| r.invalid)];
        columns.extend(kind_columns(s, &kinds, summary_kinds));
        out.push(per_model("Per model: invalid calls by kind", s, columns));
    }

    // Per tool: rows with invalid calls, most first, and only the invalid kinds that occurred.
    let (mut invalid, note) = rows_with(&tables.rows.by_tool, |r| r.invalid > 0, "invalid call", "by_tool.csv");
    invalid.sort_by_key(|r| std::cmp::Reverse(r.invalid));
    let t = &invalid[..];
    let tool_kinds = |r: &ToolRow| r.kinds.counts();
    let mut columns = vec![
        Shown::of(schema::MODEL, "model", t, |r| r.model.clone()),
        Shown::of(schema::TOOL, "tool", t, |r| r.tool.clone()),
        Shown::of(schema::CALLS, "calls", t, |r| r.calls),
        Shown::of(schema::INVALID, "invalid", t, |r| r.invalid),
        Shown::of(schema::REPAIRED_LOCAL, "fixed local", t, |r| r.repaired_local),
        Shown::of(schema::REPAIRED_MODEL, "fixed model", t, |r| r.repaired_model),
        Shown::of(schema::STILL_INVALID, "still invalid", t, |r| r.still_invalid),
    ];
    columns.extend(kind_columns(t, &kinds_present(t, tool_kinds), tool_kinds));
    let mut per_tool = Section::new("Per model × tool: invalid calls by kind", t.len(), columns);
    per_tool.note = if t.is_empty() { Some("No invalid calls.".into()) } else { note };
    per_tool.terminal_rows = Some(TERMINAL_TOOL_ROWS);
    out.push(per_tool);

    if tables.rows.by_tool.iter().any(|r| r.approvals.denied > 0) {
        let (denials, note) = rows_with(&tables.rows.by_tool, |r| r.approvals.denied > 0, "denial", "by_tool.csv");
        let d = &denials[..];
        let labels = ["retried same", "retried changed", "other tool", "answered"];
        let mut columns = vec![
            Shown::of(schema::MODEL, "model", d, |r| r.model.clone()),
            Shown::of(schema::TOOL, "tool", d, |r| r.tool.clone()),
            Shown::of(schema::APPROVALS_REQUESTED, "asked", d, |r| r.approvals.approvals_requested),
            Shown::of(schema::DENIED, "denied", d, |r| r.approvals.denied),
        ];
        for (i, label) in labels.into_iter().enumerate() {
            columns.push(Shown::of(schema::AFTER_DENIAL[i], label, d, |r| r.approvals.after_denial()[i]));
        }
        let mut per_tool = Section::new("Per model × tool: denials", d.len(), columns);
        per_tool.note = note;
        per_tool.terminal = false;
        out.push(per_tool);
    }
    out
}

/// How many failed runs the Markdown and HTML reports list: enough to see
/// what goes wrong, short enough for a pull-request comment (GitHub takes
/// 65,536 characters) however big the suite. `scenarios.csv` has them all.
pub const FAILURES_LISTED: usize = 200;

/// The failed runs, with why (the first `FAILURES_LISTED`).
pub fn failures(tables: &Tables) -> Section {
    first_failures(tables, FAILURES_LISTED)
}

/// The failed runs, with why (the first `listed`). An errored run got no
/// answer: it did not fail, and is listed apart (`errored`).
pub fn first_failures(tables: &Tables, listed: usize) -> Section {
    // Only the listed rows are copied out of the per-run table.
    let failed = tables.rows.scenarios.iter().filter(|r| !r.passed && !r.errored);
    let total = failed.clone().count();
    let shown: Vec<_> = failed.take(listed).collect();
    let mut section = Section::new(
        &format!("Failed scenarios ({total})"),
        shown.len(),
        vec![
            Shown::of(schema::MODEL, "model", &shown, |r| r.model.clone()),
            Shown::of(schema::SUITE, "suite", &shown, |r| r.suite.clone()),
            Shown::of(schema::SCENARIO, "scenario", &shown, |r| r.scenario.clone()),
            Shown::of(schema::TRIAL, "trial", &shown, |r| r.trial),
            Shown::of(schema::REASON, "reason", &shown, |r| r.reason.clone()),
        ],
    );
    section.units = shown
        .iter()
        .map(|r| crate::events::UnitKey {
            model: r.model.clone(),
            suite: r.suite.clone(),
            scenario: r.scenario.clone(),
            trial: u32::try_from(r.trial).unwrap_or(u32::MAX),
        })
        .collect();
    if total > listed {
        section.note = Some(format!("The first {listed} of {total}; every one is in scenarios.csv (`passed` and `errored` false)."));
    }
    section
}
