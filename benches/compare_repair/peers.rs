//! The Rust peers of `benches/compare_repair.sh`: `jsonrepair-rs` (repaired
//! text, then `serde_json` to a `Value`: its `jsonrepair_value`) and
//! `llm_json` (`loads`, straight to a `Value`), timed the way
//! `calltape repair --batch --time` times calltape, and all three engines
//! scored on a corpus of broken JSON with expected values.
//!
//! usage:
//!   repair_peers time BATCH_JSONL ROUNDS     one JSON line: µs per call of each peer
//!   repair_peers score CORPUS_JSONL [--failures ENGINE]
//!                                            per engine: expected values matched
//!   repair_peers                             a short smoke run of both on the
//!                                            bundled corpus (what `cargo run --example` does)
//!
//! A batch line is `{"args": TEXT, ...}`; a corpus line is
//! `{"input": TEXT, "expected": VALUE, "outcome": "ok"|"error"}` (the
//! outcome defaults to "ok"). Built with the dev-dependencies only; the
//! release build for timing is `cargo build --release --example repair_peers`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use serde_json::Value;

type Engine = fn(&str) -> Result<Value, String>;

fn jsonrepair_rs(text: &str) -> Result<Value, String> {
    jsonrepair_rs::jsonrepair_value(text).map_err(|e| e.to_string())
}

fn llm_json(text: &str) -> Result<Value, String> {
    llm_json::loads(text, &llm_json::RepairOptions::default()).map_err(|e| e.to_string())
}

/// calltape's first read of arguments: strict, else lenient (no schema).
fn calltape(text: &str) -> Result<Value, String> {
    match calltape::pipeline::parse::parse_strict(text) {
        Ok(v) => Ok(v),
        Err(_) => calltape::pipeline::lenient::parse_lenient(text).map(|(v, _)| v).map_err(|e| e.to_string()),
    }
}

const ENGINES: &[(&str, Engine)] = &[("calltape", calltape), ("jsonrepair-rs", jsonrepair_rs), ("llm_json", llm_json)];

/// Untimed warm-up before the timed rounds, as every other timer does.
const WARM_UP: Duration = Duration::from_secs(1);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/json-repair/jsonrepair.jsonl");
    let result = match args.first().map(String::as_str) {
        Some("time") if args.len() == 3 => {
            args[2].parse().map_err(|e| format!("ROUNDS: {e}")).and_then(|rounds| time(&args[1], rounds, WARM_UP))
        }
        Some("score") if args.len() >= 2 => {
            let only = args.iter().position(|a| a == "--failures").and_then(|i| args.get(i + 1)).map(String::as_str);
            score(&args[1], only)
        }
        None => time_corpus_as_batch(bundled).and_then(|()| score(bundled, None)),
        _ => Err("usage: repair_peers time BATCH_JSONL ROUNDS | repair_peers score CORPUS_JSONL [--failures ENGINE]".into()),
    };
    if let Err(e) = result {
        eprintln!("repair_peers: {e}");
        std::process::exit(2);
    }
}

fn read_lines(path: &str) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("{path}:{}: {e}", i + 1)))
        .collect()
}

fn field<'a>(line: &'a Value, name: &str, path: &str) -> Result<&'a str, String> {
    line[name].as_str().ok_or_else(|| format!("{path}: a line has no string field {name:?}"))
}

/// Times each peer over the batch's `args`: fastest of `rounds` rounds, mean µs per call.
fn time(path: &str, rounds: usize, warm_up: Duration) -> Result<(), String> {
    let lines = read_lines(path)?;
    let texts: Vec<&str> = lines.iter().map(|l| field(l, "args", path)).collect::<Result<_, _>>()?;
    if texts.is_empty() {
        return Err(format!("{path}: no lines to time"));
    }
    let us = |f: Engine| fastest_mean(&texts, f, rounds, warm_up);
    let out = serde_json::json!({
        "inputs": texts.len(),
        "rounds": rounds.max(1),
        "jsonrepair_rs_mean_us": us(jsonrepair_rs),
        "llm_json_mean_us": us(llm_json),
    });
    println!("{out}");
    Ok(())
}

/// The smoke run: the corpus's inputs as a batch, one round, no warm-up.
fn time_corpus_as_batch(corpus: &str) -> Result<(), String> {
    let lines = read_lines(corpus)?;
    let batch: String = lines.iter().map(|l| format!("{}\n", serde_json::json!({"args": l["input"]}))).collect();
    let path = std::env::temp_dir().join(format!("repair_peers_smoke_{}.jsonl", std::process::id()));
    std::fs::write(&path, batch).map_err(|e| e.to_string())?;
    let result = time(&path.to_string_lossy(), 1, Duration::ZERO);
    let _ = std::fs::remove_file(&path);
    result
}

fn fastest_mean(texts: &[&str], f: Engine, rounds: usize, warm_up: Duration) -> f64 {
    // An input a peer panics on is left out of its timing (and counted by `score`).
    let texts: Vec<&str> = texts.iter().copied().filter(|t| catch_unwind(AssertUnwindSafe(|| f(t))).is_ok()).collect();
    // The result is kept by showing where it lies, then dropped, as
    // `calltape repair --batch --time` keeps its verdicts.
    let run = || {
        texts.iter().for_each(|t| {
            let out = f(std::hint::black_box(t));
            std::hint::black_box(&out);
        })
    };
    let until = Instant::now() + warm_up;
    while Instant::now() < until {
        run();
    }
    (0..rounds.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e6 / texts.len().max(1) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Values equal as JSON, numbers compared as `f64` (`1.0` equals `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// The `convention` of a case where json_repair expects `""`: no JSON in
/// the text (`json_repair_cases.py` marks them).
const NO_JSON_HERE: &str = "empty result";

/// Per engine: how many `ok` lines come back as `expected` and how many
/// `error` lines are refused; with `only`, that engine's misses too. On a
/// corpus with "no JSON here" cases, a second figure counts an engine's
/// refusal of one as agreeing with it (the raw figure stays first).
fn score(path: &str, only: Option<&str>) -> Result<(), String> {
    let lines = read_lines(path)?;
    std::panic::set_hook(Box::new(|_| {}));
    println!("{path}: {} cases", lines.len());
    for (name, f) in ENGINES {
        if only.is_some_and(|o| o != *name) {
            continue;
        }
        let (mut right, mut panics, mut refused_no_json) = (0, 0, 0);
        let mut misses = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let input = field(line, "input", path)?;
            let want_error = line["outcome"] == "error";
            match catch_unwind(AssertUnwindSafe(|| f(input))) {
                Err(_) => {
                    panics += 1;
                    misses.push(format!("line {}: panic on {input:?}", n + 1));
                }
                Ok(Err(_)) if want_error => right += 1,
                Ok(Ok(v)) if !want_error && same(&v, &line["expected"]) => right += 1,
                Ok(Err(e)) if line["convention"] == NO_JSON_HERE => {
                    refused_no_json += 1;
                    misses.push(format!("line {}: {input:?}\n    want \"\" (no JSON here)\n    got  a refusal: {e}", n + 1));
                }
                Ok(got) => misses.push(format!(
                    "line {}: {input:?}\n    want {}\n    got  {:?}",
                    n + 1,
                    if want_error { "an error".to_string() } else { line["expected"].to_string() },
                    got.map(|v| v.to_string())
                )),
            }
        }
        let share = |n: usize| 100.0 * n as f64 / lines.len().max(1) as f64;
        println!("{name:14} {right}/{} ({:.1}%), {panics} panics", lines.len(), share(right));
        if lines.iter().any(|line| line["convention"] == NO_JSON_HERE) {
            // The rule of docs/lenient-parser-comparison.md: json_repair's
            // `""` says "no JSON here", and so does a refusal.
            let ruled = right + refused_no_json;
            println!(
                "{:14} {ruled}/{} ({:.1}%) counting {refused_no_json} refusals as json_repair's \"no JSON here\"",
                "",
                lines.len(),
                share(ruled)
            );
        }
        if only.is_some() {
            misses.iter().for_each(|m| println!("  {m}"));
        }
    }
    Ok(())
}
