//! Two of the report's charts: invalid-call kinds per model (stacked bars)
//! and the repair latency distribution (a strip plot on a log axis). Each
//! takes plain rows read from the tables, so it can be tested on hand-built
//! data.

use std::fmt::Write;

use super::scale::Scale;
use super::svg::{duration_us, escape, finite, label_room, num, text_width, Area, Svg, INK, PALETTE};
use crate::metrics::schema;
use crate::metrics::table::{RepairRow, SummaryRow};
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
pub fn kind_counts(summary: &[SummaryRow]) -> Vec<KindCounts> {
    summary
        .iter()
        .map(|r| KindCounts { model: super::name(&r.model), calls: r.calls, invalid: r.invalid, kinds: r.kinds.counts().to_vec() })
        .collect()
}

// The kinds chart gives each kind its own colour: a new kind needs one.
const _: () = assert!(PALETTE.len() >= InvalidKind::ALL.len());

/// Stacked horizontal bars: how often each kind of invalid call occurred.
pub fn kinds_chart(rows: &[KindCounts]) -> String {
    let models: Vec<String> = rows.iter().map(|r| r.model.clone()).collect();
    let present: Vec<usize> =
        (0..InvalidKind::ALL.len()).filter(|k| rows.iter().any(|r| r.kinds.get(*k).copied().unwrap_or(0) > 0)).collect();
    // Legend: only the kinds that occurred, from the left edge, wrapping; the
    // bars start below its last line.
    let width = 580.0;
    let mut legend: Vec<(f64, f64, usize, String)> = Vec::new();
    let (mut lx, mut ly) = (8.0, 18.0);
    for &k in &present {
        let label = InvalidKind::ALL[k].as_str().replace('_', " ");
        if lx + text_width(&label) + 30.0 > width {
            (lx, ly) = (8.0, ly + 18.0);
        }
        legend.push((lx, ly, k, label.clone()));
        lx += 15.0 + text_width(&label) + 16.0;
    }
    let (bar, top) = (24.0, ly + 26.0);
    let height = top + bar * rows.len().max(1) as f64 + 48.0;
    let area = Area { left: label_room(&models), top, right: width - 96.0, bottom: height - 48.0 };
    let mut svg = Svg::new("chart-invalid-kinds", width, height, "Invalid tool calls per model, by kind");
    if present.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No invalid tool calls in this run.");
        return svg.finish();
    }
    for (lx, ly, k, label) in &legend {
        svg.legend_item(*lx, *ly, PALETTE[*k], label);
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

/// One model variant's repairs, with the model and arm it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairGroup {
    pub model: String,
    /// The configured model (the model itself without arms).
    pub base: String,
    /// The arm; empty without arms.
    pub arm: String,
    pub points: Vec<RepairPoint>,
}

/// Repairs grouped by model, every model of the summary in its order.
pub fn repair_points(summary: &[SummaryRow], repairs: &[RepairRow]) -> Vec<RepairGroup> {
    let mut grouped: Vec<RepairGroup> = summary
        .iter()
        .map(|r| RepairGroup {
            model: super::name(&r.model),
            base: super::name(if r.base_model.is_empty() { &r.model } else { &r.base_model }),
            arm: super::name(&r.arm),
            points: Vec::new(),
        })
        .collect();
    for r in repairs {
        let point =
            RepairPoint { by_model: r.stage == schema::STAGE_MODEL, latency_us: r.latency_us.unwrap_or(0.0), succeeded: r.succeeded };
        let model = super::name(&r.model);
        match grouped.iter_mut().find(|g| g.model == model) {
            Some(g) => g.points.push(point),
            None => grouped.push(RepairGroup { model: model.clone(), base: model, arm: String::new(), points: vec![point] }),
        }
    }
    grouped
}

/// The variants that made no repair (they get no lane), for the caption.
pub fn without_repairs(groups: &[RepairGroup]) -> Vec<&str> {
    groups.iter().filter(|g| g.points.is_empty()).map(|g| g.model.as_str()).collect()
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
pub fn latency_chart(groups: &[RepairGroup]) -> String {
    let lane = 20.0;
    // A lane per variant and stage that repaired: a variant with no repair
    // (every model's `off` arm) has none, and the caption names it.
    let lanes: Vec<(usize, bool)> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| [false, true].into_iter().filter(|s| g.points.iter().any(|p| p.by_model == *s)).map(move |s| (i, s)))
        .collect();
    let sub_label = |i: usize, by_model: bool| {
        let stage = if by_model { schema::STAGE_MODEL } else { schema::STAGE_LOCAL };
        if groups[i].arm.is_empty() {
            stage.to_string()
        } else {
            format!("{} · {stage}", groups[i].arm)
        }
    };
    let bases: Vec<String> = groups.iter().map(|g| g.base.clone()).collect();
    let sub_room = lanes.iter().map(|(i, s)| text_width(&sub_label(*i, *s))).fold(30.0, f64::max) + 14.0;
    let (width, top) = (580.0, 44.0);
    let base_changes = lanes.windows(2).filter(|w| groups[w[0].0].base != groups[w[1].0].base).count() as f64;
    let height = top + lane * lanes.len().max(1) as f64 + base_changes * 8.0 + 50.0;
    let area = Area { left: (label_room(&bases) + sub_room).min(330.0), top, right: width - 20.0, bottom: height - 50.0 };
    let mut svg = Svg::new("chart-repair-latency", width, height, "Repair latency per model, local and model repair");
    let latencies: Vec<f64> =
        groups.iter().flat_map(|g| g.points.iter().map(|r| r.latency_us)).filter(|v| v.is_finite() && *v > 0.0).collect();
    if groups.iter().all(|g| g.points.is_empty()) {
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
    let mut previous: Option<&str> = None;
    for (index, by_model) in lanes {
        let RepairGroup { model, base, points, .. } = &groups[index];
        // The model's name once, over all its arms' lanes.
        if previous != Some(base.as_str()) {
            if previous.is_some() {
                y += 8.0;
                svg.line((area.left - sub_room, y - 4.0), (area.right, y - 4.0), super::svg::FAINT, 1.0);
            }
            svg.text(area.left - sub_room, y + lane / 2.0 + 4.0, "end", "row-label", base);
        }
        previous = Some(base.as_str());
        let mid = y + lane / 2.0;
        let stage = if by_model { schema::STAGE_MODEL } else { schema::STAGE_LOCAL };
        svg.text(area.left - 8.0, mid + 4.0, "end", "bar-note", &sub_label(index, by_model));
        let mut values: Vec<f64> = points.iter().filter(|p| p.by_model == by_model).map(|p| finite(p.latency_us, 0.0)).collect();
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

    fn summary() -> Vec<SummaryRow> {
        use crate::metrics::table::InvalidKinds;
        let cheap = InvalidKinds { unknown_tool: 1, missing_required: 3, wrong_type: 4, truncated: 2, ..InvalidKinds::default() };
        vec![
            SummaryRow { model: "strong".into(), base_model: "strong".into(), calls: 10, ..SummaryRow::default() },
            SummaryRow { model: "cheap".into(), base_model: "cheap".into(), calls: 20, invalid: 6, kinds: cheap, ..SummaryRow::default() },
        ]
    }

    #[test]
    fn kinds_stack_per_model_with_only_the_kinds_that_occurred() {
        let rows = kind_counts(&summary());
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

    fn group(model: &str, arm: &str, points: Vec<RepairPoint>) -> RepairGroup {
        RepairGroup { model: model.into(), base: model.split('@').next().unwrap().into(), arm: arm.into(), points }
    }

    #[test]
    fn arms_are_lanes_under_their_model_s_one_label() {
        let repair = |by_model| RepairPoint { by_model, latency_us: 10.0, succeeded: true };
        let svg = latency_chart(&[
            group("m@off", "off", vec![]),
            group("m@local", "local", vec![repair(false)]),
            group("m@full", "full", vec![repair(false), repair(true)]),
        ]);
        assert_eq!(svg.matches(">m</text>").count(), 1, "{svg}");
        for lane in [">local · local</text>", ">full · local</text>", ">full · model</text>"] {
            assert!(svg.contains(lane), "{lane}");
        }
        assert!(!svg.contains("off ·"));
    }

    #[test]
    fn latency_lanes_split_local_and_model_repair() {
        let repair = |model: &str, tool: &str, stage: &str, latency_us: f64, succeeded: bool| RepairRow {
            model: model.into(),
            tool: tool.into(),
            stage: stage.into(),
            latency_us: Some(latency_us),
            succeeded,
        };
        let repairs = [
            repair("cheap", "a", "local", 5.0, true),
            repair("cheap", "a", "local", 0.0, true),
            repair("cheap", "b", "model", 481_000.0, false),
            repair("ghost", "a", "local", f64::NAN, true),
        ];
        let groups = repair_points(&summary(), &repairs);
        assert_eq!(
            groups.iter().map(|g| (g.model.as_str(), g.points.len())).collect::<Vec<_>>(),
            [("strong", 0), ("cheap", 3), ("ghost", 1)]
        );
        assert_eq!(without_repairs(&groups), ["strong"]);
        let svg = latency_chart(&groups);
        assert!(svg.contains("cheap, local repair: 2 attempts") && svg.contains("cheap, model repair: 1 attempts"), "{svg}");
        assert!(!svg.contains(">strong</text>"), "a model that never repaired gets no lane");
        assert!(svg.contains(">1 µs</text>") && svg.contains(">1 s</text>"));
        assert!(svg.contains("fill=\"#fff\" stroke=\"#D55E00\""), "the failed model repair is hollow");
        assert!(!svg.contains("NaN"));
        let none = latency_chart(&repair_points(&summary(), &[]));
        assert!(none.contains("No repairs in this run."));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    }

    #[test]
    fn a_lane_draws_at_most_its_share_of_marks_and_says_so() {
        let many = MARKS_PER_LANE * 3 + 7;
        let points: Vec<RepairPoint> =
            (0..many).map(|i| RepairPoint { by_model: false, latency_us: 1.0 + i as f64, succeeded: i % 2 == 0 }).collect();
        let svg = latency_chart(&[group("m", "", points)]);
        assert_eq!(svg.matches("<circle cx=").count() - 1, MARKS_PER_LANE, "one circle is the legend's");
        assert!(
            svg.contains(&format!("m, local repair: {many} attempts ({MARKS_PER_LANE} of them drawn, evenly spaced), median")),
            "{svg}"
        );
        let few = latency_chart(&[group("m", "", vec![RepairPoint { by_model: false, latency_us: 5.0, succeeded: true }])]);
        assert!(!few.contains("drawn"));
    }
}
