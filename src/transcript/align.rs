//! Two trajectories of one scenario lined up step by step: an LCS alignment
//! over calls keyed by tool and final arguments (the arguments as they went
//! on; the text as sent for an invalid call), then an adjacent deletion and
//! insertion of the same tool paired as one changed step. On top of it: the
//! first divergence, and which difference decided the verdict.

use serde::Serialize;

use super::{CallStory, UnitTranscript};
use crate::check::{ExpectationKind, FailedExpectation};
use crate::pipeline::CallOutcome;

/// How one aligned row relates its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// The same tool with the same final arguments on both sides.
    Same,
    /// The same tool, other arguments.
    Changed,
    /// A call only the first side made.
    OnlyA,
    /// A call only the second side made.
    OnlyB,
}

/// One row of the alignment: indexes into each side's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Row {
    pub op: Op,
    pub a: Option<usize>,
    pub b: Option<usize>,
}

/// What decided that the two verdicts differ (or that they agree).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// One sentence a person reads.
    pub summary: String,
    /// The expectation one side missed (the other met), when there is one.
    pub expectation: Option<FailedExpectation>,
    /// The aligned row the difference shows in, when one does.
    pub row: Option<usize>,
}

/// Two trajectories aligned, with where they part and why the verdicts differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alignment {
    pub rows: Vec<Row>,
    /// The first row where the sides differ (in the call, or in how the
    /// pipeline or approval treated it); `None` when every row is the same.
    pub first_divergence: Option<usize>,
    pub decision: Decision,
}

/// What a call is compared by: the tool, and the final arguments (the raw
/// text for a call that never became valid).
fn key(c: &CallStory) -> (String, String) {
    let args = match &c.final_arguments {
        Some(v) => v.to_string(),
        None => format!("invalid:{}", c.arguments),
    };
    (c.tool.clone(), args)
}

/// How the pipeline and approval treated a call: rows with the same call
/// but a different treatment diverge.
fn treatment(c: &CallStory) -> (CallOutcome, bool) {
    (c.outcome, c.denied())
}

/// Aligns two sequences of calls (longest common subsequence on `key`).
pub fn align_calls(a: &[&CallStory], b: &[&CallStory]) -> Vec<Row> {
    let (ka, kb): (Vec<_>, Vec<_>) = (a.iter().map(|c| key(c)).collect(), b.iter().map(|c| key(c)).collect());
    let (n, m) = (ka.len(), kb.len());
    // lcs[i][j]: the common length of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if ka[i] == kb[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut raw = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && ka[i] == kb[j] {
            raw.push(Row { op: Op::Same, a: Some(i), b: Some(j) });
            (i, j) = (i + 1, j + 1);
        } else if j == m || (i < n && lcs[i + 1][j] > lcs[i][j + 1]) {
            raw.push(Row { op: Op::OnlyA, a: Some(i), b: None });
            i += 1;
        } else {
            raw.push(Row { op: Op::OnlyB, a: None, b: Some(j) });
            j += 1;
        }
    }
    pair_changes(raw, &ka, &kb)
}

/// In each run of rows between common calls, pairs a call only A made
/// with the first unpaired call only B made to the same tool: one changed
/// step. The run is then written as changes and deletions in A's order,
/// then the insertions left.
fn pair_changes(raw: Vec<Row>, ka: &[(String, String)], kb: &[(String, String)]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(raw.len());
    for run in raw.chunk_by(|x, y| (x.op == Op::Same) == (y.op == Op::Same)) {
        if run[0].op == Op::Same {
            rows.extend_from_slice(run);
            continue;
        }
        let mut only_b: Vec<Option<usize>> = run.iter().filter_map(|r| r.b).map(Some).collect();
        for a in run.iter().filter_map(|r| r.a) {
            match only_b.iter_mut().find(|b| b.is_some_and(|b| kb[b].0 == ka[a].0)) {
                Some(b) => rows.push(Row { op: Op::Changed, a: Some(a), b: b.take() }),
                None => rows.push(Row { op: Op::OnlyA, a: Some(a), b: None }),
            }
        }
        rows.extend(only_b.into_iter().flatten().map(|b| Row { op: Op::OnlyB, a: None, b: Some(b) }));
    }
    rows
}

/// Aligns two units' trajectories and says what decided their verdicts;
/// `labels` name the two sides in the sentence that says it.
pub fn align(a: &UnitTranscript, b: &UnitTranscript, labels: (&str, &str)) -> Alignment {
    let (ca, cb): (Vec<&CallStory>, Vec<&CallStory>) = (a.calls().collect(), b.calls().collect());
    let rows = align_calls(&ca, &cb);
    let differs = |r: &Row| match (r.op, r.a, r.b) {
        (Op::Same, Some(i), Some(j)) => treatment(ca[i]) != treatment(cb[j]),
        _ => true,
    };
    let first_divergence = rows.iter().position(differs);
    let decision = decide((a, b), labels, &rows, (&ca, &cb), first_divergence);
    Alignment { rows, first_divergence, decision }
}

/// The first row whose difference can change what happened: other final
/// calls, or a call denied on one side only. A call repaired on one side
/// that ends with the same arguments did the same thing: not decisive.
fn first_decisive(rows: &[Row], ca: &[&CallStory], cb: &[&CallStory]) -> Option<usize> {
    rows.iter().position(|r| decisive(r, ca, cb))
}

fn decisive(r: &Row, ca: &[&CallStory], cb: &[&CallStory]) -> bool {
    r.op != Op::Same || r.a.zip(r.b).is_some_and(|(i, j)| ca[i].denied() != cb[j].denied())
}

/// The row where a missed expectation about `tool` is decided: the first
/// decisive row that involves that tool, else the first decisive row, else
/// the first divergence.
fn row_of(tool: Option<&str>, rows: &[Row], ca: &[&CallStory], cb: &[&CallStory], first: Option<usize>) -> Option<usize> {
    let involves = |r: &Row, t: &str| r.a.is_some_and(|i| ca[i].tool == t) || r.b.is_some_and(|j| cb[j].tool == t);
    tool.and_then(|t| rows.iter().position(|r| decisive(r, ca, cb) && involves(r, t))).or_else(|| first_decisive(rows, ca, cb)).or(first)
}

/// The expectation, in the words of the scenario file.
pub fn describe(e: &FailedExpectation) -> String {
    let mut out = format!("`{}`", e.kind.key());
    if let Some(tool) = &e.tool {
        out.push_str(&format!(" on `{tool}`"));
    }
    if let Some(expected) = &e.expected {
        out.push_str(&format!(" (expected {expected})"));
    }
    out
}

fn decide(
    (a, b): (&UnitTranscript, &UnitTranscript),
    (label_a, label_b): (&str, &str),
    rows: &[Row],
    (ca, cb): (&[&CallStory], &[&CallStory]),
    first: Option<usize>,
) -> Decision {
    let (Some(va), Some(vb)) = (&a.verdict, &b.verdict) else {
        let missing = if a.verdict.is_none() { label_a } else { label_b };
        return Decision {
            summary: format!("{missing} did not finish (the run stopped first): no verdict to compare"),
            expectation: None,
            row: first,
        };
    };
    let missed = |who: &str, other: &str, v: &super::VerdictStory| {
        let e = v.expectation.clone();
        let what = e.as_ref().map_or_else(|| "an expectation".to_string(), describe);
        let summary = if e.as_ref().is_some_and(|e| e.kind == ExpectationKind::Completed) {
            format!("{who} did not finish the conversation ({}); {other} did", v.reason)
        } else {
            format!("{other} met {what}; {who} missed it: {}", v.reason)
        };
        let row = row_of(e.as_ref().and_then(|e| e.tool.as_deref()), rows, ca, cb, first);
        Decision { summary, expectation: e, row }
    };
    match (va.passed, vb.passed) {
        (true, false) => missed(label_b, label_a, vb),
        (false, true) => missed(label_a, label_b, va),
        (true, true) => Decision {
            summary: match first {
                None => "both passed, with the same calls".into(),
                Some(_) => "both passed: the differences below did not change the verdict".into(),
            },
            expectation: None,
            row: None,
        },
        (false, false) => {
            let same = va.expectation.as_ref().map(|e| (e.kind, &e.tool)) == vb.expectation.as_ref().map(|e| (e.kind, &e.tool));
            let what = |v: &super::VerdictStory| v.expectation.as_ref().map_or_else(|| "an expectation".to_string(), describe);
            let summary = if same {
                format!("both missed {}: {label_a}: {}; {label_b}: {}", what(va), va.reason, vb.reason)
            } else {
                format!(
                    "both failed, on different expectations: {label_a} missed {}: {}; {label_b} missed {}: {}",
                    what(va),
                    va.reason,
                    what(vb),
                    vb.reason
                )
            };
            Decision { summary, expectation: None, row: first_decisive(rows, ca, cb).or(first) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::approval::Decider;
    use crate::transcript::ApprovalStory;
    use serde_json::json;

    fn call(tool: &str, args: serde_json::Value) -> CallStory {
        CallStory {
            call_id: "c".into(),
            raw_name: tool.into(),
            tool: tool.into(),
            arguments: args.to_string(),
            outcome: CallOutcome::Valid,
            repaired_by: None,
            issues: vec![],
            fixes: vec![],
            remaining_kinds: vec![],
            repairs: vec![],
            final_arguments: Some(args),
            approval: None,
            result: None,
            after_denial: None,
        }
    }

    fn ops(a: &[CallStory], b: &[CallStory]) -> Vec<(Op, Option<usize>, Option<usize>)> {
        let (a, b): (Vec<_>, Vec<_>) = (a.iter().collect(), b.iter().collect());
        align_calls(&a, &b).into_iter().map(|r| (r.op, r.a, r.b)).collect()
    }

    #[test]
    fn insertions_deletions_and_changes_are_aligned() {
        let (r1, r2, w, l) =
            (call("read", json!({"p": 1})), call("read", json!({"p": 2})), call("write", json!({})), call("ls", json!({})));
        // B inserts `ls`, drops `write`, and reads another range: the
        // earliest common call is kept, the later read is a change.
        let a = [r1.clone(), w.clone(), r1.clone()];
        let b = [l.clone(), r1.clone(), r2.clone()];
        assert_eq!(
            ops(&a, &b),
            vec![(Op::OnlyB, None, Some(0)), (Op::Same, Some(0), Some(1)), (Op::OnlyA, Some(1), None), (Op::Changed, Some(2), Some(2))]
        );
        // A change is paired whichever side the LCS walked first.
        assert_eq!(
            ops(std::slice::from_ref(&r1), &[l.clone(), r2.clone()]),
            vec![(Op::Changed, Some(0), Some(1)), (Op::OnlyB, None, Some(0))]
        );
        assert_eq!(ops(&[], std::slice::from_ref(&w)), vec![(Op::OnlyB, None, Some(0))]);
        assert_eq!(ops(&[w], &[]), vec![(Op::OnlyA, Some(0), None)]);
    }

    #[test]
    fn a_repaired_or_denied_call_is_the_same_step_treated_otherwise() {
        let clean = call("read", json!({"p": 1}));
        let repaired = CallStory { outcome: CallOutcome::Repaired, arguments: "{p: '1'}".into(), ..clean.clone() };
        let denied = CallStory {
            approval: Some(ApprovalStory {
                approved: false,
                reason: Some("no".into()),
                decided_by: Decider::Rule,
                rule: None,
                warning: None,
            }),
            ..clean.clone()
        };
        let unit = |calls: Vec<CallStory>| UnitTranscript {
            unit: crate::events::UnitKey { model: "m".into(), suite: "s".into(), scenario: "x".into(), trial: 0 },
            turns: vec![super::super::Turn {
                step: 1,
                text: None,
                reasoning: None,
                finish_reason: None,
                error: None,
                rejected_call: None,
                calls,
            }],
            verdict: None,
        };
        let al = align(&unit(vec![clean.clone(), clean.clone()]), &unit(vec![clean.clone(), repaired]), ("A", "B"));
        assert_eq!(al.rows.iter().map(|r| r.op).collect::<Vec<_>>(), vec![Op::Same, Op::Same]);
        assert_eq!(al.first_divergence, Some(1), "the repair is where they part");
        let al = align(&unit(vec![denied]), &unit(vec![clean]), ("A", "B"));
        assert_eq!(al.first_divergence, Some(0));
        assert!(al.decision.summary.contains("did not finish"), "{}", al.decision.summary);
    }
}
