//! The default terminal view: one screen with the core figures first — a
//! row per model (pass rate, invalid rate, fixed, still invalid, cost,
//! latency) and the tools with the most invalid calls. `--all` prints every
//! section instead. A column is one line of `model_columns`.

use super::fit::Keep;
use super::grid::Shown;
use super::sections::Section;
use super::terminal::{self, View};
use crate::core::plural::count;
use crate::metrics::schema;
use crate::metrics::table::{SummaryRow, ToolRow};
use crate::metrics::Tables;
use crate::pipeline::InvalidKind;

/// Display-only column: calls repaired, locally or by the model.
const FIXED: &str = "fixed";

/// Calls cut off by the output limit (`InvalidKind::Truncated`'s column).
const TRUNCATED: &str = InvalidKind::Truncated.as_str();

/// The per-model table's columns: core figures first; the `Extra` ones are
/// shown when the width allows. Errored units and truncated calls are core
/// figures when a run has any; a column of zeros is left out.
fn model_columns(s: &[SummaryRow]) -> Vec<(Shown, Keep)> {
    let any = |count: fn(&SummaryRow) -> u64| s.iter().any(|r| count(r) > 0);
    let mut columns = vec![
        (Shown::of(schema::MODEL, "model", s, |r| r.model.clone()), Keep::Core),
        (Shown::of(schema::SCENARIOS, "runs", s, |r| r.scenarios), Keep::Core),
    ];
    if any(|r| r.errored) {
        columns.push((Shown::of(schema::ERRORED, "errored", s, |r| r.errored), Keep::Core));
    }
    columns.extend([
        (Shown::of(schema::PASS_RATE, "pass", s, |r| r.pass_rate), Keep::Core),
        (Shown::of(schema::INVALID_RATE, "invalid", s, |r| r.invalid_rate), Keep::Core),
        (Shown::of(FIXED, "fixed", s, |r| r.repaired_local + r.repaired_model), Keep::Core),
        (Shown::of(schema::STILL_INVALID, "still inv", s, |r| r.still_invalid), Keep::Core),
    ]);
    if any(|r| r.kinds.truncated) {
        columns.push((Shown::of(TRUNCATED, "truncated", s, |r| r.kinds.truncated), Keep::Core));
    }
    columns.extend([
        (Shown::of(schema::TOTAL_COST_USD, "cost $", s, |r| r.total_cost_usd), Keep::Core),
        (Shown::of(schema::LATENCY_P95_MS, "p95 ms", s, |r| r.latency_p95_ms), Keep::Core),
        (Shown::of(schema::PASS_RATE_NO_REPAIR, "w/o repair", s, |r| r.pass_rate_no_repair), Keep::Extra),
        (Shown::of(schema::CALLS, "calls", s, |r| r.calls), Keep::Extra),
        (Shown::of(schema::LATENCY_P50_MS, "p50 ms", s, |r| r.latency_p50_ms), Keep::Extra),
    ]);
    columns
}

/// The per-tool table's columns: the tools with the most invalid calls.
fn tool_columns(t: &[ToolRow]) -> Vec<(Shown, Keep)> {
    vec![
        (Shown::of(schema::MODEL, "model", t, |r| r.model.clone()), Keep::Core),
        (Shown::of(schema::TOOL, "tool", t, |r| r.tool.clone()), Keep::Core),
        (Shown::of(schema::CALLS, "calls", t, |r| r.calls), Keep::Core),
        (Shown::of(schema::INVALID, "invalid", t, |r| r.invalid), Keep::Core),
        (Shown::of(FIXED, "fixed", t, |r| r.repaired_local + r.repaired_model), Keep::Core),
        (Shown::of(schema::STILL_INVALID, "still inv", t, |r| r.still_invalid), Keep::Core),
    ]
}

/// Rows of the per-tool table in the default view.
pub const TOOL_ROWS: usize = 6;

/// A section of the given columns, and which give way first.
fn section(title: String, height: usize, columns: Vec<(Shown, Keep)>, rows: Option<usize>, note: Option<String>) -> (Section, Vec<Keep>) {
    let keep = columns.iter().map(|(_, k)| *k).collect();
    let mut section = Section::new(&title, height, columns.into_iter().map(|(c, _)| c).collect());
    section.note = note;
    section.terminal_rows = rows;
    (section, keep)
}

/// One row per configured model, one pass-rate column per arm, and the
/// paired difference of its last arm over its first with McNemar's p:
/// the default view of a run with arms, still one screen.
fn per_model_by_arm(tables: &Tables) -> (Section, Vec<Keep>) {
    let s = &tables.rows.summary;
    let mut arm_order: Vec<String> = Vec::new();
    let mut base_order: Vec<String> = Vec::new();
    for r in s {
        if !r.arm.is_empty() && !arm_order.contains(&r.arm) {
            arm_order.push(r.arm.clone());
        }
        if !base_order.contains(&r.base_model) {
            base_order.push(r.base_model.clone());
        }
    }
    // A model run without arms shows its one pass rate under "no arms".
    let plain = s.iter().any(|r| r.arm.is_empty());
    let rows_of = |b: &str| s.iter().filter(|r| r.base_model == b).collect::<Vec<_>>();
    let first_row = |b: &str| rows_of(b)[0];
    // The last arm against the first, from the pairs table.
    let pair = |b: &str| {
        let rows = rows_of(b);
        let (first, last) = (&rows[0].model, &rows[rows.len() - 1].model);
        tables.rows.pairs.iter().find(|p| p.kind == schema::PAIR_ARMS && &p.model_a == first && &p.model_b == last)
    };
    let bases = &base_order[..];
    let mut shown = vec![
        (Shown::of(schema::MODEL, "model", bases, |b| b.clone()), Keep::Core),
        (Shown::of(schema::SCENARIOS, "runs", bases, |b| first_row(b).scenarios), Keep::Core),
    ];
    // Empty where an arm answered no unit: it has no rate.
    for arm in &arm_order {
        let pass = |b: &String| rows_of(b).into_iter().find(|r| &r.arm == arm).and_then(|r| r.pass_rate);
        shown.push((Shown::of(&format!("{PASS_IN}{arm}"), arm, bases, pass), Keep::Core));
    }
    if plain {
        let pass = |b: &String| rows_of(b).into_iter().find(|r| r.arm.is_empty()).and_then(|r| r.pass_rate);
        shown.push((Shown::of(PASS_IN, "no arms", bases, pass), Keep::Core));
    }
    let (first, last) = (arm_order.first().cloned().unwrap_or_default(), arm_order.last().cloned().unwrap_or_default());
    // One arm (`--repair off` picks it) has nothing to be paired with.
    let paired = arm_order.len() > 1;
    if paired {
        let diff = |b: &String| pair(b).map(|p| p.pass_rate_diff.unwrap_or(0.0));
        shown.push((Shown::of(ARM_DIFF, &format!("{last}−{first}"), bases, diff), Keep::Core));
        shown.push((Shown::of(schema::P_VALUE, "p", bases, |b| pair(b).map(|p| p.p_value.unwrap_or(0.0))), Keep::Core));
    }
    let invalid = |b: &String| Some(first_row(b).invalid_rate.unwrap_or(0.0));
    shown.push((Shown::of(schema::INVALID_RATE, "invalid", bases, invalid), Keep::Extra));
    let cost = |b: &String| Some(rows_of(b).iter().map(|r| r.total_cost_usd).sum::<f64>());
    shown.push((Shown::of(schema::TOTAL_COST_USD, "cost $", bases, cost), Keep::Extra));
    let title = format!(
        "Per model and arm ({})",
        arms_in_title(&base_order.iter().map(|b| rows_of(b).iter().filter(|r| !r.arm.is_empty()).count()).collect::<Vec<_>>())
    );
    // Short labels, so that invalid and cost fit at 100 columns; the note names them.
    let note = arms_note(&arm_order, plain, paired.then_some((first.as_str(), last.as_str())));
    let (mut section, keep) = section(title, base_order.len(), shown, None, Some(note));
    // With the runs, the errored count marks a model that never answered (`text::NO_ANSWER`).
    section.never_answered = Some(base_order.iter().map(|b| first_row(b).scenarios == 0 && first_row(b).errored > 0).collect());
    (section, keep)
}

/// What the arms table's short labels mean (`off, local, full: pass rate
/// (95% intervals: --all); cost $: all arms`), then, when the table pairs
/// a first and a last arm, their difference and its p-value.
fn arms_note(arm_order: &[String], plain: bool, pair: Option<(&str, &str)>) -> String {
    let mut labels = arm_order.to_vec();
    if plain {
        labels.push("no arms".into());
    }
    let mut note = format!("{}: pass rate (95% intervals: --all); cost $: all arms", labels.join(", "));
    if let Some((first, last)) = pair {
        note.push_str(&format!("\n{last}−{first}: pass in {last} − pass in {first}, same runs; p: McNemar's exact p"));
    }
    note
}

/// How many models ran in how many arms, for the title: `11 models × 3
/// arms, paired on the same runs`, or where models differ `8 models × 3
/// arms, 2 × 2, 1 without arms; paired runs`. `arms`: each model's count.
fn arms_in_title(arms: &[usize]) -> String {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &a in arms {
        match groups.iter_mut().find(|(n, _)| *n == a) {
            Some((_, models)) => *models += 1,
            None => groups.push((a, 1)),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
    // One arm (`--repair off` picks it) pairs nothing.
    let paired = groups.iter().any(|&(arms, _)| arms > 1);
    if let [(arms, models)] = groups[..] {
        if !paired {
            return format!("{} × {}", count(models, "model"), count(arms, "arm"));
        }
        return format!("{} × {}, paired on the same runs", count(models, "model"), count(arms, "arm"));
    }
    let parts: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(i, &(arms, models))| match (i, arms) {
            (_, 0) => format!("{models} without arms"),
            (0, _) => format!("{} × {}", count(models, "model"), count(arms, "arm")),
            _ => format!("{models} × {arms}"),
        })
        .collect();
    if paired {
        format!("{}; paired runs", parts.join(", "))
    } else {
        parts.join(", ")
    }
}

/// Display columns of the per-model-and-arm table.
const PASS_IN: &str = "pass_in_";
const ARM_DIFF: &str = "last_minus_first";

/// The default view's tables as text, each at most `view.width` wide.
pub fn render_compact(tables: &Tables, view: &View) -> Vec<String> {
    let models = &tables.rows.summary[..];
    // With arms the "w/o repair" bound gives way to the measured arms below.
    let has_arms = models.iter().any(|r| !r.arm.is_empty());
    let per_model = if has_arms {
        per_model_by_arm(tables)
    } else {
        let (mut section, keep) = section(format!("Per model ({})", models.len()), models.len(), model_columns(models), None, None);
        section.never_answered = Some(models.iter().map(|r| r.scenarios == 0 && r.errored > 0).collect());
        (section, keep)
    };
    let mut tools: Vec<ToolRow> = tables.rows.by_tool.iter().filter(|r| r.invalid > 0).cloned().collect();
    tools.sort_by_key(|r| std::cmp::Reverse((r.invalid, r.still_invalid)));
    let note = tools.is_empty().then(|| "No invalid calls.".to_string());
    let per_tool = section("Per model × tool: the most invalid calls".into(), tools.len(), tool_columns(&tools), Some(TOOL_ROWS), note);
    // The errored models, with their first error, right under their rows.
    let errored = super::sections::errored(tables).map(|s| (s, vec![]));
    [Some(per_model), errored, Some(per_tool)].iter().flatten().map(|(s, keep)| terminal::render(s, keep, view)).collect()
}

#[cfg(test)]
mod tests {
    use super::arms_in_title;

    #[test]
    fn the_title_counts_models_by_their_arms() {
        assert_eq!(arms_in_title(&[3, 3]), "2 models × 3 arms, paired on the same runs");
        assert_eq!(arms_in_title(&[1]), "1 model × 1 arm");
        assert_eq!(arms_in_title(&[1, 1, 0]), "2 models × 1 arm, 1 without arms");
        assert_eq!(arms_in_title(&[3, 2, 3, 0, 2]), "2 models × 3 arms, 2 × 2, 1 without arms; paired runs");
    }
}
