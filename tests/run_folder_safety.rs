//! Run folders as a trust boundary, through the real binary: nothing the
//! user has is deleted, overwritten or followed through a link, resuming
//! `latest` or a copy loses nothing, and a `plan.json` from elsewhere
//! neither panics nor sends requests (and keys) anywhere the user's
//! configuration does not say.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A small replayed run (one simulated model, five scenarios) into `out`; its run folder.
fn small_run(out: &Path) -> PathBuf {
    let o = calltape(&["run", "--out", out.to_str().unwrap(), "--model", "sim-strong@full", "--filter", "grep*"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    run_dir(out)
}

fn run_dir(out: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("latest") && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.remove(0)
}

fn finished(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("events.jsonl")).unwrap().matches("\"event\":\"scenario_finished\"").count()
}

/// Makes a finished run look interrupted after its first `keep` units:
/// its events end there, as a run stopped by Ctrl-C would leave them.
fn cut_after(dir: &Path, keep: usize) {
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let mut out = String::new();
    let mut seen = 0;
    for line in events.lines() {
        if seen == keep || line.contains("\"event\":\"run_finished\"") {
            break;
        }
        seen += usize::from(line.contains("\"event\":\"scenario_finished\""));
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write(dir.join("events.jsonl"), out).unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn resume_of_latest_resumes_its_run_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    let run = small_run(&out);
    let latest = out.join("latest");
    let files = names(&run);
    for d in [&run, &latest] {
        cut_after(d, 2);
    }
    let o = calltape(&["run", "--resume", latest.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains(&format!("resuming {}", run.display())), "{}", text(&o.stderr));
    for d in [&run, &latest] {
        assert_eq!(finished(d), 5, "{} holds every unit once", d.display());
        for f in &files {
            assert!(d.join(f).is_file(), "{} lost {f}", d.display());
        }
    }
    assert_eq!(names(&out), [run.file_name().unwrap().to_str().unwrap(), "latest"], "nothing else left beside them");

    // The run folder gone (only latest kept, say from a CI artifact): made again from the copy.
    std::fs::remove_dir_all(&run).unwrap();
    cut_after(&latest, 3);
    let o = calltape(&["run", "--resume", latest.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("re-made"), "{}", text(&o.stderr));
    assert_eq!((finished(&run), finished(&latest)), (5, 5));
}

#[test]
fn resume_of_a_copied_folder_works_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(&dir.path().join("reports"));
    // Copied without hidden files (as artifact uploads do): no marker of ours.
    let copy = dir.path().join("artifact").join("run");
    std::fs::create_dir_all(&copy).unwrap();
    for name in names(&run).iter().filter(|n| !n.starts_with('.')) {
        std::fs::copy(run.join(name), copy.join(name)).unwrap();
    }
    cut_after(&copy, 1);
    let o = calltape(&["run", "--resume", copy.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(finished(&copy), 5);
    assert!(copy.join(".calltape-run").is_file(), "adopted: its events say calltape wrote it");
    assert_eq!(finished(&dir.path().join("artifact/latest")), 5);

    // A folder that is not a run is not written into.
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("events.jsonl"), "my own notes\n").unwrap();
    std::fs::write(mine.join("plan.json"), std::fs::read(run.join("plan.json")).unwrap()).unwrap();
    let o = calltape(&["run", "--resume", mine.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("was not made by calltape"), "{}", text(&o.stderr));
    assert_eq!(names(&mine), ["events.jsonl", "plan.json"]);
}

#[test]
fn a_latest_calltape_did_not_make_is_never_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    let latest = out.join("latest");
    std::fs::create_dir_all(&latest).unwrap();
    std::fs::write(latest.join("precious.txt"), "mine").unwrap();
    let o = calltape(&["run", "--out", out.to_str().unwrap(), "--model", "sim-strong@full", "--filter", "grep*"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = text(&o.stderr);
    assert!(stderr.contains(&latest.display().to_string()) && stderr.contains("mv "), "{stderr}");
    assert_eq!(std::fs::read_to_string(latest.join("precious.txt")).unwrap(), "mine");
    assert_eq!(finished(&run_dir(&out)), 5, "the run itself is kept");
}

#[cfg(unix)]
#[test]
fn a_latest_that_is_a_link_is_neither_followed_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("precious.txt"), "mine").unwrap();
    let out = dir.path().join("reports");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("latest")).unwrap();
    let o = calltape(&["run", "--out", out.to_str().unwrap(), "--model", "sim-strong@full", "--filter", "grep*"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("symbolic link"), "{}", text(&o.stderr));
    assert!(std::fs::symlink_metadata(out.join("latest")).unwrap().file_type().is_symlink());
    assert_eq!(names(&outside), ["precious.txt"]);
}

#[cfg(unix)]
#[test]
fn links_in_a_run_folder_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(&dir.path().join("reports"));
    let outside = dir.path().join("precious.txt");
    std::fs::write(&outside, "mine").unwrap();

    // A report file that is a link: `report` refuses, naming it.
    std::fs::remove_file(run.join("summary.csv")).unwrap();
    std::os::unix::fs::symlink(&outside, run.join("summary.csv")).unwrap();
    let o = calltape(&["report", run.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0));
    assert!(text(&o.stderr).contains("summary.csv") && text(&o.stderr).contains("symbolic link"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
    std::fs::remove_file(run.join("summary.csv")).unwrap();

    // events.jsonl a link to a file with a torn last line: resume neither truncates nor rewrites it.
    cut_after(&run, 2);
    let mut events = std::fs::read(run.join("events.jsonl")).unwrap();
    events.extend_from_slice(b"{\"ts_ms\":1,\"event\":\"scen");
    std::fs::write(&outside, &events).unwrap();
    std::fs::remove_file(run.join("events.jsonl")).unwrap();
    std::os::unix::fs::symlink(&outside, run.join("events.jsonl")).unwrap();
    let o = calltape(&["run", "--resume", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("events.jsonl") && text(&o.stderr).contains("symbolic link"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&outside).unwrap(), events);
}

/// A TCP listener on 127.0.0.1 that counts connections (and closes each at once).
fn counting_listener() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            seen.fetch_add(1, Ordering::SeqCst);
            if let Ok(mut s) = stream {
                let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
                let _ = s.read(&mut [0u8; 1024]);
            }
        }
    });
    (format!("http://{addr}/v1"), count)
}

fn edit_plan(run: &Path, edit: impl FnOnce(&mut Value)) {
    let path = run.join("plan.json");
    let mut plan: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut plan);
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
}

#[test]
fn a_hostile_plan_is_shown_and_refused_and_nothing_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(&dir.path().join("reports"));
    cut_after(&run, 1);
    let (url, connections) = counting_listener();
    edit_plan(&run, |plan| {
        plan["mode"] = json!("live");
        let model = &mut plan["config"]["models"][0];
        model["provider"] = json!("openai");
        model["base_url"] = json!(url);
        model["api_key_env"] = json!("HOME");
        model["headers"] = json!({"X-Exfil": "1"});
        model["max_retries"] = json!(0);
        model["timeout_secs"] = json!(2);
    });
    let o = calltape(&["run", "--resume", run.to_str().unwrap()]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    for what in [url.as_str(), "api_key_env is HOME", "x-exfil", "--trust-plan", "nothing was run"] {
        assert!(stderr.contains(what), "{what}: {stderr}");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(connections.load(Ordering::SeqCst), 0, "no request made");
    assert_eq!(finished(&run), 1, "the folder is as it was");

    // Told to trust it, the plan is obeyed: the listener does see the requests.
    let o = calltape(&["run", "--resume", run.to_str().unwrap(), "--trust-plan"]);
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    assert!(connections.load(Ordering::SeqCst) > 0, "{}", text(&o.stderr));
}

#[test]
fn a_bad_plan_is_an_error_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(&dir.path().join("reports"));
    cut_after(&run, 1);
    let good: Value = serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit); 14] = [
        ("shard", |p| p["shard"] = json!({"index": 0, "count": 0})),
        ("shard_limits", |p| p["shard_limits"] = json!("all")),
        ("shard", |p| p["shard"] = json!({"index": 3, "count": 2})),
        ("shard.index", |p| p["shard"] = json!({"index": -1, "count": 2})),
        ("run.trials", |p| p["config"]["run"]["trials"] = json!(0)),
        ("run.trials", |p| p["config"]["run"]["trials"] = json!(4_000_000_000u64)),
        ("run.max_steps", |p| p["config"]["run"]["max_steps"] = json!(0)),
        ("concurrency", |p| p["config"]["models"][0]["concurrency"] = json!(0)),
        ("concurrency", |p| p["config"]["models"][0]["concurrency"] = json!(u64::MAX)),
        ("timeout_secs", |p| p["config"]["models"][0]["timeout_secs"] = json!(0)),
        ("price.input", |p| p["config"]["models"][0]["price"]["input"] = json!(-1.0)),
        ("temperature", |p| p["config"]["models"][0]["temperature"] = json!(1e300)),
        ("cassettes.speed", |p| p["config"]["cassettes"]["speed"] = json!(-1.0)),
        ("config.run.suites", |p| p["config"]["run"]["suites"] = json!([])),
    ];
    for (field, edit) in cases {
        let mut plan = good.clone();
        edit(&mut plan);
        std::fs::write(run.join("plan.json"), serde_json::to_string_pretty(&plan).unwrap()).unwrap();
        let o = calltape(&["run", "--resume", run.to_str().unwrap()]);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{field}: {stderr}");
        assert!(stderr.contains("plan.json") && stderr.contains(field) && !stderr.contains("panicked"), "{field}: {stderr}");
    }
    // Not JSON at all, or a link: the same kind of error.
    std::fs::write(run.join("plan.json"), "{\"config\": 1e999").unwrap();
    let o = calltape(&["run", "--resume", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("plan.json"), "{}", text(&o.stderr));
    assert_eq!(finished(&run), 1, "nothing ran");
}

#[test]
fn plan_json_keeps_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (url, connections) = counting_listener();
    let url = url.replacen("http://", "http://alice:pa55w0rd@", 1) + "?api_key=QUERYSECRET";
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[run]\nsuites = [\"{}/scenarios/coding\"]\nmode = \"live\"\n[[models]]\nname = \"live\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{url}\"\nmax_retries = 0\ntimeout_secs = 2\nheaders = {{ X-Api-Token = \"HEADERSECRET\" }}\n",
            env!("CARGO_MANIFEST_DIR")
        ),
    )
    .unwrap();
    let out = dir.path().join("reports");
    let o = calltape(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--filter", "grep-read*"]);
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    assert!(connections.load(Ordering::SeqCst) > 0, "the run did send its requests");
    for dir in [run_dir(&out), out.join("latest")] {
        let plan = std::fs::read_to_string(dir.join("plan.json")).unwrap();
        for secret in ["pa55w0rd", "QUERYSECRET", "HEADERSECRET"] {
            assert!(!plan.contains(secret), "{secret} in {}", dir.display());
        }
        assert!(plan.contains("X-Api-Token") && plan.contains("api_key=REDACTED"), "{plan}");
    }
    // Its own plan, checked against the configuration it came from: not refused.
    let run = run_dir(&out);
    cut_after(&run, 1);
    let o = calltape(&["run", "--resume", run.to_str().unwrap(), "--config", config.to_str().unwrap()]);
    assert!(!text(&o.stderr).contains("elsewhere than your configuration"), "{}", text(&o.stderr));
}
