//! Statistics added to the aggregated tables: 95% Wilson intervals of every
//! rate, pass@k and pass^k over trials, flaky scenarios, cost per passed
//! scenario, the Pareto front of pass rate against cost, and paired
//! comparisons of every two models (McNemar's exact test).

use std::collections::HashMap;

use polars::prelude::*;

use super::schema as s;
use crate::events::ArmInfo;
use crate::paired::{self, Cluster};
use crate::stats;

fn series(df: &DataFrame, name: &str, to: &DataType) -> PolarsResult<Series> {
    df.column(name)?.as_materialized_series().cast(to)
}

/// A column as u64 (nulls as 0).
fn u64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<u64>> {
    let s = series(df, name, &DataType::UInt64)?;
    let ca = s.u64()?;
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or(0)).collect())
}

/// A column as f64 (nulls as 0).
fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<f64>> {
    let s = series(df, name, &DataType::Float64)?;
    let ca = s.f64()?;
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or(0.0)).collect())
}

/// A column as strings.
fn strings(df: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    let ca = df.column(name)?.str()?.clone();
    Ok((0..ca.len()).map(|i| ca.get(i).unwrap_or_default().to_string()).collect())
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
    Ok(u64s(df, s::REPAIRED_LOCAL)?.iter().zip(u64s(df, s::REPAIRED_MODEL)?).map(|(a, b)| a + b).collect())
}

/// Adds `{rate}_lo` and `{rate}_hi`: the 95% Wilson interval of `hits` / `of`.
fn add_interval(df: &mut DataFrame, rate: &str, hits: &[u64], of: &[u64]) -> PolarsResult<()> {
    let (lo, hi): (Vec<f64>, Vec<f64>) = hits.iter().zip(of).map(|(h, n)| stats::wilson(*h, *n)).unzip();
    let (lo_name, hi_name) = s::interval_of(rate);
    add(df, lo_name, lo)?;
    add(df, hi_name, hi)
}

/// Adds the interval of a pass rate: empty where no run answered (`of` 0),
/// as the rate itself is.
fn add_pass_interval(df: &mut DataFrame, rate: &str, hits: &[u64], of: &[u64]) -> PolarsResult<()> {
    let interval = |h: u64, n: u64| (n > 0).then(|| stats::wilson(h, n));
    let (lo, hi): (Vec<Option<f64>>, Vec<Option<f64>>) = hits.iter().zip(of).map(|(h, n)| interval(*h, *n).unzip()).unzip();
    let (lo_name, hi_name) = s::interval_of(rate);
    add(df, lo_name, lo)?;
    add(df, hi_name, hi)
}

/// Adds the derived columns of the per-model summary.
pub(super) fn extend_summary(
    summary: &mut DataFrame,
    by_scenario: &DataFrame,
    tiers: &HashMap<String, String>,
    arms: &HashMap<String, ArmInfo>,
    k: u32,
) -> PolarsResult<()> {
    let models = strings(summary, s::MODEL)?;
    let (runs, passed, passed_no_repair) = (u64s(summary, s::SCENARIOS)?, u64s(summary, s::PASSED)?, u64s(summary, s::PASSED_NO_REPAIR)?);
    let (calls, invalid) = (u64s(summary, s::CALLS)?, u64s(summary, s::INVALID)?);
    let repaired = repaired(summary)?;
    add_pass_interval(summary, s::PASS_RATE, &passed, &runs)?;
    add_pass_interval(summary, s::PASS_RATE_NO_REPAIR, &passed_no_repair, &runs)?;
    add_interval(summary, s::INVALID_RATE, &invalid, &calls)?;
    add_interval(summary, s::REPAIR_RATE, &repaired, &invalid)?;

    let total: Vec<f64> = f64s(summary, s::COST_USD)?.iter().zip(f64s(summary, s::REPAIR_COST_USD)?).map(|(a, b)| a + b).collect();
    let per_pass: Vec<Option<f64>> = total.iter().zip(&passed).map(|(c, p)| (*p > 0).then(|| c / *p as f64)).collect();
    add(summary, s::TOTAL_COST_USD, total.clone())?;
    add(summary, s::COST_PER_PASSED_USD, per_pass)?;
    let tier: Vec<String> = models.iter().map(|m| tiers.get(m).cloned().unwrap_or_default()).collect();
    add(summary, s::TIER, tier)?;
    add(summary, s::ARM, models.iter().map(|m| arms.get(m).map_or(String::new(), |a| a.name.clone())).collect::<Vec<_>>())?;
    let repair = |m: &String| arms.get(m).map_or(String::new(), |a| a.repair.as_str().to_string());
    add(summary, s::ARM_REPAIR, models.iter().map(repair).collect::<Vec<_>>())?;
    add(summary, s::BASE_MODEL, models.iter().map(|m| arms.get(m).map_or(m.clone(), |a| a.base.clone())).collect::<Vec<_>>())?;

    // pass@k and pass^k over each model's scenarios, with k = the run's trials.
    let (sm, n, c) = (strings(by_scenario, s::MODEL)?, u64s(by_scenario, s::TRIALS)?, u64s(by_scenario, s::PASSED)?);
    let k = u64::from(k.max(1));
    let mut at_k = Vec::new();
    let mut hat_k = Vec::new();
    let mut flaky = Vec::new();
    let (mut flip, mut flip_scenarios) = (Vec::new(), Vec::new());
    for m in &models {
        let rows: Vec<(u64, u64)> = sm.iter().zip(n.iter().zip(&c)).filter(|(x, _)| *x == m).map(|(_, (n, c))| (*n, *c)).collect();
        let usable: Vec<&(u64, u64)> = rows.iter().filter(|(n, _)| *n >= k).collect();
        let mean = |f: fn(u64, u64, u64) -> f64| {
            (!usable.is_empty()).then(|| usable.iter().map(|(n, c)| f(*n, *c, k)).sum::<f64>() / usable.len() as f64)
        };
        at_k.push(mean(stats::pass_at_k));
        hat_k.push(mean(stats::pass_hat_k));
        flaky.push(rows.iter().filter(|(n, c)| *c > 0 && c < n).count() as u64);
        let flips: Vec<f64> = rows.iter().filter_map(|(n, c)| paired::flip_rate(*n, *c)).collect();
        flip.push((!flips.is_empty()).then(|| flips.iter().sum::<f64>() / flips.len() as f64));
        flip_scenarios.push(flips.len() as u64);
    }
    add(summary, s::K, vec![k; models.len()])?;
    add(summary, s::PASS_AT_K, at_k)?;
    add(summary, s::PASS_HAT_K, hat_k)?;
    add(summary, s::FLAKY, flaky)?;
    add(summary, s::FLIP_RATE, flip)?;
    add(summary, s::FLIP_SCENARIOS, flip_scenarios)?;

    // A model that answered nothing has no rate: it is off the front, and
    // the front is drawn among the models that answered.
    let rates = f64s(summary, s::PASS_RATE)?;
    let answered: Vec<usize> = (0..models.len()).filter(|&i| runs[i] > 0).collect();
    let points: Vec<(f64, f64)> = answered.iter().map(|&i| (rates[i], total[i])).collect();
    let mut pareto = vec![false; models.len()];
    for (&i, on) in answered.iter().zip(stats::pareto_front(&points)) {
        pareto[i] = on;
    }
    add(summary, s::PARETO, pareto)?;
    *summary = summary.select(s::SUMMARY)?;
    Ok(())
}

/// Adds intervals of the per-tool rates.
pub(super) fn extend_by_tool(by_tool: &mut DataFrame, arms: &HashMap<String, ArmInfo>) -> PolarsResult<()> {
    let (calls, invalid) = (u64s(by_tool, s::CALLS)?, u64s(by_tool, s::INVALID)?);
    let repaired = repaired(by_tool)?;
    add_interval(by_tool, s::INVALID_RATE, &invalid, &calls)?;
    add_interval(by_tool, s::REPAIR_RATE, &repaired, &invalid)?;
    let arm: Vec<String> = strings(by_tool, s::MODEL)?.iter().map(|m| arms.get(m).map_or(String::new(), |a| a.name.clone())).collect();
    add(by_tool, s::ARM, arm)
}

/// Adds the pass-rate interval of each suite.
pub(super) fn extend_suites(suites: &mut DataFrame) -> PolarsResult<()> {
    let (runs, passed) = (u64s(suites, s::SCENARIOS)?, u64s(suites, s::PASSED)?);
    add_pass_interval(suites, s::PASS_RATE, &passed, &runs)
}

/// One row of the pairs table: two models on the runs both answered.
pub(super) struct PairRow {
    a: String,
    b: String,
    pub(super) shared: u64,
    split: [u64; 4], // both passed, only a, only b, neither
    cost: (f64, f64),
    latency: (f64, f64),
    /// The split per scenario, for the paired interval.
    clusters: Vec<Cluster>,
    /// The scenario of the last cluster.
    last: Option<(u32, u32)>,
}

impl PairRow {
    pub(super) fn new(a: &str, b: &str) -> PairRow {
        PairRow {
            a: a.to_string(),
            b: b.to_string(),
            shared: 0,
            split: [0; 4],
            cost: (0.0, 0.0),
            latency: (0.0, 0.0),
            clusters: Vec::new(),
            last: None,
        }
    }

    /// One run both made of `scenario` (its suite and scenario ids): each
    /// model's (passed, cost, latency), added in table order so the sums
    /// are the same on every machine and a scenario's trials lie together.
    pub(super) fn add(
        &mut self,
        scenario: (u32, u32),
        (passed_a, cost_a, latency_a): (bool, f64, f64),
        (passed_b, cost_b, latency_b): (bool, f64, f64),
    ) {
        self.shared += 1;
        let cell = match (passed_a, passed_b) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        self.split[cell] += 1;
        if self.last != Some(scenario) {
            self.clusters.push(Cluster::default());
            self.last = Some(scenario);
        }
        if let Some(c) = self.clusters.last_mut() {
            c.split[cell] += 1;
        }
        self.cost.0 += cost_a;
        self.cost.1 += cost_b;
        self.latency.0 += latency_a;
        self.latency.1 += latency_b;
    }
}

/// What two models are to each other: two arms of one model, a cheap and
/// a strong one (in either order), or two models.
fn pair_kind(a: &str, b: &str, tiers: &HashMap<String, String>, arms: &HashMap<String, ArmInfo>) -> &'static str {
    let base = |m: &str| arms.get(m).map(|x| x.base.clone());
    if base(a).is_some() && base(a) == base(b) {
        return s::PAIR_ARMS;
    }
    let tier = |m: &str| tiers.get(m).map(String::as_str);
    match (tier(a), tier(b)) {
        (Some("cheap"), Some("strong")) | (Some("strong"), Some("cheap")) => s::PAIR_CHEAP_VS_STRONG,
        _ => s::PAIR_MODELS,
    }
}

/// The pairs table: a row per two models run on the same (suite,
/// scenario, trial) units (`runs::Runs::pairs`), in model order, with how
/// their verdicts split, McNemar's exact p-value, and the cost and latency
/// of each on those shared units.
pub(super) fn pairs(rows: Vec<PairRow>, tiers: &HashMap<String, String>, arms: &HashMap<String, ArmInfo>) -> PolarsResult<DataFrame> {
    let ints = |f: fn(&PairRow) -> u64| rows.iter().map(f).collect::<Vec<u64>>();
    let floats = |f: fn(&PairRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    let texts = |f: &dyn Fn(&PairRow) -> String| rows.iter().map(f).collect::<Vec<String>>();
    let arm_of = |m: &str| arms.get(m).map_or(String::new(), |x| x.name.clone());
    let column = |name: &str, s: Series| Column::from(s.with_name(name.into()));
    let rate_a = |r: &PairRow| (r.split[0] + r.split[1]) as f64 / r.shared as f64;
    let rate_b = |r: &PairRow| (r.split[0] + r.split[2]) as f64 / r.shared as f64;
    let decisions: Vec<PairDecision> = rows.iter().map(decide).collect();
    DataFrame::new_infer_height(vec![
        column(s::MODEL_A, Series::new("".into(), texts(&|r| r.a.clone()))),
        column(s::MODEL_B, Series::new("".into(), texts(&|r| r.b.clone()))),
        column(s::SHARED, Series::new("".into(), ints(|r| r.shared))),
        column(s::BOTH_PASSED, Series::new("".into(), ints(|r| r.split[0]))),
        column(s::ONLY_A, Series::new("".into(), ints(|r| r.split[1]))),
        column(s::ONLY_B, Series::new("".into(), ints(|r| r.split[2]))),
        column(s::NEITHER, Series::new("".into(), ints(|r| r.split[3]))),
        column(s::PASS_RATE_A, Series::new("".into(), floats(rate_a))),
        column(s::PASS_RATE_B, Series::new("".into(), floats(rate_b))),
        column(s::P_VALUE, Series::new("".into(), floats(|r| stats::mcnemar_exact(r.split[1], r.split[2])))),
        column(s::COST_A_USD, Series::new("".into(), floats(|r| r.cost.0))),
        column(s::COST_B_USD, Series::new("".into(), floats(|r| r.cost.1))),
        column(s::COST_RATIO, Series::new("".into(), rows.iter().map(|r| ratio(r.cost)).collect::<Vec<_>>())),
        column(s::PAIR_KIND, Series::new("".into(), texts(&|r| pair_kind(&r.a, &r.b, tiers, arms).to_string()))),
        column(s::ARM_A, Series::new("".into(), texts(&|r| arm_of(&r.a)))),
        column(s::ARM_B, Series::new("".into(), texts(&|r| arm_of(&r.b)))),
        column(s::MEAN_LATENCY_A_MS, Series::new("".into(), floats(|r| r.latency.0 / r.shared as f64))),
        column(s::MEAN_LATENCY_B_MS, Series::new("".into(), floats(|r| r.latency.1 / r.shared as f64))),
        column(s::LATENCY_RATIO, Series::new("".into(), rows.iter().map(|r| ratio(r.latency)).collect::<Vec<_>>())),
        column(s::PASS_RATE_DIFF, Series::new("".into(), floats(|r| (r.split[2] as f64 - r.split[1] as f64) / r.shared as f64))),
        column(s::DIFF_LO, Series::new("".into(), decisions.iter().map(|d| d.interval.map(|i| i.lo)).collect::<Vec<_>>())),
        column(s::DIFF_HI, Series::new("".into(), decisions.iter().map(|d| d.interval.map(|i| i.hi)).collect::<Vec<_>>())),
        column(s::DECISIVE, Series::new("".into(), decisions.iter().map(|d| d.decisive).collect::<Vec<_>>())),
        column(s::TRIALS_NEEDED, Series::new("".into(), decisions.iter().map(|d| d.need.trials).collect::<Vec<_>>())),
        column(s::COST_NEEDED_USD, Series::new("".into(), decisions.iter().map(|d| d.cost_needed_usd).collect::<Vec<_>>())),
        column(s::SCENARIOS_NEEDED, Series::new("".into(), decisions.iter().map(|d| d.need.scenarios).collect::<Vec<_>>())),
    ])
}

/// Whether a pair is told apart, and what it would take if not.
struct PairDecision {
    interval: Option<paired::Interval>,
    /// Empty (null) without an interval.
    decisive: Option<bool>,
    need: paired::Need,
    cost_needed_usd: Option<f64>,
}

/// The pair's 95% paired interval and, where it does not exclude 0, the
/// trials (or scenarios) to detect the observed difference at 80% power,
/// priced at the pair's mean cost per shared run.
fn decide(r: &PairRow) -> PairDecision {
    let interval = paired::paired_interval(&r.clusters, 0.05);
    let decisive = interval.map(|i| i.decisive(0.0));
    let need = match (interval, decisive) {
        (Some(i), Some(false)) => paired::Variance::of(&r.clusters).map(|v| v.need(i.diff, 0.05)).unwrap_or_default(),
        _ => paired::Need::default(),
    };
    let scenarios = r.clusters.len() as f64;
    let per_run = (r.cost.0 + r.cost.1) / r.shared as f64;
    let trials = r.shared as f64 / scenarios;
    let more_runs = match need {
        paired::Need { trials: Some(t), .. } => Some(t as f64 * scenarios - r.shared as f64),
        paired::Need { scenarios: Some(n), .. } => Some((n as f64 - scenarios) * trials),
        _ => None,
    };
    PairDecision { interval, decisive, need, cost_needed_usd: more_runs.map(|runs| runs.max(0.0) * per_run) }
}

/// A's total over B's, where B's is not zero.
fn ratio((a, b): (f64, f64)) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}
