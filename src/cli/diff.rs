//! `calltape diff`: two trajectories of the same scenario aligned step by
//! step — across two runs (`diff BASE CUR --scenario ID [--model M]`) or
//! across two models of one run (`diff RUN --model A --model B`) — with the
//! first divergence and the difference that decided the verdict. Without
//! `--scenario`, the units whose verdicts differ, each with its command.

use std::io::Write;
use std::path::PathBuf;

use super::show::{load, look};
use super::{shell_word, Failure, Outcome};
use crate::core::plural::count;
use crate::report::encode::terminal;
use crate::transcript::align::align;
use crate::transcript::render;
use crate::transcript::{model_matches, models_of, scenario_matches, UnitTranscript};

/// Pairs rendered (or listed) at most.
const SHOWN: usize = 20;

/// The flags of `calltape diff`.
#[derive(clap::Args, Debug, Default)]
pub struct DiffArgs {
    /// One run folder (with two --model) or two (BASE CUR).
    #[arg(required = true, num_args = 1..=2)]
    pub runs: Vec<PathBuf>,
    /// The model to compare: twice with one run folder; at most once with two (default: every shared model).
    #[arg(long)]
    pub model: Vec<String>,
    /// The scenario, as `id` or `suite/id` (a glob); without it, the units whose verdicts differ are listed.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Only this trial (default: the trials whose verdicts differ, else the first).
    #[arg(long)]
    pub trial: Option<u32>,
    /// Print the alignments as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Two units of one scenario and the names of their sides.
struct Pair<'a> {
    a: &'a UnitTranscript,
    b: &'a UnitTranscript,
    labels: (String, String),
}

impl Pair<'_> {
    fn verdicts_differ(&self) -> bool {
        self.a.verdict.as_ref().map(|v| v.passed) != self.b.verdict.as_ref().map(|v| v.passed)
    }
}

/// The (A, B) models two `--model` names compare in one run: each name is a
/// model, or a configured model for all its arms. Two armed names pair
/// arm by arm (`sim-strong@off` with `sim-cheap-types@off`); one model
/// against an armed name pairs with each of its arms.
fn model_pairs<'m>(a: &str, b: &str, models: &[&'m str]) -> Vec<(&'m str, &'m str)> {
    let named = |name: &str| -> Vec<&'m str> {
        let exact: Vec<&'m str> = models.iter().copied().filter(|m| *m == name).collect();
        if exact.is_empty() {
            models.iter().copied().filter(|m| model_matches(name, m)).collect()
        } else {
            exact
        }
    };
    let (ma, mb) = (named(a), named(b));
    let arm = |m: &str| m.split_once('@').map(|(_, arm)| arm.to_string());
    let mut pairs = Vec::new();
    for x in &ma {
        for y in &mb {
            if x != y && (ma.len() == 1 || mb.len() == 1 || arm(x) == arm(y)) {
                pairs.push((*x, *y));
            }
        }
    }
    pairs
}

/// Prints the aligned trajectories, or the units whose verdicts differ.
pub fn diff(args: DiffArgs) -> Outcome {
    // Write errors are ignored: a reader that went away (`| head`) ends the output, not the command.
    let mut out = std::io::stdout().lock();
    let across_models = args.runs.len() == 1;
    if across_models && args.model.len() != 2 {
        return Err(Failure::bad(format!(
            "with one run folder, name the two models to compare: calltape diff {} --model A --model B [--scenario ID]",
            shell_word(&args.runs[0].display().to_string())
        )));
    }
    if !across_models && args.model.len() > 1 {
        return Err(Failure::bad("with two run folders, give --model at most once (the model to follow in both)"));
    }
    let a_units = load(&args.runs[0])?;
    let b_units = if across_models { None } else { Some(load(&args.runs[1])?) };
    let b_all = b_units.as_deref().unwrap_or(&a_units);
    let known = || {
        let mut models = models_of(&a_units);
        models.extend(models_of(b_all).into_iter().filter(|m| !models.contains(m)).collect::<Vec<_>>());
        terminal(&models.join(", ")).into_owned()
    };
    let model_pairs = if across_models { model_pairs(&args.model[0], &args.model[1], &models_of(&a_units)) } else { Vec::new() };
    let mut pairs = Vec::new();
    for a in &a_units {
        // The models a's unit is compared with, and the labels of the two sides.
        let sides: Vec<(&str, (String, String))> = if across_models {
            model_pairs.iter().filter(|(x, _)| *x == a.unit.model).map(|(x, y)| (*y, (x.to_string(), y.to_string()))).collect()
        } else if args.model.first().is_none_or(|m| model_matches(m, &a.unit.model)) {
            vec![(a.unit.model.as_str(), (format!("{} (base)", a.unit.model), format!("{} (current)", a.unit.model)))]
        } else {
            Vec::new()
        };
        for (model_b, labels) in sides {
            let same = |b: &&UnitTranscript| {
                b.unit.model == model_b
                    && b.unit.suite == a.unit.suite
                    && b.unit.scenario == a.unit.scenario
                    && b.unit.trial == a.unit.trial
            };
            if let Some(b) = b_all.iter().find(same) {
                pairs.push(Pair { a, b, labels });
            }
        }
    }
    if pairs.is_empty() {
        return Err(Failure::bad(format!(
            "nothing to compare: no scenario ran for {} on both sides; the models that ran: {} (a model with arms is named MODEL@ARM, or by MODEL for all its arms)",
            if args.model.is_empty() { "any model".to_string() } else { terminal(&args.model.join(" and ")).into_owned() },
            known()
        )));
    }
    pairs.retain(|p| args.trial.is_none_or(|n| p.a.unit.trial == n));
    let Some(glob) = &args.scenario else {
        return list_differing(&args, &pairs);
    };
    pairs.retain(|p| scenario_matches(glob, &p.a.unit));
    if pairs.is_empty() {
        return Err(Failure::bad(format!(
            "no scenario matching {:?} ran on both sides; without --scenario, diff lists the units whose verdicts differ",
            terminal(glob)
        )));
    }
    if args.trial.is_none() && pairs.iter().any(Pair::verdicts_differ) {
        pairs.retain(Pair::verdicts_differ);
    } else if args.trial.is_none() {
        let first = pairs.iter().map(|p| p.a.unit.trial).min().unwrap_or(0);
        pairs.retain(|p| p.a.unit.trial == first);
    }
    let look = look();
    let mut json = Vec::new();
    for (i, p) in pairs.iter().take(SHOWN).enumerate() {
        let al = align(p.a, p.b, (&p.labels.0, &p.labels.1));
        if args.json {
            json.push(serde_json::json!({ "labels": [p.labels.0, p.labels.1], "alignment": al, "a": p.a, "b": p.b }));
            continue;
        }
        if i > 0 {
            let _ = writeln!(out, "{}", "─".repeat(look.width.min(80)));
        }
        let _ = write!(out, "{}", render::diff(p.a, p.b, (&p.labels.0, &p.labels.1), &al, &look));
    }
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&json).map_err(Failure::bad)?);
    } else if pairs.len() > SHOWN {
        let _ = writeln!(out, "\n… and {}: narrow with --scenario or --trial", count(pairs.len() - SHOWN, "more pair"));
    }
    Ok(())
}

/// The command that diffs one pair, as it runs when pasted.
pub fn diff_command(runs: &[PathBuf], models: &[String], model: &str, suite: &str, scenario: &str, trial: Option<u32>) -> String {
    let dirs: Vec<String> = runs.iter().map(|d| shell_word(&d.display().to_string())).collect();
    let models: Vec<String> = if models.len() == 2 { models.to_vec() } else { vec![model.to_string()] };
    let mut out = format!("calltape diff {}", dirs.join(" "));
    for m in &models {
        out.push_str(&format!(" --model {}", shell_word(m)));
    }
    // --scenario takes a glob: the id is escaped to match only itself.
    out.push_str(&format!(" --scenario {}", shell_word(&crate::core::glob::glob_escape(&format!("{suite}/{scenario}")))));
    if let Some(t) = trial {
        out.push_str(&format!(" --trial {t}"));
    }
    out
}

/// The pairs whose verdicts differ, each with the command that explains it.
fn list_differing(args: &DiffArgs, pairs: &[Pair<'_>]) -> Outcome {
    // Write errors are ignored: a reader that went away (`| head`) ends the output, not the command.
    let mut out = std::io::stdout().lock();
    let differing: Vec<&Pair> = pairs.iter().filter(|p| p.verdicts_differ()).collect();
    let command =
        |p: &Pair| diff_command(&args.runs, &args.model, &p.a.unit.model, &p.a.unit.suite, &p.a.unit.scenario, Some(p.a.unit.trial));
    if args.json {
        let rows: Vec<serde_json::Value> = differing
            .iter()
            .map(|p| serde_json::json!({"a": p.a.unit, "b": p.b.unit, "a_passed": p.a.verdict.as_ref().map(|v| v.passed), "b_passed": p.b.verdict.as_ref().map(|v| v.passed), "command": command(p)}))
            .collect();
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&rows).map_err(Failure::bad)?);
        return Ok(());
    }
    let _ = writeln!(
        out,
        "{} of {} {} different verdicts; explain one with:",
        differing.len(),
        count(pairs.len(), "compared unit"),
        if differing.len() == 1 { "has" } else { "have" }
    );
    for p in differing.iter().take(SHOWN) {
        let word = |t: &UnitTranscript| match &t.verdict {
            Some(v) if v.passed => "passed",
            Some(_) => "failed",
            None => "unfinished",
        };
        let _ = writeln!(
            out,
            "  {}\n      {}: {}, {}: {}",
            terminal(&command(p)),
            terminal(&p.labels.0),
            word(p.a),
            terminal(&p.labels.1),
            word(p.b)
        );
    }
    if differing.len() > SHOWN {
        let _ = writeln!(out, "… and {} more: narrow with --scenario (a glob) or --trial", differing.len() - SHOWN);
    }
    Ok(())
}

/// The command that lists every unit whose verdict differs between two runs.
pub fn diff_command_all(runs: &[PathBuf]) -> String {
    let dirs: Vec<String> = runs.iter().map(|d| shell_word(&d.display().to_string())).collect();
    format!("calltape diff {}", dirs.join(" "))
}
