//! The statistics checked by simulation: experiments drawn from models with
//! known pass rates (per-scenario rates spread around them, as the
//! simulated models' fault rates and the scenarios' difficulty give), a few
//! hundred per row. Prints the table of docs/statistics.md:
//!
//! cargo test --test statistics_simulation -- --ignored --nocapture
//!
//! Ignored by default (about a minute in a debug build); the asserts are
//! the issue's: predicted power within ±5 points of the observed, and the
//! sequential rule's false-decision rate at or under 5%.

use calltape::core::rng::Rng;
use calltape::paired::{self, Cluster, Variance};

const EXPERIMENTS: usize = 400;

fn normal(rng: &mut Rng) -> f64 {
    let (u, v) = (rng.unit().max(1e-12), rng.unit());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Two models on `n` scenarios: each scenario's pass chance for A and B,
/// around `pa` and `pb`, with a shared difficulty (`spread`) and a
/// scenario-specific difference (`disagree`).
#[derive(Clone, Copy)]
struct Design {
    pa: f64,
    pb: f64,
    n: usize,
    spread: f64,
    disagree: f64,
}

impl Design {
    fn scenarios(&self, rng: &mut Rng) -> Vec<(f64, f64)> {
        (0..self.n)
            .map(|_| {
                let hard = self.spread * normal(rng);
                (sigmoid(logit(self.pa) + hard), sigmoid(logit(self.pb) + hard + self.disagree * normal(rng)))
            })
            .collect()
    }

    /// The true difference of mean pass rate, B − A, by a large draw.
    fn true_diff(&self) -> f64 {
        let mut rng = Rng::from_parts(&["true", &self.n.to_string()]);
        let s = Design { n: 200_000, ..*self }.scenarios(&mut rng);
        s.iter().map(|(a, b)| b - a).sum::<f64>() / s.len() as f64
    }
}

/// `trials` more trials of each scenario, added to `clusters`.
fn add_trials(rng: &mut Rng, scenarios: &[(f64, f64)], clusters: &mut [Cluster], trials: u32) {
    for ((pa, pb), c) in scenarios.iter().zip(clusters.iter_mut()) {
        for _ in 0..trials {
            let cell = match (rng.chance(*pa), rng.chance(*pb)) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            };
            c.split[cell] += 1;
        }
    }
}

/// Predicted power (the planner, from each experiment's own variance
/// estimate, for the true difference) and observed power (how often the
/// 95% interval decided), in points.
fn power(design: Design, trials: u32, seed: &str) -> (f64, f64) {
    let effect = design.true_diff();
    let (mut predicted, mut decided) = (0.0, 0);
    for e in 0..EXPERIMENTS {
        let mut rng = Rng::from_parts(&["power", seed, &e.to_string()]);
        let scenarios = design.scenarios(&mut rng);
        let mut clusters = vec![Cluster::default(); design.n];
        add_trials(&mut rng, &scenarios, &mut clusters, trials);
        let v = Variance::of(&clusters).expect("two scenarios or more");
        predicted += v.power(effect, f64::from(trials), 0.05);
        decided += usize::from(paired::paired_interval(&clusters, 0.05).is_some_and(|i| i.decisive(0.0)));
    }
    (100.0 * predicted / EXPERIMENTS as f64, 100.0 * decided as f64 / EXPERIMENTS as f64)
}

/// The `--until-decisive` rule: start at `first` trials, one more a round
/// up to `max`, each look at its spent share of 5%. How often it decides,
/// and the mean trials at the stop.
fn sequential(design: Design, first: u32, max: u32, seed: &str) -> (f64, f64) {
    let (mut decided, mut trials_used) = (0, 0u32);
    for e in 0..EXPERIMENTS {
        let mut rng = Rng::from_parts(&["sequential", seed, &e.to_string()]);
        let scenarios = design.scenarios(&mut rng);
        let mut clusters = vec![Cluster::default(); design.n];
        add_trials(&mut rng, &scenarios, &mut clusters, first);
        let (mut looked_at, mut trials) = (0, first);
        loop {
            let alpha = paired::look_alpha(0.05, looked_at, trials, max);
            if paired::paired_interval(&clusters, alpha).is_some_and(|i| i.decisive(0.0)) {
                decided += 1;
                break;
            }
            if trials >= max {
                break;
            }
            looked_at = trials;
            add_trials(&mut rng, &scenarios, &mut clusters, 1);
            trials += 1;
        }
        trials_used += trials;
    }
    (100.0 * decided as f64 / EXPERIMENTS as f64, f64::from(trials_used) / EXPERIMENTS as f64)
}

#[test]
#[ignore = "about a minute: makes the simulation table of docs/statistics.md"]
fn the_statistics_hold_in_simulation() {
    let power_rows = [
        (Design { pa: 0.80, pb: 0.70, n: 50, spread: 1.0, disagree: 0.5 }, 3),
        (Design { pa: 0.90, pb: 0.85, n: 100, spread: 1.0, disagree: 0.5 }, 3),
        (Design { pa: 0.75, pb: 0.70, n: 40, spread: 0.5, disagree: 0.3 }, 10),
        (Design { pa: 0.95, pb: 0.85, n: 30, spread: 1.0, disagree: 1.0 }, 2),
        (Design { pa: 0.70, pb: 0.65, n: 60, spread: 1.5, disagree: 0.2 }, 5),
    ];
    println!("| A | B | scenarios | trials | true diff | predicted power | observed power |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut worst: f64 = 0.0;
    for (i, (d, t)) in power_rows.iter().enumerate() {
        let (predicted, observed) = power(*d, *t, &i.to_string());
        worst = worst.max((predicted - observed).abs());
        println!("| {} | {} | {} | {t} | {:.1} | {predicted:.1}% | {observed:.1}% |", d.pa, d.pb, d.n, 100.0 * d.true_diff());
    }
    println!();
    let sequential_rows = [
        (Design { pa: 0.80, pb: 0.80, n: 50, spread: 1.0, disagree: 0.0 }, 2, 10),
        (Design { pa: 0.60, pb: 0.60, n: 30, spread: 0.5, disagree: 0.0 }, 1, 5),
        (Design { pa: 0.90, pb: 0.90, n: 100, spread: 1.0, disagree: 0.0 }, 3, 10),
        (Design { pa: 0.85, pb: 0.75, n: 50, spread: 1.0, disagree: 0.5 }, 2, 10),
    ];
    println!("| A | B | scenarios | first trials | cap | decided (false when A = B) | mean trials at stop |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut false_rate: f64 = 0.0;
    for (i, (d, first, max)) in sequential_rows.iter().enumerate() {
        let (decided, trials) = sequential(*d, *first, *max, &i.to_string());
        if d.pa == d.pb {
            false_rate = false_rate.max(decided);
        }
        println!("| {} | {} | {} | {first} | {max} | {decided:.1}% | {trials:.1} |", d.pa, d.pb, d.n);
    }
    assert!(worst <= 5.0, "predicted power is off by {worst:.1} points");
    assert!(false_rate <= 5.0, "the sequential rule decided {false_rate:.1}% of null comparisons");
}
