//! Criterion bench of the BFCL checker: every AST entry of the bundled
//! fixtures (tests/fixtures/bfcl), answered right and with one wrong value,
//! judged from JSON as a run judges it. For an optimised figure to set
//! beside BFCL's Python checker (tools/bfcl_agreement measures both, in
//! whatever build it is given).
//!
//! Run: `cargo bench --bench bfcl`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;

use calltape::bfcl::checker::{judge, AnswerCall};
use calltape::bfcl::import::{import_file, Selection};
use calltape::bfcl::BfclCheck;
use calltape::scenario::load_suite;

/// (answer key, answer calls as JSON) for every AST entry of the fixtures.
fn answers() -> Vec<(BfclCheck, Vec<(String, Value)>)> {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bfcl");
    let out = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(fixtures).expect("fixtures are bundled") {
        let path = entry.expect("listing").path();
        if path.extension().is_some_and(|e| e == "json") {
            import_file(&path, None, Some(out.path()), Selection::All).expect("fixtures import");
        }
    }
    let suite = load_suite(out.path()).expect("suite loads");
    let mut out = Vec::new();
    for s in suite.scenarios() {
        let s = s.expect("scenario reads again");
        let Some(key) = s.expect.bfcl.clone().filter(|k| k.category.has_ground_truth()) else { continue };
        let right: Vec<(String, Value)> = s
            .expect
            .calls
            .iter()
            .flat_map(|step| step.calls())
            .map(|c| {
                (c.tool.clone(), Value::Object(c.args.iter().filter_map(|(k, a)| Some((k.clone(), a.canonical()?.clone()))).collect()))
            })
            .collect();
        // The same answer with its first argument's value replaced: a value error.
        let mut wrong = right.clone();
        if let Some(Value::Object(args)) = wrong.first_mut().map(|c| &mut c.1) {
            if let Some((_, v)) = args.iter_mut().next() {
                *v = Value::String("not the answer".into());
            }
        }
        out.push((key.clone(), right));
        out.push((key, wrong));
    }
    out
}

fn checker(c: &mut Criterion) {
    let answers = answers();
    let mut g = c.benchmark_group("bfcl");
    g.throughput(Throughput::Elements(answers.len() as u64));
    g.bench_function("judge/fixtures", |b| {
        b.iter(|| {
            answers
                .iter()
                .filter(|(key, calls)| {
                    let calls: Vec<AnswerCall> = calls.iter().map(|(n, a)| AnswerCall::from_json(n, a)).collect();
                    judge(black_box(key), &calls).is_ok()
                })
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, checker);
criterion_main!(benches);
