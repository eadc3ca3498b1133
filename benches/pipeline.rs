//! Criterion benches of the tool-call pipeline: each stage alone and the
//! whole local pipeline, on valid, slightly broken and badly broken
//! arguments, and the lenient parser over the jsonrepair corpus.
//!
//! Run: `cargo bench --bench pipeline` (figures in the README).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};

use calltape::chat::ToolCall;
use calltape::core::modes::RepairMode;
use calltape::core::tools::ToolSpec;
use calltape::pipeline::tool::{compile_tool, Tool};
use calltape::pipeline::{check_call, lenient, parse, repair, resolve, validate, PipelineOptions, RepairRules};

fn read_file_tool() -> Arc<Tool> {
    let spec = ToolSpec {
        name: "read_file".into(),
        description: "Read the contents of a file.".into(),
        parameters: json!({"type": "object", "additionalProperties": false,
            "properties": {
                "target_file": {"type": "string"},
                "should_read_entire_file": {"type": "boolean"},
                "start_line_one_indexed": {"type": "integer", "minimum": 1},
                "end_line_one_indexed_inclusive": {"type": "integer", "minimum": 1},
                "explanation": {"type": "string"}},
            "required": ["target_file", "should_read_entire_file"]}),
        sensitive: false,
    };
    Arc::new(compile_tool(spec).expect("schema compiles"))
}

/// Argument texts by how broken they are, as the simulated profiles and real models write them.
const CASES: [(&str, &str, &str); 6] = [
    ("valid", "read_file", r#"{"target_file":"src/main.rs","should_read_entire_file":false,"start_line_one_indexed":10,"end_line_one_indexed_inclusive":60}"#),
    ("trailing_comma", "read_file", r#"{"target_file":"src/main.rs","should_read_entire_file":true,}"#),
    ("wrong_type", "read_file", r#"{"target_file":"src/main.rs","should_read_entire_file":"true","start_line_one_indexed":"10"}"#),
    ("alias_and_extra", "read_file", r#"{"file_path":"src/main.rs","should_read_entire_file":true,"verbose":true}"#),
    ("misspelled_tool", "read_fiel", r#"{"target_file":"src/main.rs","should_read_entire_file":true}"#),
    (
        "badly_broken",
        "ReadFile",
        "Sure! Here is the call:\n```json\n{'filePath': src/main.rs, 'should_read_entire_file': 'True', // whole file\n 'start_line_one_indexed': '1'\n```",
    ),
];

fn stages(c: &mut Criterion) {
    let tool = read_file_tool();
    let tools = vec![tool.clone()];
    let rules = RepairRules::default();
    let valid = CASES[0].2;

    let mut g = c.benchmark_group("stage");
    g.bench_function("resolve/exact", |b| b.iter(|| resolve::resolve_tool(black_box("read_file"), &tools, resolve::NameRepair::On)));
    g.bench_function("resolve/near", |b| b.iter(|| resolve::resolve_tool(black_box("read_fiel"), &tools, resolve::NameRepair::On)));
    g.bench_function("parse_strict/valid", |b| b.iter(|| parse::parse_strict(black_box(valid))));
    // What a valid call pays for the scan that spares broken ones a failing strict parse.
    g.bench_function("syntax_scan/valid", |b| b.iter(|| parse::strict_ruled_out(black_box(valid))));
    g.bench_function("parse_lenient/badly_broken", |b| b.iter(|| lenient::parse_lenient(black_box(CASES[5].2))));
    let args: Value = serde_json::from_str(valid).expect("valid JSON");
    g.bench_function("validate/valid", |b| b.iter(|| validate::validate_args(&tool.validator, black_box(&args))));
    let broken: Value = serde_json::from_str(CASES[3].2).expect("valid JSON");
    let issues = validate::validate_args(&tool.validator, &broken);
    g.bench_function("validate/alias_and_extra", |b| b.iter(|| validate::validate_args(&tool.validator, black_box(&broken))));
    g.bench_function("repair_locally/alias_and_extra", |b| {
        b.iter(|| repair::repair_locally(&tool, black_box(broken.clone()), &issues, &rules))
    });
    g.finish();

    // The baseline a valid call is held to: strict serde_json parse plus validation.
    let mut g = c.benchmark_group("valid_call");
    g.bench_function("serde_json_plus_validation", |b| {
        b.iter(|| {
            let v: Value = serde_json::from_str(black_box(valid)).expect("valid JSON");
            tool.validator.is_valid(&v)
        })
    });
    let call = ToolCall { id: "c".into(), name: "read_file".into(), arguments: valid.into() };
    g.bench_function("local_pipeline", |b| {
        b.iter(|| check_call(black_box(&call), &tools, PipelineOptions { repair: RepairMode::Local, rules: &rules }))
    });
    g.finish();

    let mut g = c.benchmark_group("local_pipeline");
    for (name, tool_name, arguments) in CASES {
        let call = ToolCall { id: "c".into(), name: tool_name.into(), arguments: arguments.into() };
        g.bench_with_input(BenchmarkId::from_parameter(name), &call, |b, call| {
            b.iter(|| check_call(black_box(call), &tools, PipelineOptions { repair: RepairMode::Local, rules: &rules }))
        });
    }
    g.finish();
}

fn corpus(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/json-repair/jsonrepair.jsonl");
    let inputs: Vec<String> = std::fs::read_to_string(path)
        .expect("corpus is bundled")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("input").and_then(Value::as_str).map(str::to_string))
        .collect();
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Elements(inputs.len() as u64));
    g.bench_function("parse_lenient/all_417", |b| {
        b.iter(|| inputs.iter().filter(|s| lenient::parse_lenient(black_box(s)).is_ok()).count())
    });
    g.finish();
}

criterion_group!(benches, stages, corpus);
criterion_main!(benches);
