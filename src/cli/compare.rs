//! `calltape compare`: two run folders' tables against the `[gate]`
//! thresholds, which flags may override.

use std::path::{Path, PathBuf};

use super::{load_config, shell_word, CommandError, Failure, Outcome};
use crate::core::gate::Gate;
use crate::metrics;

/// The flags of `calltape compare`.
#[derive(clap::Args, Debug, Default)]
pub struct CompareArgs {
    /// The baseline run folder.
    pub base: PathBuf,
    /// The run folder to judge.
    pub current: PathBuf,
    /// Configuration whose [gate] thresholds apply.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Largest allowed pass-rate drop, absolute (0.02 = two points).
    #[arg(long)]
    pub max_pass_rate_drop: Option<f64>,
    /// Largest allowed invalid-rate rise, absolute.
    #[arg(long)]
    pub max_invalid_rate_rise: Option<f64>,
    /// Largest allowed total-cost rise, relative (0.1 = +10%).
    #[arg(long)]
    pub max_cost_rise: Option<f64>,
    /// Largest allowed p95-latency rise, relative.
    #[arg(long)]
    pub max_p95_latency_rise: Option<f64>,
    /// Do not fail on scenarios that passed before and fail now.
    #[arg(long)]
    pub allow_newly_failing: bool,
    /// Do not fail on a model of the current run with errored units (no
    /// answer); its answered units are still compared.
    #[arg(long)]
    pub allow_errored: bool,
    /// Do not fail on a model of the baseline missing from the current run.
    #[arg(long)]
    pub allow_missing: bool,
    /// Fail on a pass-rate drop, invalid-rate rise or newly failing scenario
    /// only when it is decisive (its paired 95% interval excludes no
    /// change); changes beyond a threshold that noise could explain are
    /// listed, not failed on.
    #[arg(long)]
    pub require_decisive: bool,
    /// Also write the comparison as Markdown to this file.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    #[command(flatten)]
    pub output: super::OutputArgs,
}

impl CompareArgs {
    /// The configured gate with the thresholds given as flags put over it.
    pub fn gate(&self, mut gate: Gate) -> Gate {
        gate.max_pass_rate_drop = self.max_pass_rate_drop.unwrap_or(gate.max_pass_rate_drop);
        gate.max_invalid_rate_rise = self.max_invalid_rate_rise.unwrap_or(gate.max_invalid_rate_rise);
        gate.max_cost_rise = self.max_cost_rise.unwrap_or(gate.max_cost_rise);
        gate.max_p95_latency_rise = self.max_p95_latency_rise.unwrap_or(gate.max_p95_latency_rise);
        gate.fail_on_newly_failing &= !self.allow_newly_failing;
        gate.fail_on_errored &= !self.allow_errored;
        gate.fail_on_missing &= !self.allow_missing;
        gate.require_decisive |= self.require_decisive;
        gate
    }
}

/// Prints the comparison; fails when a threshold is crossed.
pub fn compare(args: CompareArgs) -> Outcome {
    let (config, _) = load_config(args.config.as_deref())?;
    let gate = args.gate(config.gate);
    let (base, current) = (tables(&args.base)?, tables(&args.current)?);
    let comparison = crate::compare::compare(&base, &current, &gate);
    println!("calltape compare {} → {}", args.base.display(), args.current.display());
    // The same command with --all lists every line.
    let words: Vec<String> = std::env::args().skip(1).map(|a| shell_word(&a)).collect();
    let advice = format!("calltape {} --all", words.join(" "));
    print!("{}", crate::compare::render_terminal(&comparison, &args.output.view(), &advice));
    // A diff command is as long as its paths and cannot be cut: without
    // --all, one command lists them all, each with its own command.
    if args.output.all {
        for line in explain_commands(&args, &comparison, usize::MAX) {
            println!("{}", crate::report::encode::terminal(&line));
        }
    } else if !comparison.newly_failing.is_empty() {
        println!("What each newly failing scenario did differently, a command each:");
        let runs = [args.base.clone(), args.current.clone()];
        println!("  {}", crate::report::encode::terminal(&super::diff::diff_command_all(&runs)));
    }
    if let Some(path) = &args.markdown {
        let mut text = crate::compare::render(&comparison, true);
        if let Some((head, commands)) = explain_commands(&args, &comparison, EXPLAINED_IN_MARKDOWN).split_first() {
            text.push_str(&format!("\n{head}\n\n"));
            for command in commands {
                text.push_str(&format!("- {}\n", crate::report::encode::markdown(command.trim_start())));
            }
        }
        std::fs::write(path, text).map_err(|source| Failure::bad(CommandError::Write { path: path.clone(), source }))?;
    }
    if comparison.models.is_empty() {
        return Err(Failure::bad(CommandError::NoSharedModel));
    }
    if comparison.passed() {
        Ok(())
    } else {
        Err(Failure::Failed(None))
    }
}

/// Newly failing scenarios explained in the Markdown file (a pull-request
/// comment); `--all` on the terminal lists every one.
const EXPLAINED_IN_MARKDOWN: usize = 20;

/// For each newly failing scenario, the `calltape diff` command that shows
/// what the model did differently (the first `listed`; the rest by `diff`
/// without `--scenario`).
fn explain_commands(args: &CompareArgs, c: &crate::compare::Comparison, listed: usize) -> Vec<String> {
    if c.newly_failing.is_empty() {
        return Vec::new();
    }
    let runs = [args.base.clone(), args.current.clone()];
    let mut lines = vec!["What each newly failing scenario did differently:".to_string()];
    for (model, scenario) in c.newly_failing.iter().take(listed) {
        let (suite, id) = scenario.split_once('/').unwrap_or(("", scenario));
        lines.push(format!("  {}", super::diff::diff_command(&runs, &[], model, suite, id, None)));
    }
    if c.newly_failing.len() > listed {
        lines.push(format!("  … and {} more: {}", c.newly_failing.len() - listed, super::diff::diff_command_all(&runs)));
    }
    lines
}

/// A run folder's tables, read from its events.
fn tables(dir: &Path) -> Result<metrics::Tables, Failure> {
    let path = dir.join("events.jsonl");
    if !path.is_file() {
        return Err(Failure::bad(CommandError::NotARunFolder { dir: dir.to_path_buf() }));
    }
    metrics::tables_from_file(&path).map_err(Failure::bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_only_the_thresholds_they_name() {
        let configured = Gate {
            max_pass_rate_drop: 0.1,
            max_invalid_rate_rise: 0.2,
            max_cost_rise: 0.3,
            max_p95_latency_rise: 0.4,
            fail_on_newly_failing: true,
            fail_on_errored: true,
            fail_on_missing: true,
            require_decisive: false,
        };
        let args = CompareArgs { max_cost_rise: Some(0.05), allow_newly_failing: true, allow_errored: true, ..CompareArgs::default() };
        let gate = args.gate(configured);
        assert_eq!(gate.max_cost_rise, 0.05);
        assert!(!gate.fail_on_newly_failing && !gate.fail_on_errored && gate.fail_on_missing);
        assert_eq!((gate.max_pass_rate_drop, gate.max_invalid_rate_rise, gate.max_p95_latency_rise), (0.1, 0.2, 0.4));
        assert!(CompareArgs::default().gate(configured).fail_on_newly_failing);
    }
}
