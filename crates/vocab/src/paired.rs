//! Paired comparisons of two models on the same scenarios: how noisy each
//! model is (its flip rate), the interval of the difference in pass rate,
//! whether that interval decides the comparison, and how many trials (or
//! scenarios) a comparison that is not decided yet would need. Plain
//! functions on counts; `docs/statistics.md` gives the methods and their
//! sources.
//!
//! Trials of one scenario are not independent (a hard scenario is hard on
//! every trial), so the unit of the paired analysis is the scenario: the
//! per-scenario difference of mean pass over trials.

/// z for 80% power: the 80th percentile of the standard normal.
pub const Z80: f64 = 0.841_621_233_572_914_3;

/// The power the planner aims for.
pub const POWER: f64 = 0.8;

/// Beyond this many trials per scenario the planner asks for more
/// scenarios instead: trials would not get there in any sensible time.
pub const MAX_PLANNED_TRIALS: u64 = 1000;

/// One scenario both models ran: how their verdicts split on the trials
/// both answered (trial t of A against trial t of B).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Both passed, only A, only B, neither.
    pub split: [u64; 4],
}

impl Cluster {
    /// The trials both models answered.
    pub fn trials(&self) -> u64 {
        self.split.iter().sum()
    }
    /// A's passes on those trials.
    pub fn passed_a(&self) -> u64 {
        self.split[0] + self.split[1]
    }
    /// B's passes on those trials.
    pub fn passed_b(&self) -> u64 {
        self.split[0] + self.split[2]
    }
    /// B's mean pass minus A's.
    fn diff(&self) -> f64 {
        (self.split[2] as f64 - self.split[1] as f64) / self.trials() as f64
    }
}

/// The chance that two distinct trials of one scenario disagree, from
/// `passed` of `trials`: `2c(n−c) / (n(n−1))`. None below two trials.
pub fn flip_rate(trials: u64, passed: u64) -> Option<f64> {
    (trials >= 2).then(|| 2.0 * passed as f64 * (trials - passed) as f64 / (trials as f64 * (trials - 1) as f64))
}

/// How an interval was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Newcombe's hybrid score interval for paired proportions (method 10):
    /// one trial per scenario, or no spread between scenarios to use.
    Newcombe,
    /// The paired t interval over per-scenario mean differences, the
    /// scenario as the cluster.
    ClusterT,
}

/// The difference in pass rate, B − A, with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub diff: f64,
    pub lo: f64,
    pub hi: f64,
    pub method: Method,
}

impl Interval {
    /// Decided: the interval lies wholly beyond `min_diff` on one side.
    pub fn decisive(&self, min_diff: f64) -> bool {
        self.lo > min_diff || self.hi < -min_diff
    }
}

/// The two-sided `1 − alpha` interval of B's pass rate minus A's over the
/// scenarios both ran. With one trial per scenario (or no spread between
/// the scenarios' differences) Newcombe's interval on the trial pairs; with
/// trials, the cluster-level paired t interval. None without a shared trial.
pub fn paired_interval(clusters: &[Cluster], alpha: f64) -> Option<Interval> {
    let clusters: Vec<&Cluster> = clusters.iter().filter(|c| c.trials() > 0).collect();
    let n = clusters.len();
    if n == 0 {
        return None;
    }
    let diffs: Vec<f64> = clusters.iter().map(|c| c.diff()).collect();
    let mean = diffs.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let one_trial = clusters.iter().all(|c| c.trials() == 1);
    if one_trial || n < 2 || var <= 0.0 {
        let mut split = [0; 4];
        for c in &clusters {
            for (s, x) in split.iter_mut().zip(c.split) {
                *s += x;
            }
        }
        let (lo, hi) = newcombe(split, normal_quantile(1.0 - alpha / 2.0));
        let diff = (split[2] as f64 - split[1] as f64) / split.iter().sum::<u64>() as f64;
        return Some(Interval { diff, lo, hi, method: Method::Newcombe });
    }
    let half = t_quantile(1.0 - alpha / 2.0, (n - 1) as f64) * (var / n as f64).sqrt();
    Some(Interval { diff: mean, lo: (mean - half).max(-1.0), hi: (mean + half).min(1.0), method: Method::ClusterT })
}

/// The level of one look of a sequential comparison: linear alpha
/// spending over the information fraction `trials / max_trials` (Lan &
/// DeMets 1983, the Pocock-like spending function `α·t`), each look's share
/// spent on its own interval. By the union bound the chance that any look
/// decides wrongly is at most the sum of the shares, `α · trials_now /
/// max_trials ≤ α`, however the looks fall: conservative, never above α.
pub fn look_alpha(alpha: f64, looked_at: u32, trials_now: u32, max_trials: u32) -> f64 {
    let max = max_trials.max(1);
    let (before, now) = (looked_at.min(max), trials_now.min(max));
    alpha * f64::from(now.saturating_sub(before)) / f64::from(max)
}

/// The Wilson score interval of `successes` of `n` with a given z.
fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    let (n, p, z2) = (n as f64, successes as f64 / n as f64, z * z);
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z2 / n;
    (((centre - spread) / denom).max(0.0), ((centre + spread) / denom).min(1.0))
}

/// Newcombe (1998), method 10: the interval of p_B − p_A for paired
/// binary outcomes, from each rate's Wilson interval and the correlation φ
/// of the 2×2 table `[both, only A, only B, neither]`.
pub fn newcombe(split: [u64; 4], z: f64) -> (f64, f64) {
    let [a, b, c, d] = split.map(|x| x as f64);
    let n = a + b + c + d;
    let (pb, pa) = ((a + c) / n, (a + b) / n);
    let (lb, ub) = wilson(split[0] + split[2], n as u64, z);
    let (la, ua) = wilson(split[0] + split[1], n as u64, z);
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    // φ of the table as B's outcome against A's; 0 where a margin is empty.
    let phi = if margins > 0.0 { (a * d - b * c) / margins.sqrt() } else { 0.0 };
    let diff = pb - pa;
    let delta = ((pb - lb).powi(2) - 2.0 * phi * (pb - lb) * (ua - pa) + (ua - pa).powi(2)).max(0.0).sqrt();
    let epsilon = ((ub - pb).powi(2) - 2.0 * phi * (ub - pb) * (pa - la) + (pa - la).powi(2)).max(0.0).sqrt();
    ((diff - delta).max(-1.0), (diff + epsilon).min(1.0))
}

/// Newcombe (1998), method 10 for independent proportions: the interval
/// of `hits_b/n_b − hits_a/n_a` from each rate's Wilson interval (square
/// and add). None where a side has no trials.
pub fn newcombe_independent((hits_a, n_a): (u64, u64), (hits_b, n_b): (u64, u64), z: f64) -> Option<(f64, f64)> {
    if n_a == 0 || n_b == 0 {
        return None;
    }
    let (pa, pb) = (hits_a as f64 / n_a as f64, hits_b as f64 / n_b as f64);
    let ((la, ua), (lb, ub)) = (wilson(hits_a, n_a, z), wilson(hits_b, n_b, z));
    let diff = pb - pa;
    Some((diff - ((pb - lb).powi(2) + (ua - pa).powi(2)).sqrt(), diff + ((ub - pb).powi(2) + (pa - la).powi(2)).sqrt()))
}

/// What a comparison that is not decided would need at 80% power.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Need {
    /// Trials per scenario, on the same scenarios (at least the current).
    pub trials: Option<u64>,
    /// Scenarios at the current trials, where more trials cannot get there.
    pub scenarios: Option<u64>,
}

/// The spread of the per-scenario differences, split into the part trials
/// cannot reduce (between scenarios) and the part they can (within a
/// scenario, from the flip rates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variance {
    /// Scenarios.
    pub n: f64,
    /// Mean trials per scenario.
    pub trials: f64,
    /// Variance of the true per-scenario differences.
    pub between: f64,
    /// Variance of one trial's difference within a scenario.
    pub within: f64,
}

impl Variance {
    /// Estimates the parts from the clusters. Within a scenario A's and B's
    /// trials are independent, so one trial's difference varies by
    /// `(flip_A + flip_B) / 2` (a flip rate is twice the Bernoulli
    /// variance). With one trial per scenario nothing separates the parts:
    /// all of it is taken as within, so the trials asked for are a lower bound.
    pub fn of(clusters: &[Cluster]) -> Option<Variance> {
        let clusters: Vec<&Cluster> = clusters.iter().filter(|c| c.trials() > 0).collect();
        let n = clusters.len();
        if n < 2 {
            return None;
        }
        let diffs: Vec<f64> = clusters.iter().map(|c| c.diff()).collect();
        let mean = diffs.iter().sum::<f64>() / n as f64;
        let total = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let trials = clusters.iter().map(|c| c.trials() as f64).sum::<f64>() / n as f64;
        let flips: Vec<f64> = clusters
            .iter()
            .filter_map(|c| Some((flip_rate(c.trials(), c.passed_a())? + flip_rate(c.trials(), c.passed_b())?) / 2.0))
            .collect();
        let (between, within) = if flips.is_empty() {
            (0.0, total * trials)
        } else {
            let within = flips.iter().sum::<f64>() / flips.len() as f64;
            ((total - within / trials).max(0.0), within)
        };
        Some(Variance { n: n as f64, trials, between, within })
    }

    /// The predicted power of a two-sided level-`alpha` test of an effect
    /// `effect` with `trials` per scenario on these scenarios.
    pub fn power(&self, effect: f64, trials: f64, alpha: f64) -> f64 {
        let se = ((self.between + self.within / trials) / self.n).sqrt();
        if se <= 0.0 {
            return if effect.abs() > 0.0 { 1.0 } else { alpha };
        }
        let z = normal_quantile(1.0 - alpha / 2.0);
        normal_cdf(effect.abs() / se - z) + normal_cdf(-effect.abs() / se - z)
    }

    /// The trials per scenario (or else scenarios) to detect `effect` at 80%
    /// power with a two-sided level-`alpha` test. Nothing for no effect.
    pub fn need(&self, effect: f64, alpha: f64) -> Need {
        if effect.abs() <= 0.0 || !effect.is_finite() {
            return Need::default();
        }
        let k = (normal_quantile(1.0 - alpha / 2.0) + Z80).powi(2);
        // The largest variance of the mean difference that still has the power.
        let allowed = self.n * effect * effect / k;
        let current = self.trials.ceil() as u64;
        if self.between < allowed {
            let trials = (self.within / (allowed - self.between)).ceil();
            if trials <= MAX_PLANNED_TRIALS as f64 {
                return Need { trials: Some((trials as u64).max(current)), scenarios: None };
            }
        }
        let scenarios = (k * (self.between + self.within / self.trials) / (effect * effect)).ceil();
        Need { trials: None, scenarios: Some((scenarios as u64).max(self.n as u64)) }
    }
}

/// Φ(x), the standard normal distribution function (via erfc, |error| < 1.2e-7).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The standard normal quantile (Acklam's rational approximation, refined
/// by one Newton step).
pub fn normal_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -39.696_830_286_653_76,
        220.946_098_424_520_5,
        -275.928_510_446_968_7,
        138.357_751_867_269,
        -30.664_798_066_147_16,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] =
        [-54.476_098_798_224_06, 161.585_836_858_040_9, -155.698_979_859_886_6, 66.801_311_887_719_72, -13.280_681_552_885_72];
    const C: [f64; 6] = [
        -0.007_784_894_002_430_293,
        -0.322_396_458_041_136_5,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [0.007_784_695_709_041_462, 0.322_467_129_070_039_8, 2.445_134_137_142_996, 3.754_408_661_907_416];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // One Newton step on Φ(x) = p.
    let density = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    x - (normal_cdf(x) - p) / density
}

/// The distribution function of Student's t with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The quantile of Student's t (bisection on `t_cdf`).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (-1e4, 1e4);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The regularized incomplete beta function I_x(a, b) (Numerical Recipes'
/// continued fraction).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    d = if d.abs() < TINY { TINY } else { d };
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        for aa in [m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))] {
            d = 1.0 + aa * d;
            d = if d.abs() < TINY { TINY } else { d };
            c = 1.0 + aa / c;
            c = if c.abs() < TINY { TINY } else { c };
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-12 {
            break;
        }
    }
    h
}

/// ln Γ(x) (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = G[0] + G[1..].iter().enumerate().map(|(i, g)| g / (x + i as f64 + 1.0)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn quantiles_match_the_tables() {
        assert!(close(normal_quantile(0.975), 1.959_964, 1e-6));
        assert!(close(normal_quantile(0.8), Z80, 1e-6));
        assert!(close(normal_quantile(0.025), -1.959_964, 1e-6));
        assert!(close(normal_cdf(1.959_964), 0.975, 1e-6));
        // Student's t, 0.975: df 1 12.706, 2 4.303, 9 2.262, 29 2.045.
        for (df, t) in [(1.0, 12.706_2), (2.0, 4.302_7), (9.0, 2.262_2), (29.0, 2.045_2)] {
            assert!(close(t_quantile(0.975, df), t, 1e-3), "df {df}: {}", t_quantile(0.975, df));
        }
    }

    #[test]
    fn flip_rate_is_the_chance_two_trials_disagree() {
        // 3 trials, 1 pass: pairs (P,F),(P,F),(F,F) → 2 of 3 disagree.
        assert!(close(flip_rate(3, 1).unwrap(), 2.0 / 3.0, 1e-12));
        assert_eq!(flip_rate(4, 4), Some(0.0));
        assert!(close(flip_rate(2, 1).unwrap(), 1.0, 1e-12));
        assert_eq!(flip_rate(1, 1), None);
    }

    /// The table a = 8, b = 5, c = 4, d = 5 (n = 22), worked by hand from
    /// Newcombe's formula: Wilson intervals [0.3873, 0.7674] and
    /// [0.3466, 0.7308], φ = 0.1688, difference 0.0455, interval
    /// [−0.20565, 0.28806]. Our split is [both, only A, only B, neither] and
    /// the difference B − A, so the table's first proportion is B's.
    #[test]
    fn newcombe_matches_a_hand_computed_table() {
        let (lo, hi) = newcombe([8, 4, 5, 5], 1.959_964);
        assert!(close(lo, -0.205_65, 5e-5) && close(hi, 0.288_06, 5e-5), "{lo} {hi}");
    }

    #[test]
    fn newcombe_independent_matches_a_hand_computed_case() {
        // 56/70 against 48/80 (Newcombe 1998b's example 1): difference
        // −0.2, interval [−0.3339, −0.0524] as B − A.
        let (lo, hi) = newcombe_independent((56, 70), (48, 80), 1.959_964).unwrap();
        assert!(close(lo, -0.3339, 5e-4) && close(hi, -0.0524, 5e-4), "{lo} {hi}");
        assert_eq!(newcombe_independent((0, 0), (1, 2), 1.96), None);
    }

    #[test]
    fn cluster_interval_is_a_paired_t_over_scenarios() {
        // Three scenarios, 2 trials: differences 0.5, 0.5, 1.0 → mean 2/3,
        // sd 0.288675, se 0.166667, t(0.975, 2) = 4.302653.
        let c = |split| Cluster { split };
        let clusters = [c([1, 0, 1, 0]), c([0, 0, 1, 1]), c([0, 0, 2, 0])];
        let iv = paired_interval(&clusters, 0.05).unwrap();
        assert_eq!(iv.method, Method::ClusterT);
        assert!(close(iv.diff, 2.0 / 3.0, 1e-12));
        assert!(close(iv.lo, 2.0 / 3.0 - 4.302_653 / 6.0, 1e-5) && close(iv.hi, 1.0, 1e-12), "{iv:?}");
        assert!(!iv.decisive(0.0));
        // One trial each: Newcombe on the pooled pairs.
        let one = [c([0, 0, 1, 0]), c([0, 1, 0, 0]), c([1, 0, 0, 0])];
        assert_eq!(paired_interval(&one, 0.05).unwrap().method, Method::Newcombe);
        assert_eq!(paired_interval(&[], 0.05), None);
    }

    #[test]
    fn the_looks_spend_at_most_alpha() {
        // 2 trials, then 3, 4, …, 10: the shares add up to α at the cap.
        let mut spent = look_alpha(0.05, 0, 2, 10);
        assert!(close(spent, 0.01, 1e-12));
        for t in 3..=10 {
            spent += look_alpha(0.05, t - 1, t, 10);
        }
        assert!(close(spent, 0.05, 1e-12));
        assert_eq!(look_alpha(0.05, 10, 12, 10), 0.0);
    }

    #[test]
    fn decisive_means_beyond_the_minimum_difference() {
        let iv = Interval { diff: -0.05, lo: -0.08, hi: -0.02, method: Method::ClusterT };
        assert!(iv.decisive(0.0));
        assert!(!iv.decisive(0.03));
        assert!(iv.decisive(0.01));
    }

    #[test]
    fn the_planner_splits_the_variance_and_asks_for_trials() {
        // 20 scenarios, 2 trials; no spread between scenarios, flip 0.5 on each side.
        let v = Variance { n: 20.0, trials: 2.0, between: 0.0, within: 0.5 };
        // allowed = 20 · 0.1² / (1.959964 + 0.841621)² = 0.025494; trials = 0.5 / 0.025494 = 19.6 → 20.
        assert_eq!(v.need(0.1, 0.05), Need { trials: Some(20), scenarios: None });
        assert!(close(v.power(0.1, 20.0, 0.05), 0.8, 0.01));
        // Between-scenario spread beyond what the scenarios allow: more scenarios.
        let v = Variance { n: 20.0, trials: 2.0, between: 0.05, within: 0.5 };
        // scenarios = 7.8489 · (0.05 + 0.25) / 0.01 = 235.5 → 236.
        assert_eq!(v.need(0.1, 0.05), Need { trials: None, scenarios: Some(236) });
        assert_eq!(v.need(0.0, 0.05), Need::default());
    }

    #[test]
    fn variance_parts_come_from_the_flip_rates() {
        let c = |split| Cluster { split };
        // Two scenarios, 2 trials each; A always passes, B passes one of two.
        let v = Variance::of(&[c([1, 1, 0, 0]), c([1, 1, 0, 0])]).unwrap();
        // B's flip rate 1 on each, A's 0: within = 0.5; differences equal: between 0.
        assert!(close(v.within, 0.5, 1e-12) && v.between == 0.0 && v.trials == 2.0);
    }
}
