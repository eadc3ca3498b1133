//! `calltape repair`: one call's arguments, or a batch of them, through the
//! repair pipeline; prints what it did as JSON (or times it). Exits 1 when
//! an outcome is still not valid (invalid, or truncated: cut short and only
//! closed by guesswork), so a script can tell without reading the JSON.

use std::path::PathBuf;

use super::{load_config, CommandError, Failure, Outcome};
use crate::core::modes::RepairMode;
use crate::pipeline::RepairRules;
use crate::standalone;

/// The flags of `calltape repair`.
#[derive(clap::Args, Debug)]
pub struct RepairArgs {
    /// The tool's parameters schema (JSON); without it any object is accepted.
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// One object a line, `{"args": "<text>", "schema": {...}?}`; prints one result a line
    /// (exit 1 when any line is still invalid or unreadable).
    #[arg(long, conflicts_with = "arguments")]
    pub batch: Option<PathBuf>,
    /// How much repair to apply.
    #[arg(long, value_enum, default_value = "local")]
    pub repair: RepairMode,
    /// With --batch: time every line this many rounds in-process (after 1 s
    /// of warm-up) and print per-call means as JSON, instead of the reports:
    /// the whole local pipeline, parsing alone, and serde_json + jsonschema alone.
    #[arg(long, requires = "batch", value_name = "ROUNDS")]
    pub time: Option<usize>,
    /// Configuration whose [pipeline.aliases] and [pipeline.defaults] apply.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The arguments text (default: read from standard input).
    pub arguments: Option<String>,
}

/// Repairs the arguments (or every line of the batch) and prints the report.
pub fn repair(args: RepairArgs) -> Outcome {
    let (config, _) = load_config(args.config.as_deref())?;
    let rules = RepairRules { aliases: config.pipeline.aliases, defaults: config.pipeline.defaults };
    let schema = match &args.schema {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|source| Failure::bad(CommandError::ReadSchema { path: path.clone(), source }))?;
            Some(
                serde_json::from_str::<serde_json::Value>(&text)
                    .map_err(|source| Failure::bad(CommandError::NotJson { path: path.clone(), source }))?,
            )
        }
        None => None,
    };
    if let Some(batch) = &args.batch {
        let file = std::fs::File::open(batch).map_err(|source| Failure::bad(CommandError::Read { path: batch.clone(), source }))?;
        if let Some(rounds) = args.time {
            let timing = standalone::time_batch(std::io::BufReader::new(file), schema.as_ref(), &rules, rounds)
                .map_err(|e| Failure::bad(CommandError::InFile { path: batch.clone(), source: e.into() }))?;
            println!("{}", serde_json::to_string(&timing).unwrap_or_default());
            return Ok(());
        }
        let stdout = std::io::stdout().lock();
        let counts =
            standalone::run_batch(std::io::BufReader::new(file), std::io::BufWriter::new(stdout), schema.as_ref(), args.repair, &rules)
                .map_err(Failure::bad)?;
        eprintln!(
            "{} valid, {} repaired, {} invalid, {}",
            counts.valid,
            counts.repaired,
            counts.invalid,
            crate::core::plural::count(counts.bad_lines, "unreadable line")
        );
        if counts.invalid + counts.bad_lines > 0 {
            return Err(Failure::Failed(None));
        }
        return Ok(());
    }
    let text = match args.arguments {
        Some(t) => t,
        None => std::io::read_to_string(std::io::stdin()).map_err(|e| Failure::bad(CommandError::Stdin(e)))?,
    };
    let tool = standalone::tool_for_schema(schema.as_ref()).map_err(Failure::bad)?;
    let report = standalone::repair_report(&text, &tool, args.repair, &rules);
    println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    match report.get("outcome").and_then(serde_json::Value::as_str) {
        Some("valid" | "repaired") => Ok(()),
        outcome => Err(Failure::failed(format!(
            "the arguments are still not valid (outcome {}); \"errors\" above says why",
            outcome.unwrap_or("unknown")
        ))),
    }
}
