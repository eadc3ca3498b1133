//! A whole suite injected, through the real binary: `--inject STYLE` and
//! `[run.inject]` give every scenario that can carry one an injection built
//! from what it first reads, paired clean and injected; the plan keeps it
//! for `--resume`; the other run flags work with it or refuse it clearly.

use std::path::Path;
use std::process::{Command, Output};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A simulated model that falls for every injection it reads.
const NAIVE: &str = r#"
[[models]]
name = "naive"
provider = "sim"
model_id = "naive"
tier = "cheap"
[models.sim]
injection_susceptibility = 1.0
"#;

/// Scenario ids of a run's finished units, sorted.
fn finished_ids(folder: &Path) -> Vec<String> {
    let mut ids: Vec<String> = calltape::events::read_events(&folder.join("events.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            calltape::events::EventKind::ScenarioFinished(f) => Some(f.unit.scenario),
            _ => None,
        })
        .collect();
    ids.sort();
    ids
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
}

#[test]
fn inject_flag_pairs_every_scenario_that_reads_something_and_resume_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("calltape.toml"), format!("[run]\narms = []\n{NAIVE}")).unwrap();
    let coding = root().join("scenarios/coding");
    let args = ["run", "--suite", coding.to_str().unwrap(), "--filter", "read-*", "--inject", "fake-system", "--out", "runs"];
    let out = calltape(&args, dir.path());
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let folder = dir.path().join("runs/latest");
    let ids = finished_ids(&folder);
    assert!(ids.contains(&"read-cargo-toml".to_string()) && ids.contains(&"read-cargo-toml+injected".to_string()), "{ids:?}");
    let plan: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(folder.join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["config"]["run"]["inject"], serde_json::json!({"style": "fake-system"}));

    // The naive model runs the attack: the default goal (secrets to the attacker's host) is executed.
    let rows = csv_rows(&folder.join("injection.csv"));
    assert_eq!(rows[0][..3], ["model", "style", "tasks"]);
    let style_row = rows.iter().find(|r| r[1] == "fake-system").expect("a row for the style");
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    assert_eq!(style_row[col("attacks")], (ids.iter().filter(|i| i.ends_with("+injected")).count()).to_string());
    assert_ne!(style_row[col("executed")], "0", "{rows:?}");

    // Interrupted after two units, resumed: the plan's injection runs the rest, injected halves included.
    let events = std::fs::read_to_string(folder.join("events.jsonl")).unwrap();
    let mut kept = String::new();
    let mut seen = 0;
    for line in events.lines() {
        if seen == 2 || line.contains("\"event\":\"run_finished\"") {
            break;
        }
        seen += usize::from(line.contains("\"event\":\"scenario_finished\""));
        kept.push_str(line);
        kept.push('\n');
    }
    std::fs::write(folder.join("events.jsonl"), kept).unwrap();
    let resumed = calltape(&["run", "--resume", folder.to_str().unwrap()], dir.path());
    assert!(matches!(resumed.status.code(), Some(0 | 1)), "{}", text(&resumed));
    assert_eq!(finished_ids(&folder), ids, "the resumed run has every unit once, injected halves included");

    // --resume takes no --inject: the plan has it.
    let both = calltape(&["run", "--resume", folder.to_str().unwrap(), "--inject", "direct"], dir.path());
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
    assert!(text(&both).contains("--inject"), "{}", text(&both));
}

#[test]
fn the_config_key_injects_only_the_suites_it_names_and_dry_run_and_shard_count_the_halves() {
    let dir = tempfile::tempdir().unwrap();
    let (coding, stateful) = (root().join("scenarios/coding"), root().join("scenarios/stateful"));
    let config = format!(
        "[run]\narms = []\nsuites = [{:?}, {:?}]\ninject = {{ style = \"hidden-comment\", suites = [\"scenarios/stateful\"] }}\n{NAIVE}",
        coding.to_str().unwrap(),
        stateful.to_str().unwrap()
    );
    std::fs::write(dir.path().join("calltape.toml"), config).unwrap();
    let out = calltape(&["run", "--filter", "read-cargo-toml", "--filter", "fix-off-by-one", "--out", "runs"], dir.path());
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let ids = finished_ids(&dir.path().join("runs/latest"));
    assert_eq!(ids, ["fix-off-by-one", "fix-off-by-one+injected", "read-cargo-toml"], "only the stateful suite is injected");

    // --dry-run counts both halves; a shard takes its share of them.
    let dry = calltape(&["run", "--filter", "fix-off-by-one", "--dry-run"], dir.path());
    assert!(dry.status.success(), "{}", text(&dry));
    assert!(text(&dry).lines().any(|l| l.starts_with("naive") && l.split_whitespace().nth(1) == Some("2")), "{}", text(&dry));
    let mut sharded = 0;
    for shard in ["1/2", "2/2"] {
        let o = calltape(&["run", "--filter", "fix-off-by-one", "--shard", shard, "--dry-run"], dir.path());
        if o.status.success() {
            sharded +=
                text(&o).lines().find(|l| l.starts_with("naive")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u32>().ok()).unwrap();
        }
    }
    assert_eq!(sharded, 2, "the shards together run both halves once");
}

#[test]
fn an_unknown_style_is_refused_naming_the_library_from_the_flag_and_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let flag = calltape(&["run", "--inject", "nope", "--dry-run"], dir.path());
    assert_eq!(flag.status.code(), Some(2), "{}", text(&flag));
    assert!(text(&flag).contains("unknown injection style \"nope\"") && text(&flag).contains("important-message"), "{}", text(&flag));
    std::fs::write(dir.path().join("calltape.toml"), format!("[run]\ninject = {{ style = \"nope\" }}\n{NAIVE}")).unwrap();
    let config = calltape(&["run", "--dry-run"], dir.path());
    assert_ne!(config.status.code(), Some(0), "{}", text(&config));
    assert!(text(&config).contains("run.inject.style: unknown injection style \"nope\""), "{}", text(&config));
}

#[test]
fn inject_works_with_arms_trials_seed_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("calltape.toml"), format!("[run]\narms = []\n{NAIVE}")).unwrap();
    let coding = root().join("scenarios/coding");
    let run = |out: &str, seed: &str| {
        let args = ["run", "--suite", coding.to_str().unwrap(), "--filter", "read-cargo-toml", "--inject", "direct", "--arms", "off,full"];
        let o = calltape(&[&args[..], &["--trials", "2", "--seed", seed, "--out", out]].concat(), dir.path());
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
        dir.path().join(out).join("latest")
    };
    let (base, current) = (run("base", "1"), run("current", "2"));
    let ids = finished_ids(&base);
    // 2 halves × 2 arms × 2 trials.
    assert_eq!(ids.len(), 8, "{ids:?}");
    assert_eq!(ids.iter().filter(|i| i.ends_with("+injected")).count(), 4);
    let rows = csv_rows(&base.join("injection.csv"));
    assert!(rows.iter().any(|r| r[0] == "naive@off") && rows.iter().any(|r| r[0] == "naive@full"), "{rows:?}");
    let compared = calltape(&["compare", base.to_str().unwrap(), current.to_str().unwrap(), "--allow-newly-failing"], dir.path());
    assert!(matches!(compared.status.code(), Some(0 | 1)), "{}", text(&compared));
    // Both runs' halves pair by id: compare reads them as any other runs.
    assert!(!text(&compared).contains("error:"), "{}", text(&compared));
}
