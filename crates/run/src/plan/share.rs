//! A shard's share of its models' provider limits. The n shards of a plan
//! usually run at once (a CI matrix) against one provider account, so by
//! default each takes 1/n of every limit a model that reaches a provider is
//! configured with — `requests_per_minute`, `tokens_per_minute` and
//! `concurrency` — and together they ask for what one run would.
//! Simulated models (answered in-process) and replayed ones (answered from
//! cassettes) send nothing to a provider and keep their figures.
//!
//! The division is made once, when a new plan is made: the saved plan holds
//! the figures the shard runs with, every consumer (the live transport's
//! rate limiter, the runner's lanes) reads them from the configuration, and
//! `--resume` runs with them as saved, never dividing again.

use serde::{Deserialize, Serialize};

use super::{RunPlan, Shard};
use crate::config::ModelConfig;

/// `--shard-limits`: what each shard gets of its models' provider limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ShardLimits {
    /// 1/n of each limit, rounded down, at least 1: n shards running at once stay within them.
    #[default]
    Share,
    /// The limits as configured: for shards run one at a time, or each with its own figures in its configuration.
    Whole,
}

/// A limit divided among `count` shards: rounded down, never below 1. A
/// rate of 0, which the rate limiter reads as no limit, stays 0.
fn share_of(limit: u64, count: u32) -> u64 {
    if limit == 0 {
        return 0;
    }
    (limit / u64::from(count.max(1))).max(1)
}

impl RunPlan {
    /// The shard whose models' limits this plan divides: a shard of more
    /// than one with `--shard-limits share`.
    fn sharing(&self) -> Option<Shard> {
        self.shard.filter(|s| s.count > 1 && self.shard_limits == Some(ShardLimits::Share))
    }

    /// The models whose limits are divided among the shards: those that
    /// reach a provider in the cassette mode the plan runs them in.
    fn shared_models(&self) -> impl Iterator<Item = &ModelConfig> {
        let run = self.sharing().map(|_| self.effective_config());
        self.config.models.iter().filter(move |m| run.as_ref().is_some_and(|run| run.reaches_provider(m)))
    }

    /// This plan as shard `shard`, each model that reaches a provider given
    /// what `limits` says of its limits (see the module's doc); unset rates
    /// stay unset. Made once, on a new plan: a saved plan already holds the
    /// divided figures, and is never divided again.
    pub fn into_shard(mut self, shard: Shard, limits: ShardLimits) -> RunPlan {
        self.shard = Some(shard);
        self.shard_limits = Some(limits);
        if self.sharing().is_none() {
            return self;
        }
        let shared: Vec<String> = self.shared_models().map(|m| m.name.clone()).collect();
        let count = shard.count;
        for m in self.config.models.iter_mut().filter(|m| shared.contains(&m.name)) {
            // A share is never more than the limit: it fits the limit's type.
            m.requests_per_minute = m.requests_per_minute.map(|r| u32::try_from(share_of(r.into(), count)).unwrap_or(r));
            m.tokens_per_minute = m.tokens_per_minute.map(|t| share_of(t, count));
            m.concurrency = usize::try_from(share_of(m.concurrency as u64, count)).unwrap_or(m.concurrency);
        }
        self
    }

    /// What each model whose limits were divided gets, one line each, for
    /// the start of a run (none unless the plan divides some model's limits).
    pub fn shared_limits_lines(&self) -> Vec<String> {
        let Some(Shard { index, count }) = self.sharing() else { return Vec::new() };
        self.shared_models()
            .map(|m| {
                let rates = [
                    m.requests_per_minute.map(|r| format!("{r} requests/min")),
                    m.tokens_per_minute.map(|t| format!("{t} tokens/min")),
                    Some(format!("{} concurrent", m.concurrency)),
                ];
                let figures: Vec<String> = rates.into_iter().flatten().collect();
                format!(
                    "shard {index}/{count}: {} gets {} (1/{count} of its limits; --shard-limits whole keeps them whole)",
                    m.name,
                    figures.join(", ")
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::core::modes::CassetteMode;

    /// A live model with every limit set, one with none, a replayed one and a simulated one.
    const MODELS: &str = r#"
[[models]]
name = "gpt"
provider = "openai"
model_id = "gpt-4.1-mini"
tier = "cheap"
requests_per_minute = 500
tokens_per_minute = 200001
concurrency = 6

[[models]]
name = "claude"
provider = "anthropic"
model_id = "c"
tier = "cheap"
concurrency = 3

[[models]]
name = "replayed"
provider = "openai"
model_id = "r"
tier = "cheap"
mode = "replay"
requests_per_minute = 500
concurrency = 8

[[models]]
name = "sim"
provider = "sim"
model_id = "s"
tier = "cheap"
requests_per_minute = 500
concurrency = 8
[models.sim]
"#;

    /// The limits of each model: (requests/min, tokens/min, concurrency).
    type Limits = (Option<u32>, Option<u64>, usize);

    fn configured() -> RunPlan {
        RunPlan::whole(Config::parse(MODELS, "t.toml").unwrap(), "t.toml")
    }

    fn shard_plan(index: u32, count: u32, limits: ShardLimits) -> RunPlan {
        configured().into_shard(Shard { index, count }, limits)
    }

    fn limits(plan: &RunPlan) -> Vec<Limits> {
        plan.config.models.iter().map(|m| (m.requests_per_minute, m.tokens_per_minute, m.concurrency)).collect()
    }

    const CONFIGURED: [Limits; 4] = [(Some(500), Some(200_001), 6), (None, None, 3), (Some(500), None, 8), (Some(500), None, 8)];

    #[test]
    fn a_share_is_rounded_down_and_never_below_one() {
        assert_eq!(share_of(500, 4), 125);
        assert_eq!(share_of(7, 2), 3);
        assert_eq!(share_of(3, 4), 1);
        assert_eq!(share_of(1, 4), 1);
        assert_eq!(share_of(9, 1), 9);
        assert_eq!(share_of(0, 4), 0, "no limit stays no limit");
    }

    #[test]
    fn each_shard_takes_its_share_of_the_models_that_reach_a_provider() {
        let plan = shard_plan(2, 4, ShardLimits::Share);
        // Rates divided and rounded down, concurrency at least 1, unset stays
        // unset; the replayed and the simulated model keep theirs.
        assert_eq!(limits(&plan), [(Some(125), Some(50_000), 1), (None, None, 1), CONFIGURED[2], CONFIGURED[3]]);
        assert_eq!(
            plan.shared_limits_lines(),
            [
                "shard 2/4: gpt gets 125 requests/min, 50000 tokens/min, 1 concurrent (1/4 of its limits; --shard-limits whole keeps them whole)",
                "shard 2/4: claude gets 1 concurrent (1/4 of its limits; --shard-limits whole keeps them whole)",
            ]
        );

        // `--mode replay` sends nothing anywhere: nothing is divided.
        let mut replayed = configured();
        replayed.mode = Some(CassetteMode::Replay);
        let replayed = replayed.into_shard(Shard { index: 1, count: 2 }, ShardLimits::Share);
        assert_eq!(limits(&replayed), CONFIGURED);
        assert!(replayed.shared_limits_lines().is_empty());
        // `--mode record` reaches the provider, with the replayed model too.
        let mut recorded = configured();
        recorded.mode = Some(CassetteMode::Record);
        let recorded = recorded.into_shard(Shard { index: 1, count: 2 }, ShardLimits::Share);
        assert_eq!(limits(&recorded)[2], (Some(250), None, 4));
        assert_eq!(limits(&recorded)[3], CONFIGURED[3], "a simulated model is never divided");
    }

    #[test]
    fn whole_limits_one_shard_and_no_shard_keep_the_configured_figures() {
        for plan in [shard_plan(2, 4, ShardLimits::Whole), shard_plan(1, 1, ShardLimits::Share), configured()] {
            assert_eq!(limits(&plan), CONFIGURED, "{:?} {:?}", plan.shard, plan.shard_limits);
            assert!(plan.shared_limits_lines().is_empty());
        }
    }

    /// A resumed shard runs with the figures its plan was saved with and
    /// says so again; a plan saved before `--shard-limits` existed (its
    /// shards kept whole limits) says nothing.
    #[test]
    fn a_saved_plan_keeps_the_divided_figures_for_its_resume() {
        let mut plan = shard_plan(1, 2, ShardLimits::Share);
        plan.config.run.suites = vec!["scenarios/coding".into()];
        let out = tempfile::tempdir().unwrap();
        let (_, dir) = crate::run_folder::create_run_folder(out.path(), "r").unwrap();
        plan.save(&dir).unwrap();
        let path = dir.join(super::super::PLAN_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"shard_limits\": \"share\""), "{text}");
        let loaded = RunPlan::load(&dir).unwrap();
        assert_eq!(loaded.shard_limits, Some(ShardLimits::Share));
        assert_eq!(limits(&loaded)[0], (Some(250), Some(100_000), 3));
        assert_eq!(loaded.shared_limits_lines(), plan.shared_limits_lines());

        let old = text.replace("\"shard_limits\": \"share\",", "").replace(",\n  \"shard_limits\": \"share\"", "");
        assert!(!old.contains("shard_limits"), "{old}");
        std::fs::write(&path, old).unwrap();
        let loaded = RunPlan::load(&dir).unwrap();
        assert_eq!(loaded.shard_limits, None);
        assert!(loaded.shared_limits_lines().is_empty());
    }
}
