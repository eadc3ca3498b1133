//! The README and docs are executable: every shell block in `README.md` and
//! `docs/*.md` runs here, through the built binary, and a doc that drifts
//! from the binary fails `cargo test`.
//!
//! How a block is read, by its fence:
//! - ` ```sh ` — the block runs as one `sh -eu` script (so `cd`, `export`,
//!   pipes and loops work as written) and must exit 0;
//! - ` ```console ` — a transcript: each `$ COMMAND` runs, and the lines
//!   after it, up to the next `$`, must match its standard output (snapbox
//!   patterns: `[..]` inside a line, `...` for any lines). A command whose
//!   comment says `# exit N` must exit N, others 0;
//! - ` ```text ` and other languages — synopses and file contents, not run.
//!
//! A `<!-- not run: REASON -->` line just before a fence lists the block
//! as an *ignored* test named with the reason, so `cargo test` shows what
//! it did not run and why; the quick start (`tests/quickstart.rs`) is
//! listed the same way. A block that needs `../shared` is ignored with that
//! reason when the checkout has none beside it.
//!
//! Each document runs in its own project folder, as a user's would be after
//! the quick start: the repository's `calltape.toml`, `scenarios/`,
//! `recordings/` and `tests/fixtures/` copied in, the bundled default run in
//! `reports/latest`, and a copy of it in `baseline`. Its blocks run in order
//! in that folder. `calltape` is the built binary on the PATH;
//! `cargo run [--release] -- ARGS` means `calltape ARGS`; a bare
//! `calltape run` prints the shared default run (tests/common/default_run.rs:
//! the same command, run once for every test binary) instead of running it
//! again; `cargo test` is this suite, already running.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};
use snapbox::IntoData;

/// One fenced block of a document, as this test reads it.
#[derive(Debug, Clone)]
struct Block {
    /// `README.md:249`: the document and the line of the opening fence.
    place: String,
    kind: Kind,
    /// The lines between the fences.
    body: String,
}

#[derive(Debug, Clone)]
enum Kind {
    Script,
    Transcript,
    NotRun(String),
}

/// The shell blocks of a document, in order.
fn blocks(doc: &str, text: &str, shared_present: bool) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut not_run: Option<String> = None;
    let mut in_quickstart = false;
    while let Some((number, line)) = lines.next() {
        let trimmed = line.trim();
        if trimmed == "<!-- quickstart:begin -->" {
            in_quickstart = true;
        } else if trimmed == "<!-- quickstart:end -->" {
            in_quickstart = false;
        }
        if let Some(reason) = trimmed.strip_prefix("<!-- not run:").and_then(|r| r.strip_suffix("-->")) {
            not_run = Some(reason.trim().to_string());
            continue;
        }
        let Some(lang) = trimmed.strip_prefix("```") else {
            if !trimmed.is_empty() {
                not_run = None;
            }
            continue;
        };
        let mut body = String::new();
        for (_, inner) in lines.by_ref() {
            if inner.trim_start().starts_with("```") {
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        let kind = match lang.trim() {
            "sh" => Kind::Script,
            "console" => Kind::Transcript,
            _ => {
                not_run = None;
                continue;
            }
        };
        let kind = if let Some(reason) = not_run.take() {
            Kind::NotRun(reason)
        } else if in_quickstart {
            Kind::NotRun("the quick start: tests/quickstart.rs runs it line by line".into())
        } else if body.contains("../shared") && !shared_present {
            Kind::NotRun("needs ../shared/data, which this checkout does not have".into())
        } else {
            kind
        };
        out.push(Block { place: format!("{doc}:{}", number + 1), kind, body });
    }
    out
}

/// One `$ COMMAND` of a transcript with the output it shows.
struct Step {
    command: String,
    expected: String,
    exit: i32,
}

/// The steps of a ` ```console ` block; a command continues over lines that
/// end in `\`.
fn steps(body: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut continuing = false;
    for line in body.lines() {
        if continuing {
            let step = out.last_mut().unwrap();
            step.command.push('\n');
            step.command.push_str(line);
            continuing = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            let exit = command.rsplit_once("# exit ").and_then(|(_, n)| n.trim().parse().ok()).unwrap_or(0);
            out.push(Step { command: command.to_string(), expected: String::new(), exit });
            continuing = line.ends_with('\\');
        } else if let Some(step) = out.last_mut() {
            step.expected.push_str(line);
            step.expected.push('\n');
        }
    }
    out
}

/// What every script starts with: `calltape` and `cargo` as the module
/// comment says.
fn prelude(bin: &Path, default_stdout: &Path) -> String {
    format!(
        r#"calltape() {{
  if [ "$#" -eq 1 ] && [ "$1" = run ]; then cat '{stdout}'; return 0; fi
  '{bin}' "$@"
}}
cargo() {{
  case "$1" in
    run) shift; while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done; [ "$#" -gt 0 ] && shift; calltape "$@" ;;
    test) echo "cargo test: this suite, already running" ;;
    *) echo "docs test: 'cargo $*' is not run here; mark the block <!-- not run: REASON -->" >&2; return 2 ;;
  esac
}}
"#,
        bin = bin.display(),
        stdout = default_stdout.display()
    )
}

/// A project folder for one document (see the module comment).
fn project_for(doc: &str) -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let temp = tempfile::Builder::new().prefix(&format!("docs-{}-", doc.replace('/', "-"))).tempdir().unwrap();
    let project = temp.path().join("project");
    for dir in ["scenarios", "recordings", "tests/fixtures"] {
        common::copy_dir(&root.join(dir), &project.join(dir));
    }
    std::fs::copy(root.join("calltape.toml"), project.join("calltape.toml")).unwrap();
    let run = common::default_run::default_run();
    let stamp = std::fs::canonicalize(run.latest()).unwrap();
    let stamp = stamp.file_name().unwrap().to_string_lossy().into_owned();
    run.copy_latest(&project.join("reports").join(&stamp));
    run.copy_latest(&project.join("reports/latest"));
    run.copy_latest(&project.join("baseline"));
    let shared = root.join("../shared");
    #[cfg(unix)]
    if shared.is_dir() {
        std::os::unix::fs::symlink(std::fs::canonicalize(&shared).unwrap(), temp.path().join("shared")).unwrap();
    }
    temp
}

/// Runs `script` (after the prelude) in `cwd`; standard error is joined to
/// standard output, as a person reads them.
fn sh(script: &str, cwd: &Path, home: &Path) -> std::process::Output {
    let run = common::default_run::default_run();
    let stdout = run.project.join("stdout.txt");
    let full = format!("{}{script}", prelude(Path::new(env!("CARGO_BIN_EXE_calltape")), &stdout));
    Command::new("sh")
        .args(["-euc", &format!("exec 2>&1\n{full}")])
        .current_dir(cwd)
        .env("HOME", home)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .output()
        .expect("sh runs")
}

/// Runs one document's blocks in order; the first that fails fails its
/// test, and later blocks of the document are not run (they may need it).
fn run_document(doc: &str, runnable: &[Block]) -> Result<(), Failed> {
    let temp = project_for(doc);
    let project = temp.path().join("project");
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for block in runnable {
        match block.kind {
            Kind::Script => {
                let out = sh(&block.body, &project, &home);
                if !out.status.success() {
                    return Err(format!(
                        "{}: the block exited {:?}:\n{}\n--- output ---\n{}",
                        block.place,
                        out.status.code(),
                        block.body,
                        String::from_utf8_lossy(&out.stdout)
                    )
                    .into());
                }
            }
            Kind::Transcript => {
                for step in steps(&block.body) {
                    let out = sh(&step.command, &project, &home);
                    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
                    if out.status.code() != Some(step.exit) {
                        return Err(format!(
                            "{}: `{}` exited {:?}, the doc says {}:\n{printed}",
                            block.place,
                            step.command,
                            out.status.code(),
                            step.exit
                        )
                        .into());
                    }
                    // Paths are not normalised: a `\` in JSON output is data.
                    let matched = snapbox::Assert::new().normalize_paths(false).try_eq(
                        Some(&"printed"),
                        printed.into_data(),
                        step.expected.clone().into_data(),
                    );
                    if let Err(diff) = matched {
                        return Err(format!("{}: `{}` printed other output than the doc shows:\n{diff}", block.place, step.command).into());
                    }
                }
            }
            Kind::NotRun(_) => {}
        }
    }
    Ok(())
}

/// `README.md` and every `docs/*.md`, sorted.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared_present = root.join("../shared/data").is_dir();
    let mut trials = Vec::new();
    for path in documents() {
        let doc = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&path).unwrap();
        let all = blocks(&doc, &text, shared_present);
        let mut runnable = Vec::new();
        for block in all {
            match &block.kind {
                Kind::NotRun(reason) => trials.push(Trial::test(format!("{} ({reason})", block.place), || Ok(())).with_ignored_flag(true)),
                _ => runnable.push(block),
            }
        }
        if !runnable.is_empty() {
            let places: Vec<&str> = runnable.iter().map(|b| b.place.as_str()).collect();
            let name = format!("{doc} runs its blocks ({})", places.join(", "));
            trials.push(Trial::test(name, move || run_document(&doc, &runnable)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
