//! Whether each comparison is decided, in words: "sim-cheap-types@full vs
//! sim-strong@full: −5.2 points [−8.1, −2.3], decisive", or what an
//! undecided one still needs ("not decisive: about 6 more trials per
//! scenario, about $4.10"). Read from the pairs table's paired interval and
//! planner columns (`paired`); the terminal's `report --all`, report.md and
//! report.html show the same section, and `compare` the same words.

use super::grid::Shown;
use super::sections::Section;
use crate::metrics::schema;
use crate::metrics::table::PairRow;
use crate::metrics::Tables;

/// Terminal rows of the decisions table; report.md and report.html list all.
pub const TERMINAL_ROWS: usize = 12;

/// Below this many models (variants) every two models are compared in
/// words; above it, only arms against the first arm and cheap against
/// strong in the same arm (the pairs table still has every pair).
const EVERY_PAIR_UP_TO: usize = 6;

/// A signed difference in points, with a minus sign: `−5.2`, `+1.3`.
pub fn points(diff: f64) -> String {
    let p = diff * 100.0;
    if p.abs() < 0.05 {
        "0.0".into()
    } else if p < 0.0 {
        format!("−{:.1}", -p)
    } else {
        format!("+{p:.1}")
    }
}

/// An interval bound in points, signed only when negative.
pub fn bound(x: f64) -> String {
    let p = x * 100.0;
    if p <= -0.05 {
        format!("−{:.1}", -p)
    } else {
        format!("{:.1}", p.max(0.0))
    }
}

/// What one comparison is, read from a row of the pairs table.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The two sides, the difference being first − second.
    pub first: String,
    pub second: String,
    pub diff: f64,
    pub lo: f64,
    pub hi: f64,
    pub decisive: bool,
    /// Current trials per scenario.
    pub trials: f64,
    pub trials_needed: Option<u64>,
    pub scenarios_needed: Option<u64>,
    pub cost_needed_usd: Option<f64>,
}

impl Decision {
    /// `−5.2 points [−8.1, −2.3]`.
    pub fn difference(&self) -> String {
        format!("{} points [{}, {}]", points(self.diff), bound(self.lo), bound(self.hi))
    }

    /// `decisive`, or what it would take: `not decisive: about 6 more trials
    /// per scenario, about $4.10`.
    pub fn verdict(&self) -> String {
        if self.decisive {
            return "decisive".into();
        }
        let cost = self.cost_needed_usd.map_or(String::new(), |c| format!(", about ${c:.2}"));
        match (self.trials_needed, self.scenarios_needed) {
            (Some(t), _) => {
                let more = (t as f64 - self.trials).ceil().max(1.0) as u64;
                format!("not decisive: about {more} more {} per scenario{cost}", if more == 1 { "trial" } else { "trials" })
            }
            (None, Some(n)) => format!("not decisive: trials will not settle it; about {n} scenarios{cost}"),
            (None, None) => "not decisive: no difference observed".into(),
        }
    }

    /// The whole sentence.
    pub fn sentence(&self) -> String {
        format!("{} vs {}: {}, {}", self.first, self.second, self.difference(), self.verdict())
    }

    /// Row `i` of a pairs table with `trials` per scenario, the difference
    /// taken as B − A ("B vs A") or, with `a_first`, A − B ("A vs B").
    pub fn of_pair(pair: &PairRow, a_first: bool, trials: f64) -> Option<Decision> {
        let (Some(diff), Some(lo), Some(hi)) = (pair.pass_rate_diff, pair.diff_lo, pair.diff_hi) else {
            return None;
        };
        let (a, b) = (pair.model_a.clone(), pair.model_b.clone());
        let (first, second, diff, lo, hi) = if a_first { (a, b, -diff, -hi, -lo) } else { (b, a, diff, lo, hi) };
        Some(Decision {
            first,
            second,
            diff,
            lo,
            hi,
            decisive: pair.decisive,
            trials,
            trials_needed: pair.trials_needed,
            scenarios_needed: pair.scenarios_needed,
            cost_needed_usd: pair.cost_needed_usd,
        })
    }
}

/// The comparisons a report states in words, in pairs-table order: every
/// arm against its model's first arm, cheap against strong in the same arm,
/// and, in a small run, every other two models in the same arm.
pub fn decisions(tables: &Tables) -> Vec<Decision> {
    let summary = &tables.rows.summary;
    // A model's first arm is its first variant in model order.
    let first_arm = |m: &str| {
        summary
            .iter()
            .position(|r| r.model == m)
            .is_some_and(|i| summary.iter().position(|r| r.base_model == summary[i].base_model) == Some(i))
    };
    let cheap = |m: &str| summary.iter().any(|r| r.model == m && r.tier == "cheap");
    let every_pair = summary.len() <= EVERY_PAIR_UP_TO;
    let trials = trials_per_scenario(tables) as f64;
    let mut out = Vec::new();
    for pair in &tables.rows.pairs {
        let a_first = match pair.kind.as_str() {
            schema::PAIR_ARMS if first_arm(&pair.model_a) => false,
            schema::PAIR_CHEAP_VS_STRONG if pair.arm_a == pair.arm_b => cheap(&pair.model_a),
            schema::PAIR_MODELS if every_pair && pair.arm_a == pair.arm_b => true,
            _ => continue,
        };
        out.extend(Decision::of_pair(pair, a_first, trials));
    }
    out
}

/// Under the default view's tables, in a small run with trials (at most
/// `EVERY_PAIR_UP_TO` models), each comparison as one sentence; nothing
/// otherwise (`report --all` has the table).
pub fn terminal_lines(tables: &Tables) -> Vec<String> {
    if trials_per_scenario(tables) < 2 || tables.rows.summary.len() > EVERY_PAIR_UP_TO {
        return Vec::new();
    }
    let decisions = decisions(tables);
    if decisions.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["Is each difference real? Paired 95% intervals over scenarios (docs/statistics.md)".to_string()];
    lines.extend(decisions.iter().map(|d| format!("  {}", d.sentence())));
    lines
}

/// The most trials a scenario has (at least 1): `--until-decisive` adds
/// trials after the run's own, which `run.trials` does not count.
fn trials_per_scenario(tables: &Tables) -> u64 {
    let most = tables.rows.by_scenario.iter().map(|r| r.trials).max().unwrap_or(1);
    most.max(u64::from(tables.run.trials)).max(1)
}

/// Display columns of the decisions table.
const COMPARISON: &str = "comparison";
const DIFFERENCE: &str = "difference";
const VERDICT: &str = "verdict";

/// The decisions as a report section, or `None` when nothing was paired.
pub fn section(tables: &Tables) -> Option<Section> {
    let decisions = decisions(tables);
    if decisions.is_empty() {
        return None;
    }
    let listed = decisions.len() > TERMINAL_ROWS;
    let columns = vec![
        Shown::of(COMPARISON, "comparison", &decisions, |d| format!("{} vs {}", d.first, d.second)),
        Shown::of(DIFFERENCE, "difference", &decisions, |d| d.difference()),
        Shown::of(VERDICT, "verdict", &decisions, |d| d.verdict()),
    ];
    let mut s = Section::new("Is each difference real? Paired 95% intervals over scenarios", decisions.len(), columns);
    s.note = Some(format!(
        "points: pass rate, first − second; decisive: the interval excludes 0; what an undecided one needs is for 80% power{}; see docs/statistics.md",
        if listed { format!("; all {} in report.md and pairs.csv", decisions.len()) } else { String::new() }
    ));
    s.terminal_rows = Some(TERMINAL_ROWS);
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision() -> Decision {
        Decision {
            first: "sim-cheap-types@full".into(),
            second: "sim-strong@full".into(),
            diff: -0.052,
            lo: -0.081,
            hi: -0.023,
            decisive: true,
            trials: 3.0,
            trials_needed: None,
            scenarios_needed: None,
            cost_needed_usd: None,
        }
    }

    #[test]
    fn a_decided_comparison_in_words() {
        assert_eq!(decision().sentence(), "sim-cheap-types@full vs sim-strong@full: −5.2 points [−8.1, −2.3], decisive");
    }

    #[test]
    fn an_undecided_one_says_what_it_needs() {
        let d = Decision {
            diff: 0.013,
            lo: -0.02,
            hi: 0.046,
            decisive: false,
            trials_needed: Some(9),
            cost_needed_usd: Some(4.1),
            ..decision()
        };
        assert_eq!(
            d.sentence(),
            "sim-cheap-types@full vs sim-strong@full: +1.3 points [−2.0, 4.6], not decisive: about 6 more trials per scenario, about $4.10"
        );
        let d = Decision { trials_needed: None, scenarios_needed: Some(236), ..d };
        assert_eq!(d.verdict(), "not decisive: trials will not settle it; about 236 scenarios, about $4.10");
        let d = Decision { diff: 0.0, lo: -0.01, hi: 0.01, scenarios_needed: None, cost_needed_usd: None, ..d };
        assert_eq!(d.sentence(), "sim-cheap-types@full vs sim-strong@full: 0.0 points [−1.0, 1.0], not decisive: no difference observed");
    }
}
