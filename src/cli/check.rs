//! `calltape check`: loads suites and lists every problem.

use std::path::PathBuf;

use super::{load_config, load_suites, Failure, Outcome};

/// Checks the suites at `paths` (default: the configured ones); fails listing every problem.
pub fn check(paths: Vec<PathBuf>, config: Option<PathBuf>) -> Outcome {
    let paths = if paths.is_empty() { load_config(config.as_deref())?.0.run.suites } else { paths };
    let suites = load_suites(&paths).map_err(|_| Failure::Failed(None))?;
    let mut problems = 0;
    for s in &suites {
        // A stateful scenario's reference solution must meet its own expectations.
        let unmet: Vec<String> = s
            .scenarios()
            .filter_map(|scenario| match scenario {
                Ok(sc) => crate::check::reference_problem(&sc).map(|p| format!("{}: scenario {:?}: {p}", sc.origin, sc.id)),
                Err(e) => Some(e.to_string()),
            })
            .collect();
        for p in &unmet {
            super::print_error(p);
        }
        problems += unmet.len();
        if unmet.is_empty() {
            // The suite's name is its folder's: outside text, escaped for the terminal.
            println!("ok: {} ({})", crate::report::encode::terminal(&s.name), crate::core::plural::count(s.len(), "scenario"));
        }
    }
    match problems {
        0 => Ok(()),
        _ => Err(Failure::Failed(None)),
    }
}
