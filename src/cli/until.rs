//! `calltape run --until-decisive`: after the run's trials, each requested
//! comparison (those `report::decision` states in words) is looked at; while
//! some are undecided, one more trial per scenario is run for the models in
//! them, in the same run folder (as `--resume` does), until every one is
//! decided, the trial cap is reached or the next round would pass the
//! budget. Each look spends its share of the 5% error (`paired::look_alpha`),
//! so the chance of deciding any comparison wrongly stays at most 5%
//! however many looks there are. The limits and what was decided live in
//! the plan, so `--resume` of an interrupted round goes on.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Failure;
use crate::metrics::Tables;
use crate::paired::{self, Cluster};
use crate::plan::{RunPlan, UntilDecisive};
use crate::runner::{self, RunFolder};
use crate::scenario::Suite;

/// The overall chance of a wrong decision the looks share.
pub const ALPHA: f64 = 0.05;

/// Trials per scenario at most, unless `--max-trials` says.
pub const DEFAULT_MAX_TRIALS: u32 = 10;

/// What one look found.
#[derive(Debug, Default)]
pub struct Look {
    /// "first vs second" of every comparison decided so far.
    pub decided: Vec<String>,
    /// The models of the comparisons still undecided.
    pub undecided_models: BTreeSet<String>,
    /// Comparisons looked at.
    pub total: usize,
    /// One line per comparison, for stderr.
    pub lines: Vec<String>,
}

/// The paired clusters of two models from the per-run table: the trials
/// both answered, grouped by (suite, scenario).
fn clusters(tables: &Tables, a: &str, b: &str) -> Vec<Cluster> {
    let mut of_a: HashMap<(&str, &str, u64), bool> = HashMap::new();
    let mut of_b = HashMap::new();
    for r in tables.rows.scenarios.iter().filter(|r| !r.errored) {
        let key = (r.suite.as_str(), r.scenario.as_str(), r.trial);
        if r.model == a {
            of_a.insert(key, r.passed);
        } else if r.model == b {
            of_b.insert(key, r.passed);
        }
    }
    let mut by_scenario: BTreeMap<(&str, &str), Cluster> = BTreeMap::new();
    for (key, pa) in &of_a {
        let Some(pb) = of_b.get(key) else { continue };
        let cell = match (pa, pb) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        by_scenario.entry((key.0, key.1)).or_default().split[cell] += 1;
    }
    by_scenario.into_values().collect()
}

/// Looks at every requested comparison with `trials_now` trials per scenario.
pub fn look(tables: &Tables, until: &UntilDecisive, trials_now: u32) -> Look {
    let alpha = paired::look_alpha(ALPHA, until.looked_at, trials_now, until.max_trials);
    let mut out = Look { decided: until.decided.clone(), ..Look::default() };
    for d in crate::report::decision::decisions(tables) {
        let name = format!("{} vs {}", d.first, d.second);
        out.total += 1;
        if out.decided.contains(&name) {
            out.lines.push(format!("  {name}: decided earlier"));
            continue;
        }
        // The interval of second − first; its sign does not matter here.
        let interval = if alpha > 0.0 { paired::paired_interval(&clusters(tables, &d.first, &d.second), alpha) } else { None };
        match interval {
            Some(i) if i.decisive(until.min_diff) => {
                use crate::report::decision::{bound, points};
                out.lines.push(format!(
                    "  {name}: decided, {} points [{}, {}] at level {alpha:.4}",
                    points(-i.diff),
                    bound(-i.hi),
                    bound(-i.lo)
                ));
                out.decided.push(name);
            }
            _ => {
                out.lines.push(format!("  {name}: not decided yet ({} points)", crate::report::decision::points(d.diff)));
                out.undecided_models.insert(d.first.clone());
                out.undecided_models.insert(d.second.clone());
            }
        }
    }
    out
}

/// The run's cost so far, and what one more trial of `models` would add.
fn costs(tables: &Tables, models: &BTreeSet<String>, trials_now: u32) -> (f64, f64) {
    let s = &tables.rows.summary;
    let spent = s.iter().map(|r| r.total_cost_usd).sum();
    let round = s.iter().filter(|r| models.contains(&r.model)).map(|r| r.total_cost_usd / f64::from(trials_now.max(1))).sum();
    (spent, round)
}

/// Adds rounds of one trial to the run in `folder` until the plan's
/// `until_decisive` is met; the folder as it is after the last round.
pub async fn continue_run(plan: &mut RunPlan, mut folder: RunFolder, suites: &[Suite], show_progress: bool) -> Result<RunFolder, Failure> {
    while let (Some(mut until), 0) = (plan.until_decisive.clone(), folder.remaining) {
        let trials_now = plan.config.run.trials;
        let tables = crate::metrics::tables_from_file(&folder.dir.join(crate::run_folder::EVENTS_FILE)).map_err(Failure::failed)?;
        let look = look(&tables, &until, trials_now);
        eprintln!("until decisive, {trials_now} trials per scenario: {} of {} comparisons decided", look.decided.len(), look.total);
        for line in &look.lines {
            eprintln!("{}", crate::report::encode::terminal(line));
        }
        until.looked_at = trials_now;
        until.decided = look.decided.clone();
        let (spent, round) = costs(&tables, &look.undecided_models, trials_now);
        let stop = if look.undecided_models.is_empty() {
            Some("every comparison is decided".to_string())
        } else if trials_now >= until.max_trials {
            Some(format!("the trial cap ({}) is reached; {} undecided", until.max_trials, look.total - look.decided.len()))
        } else {
            until
                .budget_usd
                .filter(|b| spent + round > *b)
                .map(|b| format!("the next trial (about ${round:.2}) would pass the budget (${b:.2}; spent ${spent:.2})"))
        };
        plan.until_decisive = Some(until);
        if let Some(why) = stop {
            eprintln!("until decisive: stopped, {why}");
            plan.save(&folder.dir).map_err(Failure::failed)?;
            break;
        }
        // One more trial for the models still in doubt; the others hold.
        plan.config.run.trials = trials_now + 1;
        for m in &mut plan.config.models {
            if !look.undecided_models.contains(&m.name) {
                m.max_trials = Some(m.trials(trials_now));
            }
        }
        plan.save(&folder.dir).map_err(Failure::failed)?;
        let done = crate::plan::prepare_resume(&folder.dir).map_err(Failure::failed)?;
        let target = runner::RunTarget::Resume { dir: folder.dir.clone(), done };
        folder =
            runner::run(&plan.effective_config(), &plan.config_origin, suites, show_progress, target).await.map_err(Failure::failed)?;
    }
    Ok(folder)
}
