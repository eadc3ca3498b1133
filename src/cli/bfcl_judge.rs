//! `calltape bfcl-judge`: answers to BFCL scenarios judged (or timed) with the BFCL checker.

use std::path::PathBuf;

use super::{load_suites, CommandError, Failure, Outcome};
use crate::bfcl;

/// The flags of `calltape bfcl-judge`.
#[derive(clap::Args, Debug)]
pub struct BfclJudgeArgs {
    /// Suite folder holding the BFCL scenarios answered (repeatable).
    #[arg(long = "suite", required = true)]
    pub suites: Vec<PathBuf>,
    /// Answers, one a line: {"id": "...", "calls": [{"tool_name": {arguments}}]} (default: standard input).
    pub answers: Option<PathBuf>,
    /// Time the checker over the answers this many rounds and print the per-answer mean as JSON, instead of verdicts.
    #[arg(long, value_name = "ROUNDS")]
    pub time: Option<usize>,
}

/// Prints one verdict a line (or the timing), and the counts on stderr.
pub fn bfcl_judge(args: BfclJudgeArgs) -> Outcome {
    let suites = load_suites(&args.suites).map_err(|_| Failure::BadInput(None))?;
    let input: Box<dyn std::io::BufRead> = match &args.answers {
        Some(path) => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|source| Failure::bad(CommandError::Read { path: path.clone(), source }))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    if let Some(rounds) = args.time {
        let timing = bfcl::outputs::time_lines(&suites, input, rounds).map_err(Failure::bad)?;
        println!("{}", serde_json::to_string(&timing).unwrap_or_default());
        return Ok(());
    }
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let counts = bfcl::outputs::judge_lines(&suites, input, stdout).map_err(Failure::bad)?;
    eprintln!("{} valid, {} invalid", counts.valid, counts.invalid);
    Ok(())
}
