//! The pass rate against cost chart: one point per model with its 95%
//! Wilson interval, the Pareto front drawn through the models no other
//! model beats on both, and a label beside each point.

use polars::prelude::*;

use super::scale::Scale;
use super::svg::{escape, num, percent, text_width, usd, usd_tick, Area, Svg, MUTED};
use crate::metrics::columns::{bools, f64s, u64s};
use crate::metrics::schema;

/// Points on the front.
const FRONT: &str = "#0072B2";
/// Points off the front.
const DOMINATED: &str = "#E69F00";
/// Interval bars.
const INTERVAL: &str = "#8a8a8a";

/// One model's point.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPoint {
    pub model: String,
    /// Total cost of the run (scenario and repair requests), USD.
    pub cost: f64,
    pub pass_rate: f64,
    pub lo: f64,
    pub hi: f64,
    pub pareto: bool,
}

/// The points of the summary table, in its model order: the models that
/// answered some unit (one that answered none has no pass rate to place).
pub fn points(summary: &DataFrame) -> PolarsResult<Vec<ModelPoint>> {
    let (model, cost, rate) =
        (super::names(summary, schema::MODEL)?, f64s(summary, schema::TOTAL_COST_USD)?, f64s(summary, schema::PASS_RATE)?);
    let (lo, hi, pareto) = (f64s(summary, schema::PASS_RATE_LO)?, f64s(summary, schema::PASS_RATE_HI)?, bools(summary, schema::PARETO)?);
    let answered = u64s(summary, schema::SCENARIOS)?;
    Ok((0..model.len())
        .filter(|&i| answered[i] > 0)
        .map(|i| ModelPoint { model: model[i].clone(), cost: cost[i], pass_rate: rate[i], lo: lo[i], hi: hi[i], pareto: pareto[i] })
        .collect())
}

/// The models left off the chart: every unit of theirs errored (no answer).
pub fn errored_models(summary: &DataFrame) -> PolarsResult<Vec<String>> {
    let (model, answered, errored) =
        (super::names(summary, schema::MODEL)?, u64s(summary, schema::SCENARIOS)?, u64s(summary, schema::ERRORED)?);
    Ok((0..model.len()).filter(|&i| answered[i] == 0 && errored[i] > 0).map(|i| model[i].clone()).collect())
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

/// A label to place: its horizontal extent and the baseline it wants.
#[derive(Debug, Clone, Copy)]
struct Label {
    left: f64,
    right: f64,
    wanted: f64,
}

/// Baselines for labels, each as near the one it wants as it can be while
/// no two labels that share some horizontal extent are closer than `gap`.
/// Labels go down out of the way, or up when down would leave `top..bottom`.
fn spread(labels: &[Label], gap: f64, top: f64, bottom: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|a, b| labels[*a].wanted.total_cmp(&labels[*b].wanted).then(a.cmp(b)));
    let mut placed: Vec<(usize, f64)> = Vec::new();
    let clash = |placed: &[(usize, f64)], i: usize, y: f64| {
        placed
            .iter()
            .find(|(j, py)| {
                let (a, b) = (labels[i], labels[*j]);
                a.left < b.right && b.left < a.right && (y - py).abs() < gap - 1e-9
            })
            .map(|(_, py)| *py)
    };
    for &i in &order {
        let mut y = labels[i].wanted.clamp(top, bottom);
        while let Some(other) = clash(&placed, i, y) {
            y = other + gap;
        }
        if y > bottom {
            y = labels[i].wanted.clamp(top, bottom);
            while let Some(other) = clash(&placed, i, y) {
                y = other - gap;
            }
        }
        placed.push((i, y));
    }
    placed.sort_by_key(|(i, _)| *i);
    placed.into_iter().map(|(_, y)| y).collect()
}

/// The chart as an `<svg>` element.
pub fn chart(points: &[ModelPoint]) -> String {
    // Room on the right for the label of the costliest model; the others sit among the points.
    let costliest = points.iter().filter(|p| p.cost.is_finite()).max_by(|a, b| a.cost.total_cmp(&b.cost));
    let label_room = costliest.map_or(60.0, |p| text_width(&p.model)).clamp(40.0, 170.0) + 16.0;
    let (width, height) = (580.0, 400.0);
    let area = Area { left: 62.0, top: 40.0, right: width - label_room, bottom: height - 52.0 };
    let mut svg = Svg::new("chart-pass-cost", width, height, "Pass rate against total cost per model, with the Pareto front");
    if points.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No models in this run.");
        return svg.finish();
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

    // Legend above the plot.
    let mut lx = area.left;
    svg.raw(&format!("<circle cx=\"{}\" cy=\"16\" r=\"5\" fill=\"{FRONT}\"/>", num(lx + 5.0)));
    svg.text(lx + 14.0, 20.0, "start", "legend", "on the Pareto front");
    lx += 150.0;
    svg.raw(&format!("<circle cx=\"{}\" cy=\"16\" r=\"4.5\" fill=\"#fff\" stroke=\"{DOMINATED}\" stroke-width=\"2\"/>", num(lx + 5.0)));
    svg.text(lx + 14.0, 20.0, "start", "legend", "beaten on both");
    lx += 128.0;
    svg.line((lx + 5.0, 9.0), (lx + 5.0, 23.0), INTERVAL, 1.0);
    svg.text(lx + 14.0, 20.0, "start", "legend", "95% interval");

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

    // Front points last, on top of any they share a spot with.
    for p in points.iter().filter(|p| !p.pareto).chain(points.iter().filter(|p| p.pareto)) {
        let (px, py) = (x.at(p.cost), y.at(p.pass_rate));
        let (lo, hi) = (y.at(p.lo), y.at(p.hi));
        // Grey and thin: cheap models share a cost, and their bars overlap.
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
    }

    // Labels to the right of their points, moved apart where they would overlap.
    let labels: Vec<Label> = points
        .iter()
        .map(|p| {
            let left = x.at(p.cost) + 9.0;
            Label { left, right: left + text_width(&p.model), wanted: y.at(p.pass_rate) + 4.0 }
        })
        .collect();
    let placed = spread(&labels, 13.0, area.top, area.bottom + 4.0);
    for ((p, label), ly) in points.iter().zip(&labels).zip(placed) {
        let (px, py) = (x.at(p.cost), y.at(p.pass_rate));
        if (ly - label.wanted).abs() > 0.5 {
            svg.line((px + 4.0, py), (label.left - 1.0, ly - 4.0), MUTED, 0.6);
        }
        let class = if p.pareto { "point-label front" } else { "point-label" };
        svg.text(label.left, ly, "start", class, &p.model);
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(model: &str, cost: f64, pass_rate: f64, pareto: bool) -> ModelPoint {
        ModelPoint { model: model.into(), cost, pass_rate, lo: pass_rate - 0.1, hi: (pass_rate + 0.05).min(1.0), pareto }
    }

    #[test]
    fn labels_are_spread_apart_and_stay_inside() {
        let at = |left: f64, wanted: f64| Label { left, right: left + 50.0, wanted };
        assert_eq!(spread(&[at(0.0, 100.0), at(10.0, 101.0), at(0.0, 50.0)], 13.0, 0.0, 400.0), [100.0, 113.0, 50.0]);
        // Labels side by side do not push each other.
        assert_eq!(spread(&[at(0.0, 100.0), at(60.0, 100.0)], 13.0, 0.0, 400.0), [100.0, 100.0]);
        // At the bottom edge the later label goes up instead.
        assert_eq!(spread(&[at(0.0, 395.0), at(0.0, 399.0)], 13.0, 0.0, 400.0), [395.0, 382.0]);
        assert!(spread(&[], 13.0, 0.0, 1.0).is_empty());
    }

    #[test]
    fn draws_points_intervals_front_and_labels() {
        let svg = chart(&[point("strong", 0.42, 0.98, true), point("cheap", 0.02, 0.95, true), point("worse", 0.03, 0.9, false)]);
        assert!(svg.contains("id=\"chart-pass-cost\""));
        assert_eq!(svg.matches("<circle").count(), 3 + 2, "three points and two legend marks");
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains("total cost, USD (log scale)"), "costs 20× apart use a log axis");
        for label in [">strong</text>", ">cheap</text>", ">worse</text>"] {
            assert!(svg.contains(label), "{label}");
        }
        assert!(svg.contains("<title>strong: pass 98% (95% CI 88%–100%), cost $0.420, on the Pareto front</title>"), "{svg}");
    }

    #[test]
    fn free_models_sit_at_their_own_zero_on_a_log_axis() {
        let points = [point("strong", 0.89, 0.98, true), point("cheap", 0.043, 0.92, true), point("local", 0.0, 0.4, true)];
        let svg = chart(&points);
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
            let svg = chart(&points);
            assert!(!svg.contains("NaN") && !svg.contains("inf\"") && svg.ends_with("</svg>\n"), "{svg}");
            assert!(!svg.contains("log scale"));
        }
    }
}
