//! `calltape run --dry-run`: what a run would cost before it sends
//! anything. Per model and in total: units, requests, tokens, dollars and
//! time, estimated from the model's cassettes where they exist (a sample of
//! them is read), else from its simulated profile or the assumptions below,
//! at the configured prices. Reads the plan, the suites and the cassettes;
//! sends no request and writes no file.

use std::path::Path;

use crate::config::{Config, ModelConfig};
use crate::events::UnitKey;
use crate::scenario::Suite;
use crate::transport::cassette::store;

/// Cassettes read per model: enough for a mean, few enough to be quick on
/// a suite of thousands of units.
const SAMPLE: usize = 64;

/// Without a cassette: requests per unit (a tool call and the answer after it).
pub const ASSUMED_REQUESTS: f64 = 2.0;
/// Without a cassette: tokens of one request.
pub const ASSUMED_INPUT_TOKENS: f64 = 1000.0;
pub const ASSUMED_OUTPUT_TOKENS: f64 = 60.0;
/// Without a cassette or a simulated profile: the latency of one request.
pub const ASSUMED_LATENCY_MS: f64 = 1000.0;

/// Where a model's figures come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The mean of this many of its cassettes.
    Cassettes(usize),
    /// Its simulated profile's latency, with the assumed requests and tokens.
    Simulated,
    /// The assumed requests, tokens and latency.
    Assumed,
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Cassettes(n) => format!("from {n} cassettes"),
            Source::Simulated => "simulated profile, assumed tokens".into(),
            Source::Assumed => "assumed (no cassette)".into(),
        }
    }
}

/// One model's estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub model: String,
    pub units: u64,
    pub requests: f64,
    pub input_tokens: f64,
    pub output_tokens: f64,
    pub cost_usd: f64,
    /// Wall time at the model's concurrency, seconds.
    pub seconds: f64,
    pub source: Source,
}

/// Per-unit means read from a sample of the model's cassettes, if any exist.
fn from_cassettes(dir: &Path, units: &[UnitKey]) -> Option<(usize, f64, f64, f64, f64)> {
    let step = (units.len() / SAMPLE).max(1);
    let (mut read, mut requests, mut input, mut output, mut latency) = (0usize, 0.0, 0.0, 0.0, 0.0);
    for unit in units.iter().step_by(step).take(SAMPLE) {
        let Ok(cassette) = store::read(&store::cassette_path(dir, unit)) else { continue };
        read += 1;
        for i in &cassette.interactions {
            requests += 1.0;
            latency += i.latency_ms;
            let usage = |keys: &[&str]| {
                i.usage.as_ref().and_then(|u| keys.iter().find_map(|k| u.get(*k).and_then(serde_json::Value::as_f64))).unwrap_or(0.0)
            };
            input += usage(&["prompt_tokens", "input_tokens", "promptTokenCount"]);
            output += usage(&["completion_tokens", "output_tokens", "candidatesTokenCount"]);
        }
    }
    (read > 0).then(|| {
        let n = read as f64;
        (read, requests / n, input / n, output / n, if requests > 0.0 { latency / requests } else { 0.0 })
    })
}

/// The units `model` would run.
fn units_of(model: &ModelConfig, suites: &[Suite], trials: u32) -> Vec<UnitKey> {
    let mut units = Vec::new();
    for suite in suites {
        for id in suite.ids().filter(|id| model.runs(id)) {
            for trial in 0..model.trials(trials) {
                units.push(UnitKey { model: model.name.clone(), suite: suite.name.clone(), scenario: id.into(), trial });
            }
        }
    }
    units
}

/// Every model's estimate, in configured order.
pub fn estimate(config: &Config, suites: &[Suite]) -> Vec<Estimate> {
    config
        .models
        .iter()
        .map(|m| {
            let units = units_of(m, suites, config.run.trials);
            let n = units.len() as f64;
            let (source, per_unit_requests, input, output, latency) = match from_cassettes(&config.cassettes.dir, &units) {
                Some((read, r, i, o, l)) if !m.is_simulated() => (Source::Cassettes(read), r, i, o, l),
                _ => {
                    let (source, latency) = match &m.sim {
                        Some(p) if m.is_simulated() => (Source::Simulated, p.latency_ms + p.ms_per_output_token * ASSUMED_OUTPUT_TOKENS),
                        _ => (Source::Assumed, ASSUMED_LATENCY_MS),
                    };
                    (source, ASSUMED_REQUESTS, ASSUMED_REQUESTS * ASSUMED_INPUT_TOKENS, ASSUMED_REQUESTS * ASSUMED_OUTPUT_TOKENS, latency)
                }
            };
            let (input_tokens, output_tokens) = (input * n, output * n);
            let requests = per_unit_requests * n;
            Estimate {
                model: m.name.clone(),
                units: units.len() as u64,
                requests,
                input_tokens,
                output_tokens,
                cost_usd: (input_tokens * m.price.input + output_tokens * m.price.output) / 1e6,
                seconds: requests * latency / 1000.0 / m.concurrency.max(1) as f64,
                source,
            }
        })
        .collect()
}

/// The estimate as lines for the terminal: a row per model, then the total
/// (models run side by side: the time is the slowest model's).
pub fn render(estimates: &[Estimate]) -> Vec<String> {
    let width = estimates.iter().map(|e| e.model.chars().count()).max().unwrap_or(5).max(5);
    let mut lines = vec![format!(
        "{:<width$}  {:>7}  {:>9}  {:>11}  {:>10}  {:>9}  {:>8}  source",
        "model", "units", "requests", "in tokens", "out tokens", "cost $", "time"
    )];
    let row = |name: &str, units: u64, requests: f64, input: f64, output: f64, cost: f64, seconds: f64, source: &str| {
        format!(
            "{:<width$}  {units:>7}  {requests:>9.0}  {input:>11.0}  {output:>10.0}  {cost:>9.4}  {:>8}  {source}",
            crate::report::encode::terminal(name),
            duration(seconds)
        )
    };
    for e in estimates {
        lines.push(row(&e.model, e.units, e.requests, e.input_tokens, e.output_tokens, e.cost_usd, e.seconds, &e.source.describe()));
    }
    let sum = |f: fn(&Estimate) -> f64| estimates.iter().map(f).sum::<f64>();
    let slowest = estimates.iter().map(|e| e.seconds).fold(0.0, f64::max);
    lines.push(row(
        "total",
        estimates.iter().map(|e| e.units).sum(),
        sum(|e| e.requests),
        sum(|e| e.input_tokens),
        sum(|e| e.output_tokens),
        sum(|e| e.cost_usd),
        slowest,
        "",
    ));
    lines
}

/// `42 s`, `7.5 min`, `3.2 h`.
fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(42.0), "42 s");
        assert_eq!(duration(450.0), "7.5 min");
        assert_eq!(duration(11_520.0), "3.2 h");
    }

    #[test]
    fn the_total_adds_up_and_takes_the_slowest_time() {
        let e = |model: &str, cost: f64, seconds: f64| Estimate {
            model: model.into(),
            units: 10,
            requests: 20.0,
            input_tokens: 20_000.0,
            output_tokens: 1200.0,
            cost_usd: cost,
            seconds,
            source: Source::Assumed,
        };
        let lines = render(&[e("a", 0.5, 30.0), e("b", 0.25, 60.0)]);
        let total = lines.last().unwrap();
        assert!(total.starts_with("total") && total.contains("   20  ") && total.contains("0.7500") && total.contains("60 s"), "{total}");
    }
}
