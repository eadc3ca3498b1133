//! The simulated models on the bundled coding suite: each fault profile's
//! invalid rate lands near its configured rate, and the strong profile
//! passes most. Measured from the run's own events and tables.

use std::path::PathBuf;

use calltape::config::{Config, EMBEDDED_DEFAULT};

use calltape::core::modes::CassetteMode;
use calltape::{events, metrics, runner, scenario};

const TRIALS: u32 = 8;

#[tokio::test(flavor = "multi_thread")]
async fn profiles_land_near_their_configured_rates() {
    let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
    config.select_models(&["sim-*".to_string()]).unwrap();
    let out = tempfile::tempdir().unwrap();
    config.run.out_dir = out.path().to_path_buf();
    config.run.trials = TRIALS;
    config.run.mode = CassetteMode::Live; // the simulators themselves, not the bundled recordings
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let suites = scenario::load_suites(&[root.join("scenarios/coding")]).unwrap();
    let folder =
        runner::run(&config, "test", &suites, false, runner::RunTarget::New(&calltape::plan::RunPlan::whole(config.clone(), "test")))
            .await
            .unwrap();
    let events = events::read_events(&folder.dir.join("events.jsonl")).unwrap();
    let tables = metrics::build_tables(&events).unwrap();

    let summary = &tables.rows.summary;
    let names: Vec<String> = summary.iter().map(|r| r.model.clone()).collect();
    let invalid_rate: Vec<f64> = summary.iter().map(|r| r.invalid_rate.unwrap_or(0.0)).collect();
    let calls: Vec<f64> = summary.iter().map(|r| r.calls as f64).collect();
    let pass_rate: Vec<f64> = summary.iter().map(|r| r.pass_rate.unwrap_or(0.0)).collect();
    let scenarios_per_model = (suites[0].len() as u32 * TRIALS) as f64;

    for (i, name) in names.iter().enumerate() {
        let model = config.models.iter().find(|m| &m.name == name).unwrap();
        let sim = model.sim.as_ref().unwrap();
        assert_eq!(summary[i].scenarios as f64, scenarios_per_model);
        // Every attempt fails with probability fault_rate (retries included),
        // so the measured rate is a binomial proportion: allow 4 standard errors.
        let p = sim.fault_rate;
        let tolerance = 4.0 * (p.max(0.01) * (1.0 - p) / calls[i]).sqrt();
        assert!(
            (invalid_rate[i] - p).abs() <= tolerance,
            "{name}: invalid rate {:.3} vs configured {p} (± {tolerance:.3}, {} calls)",
            invalid_rate[i],
            calls[i]
        );
    }
    let strong = names.iter().position(|n| n == "sim-strong").unwrap();
    for (i, name) in names.iter().enumerate() {
        assert!(pass_rate[strong] >= pass_rate[i], "sim-strong {} < {name} {}", pass_rate[strong], pass_rate[i]);
    }
    // The eager model fails no-call scenarios at about its unwanted-call rate.
    let eager = names.iter().position(|n| n == "sim-cheap-eager").unwrap();
    assert!(pass_rate[eager] < pass_rate[strong]);

    // The terminal tables fit an 80- and a 120-column terminal.
    for width in [80, 120] {
        let text = calltape::report::terminal::render_tables(&tables, width);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= width, "a line of {widest} columns at width {width}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn same_seed_same_tables() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let suites = scenario::load_suites(&[root.join("scenarios/coding")]).unwrap();
    let mut tables = Vec::new();
    for _ in 0..2 {
        let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
        let out = tempfile::tempdir().unwrap();
        config.run.out_dir = out.path().to_path_buf();
        config.run.mode = CassetteMode::Live;
        let folder =
            runner::run(&config, "test", &suites, false, runner::RunTarget::New(&calltape::plan::RunPlan::whole(config.clone(), "test")))
                .await
                .unwrap();
        let events = events::read_events(&folder.dir.join("events.jsonl")).unwrap();
        tables.push(metrics::build_tables(&events).unwrap());
    }
    // Local repair latency is measured in-process (microseconds of real
    // time), so it is the one figure that differs between identical runs.
    let reproducible = |t: &metrics::Tables| {
        let mut summary = t.rows.summary.clone();
        summary.iter_mut().for_each(|r| (r.repair_local_p50_us, r.repair_local_p95_us) = (None, None));
        let mut by_tool = t.rows.by_tool.clone();
        by_tool.iter_mut().for_each(|r| (r.repair_local_p50_us, r.repair_local_p95_us) = (None, None));
        (summary, by_tool)
    };
    assert_eq!(reproducible(&tables[0]), reproducible(&tables[1]));
    assert_eq!(tables[0].rows.scenarios, tables[1].rows.scenarios);
}
