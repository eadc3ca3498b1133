//! The `calltape` command: parses arguments and hands off to the library.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use calltape::config::Config;
use calltape::{events, metrics, report, runner, scenario};

#[derive(Parser)]
#[command(name = "calltape", version, about = "Replay-and-evaluation harness for tool-calling language models")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run suites on the configured models and print the comparison tables.
    Run(RunArgs),
    /// Validate suites: exits 1 and lists every problem (file:line:col) if any.
    Check {
        /// Suite folders (default: the configured suites).
        paths: Vec<PathBuf>,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Configuration file (default: ./calltape.toml, else the embedded default).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Suite folder to run (repeatable; replaces the configured suites).
    #[arg(long = "suite")]
    suites: Vec<PathBuf>,
    /// Model to run, by name (repeatable; default: every configured model).
    #[arg(long = "model")]
    models: Vec<String>,
    #[arg(long)]
    trials: Option<u32>,
    #[arg(long)]
    seed: Option<u64>,
    /// Folder for run outputs (default: reports).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Step limit where a scenario sets none.
    #[arg(long)]
    max_steps: Option<u32>,
}

fn load_config(path: Option<&std::path::Path>) -> Result<(Config, String), ExitCode> {
    Config::discover(path).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn load_suites(paths: &[PathBuf]) -> Result<Vec<scenario::Suite>, Vec<scenario::LoadError>> {
    scenario::load_suites(paths)
}

fn print_load_errors(errors: &[scenario::LoadError]) {
    for e in errors {
        eprintln!("error: {e}");
    }
    eprintln!("{} problem(s) found; fix them and run again (`calltape check` lists them too)", errors.len());
}

async fn run(args: RunArgs) -> Result<(), ExitCode> {
    let (mut config, origin) = load_config(args.config.as_deref())?;
    if !args.suites.is_empty() {
        config.run.suites = args.suites;
    }
    if let Some(t) = args.trials {
        config.run.trials = t.max(1);
    }
    if let Some(s) = args.seed {
        config.run.seed = s;
    }
    if let Some(o) = args.out {
        config.run.out_dir = o;
    }
    if let Some(m) = args.max_steps {
        config.run.max_steps = m;
    }
    config.select_models(&args.models).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    let suites = load_suites(&config.run.suites).map_err(|errors| {
        print_load_errors(&errors);
        ExitCode::from(2)
    })?;
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let folder = runner::run(&config, &origin, &suites, std::io::stderr().is_terminal()).await.map_err(|e| fail(&e))?;
    let events = events::read_events(&folder.dir.join("events.jsonl")).map_err(|e| fail(&e))?;
    let tables = metrics::build_tables(&events).map_err(|e| fail(&e))?;
    report::write_all(&tables, &folder.dir).map_err(|e| fail(&e))?;
    let latest = runner::update_latest(&config.run.out_dir, &folder.dir).map_err(|e| fail(&e))?;
    println!("{}", report::terminal::render_tables(&tables).map_err(|e| fail(&e))?);
    println!("{} units → {} (copied to {})", folder.units, folder.dir.display(), latest.display());
    Ok(())
}

fn check(paths: Vec<PathBuf>, config: Option<PathBuf>) -> Result<(), ExitCode> {
    let paths = if paths.is_empty() { load_config(config.as_deref())?.0.run.suites } else { paths };
    match load_suites(&paths) {
        Ok(suites) => {
            for s in &suites {
                println!("ok: {} ({} scenarios)", s.name, s.scenarios.len());
            }
            Ok(())
        }
        Err(errors) => {
            print_load_errors(&errors);
            Err(ExitCode::from(1))
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args).await,
        Command::Check { paths, config } => check(paths, config),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
