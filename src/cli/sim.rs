//! `calltape sim fit` and `calltape sim validate`: simulators fitted to real
//! runs, and a held-out check of how well they stand in (docs/simulators.md).

use std::path::{Path, PathBuf};

use super::{Failure, Outcome};
use crate::events::{read_events, Event};
use crate::sim_fit::{self as fit, Holdout};

/// The `sim` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum SimCommand {
    /// Fit a simulator profile (TOML, commented) to what a model did in a run.
    Fit(FitArgs),
    /// Simulate the scenarios of a real run the fit did not see, and compare
    /// per-kind invalid rates, pass rate and latency quantiles with the real ones.
    Validate(ValidateArgs),
}

/// The flags of `calltape sim fit`.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// The run folder(s) to fit, e.g. reports/latest (several: their events together).
    #[arg(required = true)]
    pub run_dirs: Vec<PathBuf>,
    /// The model to fit: its name in the run (a name without `@ARM` takes its arms' units).
    #[arg(long)]
    pub model: String,
    /// Write the profile here (default: print it).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Scenarios left out of the fit for `sim validate`: `half` (those of
    /// shard 2/2, by a hash of suite and id) or `none`.
    #[arg(long, default_value = "half", value_parser = ["half", "none"])]
    pub holdout: String,
}

/// The flags of `calltape sim validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// A profile written by `sim fit`.
    pub profile: PathBuf,
    /// The real run folder(s) the profile was fitted to (their held-out scenarios are simulated).
    #[arg(required = true)]
    pub run_dirs: Vec<PathBuf>,
    /// Simulated trials of every held-out scenario (the simulator's intervals come from them).
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub trials: u32,
}

pub async fn sim(command: SimCommand) -> Outcome {
    match command {
        SimCommand::Fit(args) => fit_command(args),
        SimCommand::Validate(args) => validate_command(args).await,
    }
}

/// Every event of these run folders, in order; a unit finished in an
/// earlier folder is not counted again from a later one (a run that
/// replayed it from the same cassette).
pub fn events_of(run_dirs: &[PathBuf]) -> Result<Vec<Event>, Failure> {
    let mut all: Vec<Event> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for dir in run_dirs {
        let path = dir.join(crate::run_folder::EVENTS_FILE);
        let events = read_events(&path).map_err(Failure::bad)?;
        all.extend(events.iter().filter(|e| e.kind.unit().is_none_or(|u| !seen.contains(u))).cloned());
        seen.extend(
            all.iter().filter(|e| matches!(e.kind, crate::events::EventKind::ScenarioFinished(_))).filter_map(|e| e.kind.unit().cloned()),
        );
    }
    Ok(all)
}

fn shown(p: &Path) -> String {
    p.display().to_string()
}

fn fit_command(args: FitArgs) -> Outcome {
    let events = events_of(&args.run_dirs)?;
    let holdout = if args.holdout == "none" { Holdout::None } else { Holdout::Half };
    let runs: Vec<String> = args.run_dirs.iter().map(|d| shown(d)).collect();
    let fitted = fit::fit(&events, &runs, &args.model, holdout).map_err(Failure::bad)?;
    match &args.out {
        Some(out) => {
            std::fs::write(out, &fitted.text).map_err(|e| Failure::failed(format!("cannot write {}: {e}", out.display())))?;
            let o = &fitted.observations;
            println!(
                "fitted {} on {} units, {} calls ({} scenarios, holdout {}): invalid rate {:.3}, pass rate {:.3} -> {}",
                args.model,
                o.passed.n,
                o.calls,
                o.scenarios.len(),
                holdout.as_str(),
                o.invalid_rate().rate().unwrap_or(0.0),
                o.passed.rate().unwrap_or(0.0),
                out.display()
            );
        }
        None => print!("{}", fitted.text),
    }
    Ok(())
}

async fn validate_command(args: ValidateArgs) -> Outcome {
    let events = events_of(&args.run_dirs)?;
    let path = shown(&args.profile);
    let text = std::fs::read_to_string(&args.profile).map_err(|e| Failure::bad(format!("cannot read profile {path}: {e}")))?;
    let (profile, from) = crate::sim::profile_file::parse(&text, &path).map_err(Failure::bad)?;
    let table = crate::sim_fit::validate::validate(&profile, &from, &events, &args.run_dirs, args.trials).await.map_err(Failure::bad)?;
    print!("{}", table.render());
    Ok(())
}
