//! The `calltape` command: parses arguments and hands off to the library.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use calltape::config::{ApprovalMode, Config, RepairMode};
use calltape::pipeline::RepairRules;
use calltape::{bfcl, events, metrics, report, runner, scenario, standalone};

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
    /// Run one tool call's arguments through the repair pipeline and print what it did, as JSON.
    Repair(RepairArgs),
    /// Re-render every report of a run folder from its events.jsonl (no model is called).
    Report {
        /// A run folder, e.g. reports/latest.
        run_dir: PathBuf,
    },
    /// Compare two run folders; exit 1 when a [gate] threshold is crossed, 2 for bad input.
    Compare(CompareArgs),
    /// Turn a dataset into a calltape suite.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Judge answers (JSON lines) to BFCL scenarios with the BFCL checker; one verdict a line.
    BfclJudge(BfclJudgeArgs),
    /// Validate suites: exits 1 and lists every problem (file:line:col) if any.
    Check {
        /// Suite folders (default: the configured suites).
        paths: Vec<PathBuf>,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum ImportSource {
    /// A Berkeley Function Calling Leaderboard data file (single-turn categories) and its answer key.
    Bfcl(ImportBfclArgs),
}

#[derive(clap::Args)]
struct ImportBfclArgs {
    /// The BFCL data file, e.g. BFCL_v4_simple_python.json (JSON lines).
    data: PathBuf,
    /// Its answer file (default: possible_answer/<same name> beside it).
    #[arg(long)]
    answers: Option<PathBuf>,
    /// Suite folder to write <category>.jsonl into (default: scenarios/bfcl-<category>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Import only the first N entries.
    #[arg(long, conflicts_with = "sample")]
    limit: Option<usize>,
    /// Import N entries drawn at random (deterministic for a --seed), kept in file order.
    #[arg(long)]
    sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 42, requires = "sample")]
    seed: u64,
}

#[derive(clap::Args)]
struct BfclJudgeArgs {
    /// Suite folder holding the BFCL scenarios answered (repeatable).
    #[arg(long = "suite", required = true)]
    suites: Vec<PathBuf>,
    /// Answers, one a line: {"id": "...", "calls": [{"tool_name": {arguments}}]} (default: standard input).
    answers: Option<PathBuf>,
    /// Time the checker over the answers this many rounds and print the per-answer mean as JSON, instead of verdicts.
    #[arg(long, value_name = "ROUNDS")]
    time: Option<usize>,
}

#[derive(clap::Args)]
struct CompareArgs {
    /// The baseline run folder.
    base: PathBuf,
    /// The run folder to judge.
    current: PathBuf,
    /// Configuration whose [gate] thresholds apply.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Largest allowed pass-rate drop, absolute (0.02 = two points).
    #[arg(long)]
    max_pass_rate_drop: Option<f64>,
    /// Largest allowed invalid-rate rise, absolute.
    #[arg(long)]
    max_invalid_rate_rise: Option<f64>,
    /// Largest allowed total-cost rise, relative (0.1 = +10%).
    #[arg(long)]
    max_cost_rise: Option<f64>,
    /// Largest allowed p95-latency rise, relative.
    #[arg(long)]
    max_p95_latency_rise: Option<f64>,
    /// Do not fail on scenarios that passed before and fail now.
    #[arg(long)]
    allow_newly_failing: bool,
    /// Also write the comparison as Markdown to this file.
    #[arg(long)]
    markdown: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RepairArgs {
    /// The tool's parameters schema (JSON); without it any object is accepted.
    #[arg(long)]
    schema: Option<PathBuf>,
    /// One object a line, `{"args": "<text>", "schema": {...}?}`; prints one result a line.
    #[arg(long, conflicts_with = "arguments")]
    batch: Option<PathBuf>,
    /// How much repair to apply.
    #[arg(long, value_enum, default_value = "local")]
    repair: RepairMode,
    /// With --batch: time every line this many rounds in-process and print
    /// per-call means as JSON, instead of the reports.
    #[arg(long, requires = "batch", value_name = "ROUNDS")]
    time: Option<usize>,
    /// Configuration whose [pipeline.aliases] and [pipeline.defaults] apply.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The arguments text (default: read from standard input).
    arguments: Option<String>,
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
    /// Run only scenarios whose id matches this glob (repeatable; `*` matches anything).
    #[arg(long = "filter", value_name = "GLOB")]
    filters: Vec<String>,
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
    /// How much repair runs: off, local, or full (local, then ask the model).
    #[arg(long, value_enum)]
    repair: Option<RepairMode>,
    /// Approval mode for every scenario: auto, deny, script or interactive.
    #[arg(long, value_enum)]
    approve: Option<ApprovalMode>,
}

/// The terminal's width; piped output is not cut.
fn terminal_width() -> usize {
    console::Term::stdout().size_checked().map_or(usize::MAX, |(_, cols)| usize::from(cols))
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
    if let Some(r) = args.repair {
        config.pipeline.repair = r;
    }
    config.approval.mode_override = args.approve;
    config.select_models(&args.models).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    let mut suites = load_suites(&config.run.suites).map_err(|errors| {
        print_load_errors(&errors);
        ExitCode::from(2)
    })?;
    if !args.filters.is_empty() {
        for suite in &mut suites {
            suite.scenarios.retain(|s| args.filters.iter().any(|f| calltape::check::glob_matches(f, &s.id)));
        }
        suites.retain(|s| !s.scenarios.is_empty());
        if suites.is_empty() {
            eprintln!("error: no scenario id matches {:?}", args.filters);
            return Err(ExitCode::from(2));
        }
    }
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let folder = runner::run(&config, &origin, &suites, std::io::stderr().is_terminal()).await.map_err(|e| match e {
        // Asked for something this environment cannot give: a usage error.
        runner::RunError::NoTerminal(_) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        e => fail(&e),
    })?;
    let tables = report::render_run(&folder.dir).map_err(|e| fail(&e))?;
    let latest = runner::update_latest(&config.run.out_dir, &folder.dir).map_err(|e| fail(&e))?;
    println!("{}", report::terminal::render_tables(&tables, terminal_width()).map_err(|e| fail(&e))?);
    println!("{} units → {} (copied to {})", folder.units, folder.dir.display(), latest.display());
    Ok(())
}

fn rerender(run_dir: PathBuf) -> Result<(), ExitCode> {
    let tables = report::render_run(&run_dir).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    let text = report::terminal::render_tables(&tables, terminal_width()).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    })?;
    println!("{text}");
    println!("reports rewritten in {}", run_dir.display());
    Ok(())
}

fn compare(args: CompareArgs) -> Result<(), ExitCode> {
    let bad = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let (config, _) = load_config(args.config.as_deref())?;
    let mut gate = config.gate;
    gate.max_pass_rate_drop = args.max_pass_rate_drop.unwrap_or(gate.max_pass_rate_drop);
    gate.max_invalid_rate_rise = args.max_invalid_rate_rise.unwrap_or(gate.max_invalid_rate_rise);
    gate.max_cost_rise = args.max_cost_rise.unwrap_or(gate.max_cost_rise);
    gate.max_p95_latency_rise = args.max_p95_latency_rise.unwrap_or(gate.max_p95_latency_rise);
    gate.fail_on_newly_failing &= !args.allow_newly_failing;
    let tables = |dir: &PathBuf| -> Result<metrics::Tables, ExitCode> {
        let path = dir.join("events.jsonl");
        if !path.is_file() {
            return Err(bad(format!("{} is not a run folder: it has no events.jsonl", dir.display())));
        }
        let events = events::read_events(&path).map_err(|e| bad(e.to_string()))?;
        metrics::build_tables(&events).map_err(|e| bad(e.to_string()))
    };
    let (base, current) = (tables(&args.base)?, tables(&args.current)?);
    let comparison = calltape::compare::compare(&base, &current, &gate).map_err(|e| bad(e.to_string()))?;
    println!("calltape compare {} → {}", args.base.display(), args.current.display());
    print!("{}", calltape::compare::render(&comparison, false));
    if let Some(path) = &args.markdown {
        std::fs::write(path, calltape::compare::render(&comparison, true))
            .map_err(|e| bad(format!("cannot write {}: {e}", path.display())))?;
    }
    if comparison.models.is_empty() {
        return Err(bad("the two runs share no model: nothing to compare".into()));
    }
    if comparison.breaches.is_empty() {
        Ok(())
    } else {
        Err(ExitCode::from(1))
    }
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

fn import(source: ImportSource) -> Result<(), ExitCode> {
    let ImportSource::Bfcl(args) = source;
    let selection = match (args.limit, args.sample) {
        (Some(n), _) => bfcl::import::Selection::First(n),
        (None, Some(n)) => bfcl::import::Selection::Sample { n, seed: args.seed },
        (None, None) => bfcl::import::Selection::All,
    };
    let summary = bfcl::import::import_file(&args.data, args.answers.as_deref(), args.out.as_deref(), selection).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    println!("imported {} of {} {} entries → {}", summary.written, summary.entries, summary.category, summary.path.display());
    Ok(())
}

fn bfcl_judge(args: BfclJudgeArgs) -> Result<(), ExitCode> {
    let fail = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let suites = load_suites(&args.suites).map_err(|errors| {
        print_load_errors(&errors);
        ExitCode::from(2)
    })?;
    let input: Box<dyn std::io::BufRead> = match &args.answers {
        Some(path) => {
            Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?))
        }
        None => Box::new(std::io::stdin().lock()),
    };
    if let Some(rounds) = args.time {
        let timing = bfcl::outputs::time_lines(&suites, input, rounds).map_err(fail)?;
        println!("{}", serde_json::to_string(&timing).unwrap_or_default());
        return Ok(());
    }
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let counts = bfcl::outputs::judge_lines(&suites, input, stdout).map_err(fail)?;
    eprintln!("{} valid, {} invalid", counts.valid, counts.invalid);
    Ok(())
}

fn repair(args: RepairArgs) -> Result<(), ExitCode> {
    let fail = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let (config, _) = load_config(args.config.as_deref())?;
    let rules = RepairRules { aliases: config.pipeline.aliases, defaults: config.pipeline.defaults };
    let schema = match &args.schema {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read schema {}: {e}", path.display())))?;
            Some(serde_json::from_str::<serde_json::Value>(&text).map_err(|e| fail(format!("{}: not JSON: {e}", path.display())))?)
        }
        None => None,
    };
    if let Some(batch) = &args.batch {
        let file = std::fs::File::open(batch).map_err(|e| fail(format!("cannot read {}: {e}", batch.display())))?;
        if let Some(rounds) = args.time {
            let timing = standalone::time_batch(std::io::BufReader::new(file), schema.as_ref(), &rules, rounds)
                .map_err(|e| fail(format!("{}: {e}", batch.display())))?;
            println!("{}", serde_json::to_string(&timing).unwrap_or_default());
            return Ok(());
        }
        let stdout = std::io::stdout().lock();
        let counts =
            standalone::run_batch(std::io::BufReader::new(file), std::io::BufWriter::new(stdout), schema.as_ref(), args.repair, &rules)
                .map_err(|e| fail(e.to_string()))?;
        eprintln!(
            "{} valid, {} repaired, {} invalid, {} unreadable line(s)",
            counts.valid, counts.repaired, counts.invalid, counts.bad_lines
        );
        return Ok(());
    }
    let text = match args.arguments {
        Some(t) => t,
        None => std::io::read_to_string(std::io::stdin()).map_err(|e| fail(format!("cannot read standard input: {e}")))?,
    };
    let tool = standalone::tool_for_schema(schema.as_ref()).map_err(fail)?;
    let report = standalone::repair_report(&text, &tool, args.repair, &rules);
    println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args).await,
        Command::Repair(args) => repair(args),
        Command::Report { run_dir } => rerender(run_dir),
        Command::Compare(args) => compare(args),
        Command::Import { source } => import(source),
        Command::BfclJudge(args) => bfcl_judge(args),
        Command::Check { paths, config } => check(paths, config),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
