//! Transcripts and diffs as terminal text: every value from a run folder
//! escaped (no control character reaches the terminal), colour only when
//! asked (a terminal without NO_COLOR), lines fitted to the width.

use std::fmt::Write;

use serde_json::Value;

use super::align::{describe, Alignment, Op};
use super::{CallStory, UnitTranscript};
use crate::core::plural::count;
use crate::pipeline::CallOutcome;
use crate::report::encode::terminal;

/// How to draw: colour or not, and the width to fit.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub colour: bool,
    pub width: usize,
}

impl Look {
    /// Plain text at `width` columns (tests, pipes, files).
    pub fn plain(width: usize) -> Look {
        Look { colour: false, width }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
    fn red(&self, t: &str) -> String {
        self.paint("31", t)
    }
    fn green(&self, t: &str) -> String {
        self.paint("32", t)
    }
    fn yellow(&self, t: &str) -> String {
        self.paint("33", t)
    }
    fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
}

/// `text` escaped for the terminal and cut to `max` characters.
fn fit(text: &str, max: usize) -> String {
    let safe = terminal(text);
    if safe.chars().count() <= max {
        return safe.into_owned();
    }
    let kept: String = safe.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// A labelled value over as many lines as the width needs, each continued
/// under the first (a model's text is read, not cut).
fn labelled(out: &mut String, look: &Look, indent: usize, label: &str, text: &str) {
    let head = format!("{}{label:<10}", " ".repeat(indent));
    let room = look.width.saturating_sub(head.chars().count()).max(20);
    // A text's own lines stay lines; each is escaped, then cut to the room.
    let mut lines = text.split('\n').flat_map(|line| {
        let chars: Vec<char> = terminal(line.trim_end_matches('\r')).chars().collect();
        wrap(&chars, room)
    });
    let first = lines.next().unwrap_or_default();
    let _ = writeln!(out, "{}{first}", look.dim(&head));
    for line in lines {
        let _ = writeln!(out, "{}{line}", " ".repeat(head.chars().count()));
    }
}

/// `chars` in pieces of at most `room`, each ending after a space or a
/// JSON separator (`,` `:` `{` `}` `[` `]`) where one falls in the second
/// half of the piece, so `false` or a number is never split; a token longer
/// than that is cut where the room ends.
fn wrap(chars: &[char], room: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = chars;
    while rest.len() > room {
        let end = (room / 2..room).rev().find(|&i| matches!(rest[i], ' ' | ',' | ':' | '{' | '}' | '[' | ']')).map_or(room, |i| i + 1);
        pieces.push(rest[..end].iter().collect::<String>().trim_end().to_string());
        rest = &rest[end..];
    }
    pieces.push(rest.iter().collect());
    pieces
}

/// The verdict line: PASSED, or FAILED and why.
fn verdict_line(t: &UnitTranscript, look: &Look) -> String {
    match &t.verdict {
        None => look.yellow("UNFINISHED (the run stopped before this unit ended)"),
        Some(v) if v.passed => look.green(&format!("PASSED in {}", count(v.steps, "step"))),
        Some(v) if v.error => {
            format!("{} (no answer: neither passed nor failed) in {}: {}", look.red("ERRORED"), count(v.steps, "step"), terminal(&v.reason))
        }
        Some(v) => format!("{} in {}: {}", look.red("FAILED"), count(v.steps, "step"), terminal(&v.reason)),
    }
}

/// The header naming a unit.
fn unit_title(t: &UnitTranscript) -> String {
    let u = &t.unit;
    terminal(&format!("{} · {}/{} · trial {}", u.model, u.suite, u.scenario, u.trial)).into_owned()
}

/// One call, as sent → fixes → final arguments → approval → result.
fn render_call(out: &mut String, look: &Look, n: usize, c: &CallStory) {
    let status = match c.outcome {
        CallOutcome::Valid => look.green("valid"),
        CallOutcome::Repaired => look.yellow("repaired"),
        CallOutcome::Invalid => look.red("invalid"),
        CallOutcome::Truncated => look.red("truncated"),
    };
    let _ = writeln!(out, "  call {n}: {} [{status}]", look.bold(&fit(&c.tool, 60)));
    labelled(out, look, 4, "as sent", &format!("{} {}", c.raw_name, c.arguments));
    for issue in &c.issues {
        let at = if issue.path.is_empty() { String::new() } else { format!(" at {}", issue.path) };
        labelled(out, look, 4, "problem", &format!("{:?}{at}: {}", issue.kind, issue.message));
    }
    for fix in &c.fixes {
        let at = if fix.path.is_empty() { String::new() } else { format!(" {}", fix.path) };
        let stage = format!("{:?}", fix.stage).to_lowercase();
        labelled(out, look, 4, "fix", &format!("{stage} {}{at} {}", fix.kind, fix.detail));
    }
    for r in c.repairs.iter().filter(|r| r.stage == crate::events::RepairStage::Model) {
        let how = if r.succeeded { "fixed it".to_string() } else { format!("failed: {}", r.error.as_deref().unwrap_or("still invalid")) };
        labelled(out, look, 4, "repair", &format!("model, attempt {}: {how}", r.attempt));
    }
    match &c.final_arguments {
        Some(args) => labelled(out, look, 4, "final", &format!("{} {args}", c.tool)),
        None => {
            let kinds: Vec<String> = c.remaining_kinds.iter().map(|k| format!("{k:?}")).collect();
            labelled(out, look, 4, "final", &format!("not run: still invalid ({})", kinds.join(", ")));
        }
    }
    if let Some(a) = &c.approval {
        let by = format!("{:?}", a.decided_by).to_lowercase();
        let rule = a.rule.as_ref().map(|r| format!(" {r}")).unwrap_or_default();
        let text = if a.approved {
            format!("approved by {by}{rule}")
        } else {
            format!("DENIED by {by}{rule}: {}", a.reason.as_deref().unwrap_or(""))
        };
        labelled(out, look, 4, "approval", &text);
        if let Some(w) = &a.warning {
            labelled(out, look, 4, "warning", w);
        }
    }
    if let Some(r) = &c.result {
        let head = if r.is_error { "error: " } else { "" };
        labelled(out, look, 4, "result", &format!("{head}{}", r.content.as_deref().unwrap_or("(not recorded)")));
    }
    if let Some(b) = c.after_denial {
        labelled(out, look, 4, "then", b.column().trim_start_matches("after_denial_"));
    }
}

/// One unit's transcript as terminal text.
pub fn transcript(t: &UnitTranscript, look: &Look) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", look.bold(&unit_title(t)));
    let _ = writeln!(out, "{}", verdict_line(t, look));
    if let Some(e) = t.verdict.as_ref().and_then(|v| v.expectation.as_ref()) {
        labelled(&mut out, look, 0, "missed", &describe(e));
    }
    if let Some(v) = t.verdict.as_ref().filter(|v| !v.changed.is_empty()) {
        labelled(&mut out, look, 0, "changed", &v.changed.join(", "));
    }
    let mut n = 0;
    let user_turns = t.user_turns();
    for (i, turn) in t.turns.iter().enumerate() {
        // With several user turns, each step says which (0-based, as BFCL's failure messages count).
        let title = match &user_turns {
            Some(turns) => format!("step {} · user turn {}", turn.step, turns[i]),
            None => format!("step {}", turn.step),
        };
        let _ = writeln!(out, "\n{}", look.bold(&title));
        if let Some(r) = &turn.reasoning {
            labelled(&mut out, look, 2, "reasoning", r);
        }
        if let Some(text) = &turn.text {
            labelled(&mut out, look, 2, "model", text);
        }
        if let Some(f) = &turn.finish_reason {
            labelled(&mut out, look, 2, "finish", f);
        }
        if let Some(e) = &turn.error {
            labelled(&mut out, look, 2, "error", e);
        }
        if let Some(r) = &turn.rejected_call {
            labelled(&mut out, look, 2, "rejected", r);
        }
        for c in &turn.calls {
            n += 1;
            render_call(&mut out, look, n, c);
        }
    }
    let _ = writeln!(out, "\nverdict: {}", verdict_line(t, look));
    out
}

/// A call in one cell of the diff: tool, final arguments and how it was treated.
fn cell(c: &CallStory) -> String {
    let args = c.final_arguments.as_ref().map_or_else(|| c.arguments.clone(), |v| v.to_string());
    let mut marks = Vec::new();
    match c.outcome {
        CallOutcome::Repaired => marks.push("repaired"),
        CallOutcome::Invalid => marks.push("invalid"),
        CallOutcome::Truncated => marks.push("truncated"),
        CallOutcome::Valid => {}
    }
    if c.denied() {
        marks.push("denied");
    }
    let marks = if marks.is_empty() { String::new() } else { format!(" [{}]", marks.join(", ")) };
    format!("{}{marks} {args}", c.tool)
}

/// The top-level arguments two calls to one tool disagree on, as `name: A → B`.
fn changed_args(a: &CallStory, b: &CallStory) -> Vec<String> {
    let (Some(Value::Object(x)), Some(Value::Object(y))) = (&a.final_arguments, &b.final_arguments) else {
        return vec![format!("{} → {}", a.arguments, b.arguments)];
    };
    let shown = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_string(), Value::to_string);
    let mut names: Vec<&String> = x.keys().chain(y.keys()).collect();
    names.sort();
    names.dedup();
    names.into_iter().filter(|k| x.get(*k) != y.get(*k)).map(|k| format!("{k}: {} → {}", shown(x.get(k)), shown(y.get(k)))).collect()
}

/// Two aligned trajectories as terminal text: who, verdicts, what decided
/// them, then the steps side by side.
pub fn diff(a: &UnitTranscript, b: &UnitTranscript, labels: (&str, &str), al: &Alignment, look: &Look) -> String {
    let mut out = String::new();
    let u = &a.unit;
    let _ = writeln!(out, "{}", look.bold(&terminal(&format!("diff · {}/{} · trial {}", u.suite, u.scenario, u.trial))));
    let _ = writeln!(out, "  A {}: {}", fit(labels.0, 60), verdict_line(a, look));
    let _ = writeln!(out, "  B {}: {}", fit(labels.1, 60), verdict_line(b, look));
    labelled(&mut out, look, 0, "decided", &al.decision.summary);
    if let Some(row) = al.decision.row {
        let _ = writeln!(out, "{}", look.dim(&format!("          (shows at step #{} below)", row + 1)));
    }
    let (ca, cb): (Vec<&CallStory>, Vec<&CallStory>) = (a.calls().collect(), b.calls().collect());
    let col = (look.width.saturating_sub(8) / 2).clamp(20, 80);
    let _ = writeln!(out, "\n{:>3}   {:<col$}  {}", "#", fit(&format!("A {}", labels.0), col), fit(&format!("B {}", labels.1), col));
    for (i, row) in al.rows.iter().enumerate() {
        // The same call the pipeline or approval treated otherwise.
        let treated_otherwise = row.a.zip(row.b).is_some_and(|(x, y)| (ca[x].outcome, ca[x].denied()) != (cb[y].outcome, cb[y].denied()));
        let sign = match row.op {
            Op::Same if treated_otherwise => "≠",
            Op::Same => "=",
            Op::Changed => "~",
            Op::OnlyA => "-",
            Op::OnlyB => "+",
        };
        let left = row.a.map_or_else(String::new, |k| fit(&cell(ca[k]), col));
        let right = row.b.map_or_else(String::new, |k| fit(&cell(cb[k]), col));
        let pad = col.saturating_sub(left.chars().count());
        let mut line = format!("{:>3} {sign} {left}{}  {right}", i + 1, " ".repeat(pad));
        // Where they part, and the difference that decided the verdict
        // (a repaired call that ends the same is not it).
        match (Some(i) == al.first_divergence, Some(i) == al.decision.row) {
            (true, true) => line.push_str("  ← first divergence, decides"),
            (true, false) => line.push_str("  ← first divergence"),
            (false, true) => line.push_str("  ← decides"),
            (false, false) => {}
        }
        let line = match row.op {
            Op::OnlyA => look.red(&line),
            Op::OnlyB => look.green(&line),
            Op::Changed => look.yellow(&line),
            Op::Same if treated_otherwise => look.yellow(&line),
            Op::Same => line,
        };
        let _ = writeln!(out, "{}", line.trim_end());
        if let (Op::Changed, Some(i), Some(j)) = (row.op, row.a, row.b) {
            for change in changed_args(ca[i], cb[j]) {
                let _ = writeln!(out, "      {}", fit(&change, look.width.saturating_sub(6).max(20)));
            }
        }
    }
    if al.rows.is_empty() {
        let _ = writeln!(out, "      (no calls on either side)");
    }
    let (fa, fb) = (a.final_text(), b.final_text());
    if fa != fb {
        let _ = writeln!(out);
        labelled(&mut out, look, 0, "A answer", fa.unwrap_or("(none)"));
        labelled(&mut out, look, 0, "B answer", fb.unwrap_or("(none)"));
    }
    out
}
