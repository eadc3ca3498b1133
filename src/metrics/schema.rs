//! The tables' schema: every column name, written once, and each table's
//! columns in the order its CSV, JSON and reports show them. Aggregation
//! writes through these names and every reader (the report writers,
//! `compare`, the HTML charts) reads through them, so renaming a column or
//! adding one is a change here, not a hunt for string literals.
//!
//! The per-kind columns are the names `InvalidKind::as_str` and
//! `DenialBehaviour::column` give; the lists below spell them out (a const
//! cannot call those) and a test holds the two in step.

// Keys.
/// The model's configured name.
pub const MODEL: &str = "model";
/// The resolved tool name.
pub const TOOL: &str = "tool";
pub const SUITE: &str = "suite";
pub const SCENARIO: &str = "scenario";
pub const TRIAL: &str = "trial";
/// The model's tier (`strong`, `cheap`, …).
pub const TIER: &str = "tier";
/// The arm a model variant ran under (empty without arms).
pub const ARM: &str = "arm";
/// The repair mode of the arm (`off`, `local`, `full`; empty without arms).
pub const ARM_REPAIR: &str = "arm_repair";
/// The configured model a variant belongs to (the model itself without arms).
pub const BASE_MODEL: &str = "base_model";

// Scenario verdicts.
/// Answered runs of a scenario (summary, suites): the pass rates' denominator.
pub const SCENARIOS: &str = "scenarios";
/// Answered trials of one scenario (by_scenario).
pub const TRIALS: &str = "trials";
/// Runs that could not reach a verdict (no recording, a failed request):
/// counted apart, never as failures (summary, suites, by_scenario); in
/// scenarios, whether the run errored.
pub const ERRORED: &str = "errored";
/// Why a run errored (`events::UnitError`, snake_case); empty when it did not.
pub const ERROR_KIND: &str = "error_kind";
pub const PASSED: &str = "passed";
pub const PASS_RATE: &str = "pass_rate";
pub const PASS_RATE_LO: &str = "pass_rate_lo";
pub const PASS_RATE_HI: &str = "pass_rate_hi";
pub const PASSED_NO_REPAIR: &str = "passed_no_repair";
pub const PASS_RATE_NO_REPAIR: &str = "pass_rate_no_repair";
pub const PASS_RATE_NO_REPAIR_LO: &str = "pass_rate_no_repair_lo";
pub const PASS_RATE_NO_REPAIR_HI: &str = "pass_rate_no_repair_hi";
/// Why a run passed or failed.
pub const REASON: &str = "reason";
// Outcome of a stateful scenario (empty for others).
/// Milestones reached, in order.
pub const MILESTONES_REACHED: &str = "milestones_reached";
/// Milestones the scenario has.
pub const MILESTONES: &str = "milestones";
/// The name of the last milestone reached.
pub const LAST_MILESTONE: &str = "last_milestone";
/// Final-state checks that held.
pub const STATE_CHECKS_PASSED: &str = "state_checks_passed";
/// Final-state checks the scenario has.
pub const STATE_CHECKS: &str = "state_checks";
/// `by_scenario`: milestones reached, mean over trials.
pub const MEAN_MILESTONES_REACHED: &str = "mean_milestones_reached";
/// k of pass@k: the run's trials.
pub const K: &str = "k";
pub const PASS_AT_K: &str = "pass_at_k";
pub const PASS_HAT_K: &str = "pass_hat_k";
/// Scenarios (or a scenario) that passed some trials and failed others.
pub const FLAKY: &str = "flaky";
/// The chance that two trials of one scenario disagree (mean over the
/// model's scenarios with two trials or more); empty with one trial.
pub const FLIP_RATE: &str = "flip_rate";
/// The scenarios a model's flip rate rests on.
pub const FLIP_SCENARIOS: &str = "flip_scenarios";

// Tool calls.
pub const CALLS: &str = "calls";
/// Calls invalid as the model sent them.
pub const INVALID: &str = "invalid";
pub const INVALID_RATE: &str = "invalid_rate";
pub const INVALID_RATE_LO: &str = "invalid_rate_lo";
pub const INVALID_RATE_HI: &str = "invalid_rate_hi";
pub const REPAIRED_LOCAL: &str = "repaired_local";
pub const REPAIRED_MODEL: &str = "repaired_model";
pub const STILL_INVALID: &str = "still_invalid";
pub const REPAIR_RATE: &str = "repair_rate";
pub const REPAIR_RATE_LO: &str = "repair_rate_lo";
pub const REPAIR_RATE_HI: &str = "repair_rate_hi";

// Tokens, cost, latency.
pub const INPUT_TOKENS: &str = "input_tokens";
pub const OUTPUT_TOKENS: &str = "output_tokens";
pub const CACHED_INPUT_TOKENS: &str = "cached_input_tokens";
pub const COST_USD: &str = "cost_usd";
pub const REPAIR_INPUT_TOKENS: &str = "repair_input_tokens";
pub const REPAIR_OUTPUT_TOKENS: &str = "repair_output_tokens";
pub const REPAIR_COST_USD: &str = "repair_cost_usd";
pub const TOTAL_COST_USD: &str = "total_cost_usd";
pub const COST_PER_PASSED_USD: &str = "cost_per_passed_usd";
/// On the Pareto front of pass rate against cost.
pub const PARETO: &str = "pareto";
pub const LATENCY_MS: &str = "latency_ms";
pub const MEAN_LATENCY_MS: &str = "mean_latency_ms";
pub const LATENCY_P50_MS: &str = "latency_p50_ms";
pub const LATENCY_P95_MS: &str = "latency_p95_ms";
pub const LATENCY_P99_MS: &str = "latency_p99_ms";
pub const TTFT_P50_MS: &str = "ttft_p50_ms";
pub const TTFT_P95_MS: &str = "ttft_p95_ms";
pub const REPAIR_LOCAL_P50_US: &str = "repair_local_p50_us";
pub const REPAIR_LOCAL_P95_US: &str = "repair_local_p95_us";
pub const REPAIR_MODEL_P50_MS: &str = "repair_model_p50_ms";
pub const REPAIR_MODEL_P95_MS: &str = "repair_model_p95_ms";
/// Requests that ended in an error.
pub const REQUEST_ERRORS: &str = "request_errors";

// Approvals.
pub const APPROVALS_REQUESTED: &str = "approvals_requested";
pub const APPROVED: &str = "approved";
pub const DENIED: &str = "denied";
pub const APPROVAL_WARNINGS: &str = "approval_warnings";

// Repair attempts (the repairs table).
/// `local` or `model`: see `STAGE_LOCAL` and `STAGE_MODEL`.
pub const STAGE: &str = "stage";
/// The value of `STAGE` for a local repair.
pub const STAGE_LOCAL: &str = "local";
/// The value of `STAGE` for a model repair.
pub const STAGE_MODEL: &str = "model";
pub const LATENCY_US: &str = "latency_us";
pub const SUCCEEDED: &str = "succeeded";

// Pairs of models.
pub const MODEL_A: &str = "model_a";
pub const MODEL_B: &str = "model_b";
/// Runs both models made.
pub const SHARED: &str = "shared";
pub const BOTH_PASSED: &str = "both_passed";
pub const ONLY_A: &str = "only_a";
pub const ONLY_B: &str = "only_b";
pub const NEITHER: &str = "neither";
pub const PASS_RATE_A: &str = "pass_rate_a";
pub const PASS_RATE_B: &str = "pass_rate_b";
/// McNemar's exact p-value.
pub const P_VALUE: &str = "p_value";
pub const COST_A_USD: &str = "cost_a_usd";
pub const COST_B_USD: &str = "cost_b_usd";
pub const COST_RATIO: &str = "cost_ratio";
/// `arms` (two arms of one model), `cheap_vs_strong`, or `models`.
pub const PAIR_KIND: &str = "kind";
pub const PAIR_ARMS: &str = "arms";
pub const PAIR_CHEAP_VS_STRONG: &str = "cheap_vs_strong";
pub const PAIR_MODELS: &str = "models";
pub const ARM_A: &str = "arm_a";
pub const ARM_B: &str = "arm_b";
/// Mean latency of a shared run (the unit's model time, ms).
pub const MEAN_LATENCY_A_MS: &str = "mean_latency_a_ms";
pub const MEAN_LATENCY_B_MS: &str = "mean_latency_b_ms";
pub const LATENCY_RATIO: &str = "latency_ratio";
/// `pass_rate_b - pass_rate_a` on the shared runs.
pub const PASS_RATE_DIFF: &str = "pass_rate_diff";
/// The 95% interval of the paired difference in pass rate, B − A, over
/// scenarios (`paired::paired_interval`).
pub const DIFF_LO: &str = "diff_lo";
pub const DIFF_HI: &str = "diff_hi";
/// The interval excludes 0: the pair is told apart.
pub const DECISIVE: &str = "decisive";
/// Trials per scenario to detect the observed difference at 80% power;
/// empty where decisive, or where trials cannot get there.
pub const TRIALS_NEEDED: &str = "trials_needed";
/// The estimated cost of the trials (or scenarios) still needed, both models.
pub const COST_NEEDED_USD: &str = "cost_needed_usd";
/// Scenarios needed at the current trials, where more trials cannot get there.
pub const SCENARIOS_NEEDED: &str = "scenarios_needed";

/// One count column per `InvalidKind::ALL`, in that order.
pub const INVALID_KINDS: [&str; 10] = [
    "unknown_tool",
    "parse_error",
    "missing_required",
    "wrong_type",
    "additional_property",
    "enum_mismatch",
    "constraint_violation",
    "text_call",
    "server_rejected_call",
    "truncated",
];

/// One count column per `DenialBehaviour::ALL`, in that order.
pub const AFTER_DENIAL: [&str; 5] = [
    "after_denial_retried_same",
    "after_denial_retried_changed",
    "after_denial_other_tool",
    "after_denial_answered",
    "after_denial_step_limit",
];

/// Approval counts, per model and per model × tool.
pub const APPROVAL_COUNTS: [&str; 9] = [
    APPROVALS_REQUESTED,
    APPROVED,
    DENIED,
    APPROVAL_WARNINGS,
    AFTER_DENIAL[0],
    AFTER_DENIAL[1],
    AFTER_DENIAL[2],
    AFTER_DENIAL[3],
    AFTER_DENIAL[4],
];

/// `summary`: one row per model.
pub const SUMMARY: [&str; 71] = [
    MODEL,
    TIER,
    SCENARIOS,
    PASSED,
    PASS_RATE,
    PASS_RATE_LO,
    PASS_RATE_HI,
    PASSED_NO_REPAIR,
    PASS_RATE_NO_REPAIR,
    PASS_RATE_NO_REPAIR_LO,
    PASS_RATE_NO_REPAIR_HI,
    K,
    PASS_AT_K,
    PASS_HAT_K,
    FLAKY,
    CALLS,
    INVALID,
    INVALID_RATE,
    INVALID_RATE_LO,
    INVALID_RATE_HI,
    REPAIRED_LOCAL,
    REPAIRED_MODEL,
    STILL_INVALID,
    REPAIR_RATE,
    REPAIR_RATE_LO,
    REPAIR_RATE_HI,
    INVALID_KINDS[0],
    INVALID_KINDS[1],
    INVALID_KINDS[2],
    INVALID_KINDS[3],
    INVALID_KINDS[4],
    INVALID_KINDS[5],
    INVALID_KINDS[6],
    INVALID_KINDS[7],
    INVALID_KINDS[8],
    INVALID_KINDS[9],
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    CACHED_INPUT_TOKENS,
    COST_USD,
    REPAIR_INPUT_TOKENS,
    REPAIR_OUTPUT_TOKENS,
    REPAIR_COST_USD,
    TOTAL_COST_USD,
    COST_PER_PASSED_USD,
    PARETO,
    LATENCY_P50_MS,
    LATENCY_P95_MS,
    LATENCY_P99_MS,
    TTFT_P50_MS,
    TTFT_P95_MS,
    REPAIR_LOCAL_P50_US,
    REPAIR_LOCAL_P95_US,
    REPAIR_MODEL_P50_MS,
    REPAIR_MODEL_P95_MS,
    APPROVAL_COUNTS[0],
    APPROVAL_COUNTS[1],
    APPROVAL_COUNTS[2],
    APPROVAL_COUNTS[3],
    APPROVAL_COUNTS[4],
    APPROVAL_COUNTS[5],
    APPROVAL_COUNTS[6],
    APPROVAL_COUNTS[7],
    APPROVAL_COUNTS[8],
    REQUEST_ERRORS,
    ERRORED,
    ARM,
    ARM_REPAIR,
    BASE_MODEL,
    FLIP_RATE,
    FLIP_SCENARIOS,
];

/// The summary columns `derived` computes after polars has aggregated.
pub const SUMMARY_DERIVED: [&str; 21] = [
    TIER,
    ARM,
    ARM_REPAIR,
    BASE_MODEL,
    PASS_RATE_LO,
    PASS_RATE_HI,
    PASS_RATE_NO_REPAIR_LO,
    PASS_RATE_NO_REPAIR_HI,
    K,
    PASS_AT_K,
    PASS_HAT_K,
    FLAKY,
    INVALID_RATE_LO,
    INVALID_RATE_HI,
    REPAIR_RATE_LO,
    REPAIR_RATE_HI,
    TOTAL_COST_USD,
    COST_PER_PASSED_USD,
    PARETO,
    FLIP_RATE,
    FLIP_SCENARIOS,
];

/// `by_tool`: one row per model × tool. The intervals come last, added by
/// `derived` after the rest.
pub const BY_TOOL: [&str; 40] = [
    MODEL,
    TOOL,
    CALLS,
    INVALID,
    INVALID_RATE,
    REPAIRED_LOCAL,
    REPAIRED_MODEL,
    STILL_INVALID,
    REPAIR_RATE,
    INVALID_KINDS[0],
    INVALID_KINDS[1],
    INVALID_KINDS[2],
    INVALID_KINDS[3],
    INVALID_KINDS[4],
    INVALID_KINDS[5],
    INVALID_KINDS[6],
    INVALID_KINDS[7],
    INVALID_KINDS[8],
    INVALID_KINDS[9],
    APPROVAL_COUNTS[0],
    APPROVAL_COUNTS[1],
    APPROVAL_COUNTS[2],
    APPROVAL_COUNTS[3],
    APPROVAL_COUNTS[4],
    APPROVAL_COUNTS[5],
    APPROVAL_COUNTS[6],
    APPROVAL_COUNTS[7],
    APPROVAL_COUNTS[8],
    REPAIR_INPUT_TOKENS,
    REPAIR_OUTPUT_TOKENS,
    REPAIR_COST_USD,
    REPAIR_LOCAL_P50_US,
    REPAIR_LOCAL_P95_US,
    REPAIR_MODEL_P50_MS,
    REPAIR_MODEL_P95_MS,
    INVALID_RATE_LO,
    INVALID_RATE_HI,
    REPAIR_RATE_LO,
    REPAIR_RATE_HI,
    ARM,
];

/// How many `BY_TOOL` columns `derived` adds at the end.
pub const BY_TOOL_DERIVED: usize = 5;

/// `scenarios`: one row per model × scenario × trial.
/// The milestone and state columns are empty for scenarios without them.
pub const SCENARIO_RUNS: [&str; 16] = [
    MODEL,
    SUITE,
    SCENARIO,
    TRIAL,
    PASSED,
    REASON,
    PASSED_NO_REPAIR,
    LATENCY_MS,
    COST_USD,
    ERRORED,
    ERROR_KIND,
    MILESTONES_REACHED,
    MILESTONES,
    LAST_MILESTONE,
    STATE_CHECKS_PASSED,
    STATE_CHECKS,
];

/// `by_scenario`: one row per model × scenario, over trials.
pub const BY_SCENARIO: [&str; 12] =
    [MODEL, SUITE, SCENARIO, TRIALS, PASSED, PASS_RATE, FLAKY, COST_USD, MEAN_LATENCY_MS, ERRORED, MEAN_MILESTONES_REACHED, FLIP_RATE];

/// `suites`: one row per model × suite. The interval comes last, added by
/// `derived`.
pub const SUITES: [&str; 9] = [MODEL, SUITE, SCENARIOS, PASSED, PASS_RATE, TOTAL_COST_USD, ERRORED, PASS_RATE_LO, PASS_RATE_HI];

/// How many `SUITES` columns `derived` adds at the end.
pub const SUITES_DERIVED: usize = 2;

/// `repairs`: one row per repair attempt.
pub const REPAIRS: [&str; 5] = [MODEL, TOOL, STAGE, LATENCY_US, SUCCEEDED];

/// `pairs`: one row per two models run on the same scenarios.
/// A and B in model order (two arms of one model: the earlier arm as A).
pub const PAIRS: [&str; 26] = [
    MODEL_A,
    MODEL_B,
    SHARED,
    BOTH_PASSED,
    ONLY_A,
    ONLY_B,
    NEITHER,
    PASS_RATE_A,
    PASS_RATE_B,
    P_VALUE,
    COST_A_USD,
    COST_B_USD,
    COST_RATIO,
    PAIR_KIND,
    ARM_A,
    ARM_B,
    MEAN_LATENCY_A_MS,
    MEAN_LATENCY_B_MS,
    LATENCY_RATIO,
    PASS_RATE_DIFF,
    DIFF_LO,
    DIFF_HI,
    DECISIVE,
    TRIALS_NEEDED,
    COST_NEEDED_USD,
    SCENARIOS_NEEDED,
];

/// `{rate}_lo` and `{rate}_hi`: the columns of a rate's 95% interval.
pub fn interval_of(rate: &str) -> (&'static str, &'static str) {
    match rate {
        PASS_RATE => (PASS_RATE_LO, PASS_RATE_HI),
        PASS_RATE_NO_REPAIR => (PASS_RATE_NO_REPAIR_LO, PASS_RATE_NO_REPAIR_HI),
        INVALID_RATE => (INVALID_RATE_LO, INVALID_RATE_HI),
        REPAIR_RATE => (REPAIR_RATE_LO, REPAIR_RATE_HI),
        other => panic!("{other} has no interval in the schema"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::DenialBehaviour;
    use crate::pipeline::InvalidKind;

    #[test]
    fn kind_columns_follow_the_enums() {
        assert_eq!(INVALID_KINDS, InvalidKind::ALL.map(|k| k.as_str()));
        assert_eq!(AFTER_DENIAL, DenialBehaviour::ALL.map(|b| b.column()));
    }

    #[test]
    fn each_table_names_a_column_once() {
        for table in [&SUMMARY[..], &BY_TOOL, &SCENARIO_RUNS, &BY_SCENARIO, &SUITES, &REPAIRS, &PAIRS] {
            let mut names = table.to_vec();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), table.len(), "{table:?}");
        }
        assert!(SUMMARY_DERIVED.iter().all(|c| SUMMARY.contains(c)));
    }
}
