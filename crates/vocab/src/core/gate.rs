//! The thresholds of the CI gate (`[gate]` in `calltape.toml`).

use serde::{Deserialize, Serialize};

/// Thresholds of the gate (`[gate]` in `calltape.toml`; flags override).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Gate {
    /// Largest allowed drop in pass rate, absolute (0.02 = two points).
    pub max_pass_rate_drop: f64,
    /// Largest allowed rise in invalid-call rate, absolute.
    pub max_invalid_rate_rise: f64,
    /// Largest allowed rise in total cost, relative (0.10 = +10%).
    pub max_cost_rise: f64,
    /// Largest allowed rise in p95 latency, relative.
    pub max_p95_latency_rise: f64,
    /// Fail when a scenario that always passed now fails.
    pub fail_on_newly_failing: bool,
    /// Fail when a model of the current run has errored units (no answer):
    /// what it did not answer cannot be compared.
    pub fail_on_errored: bool,
    /// Fail when a model of the baseline is missing from the current run.
    pub fail_on_missing: bool,
    /// Fail on a pass-rate drop, invalid-rate rise or newly failing
    /// scenario only when it is decisive (its 95% interval excludes no
    /// change), so noise alone does not fail CI. Off by default: the gate
    /// then fails on every change beyond a threshold.
    pub require_decisive: bool,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            max_pass_rate_drop: 0.02,
            max_invalid_rate_rise: 0.02,
            max_cost_rise: 0.10,
            max_p95_latency_rise: 0.25,
            fail_on_newly_failing: true,
            fail_on_errored: true,
            fail_on_missing: true,
            require_decisive: false,
        }
    }
}
