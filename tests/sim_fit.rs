//! `calltape sim fit` and `sim validate` end to end on the bundled real
//! recordings (the local 1.5B model, replayed), and a simulated model that
//! uses the fitted profile: the run header and report.md name it as fitted
//! and from what run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn fit_validate_and_run_a_fitted_simulator_on_the_bundled_recordings() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let t = |p: &str| tmp.path().join(p).display().to_string();

    // The real model's run: replayed from recordings/.
    ok(&calltape(&["run", "--model", "qwen2.5-coder-1.5b-local", "--out", &t("real")], &root));
    let real = t("real/latest");

    // Fit on half the scenarios.
    let fitted = ok(&calltape(&["sim", "fit", &real, "--model", "qwen2.5-coder-1.5b-local", "--out", &t("p.toml")], &root));
    assert!(fitted.contains("fitted qwen2.5-coder-1.5b-local on ") && fitted.contains("holdout half"), "{fitted}");
    let profile = std::fs::read_to_string(t("p.toml")).unwrap();
    for wanted in
        ["[fitted]", "holdout = \"half\"", "[sim]", "fault_rate = ", "[observed]", "[observed.kinds]", "ci95 = [", "[observed.tools]"]
    {
        assert!(profile.contains(wanted), "the profile lacks {wanted:?}:\n{profile}");
    }

    // Validate on the other half.
    let table = ok(&calltape(&["sim", "validate", &t("p.toml"), &real, "--trials", "10"], &root));
    assert!(table.contains("held-out scenarios, simulated 10 times each"), "{table}");
    for row in ["invalid rate (any kind)", "pass rate", "latency p50 ms", "latency p95 ms"] {
        let line = table.lines().find(|l| l.starts_with(row)).unwrap_or_else(|| panic!("no {row:?} row:\n{table}"));
        assert!(line.ends_with("yes") || line.ends_with("no"), "{line}");
    }
    assert!(table.contains("real figures inside the simulator's 95% interval"), "{table}");

    // A simulated model using the profile.
    let config = format!(
        "[run]\nsuites = [\"scenarios/bfcl-sample\"]\narms = []\n\n[[models]]\nname = \"fitted-1.5b\"\nprovider = \"sim\"\nmodel_id = \"fitted-1.5b\"\ntier = \"cheap\"\nprofile = {:?}\n",
        t("p.toml")
    );
    std::fs::write(t("calltape.toml"), config).unwrap();
    let run = calltape(&["run", "--config", &t("calltape.toml"), "--out", &t("sim")], &root);
    let stdout = ok(&run);
    assert!(stdout.contains("fitted-1.5b"), "{stdout}");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("fitted-1.5b: a simulator fitted to qwen2.5-coder-1.5b-local in "), "{stderr}");
    let report = std::fs::read_to_string(t("sim/latest/report.md")).unwrap();
    assert!(
        report.contains("Fitted simulators (models of real models, not the models): fitted-1.5b (fitted to qwen2.5-coder-1.5b-local in "),
        "{report}"
    );

    // A profile that is not one says what to do.
    std::fs::write(t("bad.toml"), "[sim]\n").unwrap();
    let bad = calltape(&["sim", "validate", &t("bad.toml"), &real], &root);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a fitted profile"), "{}", String::from_utf8_lossy(&bad.stderr));
}
