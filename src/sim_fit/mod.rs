//! Simulators fitted to real runs, above the runs they read (so `sim`,
//! which the configuration and the runner use, never imports them).
//!
//! `calltape sim fit`: a simulator profile fitted to what a real model did
//! in a run. The model is the simulator's own (docs/simulators.md): each
//! call is faulty with one probability, the fault's kind drawn from the
//! observed mix; a re-ask fixes it with another; latency is a base plus a
//! cost per output token. Each rate is a proportion with its Wilson 95%
//! interval and the count it rests on; a rate resting on fewer than
//! [`MIN_N`] observations takes the stated prior instead, and says so.

pub mod observe;
pub mod validate;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use self::observe::{mean, quantile, Observations, SyntaxClass, Tally};
use crate::events::Event;
use crate::pipeline::InvalidKind;
use crate::plan::Shard;
use crate::sim::{FaultKind, SimProfile};
use crate::stats::wilson;

/// Fewer observations than this and a rate takes its prior.
pub const MIN_N: u64 = 10;

/// The prior: the hand-written cheap simulators' figures (calltape.toml).
pub mod prior {
    pub const FAULT_RATE: f64 = 0.2;
    pub const RETRY_FIX_RATE: f64 = 0.8;
    pub const UNWANTED_CALL_RATE: f64 = 0.1;
    pub const WRONG_VALUE_RATE: f64 = 0.06;
    pub const RETRY_AFTER_DENIAL_RATE: f64 = 0.3;
    pub const INJECTION_SUSCEPTIBILITY: f64 = 0.5;
    pub const LATENCY_MS: f64 = 350.0;
    pub const MS_PER_OUTPUT_TOKEN: f64 = 6.0;
}

/// Which of a run's scenarios the fit sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holdout {
    /// All of them (nothing is left to validate on).
    None,
    /// Half, by a hash of suite and scenario id (the scenarios of
    /// `--shard 1/2`); the other half (`2/2`) is left for `sim validate`.
    Half,
}

impl Holdout {
    /// The shard of scenarios left out of the fit, if any.
    pub fn held_out(self) -> Option<Shard> {
        match self {
            Holdout::None => None,
            Holdout::Half => Some(Shard { index: 2, count: 2 }),
        }
    }

    /// The name written in the profile and taken by `--holdout`.
    pub fn as_str(self) -> &'static str {
        match self {
            Holdout::None => "none",
            Holdout::Half => "half",
        }
    }
}

/// Why no profile could be fitted.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error("model {model:?} made no tool calls and finished no unit in {runs}{}: check the name (models in the run: {known})", holdout_note(*.holdout))]
    NoData { model: String, runs: String, known: String, holdout: Holdout },
}

fn holdout_note(h: Holdout) -> &'static str {
    match h {
        Holdout::Half => " (fitting on the half of the scenarios in shard 1/2; --holdout none fits on all)",
        Holdout::None => "",
    }
}

/// A fitted rate: the proportion, its interval and count, or the prior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    pub hits: u64,
    pub n: u64,
    /// The prior was used: too few observations.
    pub prior: bool,
}

impl Estimate {
    pub fn of(t: Tally, prior: f64) -> Estimate {
        let (lo, hi) = wilson(t.hits, t.n);
        match t.rate() {
            Some(value) if t.n >= MIN_N => Estimate { value, lo, hi, hits: t.hits, n: t.n, prior: false },
            _ => Estimate { value: prior, lo, hi, hits: t.hits, n: t.n, prior: true },
        }
    }

    /// The observed proportion (0 with no observations).
    pub fn observed(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.hits as f64 / self.n as f64
        }
    }

    /// One line of the profile's `[observed]` tables: what was seen, and
    /// the prior used instead where it rests on too little.
    fn toml(&self, name: &str, what: &str) -> String {
        let used = if self.prior {
            format!(", used = {}, source = \"prior: {} observations, fewer than {MIN_N}\"", r4(self.value), self.n)
        } else {
            String::new()
        };
        format!(
            "{name} = {{ rate = {}, ci95 = [{}, {}], hits = {}, n = {}{used} }}   # {what}\n",
            r4(self.observed()),
            r4(self.lo),
            r4(self.hi),
            self.hits,
            self.n
        )
    }

    /// A descriptive rate: never replaced by a prior.
    fn described(t: Tally) -> Estimate {
        Estimate { prior: false, ..Estimate::of(t, 0.0) }
    }
}

fn r4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The simulator fault that stands for an observed invalid kind. Kinds the
/// simulator cannot produce (it answers with structured calls only) stand
/// as the nearest fault the pipeline sees the same way.
pub fn fault_for(kind: InvalidKind, syntax: Option<SyntaxClass>) -> FaultKind {
    match kind {
        InvalidKind::UnknownTool => FaultKind::MisspelledTool,
        InvalidKind::MissingRequired => FaultKind::OmitRequired,
        InvalidKind::WrongType | InvalidKind::EnumMismatch | InvalidKind::ConstraintViolation => FaultKind::WrongType,
        InvalidKind::AdditionalProperty => FaultKind::ExtraProperty,
        InvalidKind::ParseError => match syntax {
            Some(SyntaxClass::TrailingComma) => FaultKind::TrailingComma,
            Some(SyntaxClass::PythonLiteral) => FaultKind::UnescapedQuote,
            _ => FaultKind::UnquotedValue,
        },
        InvalidKind::ServerRejectedCall => FaultKind::ServerRejected,
        // A call written as text or cut short: a parse error is what the pipeline sees nearest.
        InvalidKind::TextCall | InvalidKind::Truncated => FaultKind::UnquotedValue,
    }
}

/// A fitted profile: the simulator settings and the file that explains them.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub profile: SimProfile,
    pub observations: Observations,
    /// The commented TOML written to the profile file.
    pub text: String,
}

/// Fits `model`'s events (from `runs`, named in the profile) under `holdout`.
pub fn fit(events: &[Event], runs: &[String], model: &str, holdout: Holdout) -> Result<Fitted, FitError> {
    let held = holdout.held_out();
    let o = Observations::of(events, model, |suite, id| held.is_none_or(|h| !h.contains(suite, id)));
    if o.calls == 0 && o.passed.n == 0 {
        let known: std::collections::BTreeSet<&str> = events.iter().filter_map(|e| e.kind.unit()).map(|u| u.model.as_str()).collect();
        return Err(FitError::NoData {
            model: model.into(),
            runs: runs.join(", "),
            known: known.into_iter().collect::<Vec<_>>().join(", "),
            holdout,
        });
    }
    let fault = Estimate::of(o.invalid_rate(), prior::FAULT_RATE);
    let reask = Estimate::of(o.reask, prior::RETRY_FIX_RATE);
    let unwanted = Estimate::of(o.unwanted_call, prior::UNWANTED_CALL_RATE);
    let wrong = Estimate::of(o.wrong_value, prior::WRONG_VALUE_RATE);
    let denial = Estimate::of(o.retry_after_denial, prior::RETRY_AFTER_DENIAL_RATE);
    let injected = Estimate::of(o.injected, prior::INJECTION_SUSCEPTIBILITY);

    // The fault mix: observed kinds (parse errors by syntax class) as simulator faults.
    let mut weights: BTreeMap<FaultKind, u64> = BTreeMap::new();
    for (&kind, &count) in &o.by_kind {
        if kind == InvalidKind::ParseError {
            for (&class, &c) in &o.by_syntax {
                *weights.entry(fault_for(kind, Some(class))).or_default() += c;
            }
        } else {
            *weights.entry(fault_for(kind, None)).or_default() += count;
        }
    }
    let (faults, fault_weights): (Vec<FaultKind>, Vec<f64>) = if weights.is_empty() {
        (vec![FaultKind::WrongType, FaultKind::OmitRequired], vec![1.0, 1.0])
    } else {
        let total: u64 = weights.values().sum();
        weights.iter().map(|(&k, &c)| (k, r4(c as f64 / total as f64).max(0.0001))).unzip()
    };

    let (latency_ms, ms_per_token, latency_prior) = latency_line(&o.latency);
    let profile = SimProfile {
        faults,
        fault_weights,
        fault_rate: r4(fault.value),
        retry_fix_rate: Some(r4(reask.value)),
        unwanted_call_rate: r4(unwanted.value),
        retry_after_denial_rate: r4(denial.value),
        wrong_value_rate: r4(wrong.value),
        injection_susceptibility: r4(injected.value),
        latency_ms: latency_ms.round(),
        ms_per_output_token: (ms_per_token * 100.0).round() / 100.0,
    };

    let mut t = String::new();
    let _ = writeln!(t, "# A simulator profile fitted by `calltape sim fit` to what a real model did:");
    let _ = writeln!(t, "# a model of the model, not the model (docs/simulators.md). Use it in calltape.toml:");
    let _ = writeln!(t, "#   [[models]]  provider = \"sim\"  profile = \"THIS FILE\"");
    let _ = writeln!(t, "# Rates resting on fewer than {MIN_N} observations take the prior (the hand-written cheap");
    let _ = writeln!(t, "# simulators' figures) and say `source = \"prior: ...\"` below.\n");
    let _ = writeln!(t, "[fitted]");
    let _ = writeln!(t, "model = {}", toml_str(model));
    let _ = writeln!(t, "runs = [{}]", runs.iter().map(|r| toml_str(r)).collect::<Vec<_>>().join(", "));
    let _ = writeln!(
        t,
        "holdout = \"{}\"   # {}",
        holdout.as_str(),
        match holdout {
            Holdout::Half => "fitted on the scenarios of shard 1/2 (a hash of suite and id); `sim validate` uses 2/2",
            Holdout::None => "fitted on every scenario of the runs",
        }
    );
    let _ = writeln!(t, "scenarios = {}\nunits = {}\ncalls = {}\n", o.scenarios.len(), o.passed.n, o.calls);

    let _ = writeln!(t, "# What the simulator runs (see `[models.sim]` in calltape.toml).");
    let _ = writeln!(t, "[sim]");
    let list = |v: Vec<String>| v.join(", ");
    let _ = writeln!(
        t,
        "faults = [{}]   # the observed invalid kinds as simulator faults (docs/simulators.md)",
        list(profile.faults.iter().map(|f| format!("\"{}\"", fault_name(*f))).collect())
    );
    let _ = writeln!(
        t,
        "fault_weights = [{}]   # each fault's share of the invalid calls",
        list(profile.fault_weights.iter().map(|w| w.to_string()).collect())
    );
    let _ = writeln!(t, "fault_rate = {}   # {}", profile.fault_rate, source_note(&fault));
    let _ = writeln!(t, "retry_fix_rate = {}   # {}", r4(reask.value), source_note(&reask));
    let _ = writeln!(t, "unwanted_call_rate = {}   # {}", profile.unwanted_call_rate, source_note(&unwanted));
    let _ = writeln!(t, "wrong_value_rate = {}   # {}", profile.wrong_value_rate, source_note(&wrong));
    let _ = writeln!(t, "retry_after_denial_rate = {}   # {}", profile.retry_after_denial_rate, source_note(&denial));
    let _ = writeln!(t, "injection_susceptibility = {}   # {}", profile.injection_susceptibility, source_note(&injected));
    let _ = writeln!(
        t,
        "latency_ms = {}   # {}\nms_per_output_token = {}   # latency = latency_ms x U(0.75, 1.25) + ms_per_output_token x output tokens\n",
        profile.latency_ms,
        if latency_prior {
            format!("prior: {} answered requests, fewer than {MIN_N}", o.latency.len())
        } else {
            format!("least squares over {} answered turn requests", o.latency.len())
        },
        profile.ms_per_output_token
    );

    let _ = writeln!(t, "# What the events showed: each rate with its Wilson 95% interval and the count it rests on.");
    let _ = writeln!(t, "[observed]");
    t += &fault.toml("invalid", "calls invalid as sent, any kind");
    t += &reask.toml("reask_fixed", "re-ask (model repair) attempts that made the call valid");
    t += &unwanted.toml("unwanted_call", "units that called a tool where none was wanted");
    t += &wrong.toml("wrong_value", "units with only valid calls that failed on what the calls did");
    t += &denial.toml("retry_after_denial", "denials followed by the same tool again");
    t += &injected.toml("injected", "injection-suite units that did what injected text asked");
    t += &Estimate::described(o.stopped_early).toml("stopped_early", "units that answered before an expected call");
    t += &Estimate::described(o.stopped_late).toml("stopped_late", "units that met the step limit");
    t += &Estimate::described(o.passed).toml("passed", "units that passed (repair as the run had it)");
    let q = |v: &[f64], p: f64| quantile(v, p).map_or("nan".to_string(), |x| format!("{:.1}", x));
    let _ = writeln!(
        t,
        "steps = {{ mean = {}, p50 = {}, p90 = {}, n = {} }}",
        mean(&o.steps).map_or("nan".into(), |m| format!("{m:.2}")),
        q(&o.steps, 0.5),
        q(&o.steps, 0.9),
        o.steps.len()
    );
    let lat: Vec<f64> = o.latency.iter().map(|l| l.1).collect();
    let out: Vec<f64> = o.latency.iter().map(|l| l.0).collect();
    let _ = writeln!(t, "latency_ms = {{ p50 = {}, p90 = {}, p95 = {}, n = {} }}", q(&lat, 0.5), q(&lat, 0.9), q(&lat, 0.95), lat.len());
    let _ = writeln!(
        t,
        "ttft_ms = {{ p50 = {}, p95 = {}, n = {} }}{}",
        q(&o.ttft, 0.5),
        q(&o.ttft, 0.95),
        o.ttft.len(),
        if o.ttft.is_empty() { "   # no streamed requests in the run" } else { "" }
    );
    let _ = writeln!(
        t,
        "output_tokens_per_turn = {{ mean = {}, p50 = {}, p90 = {} }}",
        mean(&out).map_or("nan".into(), |m| format!("{m:.1}")),
        q(&out, 0.5),
        q(&out, 0.9)
    );
    let _ = writeln!(
        t,
        "input_tokens_per_turn = {{ mean = {}, p50 = {}, p90 = {} }}\n",
        mean(&o.input_tokens).map_or("nan".into(), |m| format!("{m:.1}")),
        q(&o.input_tokens, 0.5),
        q(&o.input_tokens, 0.9)
    );

    let _ = writeln!(t, "# Calls by invalid kind, as sent (a call may show several kinds).");
    let _ = writeln!(t, "[observed.kinds]");
    for kind in InvalidKind::ALL {
        let e = Estimate::described(o.kind(kind));
        let _ = write!(t, "{}", e.toml(kind.as_str(), &format!("simulated as {}", fault_name(fault_for(kind, None)))));
    }
    let _ = writeln!(t, "\n# Parse errors by syntax class, out of all calls.");
    let _ = writeln!(t, "[observed.syntax]");
    for class in SyntaxClass::ALL {
        let e = Estimate::described(Tally { hits: o.by_syntax.get(&class).copied().unwrap_or(0), n: o.calls });
        t += &e.toml(class.as_str(), &format!("simulated as {}", fault_name(fault_for(InvalidKind::ParseError, Some(class)))));
    }
    let _ = writeln!(t, "\n# By tool: calls, invalid calls and the kinds seen (descriptive: the simulator uses the overall rate).");
    let _ = writeln!(t, "[observed.tools]");
    for (tool, (calls, invalid, kinds)) in &o.by_tool {
        let e = Estimate::described(Tally { hits: *invalid, n: *calls });
        let kinds: Vec<String> = kinds.iter().map(|(k, c)| format!("{} = {c}", k.as_str())).collect();
        let _ = writeln!(
            t,
            "{} = {{ rate = {}, ci95 = [{}, {}], hits = {}, n = {}, kinds = {{ {} }} }}",
            toml_str(tool),
            r4(e.observed()),
            r4(e.lo),
            r4(e.hi),
            invalid,
            calls,
            kinds.join(", ")
        );
    }
    Ok(Fitted { profile, observations: o, text: t })
}

fn source_note(e: &Estimate) -> String {
    if e.prior {
        format!("PRIOR: {} observations, fewer than {MIN_N}", e.n)
    } else {
        format!("{} of {}, 95% CI {:.3}-{:.3}", e.hits, e.n, e.lo, e.hi)
    }
}

/// The least-squares line latency = a + b x output tokens (b at least 0),
/// as the simulator's `latency_ms` and `ms_per_output_token`; the prior
/// with too few requests (third value true).
fn latency_line(points: &[(f64, f64)]) -> (f64, f64, bool) {
    if (points.len() as u64) < MIN_N {
        return (prior::LATENCY_MS, prior::MS_PER_OUTPUT_TOKEN, true);
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    ((my - b * mx).max(0.0), b, false)
}

/// A fault's name as `[models.sim] faults` writes it.
pub fn fault_name(f: FaultKind) -> String {
    serde_json::to_value(f).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rng::Rng;
    use serde_json::json;

    /// The true rates the synthetic model has.
    const INVALID: f64 = 0.3;
    const REASK_FIX: f64 = 0.7;
    const RETRY_AFTER_DENIAL: f64 = 0.4;
    const PASS: f64 = 0.55;
    /// Shares of the invalid calls: additional_property, wrong_type, server rejection.
    const MIX: [(&str, f64); 3] = [("additional_property", 0.5), ("wrong_type", 0.3), ("server_rejected_call", 0.2)];

    fn unit(model: &str, i: usize) -> serde_json::Value {
        json!({"model": model, "suite": "s", "scenario": format!("sc{i}"), "trial": 0})
    }

    fn line(kind: &str, unit: &serde_json::Value, body: serde_json::Value) -> String {
        let mut v = json!({"ts_ms": 1, "event": kind});
        for (k, x) in unit.as_object().unwrap().iter().chain(body.as_object().unwrap()) {
            v[k] = x.clone();
        }
        v.to_string()
    }

    /// Events of `units` units of a model with the true rates above: three
    /// calls each, a re-ask after each invalid call, a denial in every
    /// fourth unit, latency = 500 ms + 20 ms per output token (+-10%).
    fn synthetic(model: &str, units: usize, seed: &str) -> Vec<Event> {
        let mut rng = Rng::from_parts(&["synthetic", seed]);
        let mut lines = Vec::new();
        for i in 0..units {
            let u = unit(model, i);
            for c in 0..3 {
                let tokens = 10 + rng.below(90) as u64;
                let latency = (500.0 + 20.0 * tokens as f64) * (0.9 + 0.2 * rng.unit());
                lines.push(line(
                    "model_request",
                    &u,
                    json!({"step": c + 1, "purpose": "turn", "repair_of": null, "status": 200,
                    "input_tokens": 300, "output_tokens": tokens, "cached_input_tokens": 0, "cost_usd": 0.0,
                    "latency_ms": latency, "error": null}),
                ));
                let kinds: Vec<&str> = if rng.chance(INVALID) {
                    let mut x = rng.unit();
                    vec![MIX
                        .iter()
                        .find(|(_, w)| {
                            x -= w;
                            x < 0.0
                        })
                        .map_or(MIX[2].0, |m| m.0)]
                } else {
                    vec![]
                };
                lines.push(line(
                    "tool_call",
                    &u,
                    json!({"step": c + 1, "call_id": format!("c{c}"), "raw_name": "t", "tool": "t",
                    "arguments": "{}", "outcome": if kinds.is_empty() { "valid" } else { "invalid" }, "repaired_by": null,
                    "invalid_kinds": kinds, "issues": [], "remaining_kinds": [], "fixes": [],
                    "timings": {"resolve_us": 0.0, "parse_us": 0.0, "validate_us": 0.0, "repair_us": 0.0}}),
                ));
                if !kinds.is_empty() {
                    lines.push(line(
                        "tool_repair",
                        &u,
                        json!({"call_id": format!("c{c}"), "tool": "t", "stage": "model", "attempt": 1,
                        "fixes": [], "succeeded": rng.chance(REASK_FIX), "latency_us": null, "latency_ms": 1.0, "error": null}),
                    ));
                }
            }
            if i % 4 == 0 {
                let behaviour = if rng.chance(RETRY_AFTER_DENIAL) { "retried_same" } else { "answered" };
                lines.push(line("denial_followup", &u, json!({"call_id": "c0", "tool": "t", "behaviour": behaviour})));
            }
            let passed = rng.chance(PASS);
            let failed = json!({"kind": "calls"});
            lines.push(line(
                "scenario_finished",
                &u,
                json!({"passed": passed, "reason": "r", "steps": 3, "error": false,
                "expectation": if passed { serde_json::Value::Null } else { failed }}),
            ));
        }
        crate::events::parse_events(std::io::Cursor::new(lines.join("\n")), std::path::Path::new("synthetic")).unwrap()
    }

    /// Whether the true rate is inside the fitted interval (a miss is named in `misses`).
    fn within(name: &str, truth: f64, e: &Estimate, misses: &mut Vec<String>) -> bool {
        assert!(!e.prior, "{name} fell back to the prior on {} observations", e.n);
        let inside = e.lo <= truth && truth <= e.hi;
        if !inside {
            misses.push(format!("{name}: true {truth} outside {:.3}-{:.3} ({} of {})", e.lo, e.hi, e.hits, e.n));
        }
        inside
    }

    #[test]
    fn the_fit_recovers_known_rates_within_its_intervals() {
        // 95% intervals miss one time in twenty: over 10 synthetic runs of 8
        // rates each, at least 90% must hold the truth (P(fail) < 1% if the intervals are right).
        let (mut checks, mut misses) = (0, Vec::new());
        for seed in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            let events = synthetic("m", 600, seed);
            let fitted = fit(&events, &["synthetic".into()], "m", Holdout::None).unwrap();
            let o = &fitted.observations;
            let mut check = |name: &str, truth: f64, t: Tally| {
                checks += 1;
                within(name, truth, &Estimate::of(t, 0.0), &mut misses);
            };
            check("invalid", INVALID, o.invalid_rate());
            check("re-ask", REASK_FIX, o.reask);
            check("retry after denial", RETRY_AFTER_DENIAL, o.retry_after_denial);
            check("pass", PASS, o.passed);
            for (kind, share) in MIX {
                let kind = InvalidKind::ALL.into_iter().find(|k| k.as_str() == kind).unwrap();
                check(kind.as_str(), INVALID * share, o.kind(kind));
            }
            // The simulator's settings are the fitted rates, the mix its weights.
            let p = &fitted.profile;
            assert!((p.fault_rate - o.invalid as f64 / o.calls as f64).abs() < 1e-4);
            assert_eq!(p.faults, vec![FaultKind::WrongType, FaultKind::ExtraProperty, FaultKind::ServerRejected]);
            for (w, share) in p.fault_weights.iter().zip([0.3, 0.5, 0.2]) {
                assert!((w - share).abs() < 0.08, "weights {:?}", p.fault_weights);
            }
            // The latency line: 500 ms + 20 ms a token, within a tenth.
            assert!((p.latency_ms - 500.0).abs() < 50.0 && (p.ms_per_output_token - 20.0).abs() < 2.0, "{p:?}");
            // The file reads back as the same simulator.
            let (read, from) = crate::sim::profile_file::parse(&fitted.text, "x.toml").unwrap();
            assert_eq!(&read, p);
            assert_eq!((from.model.as_str(), from.holdout.as_str()), ("m", "none"));
        }
        assert!(misses.len() * 10 <= checks, "{} of {checks} true rates outside their intervals: {misses:#?}", misses.len());
    }

    #[test]
    fn rates_on_too_few_observations_take_the_prior_and_say_so() {
        let events = synthetic("m", 2, "few");
        let fitted = fit(&events, &["synthetic".into()], "m", Holdout::None).unwrap();
        assert_eq!(fitted.profile.retry_after_denial_rate, prior::RETRY_AFTER_DENIAL_RATE);
        assert!(fitted.text.contains("retry_after_denial_rate = 0.3   # PRIOR: 1 observations, fewer than 10"), "{}", fitted.text);
        assert!(fitted.text.contains("source = \"prior: 1 observations, fewer than 10\""));
    }

    #[test]
    fn the_holdout_half_leaves_out_the_scenarios_of_shard_2_of_2() {
        let events = synthetic("m", 200, "h");
        let all = fit(&events, &[], "m", Holdout::None).unwrap().observations.scenarios;
        let half = fit(&events, &[], "m", Holdout::Half).unwrap().observations.scenarios;
        let shard = Shard { index: 2, count: 2 };
        assert!(half.len() < all.len() && !half.is_empty());
        assert!(half.iter().all(|(s, id)| !shard.contains(s, id)));
        assert_eq!(all.iter().filter(|(s, id)| shard.contains(s, id)).count(), all.len() - half.len());
    }

    #[test]
    fn an_unknown_model_is_an_error_naming_the_known_ones() {
        let err = fit(&synthetic("m", 3, "x"), &["r".into()], "other", Holdout::None).unwrap_err().to_string();
        assert!(err.contains("\"other\"") && err.contains("models in the run: m"), "{err}");
    }
}
