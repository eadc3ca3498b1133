//! `calltape report` and `calltape merge`: a run folder's reports rebuilt
//! from its events, and the shards of one plan joined into one run folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{shell_word, CommandError, Failure, Outcome, OutputArgs};
use crate::core::plural::count;
use crate::events::UnitKey;
use crate::{report, runner};

/// Prints the tables as `output` asks; in the default view, a last line
/// with the command that prints every table of `run_dir`.
pub fn print_tables(tables: &crate::metrics::Tables, output: &OutputArgs, run_dir: &Path) -> Outcome {
    let view = output.view();
    println!("{}", report::terminal::render_view(tables, &view));
    if !output.all {
        for line in report::decision::terminal_lines(tables) {
            println!("{}", report::encode::terminal(&line));
        }
        // Printed whole, however wide: advice must run as printed.
        let dir = shell_word(&run_dir.display().to_string());
        println!("{}", view.paint.dim(&format!("every table: calltape report {dir} --all")));
    }
    Ok(())
}

/// Writes `transcripts.html` into `run_dir`: the transcripts of the failed
/// units its reports list and link, and the command that lists the rest.
/// The events are streamed and only the listed units' are kept, so what
/// this holds is bounded by `report::anchor::FAILURES_LISTED`, not by the run.
pub fn write_transcripts(run_dir: &Path, tables: &crate::metrics::Tables) -> Outcome {
    let (listed, total) = report::anchor::listed_failures(tables);
    let path = run_dir.join(crate::run_folder::EVENTS_FILE);
    if !path.is_file() {
        return Err(Failure::bad(CommandError::NotARunFolder { dir: run_dir.to_path_buf() }));
    }
    // By scenario first: most lines are of another one.
    let mut wanted: HashMap<&str, Vec<&UnitKey>> = HashMap::new();
    for unit in &listed {
        wanted.entry(unit.scenario.as_str()).or_default().push(unit);
    }
    let keep = |model: &str, suite: &str, scenario: &str, trial: u32| {
        wanted.get(scenario).is_some_and(|units| units.iter().any(|u| u.trial == trial && u.model == model && u.suite == suite))
    };
    let transcripts = crate::transcript::transcripts_from_file(&path, keep).map_err(Failure::bad)?;
    let command = format!("calltape show {}", shell_word(&run_dir.display().to_string()));
    crate::run_folder::write_file(run_dir, report::anchor::TRANSCRIPTS_FILE, |w| {
        crate::transcript::html::write_page(w, &listed, total, &transcripts, &command)
    })
    .map_err(Failure::failed)?;
    Ok(())
}

/// Rewrites every report of `run_dir` from its events.jsonl and prints the tables.
pub fn rerender(run_dir: &Path, output: &OutputArgs) -> Outcome {
    let rendered = report::render_run(run_dir).map_err(Failure::bad)?;
    write_transcripts(run_dir, &rendered.tables)?;
    print_tables(&rendered.tables, output, run_dir)?;
    let build = rendered.build_time.as_secs_f64();
    // Two short lines: they fit an 80-column terminal.
    println!(
        "tables built from {} events in {build:.2} s ({:.0} events/s)",
        rendered.tables.events,
        rendered.tables.events as f64 / build.max(1e-9)
    );
    println!("reports rewritten in {} ({:.2} s)", run_dir.display(), rendered.write_time.as_secs_f64());
    Ok(())
}

/// Joins the shards' run folders into one under `out` and renders it.
pub fn merge(run_dirs: &[PathBuf], out: &Path) -> Outcome {
    let folder = crate::merge::merge_runs(run_dirs, out).map_err(Failure::bad)?;
    rerender(&folder.dir, &OutputArgs::default())?;
    let latest = runner::update_latest(out, &folder.dir)
        .map_err(|source| Failure::failed(CommandError::Latest { what: "merged run", dir: folder.dir.clone(), source }))?;
    println!(
        "{} merged: {} → {} (copied to {})",
        count(run_dirs.len(), "run"),
        count(folder.units, "unit"),
        folder.dir.display(),
        latest.display()
    );
    Ok(())
}
