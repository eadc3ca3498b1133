//! Property tests of the repair pipeline's promises: it never turns a valid
//! call invalid (or changes it), and whatever it calls repaired validates.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use calltape::chat::ToolCall;
use calltape::core::modes::RepairMode;
use calltape::core::tools::ToolSpec;
use calltape::pipeline::tool::{compile_tool, Tool};
use calltape::pipeline::{check_call, validate::validate_args, CallOutcome, PipelineOptions, RepairRules};

/// The tools, made once: a verdict borrows its tool from them.
fn tools() -> &'static [Arc<Tool>] {
    static TOOLS: std::sync::OnceLock<Vec<Arc<Tool>>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(make_tools)
}

fn make_tools() -> Vec<Arc<Tool>> {
    let spec = |name: &str, parameters: Value| ToolSpec { name: name.into(), description: String::new(), parameters, sensitive: false };
    vec![
        Arc::new(
            compile_tool(spec(
                "read_file",
                json!({"type": "object", "additionalProperties": false,
                    "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                                   "start_line_one_indexed": {"type": "integer", "minimum": 1},
                                   "mode": {"type": "string", "enum": ["text", "binary"]},
                                   "tags": {"type": "array", "items": {"type": "string"}}},
                    "required": ["target_file", "should_read_entire_file"]}),
            ))
            .unwrap(),
        ),
        Arc::new(
            compile_tool(spec(
                "run_terminal_cmd",
                json!({"type": "object", "additionalProperties": false,
                    "properties": {"command": {"type": "string"}, "is_background": {"type": "boolean"}},
                    "required": ["command", "is_background"]}),
            ))
            .unwrap(),
        ),
    ]
}

fn rules() -> RepairRules {
    serde_json::from_value(json!({"defaults": {"read_file": {"should_read_entire_file": false}}})).unwrap()
}

/// Valid read_file arguments.
fn valid_args() -> impl Strategy<Value = Map<String, Value>> {
    (
        "[a-zA-Z0-9_./ -]{0,24}",
        any::<bool>(),
        proptest::option::of(1i64..100_000),
        proptest::option::of(prop_oneof![Just("text"), Just("binary")]),
        proptest::option::of(proptest::collection::vec("[a-z]{0,6}", 0..3)),
    )
        .prop_map(|(file, whole, start, mode, tags)| {
            let mut m = Map::new();
            m.insert("target_file".into(), json!(file));
            m.insert("should_read_entire_file".into(), json!(whole));
            if let Some(s) = start {
                m.insert("start_line_one_indexed".into(), json!(s));
            }
            if let Some(mode) = mode {
                m.insert("mode".into(), json!(mode));
            }
            if let Some(tags) = tags {
                m.insert("tags".into(), json!(tags));
            }
            m
        })
}

/// Ways models get such arguments wrong.
#[derive(Debug, Clone)]
enum Mutation {
    Alias(&'static str),
    StringifyScalars,
    DropRequiredBool,
    Extra(String),
    UpperEnum,
    TrailingComma,
    SingleQuotes,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        prop_oneof![Just("file_path"), Just("path"), Just("filePath"), Just("targetFile")].prop_map(Mutation::Alias),
        Just(Mutation::StringifyScalars),
        Just(Mutation::DropRequiredBool),
        "[a-z]{1,8}".prop_map(Mutation::Extra),
        Just(Mutation::UpperEnum),
        Just(Mutation::TrailingComma),
        Just(Mutation::SingleQuotes),
    ]
}

fn apply(m: &Mutation, args: &Map<String, Value>) -> String {
    let mut a = args.clone();
    match m {
        Mutation::Alias(alias) => {
            if let Some(v) = a.remove("target_file") {
                a.insert(alias.to_string(), v);
            }
        }
        Mutation::StringifyScalars => {
            for v in a.values_mut() {
                if v.is_number() || v.is_boolean() {
                    *v = Value::String(v.to_string());
                }
            }
        }
        Mutation::DropRequiredBool => {
            a.remove("should_read_entire_file");
        }
        Mutation::Extra(k) => {
            a.entry(k.clone()).or_insert(json!(true));
        }
        Mutation::UpperEnum => {
            if let Some(Value::String(s)) = a.get_mut("mode") {
                *s = s.to_uppercase();
            }
        }
        Mutation::TrailingComma => {
            let text = Value::Object(a).to_string();
            return if text == "{}" { text } else { format!("{},}}", &text[..text.len() - 1]) };
        }
        Mutation::SingleQuotes => {
            // Only where no value holds a quote of either kind, so the meaning is unambiguous.
            let text = Value::Object(a).to_string();
            return if text.contains('\'') || text.contains("\\\"") { text } else { text.replace('"', "'") };
        }
    }
    Value::Object(a).to_string()
}

fn run(name: &str, text: &str) -> calltape::pipeline::CallVerdict<'static> {
    let call = ToolCall { id: "c".into(), name: name.into(), arguments: text.into() };
    check_call(&call, tools(), PipelineOptions { repair: RepairMode::Local, rules: &rules() })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_calls_come_through_untouched(args in valid_args()) {
        let text = Value::Object(args.clone()).to_string();
        let v = run("read_file", &text);
        prop_assert_eq!(v.outcome, CallOutcome::Valid);
        prop_assert!(v.fixes.is_empty());
        prop_assert_eq!(v.args, Some(Value::Object(args)));
    }

    #[test]
    fn repaired_calls_always_validate(args in valid_args(), mutations in proptest::collection::vec(mutation(), 1..4)) {
        let mut text = Value::Object(args.clone()).to_string();
        for m in &mutations {
            // Text-level mutations end the chain: later ones work on objects.
            let parsed: Option<Map<String, Value>> = serde_json::from_str(&text).ok();
            match parsed {
                Some(current) => text = apply(m, &current),
                None => break,
            }
        }
        let tools = tools();
        let v = run("read_file", &text);
        match v.outcome {
            CallOutcome::Repaired | CallOutcome::Valid => {
                let fixed = v.args.clone().unwrap();
                prop_assert!(validate_args(&tools[0].validator, &fixed).is_empty(), "{} → {}", text, fixed);
                // Repairing the result again changes nothing.
                let again = run("read_file", &fixed.to_string());
                prop_assert_eq!(again.outcome, CallOutcome::Valid);
            }
            CallOutcome::Invalid => prop_assert!(!v.issues.is_empty()),
            CallOutcome::Truncated => prop_assert!(false, "only a turn's finish reason makes a call truncated"),
        }
    }

    #[test]
    fn no_input_panics_the_pipeline(text in ".{0,80}", name in "[a-zA-Z_]{0,12}") {
        let v = run(&name, &text);
        if v.outcome != CallOutcome::Invalid {
            let tool = v.tool.unwrap();
            prop_assert!(validate_args(&tool.validator, v.args.as_ref().unwrap()).is_empty());
        }
    }
}

#[test]
fn the_common_mistakes_are_all_repaired() {
    for (text, expected) in [
        (r#"{"file_path": "a.rs", "should_read_entire_file": true}"#, json!({"target_file": "a.rs", "should_read_entire_file": true})),
        (
            r#"{"target_file": "a.rs", "should_read_entire_file": "true", "start_line_one_indexed": "3"}"#,
            json!({"target_file": "a.rs", "should_read_entire_file": true, "start_line_one_indexed": 3}),
        ),
        (r#"{"target_file": "a.rs"}"#, json!({"target_file": "a.rs", "should_read_entire_file": false})),
        ("{'target_file': 'a.rs', 'should_read_entire_file': True,}", json!({"target_file": "a.rs", "should_read_entire_file": true})),
        (
            "```json\n{\"target_file\": \"a.rs\", \"should_read_entire_file\": false, \"mode\": \"TEXT\"}\n```",
            json!({"target_file": "a.rs", "should_read_entire_file": false, "mode": "text"}),
        ),
    ] {
        let v = run("read_file", text);
        assert_eq!(v.outcome, CallOutcome::Repaired, "{text}: {:?}", v.issues);
        assert_eq!(v.args.unwrap(), expected, "{text}");
    }
}
