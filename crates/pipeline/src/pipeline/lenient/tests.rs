use super::LenientFix::*;
use super::*;
use serde_json::json;

fn ok(text: &str) -> (Value, Vec<LenientFix>) {
    parse_lenient(text).map(|(v, f)| (v, f.to_vec())).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}
fn check(text: &str, want: Value, fixes: &[LenientFix]) {
    let (v, f) = ok(text);
    assert_eq!(v, want, "value for {text:?}");
    assert_eq!(f, fixes, "fixes for {text:?}");
}

#[test]
fn valid_json_comes_back_unchanged_without_fixes() {
    for text in [
        r#"{"a": 1, "b": [true, false, null], "c": {"d": "e\n\"f\"\u2605"}}"#,
        r#"[1, -2.5e3, 0, -0, 1e400, 12345678901234567890, -9223372036854775808, "😀", "\ud83d\ude00"]"#,
        r#"{"args": "{\"inner\": 1}"}"#,
        "\"just a string\"",
        " 42 ",
    ] {
        let strict: Value = serde_json::from_str(text).unwrap_or_else(|_| {
            // 1e400 is out of range for serde_json: compare the rest
            serde_json::from_str(&text.replace("1e400, ", "")).unwrap()
        });
        let (v, f) = ok(text);
        if text.contains("1e400") {
            let mut arr = v.as_array().unwrap().clone();
            assert_eq!(arr.remove(4), json!("1e400"));
            assert_eq!(Value::Array(arr), strict);
        } else {
            assert_eq!(v, strict, "{text}");
            assert!(f.is_empty(), "{text}: {f:?}");
        }
    }
    // nesting deeper than serde_json's limit (128) is refused here too: the
    // result could not be written to events and read back
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    assert!(serde_json::from_str::<Value>(&deep).is_err());
    assert!(parse_lenient(&deep).is_err());
}

#[test]
fn code_fence() {
    check("```json\n{\"a\": 1}\n```", json!({"a": 1}), &[CodeFence]);
    check("```\n[1, 2]\n```", json!([1, 2]), &[CodeFence]);
    check("```json\n{\"a\": 1}", json!({"a": 1}), &[CodeFence]);
    check("```json\n```", json!({}), &[CodeFence, EmptyAsObject]);
    check("Here you go:\n```json\n{\"a\": 1}\n```\nLet me know!", json!({"a": 1}), &[SurroundingText, CodeFence]);
}

#[test]
fn surrounding_text() {
    check("Sure! Here are the arguments: {\"city\": \"Paris\"} Hope this helps.", json!({"city": "Paris"}), &[SurroundingText]);
    check("I'll call the tool.\n{\"a\": 1}", json!({"a": 1}), &[SurroundingText]);
    check("{\"a\": 1}\nHope this helps!", json!({"a": 1}), &[SurroundingText]);
    check("<tool_call>{\"a\": [1]}</tool_call>", json!({"a": [1]}), &[SurroundingText]);
    check("json\n{\"a\": 1}", json!({"a": 1}), &[SurroundingText]);
    // plain prose without a value stays a string
    check("hello world", json!("hello world"), &[UnquotedValue]);
    check("undefined", Value::Null, &[JsLiteral]);
    check("Note: [1, 2] and more", json!([1, 2]), &[SurroundingText]);
    check("Note: {} and more", json!({}), &[SurroundingText]);
    // words that are values are read as such, not searched past
    check("True, {\"a\": 1}", json!([true, {"a": 1}]), &[PythonLiteral, Concatenated]);
    check("callback({\"a\": 1});", json!({"a": 1}), &[FunctionCall]);
    check("// a comment\nSure: {\"a\": 1}", json!({"a": 1}), &[SurroundingText]);
    // a fence comes first, even around prose
    check("```\nOK {\"a\": 1}\n```", json!("OK"), &[SurroundingText, CodeFence, UnquotedValue]);
}

#[test]
fn trailing_and_leading_commas() {
    check("{\"a\": 1,}", json!({"a": 1}), &[TrailingComma]);
    check("[1, 2, ]", json!([1, 2]), &[TrailingComma]);
    check("{\"a\": [1,],}", json!({"a": [1]}), &[TrailingComma]);
    check("{\"a\": 1},", json!({"a": 1}), &[TrailingComma]);
    check("[,1]", json!([1]), &[LeadingComma]);
}

#[test]
fn single_and_curly_quotes() {
    check("{'a': 'b'}", json!({"a": "b"}), &[SingleQuotes]);
    check("{'a': \"it's\"}", json!({"a": "it's"}), &[SingleQuotes]);
    check("{“a”: “b”}", json!({"a": "b"}), &[CurlyQuotes]);
    check("{‘a’: ‘b’}", json!({"a": "b"}), &[CurlyQuotes]);
    check("{\"q\": \"weather in “Paris”\"}", json!({"q": "weather in “Paris”"}), &[]);
}

#[test]
fn unquoted_keys_and_values() {
    check("{a: 1, b_2: \"x\"}", json!({"a": 1, "b_2": "x"}), &[UnquotedKey]);
    check("{\"command\": ls -la}", json!({"command": "ls -la"}), &[UnquotedValue]);
    check("{\"command\": ls -la /tmp, \"timeout\": 30}", json!({"command": "ls -la /tmp", "timeout": 30}), &[UnquotedValue]);
    check("{\"q\": hello, world}", json!({"q": "hello, world"}), &[UnquotedValue]);
    check("{\"cmd\": echo ${HOME}, \"cwd\": /tmp}", json!({"cmd": "echo ${HOME}", "cwd": "/tmp"}), &[UnquotedValue]);
    check("{\"a\": 5 apples, \"t\": 12:30}", json!({"a": "5 apples", "t": "12:30"}), &[UnquotedValue]);
    check("{url: https://example.com/a?b=1, \"n\": 2}", json!({"url": "https://example.com/a?b=1", "n": 2}), &[UnquotedKey, UnquotedValue]);
    check(
        "{greeting: hello world\nnext: \"line\"}",
        json!({"greeting": "hello world", "next": "line"}),
        &[UnquotedKey, UnquotedValue, MissingComma],
    );
    check("[a, b]", json!(["a", "b"]), &[UnquotedValue]);
}

#[test]
fn python_and_js_literals() {
    check("{\"a\": True, \"b\": False, \"c\": None}", json!({"a": true, "b": false, "c": null}), &[PythonLiteral]);
    check("{\"a\": undefined, \"b\": NaN, \"c\": -Infinity}", json!({"a": null, "b": null, "c": null}), &[JsLiteral]);
    check("[Trueish]", json!(["Trueish"]), &[UnquotedValue]);
}

#[test]
fn comments() {
    check("{\"a\": 1, // note\n\"b\": 2}", json!({"a": 1, "b": 2}), &[Comment]);
    check("/* c */ {\"a\": /* x */ 1}", json!({"a": 1}), &[Comment]);
    check("{\"a\": 1, # note\n\"b\": 2}", json!({"a": 1, "b": 2}), &[Comment]);
    check("{\"color\": #fff}", json!({"color": "#fff"}), &[UnquotedValue]);
    check("{\"a\": \"/* not a comment */\"}", json!({"a": "/* not a comment */"}), &[]);
}

#[test]
fn missing_comma_and_colon() {
    check("{\"a\": 1 \"b\": 2}", json!({"a": 1, "b": 2}), &[MissingComma]);
    check("{\"a\": 1\n\"b\": 2}", json!({"a": 1, "b": 2}), &[MissingComma]);
    check("[1 2 \"x\"]", json!([1, 2, "x"]), &[MissingComma]);
    check("{\"a\" 1}", json!({"a": 1}), &[MissingColon]);
    check("{\"a\" \"b\"}", json!({"a": "b"}), &[MissingColon]);
    check("{\"a\":, \"b\": 2}", json!({"a": null, "b": 2}), &[MissingValue]);
}

#[test]
fn unescaped_quotes() {
    check("{\"a\": \"say \"hi\" now\"}", json!({"a": "say \"hi\" now"}), &[UnescapedQuote]);
    check("\"The TV has a 24\" screen\"", json!("The TV has a 24\" screen"), &[UnescapedQuote]);
    check("{\"h\": \"(5'3\")\"}", json!({"h": "(5'3\")"}), &[UnescapedQuote]);
    check("{\"a\":\"b,\"c\":\"d\"}", json!({"a": "b", "c": "d"}), &[MissingQuote]);
}

#[test]
fn raw_control_characters_and_escapes() {
    check("{\"t\": \"line1\nline2\ttab\"}", json!({"t": "line1\nline2\ttab"}), &[RawNewline]);
    check("\"a\u{0}b\"", json!("a\u{0}b"), &[RawNewline]);
    check("{\"p\": \"C:\\Users\\me\"}", json!({"p": "C:\\Users\\me"}), &[InvalidEscape]);
    check("{\"re\": \"\\d+\"}", json!({"re": "\\d+"}), &[InvalidEscape]);
    check("\"it\\'s\"", json!("it's"), &[InvalidEscape]);
    check("\"first\\\nsecond\"", json!("first\nsecond"), &[InvalidEscape]);
    check("{\\\"a\\\": \\\"b\\\"}", json!({"a": "b"}), &[EscapedQuotes]);
}

#[test]
fn escaped_json_inside_a_string_is_not_decoded() {
    check("{\"args\": \"{\\\"x\\\": 1}\",}", json!({"args": "{\"x\": 1}"}), &[TrailingComma]);
}

#[test]
fn truncation() {
    check("{\"a\": \"hel", json!({"a": "hel"}), &[Truncated]);
    check("{\"a\": [1, 2", json!({"a": [1, 2]}), &[Truncated]);
    check("{\"a\": {\"b\": 1", json!({"a": {"b": 1}}), &[Truncated]);
    check("[{\"a\": 1}, {\"b\"", json!([{"a": 1}, {}]), &[Truncated]);
    // a key whose value was cut off is dropped
    check("{\"a\": 1, \"b\":", json!({"a": 1}), &[Truncated]);
    check("{\"a\": 1, \"b\"", json!({"a": 1}), &[Truncated]);
    check("{\"a\": 1, \"bb", json!({"a": 1}), &[Truncated]);
    check("{\"a\": 1, ", json!({"a": 1}), &[TrailingComma, Truncated]);
    check("{\"a\": \"x\\u26", json!({"a": "x"}), &[Truncated]);
    check("{\"a\": 2.", json!({"a": 2.0}), &[InvalidNumber, Truncated]);
}

#[test]
fn concatenated_values_become_an_array() {
    check("{\"a\": 1}{\"b\": 2}", json!([{"a": 1}, {"b": 2}]), &[Concatenated]);
    check("{\"a\": 1}\n{\"b\": 2}\n", json!([{"a": 1}, {"b": 2}]), &[Concatenated]);
    check("1, 2, 3", json!([1, 2, 3]), &[Concatenated]);
}

#[test]
fn empty_as_object() {
    check("", json!({}), &[EmptyAsObject]);
    check("  \n\t ", json!({}), &[EmptyAsObject]);
    check("\u{feff}", json!({}), &[EmptyAsObject]);
}

#[test]
fn numbers() {
    check("{\"n\": 0789}", json!({"n": "0789"}), &[InvalidNumber]);
    check("[.5, -.5, 2., -]", json!([0.5, -0.5, 2.0, -0.0]), &[InvalidNumber]);
    check("[1e400]", json!(["1e400"]), &[]);
    check("[0.0.1]", json!(["0.0.1"]), &[UnquotedValue]);
    // plain integers take a shorter road to the same values
    check(
        "[0, -0, 7, -12, 00, -01, 123456789012345678, 1234567890123456789]",
        json!([0, -0.0, 7, -12, "00", "-01", 123456789012345678_i64, 1234567890123456789_i64]),
        &[InvalidNumber],
    );
    check("{\"n\": 5 apples, \"m\": 12:30, \"k\": 3}", json!({"n": "5 apples", "m": "12:30", "k": 3}), &[UnquotedValue]);
    check("[1,2}", json!([1, 2]), &[UnbalancedBracket]);
}

#[test]
fn function_calls_ellipsis_concat_and_brackets() {
    check("{\"n\": NumberLong(2), \"id\": ObjectId(\"x\")}", json!({"n": 2, "id": "x"}), &[FunctionCall]);
    check("callback({\"a\": 1});", json!({"a": 1}), &[FunctionCall]);
    check("[1, 2, ...]", json!([1, 2]), &[Ellipsis]);
    check("\"a\" + \"b\"", json!("ab"), &[StringConcatenation]);
    check("{\"a\": 1}}", json!({"a": 1}), &[UnbalancedBracket]);
    check("{\"a\": [1}", json!({"a": [1]}), &[UnbalancedBracket]);
    check("{\"a\":\u{a0}1}", json!({"a": 1}), &[SpecialWhitespace]);
}

#[test]
fn fixes_are_deduplicated_in_order_of_first_use() {
    let (_, f) = ok("{'a': True, 'b': [1 2,], c: None,");
    assert_eq!(f, vec![SingleQuotes, PythonLiteral, MissingComma, TrailingComma, UnquotedKey, Truncated]);
    assert_eq!(serde_json::to_string(&f[..2]).unwrap(), r#"["single_quotes","python_literal"]"#);
    assert_eq!(serde_json::from_str::<LenientFix>("\"empty_as_object\"").unwrap(), EmptyAsObject);
}

#[test]
fn errors() {
    for text in ["{\"a\",", "{:2}", "{\"a\" ]", "\"\\u26\"", "\"\\uZ000\"", "foo ["] {
        let e = parse_lenient(text).expect_err(text);
        assert!(e.offset <= text.len(), "{text}: {e}");
    }
    let e = parse_lenient("{:2}").unwrap_err();
    assert_eq!(e.to_string(), "Object key expected at byte 1");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["[", "{\"a\":", "f(", "{\"a\": [", "[\"a\" + \"b\", "] {
        let text = open.repeat(100_000);
        let e = parse_lenient(&text).expect_err(open);
        assert!(e.message.contains("Nesting"), "{open}: {e}");
    }
    // the deepest allowed nesting fits a 2 MiB thread stack even unoptimized
    let text = format!("{}{}", "{\"a\": [".repeat(MAX_DEPTH / 2 - 1), "]}".repeat(MAX_DEPTH / 2 - 1));
    let handle = std::thread::Builder::new().stack_size(2 << 20).spawn(move || parse_lenient(&text).map(|(_, f)| f.to_vec())).unwrap();
    assert_eq!(handle.join().unwrap(), Ok(vec![]));
    // and whatever it returns, serde_json reads back
    let deepest = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    let (value, _) = parse_lenient(&format!("{deepest},")).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&value.to_string()).unwrap(), value);
    assert!(parse_lenient(&format!("[{deepest}")).is_err(), "one level more is refused");
}

/// Found by fuzzing (`fuzz/regressions/lenient_parser/crash-2b5f…`): a
/// string whose end quote is preceded by an escaped comma (`"\,"x`) was
/// re-read to stop at that comma, but the escape stepped over it, so the
/// re-read met the same quote and recursed again, once per step of the work
/// budget, until the stack overflowed.
#[test]
fn a_stop_inside_an_escape_does_not_recurse_without_end() {
    let text = format!("\"\\,\"{}", "<".repeat(100_000));
    let handle = std::thread::Builder::new().stack_size(256 << 10).spawn(move || parse_lenient(&text)).unwrap();
    // What matters is that it returns (the quote reads as one inside the
    // string, as no string follows it: `"\,"<<<…` cut off).
    let got = handle.join().expect("no stack overflow");
    assert!(got.is_ok_and(|(v, _)| v.as_str().is_some_and(|s| s.starts_with("\\,\"<"))));
}

#[test]
fn every_prefix_parses_or_errors_without_panic() {
    let sample = "```json\n{\"command\": 'ls -la /tmp', \"env\": {\"A\": [1, 2.5e-3, true, None]}, \
                  // note\n \"text\": \"say \"hi\" ★😀 \\u2605 \\n\", unquoted: value here, \"n\": NumberLong(3)}\n```";
    for (k, _) in sample.char_indices().chain([(sample.len(), ' ')]) {
        let prefix = &sample[..k];
        let r = std::panic::catch_unwind(|| parse_lenient(prefix));
        assert!(r.is_ok(), "panic on prefix {prefix:?}");
    }
    // truncated right inside the object: earlier members survive
    let cut = &sample[..sample.find("say").unwrap()];
    let (v, f) = ok(cut);
    assert_eq!(v["command"], json!("ls -la /tmp"));
    assert!(f.contains(&Truncated));
}

#[test]
fn pathological_input_takes_linear_time() {
    // Each string here would be rescanned to the end: the work budget
    // stops it. Checked by growth, not a wall-clock limit (machines are
    // shared): 4x the input may cost about 4x, never the 16x of a
    // quadratic scan. Best of three runs each, to ride out noise.
    let best = |n: usize| {
        let text = format!("[{}]", "\"x\"y ".repeat(n));
        (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                let _ = parse_lenient(&text);
                start.elapsed()
            })
            .min()
            .unwrap()
    };
    let (small, large) = (best(2_000), best(8_000));
    assert!(large < small * 10 + std::time::Duration::from_millis(20), "{small:?} for 2k, {large:?} for 8k");
    let big = serde_json::to_string(&vec![json!({"k": "v, \"q\"", "n": [1, 2]}); 20_000]).unwrap();
    let (v, f) = ok(&format!("{big},"));
    assert_eq!(v.as_array().unwrap().len(), 20_000);
    assert_eq!(f, vec![TrailingComma]);
}

/// The jsonrepair test-suite corpus (tests/fixtures/json-repair/).
#[test]
fn corpus() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/json-repair/jsonrepair.jsonl");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
            (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
            _ => a == b,
        }
    }
    let (mut total, mut good, mut panics) = (0, 0, 0);
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap().to_string();
        let got = std::panic::catch_unwind(|| parse_lenient(&input));
        let Ok(got) = got else {
            panics += 1;
            failures.push(format!("line {}: PANIC on {input:?}", n + 1));
            continue;
        };
        if case["outcome"] == "ok" {
            total += 1;
            match &got {
                Ok((v, _)) if same(v, &case["expected"]) => good += 1,
                _ => failures.push(format!("line {}: {input:?} want {} got {got:?}", n + 1, case["expected"])),
            }
        }
    }
    let rate = good as f64 / total as f64;
    eprintln!("corpus: {good}/{total} ok cases equal ({:.1}%)\n{}", rate * 100.0, failures.join("\n"));
    assert_eq!(panics, 0);
    assert!(total >= 400, "corpus too small: {total}");
    assert!(rate >= 0.97, "only {good}/{total} ok cases equal expected");
}

/// Pieces of the text models write, for the fast-path test: strings plain
/// and not, keys with and without quotes, keywords, separators, brackets
/// and the repairs that sit next to them (a `+` after a newline, comments,
/// prose, an ellipsis).
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"a\"",
    "'b'",
    "\"cmd\"",
    "c",
    "\"k y\"",
    "\"x\\\"y\"",
    "\"é\"",
    "\"a:b\"",
    ":",
    ": ",
    " : ",
    ",",
    ", ",
    ",\n",
    "\n",
    " ",
    "\t",
    "true",
    "True",
    "None",
    "null",
    "false",
    "12",
    "-1",
    "1.5",
    "\"v\"",
    "'w'",
    "\"a\nb\"",
    "+",
    "\n+ ",
    "\"x\" + \"y\"",
    "ls -la",
    "\"/tmp\"",
    "`q`",
    "//c\n",
    "/*c*/",
    "# c\n",
    "...",
    "Sure: ",
    "```json\n",
    "\n```",
    "\u{a0}",
    "fn(",
    ")",
    "\\",
    "\"",
];

/// A parse step's result moves like the value it carries (see `parser::R`):
/// an error kept inline would make every result larger than the value.
#[test]
fn a_parse_result_is_no_larger_than_its_value() {
    use std::mem::size_of;
    assert_eq!(size_of::<parser::R<Option<Value>>>(), size_of::<Value>());
    assert_eq!(size_of::<parser::R<Value>>(), size_of::<Value>());
}

fn json_like() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (any::<bool>(), proptest::collection::vec(proptest::sample::select(PIECES), 0..24)).prop_map(|(open, pieces)| {
        if open {
            format!("{{{}", pieces.concat())
        } else {
            pieces.concat()
        }
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
    /// The fast paths (plain strings, plain member starts, keywords before
    /// function calls, the prose check) read exactly what the general path
    /// reads: the same value and fixes, or the same error.
    #[test]
    fn fast_paths_read_what_the_general_path_reads(text in json_like()) {
        let fast = parse_lenient(&text);
        parser::FAST_PATHS.with(|on| on.set(false));
        let general = parse_lenient(&text);
        parser::FAST_PATHS.with(|on| on.set(true));
        proptest::prop_assert_eq!(fast, general, "{:?}", text);
    }
}
