//! The bodies of the fuzz targets in `fuzz/` (run with `cargo fuzz`), kept
//! in the library so `tests/fuzz_corpora.rs` replays every input the fuzzers
//! found on each `cargo test`, with no fuzzer installed. Each takes raw
//! bytes, must never panic, and checks one invariant beyond that.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::json;

use crate::chat::ToolCall;
use crate::core::modes::RepairMode;
use crate::core::tools::ToolSpec;
use crate::events::{RunStartedEvent, ScenarioFinishedEvent, ToolCallEvent};
use crate::pipeline::tool::{compile_tool, Tool};
use crate::pipeline::{check_call, lenient, CallOutcome, PipelineOptions, RepairRules};
use crate::scenario::parse_scenario_file;
use crate::transport::sse::{parse_all, SseParser};

/// The lenient parser: whatever it returns is a JSON value that prints and
/// reads back as itself.
pub fn lenient_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((value, _fixes)) = lenient::parse_lenient(text) {
        let printed = value.to_string();
        let back: serde_json::Value = serde_json::from_str(&printed).expect("a lenient result prints as JSON");
        assert_eq!(back, value);
    }
}

/// The SSE parser: the first byte says where to cut the rest in two; fed in
/// two chunks it gives the same events as fed whole.
pub fn sse_parser(data: &[u8]) {
    let Some((&cut, body)) = data.split_first() else { return };
    let cut = usize::from(cut).min(body.len());
    let whole = parse_all(body);
    let mut parser = SseParser::new();
    let mut events = parser.feed(&body[..cut], 0.0);
    events.extend(parser.feed(&body[cut..], 0.0));
    events.extend(parser.finish(0.0));
    assert_eq!(events, whole);
}

fn repair_tools() -> &'static [Arc<Tool>] {
    static TOOLS: OnceLock<Vec<Arc<Tool>>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let spec = |name: &str, parameters| ToolSpec { name: name.into(), description: String::new(), parameters, sensitive: false };
        let read_file = json!({"type": "object", "additionalProperties": false,
            "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                           "start_line_one_indexed": {"type": "integer", "minimum": 1},
                           "mode": {"type": "string", "enum": ["text", "binary"]},
                           "edits": {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}}, "required": ["old", "new"]}}},
            "required": ["target_file", "should_read_entire_file"]});
        let bash = json!({"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number", "default": 120}}, "required": ["command"]});
        vec![
            Arc::new(compile_tool(spec("read_file", read_file)).expect("valid schema")),
            Arc::new(compile_tool(spec("Bash", bash)).expect("valid schema")),
        ]
    })
}

/// The repair pipeline: the first line is the tool name, the rest the
/// arguments. A call it calls valid or repaired satisfies the schema.
pub fn repair_pipeline(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (name, arguments) = text.split_once('\n').unwrap_or(("read_file", &text));
    let call = ToolCall { id: "fuzz".into(), name: name.into(), arguments: arguments.into() };
    let rules = RepairRules::default();
    let verdict = check_call(&call, repair_tools(), PipelineOptions { repair: RepairMode::Local, rules: &rules });
    if matches!(verdict.outcome, CallOutcome::Valid | CallOutcome::Repaired) {
        let (tool, args) = (verdict.tool.as_ref().expect("a valid call has a tool"), verdict.args.as_ref().expect("and arguments"));
        assert!(tool.validator.is_valid(args), "{:?} call with invalid arguments {args}", verdict.outcome);
    }
}

/// The scenario loader: any bytes, as a `.json` and as a `.jsonl` file,
/// give scenarios or errors that name a position in the file.
pub fn scenario_loader(data: &[u8]) {
    for path in ["fuzz.json", "fuzz.jsonl"] {
        if let Err(errors) = parse_scenario_file(Path::new(path), data.to_vec(), "fuzz") {
            assert!(!errors.is_empty());
            for e in errors {
                assert!(e.to_string().starts_with(path), "{e}");
            }
        }
    }
}

/// Tables whose every model-chosen text is one of `texts`: each is a
/// model's name, a tool name (of an unknown-tool call, as `by_tool` keeps
/// it), a scenario id and a failure reason. Inputs for the report writers.
pub fn tables_with_texts(texts: &[String]) -> crate::metrics::Tables {
    use crate::config::ProviderKind;
    use crate::core::prices::{Prices, Tier};
    use crate::events::{Event, EventKind, ModelInfo, UnitKey};
    use crate::pipeline::{InvalidKind, StageTimings};

    let ev = |kind| Event { ts_ms: 0, kind };
    let models: Vec<ModelInfo> = texts
        .iter()
        .map(|t| ModelInfo {
            name: t.clone(),
            provider: ProviderKind::Sim,
            model_id: t.clone(),
            tier: Tier::Cheap,
            price: Prices::default(),
            arm: None,
            fitted: None,
        })
        .collect();
    let mut events = vec![ev(EventKind::RunStarted(RunStartedEvent {
        run_id: "fuzz".into(),
        models,
        suites: vec!["suite".into()],
        trials: 1,
        seed: 0,
        config: String::new(),
    }))];
    for t in texts {
        let unit = UnitKey { model: t.clone(), suite: "suite".into(), scenario: t.clone(), trial: 0 };
        events.push(ev(EventKind::ToolCall(ToolCallEvent {
            unit: unit.clone(),
            step: 1,
            call_id: "c".into(),
            raw_name: t.clone(),
            tool: t.clone(),
            arguments: "{}".into(),
            outcome: CallOutcome::Invalid,
            repaired_by: None,
            invalid_kinds: vec![InvalidKind::UnknownTool],
            issues: vec![],
            remaining_kinds: vec![InvalidKind::UnknownTool],
            fixes: vec![],
            timings: StageTimings::default(),
            final_arguments: None,
        })));
        events.push(ev(EventKind::ScenarioFinished(ScenarioFinishedEvent {
            unit,
            passed: false,
            reason: t.clone(),
            steps: 1,
            error: false,
            expectation: None,
            error_kind: None,
            outcome: None,
        })));
    }
    crate::metrics::build_tables(&events).expect("tables of well-formed events")
}

/// The report writers: the input, cut at each 0xFF byte (never in UTF-8),
/// gives up to 8 texts used as model, tool and scenario names and reasons;
/// every writer's output then keeps its format's encoding invariants.
pub fn report_writers(data: &[u8]) {
    let texts: Vec<String> = data.split(|&b| b == 0xff).take(8).map(|t| String::from_utf8_lossy(t).into_owned()).collect();
    let tables = tables_with_texts(&texts);
    assert_reports_encoded(&tables, &texts);
}

/// Asserts what every report guarantees whatever the texts in `tables`:
/// CSV text cells start no formula and numbers stay numbers, the terminal
/// text has no control character, the Markdown no HTML, link, image or
/// broken table row, the JUnit XML is well-formed XML 1.0, the HTML no
/// element but the page's own; and no report quotes a text of `texts`
/// longer than a cell whole.
pub fn assert_reports_encoded(tables: &crate::metrics::Tables, texts: &[String]) {
    use crate::report::{csv::Csv, html, junit, markdown, terminal, Exporter};

    let long: Vec<&String> = texts.iter().filter(|t| t.chars().count() > crate::quote::CELL_CHARS).collect();
    let not_whole = |what: &str, text: &str| {
        for t in &long {
            assert!(!text.contains(t.as_str()), "{what} quotes a {}-byte text whole", t.len());
        }
    };

    for (name, bytes) in Csv.export(tables).expect("CSV renders") {
        let json = crate::metrics::table::json_rows(&tables.rows);
        let rows = &json.iter().find(|(stem, _)| format!("{stem}.csv") == name).expect("a table per file").1;
        let mut reader = ::csv::ReaderBuilder::new().has_headers(true).from_reader(bytes.as_slice());
        let headers = reader.headers().expect("CSV has a header").clone();
        for (record, row) in reader.records().zip(rows.iter()) {
            let record = record.expect("CSV reads back");
            for (cell, column) in record.iter().zip(headers.iter()) {
                if row.get(column).is_some_and(serde_json::Value::is_string) {
                    let first = cell.trim_start().chars().next();
                    assert!(
                        !first.is_some_and(|c| "=+-@＝＋－＠".contains(c)) && !cell.starts_with(['\t', '\r', '\n']),
                        "{name}: formula cell {cell:?}"
                    );
                } else {
                    assert!(cell.is_empty() || cell.parse::<f64>().is_ok() || cell == "true" || cell == "false", "{name}: {cell:?}");
                }
            }
        }
        not_whole(&name, &String::from_utf8_lossy(&bytes));
    }

    let shown = terminal::render_tables(tables, 100_000);
    assert!(
        !shown.chars().any(|c| (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
        "{shown:?}"
    );
    not_whole("terminal", &shown);

    let md = markdown::render(tables);
    assert!(!md.contains('<') && !md.contains("://"), "{md}");
    let mut columns = None;
    for line in md.lines() {
        let plain = without_transcript_links(&line.replace("\\\\", "").replace("\\]", "").replace("\\|", ""));
        assert!(!plain.contains("](") && !plain.contains("]["), "link or image syntax: {line}");
        if line.starts_with('|') {
            let n = plain.matches('|').count();
            assert_eq!(*columns.get_or_insert(n), n, "broken table row: {line}");
        } else {
            columns = None;
        }
    }
    not_whole("report.md", &md);

    let xml = junit::render(tables).expect("JUnit renders");
    assert_well_formed_xml(&xml);
    not_whole("junit.xml", &xml);

    let page = html::render(tables);
    // The page's own links to transcripts.html (an anchor of URL-unreserved
    // characters, `report::anchor`) are its only `<a>`.
    let own_link = regex::Regex::new(r#"<a href="transcripts\.html#[A-Za-z0-9._~-]+">why</a>"#).expect("valid regex");
    let page = own_link.replace_all(&page, "");
    let tag = regex::Regex::new(r"<(/?)([A-Za-z!][A-Za-z0-9]*)").expect("valid regex");
    for c in tag.captures_iter(&page) {
        let name = c[2].to_ascii_lowercase();
        assert!(
            !["script", "img", "a", "iframe", "object", "embed", "link", "image", "use", "foreignobject", "base", "form"]
                .contains(&name.as_str()),
            "<{name}> in report.html"
        );
    }
    not_whole("report.html", &page);
}

/// A small well-formedness check of the XML the JUnit writer makes: every
/// character one XML 1.0 allows, every `&` a known entity or a character
/// reference, every tag of the form the writer uses with quoted attributes
/// free of `<`, and tags balanced.
fn assert_well_formed_xml(xml: &str) {
    let forbidden = |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    assert!(!xml.chars().any(forbidden), "a character XML 1.0 forbids");
    let entity = regex::Regex::new(r"^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);").expect("valid regex");
    for (i, _) in xml.match_indices('&') {
        assert!(entity.is_match(&xml[i..]), "a bare & at byte {i}");
    }
    let tag = regex::Regex::new(r#"^<(/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(/?)>$"#).expect("valid regex");
    let mut open: Vec<String> = Vec::new();
    let body = xml.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").expect("the XML declaration");
    let mut rest = body;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("a closed tag") + start;
        let t = &rest[start..=end];
        let c = tag.captures(t).unwrap_or_else(|| panic!("not a tag: {t}"));
        match (&c[1], &c[4]) {
            ("/", _) => assert_eq!(open.pop().as_deref(), Some(&c[2]), "unbalanced {t}"),
            (_, "/") => {}
            _ => open.push(c[2].to_string()),
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed {open:?}");
}

/// `line` without the report's own links to transcripts.html (an anchor of
/// URL-unreserved characters only, `report::anchor`): any other link is a
/// model's text acting as Markdown.
fn without_transcript_links(line: &str) -> String {
    const LINK: &str = "[why](transcripts.html#";
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(LINK) {
        out.push_str(&rest[..at]);
        let tail = &rest[at + LINK.len()..];
        let id_len = tail.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.~".contains(c))).unwrap_or(tail.len());
        if tail[id_len..].starts_with(')') && id_len > 0 {
            rest = &tail[id_len + 1..];
        } else {
            out.push_str(LINK);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
