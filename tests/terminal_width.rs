//! The terminal output as users see it, at 80, 100 and 120 columns: the
//! default run's tables and `compare` fit the width, show the core figures
//! first, put the verdict in the first lines, and the advice they print runs
//! as printed. Runs in a project folder of its own (the bundled suites and
//! recordings linked in), so every path printed is short and relative.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

mod common;

const WIDTHS: [usize; 3] = [80, 100, 120];

/// The binary in `cwd` with `COLUMNS=width` (0: unset) and no colour settings inherited.
fn calltape(args: &[&str], cwd: &Path, width: usize, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_calltape"));
    command.args(args).current_dir(cwd).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("COLUMNS");
    if width > 0 {
        command.env("COLUMNS", width.to_string());
    }
    command.envs(env.iter().copied()).output().expect("binary runs")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An empty folder with the bundled suites and recordings linked in: the
/// default configuration finds them where it looks.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["scenarios", "recordings"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn assert_fits(output: &str, width: usize) {
    for line in output.lines() {
        assert!(line.chars().count() <= width, "a line of {} columns at width {width}: {line:?}\n{output}", line.chars().count());
    }
    assert!(!output.contains('\u{1b}'), "no colour into a pipe:\n{output}");
}

/// Runs `advice` (a printed command line of plain words) in `cwd`.
fn run_advice(advice: &str, cwd: &Path) -> Output {
    let words: Vec<&str> = advice.split_whitespace().collect();
    assert_eq!(words[0], "calltape", "{advice}");
    assert!(!advice.contains('\''), "plain words expected here: {advice}");
    calltape(&words[1..], cwd, 0, &[])
}

#[test]
fn the_default_run_is_one_screen_with_the_core_figures_first_at_every_width() {
    // The bundled default, run once for every test binary at 100 columns
    // (tests/common/default_run.rs).
    let run = common::default_run::default_run();
    let models: Vec<String> = std::fs::read_to_string(run.latest().join("summary.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert!(models.len() >= 10, "{models:?}");
    // The advice under the tables is checked to run as printed below.
    let advice = run.stdout.lines().find_map(|l| l.strip_prefix("every table: ")).expect("advice line");
    assert_eq!(advice, "calltape report reports/latest --all");

    // Every `report` below re-reads the whole run (seconds each in a debug
    // build) and rewrites its files: each runs at once in a project of its
    // own, on a copy of the run.
    let (outputs, [all, wide, forced, plain, unset]) = std::thread::scope(|scope| {
        let in_copy = |command: Box<dyn FnOnce(&Path) -> Output + Send>| {
            scope.spawn(move || {
                let project = project();
                run.copy_latest(&project.path().join("reports/latest"));
                let out = command(project.path());
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                text(&out)
            })
        };
        let report = |args: &'static [&'static str], width: usize, env: &'static [(&'static str, &'static str)]| {
            in_copy(Box::new(move |dir| calltape(args, dir, width, env)))
        };
        let widths = WIDTHS.map(|width| (width, report(&["report", "reports/latest"], width, &[])));
        let others = [
            in_copy(Box::new(|dir| run_advice(advice, dir))),
            // --wide: lines as wide as they need (the full output of before).
            report(&["report", "reports/latest", "--all", "--wide"], 80, &[]),
            // Colour: forced by CLICOLOR_FORCE, never under NO_COLOR.
            report(&["report", "reports/latest"], 100, &[("CLICOLOR_FORCE", "1")]),
            report(&["report", "reports/latest"], 100, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
            // Without COLUMNS, a pipe gets 100 columns.
            report(&["report", "reports/latest"], 0, &[]),
        ];
        let mut outputs = vec![(100, run.stdout.clone())];
        outputs.extend(widths.map(|(width, out)| (width, out.join().unwrap())));
        (outputs, others.map(|out| out.join().unwrap()))
    });
    for (width, output) in &outputs {
        assert_fits(output, *width);
        assert!(output.lines().count() <= 40, "{} lines at width {width}:\n{output}", output.lines().count());
        let lines: Vec<&str> = output.lines().collect();
        // The default runs arms: a row per model, its pass rate in each arm
        // and the paired difference of the last over the first.
        // Models differ in their arms: the title says how many run in how many.
        assert_eq!(lines[0], "Per model and arm (10 models × 3 arms, 2 × 2, 1 without arms; paired runs)", "{output}");
        // What does not fit is named, never dropped silently.
        // At 100 columns everything fits: pass in each arm, invalid and cost.
        if *width < 100 {
            let left_out = lines.iter().find(|l| l.contains(" more column")).unwrap_or_else(|| panic!("{output}"));
            assert!(left_out.contains("invalid") && left_out.contains("--wide shows every column"), "{left_out}");
        }
        let figures: &[&str] = if *width >= 100 {
            &["runs", "off", "local", "full", "full−off", "p", "invalid", "cost $"]
        } else {
            &["runs", "off", "local", "full", "full−off", "p"]
        };
        for figure in figures {
            assert!(lines[1].contains(figure), "{figure} missing at width {width}: {:?}", lines[1]);
        }
        // A row per configured model (the arms are columns), long names cut
        // with … but recognisable and told apart (the 0.5b's `-text` kept).
        let mut configured: Vec<String> = models.iter().map(|m| m.split('@').next().unwrap().to_string()).collect();
        configured.dedup();
        let mut shown_names = Vec::new();
        for (model, row) in configured.iter().zip(&lines[3..]) {
            let shown = row.split("  ").next().unwrap().trim_end();
            let (head, tail) = shown.split_once('…').unwrap_or((shown, ""));
            assert!(model.starts_with(head) && model.ends_with(tail) && shown.chars().count() >= 10, "{model} shown as {shown:?}");
            assert!(shown == model || shown.contains('…'), "{model} shown as {shown:?}");
            shown_names.push(shown);
        }
        let mut distinct = shown_names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), shown_names.len(), "rows told apart at width {width}: {shown_names:?}");
        assert!(output.contains("Per model × tool: the most invalid calls"), "{output}");
    }
    // The advice runs as printed and prints every table.
    for title in ["Per model: calls and outcomes", "Per model: tokens, cost and latency", "Per model × tool: invalid calls by kind"] {
        assert!(all.contains(title), "{title}:\n{all}");
    }
    assert_fits(&all, 100);

    assert!(wide.lines().any(|l| l.chars().count() > 120) && wide.contains("qwen2.5-coder-0.5b-local-text "), "{wide}");
    assert!(!wide.contains("more column"));

    assert!(forced.starts_with("\u{1b}[1mPer model and arm ("), "{forced:?}");
    assert!(!plain.contains('\u{1b}'));
    assert_fits(&unset, 100);
}

#[test]
fn compare_leads_with_its_verdict_and_cuts_long_lists_at_every_width() {
    let project = project();
    let dir = project.path();
    // The BFCL sample alone (300 of the default's 489 scenarios) gives a list longer than the ten shown.
    let sims = ["--model", "sim-*", "--no-arms", "--mode", "live", "--suite", "scenarios/bfcl-sample"];
    let base = calltape(&[&["run", "--out", "base"][..], &sims].concat(), dir, 100, &[]);
    assert!(base.status.success(), "{}", String::from_utf8_lossy(&base.stderr));
    // Without repair the simulators fail many more scenarios: a long newly-failing list.
    let current = calltape(&[&["run", "--out", "norepair", "--repair", "off"][..], &sims].concat(), dir, 100, &[]);
    assert!(current.status.success(), "{}", String::from_utf8_lossy(&current.stderr));

    for width in WIDTHS {
        let out = calltape(&["compare", "base/latest", "norepair/latest"], dir, width, &[]);
        assert_eq!(out.status.code(), Some(1));
        let output = text(&out);
        assert_fits(&output, width);
        let lines: Vec<&str> = output.lines().collect();
        assert!(lines[1].starts_with("Gate: FAILED — ") && lines[1].ends_with(" thresholds crossed"), "{output}");
        // Each crossed threshold once: newly failing scenarios are one line per model.
        let breaches: Vec<&str> = lines[2..].iter().take_while(|l| l.starts_with("  ")).copied().collect();
        assert!(breaches.iter().any(|l| l.contains("sim-cheap-types: pass rate")), "{output}");
        let failing_per_model = breaches.iter().filter(|l| l.contains("passed every trial before")).count();
        assert!(failing_per_model <= 8, "{output}");
        for figure in ["pass", "Δ pass", "invalid", "cost $", "p95 ms"] {
            assert!(output.lines().any(|l| l.starts_with("model ") && l.contains(figure)), "{figure}:\n{output}");
        }
        // Long lists cut and counted, with the command that prints them all.
        let failing = output.split("\nNewly failing (").nth(1).expect("newly failing");
        let total: usize = failing.split(')').next().unwrap().parse().unwrap();
        assert!(total > 10, "{total}");
        assert!(failing.contains(&format!("  … and {} more\n", total - 10)), "{failing}");
        let advice = lines.iter().find_map(|l| l.strip_prefix("every line: ")).expect("advice");
        assert_eq!(advice, "calltape compare base/latest norepair/latest --all");
        let all = run_advice(advice, dir);
        assert_eq!(all.status.code(), Some(1));
        let all = text(&all);
        assert!(!all.contains("… and ") && all.contains(&format!("Newly failing ({total})")), "{all}");
        let listed = all.lines().filter(|l| l.starts_with("  ") && l.contains(": ") && l.contains('/')).count();
        assert!(listed >= total, "{listed} < {total}");
    }
    let same = calltape(&["compare", "base/latest", "base/latest"], dir, 80, &[]);
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(text(&same).lines().nth(1), Some("Gate: passed (every figure within its threshold)"));
}

#[test]
fn run_help_wraps_to_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    for width in WIDTHS {
        let out = calltape(&["run", "--help"], dir.path(), width, &[]);
        assert!(out.status.success());
        let help = text(&out);
        assert!(help.contains("--repair <REPAIR>"), "{help}");
        for line in help.lines() {
            assert!(line.chars().count() <= width, "a line of {} columns at width {width}: {line:?}", line.chars().count());
        }
    }
}
