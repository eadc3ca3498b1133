//! `calltape show`: the transcript of each selected unit of a run folder,
//! rebuilt from its events; with no selection, the failed and the errored
//! units to pick from, each with the command that shows it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{shell_word, terminal_width, CommandError, Failure, Outcome};
use crate::core::glob::glob_escape;
use crate::core::plural::count;
use crate::report::encode::terminal;
use crate::transcript::render::{self, Look};
use crate::transcript::{self, Selection, UnitTranscript};

/// Units shown (or listed) at most; the rest are named by a count.
const SHOWN: usize = 50;

/// The flags of `calltape show`.
#[derive(clap::Args, Debug, Default)]
pub struct ShowArgs {
    /// A run folder, e.g. reports/latest.
    pub run_dir: PathBuf,
    /// Only this model (a glob: `*` matches any run of characters).
    #[arg(long)]
    pub model: Option<String>,
    /// Only scenarios matching this glob, as `id` or `suite/id`.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Only this trial (0-based).
    #[arg(long)]
    pub trial: Option<u32>,
    /// Print the transcripts (or the list of failed units) as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Every unit's transcript in a run folder.
pub fn load(dir: &Path) -> Result<Vec<UnitTranscript>, Failure> {
    let path = dir.join(crate::run_folder::EVENTS_FILE);
    if !path.is_file() {
        return Err(Failure::bad(CommandError::NotARunFolder { dir: dir.to_path_buf() }));
    }
    let events = crate::events::read_events(&path).map_err(Failure::bad)?;
    Ok(transcript::transcripts(&events))
}

/// How to draw on stdout: colour on a terminal unless NO_COLOR is set; piped output is 120 wide.
pub fn look() -> Look {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let width = terminal_width();
    Look { colour: !no_colour && console::Term::stdout().is_term(), width: if width == usize::MAX { 120 } else { width } }
}

/// The command that shows one unit, as it runs when pasted.
pub fn show_command(dir: &Path, t: &UnitTranscript) -> String {
    let u = &t.unit;
    format!(
        "calltape show {} --model {} --scenario {} --trial {}",
        shell_word(&dir.display().to_string()),
        // The selection flags take globs: a name is escaped to match only itself.
        shell_word(&glob_escape(&u.model)),
        shell_word(&glob_escape(&format!("{}/{}", u.suite, u.scenario))),
        u.trial
    )
}

/// Prints the selected transcripts, or the failed units to choose from.
pub fn show(args: ShowArgs) -> Outcome {
    // Write errors are ignored: a reader that went away (`| head`) ends the output, not the command.
    let mut out = std::io::stdout().lock();
    let all = load(&args.run_dir)?;
    let selection = Selection { model: args.model.clone(), scenario: args.scenario.clone(), trial: args.trial };
    if selection.is_empty() {
        return list_failed(&args.run_dir, &all, args.json);
    }
    let chosen: Vec<&UnitTranscript> = all.iter().filter(|t| selection.matches(&t.unit)).collect();
    if chosen.is_empty() {
        let models = transcript::models_of(&all);
        return Err(Failure::bad(format!(
            "no unit of {} matches the selection; its models: {} (scenarios are matched as `id` or `suite/id`, `*` for any characters; `calltape show {}` lists the failed units)",
            args.run_dir.display(),
            terminal(&models.join(", ")),
            shell_word(&args.run_dir.display().to_string()),
        )));
    }
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&chosen).map_err(Failure::bad)?);
        return Ok(());
    }
    let look = look();
    for (i, t) in chosen.iter().take(SHOWN).enumerate() {
        if i > 0 {
            let _ = writeln!(out, "{}", "─".repeat(look.width.min(80)));
        }
        let _ = write!(out, "{}", render::transcript(t, &look));
    }
    if chosen.len() > SHOWN {
        let _ =
            writeln!(out, "\n… and {}: narrow the selection with --model, --scenario or --trial", count(chosen.len() - SHOWN, "more unit"));
    }
    Ok(())
}

/// The failed units, then the errored ones (no answer: neither passed nor
/// failed), each with the command that shows it.
fn list_failed(dir: &Path, all: &[UnitTranscript], json: bool) -> Outcome {
    // Write errors are ignored: a reader that went away (`| head`) ends the output, not the command.
    let mut out = std::io::stdout().lock();
    let failed: Vec<&UnitTranscript> = all.iter().filter(|t| t.failed()).collect();
    let errored: Vec<&UnitTranscript> = all.iter().filter(|t| t.errored()).collect();
    if json {
        let row = |t: &&UnitTranscript, state: &str| {
            serde_json::json!({
                "unit": t.unit,
                "state": state,
                "reason": t.verdict.as_ref().map(|v| v.reason.clone()),
                "command": show_command(dir, t),
            })
        };
        let rows: Vec<serde_json::Value> =
            failed.iter().map(|t| row(t, "failed")).chain(errored.iter().map(|t| row(t, "errored"))).collect();
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&rows).map_err(Failure::bad)?);
        return Ok(());
    }
    if failed.is_empty() && errored.is_empty() {
        let _ = writeln!(out, "{} in {}, none failed; show one with --model M --scenario ID", count(all.len(), "unit"), dir.display());
        return Ok(());
    }
    let shown_dir = terminal(&dir.display().to_string()).into_owned();
    let list = |out: &mut std::io::StdoutLock, units: &[&UnitTranscript]| {
        for t in units.iter().take(SHOWN) {
            let reason = t.verdict.as_ref().map_or("", |v| v.reason.as_str());
            let _ = writeln!(out, "  {}\n      {}", terminal(&show_command(dir, t)), crate::quote::quoted(&terminal(reason)));
        }
        if units.len() > SHOWN {
            let _ = writeln!(out, "… and {} more: narrow with --model or --scenario (a glob)", units.len() - SHOWN);
        }
    };
    if !failed.is_empty() {
        let _ = writeln!(out, "{} of {} failed in {shown_dir}; show one with:", failed.len(), count(all.len(), "unit"));
        list(&mut out, &failed);
    }
    if !errored.is_empty() {
        let _ = writeln!(
            out,
            "{} of {} errored in {shown_dir} (no answer: neither passed nor failed, not in the pass rates); show one with:",
            errored.len(),
            count(all.len(), "unit")
        );
        list(&mut out, &errored);
    }
    Ok(())
}
