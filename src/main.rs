//! The `calltape` command: parses arguments and hands off to the library.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use calltape::config::Config;

use calltape::core::modes::{ApprovalMode, RepairMode};
use calltape::core::modes::{CassetteMode, ReplayTiming};
use calltape::pipeline::RepairRules;
use calltape::transport::cassette::{self, CassetteSummary, SecretScan};
use calltape::{bfcl, metrics, plan, report, runner, scenario, standalone};

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
    /// Check or clean up the recorded cassettes.
    Cassettes {
        #[command(subcommand)]
        command: CassettesCommand,
    },
}

#[derive(Subcommand)]
enum CassettesCommand {
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

#[derive(clap::Args)]
struct CassettesArgs {
    /// The cassette folder (default: the configuration's [cassettes] dir, `recordings`).
    path: Option<PathBuf>,
    #[arg(long)]
    config: Option<PathBuf>,
    /// Suite folder the cassettes are for (repeatable; default: the configured suites).
    #[arg(long = "suite")]
    suites: Vec<PathBuf>,
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
    /// With --batch: time every line this many rounds in-process (after 1 s
    /// of warm-up) and print per-call means as JSON, instead of the reports:
    /// the whole local pipeline, parsing alone, and serde_json + jsonschema alone.
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
    /// Run only shard i of n (e.g. 2/4): scenarios split by a hash of their id,
    /// the same on every machine; `calltape merge` joins the shards' runs.
    #[arg(long, value_name = "i/n")]
    shard: Option<calltape::plan::Shard>,
    /// Finish an interrupted run: runs only the units of RUN_DIR that did not
    /// complete, with the plan it was started with (other flags are refused,
    /// but --config: the configuration the plan's endpoints are checked against).
    /// RUN_DIR may be reports/latest: the run it copies is resumed.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["suites", "models", "filters", "trials", "seed", "out", "max_steps", "repair", "approve", "shard", "mode", "recordings", "replay_timing", "replay_speed", "strict", "fail_fast"])]
    resume: Option<PathBuf>,
    /// With --resume: use the plan's models even where their base URL, key
    /// variable or headers differ from your configuration (a run folder from
    /// elsewhere could send your keys to its own server; check the listed
    /// differences first).
    #[arg(long, requires = "resume")]
    trust_plan: bool,
    /// Cassette mode for every model: live, record, replay, or auto (replay what is recorded, record the rest).
    #[arg(long, value_enum)]
    mode: Option<CassetteMode>,
    /// Cassette folder (default: the configuration's [cassettes] dir, `recordings`).
    #[arg(long, value_name = "DIR")]
    recordings: Option<PathBuf>,
    /// Replayed responses arrive at once (instant) or after their recorded latency (recorded).
    #[arg(long, value_enum)]
    replay_timing: Option<ReplayTiming>,
    /// With --replay-timing recorded: 2 replays twice as fast as recorded, 0.5 half as fast.
    #[arg(long, value_name = "FACTOR", value_parser = parse_replay_speed, allow_negative_numbers = true)]
    replay_speed: Option<f64>,
    /// Exit 1 when a replay is not exact: a request with no recording, or a recorded interaction left unused.
    #[arg(long)]
    strict: bool,
    /// Stop the run at the first request with no recording.
    #[arg(long)]
    fail_fast: bool,
}

/// The terminal's width; piped output is not cut.
fn terminal_width() -> usize {
    console::Term::stdout().size_checked().map_or(usize::MAX, |(_, cols)| usize::from(cols))
}

fn load_config(path: Option<&std::path::Path>) -> Result<(Config, String), ExitCode> {
    Config::discover(path).map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })
}

fn load_suites(paths: &[PathBuf]) -> Result<Vec<scenario::Suite>, Vec<scenario::LoadError>> {
    scenario::load_suites(paths)
}

fn print_load_errors(errors: &[scenario::LoadError]) {
    for e in errors {
        print_error(&e);
    }
    eprintln!("{} problem(s) found; fix them and run again (`calltape check` lists them too)", errors.len());
}

async fn run(args: RunArgs) -> Result<(), ExitCode> {
    let usage = |e: &dyn std::fmt::Display| {
        print_error(&e);
        ExitCode::from(2)
    };
    let fail = |e: &dyn std::fmt::Display| {
        print_error(&e);
        ExitCode::from(1)
    };
    // The configuration a later resume checks the plan against: the one the
    // user named (with --resume), else the one the run was made with.
    let explicit_config = args.config.as_ref().map(|c| c.display().to_string());
    let (plan, target_dir) = match &args.resume {
        Some(dir) => {
            let (plan, run_dir) = resume_plan(dir, args.config.as_deref(), args.trust_plan)?;
            (plan, Some(run_dir))
        }
        None => (new_plan(args)?, None),
    };
    let suites = plan.suites().map_err(|e| match e {
        plan::PlanError::Load(text) => {
            eprintln!("{}", text.lines().map(|l| format!("error: {l}")).collect::<Vec<_>>().join("\n"));
            eprintln!("fix them and run again (`calltape check` lists them too)");
            ExitCode::from(2)
        }
        e => usage(&e),
    })?;
    let config = plan.effective_config();
    let target = match target_dir {
        Some(dir) => {
            let done = plan::prepare_resume(&dir).map_err(|e| usage(&e))?;
            eprintln!("resuming {}: {} units already done", dir.display(), done.len());
            runner::RunTarget::Resume { dir, done }
        }
        None => runner::RunTarget::New(&plan),
    };
    let already_done = match &target {
        runner::RunTarget::Resume { done, .. } => done.len() as u64,
        runner::RunTarget::New(_) => 0,
    };
    let started = std::time::Instant::now();
    let folder =
        runner::run(&config, &plan.config_origin, &suites, std::io::stderr().is_terminal(), target).await.map_err(|e| match e {
            // Asked for something this environment cannot give: a usage error.
            runner::RunError::NoTerminal(_) | runner::RunError::Setup(_) | runner::RunError::Model { .. } | runner::RunError::NoModels => {
                usage(&e)
            }
            e => fail(&e),
        })?;
    // The reports are built from events.jsonl alone: the suites' index can go.
    drop(suites);
    let ran = started.elapsed().as_secs_f64();
    let units_run = folder.units - folder.remaining - already_done;
    // Read before the reports are built: the units' own peak, which stays
    // flat as a suite grows (the reports have a row per unit).
    let peak = peak_memory_mb().map(|mb| format!(", peak memory {mb:.0} MB")).unwrap_or_default();
    let tables = report::render_run(&folder.dir).map_err(|e| fail(&e))?.tables;
    let out_dir = folder.dir.parent().unwrap_or(&config.run.out_dir);
    let latest = runner::update_latest(out_dir, &folder.dir)
        .map_err(|e| fail(&format!("{e}\nthe run itself is complete in {}", folder.dir.display())))?;
    println!("{}", report::terminal::render_tables(&tables, terminal_width()).map_err(|e| fail(&e))?);
    println!("{units_run} units ran in {ran:.2} s ({:.0} units/s){peak}", units_run as f64 / ran.max(1e-9));
    if folder.remaining > 0 {
        println!(
            "interrupted: {} of {} units done → {} (copied to {})",
            folder.units - folder.remaining,
            folder.units,
            folder.dir.display(),
            latest.display()
        );
        // The plan is checked against a configuration on resume: name it.
        let config = explicit_config
            .or_else(|| (plan.config_origin == "calltape.toml").then(|| plan.config_origin.clone()))
            .map(|o| format!(" --config {}", shell_word(&o)))
            .unwrap_or_default();
        eprintln!("resume with: calltape run --resume {}{config}", shell_word(&folder.dir.display().to_string()));
        return Err(ExitCode::from(130));
    }
    println!("{} units → {} (copied to {})", folder.units, folder.dir.display(), latest.display());
    report_cassettes(&folder.cassettes, &config.cassettes.dir)
}

/// The process's peak resident memory so far, where the system tells it
/// (Linux: `VmHWM` in /proc/self/status).
fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb / 1024.0)
}

/// The plan of a new run: the configuration with the flags applied.
fn new_plan(args: RunArgs) -> Result<plan::RunPlan, ExitCode> {
    let (mut config, origin) = load_config(args.config.as_deref())?;
    if !args.suites.is_empty() {
        config.run.suites = args.suites;
    }
    // Absolute suite paths, so `--resume` finds them from any directory.
    config.run.suites = config.run.suites.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
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
    config.run.fail_fast |= args.fail_fast;
    config.cassettes.strict |= args.strict;
    if let Some(dir) = args.recordings {
        config.cassettes.dir = dir;
    }
    if let Some(t) = args.replay_timing {
        config.cassettes.timing = t;
    }
    if let Some(s) = args.replay_speed {
        config.cassettes.speed = s;
    }
    config.cassettes.validate().map_err(|e| {
        eprintln!("error: --replay-speed: {e}");
        ExitCode::from(2)
    })?;
    config.select_models(&args.models).map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })?;
    let plan =
        plan::RunPlan { config, config_origin: origin, approve: args.approve, mode: args.mode, filters: args.filters, shard: args.shard };
    plan.check().map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })?;
    Ok(plan)
}

/// The plan of a run to resume and the folder to resume it in. The plan is
/// someone's file: it is checked field by field, and where it would send
/// requests or keys elsewhere than the user's configuration says, the
/// differences are listed and the resume is refused unless `trust` is set.
/// Nothing is written before that check.
fn resume_plan(dir: &std::path::Path, config: Option<&std::path::Path>, trust: bool) -> Result<(plan::RunPlan, PathBuf), ExitCode> {
    let usage = |e: &dyn std::fmt::Display| {
        print_error(&e);
        ExitCode::from(2)
    };
    let (yours, origin) = load_config(config)?;
    let trusted = |plan: &plan::RunPlan, dir: &std::path::Path| {
        let differences = plan::trust::differences(plan, &yours);
        if differences.is_empty() || trust {
            return Ok(());
        }
        eprintln!(
            "error: {} would send requests or keys elsewhere than your configuration ({origin}) says:",
            dir.join(plan::PLAN_FILE).display()
        );
        for line in &differences {
            eprintln!("  {line}");
        }
        let config = config.map(|c| format!(" --config {}", shell_word(&c.display().to_string()))).unwrap_or_default();
        eprintln!("nothing was run: a run folder from elsewhere could send your API keys to its own server.");
        eprintln!(
            "if you made this run and trust these settings: calltape run --resume {}{config} --trust-plan",
            shell_word(&dir.display().to_string())
        );
        Err(ExitCode::from(2))
    };
    trusted(&plan::RunPlan::load(dir).map_err(|e| usage(&e))?, dir)?;
    let (run_dir, note) = calltape::run_folder::resume_folder(dir).map_err(|e| usage(&e))?;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let mut plan = plan::RunPlan::load(&run_dir).map_err(|e| usage(&e))?;
    trusted(&plan, &run_dir)?;
    for note in plan::trust::restore_secrets(&mut plan.config, &yours) {
        eprintln!("warning: {note}");
    }
    Ok((plan, run_dir))
}

/// A path as one shell word, so advice printed with it runs as printed.
fn shell_word(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn merge(run_dirs: &[PathBuf], out: &std::path::Path) -> Result<(), ExitCode> {
    let folder = calltape::merge::merge_runs(run_dirs, out).map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })?;
    rerender(folder.dir.clone())?;
    let latest = runner::update_latest(out, &folder.dir).map_err(|e| {
        eprintln!("error: {e}\nthe merged run itself is complete in {}", folder.dir.display());
        ExitCode::from(1)
    })?;
    println!("{} runs merged: {} units → {} (copied to {})", run_dirs.len(), folder.units, folder.dir.display(), latest.display());
    Ok(())
}

/// Lines shown of each kind of cassette message; the rest are in events.jsonl.
const CASSETTE_LINES: usize = 10;

/// Prints what the cassettes did; an error among it (a cassette that could
/// not be written, or with --strict an inexact replay) fails the run.
fn report_cassettes(summary: &CassetteSummary, dir: &std::path::Path) -> Result<(), ExitCode> {
    if let Some(line) = summary.headline(dir) {
        println!("{line}");
    }
    for (label, lines) in [("warning", &summary.warnings), ("error", &summary.errors)] {
        for line in lines.iter().take(CASSETTE_LINES) {
            eprintln!("{label}: {line}");
        }
        if lines.len() > CASSETTE_LINES {
            eprintln!("{label}: … and {} more (the `cassette` events in events.jsonl list them all)", lines.len() - CASSETTE_LINES);
        }
    }
    if summary.errors.is_empty() {
        Ok(())
    } else {
        Err(ExitCode::from(1))
    }
}

fn cassettes(command: CassettesCommand) -> Result<(), ExitCode> {
    let (args, prune) = match command {
        CassettesCommand::Verify(args) => (args, None),
        CassettesCommand::Prune { args, dry_run } => (args, Some(dry_run)),
    };
    let (config, _) = load_config(args.config.as_deref())?;
    let dir = args.path.unwrap_or_else(|| config.cassettes.dir.clone());
    if !dir.is_dir() {
        eprintln!("error: {} is not a folder of cassettes (record some with `calltape run --mode record`)", dir.display());
        return Err(ExitCode::from(2));
    }
    let suite_paths = if args.suites.is_empty() { config.run.suites.clone() } else { args.suites };
    let suites = load_suites(&suite_paths).map_err(|errors| {
        print_load_errors(&errors);
        ExitCode::from(2)
    })?;
    let scan = SecretScan::from_env(config.models.iter().filter_map(|m| m.api_key_env.as_deref()));
    let scope = cassette::verify::Scope {
        suites: &suites,
        models: &config.models,
        seed: config.run.seed,
        ignore_fields: &config.cassettes.ignore_fields,
        scan: &scan,
    };
    let report = cassette::verify::verify(&dir, &scope).map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })?;
    let Some(dry_run) = prune else {
        for finding in &report.findings {
            println!("{finding}");
        }
        println!("{}", report.summary());
        return if report.passed() { Ok(()) } else { Err(ExitCode::from(1)) };
    };
    let deleted = cassette::verify::prune(&dir, &report, dry_run).map_err(|e| {
        print_error(&e);
        ExitCode::from(1)
    })?;
    let verb = if dry_run { "would delete" } else { "deleted" };
    for path in &deleted {
        println!("{verb} {}", path.display());
    }
    println!("{} orphaned file(s) {verb}{}", deleted.len(), if dry_run { " (--dry-run)" } else { "" });
    Ok(())
}

fn rerender(run_dir: PathBuf) -> Result<(), ExitCode> {
    let rendered = report::render_run(&run_dir).map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })?;
    let text = report::terminal::render_tables(&rendered.tables, terminal_width()).map_err(|e| {
        print_error(&e);
        ExitCode::from(1)
    })?;
    println!("{text}");
    let build = rendered.build_time.as_secs_f64();
    println!(
        "tables built from {} events in {build:.2} s ({:.0} events/s); reports written in {:.2} s",
        rendered.tables.events,
        rendered.tables.events as f64 / build.max(1e-9),
        rendered.write_time.as_secs_f64()
    );
    println!("reports rewritten in {}", run_dir.display());
    Ok(())
}

fn compare(args: CompareArgs) -> Result<(), ExitCode> {
    let bad = |message: String| {
        print_error(&message);
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
        metrics::tables_from_file(&path).map_err(|e| bad(e.to_string()))
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
                println!("ok: {} ({} scenarios)", s.name, s.len());
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
        print_error(&e);
        ExitCode::from(2)
    })?;
    println!("imported {} of {} {} entries → {}", summary.written, summary.entries, summary.category, summary.path.display());
    Ok(())
}

fn bfcl_judge(args: BfclJudgeArgs) -> Result<(), ExitCode> {
    let fail = |message: String| {
        print_error(&message);
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
        print_error(&message);
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

/// `--replay-speed`: a number in the range replays take, or clap's error saying it.
fn parse_replay_speed(text: &str) -> Result<f64, String> {
    use calltape::core::cassette::check_speed;
    match text.trim().parse::<f64>() {
        Ok(speed) => check_speed(speed),
        Err(_) => Err(check_speed(f64::NAN).unwrap_err().replace("got NaN", "got text that is not a number")),
    }
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
        Command::Merge { run_dirs, out } => merge(&run_dirs, &out),
        Command::Cassettes { command } => cassettes(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Prints an error on stderr, a line at a time, with control characters
/// escaped: error texts may quote what a server, a model or a file said.
fn print_error(e: &dyn std::fmt::Display) {
    let text = e.to_string();
    let lines: Vec<_> = text.lines().map(calltape::report::encode::terminal).collect();
    eprintln!("error: {}", lines.join("\n"));
}
