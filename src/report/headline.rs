//! The report's headline: one to three sentences that answer "which model,
//! at what cost, and what does repair buy", drawn from the summary and
//! pairs tables and worded for people. `report.md` and `report.html` both
//! open on it; each escapes it for its own sink.
//!
//! A gap is called decided only on the paired evidence the pairs table
//! carries (McNemar's exact p today). `Comparison::decided` and
//! `Comparison::evidence` are the one place that reads it, so the
//! decisive-comparison intervals plug in there.

use crate::metrics::table::{PairRow, SummaryRow};
use crate::metrics::Tables;
use crate::quote::bound_owned;

/// A gap this wide or narrower (in pass rate) counts as "close to the strongest".
pub const CLOSE: f64 = 0.05;
/// The significance level a paired test must reach for a gap to count as decided.
pub const ALPHA: f64 = 0.05;
/// Longest model name a headline quotes (the tables have the whole name).
const NAME_CHARS: usize = 80;

/// One model variant (a model under one arm) as the headline sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub model: String,
    /// The configured model the variant belongs to.
    pub base: String,
    /// The arm's name; empty without arms.
    pub arm: String,
    /// Answered runs (the pass rate's denominator).
    pub answered: u64,
    pub errored: u64,
    pub pass_rate: f64,
    pub lo: f64,
    pub hi: f64,
    /// Total cost (scenario and repair requests), USD.
    pub cost: f64,
}

/// Two variants compared on the runs both made.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub model_a: String,
    pub model_b: String,
    pub shared: u64,
    /// `pass_rate_b - pass_rate_a` on the shared runs.
    pub diff: f64,
    /// McNemar's exact p; `None` when the table has none.
    pub p_value: Option<f64>,
    /// The decisive-comparison interval of `diff` and its verdict, when the
    /// pairs table carries them (`diff_lo`, `diff_hi`, `decisive`).
    pub interval: Option<(f64, f64)>,
    pub decisive: Option<bool>,
}

impl Comparison {
    /// Whether the run tells the two apart: the decisive flag when the
    /// table has one, else McNemar's p under `ALPHA`.
    pub fn decided(&self) -> bool {
        match self.decisive {
            Some(decisive) => decisive,
            None => self.shared > 0 && self.p_value.is_some_and(|p| p < ALPHA),
        }
    }

    /// The evidence in words, e.g. `McNemar p < 0.001`.
    pub fn evidence(&self) -> String {
        let p = match self.p_value {
            Some(p) if p < 0.001 => "McNemar p < 0.001".to_string(),
            Some(p) if p < 0.01 => format!("McNemar p = {p:.3}"),
            Some(p) => format!("McNemar p = {p:.2}"),
            None => "no paired test".to_string(),
        };
        match self.interval {
            Some((lo, hi)) => format!("{p}; difference 95% CI [{}, {}] points", signed_points(lo), signed_points(hi)),
            None => p,
        }
    }
}

/// The run's variants from the summary table, in its order.
pub fn variants(summary: &[SummaryRow]) -> Vec<Variant> {
    let rate = |x: Option<f64>| finite(x.unwrap_or(0.0));
    summary
        .iter()
        .map(|r| Variant {
            model: bound_owned(r.model.clone(), NAME_CHARS),
            base: bound_owned(if r.base_model.is_empty() { r.model.clone() } else { r.base_model.clone() }, NAME_CHARS),
            arm: r.arm.clone(),
            answered: r.scenarios,
            errored: r.errored,
            pass_rate: rate(r.pass_rate),
            lo: rate(r.pass_rate_lo),
            hi: rate(r.pass_rate_hi),
            cost: finite(r.total_cost_usd).max(0.0),
        })
        .collect()
}

/// The pairs table's rows as comparisons.
pub fn comparisons(pairs: &[PairRow]) -> Vec<Comparison> {
    pairs
        .iter()
        .map(|r| Comparison {
            model_a: bound_owned(r.model_a.clone(), NAME_CHARS),
            model_b: bound_owned(r.model_b.clone(), NAME_CHARS),
            shared: r.shared,
            diff: finite(r.pass_rate_diff.unwrap_or(0.0)),
            p_value: r.p_value.filter(|p| p.is_finite()),
            interval: r.diff_lo.zip(r.diff_hi).filter(|(l, h)| l.is_finite() && h.is_finite()),
            decisive: Some(r.decisive),
        })
        .collect()
}

fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// The headline's sentences, plain text (each sink escapes them).
pub fn headline(tables: &Tables) -> Vec<String> {
    sentences(&variants(&tables.rows.summary), &comparisons(&tables.rows.pairs))
}

/// The sentences for these variants and comparisons.
pub fn sentences(variants: &[Variant], comparisons: &[Comparison]) -> Vec<String> {
    let answered: Vec<&Variant> = variants.iter().filter(|v| v.answered > 0).collect();
    let errored: Vec<&str> = variants.iter().filter(|v| v.answered == 0 && v.errored > 0).map(|v| v.model.as_str()).collect();
    let mut out = Vec::new();
    // The strongest by the low end of its interval: a model that passed
    // five runs of five does not outrank one that passed 420 of 427.
    let strongest = answered.iter().copied().max_by(|a, b| {
        a.lo.total_cmp(&b.lo).then(a.pass_rate.total_cmp(&b.pass_rate)).then(b.cost.total_cmp(&a.cost)).then(b.model.cmp(&a.model))
    });
    match strongest {
        None if variants.is_empty() => out.push("No model ran, so nothing is decided.".to_string()),
        None => out.push("No model answered a single scenario, so nothing is decided.".to_string()),
        Some(strong) => {
            out.push(format!("Strongest: {}, pass rate {} at {}.", strong.model, rate(strong), usd(strong.cost)));
            if let Some(s) = cheaper_sentence(strong, &answered, comparisons) {
                out.push(s);
            }
            if let Some(s) = repair_sentence(variants, comparisons) {
                out.push(s);
            }
        }
    }
    if !errored.is_empty() {
        out.push(format!("Errored, so not ranked (no answer for any unit; see the errored units): {}.", errored.join(", ")));
    }
    out
}

/// The cheapest other model within `CLOSE` of the strongest, or, when none
/// is, the closest cheaper one; with how sure the run is of the gap.
fn cheaper_sentence(strong: &Variant, answered: &[&Variant], comparisons: &[Comparison]) -> Option<String> {
    let cheaper: Vec<&Variant> = answered.iter().copied().filter(|v| v.base != strong.base && v.cost < strong.cost).collect();
    if cheaper.is_empty() {
        // Said outright: the strongest being the cheapest too is an answer.
        return answered.iter().any(|v| v.base != strong.base).then(|| "No other model costs less.".to_string());
    }
    let close: Vec<&Variant> = cheaper.iter().copied().filter(|v| v.pass_rate >= strong.pass_rate - CLOSE - 1e-9).collect();
    let by_cost = |a: &&Variant, b: &&Variant| a.cost.total_cmp(&b.cost).then(b.pass_rate.total_cmp(&a.pass_rate));
    let by_rate = |a: &&Variant, b: &&Variant| a.pass_rate.total_cmp(&b.pass_rate).then(b.cost.total_cmp(&a.cost));
    let (pick, within) = match close.iter().copied().min_by(by_cost) {
        Some(v) => (v, true),
        None => (cheaper.iter().copied().max_by(by_rate)?, false),
    };
    let gap = strong.pass_rate - pick.pass_rate;
    let pair = find(comparisons, &pick.model, &strong.model);
    let verdict = match pair {
        Some(c) if c.decided() => format!("the gap is significant ({})", c.evidence()),
        Some(c) => format!("the gap is not significant: this run cannot tell them apart ({})", c.evidence()),
        None => "no runs in common to test the gap on".to_string(),
    };
    let points_close = points(CLOSE);
    Some(if within {
        format!(
            "Cheapest within {points_close} of it: {}, {} vs {}, at {}; {verdict}.",
            pick.model,
            rate(pick),
            rate(strong),
            share(pick.cost, strong.cost)
        )
    } else {
        format!(
            "Nothing cheaper comes within {points_close} of it: the closest, {}, passes {}, {} lower, at {}; {verdict}.",
            pick.model,
            rate(pick),
            points(gap),
            share(pick.cost, strong.cost)
        )
    })
}

/// The largest gain repair gives one model, on the paired runs of two of
/// its arms; plainly "no difference" when no arm pair is decided.
fn repair_sentence(variants: &[Variant], comparisons: &[Comparison]) -> Option<String> {
    let of = |model: &str| variants.iter().find(|v| v.model == model);
    let arm_pairs: Vec<(&Comparison, &Variant, &Variant)> = comparisons
        .iter()
        .filter_map(|c| Some((c, of(&c.model_a)?, of(&c.model_b)?)))
        .filter(|(_, a, b)| a.base == b.base && a.arm != b.arm && !a.arm.is_empty())
        .collect();
    if arm_pairs.is_empty() {
        return None;
    }
    let best = arm_pairs
        .iter()
        .filter(|(c, _, _)| c.decided() && c.diff > 0.0)
        .max_by(|x, y| x.0.diff.total_cmp(&y.0.diff).then(y.1.model.cmp(&x.1.model)));
    Some(match best {
        Some((c, a, b)) => format!(
            "Repair buys {} {}: {} under {} → {} under {} ({}).",
            a.base,
            points(c.diff),
            two(a.pass_rate),
            a.arm,
            two(b.pass_rate),
            b.arm,
            c.evidence()
        ),
        None => format!(
            "Repair gave no model a gain this run can tell from chance ({} arm pairs, none decided at p < {ALPHA}).",
            arm_pairs.len()
        ),
    })
}

/// The comparison of two models, in either order.
fn find<'a>(comparisons: &'a [Comparison], x: &str, y: &str) -> Option<&'a Comparison> {
    comparisons.iter().find(|c| (c.model_a == x && c.model_b == y) || (c.model_a == y && c.model_b == x))
}

fn two(x: f64) -> String {
    format!("{x:.2}")
}

/// A pass rate with its interval: `0.93 [0.90, 0.95]`.
fn rate(v: &Variant) -> String {
    format!("{} [{}, {}]", two(v.pass_rate), two(v.lo), two(v.hi))
}

/// A gap in percentage points: `16 points`, `5.4 points`.
fn points(gap: f64) -> String {
    let p = (gap * 100.0).abs();
    if p >= 10.0 || (p - p.round()).abs() < 0.05 {
        format!("{p:.0} points")
    } else {
        format!("{p:.1} points")
    }
}

/// A signed gap in points for an interval end.
fn signed_points(gap: f64) -> String {
    format!("{:+.1}", gap * 100.0)
}

fn usd(x: f64) -> String {
    crate::report::html::usd(x)
}

/// `cost` as a share of `of`: `1/20 of the cost`, `60% of the cost`, `no cost`.
fn share(cost: f64, of: f64) -> String {
    if cost <= 0.0 {
        return "no cost".to_string();
    }
    let ratio = of / cost;
    if ratio >= 2.0 {
        format!("1/{:.0} of the cost", ratio.round())
    } else {
        format!("{:.0}% of the cost", 100.0 / ratio)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(model: &str, arm: &str, rate: f64, cost: f64) -> Variant {
        let base = model.split('@').next().unwrap().to_string();
        Variant {
            model: model.into(),
            base,
            arm: arm.into(),
            answered: 400,
            errored: 0,
            pass_rate: rate,
            lo: rate - 0.03,
            hi: (rate + 0.02).min(1.0),
            cost,
        }
    }

    fn pair(a: &str, b: &str, diff: f64, p: f64) -> Comparison {
        Comparison { model_a: a.into(), model_b: b.into(), shared: 400, diff, p_value: Some(p), interval: None, decisive: None }
    }

    #[test]
    fn names_the_strongest_the_closest_cheaper_model_and_what_repair_buys() {
        let variants = [
            variant("strong@off", "off", 0.96, 6.5),
            variant("strong@full", "full", 0.98, 6.5),
            variant("cheap@off", "off", 0.76, 0.39),
            variant("cheap@full", "full", 0.92, 0.33),
        ];
        let comparisons = [
            pair("strong@off", "strong@full", 0.02, 0.008),
            pair("cheap@off", "cheap@full", 0.16, 1e-9),
            pair("strong@full", "cheap@full", -0.06, 0.0002),
            pair("strong@full", "cheap@off", -0.22, 1e-12),
        ];
        let s = sentences(&variants, &comparisons);
        assert_eq!(
            s,
            [
                "Strongest: strong@full, pass rate 0.98 [0.95, 1.00] at $6.50.",
                "Nothing cheaper comes within 5 points of it: the closest, cheap@full, passes 0.92 [0.89, 0.94], 6 points lower, \
                 at 1/20 of the cost; the gap is significant (McNemar p < 0.001).",
                "Repair buys cheap 16 points: 0.76 under off → 0.92 under full (McNemar p < 0.001).",
            ]
        );
    }

    #[test]
    fn says_plainly_when_the_gap_is_not_decided() {
        let variants = [variant("strong", "", 0.95, 1.0), variant("cheap", "", 0.93, 0.25)];
        let s = sentences(&variants, &[pair("strong", "cheap", -0.02, 0.31)]);
        assert_eq!(
            s[1],
            "Cheapest within 5 points of it: cheap, 0.93 [0.90, 0.95] vs 0.95 [0.92, 0.97], at 1/4 of the cost; \
             the gap is not significant: this run cannot tell them apart (McNemar p = 0.31)."
        );
        assert_eq!(s.len(), 2, "no arms, no repair sentence");
        let s = sentences(&[variant("best", "", 0.95, 0.1), variant("dear", "", 0.9, 1.0)], &[]);
        assert_eq!(s, ["Strongest: best, pass rate 0.95 [0.92, 0.97] at $0.100.", "No other model costs less."]);
        // Arms that made no decided difference say so.
        let arms = [variant("m@off", "off", 0.9, 1.0), variant("m@full", "full", 0.91, 1.0)];
        let s = sentences(&arms, &[pair("m@off", "m@full", 0.01, 0.5)]);
        assert_eq!(s.last().unwrap(), "Repair gave no model a gain this run can tell from chance (1 arm pairs, none decided at p < 0.05).");
    }

    #[test]
    fn the_decisive_flag_when_present_overrides_the_p_value() {
        let mut c = pair("a", "b", 0.03, 0.01);
        assert!(c.decided());
        (c.decisive, c.interval) = (Some(false), Some((-0.01, 0.07)));
        assert!(!c.decided());
        assert_eq!(c.evidence(), "McNemar p = 0.01; difference 95% CI [-1.0, +7.0] points");
    }

    #[test]
    fn errored_models_are_named_never_ranked_and_an_empty_run_decides_nothing() {
        let mut dead = variant("dead", "", 0.0, 0.0);
        (dead.answered, dead.errored, dead.lo, dead.hi) = (0, 12, 0.0, 1.0);
        let s = sentences(&[variant("ok", "", 0.8, 0.1), dead.clone()], &[]);
        assert!(s[0].starts_with("Strongest: ok,"), "{s:?}");
        assert_eq!(s.last().unwrap(), "Errored, so not ranked (no answer for any unit; see the errored units): dead.");
        let only_dead = sentences(&[dead], &[]);
        assert_eq!(only_dead[0], "No model answered a single scenario, so nothing is decided.");
        assert_eq!(sentences(&[], &[]), ["No model ran, so nothing is decided."]);
    }

    #[test]
    fn reads_the_tables_of_an_empty_run() {
        let tables = crate::metrics::build_tables(&[]).unwrap();
        assert_eq!(headline(&tables), ["No model ran, so nothing is decided."]);
    }
}
