//! `calltape import`: a dataset turned into a calltape suite.

use std::path::PathBuf;

use super::{Failure, Outcome};
use crate::bfcl;

/// Where `calltape import` reads from.
#[derive(clap::Subcommand, Debug)]
pub enum ImportSource {
    /// A Berkeley Function Calling Leaderboard data file (single-turn or multi-turn categories) and its answer key.
    Bfcl(ImportBfclArgs),
}

/// The flags of `calltape import bfcl`.
#[derive(clap::Args, Debug)]
pub struct ImportBfclArgs {
    /// The BFCL data file, e.g. BFCL_v4_simple_python.json (JSON lines).
    pub data: PathBuf,
    /// Its answer file (default: possible_answer/<same name> beside it).
    #[arg(long)]
    pub answers: Option<PathBuf>,
    /// Multi-turn categories: the folder of BFCL's function docs (default: multi_turn_func_doc/ beside the data file).
    #[arg(long, value_name = "DIR")]
    pub func_docs: Option<PathBuf>,
    /// Suite folder to write <category>.jsonl into (default: scenarios/bfcl-<category>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Import only the first N entries.
    #[arg(long, conflicts_with = "sample")]
    pub limit: Option<usize>,
    /// Import N entries drawn at random (deterministic for a --seed), kept in file order.
    #[arg(long)]
    pub sample: Option<usize>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 42, requires = "sample")]
    pub seed: u64,
}

/// Imports the data file into a suite folder.
pub fn import(source: ImportSource) -> Outcome {
    let ImportSource::Bfcl(args) = source;
    let selection = match (args.limit, args.sample) {
        (Some(n), _) => bfcl::import::Selection::First(n),
        (None, Some(n)) => bfcl::import::Selection::Sample { n, seed: args.seed },
        (None, None) => bfcl::import::Selection::All,
    };
    let keys = bfcl::import::KeyFiles { answers: args.answers.as_deref(), func_docs: args.func_docs.as_deref() };
    let summary = bfcl::import::import_file_with(&args.data, &keys, args.out.as_deref(), selection).map_err(Failure::bad)?;
    println!("imported {} of {} {} entries → {}", summary.written, summary.entries, summary.category, summary.path.display());
    Ok(())
}
