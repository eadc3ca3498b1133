//! The `calltape` command: parses arguments and calls one library function
//! per command (`calltape::cli`); the exit code is chosen in one place,
//! `cli::finish`, from the named codes in `calltape::exit_codes`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use calltape::cli::{self, bfcl_judge, cassettes, compare, diff, import, init, repair, run, show, sim};

// Small JSON values and strings are made and dropped per request: glibc's
// allocator took ~45% of a default run (docs/speed.md), mimalloc far less.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "calltape",
    version,
    about = "Replay-and-evaluation harness for tool-calling language models",
    after_help = "Exit codes: 0 success; 1 the command found failure (problems, a crossed gate, an inexact --strict replay, a model that never answered, a failed write); 2 bad input (flags, configuration, suites, folders); 130 interrupted (resume with --resume)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start a project: a commented calltape.toml and an example suite that `run` runs at once.
    Init(init::InitArgs),
    /// Run suites on the configured models and print the comparison tables.
    Run(run::RunArgs),
    /// Run one tool call's arguments through the repair pipeline and print what it did, as JSON.
    Repair(repair::RepairArgs),
    /// Re-render every report of a run folder from its events.jsonl (no model is called).
    Report {
        /// A run folder, e.g. reports/latest.
        run_dir: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Compare two run folders; exit 1 when a [gate] threshold is crossed, 2 for bad input.
    Compare(compare::CompareArgs),
    /// Show the transcript of units of a run folder: what the model said, each call, the verdict and why.
    Show(show::ShowArgs),
    /// Align two trajectories of a scenario (two runs, or two models of one run) and say what decided the verdict.
    Diff(diff::DiffArgs),
    /// Join the runs of the shards of one plan (`run --shard i/n`) into one run folder.
    Merge {
        /// The shards' run folders.
        #[arg(required = true)]
        run_dirs: Vec<PathBuf>,
        /// Where the merged run folder goes (default: reports).
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// Turn a dataset into a calltape suite.
    Import {
        #[command(subcommand)]
        source: import::ImportSource,
    },
    /// Judge answers (JSON lines) to BFCL scenarios with the BFCL checker; one verdict a line.
    BfclJudge(bfcl_judge::BfclJudgeArgs),
    /// Validate suites: exits 1 and lists every problem (file:line:col) if any.
    Check {
        /// Suite folders (default: the configured suites).
        paths: Vec<PathBuf>,
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Check or clean up the recorded cassettes.
    Cassettes {
        #[command(subcommand)]
        command: cassettes::CassettesCommand,
    },
    /// Simulators fitted to real runs: `sim fit` writes a profile, `sim validate` checks it on held-out scenarios.
    Sim {
        #[command(subcommand)]
        command: sim::SimCommand,
    },
    /// Print a completion script: e.g. `calltape completions bash > ~/.local/share/bash-completion/completions/calltape`.
    Completions(cli::completions::CompletionsArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Init(args) => init::init(args),
        Command::Run(args) => run::run(args).await,
        Command::Repair(args) => repair::repair(args),
        Command::Report { run_dir, output } => cli::report::rerender(&run_dir, &output),
        Command::Compare(args) => compare::compare(args),
        Command::Show(args) => show::show(args),
        Command::Diff(args) => diff::diff(args),
        Command::Import { source } => import::import(source),
        Command::BfclJudge(args) => bfcl_judge::bfcl_judge(args),
        Command::Check { paths, config } => cli::check::check(paths, config),
        Command::Merge { run_dirs, out } => cli::report::merge(&run_dirs, &out),
        Command::Cassettes { command } => cassettes::cassettes(command),
        Command::Sim { command } => sim::sim(command).await,
        Command::Completions(args) => cli::completions::completions(args, Cli::command()),
    };
    // Every code is below 256 (see `exit_codes`).
    ExitCode::from(u8::try_from(cli::finish(outcome)).unwrap_or(u8::MAX))
}
