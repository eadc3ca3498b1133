//! The binary as a user gets it: copied into a prefix of its own (as `cargo
//! install` puts it) and run from empty folders with no repository around
//! them. The bundled default runs there exactly as in the repository, and a
//! project started with `calltape init` checks, runs its simulated models at
//! once, and then runs its live model against a fake OpenAI-compatible
//! server on 127.0.0.1 (`.ci/run` repeats this with a real `cargo install`).

mod common;
mod start;

use std::path::Path;
use std::process::{Command, Output};

/// Runs the installed binary in `cwd` with its own cache and home.
fn calltape(bin: &Path, cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("OPENAI_API_KEY")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "calltape {args:?} failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_bundled_default_runs_from_an_empty_folder_as_in_the_repository() {
    let temp = tempfile::tempdir().unwrap();
    let bin = start::install(&temp.path().join("prefix"));
    let (empty, home) = (temp.path().join("empty"), temp.path().join("home"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&home).unwrap();

    let check = calltape(&bin, &empty, &home, &["check"], &[]);
    let listed = String::from_utf8_lossy(&check.stdout);
    assert!(listed.contains("ok: coding (") && listed.contains("ok: bfcl-sample ("), "{listed}");

    let args = ["run", "--model", "sim-cheap-types", "--model", "qwen2.5-coder-0.5b-local"];
    calltape(&bin, &empty, &home, &args, &[]);
    let repo_out = temp.path().join("repo-run");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    calltape(&bin, repo, &home, &[&args[..], &["--out", repo_out.to_str().unwrap()]].concat(), &[]);
    let (outside, inside) = (common::csv_tables(&empty.join("reports/latest")), common::csv_tables(&repo_out.join("latest")));
    assert_eq!(outside["summary.csv"].len(), 6, "a header and two models in the default's arms (three and two)");
    assert_eq!(outside, inside, "the installed binary's default run differs from the repository's");
    // Only the run folder was written where the user stands.
    let names: Vec<_> = std::fs::read_dir(&empty).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["reports"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn init_then_run_the_simulated_models_then_a_live_model_on_a_fake_server() {
    let temp = tempfile::tempdir().unwrap();
    let bin = start::install(&temp.path().join("prefix"));
    let (empty, home) = (temp.path().join("empty"), temp.path().join("home"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let project = empty.join("myproject");

    let init = calltape(&bin, &empty, &home, &["init", "myproject"], &[]);
    assert!(String::from_utf8_lossy(&init.stdout).contains("  cd myproject\n"));
    let check = calltape(&bin, &project, &home, &["check"], &[]);
    assert_eq!(String::from_utf8_lossy(&check.stdout), "ok: example (3 scenarios)\n");

    // The first run: the simulated models, no key, no network.
    let first = calltape(&bin, &project, &home, &["run"], &[]);
    assert!(String::from_utf8_lossy(&first.stdout).contains("sim-cheap"));
    let tables = start::summary(&project.join("reports/latest"));
    assert_eq!(tables.keys().collect::<Vec<_>>(), ["sim-cheap", "sim-strong"]);
    assert_eq!(tables["sim-strong"]["scenarios"], "3");
    assert_eq!(tables["sim-strong"]["passed"], "3");
    std::fs::rename(project.join("reports/latest"), project.join("baseline")).unwrap();

    // The live model, pointed at the fake server, with its key in the environment.
    let server = start::fake_openai("test-key").await;
    start::enable_my_model(&project.join("calltape.toml"), &format!("{}/v1", server.uri()));
    calltape(&bin, &project, &home, &["check"], &[]);
    let second = calltape(&bin, &project, &home, &["run"], &[("OPENAI_API_KEY", "test-key")]);
    assert!(String::from_utf8_lossy(&second.stdout).contains("my-model"));
    let tables = start::summary(&project.join("reports/latest"));
    let mine = &tables["my-model"];
    // It always asks for the weather: right for weather-paris only.
    assert_eq!((mine["scenarios"].as_str(), mine["passed"].as_str(), mine["calls"].as_str()), ("3", "1", "3"), "{mine:?}");
    assert_eq!(tables["sim-strong"]["passed"], "3", "the simulated models replay as recorded");
    let asked = server.received_requests().await.unwrap().len();
    assert_eq!(asked, 6, "per scenario: the call, then the answer once its result is back");

    // mode = "auto": a second run replays, the server is not asked again.
    calltape(&bin, &project, &home, &["run"], &[("OPENAI_API_KEY", "test-key")]);
    assert_eq!(server.received_requests().await.unwrap().len(), asked);

    let compare = calltape(&bin, &project, &home, &["compare", "baseline", "reports/latest"], &[]);
    assert!(!String::from_utf8_lossy(&compare.stdout).is_empty());
}
