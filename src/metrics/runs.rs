//! The tables with a row per run or per scenario — `scenarios`,
//! `by_scenario`, `suites` — and what the summary and the pairs read of the
//! runs, built straight from the compact rows in table order rather than
//! grouped, joined and sorted by polars: a run's groups (its model, suite,
//! scenario) lie together in that order, so each is one pass, and the only
//! copy of the runs with their names is the `scenarios` frame itself. Float
//! sums and means are polars' own (see `exact`), so the tables are the same
//! bits polars gave.

use polars::prelude::*;

use super::derived::PairRow;
use super::exact::KahanSum;
use super::rows::{OutcomeRow, Rows, ScenarioRow, Unit};
use super::schema as s;
use crate::events::UnitError;

fn column<T, V>(name: &str, values: V) -> Column
where
    Series: NamedFrom<V, T>,
    T: ?Sized,
{
    Column::from(Series::new(name.into(), values))
}

/// The runs of `Rows::scenarios`, in table order, with their units.
pub(super) struct Runs<'a> {
    r: &'a Rows,
}

/// Counts of a group of runs, as every per-run table adds them up.
#[derive(Default)]
struct Counts {
    /// Runs that reached a verdict: the pass rates' denominator.
    answered: u64,
    errored: u64,
    passed: u64,
    passed_no_repair: u64,
    cost_usd: KahanSum,
    latency_ms: KahanSum,
    milestones_reached: KahanSum,
}

impl Counts {
    fn add(&mut self, run: &ScenarioRow, unit: &Unit) {
        self.answered += u64::from(run.error.is_none());
        self.errored += u64::from(run.error.is_some());
        self.passed += u64::from(run.passed);
        self.passed_no_repair += u64::from(passed_no_repair(run, unit));
        self.cost_usd.add(unit.cost_usd);
        self.latency_ms.add(unit.latency_ms);
        if let Some(reached) = run.outcome.as_ref().and_then(milestones_reached) {
            self.milestones_reached.add(f64::from(reached));
        }
    }
}

/// The columns every per-group table has: its keys and counts.
#[derive(Default)]
struct GroupColumns<'a> {
    model: Vec<&'a str>,
    suite: Vec<&'a str>,
    scenario: Vec<&'a str>,
    passed: Vec<u64>,
    errored: Vec<u64>,
    cost_usd: Vec<f64>,
}

impl<'a> GroupColumns<'a> {
    /// A group's row; with `scenario`, its scenario too.
    fn push(&mut self, runs: &Runs<'a>, first: &ScenarioRow, counts: &Counts, scenario: bool) {
        let unit = runs.unit(first);
        self.model.push(runs.name(unit.model));
        self.suite.push(runs.name(unit.suite));
        if scenario {
            self.scenario.push(runs.name(unit.scenario));
        }
        self.passed.push(counts.passed);
        self.errored.push(counts.errored);
        self.cost_usd.push(counts.cost_usd.sum());
    }
}

/// A pass rate over the answered runs; none (an empty cell) when none
/// answered, as the summary computes it.
fn rate(hits: u64, of: u64) -> Option<f64> {
    (of > 0).then(|| hits as f64 / of as f64)
}

/// Without repair, a call that needed it would have failed the scenario.
fn passed_no_repair(run: &ScenarioRow, unit: &Unit) -> bool {
    run.passed && !unit.repaired
}

/// A stateful scenario's milestone count; none for the others.
fn milestones_reached(o: &OutcomeRow) -> Option<u32> {
    (o.milestones > 0).then_some(o.milestones_reached)
}

impl<'a> Runs<'a> {
    /// `r` after `Rows::finish`, which puts the runs in table order.
    pub(super) fn new(r: &'a Rows) -> Runs<'a> {
        Runs { r }
    }

    fn unit(&self, run: &ScenarioRow) -> &'a Unit {
        &self.r.units[run.unit as usize]
    }

    fn name(&self, id: u32) -> &'a str {
        self.r.names.name(id)
    }

    /// The runs in groups of consecutive runs that share `key`: each
    /// group's first run, and its counts.
    fn groups<'s, K: PartialEq>(&'s self, key: impl Fn(&Unit) -> K + 's) -> impl Iterator<Item = (&'a ScenarioRow, Counts)> + 's {
        let runs = &self.r.scenarios;
        let mut start = 0;
        std::iter::from_fn(move || {
            let first = runs.get(start)?;
            let k = key(self.unit(first));
            let mut counts = Counts::default();
            let len = runs[start..].iter().take_while(|run| key(self.unit(run)) == k).count();
            for run in &runs[start..start + len] {
                counts.add(run, self.unit(run));
            }
            start += len;
            Some((first, counts))
        })
    }

    /// `scenarios`: one row per run, in the columns of `schema::SCENARIO_RUNS`.
    pub(super) fn scenarios(&self) -> PolarsResult<DataFrame> {
        let runs = &self.r.scenarios;
        let units = || runs.iter().map(|run| self.unit(run));
        // A count of a stateful scenario's outcome; empty (null) for the others.
        let outcome = |f: &dyn Fn(&OutcomeRow) -> Option<u32>| runs.iter().map(|s| s.outcome.as_ref().and_then(f)).collect::<Vec<_>>();
        DataFrame::new_infer_height(vec![
            column(s::MODEL, units().map(|u| self.name(u.model)).collect::<Vec<_>>()),
            column(s::SUITE, units().map(|u| self.name(u.suite)).collect::<Vec<_>>()),
            column(s::SCENARIO, units().map(|u| self.name(u.scenario)).collect::<Vec<_>>()),
            column(s::TRIAL, units().map(|u| u.trial).collect::<Vec<_>>()),
            column(s::PASSED, runs.iter().map(|run| run.passed).collect::<Vec<_>>()),
            column(s::REASON, runs.iter().map(|run| self.name(run.reason)).collect::<Vec<_>>()),
            column(s::PASSED_NO_REPAIR, runs.iter().map(|run| passed_no_repair(run, self.unit(run))).collect::<Vec<_>>()),
            column(s::LATENCY_MS, units().map(|u| u.latency_ms).collect::<Vec<_>>()),
            column(s::COST_USD, units().map(|u| u.cost_usd).collect::<Vec<_>>()),
            column(s::ERRORED, runs.iter().map(|run| run.error.is_some()).collect::<Vec<_>>()),
            column(s::ERROR_KIND, runs.iter().map(|run| run.error.map_or("", UnitError::as_str)).collect::<Vec<_>>()),
            column(s::MILESTONES_REACHED, outcome(&milestones_reached)),
            column(s::MILESTONES, outcome(&|o| (o.milestones > 0).then_some(o.milestones))),
            column(
                s::LAST_MILESTONE,
                runs.iter().map(|run| run.outcome.as_ref().and_then(|o| o.last_milestone).map(|m| self.name(m))).collect::<Vec<_>>(),
            ),
            column(s::STATE_CHECKS_PASSED, outcome(&|o| (o.state_checks > 0).then_some(o.state_checks_passed))),
            column(s::STATE_CHECKS, outcome(&|o| (o.state_checks > 0).then_some(o.state_checks))),
        ])
    }

    /// `by_scenario`: one row per model × suite × scenario, over its trials.
    pub(super) fn by_scenario(&self) -> PolarsResult<DataFrame> {
        let mut t = GroupColumns::default();
        let (mut trials, mut pass_rate, mut flaky, mut mean_latency, mut mean_milestones) = (vec![], vec![], vec![], vec![], vec![]);
        let mut flip_rate = vec![];
        for (run, c) in self.groups(|u| (u.model, u.suite, u.scenario)) {
            t.push(self, run, &c, true);
            trials.push(c.answered);
            pass_rate.push(rate(c.passed, c.answered));
            flaky.push(c.passed > 0 && c.passed < c.answered);
            flip_rate.push(crate::paired::flip_rate(c.answered, c.passed));
            // A group is never empty: its mean is always there.
            mean_latency.push(c.latency_ms.mean().unwrap_or(0.0));
            mean_milestones.push(c.milestones_reached.mean());
        }
        DataFrame::new_infer_height(vec![
            column(s::MODEL, t.model),
            column(s::SUITE, t.suite),
            column(s::SCENARIO, t.scenario),
            column(s::TRIALS, trials),
            column(s::PASSED, t.passed),
            column(s::PASS_RATE, pass_rate),
            column(s::FLAKY, flaky),
            column(s::COST_USD, t.cost_usd),
            column(s::MEAN_LATENCY_MS, mean_latency),
            column(s::ERRORED, t.errored),
            column(s::MEAN_MILESTONES_REACHED, mean_milestones),
            column(s::FLIP_RATE, flip_rate),
        ])
    }

    /// `suites`: one row per model × suite, but the interval `derived` adds.
    pub(super) fn suites(&self) -> PolarsResult<DataFrame> {
        let mut t = GroupColumns::default();
        let (mut answered, mut pass_rate) = (vec![], vec![]);
        for (run, c) in self.groups(|u| (u.model, u.suite)) {
            t.push(self, run, &c, false);
            answered.push(c.answered);
            pass_rate.push(rate(c.passed, c.answered));
        }
        DataFrame::new_infer_height(vec![
            column(s::MODEL, t.model),
            column(s::SUITE, t.suite),
            column(s::SCENARIOS, answered),
            column(s::PASSED, t.passed),
            column(s::PASS_RATE, pass_rate),
            column(s::TOTAL_COST_USD, t.cost_usd),
            column(s::ERRORED, t.errored),
        ])
    }

    /// The summary's run counts: one row per model with runs.
    pub(super) fn per_model(&self) -> PolarsResult<DataFrame> {
        let (mut model, mut answered, mut errored, mut passed, mut passed_no_repair) = (vec![], vec![], vec![], vec![], vec![]);
        for (run, c) in self.groups(|u| u.model) {
            model.push(self.name(self.unit(run).model));
            answered.push(c.answered);
            errored.push(c.errored);
            passed.push(c.passed);
            passed_no_repair.push(c.passed_no_repair);
        }
        DataFrame::new_infer_height(vec![
            column(s::MODEL, model),
            column(s::SCENARIOS, answered),
            column(s::ERRORED, errored),
            column(s::PASSED, passed),
            column(s::PASSED_NO_REPAIR, passed_no_repair),
        ])
    }

    /// Every two models (in `model_order`) on the runs both answered: how
    /// their verdicts split, and the cost and latency of each on those runs.
    /// Each model's runs lie together, sorted by (suite, scenario, trial),
    /// so the shared runs are found by walking the two side by side.
    pub(super) fn pairs(&self) -> Vec<PairRow> {
        let r = self.r;
        let key = |run: &ScenarioRow| {
            let u = self.unit(run);
            (r.name_rank[u.suite as usize], r.name_rank[u.scenario as usize], u.trial)
        };
        // Each model's answered runs, in table order.
        let mut runs_of: Vec<(&str, Vec<&ScenarioRow>)> = Vec::new();
        for run in r.scenarios.iter().filter(|run| run.error.is_none()) {
            let model = self.name(self.unit(run).model);
            match runs_of.last_mut() {
                Some((m, runs)) if *m == model => runs.push(run),
                _ => runs_of.push((model, vec![run])),
            }
        }
        let find = |m: &str| runs_of.iter().find(|(x, _)| *x == m).map(|(_, runs)| runs);
        let mut rows = Vec::new();
        for (i, a) in r.model_order.iter().enumerate() {
            for b in &r.model_order[i + 1..] {
                let (Some(ra), Some(rb)) = (find(a), find(b)) else { continue };
                let mut row = PairRow::new(a, b);
                let mut j = 0;
                for run_a in ra {
                    let k = key(run_a);
                    while j < rb.len() && key(rb[j]) < k {
                        j += 1;
                    }
                    // The last of B's runs with this key, should a unit have run twice.
                    let Some(run_b) = rb[j..].iter().take_while(|run| key(run) == k).last() else { continue };
                    let (ua, ub) = (self.unit(run_a), self.unit(run_b));
                    row.add(
                        (ua.suite, ua.scenario),
                        (run_a.passed, ua.cost_usd, ua.latency_ms),
                        (run_b.passed, ub.cost_usd, ub.latency_ms),
                    );
                }
                if row.shared > 0 {
                    rows.push(row);
                }
            }
        }
        rows
    }
}
