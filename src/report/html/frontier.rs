//! The pass rate against cost chart: one point per model variant with its
//! 95% Wilson interval, a model's arms joined in order by an arrow (off →
//! local → full: what repair buys), the Pareto front drawn through the
//! variants no other beats on both, and one label per model, placed by
//! `place` so no two labels and no label and the legend overlap.

use super::place::{leader_end, place, Rect, Wanted};
use super::scale::Scale;
use super::svg::{escape, num, percent, text_width, usd, usd_tick, Area, Svg, MUTED};
use crate::metrics::table::SummaryRow;

/// Points on the front.
const FRONT: &str = "#0072B2";
/// Points off the front.
const DOMINATED: &str = "#E69F00";
/// Interval bars.
const INTERVAL: &str = "#8a8a8a";
/// The arrow joining a model's arms.
const ARMS: &str = "#555";

/// One model's point.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPoint {
    pub model: String,
    /// The configured model this variant belongs to (the model itself without arms).
    pub base: String,
    /// The arm it ran under; empty without arms.
    pub arm: String,
    /// Total cost of the run (scenario and repair requests), USD.
    pub cost: f64,
    pub pass_rate: f64,
    pub lo: f64,
    pub hi: f64,
    pub pareto: bool,
}

/// The points of the summary table, in its model order: the models that
/// answered some unit (one that answered none has no pass rate to place).
pub fn points(summary: &[SummaryRow]) -> Vec<ModelPoint> {
    summary
        .iter()
        .filter(|r| r.scenarios > 0)
        .map(|r| ModelPoint {
            model: super::name(&r.model),
            base: super::name(if r.base_model.is_empty() { &r.model } else { &r.base_model }),
            arm: super::name(&r.arm),
            cost: r.total_cost_usd,
            pass_rate: r.pass_rate.unwrap_or(0.0),
            lo: r.pass_rate_lo.unwrap_or(0.0),
            hi: r.pass_rate_hi.unwrap_or(0.0),
            pareto: r.pareto,
        })
        .collect()
}

/// The models left off the chart: every unit of theirs errored (no answer).
pub fn errored_models(summary: &[SummaryRow]) -> Vec<String> {
    summary.iter().filter(|r| r.scenarios == 0 && r.errored > 0).map(|r| super::name(&r.model)).collect()
}

/// The cost axis: linear from zero, or log when costs spread over a decade
/// or more (cheap models would otherwise pile up at zero). On a log axis,
/// models that cost nothing (local, free) get their own `$0` place at the
/// left, apart from the decades.
struct CostAxis {
    scale: Scale,
    log: bool,
    /// Where a cost of zero sits on a log axis.
    zero: Option<f64>,
}

/// Room at the left of a log axis for the `$0` place.
const ZERO_ROOM: f64 = 40.0;

impl CostAxis {
    fn at(&self, cost: f64) -> f64 {
        match self.zero {
            Some(x) if cost.is_nan() || cost <= 0.0 => x,
            _ => self.scale.at(cost),
        }
    }
}

/// Chooses the cost axis for `points` over the pixels `range`.
fn cost_axis(points: &[ModelPoint], range: (f64, f64)) -> CostAxis {
    let costs: Vec<f64> = points.iter().map(|p| p.cost).filter(|c| c.is_finite() && *c >= 0.0).collect();
    let max = costs.iter().copied().fold(0.0, f64::max);
    let min_positive = costs.iter().copied().filter(|c| *c > 0.0).fold(f64::INFINITY, f64::min);
    if min_positive.is_finite() && max / min_positive >= 10.0 {
        let free = costs.contains(&0.0);
        let log_range = if free { (range.0 + ZERO_ROOM, range.1) } else { range };
        let zero = free.then_some(range.0 + ZERO_ROOM * 0.35);
        CostAxis { scale: Scale::log_padded((min_positive, max), log_range), log: true, zero }
    } else {
        CostAxis { scale: Scale::nice((0.0, if max > 0.0 { max } else { 1.0 }), range), log: false, zero: None }
    }
}

/// A model's variants in run order (its arms, off → local → full).
struct Group<'a> {
    base: &'a str,
    points: Vec<&'a ModelPoint>,
}

/// The points grouped by base model, in the order each first appears.
fn groups(points: &[ModelPoint]) -> Vec<Group<'_>> {
    let mut out: Vec<Group> = Vec::new();
    for p in points {
        match out.iter_mut().find(|g| g.base == p.base) {
            Some(g) => g.points.push(p),
            None => out.push(Group { base: &p.base, points: vec![p] }),
        }
    }
    out
}

/// Width of a point label at 11.5px, generous: a label that would touch
/// another is moved or left out, so guessing wide is the safe side.
fn label_width(text: &str) -> f64 {
    text_width(text) * 1.02 + 4.0
}

/// The chart as an `<svg>` element, and the models it could not label
/// (no free place; the caption names them).
pub fn chart(points: &[ModelPoint]) -> (String, Vec<String>) {
    let (width, height) = (1120.0, 470.0);
    let area = Area { left: 62.0, top: 52.0, right: width - 24.0, bottom: height - 52.0 };
    let mut svg = Svg::new("chart-pass-cost", width, height, "Pass rate against total cost per model, arms joined, with the Pareto front");
    if points.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No models in this run.");
        return (svg.finish(), Vec::new());
    }
    let x = cost_axis(points, (area.left, area.right));
    let lowest = points.iter().map(|p| super::svg::finite(p.lo.min(p.pass_rate), 0.0)).fold(1.0, f64::min);
    let y = Scale::nice((lowest.clamp(0.0, 1.0), 1.0), (area.bottom, area.top));
    let x_title = if x.log { "total cost, USD (log scale)" } else { "total cost, USD" };
    svg.x_axis(area, &x.scale, x_title, usd_tick);
    if let Some(zx) = x.zero {
        // The $0 place, and a break in the axis between it and the decades.
        svg.line((zx, area.top), (zx, area.bottom), super::svg::FAINT, 1.0);
        svg.line((zx, area.bottom), (zx, area.bottom + 4.0), super::svg::INK, 1.0);
        svg.text(zx, area.bottom + 16.0, "middle", "tick", "$0");
        let bx = area.left + ZERO_ROOM * 0.7;
        svg.raw(&format!(
            "<path class=\"axis-break\" d=\"M{} {} l4 -8 M{} {} l4 -8\" stroke=\"{}\" stroke-width=\"1.2\" fill=\"none\"/>",
            num(bx - 3.0),
            num(area.bottom + 4.0),
            num(bx + 1.0),
            num(area.bottom + 4.0),
            super::svg::INK
        ));
    }
    svg.y_axis(area, &y, "pass rate", percent);
    svg.raw(&format!(
        "<defs><marker id=\"arm-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" \
         orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"{ARMS}\"/></marker></defs>"
    ));

    // Legend above the plot; its boxes are obstacles for the labels.
    let groups = groups(points);
    let arms: Vec<&str> =
        groups.iter().find(|g| g.points.len() > 1).map(|g| g.points.iter().map(|p| p.arm.as_str()).collect()).unwrap_or_default();
    let mut legend: Vec<Rect> = Vec::new();
    let mut lx = area.left;
    let mut item = |svg: &mut Svg, mark: String, text: &str, lx: &mut f64| {
        svg.raw(&mark);
        svg.text(*lx + 16.0, 20.0, "start", "legend", text);
        legend.push(Rect { x0: *lx - 2.0, y0: 6.0, x1: *lx + 16.0 + label_width(text), y1: 26.0 });
        *lx += 16.0 + label_width(text) + 22.0;
    };
    let at = lx;
    item(&mut svg, format!("<circle cx=\"{}\" cy=\"16\" r=\"5\" fill=\"{FRONT}\"/>", num(at + 5.0)), "on the Pareto front", &mut lx);
    let at = lx;
    item(
        &mut svg,
        format!("<circle cx=\"{}\" cy=\"16\" r=\"4.5\" fill=\"#fff\" stroke=\"{DOMINATED}\" stroke-width=\"2\"/>", num(at + 5.0)),
        "beaten on both",
        &mut lx,
    );
    let at = lx;
    item(
        &mut svg,
        format!("<line x1=\"{0}\" y1=\"9\" x2=\"{0}\" y2=\"23\" stroke=\"{INTERVAL}\" stroke-width=\"1\"/>", num(at + 5.0)),
        "95% interval",
        &mut lx,
    );
    if arms.len() > 1 {
        let at = lx;
        let text = format!("one model's arms, {} (what repair buys)", arms.join(" → "));
        item(
            &mut svg,
            format!(
                "<line x1=\"{}\" y1=\"16\" x2=\"{}\" y2=\"16\" stroke=\"{ARMS}\" stroke-width=\"1.5\" marker-end=\"url(#arm-arrow)\"/>",
                num(at - 4.0),
                num(at + 12.0)
            ),
            &text,
            &mut lx,
        );
    }

    // The front, cheapest first.
    let mut front: Vec<&ModelPoint> = points.iter().filter(|p| p.pareto).collect();
    front.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    if front.len() > 1 {
        let path: Vec<String> = front.iter().map(|p| format!("{},{}", num(x.at(p.cost)), num(y.at(p.pass_rate)))).collect();
        svg.raw(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{FRONT}\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
            path.join(" ")
        ));
    }

    // Each model's arms joined in order, an arrowhead at the last arm.
    let at = |p: &ModelPoint| (x.at(p.cost), y.at(p.pass_rate));
    for g in &groups {
        let mut path: Vec<(f64, f64)> = Vec::new();
        for p in &g.points {
            let xy = at(p);
            if path.last().is_none_or(|last: &(f64, f64)| (last.0 - xy.0).hypot(last.1 - xy.1) > 1.0) {
                path.push(xy);
            }
        }
        if path.len() < 2 {
            continue;
        }
        // Stop short of the last mark so the arrowhead shows beside it.
        let (a, b) = (path[path.len() - 2], path[path.len() - 1]);
        let length = (b.0 - a.0).hypot(b.1 - a.1);
        let marker = if length > 10.0 {
            let last = path.len() - 1;
            path[last] = (b.0 - (b.0 - a.0) / length * 6.5, b.1 - (b.1 - a.1) / length * 6.5);
            " marker-end=\"url(#arm-arrow)\""
        } else {
            ""
        };
        let text: Vec<String> = path.iter().map(|(px, py)| format!("{},{}", num(*px), num(*py))).collect();
        svg.raw(&format!(
            "<polyline class=\"arms\" points=\"{}\" fill=\"none\" stroke=\"{ARMS}\" stroke-width=\"1.5\"{marker}><title>{}</title></polyline>",
            text.join(" "),
            escape(&format!("{}: {}", g.base, g.points.iter().map(|p| format!("{} {}", p.arm, percent(p.pass_rate))).collect::<Vec<_>>().join(" → ")))
        ));
    }

    // Marks: intervals, then the points, front points last (on top).
    let mut marks: Vec<Rect> = Vec::new();
    for p in points.iter().filter(|p| !p.pareto).chain(points.iter().filter(|p| p.pareto)) {
        let (px, py) = at(p);
        let (lo, hi) = (y.at(p.lo), y.at(p.hi));
        svg.line((px, lo), (px, hi), INTERVAL, 1.0);
        svg.line((px - 3.0, lo), (px + 3.0, lo), INTERVAL, 1.0);
        svg.line((px - 3.0, hi), (px + 3.0, hi), INTERVAL, 1.0);
        let tip = escape(&format!(
            "{}: pass {} (95% CI {}–{}), cost {}{}",
            p.model,
            percent(p.pass_rate),
            percent(p.lo),
            percent(p.hi),
            usd(p.cost),
            if p.pareto { ", on the Pareto front" } else { "" }
        ));
        let (fill, stroke) = if p.pareto { (FRONT, FRONT) } else { ("#fff", DOMINATED) };
        svg.raw(&format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\"><title>{tip}</title></circle>",
            num(px),
            num(py)
        ));
        marks.push(Rect { x0: px - 6.0, y0: py - 6.0, x1: px + 6.0, y1: py + 6.0 });
    }

    // One label per model, at its last arm: models on the front first, then
    // by pass rate, so the ones a reader looks for get the nearest places.
    let mut order: Vec<&Group> = groups.iter().collect();
    fn last<'a>(g: &Group<'a>) -> &'a ModelPoint {
        g.points[g.points.len() - 1]
    }
    order.sort_by(|a, b| {
        let (pa, pb) = (last(a), last(b));
        let front = |g: &Group| g.points.iter().any(|p| p.pareto);
        front(b).cmp(&front(a)).then(pb.pass_rate.total_cmp(&pa.pass_rate)).then(a.base.cmp(b.base))
    });
    let wanted: Vec<Wanted> = order
        .iter()
        .map(|g| {
            let (px, py) = at(last(g));
            Wanted { x: px, y: py, width: label_width(g.base) }
        })
        .collect();
    let obstacles: Vec<Rect> = legend.iter().chain(&marks).copied().collect();
    let bounds = Rect { x0: area.left + 2.0, y0: 30.0, x1: width - 4.0, y1: area.bottom - 2.0 };
    let mut unlabelled = Vec::new();
    for ((g, spot), w) in order.iter().zip(place(&wanted, &obstacles, bounds)).zip(&wanted) {
        let Some(spot) = spot else {
            unlabelled.push(g.base.to_string());
            continue;
        };
        if spot.leader {
            svg.line((w.x, w.y), leader_end(w.x, w.y, &spot.rect), MUTED, 0.6);
        }
        let class = if g.points.iter().any(|p| p.pareto) { "point-label front" } else { "point-label" };
        svg.text(spot.x, spot.y, "start", class, g.base);
    }
    (svg.finish(), unlabelled)
}
#[cfg(test)]
mod tests {
    use super::*;

    fn point(model: &str, cost: f64, pass_rate: f64, pareto: bool) -> ModelPoint {
        ModelPoint {
            model: model.into(),
            base: model.split('@').next().unwrap().into(),
            arm: model.split('@').nth(1).unwrap_or("").into(),
            cost,
            pass_rate,
            lo: pass_rate - 0.1,
            hi: (pass_rate + 0.05).min(1.0),
            pareto,
        }
    }

    #[test]
    fn draws_points_intervals_front_and_labels() {
        let (svg, unlabelled) =
            chart(&[point("strong", 0.42, 0.98, true), point("cheap", 0.02, 0.95, true), point("worse", 0.03, 0.9, false)]);
        assert!(svg.contains("id=\"chart-pass-cost\"") && unlabelled.is_empty());
        assert_eq!(svg.matches("<circle").count(), 3 + 2, "three points and two legend marks");
        assert_eq!(svg.matches("<polyline").count(), 1, "the front; no arms to join");
        assert!(svg.contains("total cost, USD (log scale)"), "costs 20× apart use a log axis");
        for label in [">strong</text>", ">cheap</text>", ">worse</text>"] {
            assert!(svg.contains(label), "{label}");
        }
        assert!(svg.contains("<title>strong: pass 98% (95% CI 88%–100%), cost $0.420, on the Pareto front</title>"), "{svg}");
    }

    #[test]
    fn free_models_sit_at_their_own_zero_on_a_log_axis() {
        let points = [point("strong", 0.89, 0.98, true), point("cheap", 0.043, 0.92, true), point("local", 0.0, 0.4, true)];
        let (svg, _) = chart(&points);
        assert!(svg.contains("total cost, USD (log scale)"), "20× apart, a free model besides: still log");
        assert!(svg.contains(">$0</text>") && svg.contains(">$0.1</text>") && svg.contains(">$1</text>"), "{svg}");
        let axis = cost_axis(&points, (62.0, 400.0));
        let (zero, cheap, strong) = (axis.at(0.0), axis.at(0.043), axis.at(0.89));
        assert!(zero < 62.0 + ZERO_ROOM && cheap > 62.0 + ZERO_ROOM && strong - cheap > 150.0, "{zero} {cheap} {strong}");
        // Under a decade apart: linear from zero.
        assert!(!cost_axis(&[point("a", 0.5, 0.9, true), point("b", 0.1, 0.8, true)], (0.0, 100.0)).log);
    }

    #[test]
    fn survives_one_model_zero_cost_and_nan() {
        for points in [
            vec![point("only", 0.0, 1.0, true)],
            vec![point("a", 0.0, 0.5, true), point("b", 0.0, 0.5, true)],
            vec![point("nan", f64::NAN, f64::NAN, false), point("inf", f64::INFINITY, 0.5, true)],
            vec![],
        ] {
            let (svg, _) = chart(&points);
            assert!(!svg.contains("NaN") && !svg.contains("inf\"") && svg.ends_with("</svg>\n"), "{svg}");
            assert!(!svg.contains("log scale"));
        }
    }

    #[test]
    fn a_model_s_arms_are_one_arrow_with_one_label() {
        let points = [
            point("cheap@off", 0.39, 0.76, false),
            point("cheap@local", 0.35, 0.85, false),
            point("cheap@full", 0.35, 0.92, true),
            point("strong@off", 6.5, 0.96, false),
            point("strong@full", 6.5, 0.98, true),
        ];
        let (svg, unlabelled) = chart(&points);
        assert!(unlabelled.is_empty());
        assert_eq!(svg.matches("class=\"arms\"").count(), 2, "{svg}");
        assert!(svg.contains("<title>cheap: off 76% → local 85% → full 92%</title>"), "{svg}");
        assert_eq!(svg.matches("marker-end=\"url(#arm-arrow)\"").count(), 3, "two arrows and the legend's");
        assert!(svg.contains("one model&apos;s arms, off → local → full (what repair buys)"), "{svg}");
        assert_eq!(svg.matches(">cheap</text>").count(), 1);
        assert!(!svg.contains(">cheap@off</text>"));
    }
}
