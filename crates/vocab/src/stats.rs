//! The statistics behind the reports, as plain functions with their
//! definitions: Wilson intervals, pass@k and pass^k, McNemar's exact test,
//! and the Pareto front of quality against cost.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of `successes` out of `n`; `(0, 1)` when
/// there are no trials (nothing is known).
pub fn wilson(successes: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z2) = (n as f64, successes as f64 / n as f64, Z95 * Z95);
    let centre = p + z2 / (2.0 * n);
    let spread = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z2 / n;
    (((centre - spread) / denom).max(0.0), ((centre + spread) / denom).min(1.0))
}

/// C(n, k) as a float (exact for the sizes reports see).
pub fn binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// pass@k for one scenario with `c` passes in `n` trials: the chance that at
/// least one of `k` trials drawn without replacement passes,
/// `1 - C(n-c, k) / C(n, k)` (Chen et al., 2021).
pub fn pass_at_k(n: u64, c: u64, k: u64) -> f64 {
    if k == 0 || k > n {
        return f64::NAN;
    }
    1.0 - binomial(n - c, k) / binomial(n, k)
}

/// pass^k for one scenario: the chance that all of `k` trials drawn pass,
/// `C(c, k) / C(n, k)` (τ-bench's definition).
pub fn pass_hat_k(n: u64, c: u64, k: u64) -> f64 {
    if k == 0 || k > n {
        return f64::NAN;
    }
    binomial(c, k) / binomial(n, k)
}

/// Two-sided exact McNemar test on the discordant pairs: `only_a` scenarios
/// that only model A passed, `only_b` that only B passed. The p-value of
/// seeing a split this uneven if both models were equally good:
/// `min(1, 2 · P(X ≤ min(b, c)))` with `X ~ Binomial(b + c, 1/2)`.
pub fn mcnemar_exact(only_a: u64, only_b: u64) -> f64 {
    let n = only_a + only_b;
    if n == 0 {
        return 1.0;
    }
    let tail: f64 = (0..=only_a.min(only_b)).map(|i| binomial(n, i)).sum::<f64>() * 0.5f64.powi(n as i32);
    (2.0 * tail).min(1.0)
}

/// Which points lie on the Pareto front of quality (higher is better)
/// against cost (lower is better): no other point is at least as good on
/// both and strictly better on one.
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<bool> {
    points.iter().map(|&(q, c)| !points.iter().any(|&(q2, c2)| q2 >= q && c2 <= c && (q2 > q || c2 < c))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn wilson_matches_hand_computed_intervals() {
        // 8 of 10: centre (0.8 + 0.19207)/1.38415 = 0.71679, spread 0.27093/1.38415.
        let (lo, hi) = wilson(8, 10);
        assert!(close(lo, 0.49016) && close(hi, 0.94332), "{lo} {hi}");
        let (lo, hi) = wilson(0, 20);
        assert!(close(lo, 0.0) && close(hi, 0.16113), "{lo} {hi}");
        let (lo, hi) = wilson(20, 20);
        assert!(close(lo, 0.83887) && close(hi, 1.0), "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn pass_k_definitions() {
        // n = 5 trials, c = 3 passes, k = 2: pass^2 = C(3,2)/C(5,2) = 3/10; pass@2 = 1 - C(2,2)/C(5,2) = 0.9.
        assert!(close(pass_hat_k(5, 3, 2), 0.3));
        assert!(close(pass_at_k(5, 3, 2), 0.9));
        assert!(close(pass_hat_k(4, 4, 4), 1.0) && close(pass_at_k(4, 0, 4), 0.0));
        assert!(close(pass_hat_k(3, 2, 1), 2.0 / 3.0) && close(pass_at_k(3, 2, 1), 2.0 / 3.0));
        assert!(pass_hat_k(2, 1, 3).is_nan());
    }

    #[test]
    fn mcnemar_exact_p_values() {
        // b = 1, c = 9: 2 · (1 + 10) / 1024 = 0.021484375.
        assert!(close(mcnemar_exact(1, 9), 0.021484375));
        assert!(close(mcnemar_exact(9, 1), 0.021484375));
        // b = 3, c = 5: 2 · (1 + 8 + 28 + 56) / 256 = 0.7265625.
        assert!(close(mcnemar_exact(3, 5), 0.7265625));
        assert_eq!(mcnemar_exact(4, 4), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b = 0, c = 6: 2 / 64.
        assert!(close(mcnemar_exact(0, 6), 0.03125));
    }

    #[test]
    fn pareto_front_keeps_the_undominated() {
        // (quality, cost)
        let points = [(0.98, 0.40), (0.90, 0.02), (0.85, 0.03), (0.90, 0.05), (0.95, 0.02)];
        assert_eq!(pareto_front(&points), vec![true, false, false, false, true]);
        assert_eq!(pareto_front(&[(0.5, 1.0), (0.5, 1.0)]), vec![true, true]);
    }
}
