//! Two of the report's charts: invalid-call kinds per model (stacked bars)
//! and the repair latency distribution (a strip plot on a log axis). Each
//! takes plain rows read from the tables, so it can be tested on hand-built
//! data.

use std::fmt::Write;

use polars::prelude::*;

use super::scale::Scale;
use super::svg::{duration_us, escape, finite, label_room, num, text_width, Area, Svg, INK, PALETTE};
use crate::metrics::columns::{bools, f64s, u64s};
use crate::metrics::schema;
use crate::pipeline::InvalidKind;

/// One model's invalid calls, by kind (a call can have several kinds).
#[derive(Debug, Clone, PartialEq)]
pub struct KindCounts {
    pub model: String,
    pub calls: u64,
    pub invalid: u64,
    /// One count per `InvalidKind::ALL`.
    pub kinds: Vec<u64>,
}

/// Kind counts from the summary table.
pub fn kind_counts(summary: &DataFrame) -> PolarsResult<Vec<KindCounts>> {
    let (model, calls, invalid) = (super::names(summary, schema::MODEL)?, u64s(summary, schema::CALLS)?, u64s(summary, schema::INVALID)?);
    let kinds = schema::INVALID_KINDS.iter().map(|k| u64s(summary, k)).collect::<PolarsResult<Vec<_>>>()?;
    Ok((0..model.len())
        .map(|i| KindCounts { model: model[i].clone(), calls: calls[i], invalid: invalid[i], kinds: kinds.iter().map(|k| k[i]).collect() })
        .collect())
}

// The kinds chart gives each kind its own colour: a new kind needs one.
const _: () = assert!(PALETTE.len() >= InvalidKind::ALL.len());

/// Stacked horizontal bars: how often each kind of invalid call occurred.
pub fn kinds_chart(rows: &[KindCounts]) -> String {
    let models: Vec<String> = rows.iter().map(|r| r.model.clone()).collect();
    let (width, bar, top) = (580.0, 24.0, 62.0);
    let height = top + bar * rows.len().max(1) as f64 + 48.0;
    let area = Area { left: label_room(&models), top, right: width - 96.0, bottom: height - 48.0 };
    let mut svg = Svg::new("chart-invalid-kinds", width, height, "Invalid tool calls per model, by kind");
    let present: Vec<usize> =
        (0..InvalidKind::ALL.len()).filter(|k| rows.iter().any(|r| r.kinds.get(*k).copied().unwrap_or(0) > 0)).collect();
    if present.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No invalid tool calls in this run.");
        return svg.finish();
    }
    // Legend: only the kinds that occurred, wrapping to a second line.
    let (mut lx, mut ly) = (area.left, 18.0);
    for &k in &present {
        let label = InvalidKind::ALL[k].as_str().replace('_', " ");
        if lx + text_width(&label) + 30.0 > width {
            (lx, ly) = (area.left, ly + 18.0);
        }
        lx = svg.legend_item(lx, ly, PALETTE[k], &label);
    }
    let most = rows.iter().map(|r| r.kinds.iter().sum::<u64>()).max().unwrap_or(0);
    let x = Scale::nice((0.0, most.max(1) as f64), (area.left, area.right));
    svg.x_axis(area, &x, "invalid calls, counted once per kind", |v| format!("{v}"));
    for (i, r) in rows.iter().enumerate() {
        let y = area.top + bar * i as f64;
        svg.text(area.left - 8.0, y + bar / 2.0 + 4.0, "end", "row-label", &r.model);
        let mut at = 0u64;
        for &k in &present {
            let n = r.kinds.get(k).copied().unwrap_or(0);
            if n == 0 {
                continue;
            }
            let (x0, x1) = (x.at(at as f64), x.at((at + n) as f64));
            let tip = format!("{}: {} {}", r.model, n, InvalidKind::ALL[k].as_str().replace('_', " "));
            svg.rect(x0, y + 4.0, x1 - x0, bar - 8.0, PALETTE[k], Some(&tip));
            at += n;
        }
        let note = if r.invalid == 0 { format!("none of {}", r.calls) } else { format!("{} of {} calls", r.invalid, r.calls) };
        svg.text(x.at(at as f64) + 6.0, y + bar / 2.0 + 4.0, "start", "bar-note", &note);
    }
    svg.finish()
}

/// One repair attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepairPoint {
    /// Repaired by a model request (else by the local repairer).
    pub by_model: bool,
    pub latency_us: f64,
    pub succeeded: bool,
}

/// Repairs grouped by model, every model of the summary in its order.
pub fn repair_points(summary: &DataFrame, repairs: &DataFrame) -> PolarsResult<Vec<(String, Vec<RepairPoint>)>> {
    let mut grouped: Vec<(String, Vec<RepairPoint>)> = super::names(summary, schema::MODEL)?.into_iter().map(|m| (m, Vec::new())).collect();
    let (model, stage) = (super::names(repairs, schema::MODEL)?, super::names(repairs, schema::STAGE)?);
    let (latency, ok) = (f64s(repairs, schema::LATENCY_US)?, bools(repairs, schema::SUCCEEDED)?);
    for i in 0..model.len() {
        let point = RepairPoint { by_model: stage[i] == schema::STAGE_MODEL, latency_us: latency[i], succeeded: ok[i] };
        match grouped.iter_mut().find(|(m, _)| *m == model[i]) {
            Some((_, points)) => points.push(point),
            None => grouped.push((model[i].clone(), vec![point])),
        }
    }
    Ok(grouped)
}

/// The `q` quantile of sorted values, interpolated linearly.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = q * (sorted.len() - 1) as f64;
    let (i, f) = (rank.floor() as usize, rank.fract());
    sorted[i] + (sorted[(i + 1).min(sorted.len() - 1)] - sorted[i]) * f
}

/// Marks drawn in one lane of the repair-latency chart at most: a run's
/// every repair would put megabytes of marks into the page (and more than
/// a reader can tell apart); the box and median stay over every attempt.
pub const MARKS_PER_LANE: usize = 2000;

/// How many of a lane's `attempts` are drawn.
fn drawn_marks(attempts: usize) -> usize {
    attempts.min(MARKS_PER_LANE)
}

/// Local and model repairs: shape and colour both tell them apart.
const LOCAL: &str = "#0072B2";
const MODEL: &str = "#D55E00";

/// A strip plot of repair latencies on a log axis, a lane per model and
/// stage, each lane with a box from the 25th to the 75th percentile and a
/// mark at the median; failed repairs are hollow.
pub fn latency_chart(groups: &[(String, Vec<RepairPoint>)]) -> String {
    let models: Vec<String> = groups.iter().map(|(m, _)| m.clone()).collect();
    let lane = 20.0;
    let lanes: Vec<(usize, bool)> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, (_, points))| {
            let stages: Vec<bool> = [false, true].into_iter().filter(|s| points.iter().any(|p| p.by_model == *s)).collect();
            if stages.is_empty() {
                vec![(i, false)]
            } else {
                stages.into_iter().map(|s| (i, s)).collect()
            }
        })
        .collect();
    let (width, top) = (580.0, 44.0);
    let gaps = groups.len().saturating_sub(1) as f64 * 6.0;
    let height = top + lane * lanes.len().max(1) as f64 + gaps + 50.0;
    let area = Area { left: label_room(&models), top, right: width - 20.0, bottom: height - 50.0 };
    let mut svg = Svg::new("chart-repair-latency", width, height, "Repair latency per model, local and model repair");
    let latencies: Vec<f64> =
        groups.iter().flat_map(|(_, p)| p.iter().map(|r| r.latency_us)).filter(|v| v.is_finite() && *v > 0.0).collect();
    if groups.iter().all(|(_, p)| p.is_empty()) {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No repairs in this run.");
        return svg.finish();
    }
    let lo = latencies.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = latencies.iter().copied().fold(0.0, f64::max);
    let x =
        if latencies.is_empty() { Scale::log((1.0, 10.0), (area.left, area.right)) } else { Scale::log((lo, hi), (area.left, area.right)) };
    svg.x_axis(area, &x, "repair latency (log scale)", duration_us);
    let mut lx = svg.legend_item(area.left, 18.0, LOCAL, "local repair");
    lx = svg.legend_item(lx, 18.0, MODEL, "model repair");
    svg.raw(&format!("<circle cx=\"{}\" cy=\"14\" r=\"4\" fill=\"#fff\" stroke=\"{INK}\" stroke-width=\"1.5\"/>", num(lx + 5.0)));
    svg.text(lx + 14.0, 18.0, "start", "legend", "failed");

    let mut y = area.top;
    let mut previous = usize::MAX;
    for (index, by_model) in lanes {
        if previous != usize::MAX && previous != index {
            y += 6.0;
            svg.line((area.left, y - 3.0), (area.right, y - 3.0), super::svg::FAINT, 1.0);
        }
        let (model, points) = &groups[index];
        let mid = y + lane / 2.0;
        let stage = if by_model { schema::STAGE_MODEL } else { schema::STAGE_LOCAL };
        let label = if previous == index { String::new() } else { model.clone() };
        previous = index;
        if !label.is_empty() {
            svg.text(area.left - 8.0, mid + 4.0, "end", "row-label", &label);
        }
        let mut values: Vec<f64> = points.iter().filter(|p| p.by_model == by_model).map(|p| finite(p.latency_us, 0.0)).collect();
        if values.is_empty() {
            svg.text(area.left + 6.0, mid + 4.0, "start", "bar-note", "no repairs");
            y += lane;
            continue;
        }
        values.sort_by(f64::total_cmp);
        let colour = if by_model { MODEL } else { LOCAL };
        let (q1, q2, q3) = (x.at(quantile(&values, 0.25)), x.at(quantile(&values, 0.5)), x.at(quantile(&values, 0.75)));
        let lane_points: Vec<&RepairPoint> = points.iter().filter(|p| p.by_model == by_model).collect();
        let drawn = drawn_marks(lane_points.len());
        let sampled = if drawn < lane_points.len() { format!(" ({drawn} of them drawn, evenly spaced)") } else { String::new() };
        let tip = format!(
            "{model}, {stage} repair: {} attempts{sampled}, median {}, 25–75% {}–{}",
            values.len(),
            duration_us(quantile(&values, 0.5)),
            duration_us(quantile(&values, 0.25)),
            duration_us(quantile(&values, 0.75))
        );
        svg.raw(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\" fill-opacity=\"0.15\" stroke=\"{colour}\"><title>{}</title></rect>",
            num(q1),
            num(y + 2.0),
            num((q3 - q1).max(1.0)),
            num(lane - 4.0),
            escape(&tip)
        ));
        svg.line((q2, y + 1.0), (q2, y + lane - 1.0), INK, 2.0);
        let mut marks = String::new();
        // At most `MARKS_PER_LANE`, spread evenly over the attempts: the box
        // and median above are over every one.
        let picked = (0..drawn).map(|k| if drawn == lane_points.len() { k } else { k * lane_points.len() / drawn });
        for (i, p) in picked.map(|k| (k, lane_points[k])) {
            // A fixed jitter from the index keeps the page byte-for-byte reproducible.
            let jitter = ((i as u64).wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0 - 0.5;
            let (cx, cy) = (num(x.at(p.latency_us)), num(mid + jitter * (lane - 8.0)));
            let fill = if p.succeeded { colour } else { "#fff" };
            if by_model {
                let _ = write!(
                    marks,
                    "<rect x=\"{}\" y=\"{}\" width=\"6\" height=\"6\" fill=\"{fill}\" stroke=\"{colour}\" fill-opacity=\"0.8\"/>",
                    num(x.at(p.latency_us) - 3.0),
                    num(mid + jitter * (lane - 8.0) - 3.0)
                );
            } else {
                let _ =
                    write!(marks, "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"2.6\" fill=\"{fill}\" stroke=\"{colour}\" fill-opacity=\"0.6\"/>");
            }
        }
        svg.raw(&marks);
        y += lane;
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> DataFrame {
        df!(
            "model" => ["strong", "cheap"],
            "calls" => [10u64, 20],
            "invalid" => [0u64, 6],
            "unknown_tool" => [0u64, 1],
            "parse_error" => [0u64, 0],
            "missing_required" => [0u64, 3],
            "wrong_type" => [0u64, 4],
            "additional_property" => [0u64, 0],
            "enum_mismatch" => [0u64, 0],
            "constraint_violation" => [0u64, 0],
            "text_call" => [0u64, 0],
            "server_rejected_call" => [0u64, 0],
            "truncated" => [0u64, 2],
        )
        .unwrap()
    }

    #[test]
    fn kinds_stack_per_model_with_only_the_kinds_that_occurred() {
        let rows = kind_counts(&summary()).unwrap();
        assert_eq!(rows[1].kinds, [1, 0, 3, 4, 0, 0, 0, 0, 0, 2]);
        let svg = kinds_chart(&rows);
        assert!(svg.contains("<title>cheap: 4 wrong type</title>") && svg.contains("<title>cheap: 3 missing required</title>"));
        assert!(
            svg.contains("<title>cheap: 2 truncated</title>") && svg.contains(">truncated</text>"),
            "cut-off calls have a legend entry"
        );
        assert!(svg.contains(">6 of 20 calls</text>") && svg.contains(">none of 10</text>"), "{svg}");
        assert!(!svg.contains(">parse error</text>"), "kinds that never occurred stay out of the legend");
        let clean = kinds_chart(&[KindCounts { model: "m".into(), calls: 3, invalid: 0, kinds: vec![0; InvalidKind::ALL.len()] }]);
        assert!(clean.contains("No invalid tool calls in this run."));
    }

    #[test]
    fn latency_lanes_split_local_and_model_repair() {
        let repairs = df!(
            "model" => ["cheap", "cheap", "cheap", "ghost"],
            "tool" => ["a", "a", "b", "a"],
            "stage" => ["local", "local", "model", "local"],
            "latency_us" => [5.0, 0.0, 481_000.0, f64::NAN],
            "succeeded" => [true, true, false, true],
        )
        .unwrap();
        let groups = repair_points(&summary(), &repairs).unwrap();
        assert_eq!(groups.iter().map(|(m, p)| (m.as_str(), p.len())).collect::<Vec<_>>(), [("strong", 0), ("cheap", 3), ("ghost", 1)]);
        let svg = latency_chart(&groups);
        assert!(svg.contains("cheap, local repair: 2 attempts") && svg.contains("cheap, model repair: 1 attempts"), "{svg}");
        assert!(svg.contains(">no repairs</text>") && svg.contains(">1 µs</text>") && svg.contains(">1 s</text>"));
        assert!(svg.contains("fill=\"#fff\" stroke=\"#D55E00\""), "the failed model repair is hollow");
        assert!(!svg.contains("NaN"));
        let none = latency_chart(&repair_points(&summary(), &repairs.head(Some(0))).unwrap());
        assert!(none.contains("No repairs in this run."));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    }

    #[test]
    fn a_lane_draws_at_most_its_share_of_marks_and_says_so() {
        let many = MARKS_PER_LANE * 3 + 7;
        let points: Vec<RepairPoint> =
            (0..many).map(|i| RepairPoint { by_model: false, latency_us: 1.0 + i as f64, succeeded: i % 2 == 0 }).collect();
        let svg = latency_chart(&[("m".to_string(), points)]);
        assert_eq!(svg.matches("<circle cx=").count() - 1, MARKS_PER_LANE, "one circle is the legend's");
        assert!(
            svg.contains(&format!("m, local repair: {many} attempts ({MARKS_PER_LANE} of them drawn, evenly spaced), median")),
            "{svg}"
        );
        let few = latency_chart(&[("m".to_string(), vec![RepairPoint { by_model: false, latency_us: 5.0, succeeded: true }])]);
        assert!(!few.contains("drawn"));
    }
}
