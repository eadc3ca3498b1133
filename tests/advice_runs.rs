//! Every command calltape prints as advice runs as printed. A suite of the
//! user's own (a copy of the bundled coding suite, under a new name), run
//! in replay from a configuration file and a cassette folder whose names need
//! quoting, has no recording: each unit's "Record it with" command is taken
//! from scenarios.csv, run exactly as printed by `sh -c` with the binary on
//! PATH, and must record the unit so that the same run then replays and
//! passes. The model is a remote one: the strong simulator served over HTTP
//! (`common::served`).

use std::path::Path;
use std::process::{Command, Output};

use calltape::config::{Config, EMBEDDED_DEFAULT};
use calltape::exit_codes;

mod common;
use common::{copy_dir, csv_rows};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn calltape(args: &[&str], cwd: &Path) -> Output {
    // Off the runtime's own threads: the model's server runs on them.
    tokio::task::block_in_place(|| Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs"))
}

/// A shell command line run as a user would paste it, `calltape` found on PATH.
fn shell(line: &str, cwd: &Path) -> Output {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_calltape")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    tokio::task::block_in_place(|| Command::new("sh").arg("-c").arg(line).current_dir(cwd).env("PATH", path).output().expect("sh runs"))
}

/// The names of the files anywhere under `dir`.
fn files_under(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().is_dir() {
            names.extend(files_under(&entry.path()));
        } else {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names
}

/// The command between "Record it with `" and the next backquote.
fn advice(reason: &str) -> Option<String> {
    let start = reason.find("Record it with `")? + "Record it with `".len();
    let len = reason[start..].find('`')?;
    Some(reason[start..start + len].to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_record_advice_for_a_unit_with_no_recording_runs_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    copy_dir(&root().join("scenarios/coding"), &cwd.join("my suite"));
    std::fs::create_dir(cwd.join("cfg dir")).unwrap();
    let suites = calltape::scenario::load_suites(&[cwd.join("my suite")]).unwrap();
    let server = common::served::serve_profiles(&Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap(), &suites).await;
    let remote = EMBEDDED_DEFAULT.to_string()
        + &common::served::remote_model_toml("remote-strong", "sim-strong", "strong", &format!("{}/v1", server.uri()));
    std::fs::write(cwd.join("cfg dir/calltape.toml"), remote).unwrap();
    // Two trials: the second trial's advice must carry --trials too; the
    // default's three arms: each advice names its arm's variant.
    let run = [
        "run",
        "--config",
        "cfg dir/calltape.toml",
        "--suite",
        "my suite",
        "--recordings",
        "my tapes",
        "--model",
        "remote-strong",
        "--filter",
        "read-cargo-tom?",
        "--trials",
        "2",
    ];

    let first = calltape(&run, cwd);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(exit_codes::FAILURE), "{stderr}");
    let rows = csv_rows(&cwd.join("reports/latest/scenarios.csv"));
    assert_eq!(rows.len(), 6, "{rows:?}");
    let mut commands: Vec<String> = rows.iter().map(|r| advice(&r["reason"]).unwrap_or_else(|| panic!("no advice in {r:?}"))).collect();
    commands.sort();
    commands.dedup();
    assert_eq!(commands.len(), 6, "one command per arm and trial: {commands:?}");
    for command in &commands {
        assert!(["off", "local", "full"].iter().any(|a| command.contains(&format!("--model remote-strong@{a} "))), "{command}");
        assert!(command.contains("--suite "), "{command}");
        assert!(command.contains("--config 'cfg dir/calltape.toml'"), "{command}");
        assert!(command.contains("--recordings 'my tapes'"), "{command}");
        // The advice is printed on stderr as well, word for word.
        assert!(stderr.contains(command.as_str()), "{command} not in {stderr}");
    }

    for command in &commands {
        let out = shell(command, cwd);
        assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "`{command}` failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    // Suite and model folders are stored under encoded names: look by file name.
    let mut recorded = files_under(&cwd.join("my tapes"));
    recorded.sort();
    assert_eq!(recorded, [["read-cargo-toml.t0.json"; 3], ["read-cargo-toml.t1.json"; 3]].concat());

    let replay = calltape(&run, cwd);
    assert_eq!(replay.status.code(), Some(exit_codes::SUCCESS), "{}", String::from_utf8_lossy(&replay.stderr));
    let rows = csv_rows(&cwd.join("reports/latest/scenarios.csv"));
    assert_eq!(rows.len(), 6);
    for row in &rows {
        assert_eq!((row["errored"].as_str(), row["passed"].as_str()), ("false", "true"), "{row:?}");
    }
}
