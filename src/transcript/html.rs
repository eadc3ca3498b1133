//! `transcripts.html`: the failed units' transcripts as one self-contained
//! page beside `report.html`, which links each listed failure here by
//! `report::anchor::unit_anchor`. The same rules as the report page: inline
//! style, no script, a Content-Security-Policy that forbids every fetch;
//! every text from the run is HTML-escaped, its control characters shown
//! escaped (`\x1b`, `\u{202e}`) so none can hide or reorder what is read.
//! Bounded: only the units the reports list; the rest by command.

use std::collections::HashMap;
use std::fmt::Write;

use super::align::describe;
use super::{CallStory, UnitTranscript};
use crate::events::{RepairStage, UnitKey};
use crate::pipeline::CallOutcome;
use crate::quote::bounded;
use crate::report::anchor::unit_anchor;
use crate::report::encode::{terminal, xml, xml_attribute};

const STYLE: &str = "\
:root { color-scheme: light; }
body { margin: 0 auto; max-width: 1100px; padding: 20px 24px 40px; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, \
Helvetica, Arial, sans-serif; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 6px; }
section.unit { margin-top: 26px; padding: 10px 14px; border: 1px solid #e3e3e3; border-radius: 6px; }
section.unit:target { border-color: #0b3d6b; box-shadow: 0 0 0 2px #cfe0f1; }
h2 { font-size: 16px; margin: 0 0 6px; }
h3 { font-size: 14px; margin: 14px 0 4px; }
.failed { color: #b00020; font-weight: 600; }
.passed { color: #1b7a2c; font-weight: 600; }
.pending { color: #8a6d00; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 2px 0 0 14px; }
dt { color: #666; }
dd { margin: 0; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
p.note, footer { color: #555; font-size: 12.5px; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
";

/// Characters of one value on the page: events keep a call's arguments
/// whole, and a page of 200 units must not carry megabytes of them.
const VALUE_CHARS: usize = 8000;

/// Text from the run for element content: bounded, each line's control
/// characters shown escaped, then HTML-escaped; line breaks stay.
fn text(s: &str) -> String {
    let s = bounded(s, VALUE_CHARS);
    let lines: Vec<String> = s.split('\n').map(|l| terminal(l.trim_end_matches('\r')).into_owned()).collect();
    xml(&lines.join("\n"))
}

/// One labelled value of a transcript.
fn item(out: &mut String, label: &str, value: &str) {
    let _ = writeln!(out, "<dt>{label}</dt><dd><pre>{}</pre></dd>", text(value));
}

/// The verdict line: PASSED, or FAILED and why.
fn verdict(t: &UnitTranscript) -> String {
    match &t.verdict {
        None => "<span class=\"pending\">UNFINISHED</span> (the run stopped before this unit ended)".into(),
        Some(v) if v.passed => format!("<span class=\"passed\">PASSED</span> in {}", crate::core::plural::count(v.steps, "step")),
        Some(v) => {
            let word = if v.error { "ERROR" } else { "FAILED" };
            format!("<span class=\"failed\">{word}</span> in {}: {}", crate::core::plural::count(v.steps, "step"), text(&v.reason))
        }
    }
}

/// One call, as sent → fixes → final arguments → approval → result.
fn call(out: &mut String, n: usize, c: &CallStory) {
    let status = match c.outcome {
        CallOutcome::Valid => "valid",
        CallOutcome::Repaired => "repaired",
        CallOutcome::Invalid => "invalid",
        CallOutcome::Truncated => "truncated",
    };
    let _ = writeln!(out, "<h3>call {n}: <code>{}</code> [{status}]</h3>\n<dl>", text(&c.tool));
    item(out, "as sent", &format!("{} {}", c.raw_name, c.arguments));
    for issue in &c.issues {
        let at = if issue.path.is_empty() { String::new() } else { format!(" at {}", issue.path) };
        item(out, "problem", &format!("{:?}{at}: {}", issue.kind, issue.message));
    }
    for fix in &c.fixes {
        let at = if fix.path.is_empty() { String::new() } else { format!(" {}", fix.path) };
        let stage = format!("{:?}", fix.stage).to_lowercase();
        item(out, "fix", &format!("{stage} {}{at} {}", fix.kind, fix.detail));
    }
    for r in c.repairs.iter().filter(|r| r.stage == RepairStage::Model) {
        let how = if r.succeeded { "fixed it".to_string() } else { format!("failed: {}", r.error.as_deref().unwrap_or("still invalid")) };
        item(out, "repair", &format!("model, attempt {}: {how}", r.attempt));
    }
    match &c.final_arguments {
        Some(args) => item(out, "final", &format!("{} {args}", c.tool)),
        None => {
            let kinds: Vec<String> = c.remaining_kinds.iter().map(|k| format!("{k:?}")).collect();
            item(out, "final", &format!("not run: still invalid ({})", kinds.join(", ")));
        }
    }
    if let Some(a) = &c.approval {
        let by = format!("{:?}", a.decided_by).to_lowercase();
        let rule = a.rule.as_ref().map(|r| format!(" {r}")).unwrap_or_default();
        let decision = if a.approved {
            format!("approved by {by}{rule}")
        } else {
            format!("DENIED by {by}{rule}: {}", a.reason.as_deref().unwrap_or(""))
        };
        item(out, "approval", &decision);
        if let Some(w) = &a.warning {
            item(out, "warning", w);
        }
    }
    if let Some(r) = &c.result {
        let head = if r.is_error { "error: " } else { "" };
        item(out, "result", &format!("{head}{}", r.content.as_deref().unwrap_or("(not recorded)")));
    }
    if let Some(b) = c.after_denial {
        item(out, "then", b.column().trim_start_matches("after_denial_"));
    }
    out.push_str("</dl>\n");
}

/// One unit's section, with its anchor id; a unit the events lack says so.
fn unit_section(out: &mut String, key: &UnitKey, t: Option<&UnitTranscript>) {
    let title = format!("{} · {}/{} · trial {}", key.model, key.suite, key.scenario, key.trial);
    let _ = writeln!(out, "<section class=\"unit\" id=\"{}\">\n<h2>{}</h2>", xml_attribute(&unit_anchor(key)), text(&title));
    let Some(t) = t else {
        out.push_str("<p class=\"note\">events.jsonl has no events of this unit.</p>\n</section>\n");
        return;
    };
    let _ = writeln!(out, "<p>{}</p>", verdict(t));
    if let Some(e) = t.verdict.as_ref().and_then(|v| v.expectation.as_ref()) {
        let _ = writeln!(out, "<dl>\n<dt>missed</dt><dd><pre>{}</pre></dd>\n</dl>", text(&describe(e)));
    }
    let mut n = 0;
    let user_turns = t.user_turns();
    for (i, turn) in t.turns.iter().enumerate() {
        match &user_turns {
            Some(turns) => _ = writeln!(out, "<h3>step {} · user turn {}</h3>\n<dl>", turn.step, turns[i]),
            None => _ = writeln!(out, "<h3>step {}</h3>\n<dl>", turn.step),
        }
        let said = [
            ("reasoning", &turn.reasoning),
            ("model", &turn.text),
            ("finish", &turn.finish_reason),
            ("error", &turn.error),
            ("rejected", &turn.rejected_call),
        ];
        for (label, value) in said {
            if let Some(v) = value {
                item(out, label, v);
            }
        }
        out.push_str("</dl>\n");
        for c in &turn.calls {
            n += 1;
            call(out, n, c);
        }
    }
    out.push_str("</section>\n");
}

/// The page: a section per listed unit (in the reports' order), then a
/// line with how many failed units are not here and the command that lists
/// them (`show_command`, shell-quoted by the caller).
pub fn page(listed: &[UnitKey], total_failed: usize, transcripts: &[UnitTranscript], show_command: &str) -> String {
    let mut out = Vec::new();
    write_page(&mut out, listed, total_failed, transcripts, show_command).expect("writing to memory");
    String::from_utf8(out).expect("written from strings")
}

/// `page`, written into `out` a unit's section at a time: the page is never
/// held whole. `transcripts` need hold only the listed units (see
/// `transcript::transcripts_from_file`).
pub fn write_page(
    out: &mut dyn std::io::Write,
    listed: &[UnitKey],
    total_failed: usize,
    transcripts: &[UnitTranscript],
    show_command: &str,
) -> std::io::Result<()> {
    let by_unit: HashMap<&UnitKey, &UnitTranscript> = transcripts.iter().map(|t| (&t.unit, t)).collect();
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>calltape transcripts</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header>\n<h1>calltape transcripts: failed units</h1>\n"
    )?;
    writeln!(
        out,
        "<p class=\"note\">{} of {}, in the order of the failed-scenarios table in report.html.</p>\n</header>\n<main>",
        listed.len(),
        crate::core::plural::count(total_failed, "failed unit")
    )?;
    let mut section = String::new();
    for key in listed {
        section.clear();
        unit_section(&mut section, key, by_unit.get(key).copied());
        out.write_all(section.as_bytes())?;
    }
    out.write_all(b"</main>\n")?;
    let more = total_failed.saturating_sub(listed.len());
    if more > 0 {
        writeln!(
            out,
            "<p class=\"note\">… and {}, listed by <code>{}</code></p>",
            crate::core::plural::count(more, "more failed unit"),
            text(show_command)
        )?;
    }
    out.write_all(b"<footer>Written by calltape from this run's events.jsonl.</footer>\n</body>\n</html>\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Event, EventKind, ScenarioFinishedEvent};
    use crate::report::anchor::{listed_failures, transcript_link};

    fn finished(i: usize, reason: &str) -> Event {
        Event {
            ts_ms: 0,
            kind: EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: UnitKey { model: "m".into(), suite: "s".into(), scenario: format!("sc-{i:04}"), trial: 0 },
                passed: false,
                reason: reason.into(),
                steps: 1,
                error: false,
                expectation: None,
                error_kind: None,
            }),
        }
    }

    #[test]
    fn a_large_run_lists_the_reports_failures_and_names_the_command_for_the_rest() {
        let events: Vec<Event> = (0..250).map(|i| finished(i, "wrong")).collect();
        let tables = crate::metrics::build_tables(&events).unwrap();
        let (listed, total) = listed_failures(&tables);
        assert_eq!((listed.len(), total), (crate::report::anchor::FAILURES_LISTED, 250));
        let html = page(&listed, total, &super::super::transcripts(&events), "calltape show 'my runs/r1'");
        assert_eq!(html.matches("<section class=\"unit\"").count(), listed.len());
        // Every link the reports make to a listed unit lands on a section here.
        for key in &listed {
            let id = transcript_link(key).split_once('#').unwrap().1.to_string();
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(html.contains("… and 50 more failed units, listed by <code>calltape show &apos;my runs/r1&apos;</code>"), "{html}");
        assert!(!html.contains("<script") && html.contains("Content-Security-Policy"));
    }

    #[test]
    fn run_text_comes_out_escaped_with_controls_shown() {
        let hostile = crate::report::encode::HOSTILE.join(" ");
        let events = vec![finished(0, &hostile)];
        let tables = crate::metrics::build_tables(&events).unwrap();
        let (listed, total) = listed_failures(&tables);
        let html = page(&listed, total, &super::super::transcripts(&events), "calltape show r");
        let body = html.split("<main>").nth(1).unwrap();
        for bad in ["<script", "<img", "<!--", "\u{1b}", "\u{202e}", "\u{0}"] {
            assert!(!body.contains(bad), "{bad:?} in {body}");
        }
        assert!(body.contains("&lt;img src=x onerror=alert(1)&gt;") && body.contains("\\x1b[2J") && body.contains("\\u{202e}"), "{body}");
    }

    #[test]
    fn a_megabyte_value_is_cut_with_its_size() {
        let cut = text(&"x".repeat(1 << 20));
        assert!(cut.len() < VALUE_CHARS + 100 && cut.contains("(1048576 bytes, "), "{}", &cut[cut.len() - 60..]);
    }
}
