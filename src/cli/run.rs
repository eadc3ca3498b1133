//! `calltape run`: the flags applied to the configuration (a new plan) or a
//! run folder's own plan checked against it (`--resume`), the run, its
//! reports, and what the cassettes did.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::{load_config, shell_word, CommandError, Failure, Outcome};
use crate::config::Config;
use crate::core::cassette::check_speed;
use crate::core::modes::{ApprovalMode, RepairMode};
use crate::core::modes::{CassetteMode, ReplayTiming};
use crate::core::plural::count;
use crate::transport::cassette::CassetteSummary;
use crate::{plan, report, run_folder, runner};

/// The flags of `calltape run`.
#[derive(clap::Args, Debug, Default)]
pub struct RunArgs {
    /// Configuration file (default: ./calltape.toml, else the embedded default).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Suite folder to run (repeatable; replaces the configured suites).
    #[arg(long = "suite")]
    pub suites: Vec<PathBuf>,
    /// Model to run, by name or glob (repeatable; default: every configured model).
    #[arg(long = "model", value_parser = parse_glob)]
    pub models: Vec<String>,
    /// Run only scenarios whose id matches this glob (repeatable; `*`, `?`, `[a-z]`, `{a,b}`; `\` quotes).
    #[arg(long = "filter", value_name = "GLOB", value_parser = parse_glob)]
    pub filters: Vec<String>,
    /// Runs of every (model, scenario), at least 1.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub trials: Option<u32>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Folder for run outputs (default: reports).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Step limit where a scenario sets none, at least 1.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// How much repair runs: off, local, or full (local, then ask the model).
    #[arg(long, value_enum)]
    pub repair: Option<RepairMode>,
    /// Run every unit once per arm, paired: built-in `off`, `local`, `full`
    /// (repair modes) or an `[arms.NAME]` of the configuration, comma-separated.
    /// The first arm is the one the others are compared with.
    #[arg(long, value_name = "ARM,...", value_delimiter = ',', conflicts_with = "no_arms")]
    pub arms: Vec<String>,
    /// Run without arms: one run per unit, as `[pipeline]` and --repair say,
    /// whatever `[run] arms` or a model's own `arms` say.
    #[arg(long)]
    pub no_arms: bool,
    /// Put a prompt injection of this style (scenarios/injections/styles.json)
    /// into every scenario of the selected suites, where what it first reads
    /// can carry it, asking to send the project's secrets to an attacker's
    /// host; each runs clean and injected (`ID+injected`). See docs/injection.md.
    #[arg(long, value_name = "STYLE", value_parser = parse_inject_style)]
    pub inject: Option<String>,
    /// Approval mode for every scenario: auto, deny, script or interactive.
    #[arg(long, value_enum)]
    pub approve: Option<ApprovalMode>,
    /// Run only shard i of n (e.g. 2/4): scenarios split by a hash of their id,
    /// the same on every machine; `calltape merge` joins the shards' runs.
    #[arg(long, value_name = "i/n")]
    pub shard: Option<plan::Shard>,
    /// With --shard i/n: what the shard gets of each live model's provider limits
    /// (requests_per_minute, tokens_per_minute, concurrency; default: share).
    /// Simulated and replayed models keep theirs.
    #[arg(long, value_enum, value_name = "HOW", requires = "shard")]
    pub shard_limits: Option<plan::share::ShardLimits>,
    /// Finish an interrupted run: runs only the units of RUN_DIR that did not
    /// complete, with the plan it was started with (other flags are refused,
    /// but --config: the configuration the plan's endpoints are checked against).
    /// RUN_DIR may be reports/latest: the run it copies is resumed.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["suites", "models", "filters", "trials", "seed", "out", "max_steps", "repair", "arms", "no_arms", "inject", "approve", "shard", "shard_limits", "mode", "recordings", "replay_timing", "replay_speed", "strict", "fail_fast", "dry_run", "until_decisive"])]
    pub resume: Option<PathBuf>,
    /// With --resume: use the plan's models even where their base URL, key
    /// variable or headers differ from your configuration (a run folder from
    /// elsewhere could send your keys to its own server; check the listed
    /// differences first).
    #[arg(long, requires = "resume")]
    pub trust_plan: bool,
    /// Let the suites' MCP toolsets start their `command`s on this machine
    /// (without it, a run that would start one lists them and stops, unless
    /// your configuration's `[mcp] allow_commands` names each).
    #[arg(long)]
    pub allow_mcp_commands: bool,
    /// Cassette mode for every model: live, record, replay, or auto (replay what is recorded, record the rest).
    #[arg(long, value_enum)]
    pub mode: Option<CassetteMode>,
    /// Cassette folder (default: the configuration's [cassettes] dir, `recordings`).
    #[arg(long, value_name = "DIR")]
    pub recordings: Option<PathBuf>,
    /// Replayed responses arrive at once (instant) or after their recorded latency (recorded).
    #[arg(long, value_enum)]
    pub replay_timing: Option<ReplayTiming>,
    /// With --replay-timing recorded: 2 replays twice as fast as recorded, 0.5 half as fast.
    #[arg(long, value_name = "FACTOR", value_parser = parse_replay_speed, allow_negative_numbers = true)]
    pub replay_speed: Option<f64>,
    /// Exit 1 when a replay is not exact: a request with no recording, or a recorded interaction left unused.
    #[arg(long)]
    pub strict: bool,
    /// Stop the run at the first request with no recording.
    #[arg(long)]
    pub fail_fast: bool,
    /// Print what the run would cost, per model and in total (units,
    /// requests, tokens, dollars, time), from the cassettes where they
    /// exist, else from simulated or assumed figures; send nothing, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// After the trials, add one trial per scenario at a time to the models
    /// of the comparisons still undecided, until every comparison's paired
    /// interval decides it (an error rate kept at 5% over the looks: see
    /// docs/statistics.md), --max-trials is reached or --budget-usd would be passed.
    #[arg(long)]
    pub until_decisive: bool,
    /// With --until-decisive: the smallest difference in pass rate worth
    /// telling apart (0.05 = five points; default 0: any).
    #[arg(long, value_name = "D", requires = "until_decisive", value_parser = parse_min_diff)]
    pub min_diff: Option<f64>,
    /// With --until-decisive: trials per scenario at most (default 10).
    #[arg(long, value_name = "N", requires = "until_decisive", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_trials: Option<u32>,
    /// With --until-decisive: dollars the whole run may cost at most.
    #[arg(long, value_name = "USD", requires = "until_decisive", value_parser = parse_budget)]
    pub budget_usd: Option<f64>,
    #[command(flatten)]
    pub output: super::OutputArgs,
}

/// `--filter`, `--model`: a glob that can match something, or clap's error saying what is wrong.
fn parse_glob(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("an empty glob matches nothing; give a name or a pattern such as 'read-*'".into());
    }
    crate::core::glob::glob_check(text).map_err(|e| e.to_string())?;
    Ok(text.to_string())
}

/// `--inject`: a style of the bundled library, or clap's error listing them.
fn parse_inject_style(text: &str) -> Result<String, String> {
    crate::scenario::suite_injection::check_style(text).map_err(|e| e.to_string())?;
    Ok(text.to_string())
}

/// `--min-diff`: a difference in pass rate, from 0 up to (not including) 1.
fn parse_min_diff(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(d) if (0.0..1.0).contains(&d) => Ok(d),
        _ => Err(format!("--min-diff is a difference in pass rate from 0 to below 1 (0.05 = five points), got {text}")),
    }
}

/// `--budget-usd`: dollars, zero or more.
fn parse_budget(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
        _ => Err(format!("--budget-usd is an amount of dollars, zero or more, got {text}")),
    }
}

/// `--replay-speed`: a number in the range replays take, or clap's error saying it.
fn parse_replay_speed(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(speed) => check_speed(speed).map_err(|e| e.to_string()),
        Err(_) => Err(check_speed(f64::NAN).unwrap_err().to_string().replace("got NaN", "got text that is not a number")),
    }
}

impl RunArgs {
    /// Applies the flags that change the configuration (everything but the
    /// plan's own approve, mode, filters and shard). Suite paths are made
    /// absolute, so `--resume` finds them from any directory.
    pub fn apply_to(&self, config: &mut Config) {
        if !self.suites.is_empty() {
            config.run.suites = self.suites.clone();
        }
        config.run.suites = config.run.suites.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
        if let Some(t) = self.trials {
            config.run.trials = t;
        }
        if let Some(s) = self.seed {
            config.run.seed = s;
        }
        if let Some(o) = &self.out {
            config.run.out_dir = o.clone();
        }
        if let Some(m) = self.max_steps {
            config.run.max_steps = m;
        }
        if let Some(r) = self.repair {
            config.pipeline.repair = r;
        }
        if !self.arms.is_empty() {
            config.run.arms = self.arms.clone();
        }
        if let Some(style) = &self.inject {
            config.run.inject = Some(crate::scenario::suite_injection::SuiteInjection { style: style.clone(), suites: Vec::new() });
        }
        if self.no_arms {
            // A recorded model's arm with the run's settings made the very
            // exchanges its arm-less run makes: it replays them.
            let same_settings: Vec<Option<String>> = config
                .models
                .iter()
                .map(|m| {
                    let arms = m.arms.as_deref().unwrap_or(&config.run.arms);
                    let same = |arm: &String| {
                        config.arm(arm).is_some_and(|a| {
                            a.repair.unwrap_or(config.pipeline.repair) == config.pipeline.repair
                                && a.strict_tools.is_none_or(|strict| strict == m.strict_tools)
                        })
                    };
                    arms.iter().find(|arm| same(arm)).filter(|_| !m.is_simulated()).map(|arm| format!("{}@{arm}", m.name))
                })
                .collect();
            config.run.arms.clear();
            for (m, recorded_as) in config.models.iter_mut().zip(same_settings) {
                m.arms = None;
                m.recorded_as = recorded_as;
            }
        }
        config.run.fail_fast |= self.fail_fast;
        config.cassettes.strict |= self.strict;
        if let Some(dir) = &self.recordings {
            config.cassettes.dir = dir.clone();
        }
        if let Some(t) = self.replay_timing {
            config.cassettes.timing = t;
        }
        if let Some(s) = self.replay_speed {
            config.cassettes.speed = s;
        }
    }
}

/// Runs the plan (new, or the run folder's to resume), writes the reports and prints the tables.
pub async fn run(args: RunArgs) -> Outcome {
    // The configuration a later resume checks the plan against: the one the
    // user named (with --resume), else the one the run was made with.
    let output = args.output;
    let dry_run = args.dry_run;
    let explicit_config = args.config.as_ref().map(|c| c.display().to_string());
    // Only your own configuration (never a plan) allows MCP commands.
    let (yours, origin) = load_config(args.config.as_deref())?;
    let allowed = if args.allow_mcp_commands { McpAllowed::All } else { McpAllowed::Listed(yours.mcp.allow_commands, origin) };
    let (mut plan, target_dir) = match &args.resume {
        Some(dir) => {
            let (plan, run_dir) = resume_plan(dir, args.config.as_deref(), args.trust_plan)?;
            (plan, Some(run_dir))
        }
        None => (new_plan(args)?, None),
    };
    check_mcp_commands(&plan, &allowed)?;
    check_mcp_tools(&plan)?;
    let suites = plan.suites().map_err(|e| match e {
        plan::PlanError::Load(errors) => {
            for text in errors.iter().map(ToString::to_string) {
                for line in text.lines() {
                    eprintln!("error: {}", crate::report::encode::terminal(line));
                }
            }
            eprintln!("fix them and run again (`calltape check` lists them too)");
            Failure::BadInput(None)
        }
        e => Failure::bad(e),
    })?;
    let config = plan.effective_config();
    if dry_run {
        println!("calltape run --dry-run: nothing is sent, nothing is written");
        for line in super::dry_run::render(&super::dry_run::estimate(&config, &suites)) {
            println!("{line}");
        }
        return Ok(());
    }
    // A run with simulated models says they were computed, not replayed.
    if config.models.iter().any(|m| m.is_simulated()) {
        eprintln!("{}", how_models_answer(&config));
    }
    for (name, fitted) in base_models(&config).filter_map(|m| Some((m.base_name(), m.fitted.as_ref()?))) {
        eprintln!("{name}: a simulator {}", crate::report::encode::terminal(&fitted.describe()));
    }
    for note in simulated_mode_note(&config, plan.mode).into_iter().chain(trials_note(&config)) {
        eprintln!("note: {note}");
    }
    let target = match target_dir {
        Some(dir) => {
            let done = plan::prepare_resume(&dir).map_err(Failure::bad)?;
            eprintln!("resuming {}: {} already done", dir.display(), count(done.len(), "unit"));
            runner::RunTarget::Resume { dir, done }
        }
        None => runner::RunTarget::New(&plan),
    };
    // What this shard asks of each provider: from the plan, so a resume says it again.
    for line in plan.shared_limits_lines() {
        eprintln!("{}", crate::report::encode::terminal(&line));
    }
    let already_done = match &target {
        runner::RunTarget::Resume { done, .. } => done.len() as u64,
        runner::RunTarget::New(_) => 0,
    };
    let started = std::time::Instant::now();
    let folder =
        runner::run(&config, &plan.config_origin, &suites, std::io::stderr().is_terminal(), target).await.map_err(|e| match e {
            // Asked for something this environment cannot give: bad input.
            runner::RunError::NoTerminal(_) | runner::RunError::Setup(_) | runner::RunError::Model { .. } | runner::RunError::NoModels => {
                Failure::bad(e)
            }
            e => Failure::failed(e),
        })?;
    let folder = if plan.until_decisive.is_some() {
        super::until::continue_run(&mut plan, folder, &suites, std::io::stderr().is_terminal()).await?
    } else {
        folder
    };
    // The reports are built from events.jsonl alone: the suites' index can go.
    drop(suites);
    let ran = started.elapsed().as_secs_f64();
    let units_run = folder.units - folder.remaining - already_done;
    // Read before the reports are built: the units' own peak, which stays
    // flat as a suite grows (the reports have a row per unit).
    let peak = peak_memory_mb().map(|mb| format!(", peak memory {mb:.0} MB")).unwrap_or_default();
    let tables = report::render_run(&folder.dir).map_err(Failure::failed)?.tables;
    super::report::write_transcripts(&folder.dir, &tables)?;
    let out_dir = folder.dir.parent().unwrap_or(&config.run.out_dir);
    let latest = runner::update_latest(out_dir, &folder.dir)
        .map_err(|source| Failure::failed(CommandError::Latest { what: "run", dir: folder.dir.clone(), source }))?;
    super::report::print_tables(&tables, &output, &latest)?;
    println!("{} ran in {ran:.2} s ({}){peak}", count(units_run, "unit"), pace(units_run, ran));
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
        return Err(Failure::Interrupted);
    }
    println!("{} → {} (copied to {})", count(folder.units, "unit"), folder.dir.display(), latest.display());
    let cassettes = report_cassettes(&folder.cassettes, &config.cassettes.dir);
    report_errored(&tables).and(cassettes)
}

/// Each configured model once, whatever its arm variants: the first
/// variant stands for its base (they share its provider, mode and trials).
fn base_models(config: &Config) -> impl Iterator<Item = &crate::config::ModelConfig> {
    let mut seen = std::collections::HashSet::new();
    config.models.iter().filter(move |m| seen.insert(m.base_name()))
}

/// The run's first line: how each model is answered. A simulated model is
/// computed in-process from the seed in every mode; the others as their
/// cassette mode says.
fn how_models_answer(config: &Config) -> String {
    let simulated = format!("computed in-process (simulated, seed {})", config.run.seed);
    let mut groups: Vec<(String, usize)> = Vec::new();
    let mut cassettes = false;
    for m in base_models(config) {
        let how = match (m.is_simulated(), config.mode_for(m)) {
            (true, _) => simulated.as_str(),
            (false, CassetteMode::Replay) => "replayed from cassettes",
            (false, CassetteMode::Record) => "live, recorded to cassettes",
            (false, CassetteMode::Auto) => "replayed, or live and recorded where no cassette",
            (false, CassetteMode::Live) => "live",
        };
        cassettes |= !m.is_simulated() && config.mode_for(m) != CassetteMode::Live;
        match groups.iter_mut().find(|(h, _)| h == how) {
            Some((_, count)) => *count += 1,
            None => groups.push((how.to_string(), 1)),
        }
    }
    let parts: Vec<String> = groups.iter().map(|(how, n)| format!("{n} model{} {how}", if *n == 1 { "" } else { "s" })).collect();
    let dir = if cassettes { format!("; cassettes in {}", config.cassettes.dir.display()) } else { String::new() };
    format!("models: {}{dir}", parts.join(", "))
}

/// What `--mode` means for simulated models, when it names a mode they
/// take no part in: they have nothing outside calltape to record or replay.
fn simulated_mode_note(config: &Config, mode: Option<CassetteMode>) -> Option<String> {
    let mode = mode.filter(|m| *m != CassetteMode::Live)?;
    let names: Vec<&str> = base_models(config).filter(|m| m.is_simulated()).map(|m| m.base_name()).collect();
    if names.is_empty() {
        return None;
    }
    let shown = if names.len() > 3 { format!("{} and {} more", names[..3].join(", "), names.len() - 3) } else { names.join(", ") };
    Some(format!(
        "--mode {} does not apply to simulated models ({shown}): they are computed in-process from the seed, never recorded or replayed",
        mode.name()
    ))
}

/// The models that run fewer trials than the run asks (their `max_trials`).
fn trials_note(config: &Config) -> Option<String> {
    let trials = config.run.trials;
    let capped: Vec<String> =
        base_models(config).filter(|m| m.trials(trials) < trials).map(|m| format!("{} runs {}", m.base_name(), m.trials(trials))).collect();
    (!capped.is_empty()).then(|| format!("{} of the {trials} trials asked (their max_trials in the configuration)", capped.join(", ")))
}

/// A run in which some model never answered: its zero is not a score.
#[derive(Debug, thiserror::Error)]
#[error("{} never answered (every unit errored): {}; fix what the lines above say and run again", if models.len() == 1 { "a model" } else { "models" }, models.join(", "))]
pub struct NeverAnswered {
    pub models: Vec<String>,
}

/// Prints each model's errored units (one line a model, the most common
/// reason first) and fails the run when a model answered no unit at all.
fn report_errored(tables: &crate::metrics::Tables) -> Outcome {
    let errored = crate::metrics::errored::errored_models(tables);
    for m in &errored {
        let line = format!(
            "{}: {} of {} units errored and are not in its pass rates; most often {} ({}), e.g. {}",
            m.model,
            m.errored,
            m.errored + m.answered,
            m.kind.describe(),
            m.kind_count,
            m.example
        );
        eprintln!("error: {}", crate::report::encode::terminal(&line));
    }
    let never: Vec<String> = errored.into_iter().filter(|m| m.answered == 0).map(|m| m.model).collect();
    if never.is_empty() {
        Ok(())
    } else {
        Err(Failure::failed(NeverAnswered { models: never }))
    }
}

/// The process's peak resident memory so far, where the system tells it
/// (Linux: `VmHWM` in /proc/self/status).
pub fn peak_memory_mb() -> Option<f64> {
    vm_hwm_mb(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// The `VmHWM` line of a /proc status text, in MB.
fn vm_hwm_mb(status: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb / 1024.0)
}

/// Which MCP server commands a run may start.
enum McpAllowed {
    /// `--allow-mcp-commands`.
    All,
    /// Those your configuration lists (`[mcp] allow_commands`), and where it is.
    Listed(Vec<String>, String),
}

/// A suite from elsewhere is data: its MCP toolsets' commands would run
/// programs on this machine, so a run that would start any that you have
/// not allowed lists them and stops, before anything is started or sent.
fn check_mcp_commands(plan: &plan::RunPlan, allowed: &McpAllowed) -> Result<(), Failure> {
    let McpAllowed::Listed(listed, origin) = allowed else { return Ok(()) };
    let config = plan.effective_config();
    if config.models.iter().all(|m| config.mode_for(m) == crate::core::modes::CassetteMode::Replay) {
        return Ok(());
    }
    let refused: Vec<(PathBuf, String)> =
        crate::mcp::lock::commands(&config.run.suites).into_iter().filter(|(_, command)| !listed.contains(command)).collect();
    if refused.is_empty() {
        return Ok(());
    }
    eprintln!("error: the suites' MCP toolsets would start these programs on this machine:");
    for (file, command) in &refused {
        eprintln!("  {}: {}", file.display(), crate::report::encode::terminal(command));
    }
    eprintln!("nothing was run: a suite from elsewhere could run any program; your configuration ({origin}) allows none of these.");
    let words: Vec<String> = std::env::args().skip(1).map(|a| shell_word(&a)).collect();
    eprintln!("if you trust these commands: calltape {} --allow-mcp-commands", words.join(" "));
    // A JSON string is a one-line TOML basic string: the advice stays one line.
    let listed: Vec<String> = refused.iter().map(|(_, c)| serde_json::to_string(c).unwrap_or_default()).collect();
    eprintln!("or allow them in your calltape.toml: [mcp] allow_commands = [{}]", listed.join(", "));
    Err(Failure::BadInput(None))
}

/// Lists the tools of the suites' MCP servers and checks them against their
/// locks (writing missing ones) when some model reaches the servers: in
/// replay the locks alone are used and no server is started.
fn check_mcp_tools(plan: &plan::RunPlan) -> Result<(), Failure> {
    let config = plan.effective_config();
    if config.models.iter().all(|m| config.mode_for(m) == crate::core::modes::CassetteMode::Replay) {
        return Ok(());
    }
    match crate::mcp::lock::sync_locks(&config.run.suites) {
        Ok(notes) => {
            for note in notes.iter().filter(|n| n.written) {
                eprintln!("mcp: wrote {} ({} tools listed by its server)", note.lock.display(), note.tools);
            }
            Ok(())
        }
        Err(errors) => {
            for e in errors {
                eprintln!("error: {}", crate::report::encode::terminal(&e.to_string()));
            }
            Err(Failure::BadInput(None))
        }
    }
}

/// What `--repair X` did on models with arms: which arm each runs, who is
/// left out, and how to run without arms instead.
fn repair_arm_notes(repair: RepairMode, picked: &crate::config::RepairArms) -> Vec<String> {
    let repair = repair.as_str();
    let mut by_arm: Vec<(&str, usize)> = Vec::new();
    for (_, arm) in &picked.arms {
        match by_arm.iter_mut().find(|(a, _)| a == arm) {
            Some((_, n)) => *n += 1,
            None => by_arm.push((arm, 1)),
        }
    }
    let mut notes = Vec::new();
    if !by_arm.is_empty() {
        let arms: Vec<String> = by_arm.iter().map(|(a, n)| format!("`{a}` for {}", count(*n, "model"))).collect();
        notes.push(format!(
            "--repair {repair} with arms runs the arm that repairs {repair}: {}; `--no-arms --repair {repair}` runs without arms",
            arms.join(", ")
        ));
    }
    if !picked.left_out.is_empty() {
        notes.push(format!("--repair {repair}: left out, no arm repairs {repair}: {}", crate::config::describe_arms(&picked.left_out)));
    }
    notes
}

/// The plan of a new run: the configuration with the flags applied, checked.
fn new_plan(args: RunArgs) -> Result<plan::RunPlan, Failure> {
    let (mut config, origin) = load_config(args.config.as_deref())?;
    args.apply_to(&mut config);
    config.cassettes.validate().map_err(|e| Failure::bad(CommandError::Flag { flag: "--replay-speed", source: e.into() }))?;
    config.select_models(&args.models).map_err(Failure::bad)?;
    if let (Some(repair), false) = (args.repair, args.no_arms) {
        let picked = config.keep_repair_arm(repair).map_err(Failure::bad)?;
        for note in repair_arm_notes(repair, &picked) {
            eprintln!("note: {note}");
        }
    }
    config.expand_arms().map_err(Failure::bad)?;
    config.keep_variants(&args.models);
    if let (Some(repair), true) = (args.repair, config.models.is_empty()) {
        return Err(Failure::bad(format!(
            "--model {} names other arms than the one --repair {} picks; name the arm alone (--model MODEL@ARM) or the model with --repair",
            args.models.join(" --model "),
            repair.as_str()
        )));
    }
    let mut plan = plan::RunPlan {
        config,
        config_origin: origin,
        approve: args.approve,
        mode: args.mode,
        filters: args.filters,
        shard: None,
        shard_limits: None,
        until_decisive: args.until_decisive.then(|| plan::UntilDecisive {
            min_diff: args.min_diff.unwrap_or(0.0),
            max_trials: args.max_trials.unwrap_or(super::until::DEFAULT_MAX_TRIALS),
            budget_usd: args.budget_usd,
            looked_at: 0,
            decided: Vec::new(),
        }),
    };
    if let Some(shard) = args.shard {
        plan = plan.into_shard(shard, args.shard_limits.unwrap_or_default());
    }
    plan.check().map_err(Failure::bad)?;
    Ok(plan)
}

/// The plan of a run to resume and the folder to resume it in. The plan is
/// someone's file: it is checked field by field, and where it would send
/// requests or keys elsewhere than the user's configuration says, the
/// differences are listed and the resume is refused unless `trust` is set.
/// Nothing is written before that check.
fn resume_plan(dir: &Path, config: Option<&Path>, trust: bool) -> Result<(plan::RunPlan, PathBuf), Failure> {
    let (yours, origin) = load_config(config)?;
    let trusted = |plan: &plan::RunPlan, dir: &Path| {
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
        Err(Failure::BadInput(None))
    };
    trusted(&plan::RunPlan::load(dir).map_err(Failure::bad)?, dir)?;
    let (run_dir, note) = run_folder::resume_folder(dir).map_err(Failure::bad)?;
    // Notes quote folder names and a plan from elsewhere: escaped for the terminal.
    if let Some(note) = note {
        eprintln!("{}", crate::report::encode::terminal_lines(&note));
    }
    let mut plan = plan::RunPlan::load(&run_dir).map_err(Failure::bad)?;
    trusted(&plan, &run_dir)?;
    for note in plan::trust::restore_secrets(&mut plan.config, &yours) {
        eprintln!("warning: {}", crate::report::encode::terminal_lines(&note));
    }
    for note in plan.relocate_suites() {
        eprintln!("note: {}", crate::report::encode::terminal_lines(&note));
    }
    Ok((plan, run_dir))
}

/// Lines shown of each kind of cassette message; the rest are in events.jsonl.
const CASSETTE_LINES: usize = 10;

/// Prints what the cassettes did; an error among it (a cassette that could
/// not be written, or with --strict an inexact replay) fails the run.
fn report_cassettes(summary: &CassetteSummary, dir: &Path) -> Outcome {
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
        Err(Failure::Failed(None))
    }
}

/// How fast units ran: units a second, or, slower than one a second (live
/// models on a CPU), seconds a unit, which "0 units/s" would hide.
fn pace(units: u64, secs: f64) -> String {
    let rate = units as f64 / secs.max(1e-9);
    if units == 0 || rate >= 1.0 {
        format!("{rate:.0} units/s")
    } else {
        format!("{:.1} s a unit", secs / units as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_run_says_seconds_a_unit_not_zero_units_a_second() {
        assert_eq!(pace(14_796, 2.0), "7398 units/s");
        assert_eq!(pace(66, 2492.11), "37.8 s a unit");
        assert_eq!(pace(0, 3.0), "0 units/s");
    }

    #[test]
    fn flags_replace_what_they_name_and_keep_the_rest() {
        let mut config = Config::parse("", "test.toml").expect("an empty configuration");
        let before = config.clone();
        let args = RunArgs {
            suites: vec!["no/such/suite".into()],
            trials: Some(3),
            seed: Some(7),
            max_steps: Some(3),
            repair: Some(RepairMode::Off),
            strict: true,
            replay_speed: Some(2.0),
            ..RunArgs::default()
        };
        args.apply_to(&mut config);
        // A path that does not exist stays as given (the suite loader names it).
        assert_eq!(config.run.suites, vec![PathBuf::from("no/such/suite")]);
        assert_eq!(config.run.trials, 3);
        assert_eq!((config.run.seed, config.run.max_steps), (7, 3));
        assert_eq!(config.pipeline.repair, RepairMode::Off);
        assert!(config.cassettes.strict);
        assert_eq!(config.cassettes.speed, 2.0);
        assert_eq!(config.run.out_dir, before.run.out_dir);
        assert_eq!(config.cassettes.dir, before.cassettes.dir);
        assert_eq!(config.run.fail_fast, before.run.fail_fast);
    }

    #[test]
    fn existing_suites_become_absolute() {
        let mut config = Config::parse("", "test.toml").expect("an empty configuration");
        RunArgs { suites: vec!["src".into()], ..RunArgs::default() }.apply_to(&mut config);
        assert!(config.run.suites[0].is_absolute());
        assert!(config.run.suites[0].ends_with("src"));
    }

    #[test]
    fn the_first_line_says_how_each_model_is_answered() {
        let mut config = Config::parse(crate::config::EMBEDDED_DEFAULT, "embedded").unwrap();
        config.expand_arms().unwrap();
        assert_eq!(
            how_models_answer(&config),
            "models: 10 models computed in-process (simulated, seed 42), 3 models replayed from cassettes; cassettes in recordings"
        );
        assert_eq!(simulated_mode_note(&config, Some(CassetteMode::Live)), None);
        let note = simulated_mode_note(&config, Some(CassetteMode::Record)).unwrap();
        assert!(
            note.starts_with("--mode record does not apply to simulated models (sim-strong, sim-cheap-types, sim-cheap-syntax and 7 more)")
        );
        assert_eq!(trials_note(&config), None, "one trial asked: no model runs fewer");
        config.run.trials = 3;
        let note = trials_note(&config).unwrap();
        assert!(
            note.starts_with(
                "qwen2.5-coder-0.5b-local runs 1, qwen2.5-coder-0.5b-local-text runs 1, qwen2.5-coder-1.5b-local runs 1 of the 3 trials"
            ),
            "{note}"
        );
    }

    #[test]
    fn peak_memory_is_read_from_the_vm_hwm_line() {
        let status = "Name:\tcalltape\nVmPeak:\t  999 kB\nVmHWM:\t   20480 kB\nVmRSS:\t 1 kB\n";
        assert_eq!(vm_hwm_mb(status), Some(20.0));
        assert_eq!(vm_hwm_mb("Name:\tx\n"), None);
        assert_eq!(vm_hwm_mb("VmHWM:\tlots kB\n"), None);
    }

    #[test]
    fn replay_speed_flag_says_what_is_wrong() {
        assert_eq!(parse_replay_speed(" 2 "), Ok(2.0));
        assert!(parse_replay_speed("fast").unwrap_err().contains("got text that is not a number"));
        assert!(parse_replay_speed("0").unwrap_err().contains("got 0.0"));
    }
}
