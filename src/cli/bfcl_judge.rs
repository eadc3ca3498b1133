//! `calltape bfcl-judge`: answers to BFCL scenarios judged (or timed) with the BFCL checker.

use std::path::PathBuf;

use super::{load_suites, CommandError, Failure, Outcome};
use crate::bfcl;

/// The flags of `calltape bfcl-judge`.
#[derive(clap::Args, Debug)]
pub struct BfclJudgeArgs {
    /// Suite folder holding the BFCL scenarios answered (repeatable).
    #[arg(long = "suite", required_unless_present = "world")]
    pub suites: Vec<PathBuf>,
    /// Answers, one a line: {"id": "...", "calls": [{"tool_name": {arguments}}]} (default: standard input).
    pub answers: Option<PathBuf>,
    /// Time the checker over the answers this many rounds and print the per-answer mean as JSON, instead of verdicts.
    #[arg(long, value_name = "ROUNDS")]
    pub time: Option<usize>,
    /// Execute multi-turn trajectories on calltape's BFCL API classes instead:
    /// each line {"involved_classes", "initial_config", "long_context", "turns": [["cd(folder='x')", ...]]}
    /// prints {"results": [[...]], "states": [[[class, {attr: value}]]]} (for the agreement script).
    #[arg(long, conflicts_with_all = ["time", "suites"])]
    pub world: bool,
}

/// Prints one verdict a line (or the timing), and the counts on stderr.
pub fn bfcl_judge(args: BfclJudgeArgs) -> Outcome {
    let input: Box<dyn std::io::BufRead> = match &args.answers {
        Some(path) => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|source| Failure::bad(CommandError::Read { path: path.clone(), source }))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    if args.world {
        return trace_lines(input);
    }
    let suites = load_suites(&args.suites).map_err(|_| Failure::BadInput(None))?;
    if let Some(rounds) = args.time {
        let timing = crate::bfcl_outputs::time_lines(&suites, input, rounds).map_err(Failure::bad)?;
        println!("{}", serde_json::to_string(&timing).unwrap_or_default());
        return Ok(());
    }
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let counts = crate::bfcl_outputs::judge_lines(&suites, input, stdout).map_err(Failure::bad)?;
    eprintln!("{} valid, {} invalid", counts.valid, counts.invalid);
    Ok(())
}

/// `--world`: one trace a line; a line that cannot run prints {"error": ...}.
fn trace_lines(input: Box<dyn std::io::BufRead>) -> Outcome {
    use std::io::{BufRead, Write};
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Failure::bad(CommandError::Stdin(e)))?;
        if line.trim().is_empty() {
            continue;
        }
        let traced = serde_json::from_str::<bfcl::multi_turn::Trajectory>(&line)
            .map_err(|e| format!("line {}: {e}", n + 1))
            .and_then(|t| bfcl::multi_turn::trace(&t).map_err(|e| e.to_string()));
        let json = match traced {
            Ok(trace) => serde_json::to_string(&trace),
            Err(e) => serde_json::to_string(&serde_json::json!({ "error": e })),
        };
        // A closed pipe ends the output; nothing is left to report to.
        if writeln!(out, "{}", json.unwrap_or_default()).is_err() {
            break;
        }
    }
    Ok(())
}
