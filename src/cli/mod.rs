//! The commands of the `calltape` binary, one file each: each takes its
//! parsed flags, does the command's work through the library, prints what the
//! user reads, and returns a [`Failure`] that [`Failure::exit_code`] — the one
//! place — turns into an exit code. The binary only parses and dispatches.

pub mod bfcl_judge;
pub mod cassettes;
pub mod check;
pub mod compare;
pub mod completions;
pub mod diff;
pub mod dry_run;
pub mod import;
pub mod init;
pub mod repair;
pub mod report;
pub mod run;
pub mod show;
pub mod sim;
pub mod until;

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::exit_codes;

/// Any error a command hands back to be printed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a command did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// Bad input ([`exit_codes::BAD_INPUT`]): the error to print, or `None`
    /// when the command printed its problems already (a list of them).
    BadInput(Option<BoxError>),
    /// The command ran and found failure ([`exit_codes::FAILURE`]); as above.
    Failed(Option<BoxError>),
    /// Stopped by Ctrl-C ([`exit_codes::INTERRUPTED`]); the advice to resume is printed.
    Interrupted,
}

impl Failure {
    /// Bad input, with the error that says what and where.
    pub fn bad(error: impl Into<BoxError>) -> Failure {
        Failure::BadInput(Some(error.into()))
    }

    /// A failure found by the command, with the error that says what.
    pub fn failed(error: impl Into<BoxError>) -> Failure {
        Failure::Failed(Some(error.into()))
    }

    /// The error still to be printed, if any.
    pub fn error(&self) -> Option<&BoxError> {
        match self {
            Failure::BadInput(e) | Failure::Failed(e) => e.as_ref(),
            Failure::Interrupted => None,
        }
    }

    /// The process's exit code: the one place a failure becomes a number.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::BadInput(_) => exit_codes::BAD_INPUT,
            Failure::Failed(_) => exit_codes::FAILURE,
            Failure::Interrupted => exit_codes::INTERRUPTED,
        }
    }
}

/// What a command returns.
pub type Outcome = Result<(), Failure>;

/// The exit code of a command's outcome, after printing its error on stderr.
pub fn finish(outcome: Outcome) -> i32 {
    match outcome {
        Ok(()) => exit_codes::SUCCESS,
        Err(failure) => {
            if let Some(e) = failure.error() {
                print_error(e);
            }
            failure.exit_code()
        }
    }
}

/// Problems a command finds in its own input, beside those of the library's modules.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot read schema {}: {source}", path.display())]
    ReadSchema { path: PathBuf, source: std::io::Error },
    #[error("{}: not JSON: {source}", path.display())]
    NotJson { path: PathBuf, source: serde_json::Error },
    #[error("cannot read standard input: {0}")]
    Stdin(#[source] std::io::Error),
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{} is not a run folder: it has no events.jsonl", dir.display())]
    NotARunFolder { dir: PathBuf },
    #[error("the two runs share no model: nothing to compare")]
    NoSharedModel,
    #[error("{} is not a folder of cassettes (record some with `calltape run --mode record`)", dir.display())]
    NoCassettes { dir: PathBuf },
    /// `latest` could not be updated; the run folder itself is complete.
    #[error("{source}\nthe {what} itself is complete in {}", dir.display())]
    Latest { what: &'static str, dir: PathBuf, source: crate::run_folder::FolderError },
    /// A flag's value made the configuration unusable; the source says how.
    #[error("{flag}: {source}")]
    Flag { flag: &'static str, source: BoxError },
    /// A file named in a flag held something unusable.
    #[error("{}: {source}", path.display())]
    InFile { path: PathBuf, source: BoxError },
}

/// The configuration and where it came from: `--config`, ./calltape.toml, or the embedded default.
pub fn load_config(path: Option<&Path>) -> Result<(Config, String), Failure> {
    Config::discover(path).map_err(Failure::bad)
}

/// Loads suites, printing every problem found (the list, then how to go on).
pub fn load_suites(paths: &[PathBuf]) -> Result<Vec<crate::scenario::Suite>, Vec<crate::scenario::LoadError>> {
    crate::scenario::load_suites(paths).inspect_err(|errors| print_load_errors(errors))
}

fn print_load_errors(errors: &[crate::scenario::LoadError]) {
    for e in errors {
        print_error(&e);
    }
    eprintln!("{} found; fix them and run again (`calltape check` lists them too)", crate::core::plural::count(errors.len(), "problem"));
}

/// Prints an error on stderr, a line at a time, with control characters
/// escaped: error texts may quote what a server, a model or a file said.
pub fn print_error(e: &dyn std::fmt::Display) {
    eprintln!("error: {}", crate::report::encode::terminal_lines(&e.to_string()));
}

/// The width printed lines fit in: `COLUMNS` when set to a number, else
/// the terminal's width, else (a pipe, a file) 100.
pub fn terminal_width() -> usize {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|c| *c > 0);
    columns.or_else(|| console::Term::stdout().size_checked().map(|(_, cols)| usize::from(cols))).unwrap_or(DEFAULT_WIDTH)
}

/// The width of output that is not a terminal's, unless `COLUMNS` says otherwise.
pub const DEFAULT_WIDTH: usize = 100;

/// How much `run`, `report` and `compare` print on the terminal.
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub struct OutputArgs {
    /// Print every table and every list in full, not only the core figures and the largest changes.
    #[arg(long)]
    pub all: bool,
    /// Do not fit lines to the terminal's width (full names, every column).
    #[arg(long)]
    pub wide: bool,
}

impl OutputArgs {
    /// The terminal view these flags ask for, coloured if stdout is a terminal.
    pub fn view(&self) -> crate::report::terminal::View {
        crate::report::terminal::View {
            all: self.all,
            width: if self.wide { usize::MAX } else { terminal_width() },
            paint: crate::report::paint::Paint::for_stdout(),
        }
    }
}

pub use crate::quote::shell_word;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_has_its_documented_code() {
        assert_eq!(finish(Ok(())), 0);
        assert_eq!(Failure::BadInput(None).exit_code(), 2);
        assert_eq!(Failure::failed(CommandError::NoSharedModel).exit_code(), 1);
        assert_eq!(Failure::Interrupted.exit_code(), 130);
    }

    #[test]
    fn command_errors_keep_their_source() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = CommandError::Read { path: "a b.json".into(), source: io };
        assert_eq!(e.to_string(), "cannot read a b.json: gone");
        let source = std::error::Error::source(&e).expect("a source");
        assert_eq!(source.to_string(), "gone");
    }

    #[test]
    fn shell_words_run_as_printed() {
        assert_eq!(shell_word("reports/20261123-093012-114"), "reports/20261123-093012-114");
        assert_eq!(shell_word("my runs/it's"), "'my runs/it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
