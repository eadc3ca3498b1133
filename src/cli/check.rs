//! `calltape check`: loads suites and lists every problem.

use std::path::PathBuf;

use super::{load_config, load_suites, Failure, Outcome};

/// Checks the suites at `paths` (default: the configured ones); fails listing every problem.
pub fn check(paths: Vec<PathBuf>, config: Option<PathBuf>) -> Outcome {
    let paths = if paths.is_empty() { load_config(config.as_deref())?.0.run.suites } else { paths };
    let suites = load_suites(&paths).map_err(|_| Failure::Failed(None))?;
    for s in &suites {
        println!("ok: {} ({} scenarios)", s.name, s.len());
    }
    Ok(())
}
