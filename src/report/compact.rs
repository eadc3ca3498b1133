//! The default terminal view: one screen with the core figures first — a
//! row per model (pass rate, invalid rate, fixed, still invalid, cost,
//! latency) and the tools with the most invalid calls. `--all` prints every
//! section instead. A column is one line of `MODEL_COLUMNS`.

use polars::prelude::*;

use super::fit::Keep;
use super::sections::Section;
use super::terminal::{self, View};
use crate::core::plural::count;
use crate::metrics::columns::{f64s, strings, u64s};
use crate::metrics::schema;
use crate::metrics::Tables;
use crate::pipeline::InvalidKind;

/// Display-only column: calls repaired, locally or by the model.
const FIXED: &str = "fixed";

/// Calls cut off by the output limit (`InvalidKind::Truncated`'s column).
const TRUNCATED: &str = InvalidKind::Truncated.as_str();

/// The per-model table: (column, label, keep). Core figures first; the
/// `Extra` ones are shown when the width allows.
const MODEL_COLUMNS: &[(&str, &str, Keep)] = &[
    (schema::MODEL, "model", Keep::Core),
    (schema::SCENARIOS, "runs", Keep::Core),
    (schema::ERRORED, "errored", Keep::Core),
    (schema::PASS_RATE, "pass", Keep::Core),
    (schema::INVALID_RATE, "invalid", Keep::Core),
    (FIXED, "fixed", Keep::Core),
    (schema::STILL_INVALID, "still inv", Keep::Core),
    (TRUNCATED, "truncated", Keep::Core),
    (schema::TOTAL_COST_USD, "cost $", Keep::Core),
    (schema::LATENCY_P95_MS, "p95 ms", Keep::Core),
    (schema::PASS_RATE_NO_REPAIR, "w/o repair", Keep::Extra),
    (schema::CALLS, "calls", Keep::Extra),
    (schema::LATENCY_P50_MS, "p50 ms", Keep::Extra),
];

/// Columns shown only when some model has a count above zero.
const WHEN_ANY: [&str; 2] = [schema::ERRORED, TRUNCATED];

/// Whether a count column holds a value above zero.
fn any_above_zero(frame: &DataFrame, column: &str) -> bool {
    frame
        .column(column)
        .ok()
        .and_then(|c| c.as_materialized_series().cast(&DataType::Float64).ok())
        .and_then(|s| s.f64().ok().and_then(|v| v.max()))
        .is_some_and(|max| max > 0.0)
}

/// The per-tool table: the tools with the most invalid calls.
const TOOL_COLUMNS: &[(&str, &str, Keep)] = &[
    (schema::MODEL, "model", Keep::Core),
    (schema::TOOL, "tool", Keep::Core),
    (schema::CALLS, "calls", Keep::Core),
    (schema::INVALID, "invalid", Keep::Core),
    (FIXED, "fixed", Keep::Core),
    (schema::STILL_INVALID, "still inv", Keep::Core),
];

/// Rows of the per-tool table in the default view.
pub const TOOL_ROWS: usize = 6;

/// `df` with the display column `fixed`.
fn with_fixed(df: &DataFrame) -> PolarsResult<DataFrame> {
    df.clone().lazy().with_column((col(schema::REPAIRED_LOCAL) + col(schema::REPAIRED_MODEL)).alias(FIXED)).collect()
}

fn section(
    title: String,
    frame: DataFrame,
    columns: &[(&str, &str, Keep)],
    rows: Option<usize>,
    note: Option<String>,
) -> (Section, Vec<Keep>) {
    let section = Section {
        title,
        frame,
        columns: columns.iter().map(|(c, l, _)| (c.to_string(), l.to_string())).collect(),
        note,
        terminal: true,
        terminal_rows: rows,
    };
    (section, columns.iter().map(|(_, _, k)| *k).collect())
}

/// One row per configured model, one pass-rate column per arm, and the
/// paired difference of its last arm over its first with McNemar's p:
/// the default view of a run with arms, still one screen.
fn per_model_by_arm(tables: &Tables) -> PolarsResult<(Section, Vec<Keep>)> {
    let s = &tables.summary;
    let (models, bases, arms) = (strings(s, schema::MODEL)?, strings(s, schema::BASE_MODEL)?, strings(s, schema::ARM)?);
    let (runs, errored, cost) = (u64s(s, schema::SCENARIOS)?, u64s(s, schema::ERRORED)?, f64s(s, schema::TOTAL_COST_USD)?);
    // Empty where an arm answered no unit: it has no rate.
    let pass: Vec<Option<f64>> = s.column(schema::PASS_RATE)?.f64()?.iter().collect();
    let invalid = f64s(s, schema::INVALID_RATE)?;
    let mut arm_order: Vec<String> = Vec::new();
    let mut base_order: Vec<String> = Vec::new();
    for (b, a) in bases.iter().zip(&arms) {
        if !a.is_empty() && !arm_order.contains(a) {
            arm_order.push(a.clone());
        }
        if !base_order.contains(b) {
            base_order.push(b.clone());
        }
    }
    // A model run without arms shows its one pass rate under "no arms".
    let plain = arms.iter().any(String::is_empty);
    let rows_of = |b: &str| (0..models.len()).filter(|&i| bases[i] == b).collect::<Vec<_>>();
    let p = &tables.pairs;
    let (pa, pb, kind) = (strings(p, schema::MODEL_A)?, strings(p, schema::MODEL_B)?, strings(p, schema::PAIR_KIND)?);
    let (diff, pval) = (f64s(p, schema::PASS_RATE_DIFF)?, f64s(p, schema::P_VALUE)?);
    let mut columns: Vec<Column> = Vec::new();
    let mut text = |name: &str, values: Vec<String>| columns.push(Column::from(Series::new(name.into(), values)));
    text(schema::MODEL, base_order.clone());
    let first_row = |b: &str| rows_of(b)[0];
    let last_row = |b: &str| *rows_of(b).last().unwrap_or(&0);
    columns.push(Column::from(Series::new(schema::SCENARIOS.into(), base_order.iter().map(|b| runs[first_row(b)]).collect::<Vec<u64>>())));
    // Not shown: with the runs, it marks a model that never answered (`text::NO_ANSWER`).
    columns.push(Column::from(Series::new(schema::ERRORED.into(), base_order.iter().map(|b| errored[first_row(b)]).collect::<Vec<u64>>())));
    let mut numbers: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for arm in &arm_order {
        let values = base_order.iter().map(|b| rows_of(b).into_iter().find(|&i| &arms[i] == arm).and_then(|i| pass[i])).collect();
        numbers.push((format!("{PASS_IN}{arm}"), values));
    }
    if plain {
        let values = base_order.iter().map(|b| rows_of(b).into_iter().find(|&i| arms[i].is_empty()).and_then(|i| pass[i])).collect();
        numbers.push((PASS_IN.to_string(), values));
    }
    // The last arm against the first, from the pairs table.
    let pair = |b: &str| {
        let (first, last) = (&models[first_row(b)], &models[last_row(b)]);
        (0..pa.len()).find(|&j| kind[j] == schema::PAIR_ARMS && &pa[j] == first && &pb[j] == last)
    };
    numbers.push((ARM_DIFF.into(), base_order.iter().map(|b| pair(b).map(|j| diff[j])).collect()));
    numbers.push((schema::P_VALUE.into(), base_order.iter().map(|b| pair(b).map(|j| pval[j])).collect()));
    numbers.push((schema::INVALID_RATE.into(), base_order.iter().map(|b| Some(invalid[first_row(b)])).collect()));
    numbers.push((schema::TOTAL_COST_USD.into(), base_order.iter().map(|b| Some(rows_of(b).iter().map(|&i| cost[i]).sum())).collect()));
    for (name, values) in &numbers {
        columns.push(Column::from(Series::new(name.as_str().into(), values.clone())));
    }
    let frame = DataFrame::new_infer_height(columns)?;
    let mut shown: Vec<(String, String, Keep)> =
        vec![(schema::MODEL.into(), "model".into(), Keep::Core), (schema::SCENARIOS.into(), "runs".into(), Keep::Core)];
    for arm in &arm_order {
        shown.push((format!("{PASS_IN}{arm}"), arm.clone(), Keep::Core));
    }
    if plain {
        shown.push((PASS_IN.into(), "no arms".into(), Keep::Core));
    }
    let (first, last) = (arm_order.first().cloned().unwrap_or_default(), arm_order.last().cloned().unwrap_or_default());
    // One arm (`--repair off` picks it) has nothing to be paired with.
    let paired = arm_order.len() > 1;
    if paired {
        shown.push((ARM_DIFF.into(), format!("{last}−{first}"), Keep::Core));
        shown.push((schema::P_VALUE.into(), "p".into(), Keep::Core));
    }
    shown.push((schema::INVALID_RATE.into(), "invalid".into(), Keep::Extra));
    shown.push((schema::TOTAL_COST_USD.into(), "cost $".into(), Keep::Extra));
    let section = Section {
        title: format!(
            "Per model and arm ({})",
            arms_in_title(&base_order.iter().map(|b| rows_of(b).iter().filter(|&&i| !arms[i].is_empty()).count()).collect::<Vec<_>>())
        ),
        frame,
        columns: shown.iter().map(|(c, l, _)| (c.clone(), l.clone())).collect(),
        // Short labels, so that invalid and cost fit at 100 columns; the note names them.
        note: Some(arms_note(&arm_order, plain, paired.then_some((first.as_str(), last.as_str())))),
        terminal: true,
        terminal_rows: None,
    };
    Ok((section, shown.iter().map(|(_, _, k)| *k).collect()))
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
pub fn render_compact(tables: &Tables, view: &View) -> PolarsResult<Vec<String>> {
    let models = with_fixed(&tables.summary)?;
    // Errored units and truncated calls are core figures when a run has
    // any; a column of zeros is left out.
    // With arms the "w/o repair" bound gives way to the measured arms below.
    let has_arms = strings(&models, schema::ARM)?.iter().any(|a| !a.is_empty());
    let shown: Vec<(&str, &str, Keep)> = MODEL_COLUMNS
        .iter()
        .filter(|(column, _, _)| !WHEN_ANY.contains(column) || any_above_zero(&models, column))
        .filter(|(column, _, _)| !(has_arms && *column == schema::PASS_RATE_NO_REPAIR))
        .copied()
        .collect();
    let per_model =
        if has_arms { per_model_by_arm(tables)? } else { section(format!("Per model ({})", models.height()), models, &shown, None, None) };
    let tools = with_fixed(&tables.by_tool)?
        .lazy()
        .filter(col(schema::INVALID).gt(lit(0)))
        .sort_by_exprs(
            [col(schema::INVALID), col(schema::STILL_INVALID)],
            SortMultipleOptions::default().with_order_descending_multi([true, true]).with_maintain_order(true),
        )
        .collect()?;
    let note = (tools.height() == 0).then(|| "No invalid calls.".to_string());
    let per_tool = section("Per model × tool: the most invalid calls".into(), tools, TOOL_COLUMNS, Some(TOOL_ROWS), note);
    // The errored models, with their first error, right under their rows.
    let errored = super::sections::errored(tables)?.map(|s| (s, vec![]));
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
