//! Hostile `events.jsonl` files: one whose last line never ends (no
//! newline, longer than the line limit) and one bigger than what the
//! commands that hold a whole file read. `report`, `compare`, `merge`,
//! `show` and `diff` must stop promptly with an error naming the limit and
//! the variable that raises it — never hang, never abort.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn calltape(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_calltape"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("calltape {args:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn said(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A small run (one simulated model, a few scenarios) in `out`; its folder.
fn small_run(out: &Path) -> PathBuf {
    let o = calltape(&["run", "--out", out.to_str().unwrap(), "--model", "sim-strong", "--no-arms", "--filter", "grep*"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir() && !p.ends_with("latest") && p.join("events.jsonl").is_file())
        .unwrap()
}

const LINE_LIMIT: (&str, &str) = ("CALLTAPE_MAX_EVENT_LINE_BYTES", "1000000");

#[test]
fn an_events_file_whose_last_line_never_ends_is_a_clear_error_for_every_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(&tmp.path().join("a"));
    let other = small_run(&tmp.path().join("b"));
    let mut file = std::fs::OpenOptions::new().append(true).open(dir.join("events.jsonl")).unwrap();
    file.write_all(&vec![b'x'; 3_000_000]).unwrap();
    drop(file);
    let (d, o) = (dir.to_str().unwrap(), other.to_str().unwrap());
    let merged = tmp.path().join("merged");
    let commands: [Vec<&str>; 6] = [
        vec!["report", d],
        vec!["compare", o, d],
        vec!["show", d],
        vec!["diff", o, d],
        vec!["diff", d, o],
        vec!["merge", d, o, "--out", merged.to_str().unwrap()],
    ];
    for args in commands {
        let out = calltape(&args, &[LINE_LIMIT]);
        let text = said(&out);
        assert!(!out.status.success(), "{args:?}: {text}");
        assert!(!text.contains("panicked") && !text.contains("memory allocation"), "{args:?}: {text}");
        assert!(
            text.contains("is over the limit of 1000000 bytes; raise it with CALLTAPE_MAX_EVENT_LINE_BYTES=N"),
            "{args:?} names the limit and how to raise it: {text}"
        );
    }
}

#[test]
fn an_events_file_too_big_to_hold_is_refused_by_the_commands_that_hold_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(&tmp.path().join("a"));
    let d = dir.to_str().unwrap();
    let limit = ("CALLTAPE_MAX_EVENTS_BYTES", "1000");
    let out = calltape(&["show", d], &[limit]);
    assert!(!out.status.success());
    assert!(said(&out).contains("is over the limit of 1000 bytes; raise it with CALLTAPE_MAX_EVENTS_BYTES=N"), "{}", said(&out));
    // `report` streams its file: the whole-file limit does not concern it.
    let out = calltape(&["report", d], &[limit]);
    assert!(out.status.success(), "{}", said(&out));
}
