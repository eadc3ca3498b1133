//! Comparing two runs: what changed per model, tool and scenario, and
//! whether a configured threshold was crossed — the CI gate. Runs of
//! different suites or models are compared on what they share; the rest is
//! named, a model with its own figures. Pass rates are compared on the
//! shared (scenario, trial) runs both answered, so adding scenarios does not
//! look like a regression. What the gate cannot compare fails it unless
//! allowed: a model of the current run with errored units (no answer), and
//! a model of the baseline missing from the current run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use crate::core::gate::Gate;
use crate::metrics::table::SummaryRow;
use crate::metrics::Tables;

/// One model's figures in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChange {
    pub model: String,
    /// Shared (scenario, trial) runs the pass rates are computed on.
    pub shared_runs: usize,
    pub pass_rate: (f64, f64),
    pub invalid_rate: (f64, f64),
    pub total_cost_usd: (f64, f64),
    pub latency_p95_ms: (Option<f64>, Option<f64>),
    /// The paired 95% interval of current − base pass rate over the shared
    /// runs, the scenario as the cluster (`paired::paired_interval`).
    pub pass_interval: Option<crate::paired::Interval>,
}

/// One model × tool's invalid rate in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolChange {
    pub model: String,
    pub tool: String,
    pub calls: (u64, u64),
    pub invalid_rate: (f64, f64),
}

/// What changed between two runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    pub models: Vec<ModelChange>,
    pub tools: Vec<ToolChange>,
    /// (model, suite/scenario): passed every trial before, failed some now.
    pub newly_failing: Vec<(String, String)>,
    /// (model, suite/scenario): failed some trial before, passes every one now.
    pub newly_passing: Vec<(String, String)>,
    /// Models and scenarios in one run only.
    pub only_in_base: Vec<String>,
    pub only_in_current: Vec<String>,
    /// The thresholds crossed, each as a sentence.
    pub breaches: Vec<String>,
    /// What the gate could not compare and fails on (errored units, a
    /// missing model), each as a sentence naming the model and the flag.
    pub uncompared: Vec<String>,
    /// With `require_decisive`: changes beyond a threshold that are not
    /// decisive, listed but not failed on.
    pub not_decisive: Vec<String>,
}

impl Comparison {
    /// Whether the gate holds: no threshold crossed, nothing it failed to compare.
    pub fn passed(&self) -> bool {
        self.breaches.is_empty() && self.uncompared.is_empty()
    }

    /// A change beyond a threshold, marked decisive or not by its 95%
    /// interval (`decided`: whether it excludes no change, and the interval
    /// in rate units); with `require_decisive` an undecided one is listed
    /// apart and does not fail the gate.
    fn flag(&mut self, gate: &Gate, decided: Option<(bool, f64, f64)>, what: String) {
        let pts = |x: f64| crate::report::decision::points(x);
        let (decisive, mark) = match decided {
            Some((true, lo, hi)) => (true, format!("decisive [{}, {}] points", pts(lo), pts(hi))),
            Some((false, lo, hi)) => (false, format!("not decisive [{}, {}] points", pts(lo), pts(hi))),
            None => (false, "not decisive: no interval".to_string()),
        };
        let line = format!("{what}, {mark}");
        if gate.require_decisive && !decisive {
            self.not_decisive.push(line);
        } else {
            self.breaches.push(line);
        }
    }
}

/// The shared runs of one model grouped by scenario: base as A, current as
/// B, for the paired interval.
fn clusters(
    shared: &[&(String, String, u64)],
    base: &HashMap<(String, String, u64), bool>,
    current: &HashMap<(String, String, u64), bool>,
) -> Vec<crate::paired::Cluster> {
    let mut by_scenario: BTreeMap<(&str, &str), crate::paired::Cluster> = BTreeMap::new();
    for key in shared {
        let cell = match (base[*key], current[*key]) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        by_scenario.entry((key.0.as_str(), key.1.as_str())).or_default().split[cell] += 1;
    }
    by_scenario.into_values().collect()
}

/// The 95% interval of a model's invalid-rate change (current − base):
/// Newcombe's interval for independent proportions over the calls.
fn invalid_interval(base: &Tables, current: &Tables, model: &str) -> Option<(f64, f64)> {
    let counts = |t: &Tables| summary_row(t, model).map(|r| (r.invalid, r.calls));
    let (Some(b), Some(c)) = (counts(base), counts(current)) else { return None };
    crate::paired::newcombe_independent(b, c, crate::paired::normal_quantile(0.975))
}

/// A model's summary row in one run.
fn summary_row<'a>(t: &'a Tables, model: &str) -> Option<&'a SummaryRow> {
    t.rows.summary.iter().find(|r| r.model == model)
}

/// A model's own figures in one run, for a model the other run lacks.
fn figures(t: &Tables, model: &str) -> String {
    let Some(r) = summary_row(t, model) else { return String::new() };
    let (runs, errored) = (r.scenarios, r.errored);
    let errored_text = if errored > 0 { format!(", {errored} errored") } else { String::new() };
    if runs == 0 {
        return format!("errored: no answer in {errored} units");
    }
    let p95 = r.latency_p95_ms.map_or("—".to_string(), |x| format!("{x:.0}"));
    format!(
        "{runs} runs{errored_text}, pass {:.3}, invalid {:.3}, cost ${:.4}, p95 {p95} ms",
        r.pass_rate.unwrap_or(0.0),
        r.invalid_rate.unwrap_or(0.0),
        r.total_cost_usd,
    )
}

fn relative(base: f64, current: f64) -> Option<f64> {
    (base > 0.0).then(|| current / base - 1.0)
}

/// Per model: (pass rate over runs, keyed by (suite, scenario, trial)).
type Verdicts = HashMap<String, HashMap<(String, String, u64), bool>>;

/// The verdicts of the answered runs: an errored run has none.
fn verdicts(t: &Tables) -> Verdicts {
    let mut out: Verdicts = HashMap::new();
    for r in t.rows.scenarios.iter().filter(|r| !r.errored) {
        out.entry(r.model.clone()).or_default().insert((r.suite.clone(), r.scenario.clone(), r.trial), r.passed);
    }
    out
}

/// Compares `current` with `base` under `gate`.
pub fn compare(base: &Tables, current: &Tables, gate: &Gate) -> Comparison {
    let mut c = Comparison::default();
    let (vb, vc) = (verdicts(base), verdicts(current));
    let models = |t: &Tables| -> Vec<String> { t.rows.summary.iter().map(|r| r.model.clone()).collect() };
    let (base_models, current_models) = (models(base), models(current));
    let row = |t: &Tables, model: &str| summary_row(t, model).map(|r| (r.invalid_rate.unwrap_or(0.0), r.total_cost_usd, r.latency_p95_ms));
    let no_runs = HashMap::new();
    for model in &current_models {
        if !base_models.contains(model) {
            c.only_in_current.push(format!("model {model}: {}", figures(current, model)));
            continue;
        }
        // A model with no answered run in one of the runs is still listed, with no pass rate.
        let (b, cur) = (vb.get(model).unwrap_or(&no_runs), vc.get(model).unwrap_or(&no_runs));
        let shared: Vec<&(String, String, u64)> = cur.keys().filter(|k| b.contains_key(*k)).collect();
        let rate = |v: &HashMap<(String, String, u64), bool>| {
            if shared.is_empty() {
                0.0
            } else {
                shared.iter().filter(|k| v[**k]).count() as f64 / shared.len() as f64
            }
        };
        let (Some((inv_b, cost_b, p95_b)), Some((inv_c, cost_c, p95_c))) = (row(base, model), row(current, model)) else { continue };
        let pass_interval = crate::paired::paired_interval(&clusters(&shared, b, cur), 0.05);
        let change = ModelChange {
            model: model.clone(),
            shared_runs: shared.len(),
            pass_rate: (rate(b), rate(cur)),
            invalid_rate: (inv_b, inv_c),
            total_cost_usd: (cost_b, cost_c),
            latency_p95_ms: (p95_b, p95_c),
            pass_interval,
        };
        let drop = change.pass_rate.0 - change.pass_rate.1;
        if drop > gate.max_pass_rate_drop + 1e-12 {
            let decided = pass_interval.map(|i| (i.hi < 0.0, i.lo, i.hi));
            c.flag(
                gate,
                decided,
                format!(
                    "{model}: pass rate {:.3} → {:.3} (−{drop:.3}, allowed −{})",
                    change.pass_rate.0, change.pass_rate.1, gate.max_pass_rate_drop
                ),
            );
        }
        let rise = inv_c - inv_b;
        if rise > gate.max_invalid_rate_rise + 1e-12 {
            let decided = invalid_interval(base, current, model).map(|(lo, hi)| (lo > 0.0, lo, hi));
            c.flag(
                gate,
                decided,
                format!("{model}: invalid rate {inv_b:.3} → {inv_c:.3} (+{rise:.3}, allowed +{})", gate.max_invalid_rate_rise),
            );
        }
        if let Some(r) = relative(cost_b, cost_c).filter(|r| *r > gate.max_cost_rise + 1e-12) {
            c.breaches.push(format!(
                "{model}: total cost ${cost_b:.4} → ${cost_c:.4} (+{:.1}%, allowed +{:.1}%)",
                r * 100.0,
                gate.max_cost_rise * 100.0
            ));
        }
        if let (Some(pb), Some(pc)) = (p95_b, p95_c) {
            if let Some(r) = relative(pb, pc).filter(|r| *r > gate.max_p95_latency_rise + 1e-12) {
                c.breaches.push(format!(
                    "{model}: p95 latency {pb:.0} ms → {pc:.0} ms (+{:.1}%, allowed +{:.1}%)",
                    r * 100.0,
                    gate.max_p95_latency_rise * 100.0
                ));
            }
        }
        c.models.push(change);
    }
    for model in base_models.iter().filter(|m| !current_models.contains(m)) {
        c.only_in_base.push(format!("model {model}: {}", figures(base, model)));
        if gate.fail_on_missing {
            c.uncompared.push(format!("{model}: missing from the current run, not compared (run it, or pass --allow-missing)"));
        }
    }
    if gate.fail_on_errored {
        for m in crate::metrics::errored::errored_models(current) {
            // The flag comes before the error text: a terminal line is cut at its width.
            let first = crate::quote::bounded(&m.first, crate::quote::CELL_CHARS);
            c.uncompared.push(format!(
                "{}: {} of {} units errored, not compared (fix it, or pass --allow-errored); first error: {first}",
                m.model,
                m.errored,
                m.errored + m.answered
            ));
        }
    }

    // Scenarios: over all trials of each (model, suite, scenario) both runs have.
    let all_passed = |t: &Tables| -> BTreeMap<(String, String), Option<bool>> {
        // None where no trial answered: an errored scenario neither passed nor failed.
        let row = |r: &crate::metrics::table::ScenarioRow| {
            ((r.model.clone(), format!("{}/{}", r.suite, r.scenario)), (r.trials > 0).then_some(r.passed == r.trials))
        };
        t.rows.by_scenario.iter().map(row).collect()
    };
    let (sb, sc) = (all_passed(base), all_passed(current));
    for (key, now) in &sc {
        match (sb.get(key), now) {
            (Some(Some(true)), Some(false)) => c.newly_failing.push(key.clone()),
            (Some(Some(false)), Some(true)) => c.newly_passing.push(key.clone()),
            _ => {}
        }
    }
    let scenarios_of = |m: &BTreeMap<(String, String), Option<bool>>| m.keys().map(|(_, s)| s.clone()).collect::<BTreeSet<String>>();
    let (names_b, names_c) = (scenarios_of(&sb), scenarios_of(&sc));
    c.only_in_base.extend(names_b.difference(&names_c).map(|s| format!("scenario {s}")));
    c.only_in_current.extend(names_c.difference(&names_b).map(|s| format!("scenario {s}")));
    if gate.fail_on_newly_failing {
        // One breach per model: the scenarios themselves are listed under "Newly failing".
        let mut per_model: BTreeMap<String, usize> = BTreeMap::new();
        for (model, _) in &c.newly_failing {
            *per_model.entry(model.clone()).or_default() += 1;
        }
        for (model, n) in per_model {
            let what = if n == 1 {
                "1 scenario passed every trial before and fails now".to_string()
            } else {
                format!("{n} scenarios passed every trial before and fail now")
            };
            // Decided by the model's paired pass-rate interval: scenarios
            // flip on noise alone, a drop of the whole rate does not.
            let interval = c.models.iter().find(|m| m.model == *model).and_then(|m| m.pass_interval);
            let decided = interval.map(|i| (i.hi < 0.0, i.lo, i.hi));
            c.flag(gate, decided, format!("{model}: {what}"));
        }
    }

    let tool_rates = |t: &Tables| -> BTreeMap<(String, String), (u64, f64)> {
        t.rows.by_tool.iter().map(|r| ((r.model.clone(), r.tool.clone()), (r.calls, r.invalid_rate.unwrap_or(0.0)))).collect()
    };
    let (tb, tc) = (tool_rates(base), tool_rates(current));
    for ((model, tool), (calls, rate)) in &tc {
        if let Some((calls_b, rate_b)) = tb.get(&(model.clone(), tool.clone())) {
            if (rate - rate_b).abs() > 1e-12 {
                c.tools.push(ToolChange {
                    model: model.clone(),
                    tool: tool.clone(),
                    calls: (*calls_b, *calls),
                    invalid_rate: (*rate_b, *rate),
                });
            }
        }
    }
    c
}

/// Per-tool changes listed at most in the Markdown file (every row is in
/// by_tool.csv of both runs).
const MAX_TOOL_LINES: usize = 12;

/// The title of the changes beyond a threshold that noise could explain.
const NOT_DECISIVE: &str = "Beyond a threshold but not decisive (not failed on: --require-decisive)";

/// Lines of each list on the terminal, unless `--all`.
pub const TERMINAL_LINES: usize = 10;

fn signed(d: f64, digits: usize) -> String {
    if d >= 0.0 {
        format!("+{d:.digits$}")
    } else {
        format!("−{:.digits$}", -d)
    }
}

/// The verdict as one line.
fn verdict(c: &Comparison) -> String {
    let crossed = match c.breaches.len() {
        0 => None,
        1 => Some("1 threshold crossed".to_string()),
        n => Some(format!("{n} thresholds crossed")),
    };
    let uncompared = match c.uncompared.len() {
        0 => None,
        1 => Some("1 model not comparable".to_string()),
        n => Some(format!("{n} models not comparable")),
    };
    match [crossed, uncompared].into_iter().flatten().collect::<Vec<_>>().as_slice() {
        [] => "Gate: passed (every figure within its threshold)".to_string(),
        parts => format!("Gate: FAILED — {}", parts.join(", ")),
    }
}

/// Every reason the gate failed: the thresholds crossed, then what it could not compare.
fn failures(c: &Comparison) -> Vec<String> {
    c.breaches.iter().chain(&c.uncompared).cloned().collect()
}

/// The per-tool changes, largest first.
fn tools_by_change(c: &Comparison) -> Vec<&ToolChange> {
    let mut tools: Vec<&ToolChange> = c.tools.iter().collect();
    tools.sort_by(|a, b| (b.invalid_rate.1 - b.invalid_rate.0).abs().total_cmp(&(a.invalid_rate.1 - a.invalid_rate.0).abs()));
    tools
}

fn tool_line(t: &ToolChange) -> String {
    format!("{} / {}: {:.3} → {:.3} ({} → {} calls)", t.model, t.tool, t.invalid_rate.0, t.invalid_rate.1, t.calls.0, t.calls.1)
}

/// The model's cells: name, runs, pass, invalid, cost, p95.
fn model_cells(m: &ModelChange) -> [String; 6] {
    let p95 = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.0}"));
    // No shared run answered in both: no pass rate to compare.
    let pass = if m.shared_runs == 0 {
        "— (no shared answered run)".to_string()
    } else {
        format!("{:.3} → {:.3} ({})", m.pass_rate.0, m.pass_rate.1, signed(m.pass_rate.1 - m.pass_rate.0, 3))
    };
    [
        m.model.clone(),
        m.shared_runs.to_string(),
        pass,
        format!("{:.3} → {:.3} ({})", m.invalid_rate.0, m.invalid_rate.1, signed(m.invalid_rate.1 - m.invalid_rate.0, 3)),
        format!("{:.4} → {:.4}", m.total_cost_usd.0, m.total_cost_usd.1),
        format!("{} → {}", p95(m.latency_p95_ms.0), p95(m.latency_p95_ms.1)),
    ]
}

/// The model's terminal cells, in the order of `render_terminal`'s columns.
fn model_row(m: &ModelChange) -> Vec<String> {
    let opt = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.0}"));
    let percent = |a: f64, b: f64| relative(a, b).map_or("—".to_string(), |r| format!("{}%", signed(r * 100.0, 1)));
    let p95 = match m.latency_p95_ms {
        (Some(a), Some(b)) => percent(a, b),
        _ => "—".to_string(),
    };
    let compared = m.shared_runs > 0;
    let pass = |rate: f64| if compared { format!("{rate:.3}") } else { "—".to_string() };
    vec![
        m.model.clone(),
        m.shared_runs.to_string(),
        pass(m.pass_rate.0),
        pass(m.pass_rate.1),
        if compared { signed(m.pass_rate.1 - m.pass_rate.0, 3) } else { "—".to_string() },
        format!("{:.3}", m.invalid_rate.0),
        format!("{:.3}", m.invalid_rate.1),
        signed(m.invalid_rate.1 - m.invalid_rate.0, 3),
        format!("{:.4}", m.total_cost_usd.0),
        format!("{:.4}", m.total_cost_usd.1),
        percent(m.total_cost_usd.0, m.total_cost_usd.1),
        opt(m.latency_p95_ms.0),
        opt(m.latency_p95_ms.1),
        p95,
    ]
}

/// The comparison as text, everything in it; `markdown` for a pull-request
/// comment (the `--markdown` file). The verdict comes first.
pub fn render(c: &Comparison, markdown: bool) -> String {
    let mut out = String::new();
    // Names come from run folders (a model's tool names among them): each
    // cell and line is bounded and encoded for the sink it is printed to.
    let encode = |s: &str| {
        let s = crate::quote::bounded(s, crate::quote::CELL_CHARS);
        if markdown {
            crate::report::encode::markdown(&s)
        } else {
            crate::report::encode::terminal(&s).into_owned()
        }
    };
    let heading = |out: &mut String, title: &str| {
        if markdown {
            let _ = writeln!(out, "\n## {title}\n");
        } else {
            let _ = writeln!(out, "\n{title}");
        }
    };
    let list = |out: &mut String, title: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        heading(out, &format!("{title} ({})", items.len()));
        for i in items {
            let _ = writeln!(out, "{} {}", if markdown { "-" } else { " " }, encode(&i));
        }
    };
    if markdown {
        out.push_str("# calltape compare\n");
    }
    heading(&mut out, &verdict(c));
    for b in &failures(c) {
        let _ = writeln!(out, "{} {}", if markdown { "-" } else { " " }, encode(b));
    }
    heading(&mut out, "Per model (pass rate on shared runs)");
    if markdown {
        out.push_str("| model | runs | pass rate | invalid rate | total cost $ | p95 ms |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    }
    for m in &c.models {
        let cells = model_cells(m);
        if markdown {
            let cells: Vec<String> = cells.iter().map(|c| encode(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        } else {
            let _ = writeln!(
                out,
                "  {:<20} {:>5} runs  pass {}  invalid {}  cost {}  p95 {}",
                encode(&cells[0]),
                cells[1],
                cells[2],
                cells[3],
                cells[4],
                cells[5]
            );
        }
    }
    list(&mut out, NOT_DECISIVE, c.not_decisive.clone());
    list(&mut out, "Newly failing", c.newly_failing.iter().map(|(m, s)| format!("{m}: {s}")).collect());
    list(&mut out, "Newly passing", c.newly_passing.iter().map(|(m, s)| format!("{m}: {s}")).collect());
    let mut tools = tools_by_change(c);
    let more = tools.len().saturating_sub(MAX_TOOL_LINES);
    tools.truncate(MAX_TOOL_LINES);
    list(
        &mut out,
        "Invalid rate changed per tool (largest changes)",
        tools.iter().map(|t| tool_line(t)).chain((more > 0).then(|| format!("… and {more} smaller changes"))).collect(),
    );
    list(&mut out, "Only in the base run", c.only_in_base.clone());
    list(&mut out, "Only in the current run", c.only_in_current.clone());
    out
}

/// The comparison for the terminal: the verdict and each crossed threshold
/// first, then the per-model table, then the largest changes. Unless
/// `view.all`, each list shows its first `TERMINAL_LINES` and says how many
/// more there are; `all_advice` is the command that prints them all (printed
/// whole, however wide: advice runs as printed). Other lines fit `view.width`.
pub fn render_terminal(c: &Comparison, view: &crate::report::terminal::View, all_advice: &str) -> String {
    use crate::report::fit::{cut, fit, Column, Keep};
    let (paint, width) = (view.paint, view.width);
    let encode = |s: &str| crate::report::encode::terminal(&crate::quote::bounded(s, crate::quote::CELL_CHARS)).into_owned();
    let line = |text: &str| cut(&encode(text), width);
    let mut out = String::new();
    let mut cut_any = false;
    let mut list = |out: &mut String, items: &[String], colour: &dyn Fn(&str) -> String| {
        let shown = if view.all { items.len() } else { items.len().min(TERMINAL_LINES) };
        for i in &items[..shown] {
            let _ = writeln!(out, "{}", colour(&line(&format!("  {i}"))));
        }
        if shown < items.len() {
            cut_any = true;
            let _ = writeln!(out, "{}", line(&format!("  … and {} more", items.len() - shown)));
        }
    };
    let head = line(&verdict(c));
    let _ = writeln!(out, "{}", if c.passed() { paint.green(&head) } else { paint.red(&head) });
    list(&mut out, &failures(c), &|s| paint.red(s));

    let _ = writeln!(out, "\n{}", paint.bold(&line("Per model (pass rate on shared runs)")));
    // The figures now and their change are core; the earlier ones give way first.
    let (core, extra) = (Keep::Core, Keep::Extra);
    let labels = [
        ("model", false, core),
        ("runs", true, extra),
        ("pass was", true, extra),
        ("pass", true, core),
        ("Δ pass", true, core),
        ("inv. was", true, extra),
        ("invalid", true, core),
        ("Δ inv", true, core),
        ("cost was", true, extra),
        ("cost $", true, core),
        ("Δ cost", true, core),
        ("p95 was", true, extra),
        ("p95 ms", true, core),
        ("Δ p95", true, core),
    ];
    let columns = labels.iter().map(|(l, n, k)| Column { label: l.to_string(), numeric: *n, keep: *k }).collect();
    let rows = c.models.iter().map(|m| model_row(m).iter().map(|s| encode(s)).collect()).collect();
    for l in fit(columns, rows, width).lines {
        let _ = writeln!(out, "{l}");
    }

    let sections: [(&str, Vec<String>, bool); 6] = [
        (NOT_DECISIVE, c.not_decisive.clone(), false),
        ("Newly failing", c.newly_failing.iter().map(|(m, s)| format!("{m}: {s}")).collect(), true),
        ("Newly passing", c.newly_passing.iter().map(|(m, s)| format!("{m}: {s}")).collect(), false),
        ("Invalid rate changed per tool (largest first)", tools_by_change(c).into_iter().map(tool_line).collect(), false),
        ("Only in the base run", c.only_in_base.clone(), false),
        ("Only in the current run", c.only_in_current.clone(), false),
    ];
    for (title, items, bad) in sections {
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", paint.bold(&line(&format!("{title} ({})", items.len()))));
        let colour = |s: &str| if bad { paint.red(s) } else { s.to_string() };
        list(&mut out, &items, &colour);
    }
    if cut_any {
        let _ = writeln!(out, "\n{}", paint.dim(&format!("every line: {all_advice}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_a_run_folder_are_encoded_for_the_terminal_and_markdown() {
        let hostile = "\u{1b}]8;;http://evil.example\u{7}<img src=x>[a](b) @team\n| x";
        let c = Comparison {
            newly_failing: vec![(hostile.to_string(), "suite/scenario".into())],
            only_in_current: vec![hostile.to_string()],
            ..Default::default()
        };
        let text = render(&c, false);
        assert!(!text.chars().any(|ch| ch.is_control() && ch != '\n') && text.contains("\\x1b]8;;"), "{text}");
        let md = render(&c, true);
        let unescaped = md.replace("\\\\", "").replace("\\]", "");
        assert!(!md.contains('<') && !unescaped.contains("](") && !md.contains("@team") && !md.contains("://"), "{md}");
        assert!(md.lines().filter(|l| l.starts_with("- ")).all(|l| l.contains("&lt;img src=x&gt;")), "{md}");
    }
}
