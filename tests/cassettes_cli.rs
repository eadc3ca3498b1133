//! `calltape cassettes verify|prune` and the cassette flags of `calltape run`, as a user runs them.

use std::path::Path;
use std::process::{Command, Output};

mod common;

/// A real local model whose runs of the bundled suites are recorded.
const Q: &str = "qwen2.5-coder-0.5b-local@full";

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("binary runs")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn the_bundled_recordings_verify_clean() {
    let out = calltape(&["cassettes", "verify"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let json_files = |suite: &str| {
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(suite))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "json"))
            .count()
    };
    let scenarios = json_files("coding") + json_files("stateful");
    // Only real models are recorded (the simulators are computed): the two
    // 0.5B local models in two arms on 18 scenarios and 6 stateful ones, the
    // native one also on 3 injected tasks (both halves), the 1.5B one (no arms) on the 18.
    assert!(scenarios > 24);
    assert!(stdout.starts_with(&format!("{} cassettes, ", 2 * 2 * (18 + 6) + 2 * 3 * 2 + 18)), "{stdout}");
    assert!(stdout.contains(": 0 errors, 0 orphans, 0 warnings"), "{stdout}");
}

#[test]
fn verify_names_every_bad_file_and_prune_deletes_only_orphans() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let r = rec.to_str().unwrap();
    // The bundled recordings of a real model's runs of the coding suite.
    let strong = rec.join("coding").join(Q);
    common::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/coding").join(Q), &strong);
    let good = std::fs::read_to_string(strong.join("read-cargo-toml.t0.json")).unwrap();

    // An orphan of each kind, a broken file, one with a key, one edited by hand, a leftover temporary file.
    let filed_as = |suite: &str, model: &str, scenario: &str| {
        let mut c: serde_json::Value = serde_json::from_str(&good).unwrap();
        c["unit"] = serde_json::json!({"suite": suite, "model": model, "scenario": scenario, "trial": 0});
        let path = rec.join(suite).join(model).join(format!("{scenario}.t0.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{}\n", serde_json::to_string_pretty(&c).unwrap())).unwrap();
    };
    filed_as("coding", "gpt-9", "read-cargo-toml");
    filed_as("gone-suite", Q, "x");
    filed_as("coding", Q, "deleted-scenario");
    // A simulated model's answers, as an older calltape recorded them: simulators are computed now.
    filed_as("coding", "sim-strong@full", "read-cargo-toml");
    std::fs::write(strong.join("run-git-status.t0.json"), "{\"format\": 1, \"interactions\": [}").unwrap();
    // In a recorded header, which the match key does not cover: the key alone makes the file bad.
    let leaky = std::fs::read_to_string(strong.join("list-root-dockerfile.t0.json")).unwrap().replacen(
        "\"content-type\": \"application/json\"",
        "\"content-type\": \"sk-proj-Q7h2Lx9Vb4Nm8Kc3Zt6Rw1Yp5Jd0Gf\"",
        1,
    );
    std::fs::write(strong.join("list-root-dockerfile.t0.json"), leaky).unwrap();
    let hand_edited: serde_json::Value = serde_json::from_str(&good).unwrap();
    std::fs::write(strong.join("read-cargo-toml.t0.json"), serde_json::to_string(&hand_edited).unwrap()).unwrap();
    std::fs::write(strong.join(".read-cargo-toml.t0.json.tmp99-0"), "{").unwrap();

    let out = calltape(&["cassettes", "verify", r]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let line = |start: &str, end: &str| {
        assert!(stdout.lines().any(|l| l.starts_with(start) && l.ends_with(end)), "no line {start}…{end} in\n{stdout}");
    };
    let p = |rel: &str| rec.join(rel).display().to_string();
    line(&format!("error: {}: ", p(&format!("coding/{Q}/run-git-status.t0.json"))), "not JSON: expected value at line 1 column 32");
    line(
        &format!("error: {}: ", p(&format!("coding/{Q}/list-root-dockerfile.t0.json"))),
        "holds an OpenAI-style API key (sk-…): remove it and re-record",
    );
    line(&format!("orphan: {}: ", p("coding/gpt-9/read-cargo-toml.t0.json")), "model \"gpt-9\" is not configured");
    line(
        &format!("orphan: {}: ", p(&format!("coding/{Q}/deleted-scenario.t0.json"))),
        "suite \"coding\" has no scenario \"deleted-scenario\"",
    );
    line(
        &format!("orphan: {}: ", p(&format!("gone-suite/{Q}/x.t0.json"))),
        "suite \"gone-suite\" is not among the suites checked (bfcl-multi-turn, bfcl-sample, coding, injection, stateful)",
    );
    line(
        &format!("orphan: {}: ", p(&format!("coding/{Q}/.read-cargo-toml.t0.json.tmp99-0"))),
        "a temporary file left by an interrupted write",
    );
    line(&format!("warning: {}: ", p(&format!("coding/{Q}/read-cargo-toml.t0.json"))), "the next recording rewrites it");
    line(
        &format!("orphan: {}: ", p("coding/sim-strong@full/read-cargo-toml.t0.json")),
        "a simulated model's answers: simulators are computed in-process and never replayed",
    );
    assert!(stdout.contains(" 2 errors, 5 orphans, 1 warning"), "{stdout}");

    let out = calltape(&["cassettes", "prune", r, "--dry-run"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    assert!(stdout.ends_with("5 orphaned files would delete (--dry-run)\n"), "{stdout}");
    assert!(rec.join("gone-suite").join(Q).join("x.t0.json").exists());

    let out = calltape(&["cassettes", "prune", r]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    assert!(stdout.contains(&format!("deleted {}\n", p("coding/gpt-9/read-cargo-toml.t0.json"))), "{stdout}");
    assert!(!rec.join("gone-suite").exists() && !rec.join("coding/gpt-9").exists(), "emptied folders go too");
    assert!(strong.join("run-git-status.t0.json").exists(), "a broken cassette is not an orphan: it is for a person to fix");
    let out = calltape(&["cassettes", "verify", r]);
    assert!(text(&out).0.contains(" 2 errors, 0 orphans, 1 warning"), "{}", text(&out).0);

    let out = calltape(&["cassettes", "verify", dir.path().join("nowhere").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn replay_flags_strict_and_fail_fast() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let o = out_dir.to_str().unwrap();
    // The default run replays the bundled recordings and says so.
    let out = calltape(&["run", "--model", Q, "--filter", "read-*", "--out", o, "--replay-timing", "recorded", "--replay-speed", "1000"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("cassettes (recordings): 1 interaction replayed\n"), "{stdout}");
    assert!(stderr.is_empty() || !stderr.contains("warning"), "{stderr}");

    // A second trial was never recorded: error rows and a warning; --strict
    // makes it a failure; --fail-fast stops. (The default configuration
    // runs the local models for the one trial recorded: here they run two.)
    let config = dir.path().join("two-trials.toml");
    std::fs::write(&config, calltape::config::EMBEDDED_DEFAULT.replace("max_trials = 1", "")).unwrap();
    let config = config.to_str().unwrap();
    let args = ["run", "--config", config, "--model", Q, "--filter", "read-cargo-toml", "--trials", "2", "--out", o];
    let out = calltape(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("1 request with no recording (error rows)"), "{stdout}");
    assert!(
        stderr.contains(&format!("warning: no recording for model {Q}, scenario coding/read-cargo-toml, trial 1"))
            && stderr.contains(&format!("Record it with `calltape run --mode record --config {config} --suite "))
            && stderr.contains(&format!("/scenarios/coding --model {Q} --filter read-cargo-toml --trials 2`")),
        "{stderr}"
    );
    let out = calltape(&[&args[..], &["--strict"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains(&format!("error: no recording for model {Q}")), "{}", text(&out).1);
    let out = calltape(&[&args[..], &["--fail-fast"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("error: run stopped at the first request with no recording (--fail-fast): no recording for"));

    let out = calltape(&["run", "--replay-speed", "0", "--out", o]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("speed must be a positive number"));
}

#[test]
fn a_simulated_model_is_computed_in_every_mode_and_never_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let out = dir.path().join("out");
    for mode in ["record", "replay", "auto"] {
        let args = ["run", "--mode", mode, "--model", "sim-strong", "--no-arms", "--filter", "read-cargo-toml", "--seed", "43"];
        let run = calltape(&[&args[..], &["--recordings", rec.to_str().unwrap(), "--out", out.to_str().unwrap()]].concat());
        let (_, stderr) = text(&run);
        assert!(run.status.success(), "{mode}: {stderr}");
        assert!(stderr.contains("models: 1 model computed in-process (simulated, seed 43)"), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "note: --mode {mode} does not apply to simulated models (sim-strong): they are computed in-process from the seed, never recorded or replayed"
            )),
            "{stderr}"
        );
        assert!(!rec.exists(), "{mode}: nothing is recorded");
    }
}
