//! Statistics added to the aggregated tables: 95% Wilson intervals of every
//! rate, pass@k and pass^k over trials, flaky scenarios, cost per passed
//! scenario, the Pareto front of pass rate against cost, and paired
//! comparisons of every two models (McNemar's exact test).

use std::collections::HashMap;

use polars::prelude::*;

use crate::stats;

/// A string column, borrowed (no copy of its strings).
pub fn texts<'a>(df: &'a DataFrame, name: &str) -> PolarsResult<&'a StringChunked> {
    df.column(name)?.str()
}

/// Row `i` of a string column (`""` for null).
pub fn at(ca: &StringChunked, i: usize) -> &str {
    ca.get(i).unwrap_or_default()
}

fn series(df: &DataFrame, name: &str, to: &DataType) -> PolarsResult<Series> {
    df.column(name)?.as_materialized_series().cast(to)
}

/// A column as u64 (nulls as 0).
pub fn u64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<u64>> {
    let s = series(df, name, &DataType::UInt64)?;
    let ca = s.u64()?;
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or(0)).collect())
}

/// A column as f64 (nulls as 0).
pub fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<f64>> {
    let s = series(df, name, &DataType::Float64)?;
    let ca = s.f64()?;
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or(0.0)).collect())
}

/// A column as strings.
pub fn strings(df: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    let ca = df.column(name)?.str()?.clone();
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or_default().to_string()).collect())
}

/// A column as booleans (nulls as false).
pub fn bools(df: &DataFrame, name: &str) -> PolarsResult<Vec<bool>> {
    let ca = df.column(name)?.bool()?.clone();
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or(false)).collect())
}

fn add<T, V>(df: &mut DataFrame, name: &str, values: V) -> PolarsResult<()>
where
    Series: NamedFrom<V, T>,
    T: ?Sized,
{
    df.with_column(Column::from(Series::new(name.into(), values)))?;
    Ok(())
}

/// Calls repaired locally or by a model, per row.
fn repaired(df: &DataFrame) -> PolarsResult<Vec<u64>> {
    Ok(u64s(df, "repaired_local")?.iter().zip(u64s(df, "repaired_model")?).map(|(a, b)| a + b).collect())
}

/// Adds `{rate}_lo` and `{rate}_hi`: the 95% Wilson interval of `hits` / `of`.
fn add_interval(df: &mut DataFrame, rate: &str, hits: &[u64], of: &[u64]) -> PolarsResult<()> {
    let (lo, hi): (Vec<f64>, Vec<f64>) = hits.iter().zip(of).map(|(h, n)| stats::wilson(*h, *n)).unzip();
    add(df, &format!("{rate}_lo"), lo)?;
    add(df, &format!("{rate}_hi"), hi)
}

/// Adds the derived columns of the per-model summary.
pub(super) fn extend_summary(
    summary: &mut DataFrame,
    by_scenario: &DataFrame,
    tiers: &HashMap<String, String>,
    k: u32,
) -> PolarsResult<()> {
    let models = strings(summary, "model")?;
    let (runs, passed, passed_no_repair) = (u64s(summary, "scenarios")?, u64s(summary, "passed")?, u64s(summary, "passed_no_repair")?);
    let (calls, invalid) = (u64s(summary, "calls")?, u64s(summary, "invalid")?);
    let repaired = repaired(summary)?;
    add_interval(summary, "pass_rate", &passed, &runs)?;
    add_interval(summary, "pass_rate_no_repair", &passed_no_repair, &runs)?;
    add_interval(summary, "invalid_rate", &invalid, &calls)?;
    add_interval(summary, "repair_rate", &repaired, &invalid)?;

    let total: Vec<f64> = f64s(summary, "cost_usd")?.iter().zip(f64s(summary, "repair_cost_usd")?).map(|(a, b)| a + b).collect();
    let per_pass: Vec<Option<f64>> = total.iter().zip(&passed).map(|(c, p)| (*p > 0).then(|| c / *p as f64)).collect();
    add(summary, "total_cost_usd", total.clone())?;
    add(summary, "cost_per_passed_usd", per_pass)?;
    let tier: Vec<String> = models.iter().map(|m| tiers.get(m).cloned().unwrap_or_default()).collect();
    add(summary, "tier", tier)?;

    // pass@k and pass^k over each model's scenarios, with k = the run's trials.
    let (sm, n, c) = (strings(by_scenario, "model")?, u64s(by_scenario, "trials")?, u64s(by_scenario, "passed")?);
    let k = u64::from(k.max(1));
    let mut at_k = Vec::new();
    let mut hat_k = Vec::new();
    let mut flaky = Vec::new();
    for m in &models {
        let rows: Vec<(u64, u64)> = sm.iter().zip(n.iter().zip(&c)).filter(|(x, _)| *x == m).map(|(_, (n, c))| (*n, *c)).collect();
        let usable: Vec<&(u64, u64)> = rows.iter().filter(|(n, _)| *n >= k).collect();
        let mean = |f: fn(u64, u64, u64) -> f64| {
            (!usable.is_empty()).then(|| usable.iter().map(|(n, c)| f(*n, *c, k)).sum::<f64>() / usable.len() as f64)
        };
        at_k.push(mean(stats::pass_at_k));
        hat_k.push(mean(stats::pass_hat_k));
        flaky.push(rows.iter().filter(|(n, c)| *c > 0 && c < n).count() as u64);
    }
    add(summary, "k", vec![k; models.len()])?;
    add(summary, "pass_at_k", at_k)?;
    add(summary, "pass_hat_k", hat_k)?;
    add(summary, "flaky", flaky)?;

    let rates = f64s(summary, "pass_rate")?;
    let points: Vec<(f64, f64)> = rates.into_iter().zip(total).collect();
    add(summary, "pareto", stats::pareto_front(&points))?;
    *summary = summary.select(SUMMARY_ORDER)?;
    Ok(())
}

/// The summary columns computed here rather than aggregated by polars.
pub(super) const DERIVED: [&str; 16] = [
    "tier",
    "pass_rate_lo",
    "pass_rate_hi",
    "pass_rate_no_repair_lo",
    "pass_rate_no_repair_hi",
    "k",
    "pass_at_k",
    "pass_hat_k",
    "flaky",
    "invalid_rate_lo",
    "invalid_rate_hi",
    "repair_rate_lo",
    "repair_rate_hi",
    "total_cost_usd",
    "cost_per_passed_usd",
    "pareto",
];

/// The summary's columns in reading order: each rate beside its interval.
pub(super) const SUMMARY_ORDER: [&str; 64] = [
    "model",
    "tier",
    "scenarios",
    "passed",
    "pass_rate",
    "pass_rate_lo",
    "pass_rate_hi",
    "passed_no_repair",
    "pass_rate_no_repair",
    "pass_rate_no_repair_lo",
    "pass_rate_no_repair_hi",
    "k",
    "pass_at_k",
    "pass_hat_k",
    "flaky",
    "calls",
    "invalid",
    "invalid_rate",
    "invalid_rate_lo",
    "invalid_rate_hi",
    "repaired_local",
    "repaired_model",
    "still_invalid",
    "repair_rate",
    "repair_rate_lo",
    "repair_rate_hi",
    "unknown_tool",
    "parse_error",
    "missing_required",
    "wrong_type",
    "additional_property",
    "enum_mismatch",
    "constraint_violation",
    "text_call",
    "server_rejected_call",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cost_usd",
    "repair_input_tokens",
    "repair_output_tokens",
    "repair_cost_usd",
    "total_cost_usd",
    "cost_per_passed_usd",
    "pareto",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
    "ttft_p50_ms",
    "ttft_p95_ms",
    "repair_local_p50_us",
    "repair_local_p95_us",
    "repair_model_p50_ms",
    "repair_model_p95_ms",
    "approvals_requested",
    "approved",
    "denied",
    "approval_warnings",
    "after_denial_retried_same",
    "after_denial_retried_changed",
    "after_denial_other_tool",
    "after_denial_answered",
    "after_denial_step_limit",
    "request_errors",
];

/// Adds intervals of the per-tool rates.
pub(super) fn extend_by_tool(by_tool: &mut DataFrame) -> PolarsResult<()> {
    let (calls, invalid) = (u64s(by_tool, "calls")?, u64s(by_tool, "invalid")?);
    let repaired = repaired(by_tool)?;
    add_interval(by_tool, "invalid_rate", &invalid, &calls)?;
    add_interval(by_tool, "repair_rate", &repaired, &invalid)
}

/// Adds the pass-rate interval of each suite.
pub(super) fn extend_suites(suites: &mut DataFrame) -> PolarsResult<()> {
    let (runs, passed) = (u64s(suites, "scenarios")?, u64s(suites, "passed")?);
    add_interval(suites, "pass_rate", &passed, &runs)
}

/// One row of the pairs table.
struct PairRow {
    a: String,
    b: String,
    shared: u64,
    split: [u64; 4], // both passed, only a, only b, neither
    cost: (f64, f64),
}

/// Every two models run on the same (suite, scenario, trial) units, in
/// model order: how their verdicts split, McNemar's exact p-value, and the
/// cost of each on those shared units.
pub(super) fn pairs(scenarios: &DataFrame, model_order: &[String]) -> PolarsResult<DataFrame> {
    let (m, suite, scenario) = (texts(scenarios, "model")?, texts(scenarios, "suite")?, texts(scenarios, "scenario")?);
    let (trial, passed, cost) = (u64s(scenarios, "trial")?, bools(scenarios, "passed")?, f64s(scenarios, "cost_usd")?);
    // Each model's rows, in table order (by suite, scenario, trial), so float
    // sums run in the same order on every machine; and every row by its
    // unit, to find the other model's verdict on it.
    let mut rows_of: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut row_of: HashMap<(&str, &str, &str, u64), usize> = HashMap::with_capacity(scenarios.height());
    for (i, &t) in trial.iter().enumerate() {
        rows_of.entry(at(m, i)).or_default().push(i);
        row_of.insert((at(m, i), at(suite, i), at(scenario, i), t), i);
    }
    let mut rows = Vec::new();
    for (i, a) in model_order.iter().enumerate() {
        for b in &model_order[i + 1..] {
            let (Some(ra), true) = (rows_of.get(a.as_str()), rows_of.contains_key(b.as_str())) else { continue };
            let mut row = PairRow { a: a.clone(), b: b.clone(), shared: 0, split: [0; 4], cost: (0.0, 0.0) };
            for &ia in ra {
                let Some(&ib) = row_of.get(&(b.as_str(), at(suite, ia), at(scenario, ia), trial[ia])) else { continue };
                row.shared += 1;
                row.split[match (passed[ia], passed[ib]) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                }] += 1;
                row.cost.0 += cost[ia];
                row.cost.1 += cost[ib];
            }
            if row.shared > 0 {
                rows.push(row);
            }
        }
    }
    let ints = |f: fn(&PairRow) -> u64| rows.iter().map(f).collect::<Vec<u64>>();
    let floats = |f: fn(&PairRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    let column = |name: &str, s: Series| Column::from(s.with_name(name.into()));
    DataFrame::new_infer_height(vec![
        column("model_a", Series::new("".into(), rows.iter().map(|r| r.a.clone()).collect::<Vec<_>>())),
        column("model_b", Series::new("".into(), rows.iter().map(|r| r.b.clone()).collect::<Vec<_>>())),
        column("shared", Series::new("".into(), ints(|r| r.shared))),
        column("both_passed", Series::new("".into(), ints(|r| r.split[0]))),
        column("only_a", Series::new("".into(), ints(|r| r.split[1]))),
        column("only_b", Series::new("".into(), ints(|r| r.split[2]))),
        column("neither", Series::new("".into(), ints(|r| r.split[3]))),
        column("pass_rate_a", Series::new("".into(), floats(|r| (r.split[0] + r.split[1]) as f64 / r.shared as f64))),
        column("pass_rate_b", Series::new("".into(), floats(|r| (r.split[0] + r.split[2]) as f64 / r.shared as f64))),
        column("p_value", Series::new("".into(), floats(|r| stats::mcnemar_exact(r.split[1], r.split[2])))),
        column("cost_a_usd", Series::new("".into(), floats(|r| r.cost.0))),
        column("cost_b_usd", Series::new("".into(), floats(|r| r.cost.1))),
        column(
            "cost_ratio",
            Series::new("".into(), rows.iter().map(|r| (r.cost.1 > 0.0).then(|| r.cost.0 / r.cost.1)).collect::<Vec<_>>()),
        ),
    ])
}
