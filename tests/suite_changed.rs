//! A suite is checked whole before a run and read again scenario by
//! scenario as the run goes: a scenario file edited in between stops the
//! run with an error naming it; nothing done is lost, and once the file is
//! put right the run resumes to the end.

use calltape::config::{Config, EMBEDDED_DEFAULT};

use calltape::core::modes::CassetteMode;
use calltape::events::{read_events, EventKind, ScenarioFinishedEvent};
use calltape::plan::RunPlan;
use calltape::runner::{self, RunError};
use calltape::scenario;

#[tokio::test]
async fn a_scenario_edited_during_the_run_stops_it_with_the_file_named() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let suite_dir = dir.path().join("coding");
    std::fs::create_dir_all(suite_dir.join("toolsets")).unwrap();
    for file in ["toolsets/coding.json", "grep-read-retry-attempts.json", "write-gitignore.json"] {
        std::fs::copy(root.join("scenarios/coding").join(file), suite_dir.join(file)).unwrap();
    }
    let suites = scenario::load_suites(std::slice::from_ref(&suite_dir)).unwrap();
    assert_eq!(suites[0].len(), 2);
    // Edited after the check: its id is not the one checked any more.
    let edited = suite_dir.join("write-gitignore.json");
    let text = std::fs::read_to_string(&edited).unwrap().replacen("\"write-gitignore\"", "\"renamed-ignore1\"", 1);
    std::fs::write(&edited, text).unwrap();

    let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
    config.select_models(&["sim-strong".to_string()]).unwrap();
    config.run.out_dir = dir.path().join("reports");
    config.run.mode = CassetteMode::Live;
    let plan = RunPlan::whole(config.clone(), "test");
    let err = runner::run(&config, "test", &suites, false, runner::RunTarget::New(&plan)).await.unwrap_err();
    let RunError::Suite { dir: run_dir, .. } = &err else { panic!("{err}") };
    let message = err.to_string();
    assert!(message.contains("write-gitignore.json:1:1") && message.contains("is now \"renamed-ignore1\""), "{message}");
    assert!(message.contains(&format!("calltape run --resume {}", run_dir.display())), "{message}");
    // Put right, the suite checks again and the run resumes to the end.
    std::fs::copy(root.join("scenarios/coding/write-gitignore.json"), &edited).unwrap();
    let suites = scenario::load_suites(std::slice::from_ref(&suite_dir)).unwrap();
    let done = calltape::plan::prepare_resume(run_dir).unwrap();
    let target = runner::RunTarget::Resume { dir: run_dir.clone(), done };
    let folder = runner::run(&config, "test", &suites, false, target).await.unwrap();
    assert_eq!(folder.remaining, 0);
    let mut finished: Vec<String> = read_events(&run_dir.join("events.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::ScenarioFinished(ScenarioFinishedEvent { unit, .. }) => Some(unit.scenario),
            _ => None,
        })
        .collect();
    finished.sort();
    assert_eq!(finished, ["grep-read-retry-attempts", "write-gitignore"]);
}
