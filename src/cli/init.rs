//! `calltape init [DIR]`: writes a starting project (configuration and an
//! example suite) and says what to run next.

use std::path::PathBuf;

use super::{shell_word, Failure, Outcome};
use crate::init::InitError;

/// Files in the way, with the two commands that go on from there.
#[derive(Debug, thiserror::Error)]
#[error("{source}\nto replace them: calltape init --force {dir}\nor start elsewhere: calltape init OTHER_FOLDER")]
struct Refused {
    #[source]
    source: InitError,
    /// The folder as one shell word.
    dir: String,
}

/// The flags of `calltape init`.
#[derive(clap::Args, Debug, Default)]
pub struct InitArgs {
    /// The project folder (created if missing; default: the current folder).
    pub dir: Option<PathBuf>,
    /// Replace files the template would write that already exist.
    #[arg(long)]
    pub force: bool,
}

/// Writes the template and prints the next steps, each a command that runs as printed.
pub fn init(args: InitArgs) -> Outcome {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let written = crate::init::write_project(&dir, args.force).map_err(|source| match source {
        InitError::Exists { .. } => Failure::bad(Refused { source, dir: shell_word(&dir.display().to_string()) }),
        other => Failure::bad(other),
    })?;
    for path in &written {
        println!("wrote {}", path.display());
    }
    println!();
    println!("Next:");
    if dir != std::path::Path::new(".") {
        println!("  cd {}", shell_word(&dir.display().to_string()));
    }
    println!("  calltape check     # validates scenarios/example");
    println!("  calltape run       # two simulated models: no key, no network; tables here, files in reports/latest/");
    println!();
    println!("Then your own model: export OPENAI_API_KEY=... (any OpenAI-compatible API), uncomment the");
    println!("\"my-model\" block in calltape.toml (base_url, model_id, price), and run `calltape run` again.");
    Ok(())
}
