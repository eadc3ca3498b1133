//! `calltape cassettes verify|prune`: the recorded cassettes checked against
//! the suites and models, and the orphaned ones deleted.

use std::path::PathBuf;

use super::{load_config, load_suites, CommandError, Failure, Outcome};
use crate::transport::cassette;

/// What to do with the cassettes.
#[derive(clap::Subcommand, Debug)]
pub enum CassettesCommand {
    /// Read every cassette; list format errors, key-shaped strings, stale and orphaned files; exit 1 if any.
    Verify(CassettesArgs),
    /// Delete orphaned cassettes: those whose suite, scenario or model is no longer configured.
    Prune {
        #[command(flatten)]
        args: CassettesArgs,
        /// Only list what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
}

/// The flags both cassette commands take.
#[derive(clap::Args, Debug)]
pub struct CassettesArgs {
    /// The cassette folder (default: the configuration's [cassettes] dir, `recordings`).
    pub path: Option<PathBuf>,
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Suite folder the cassettes are for (repeatable; default: the configured suites).
    #[arg(long = "suite")]
    pub suites: Vec<PathBuf>,
}

/// Verifies the cassettes (failing on any finding), or prunes the orphaned ones.
pub fn cassettes(command: CassettesCommand) -> Outcome {
    let (args, prune) = match command {
        CassettesCommand::Verify(args) => (args, None),
        CassettesCommand::Prune { args, dry_run } => (args, Some(dry_run)),
    };
    let (mut config, _) = load_config(args.config.as_deref())?;
    // A run with arms records each model as its arms' variants (`MODEL@ARM`).
    config.expand_arms().map_err(Failure::bad)?;
    let dir = args.path.unwrap_or_else(|| config.cassettes.dir.clone());
    if !dir.is_dir() {
        return Err(Failure::bad(CommandError::NoCassettes { dir }));
    }
    let suite_paths = if args.suites.is_empty() { config.run.suites.clone() } else { args.suites };
    let suites = load_suites(&suite_paths).map_err(|_| Failure::BadInput(None))?;
    // The same scan a run applies before writing a cassette.
    let scan = crate::runner::secret_scan(&config, &suites);
    let scope =
        cassette::verify::Scope { suites: &suites, models: &config.models, ignore_fields: &config.cassettes.ignore_fields, scan: &scan };
    let report = cassette::verify::verify(&dir, &scope).map_err(Failure::bad)?;
    let Some(dry_run) = prune else {
        // Findings name files found on disk: outside text, escaped for the terminal.
        for finding in &report.findings {
            println!("{}", crate::report::encode::terminal_lines(&finding.to_string()));
        }
        println!("{}", report.summary());
        return if report.passed() { Ok(()) } else { Err(Failure::Failed(None)) };
    };
    let deleted = cassette::verify::prune(&dir, &report, dry_run).map_err(Failure::failed)?;
    let verb = if dry_run { "would delete" } else { "deleted" };
    for path in &deleted {
        println!("{verb} {}", crate::report::encode::terminal(&path.display().to_string()));
    }
    println!("{} {verb}{}", crate::core::plural::count(deleted.len(), "orphaned file"), if dry_run { " (--dry-run)" } else { "" });
    Ok(())
}
