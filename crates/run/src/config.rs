//! `calltape.toml`: the models to compare and how to run them. The file at
//! the project root is embedded in the binary as the default; a
//! `calltape.toml` in the working directory or `--config` replaces it, and
//! command-line flags override single settings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::pipeline::approval::ApprovalRule;

use crate::core::cassette::{CassetteSettings, CassetteSettingsError};
use crate::core::modes::{ApprovalMode, CassetteMode, RepairMode, Unanswered};
use crate::core::prices::{Prices, Tier};

/// The configuration shipped inside the binary.
pub const EMBEDDED_DEFAULT: &str = include_str!(concat!(env!("OUT_DIR"), "/calltape.toml"));

/// A configuration problem, with the file it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML, or not the shape of a configuration (an unknown key, a wrong type).
    #[error("{file}: {source}")]
    Syntax {
        file: String,
        #[source]
        source: toml::de::Error,
    },
    /// Well-formed, but a value is out of sense.
    #[error("{file}: {source}")]
    Invalid {
        file: String,
        #[source]
        source: ConfigProblem,
    },
    #[error("cannot read config {file}: {source}")]
    Read { file: String, source: std::io::Error },
    /// The embedded default's bundled suites could not be unpacked.
    #[error("{source}")]
    Bundled { source: crate::bundled::BundledError },
}

/// A value of a configuration that the types let through but calltape
/// cannot use; the message names the field (and the model) at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigProblem {
    /// A whole number outside its bounds (see [`limits`]).
    #[error("{field} must be between {min} and {max}, got {value}")]
    OutOfRange { field: String, min: u64, max: u64, value: u64 },
    /// A number that is not finite, negative, or above its bound.
    #[error("{field} must be a number between 0 and {max}, got {value}")]
    NotInRange { field: String, max: f64, value: f64 },
    /// A `[gate]` threshold that is NaN.
    #[error("gate.{name} is not a number")]
    GateNotANumber { name: &'static str },
    /// A model's name that cannot name it in reports and flags.
    #[error("models[{index}].name {name:?} must be non-empty, without control characters")]
    ModelName { index: usize, name: String },
    #[error("model {name:?} is defined twice")]
    DuplicateModel { name: String },
    #[error("model {name:?}: concurrency must be at least 1")]
    NoConcurrency { name: String },
    /// A model's response `limits`.
    #[error("model {model:?}: {source}")]
    Limits {
        model: String,
        #[source]
        source: crate::wire::body::LimitsError,
    },
    #[error("model {model:?}: simulated models make structured calls only; tool_format = \"text\" is for live models")]
    SimTextTools { model: String },
    #[error("model {model:?}: provider \"sim\" needs a [models.sim] table or a fitted `profile = \"FILE\"`")]
    SimWithoutProfile { model: String },
    /// A model's fitted `profile` file.
    #[error("model {model:?}: {source}")]
    Profile {
        model: String,
        #[source]
        source: Box<crate::sim::profile_file::ProfileError>,
    },
    #[error("model {model:?}: give either a fitted `profile` or a [models.sim] table, not both")]
    ProfileAndSim { model: String },
    /// `strict_tools` on a model whose requests cannot carry it.
    #[error("model {model:?}: {why} cannot honour strict_tools; {fix}")]
    StrictUnavailable { model: String, why: &'static str, fix: String },
    /// `[run.inject]` names a style the library does not have.
    #[error("run.inject.style: {0}")]
    InjectStyle(#[source] crate::scenario::suite_injection::UnknownStyle),
    /// A glob in a model's `scenarios` list that can never be used.
    #[error("model {model:?}: scenarios: {source}")]
    ScenarioGlob {
        model: String,
        #[source]
        source: crate::core::glob::GlobError,
    },
    /// A simulated model's `[models.sim]` table.
    #[error("model {model:?}: {source}")]
    Sim {
        model: String,
        #[source]
        source: crate::sim::SimProfileError,
    },
    #[error("pipeline.repair_model {name:?} is not a configured model")]
    UnknownRepairModel { name: String },
    #[error("run.arms names {name:?}, which is neither built in nor defined under [arms.{name}]; known arms: {}", known.join(", "))]
    UnknownArm { name: String, known: Vec<String> },
    #[error("--repair {repair}: no arm of the chosen models repairs {repair} ({}); run `--no-arms --repair {repair}` for one run without arms, or name an arm with --arms", describe_arms(left_out))]
    NoRepairArm { repair: &'static str, left_out: Vec<(String, Vec<String>)> },
    #[error("run.arms names {name:?} twice; each arm runs once")]
    DuplicateArm { name: String },
    #[error("arm name {name:?} must be a plain word (no spaces, `@`, `/` or `\\`): it becomes part of model names and cassette folders")]
    ArmName { name: String },
    #[error("model {name:?} has an `@` in its name, which arms use to name a model's variants (`MODEL@ARM`); rename it to run with arms")]
    AtInModelName { name: String },
    /// An approval rule's `tool` glob that can never be used.
    #[error("approval.rules[{index}].tool: {source}")]
    RuleGlob {
        index: usize,
        #[source]
        source: crate::core::glob::GlobError,
    },
    #[error("run.trials must be at least 1")]
    NoTrials,
    /// `[cassettes]`.
    #[error(transparent)]
    Cassettes(#[from] CassetteSettingsError),
    /// `--model NAME` (or a glob) that matches no configured model.
    #[error("unknown model {name:?}; configured models: {}", known.join(", "))]
    UnknownModel { name: String, known: Vec<String> },
}

/// The whole configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub run: RunSettings,
    #[serde(default)]
    pub pipeline: PipelineSettings,
    #[serde(default)]
    pub approval: ApprovalSettings,
    #[serde(default)]
    pub models: Vec<ModelConfig>,
    #[serde(default)]
    pub gate: crate::core::gate::Gate,
    #[serde(default)]
    pub cassettes: CassetteSettings,
    /// Arms defined here (`[arms.NAME]`), beside the built-in `off`, `local` and `full`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arms: BTreeMap<String, ArmSettings>,
    /// What MCP servers this configuration lets a run start (`[mcp]`).
    /// Never saved into a plan: only the user's own configuration allows.
    #[serde(default, skip_serializing)]
    pub mcp: McpSettings,
}

/// `[mcp]`: the MCP server commands a suite may start on this machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSettings {
    /// Command lines (program and arguments joined by spaces, as listed
    /// when a run refuses them) that suites may start without `--allow-mcp-commands`.
    #[serde(default)]
    pub allow_commands: Vec<String>,
}

/// What `--repair X` did to the models with arms ([`Config::keep_repair_arm`]).
#[derive(Debug, Default, PartialEq)]
pub struct RepairArms {
    /// (model, the one arm it keeps).
    pub arms: Vec<(String, String)>,
    /// (model, its arms) where no arm repairs X: left out of the run.
    pub left_out: Vec<(String, Vec<String>)>,
}

/// `model has arms a, b; …`: the models a `--repair` left out, and why.
pub fn describe_arms(models: &[(String, Vec<String>)]) -> String {
    models.iter().map(|(m, arms)| format!("{m} has arms {}", arms.join(", "))).collect::<Vec<_>>().join("; ")
}

/// What an arm changes for the models run under it (`[arms.NAME]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmSettings {
    /// The repair mode in this arm (default: `[pipeline] repair`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<RepairMode>,
    /// Provider strict mode for tool schemas in this arm (see `ModelConfig::strict_tools`;
    /// default: the model's own setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_tools: Option<bool>,
}

/// The built-in arms: one per repair mode, and `strict` (the provider
/// constrains calls to the schemas; no repair, so it measures that alone).
pub const BUILT_IN_ARMS: [(&str, RepairMode, bool); 4] = [
    ("off", RepairMode::Off, false),
    ("local", RepairMode::Local, false),
    ("full", RepairMode::Full, false),
    ("strict", RepairMode::Off, true),
];

/// The arm a model variant runs under: set when `[run] arms` expands each
/// configured model into one variant per arm, and kept in the run's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelArm {
    /// The arm's name (`off`).
    pub name: String,
    /// The configured model this is a variant of (`sim-cheap-types`).
    pub base: String,
    /// The repair mode of this variant's units.
    pub repair: RepairMode,
}

/// How a run is carried out.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSettings {
    /// Suite folders to run.
    pub suites: Vec<PathBuf>,
    /// Runs of every (model, scenario).
    pub trials: u32,
    /// Seed of the simulated models.
    pub seed: u64,
    /// Where run folders are written.
    pub out_dir: PathBuf,
    /// Step limit (model requests per scenario) where a scenario sets none.
    pub max_steps: u32,
    /// How models are answered: live, record, replay or auto (cassettes);
    /// a model's own `mode` overrides it.
    pub mode: CassetteMode,
    /// Set by `--mode`: the mode of every model, whatever they set.
    #[serde(skip)]
    pub mode_override: Option<CassetteMode>,
    /// Stop the run at the first request with no recording.
    pub fail_fast: bool,
    /// Arms every model runs under, paired (`--arms off,local,full`): each
    /// (model, scenario, trial) unit runs once per arm, as the model
    /// `NAME@ARM`. Empty: one run per unit, with `[pipeline]` as it is.
    pub arms: Vec<String>,
    /// A prompt injection for every scenario of the run's suites (or of
    /// those it names), each run clean and injected (`--inject STYLE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inject: Option<crate::scenario::suite_injection::SuiteInjection>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            suites: vec![PathBuf::from("scenarios/coding")],
            trials: 1,
            seed: 42,
            out_dir: PathBuf::from("reports"),
            max_steps: 8,
            mode: CassetteMode::Live,
            mode_override: None,
            fail_fast: false,
            arms: Vec::new(),
            inject: None,
        }
    }
}

/// What happens to an invalid call that repair could not fix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnInvalid {
    /// Its errors go back to the model as the tool result.
    #[default]
    ReturnError,
    /// The scenario fails at once.
    FailScenario,
}

/// Settings of the tool-call pipeline.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineSettings {
    pub on_invalid: OnInvalid,
    pub repair: RepairMode,
    /// Model repair attempts per tool call (counted per call id).
    pub max_repair_attempts: u32,
    /// The model asked to repair calls (by name); default: the model that made the call.
    pub repair_model: Option<String>,
    /// Per tool: parameter names models use instead of the schema's (`path = "target_file"`).
    pub aliases: BTreeMap<String, BTreeMap<String, String>>,
    /// Per tool: values filled in when a required parameter is missing.
    pub defaults: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
}

impl Default for PipelineSettings {
    fn default() -> Self {
        PipelineSettings {
            on_invalid: OnInvalid::ReturnError,
            repair: RepairMode::Full,
            max_repair_attempts: 1,
            repair_model: None,
            aliases: BTreeMap::new(),
            defaults: BTreeMap::new(),
        }
    }
}

/// Settings of the approval stage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApprovalSettings {
    /// The mode where a scenario sets none.
    pub mode: ApprovalMode,
    /// Set by `--approve`: the mode for every scenario, whatever they set.
    #[serde(skip)]
    pub mode_override: Option<ApprovalMode>,
    /// Tools that always need approval, besides those a scenario marks sensitive.
    pub sensitive_tools: Vec<String>,
    /// When approval is needed and no rule or person can answer.
    pub on_unanswered: Unanswered,
    /// Rules of `script` mode, after each scenario's own; their deny rules
    /// apply in every mode. Absent: the built-in guard rails.
    pub rules: Vec<ApprovalRule>,
    /// Whether `rules` also apply in `auto` mode, as guard rails (the first
    /// match decides; no match approves). Off, `auto` approves everything.
    pub deny_rules_in_auto: bool,
}

impl Default for ApprovalSettings {
    fn default() -> Self {
        ApprovalSettings {
            mode: ApprovalMode::Auto,
            mode_override: None,
            sensitive_tools: ["Bash", "Write", "Edit", "MultiEdit", "ApplyPatch", "run_terminal_cmd"].map(String::from).to_vec(),
            on_unanswered: Unanswered::Deny,
            rules: crate::pipeline::approval::guard_rails(),
            deny_rules_in_auto: true,
        }
    }
}

pub use crate::core::provider::ProviderKind;

/// One model to compare.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The name used in reports and on the command line.
    pub name: String,
    pub provider: ProviderKind,
    /// The provider's model id.
    pub model_id: String,
    pub tier: Tier,
    #[serde(default)]
    pub price: Prices,
    /// Requests in flight at once for this model.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Base URL of the API (live providers).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key (never the key).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Request timeout in seconds: the whole exchange, a stream included.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// How much of a live response is read: body and stream bytes, event
    /// size and count, idle time (`limits = { max_body_bytes = … }`).
    #[serde(default)]
    pub limits: crate::wire::body::ResponseLimits,
    /// Ask for a streamed (SSE) response.
    #[serde(default)]
    pub stream: bool,
    /// Retries of a request that failed with 429, 5xx, a timeout or a connection error.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// Requests per minute this model may be sent (unlimited if unset).
    #[serde(default)]
    pub requests_per_minute: Option<u32>,
    /// Tokens per minute (estimated from request size) this model may be sent.
    #[serde(default)]
    pub tokens_per_minute: Option<u64>,
    /// Upper bound on output tokens per request.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Sampling seed sent with each request, where the provider accepts one.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Extra HTTP headers (e.g. OpenRouter's `HTTP-Referer`); never put keys here.
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// The behaviour of a simulated model.
    #[serde(default)]
    pub sim: Option<crate::sim::SimProfile>,
    /// A fitted simulator profile file (`calltape sim fit` writes one),
    /// relative to the working directory as suites are, instead of `[models.sim]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Set on load from `profile`, never in a configuration file: what the
    /// fitted profile was fitted to, for the run header and reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<crate::sim::profile_file::FittedFrom>,
    /// This model's cassette mode, instead of `[run] mode` (`--mode` overrides both).
    #[serde(default)]
    pub mode: Option<CassetteMode>,
    /// How tools reach the model and calls come back: through the API's own
    /// tool fields (`native`), or described in the system prompt with calls
    /// read from the answer's text by calltape (`text`), so that output a
    /// server's tool parser would reject reaches the repair pipeline.
    #[serde(default)]
    pub tool_format: ToolFormat,
    /// Globs of the scenario ids this model runs (default: every scenario),
    /// for a model too slow or costly to run the whole suite. Reports say
    /// how many runs each model made, and pairs compare shared runs only.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// The most trials this model runs, whatever `[run] trials` or
    /// `--trials` ask (default: as many). For a real model replayed from
    /// recordings of that many trials: the trials beyond them have nothing
    /// to replay. Reports say how many runs each model made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_trials: Option<u32>,
    /// The arms this model runs under, instead of `[run] arms` (`[]`: none,
    /// one run per unit as configured), e.g. a slow local model on fewer arms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arms: Option<Vec<String>>,
    /// Set by `[run] arms`, never in a configuration file: the arm this
    /// variant of a configured model runs under (its name is `BASE@ARM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arm: Option<ModelArm>,
    /// Ask the provider to constrain calls to the tools' schemas (OpenAI's
    /// `strict: true` on each function, with the schema adjusted the way
    /// strict mode needs; see `provider::strict`). A tool whose schema strict
    /// mode cannot take errors the unit (`strict_unsupported`) rather than
    /// running it without. Only the OpenAI-compatible protocol (and the
    /// simulated models) honour it; other providers are refused.
    #[serde(default)]
    pub strict_tools: bool,
    /// The variant whose recordings this model replays when it has none of
    /// its own: with `--no-arms`, a recorded model runs once, and its arm
    /// that had the run's settings made the same exchanges. Set by the run
    /// (kept in plan.json, so a resume replays the same), not meant to be
    /// configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_as: Option<String>,
}

impl ModelConfig {
    /// Whether calltape computes this model's answers itself (a simulated
    /// model): nothing outside calltape answers it, so it is never recorded
    /// or replayed, whatever the mode.
    pub fn is_simulated(&self) -> bool {
        self.provider == ProviderKind::Sim
    }

    /// The configured model's name: the name, or a variant's base.
    pub fn base_name(&self) -> &str {
        self.arm.as_ref().map_or(&self.name, |a| &a.base)
    }

    /// The repair mode of this model's units: its arm's, else the configuration's.
    pub fn repair(&self, configured: RepairMode) -> RepairMode {
        self.arm.as_ref().map_or(configured, |a| a.repair)
    }

    /// The trials this model runs when the run asks for `run_trials`.
    pub fn trials(&self, run_trials: u32) -> u32 {
        self.max_trials.map_or(run_trials, |most| most.min(run_trials))
    }

    /// Whether this model runs the scenario with this id.
    pub fn runs(&self, scenario_id: &str) -> bool {
        self.scenarios.is_empty() || self.scenarios.iter().any(|g| crate::core::glob::glob_matches(g, scenario_id))
    }
}

/// See `ModelConfig::tool_format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolFormat {
    #[default]
    Native,
    Text,
}

fn default_concurrency() -> usize {
    4
}

fn default_max_retries() -> u32 {
    4
}

fn default_timeout() -> u64 {
    120
}

impl Config {
    /// Parses configuration text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|source| ConfigError::Syntax { file: origin.to_string(), source })?;
        config.load_profiles().map_err(|source| ConfigError::Invalid { file: origin.to_string(), source })?;
        config.validate().map_err(|source| ConfigError::Invalid { file: origin.to_string(), source })?;
        Ok(config)
    }

    /// The configuration to use: `explicit` if given, else `./calltape.toml`
    /// if present, else the embedded default. Returns it with its origin.
    pub fn discover(explicit: Option<&Path>) -> Result<(Config, String), ConfigError> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => Some(PathBuf::from("calltape.toml")).filter(|p| p.is_file()),
        };
        match path {
            Some(p) => {
                let origin = p.display().to_string();
                let text = std::fs::read_to_string(&p).map_err(|source| ConfigError::Read { file: origin.clone(), source })?;
                Ok((Config::parse(&text, &origin)?, origin))
            }
            None => Config::embedded_default(),
        }
    }

    /// The embedded default. Its suites and recordings are read from the
    /// working directory when it holds them all (the repository); anywhere
    /// else from the copies compiled into the binary (`crate::bundled`).
    fn embedded_default() -> Result<(Config, String), ConfigError> {
        let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded calltape.toml")?;
        let here = config.run.suites.iter().chain([&config.cassettes.dir]).all(|p| p.is_dir());
        if here {
            return Ok((config, "embedded default".into()));
        }
        let root = crate::bundled::unpacked().map_err(|source| ConfigError::Bundled { source })?;
        config.run.suites = config.run.suites.iter().map(|p| root.join(p)).collect();
        config.cassettes.dir = root.join(&config.cassettes.dir);
        Ok((config, format!("embedded default, bundled suites in {}", root.display())))
    }

    /// Fills the `sim` of each model with a fitted `profile` from its file,
    /// read from the working directory as suites are (else the bundled copy
    /// of that path, for the embedded default).
    fn load_profiles(&mut self) -> Result<(), ConfigProblem> {
        let base = Path::new(".");
        for m in &mut self.models {
            let Some(path) = &m.profile else { continue };
            if m.sim.is_some() && m.fitted.is_none() {
                return Err(ConfigProblem::ProfileAndSim { model: m.name.clone() });
            }
            let (sim, fitted) = crate::sim::profile_file::load(path, base)
                .map_err(|e| ConfigProblem::Profile { model: m.name.clone(), source: Box::new(e) })?;
            m.sim = Some(sim);
            m.fitted = Some(fitted);
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ConfigProblem> {
        self.check_numbers()?;
        if let Some(inject) = &self.run.inject {
            inject.check().map_err(ConfigProblem::InjectStyle)?;
        }
        let mut names = BTreeSet::new();
        for m in &self.models {
            let model = || m.name.clone();
            if !names.insert(&m.name) {
                return Err(ConfigProblem::DuplicateModel { name: model() });
            }
            if m.concurrency == 0 {
                return Err(ConfigProblem::NoConcurrency { name: model() });
            }
            m.limits.validate().map_err(|source| ConfigProblem::Limits { model: model(), source })?;
            if m.provider == ProviderKind::Sim && m.tool_format == ToolFormat::Text {
                return Err(ConfigProblem::SimTextTools { model: model() });
            }
            if m.provider == ProviderKind::Sim && m.sim.is_none() {
                return Err(ConfigProblem::SimWithoutProfile { model: model() });
            }
            if m.strict_tools {
                let why = match (m.provider, m.tool_format) {
                    (_, ToolFormat::Text) => Some("tool_format = \"text\" (tools described in the prompt)"),
                    (ProviderKind::Anthropic, _) => Some("provider anthropic (not implemented in calltape)"),
                    (ProviderKind::Gemini, _) => Some("provider gemini (its API has no strict flag for tools)"),
                    (ProviderKind::Sim | ProviderKind::Openai, ToolFormat::Native) => None,
                };
                if let Some(why) = why {
                    // Set by an arm, or by the model itself: say which to change.
                    let fix = match &m.arm {
                        Some(arm) => format!("leave the arm {:?} out for {:?} (its own `arms = [...]`, or --arms)", arm.name, arm.base),
                        None => "remove `strict_tools = true` from this model".to_string(),
                    };
                    return Err(ConfigProblem::StrictUnavailable { model: model(), why, fix });
                }
            }
            for glob in &m.scenarios {
                crate::core::glob::glob_check(glob).map_err(|source| ConfigProblem::ScenarioGlob { model: model(), source })?;
            }
            if let Some(sim) = &m.sim {
                sim.validate().map_err(|source| ConfigProblem::Sim { model: model(), source })?;
            }
        }
        self.check_arms()?;
        if let Some(r) = &self.pipeline.repair_model {
            if !self.models.iter().any(|m| &m.name == r || m.base_name() == r) {
                return Err(ConfigProblem::UnknownRepairModel { name: r.clone() });
            }
        }
        for (index, rule) in self.approval.rules.iter().enumerate() {
            crate::core::glob::glob_check(&rule.tool).map_err(|source| ConfigProblem::RuleGlob { index, source })?;
        }
        if self.run.trials == 0 {
            return Err(ConfigProblem::NoTrials);
        }
        Ok(self.cassettes.validate()?)
    }

    /// Checks a configuration that did not come through `parse` (a run
    /// folder's `plan.json`, or one changed by flags) as `parse` would.
    pub fn check(&self) -> Result<(), ConfigProblem> {
        self.validate()
    }

    /// Every number within sense, named by its field: a number that is not
    /// finite, negative where it cannot be, or absurdly large would
    /// otherwise become a panic, a hang or a nonsense report later.
    fn check_numbers(&self) -> Result<(), ConfigProblem> {
        let in_range = |field: String, value: u64, max: u64, min: u64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ConfigProblem::OutOfRange { field, min, max, value })
            }
        };
        let finite = |field: String, value: f64, max: f64| {
            if value.is_finite() && (0.0..=max).contains(&value) {
                Ok(())
            } else {
                Err(ConfigProblem::NotInRange { field, max, value })
            }
        };
        in_range("run.trials".into(), self.run.trials.into(), limits::MAX_TRIALS, 1)?;
        in_range("run.max_steps".into(), self.run.max_steps.into(), limits::MAX_STEPS, 1)?;
        in_range("pipeline.max_repair_attempts".into(), self.pipeline.max_repair_attempts.into(), limits::MAX_REPAIR_ATTEMPTS, 0)?;
        let gate = &self.gate;
        for (name, value) in [
            ("max_pass_rate_drop", gate.max_pass_rate_drop),
            ("max_invalid_rate_rise", gate.max_invalid_rate_rise),
            ("max_cost_rise", gate.max_cost_rise),
            ("max_p95_latency_rise", gate.max_p95_latency_rise),
        ] {
            if value.is_nan() {
                return Err(ConfigProblem::GateNotANumber { name });
            }
        }
        for (i, m) in self.models.iter().enumerate() {
            let field = |name: &str| format!("models[{i}] ({:?}).{name}", m.name);
            in_range(field("concurrency"), m.concurrency as u64, limits::MAX_CONCURRENCY, 1)?;
            in_range(field("timeout_secs"), m.timeout_secs, limits::MAX_TIMEOUT_SECS, 1)?;
            in_range(field("max_retries"), m.max_retries.into(), limits::MAX_RETRIES, 0)?;
            if let Some(most) = m.max_trials {
                in_range(field("max_trials"), most.into(), limits::MAX_TRIALS, 1)?;
            }
            finite(field("price.input"), m.price.input, limits::MAX_PRICE)?;
            finite(field("price.output"), m.price.output, limits::MAX_PRICE)?;
            finite(field("price.cached_input"), m.price.cached_input, limits::MAX_PRICE)?;
            if let Some(t) = m.temperature {
                finite(field("temperature"), t, limits::MAX_TEMPERATURE)?;
            }
            if let Some(sim) = &m.sim {
                finite(field("sim.latency_ms"), sim.latency_ms, limits::MAX_SIM_LATENCY_MS)?;
                finite(field("sim.ms_per_output_token"), sim.ms_per_output_token, limits::MAX_SIM_LATENCY_MS)?;
            }
            if m.name.is_empty() || m.name.chars().any(char::is_control) {
                return Err(ConfigProblem::ModelName { index: i, name: m.name.clone() });
            }
        }
        Ok(())
    }

    /// The cassette mode a model's units run in: `--mode`, else the model's
    /// own `mode`, else `[run] mode`.
    pub fn mode_for(&self, model: &ModelConfig) -> CassetteMode {
        self.run.mode_override.or(model.mode).unwrap_or(self.run.mode)
    }

    /// Whether a model's requests go to its provider over the network:
    /// simulated models answer in-process and replayed ones from cassettes.
    pub fn reaches_provider(&self, model: &ModelConfig) -> bool {
        !model.is_simulated() && self.mode_for(model) != CassetteMode::Replay
    }

    /// Keeps only the named models, in the order named; a name may be a glob
    /// (`sim-*`). A name that matches no model is an error listing the known ones.
    pub fn select_models(&mut self, names: &[String]) -> Result<(), ConfigProblem> {
        if names.is_empty() {
            return Ok(());
        }
        let mut chosen: Vec<ModelConfig> = Vec::new();
        // A name may also be one of a model's arm variants (`sim-strong@off`):
        // the model is chosen here, and `keep_variants` keeps that arm alone.
        let matches = |n: &str, m: &ModelConfig| {
            crate::core::glob::glob_matches(n, &m.name)
                || self.arms_of(m).iter().any(|a| crate::core::glob::glob_matches(n, &format!("{}@{a}", m.name)))
        };
        for n in names {
            let matching: Vec<&ModelConfig> = self.models.iter().filter(|m| matches(n, m)).collect();
            if matching.is_empty() {
                let known = self.models.iter().map(|m| m.name.clone()).collect();
                return Err(ConfigProblem::UnknownModel { name: n.clone(), known });
            }
            for m in matching {
                if !chosen.iter().any(|c| c.name == m.name) {
                    chosen.push(m.clone());
                }
            }
        }
        self.models = chosen;
        Ok(())
    }

    /// After `expand_arms`, the variants `--model` names: every variant of a
    /// model named (or matched) as it is configured, and the variants named
    /// as `MODEL@ARM`.
    pub fn keep_variants(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let named = |name: &str| names.iter().any(|n| crate::core::glob::glob_matches(n, name));
        self.models.retain(|m| named(&m.name) || named(m.base_name()));
    }

    /// `--repair X` on models with arms: each keeps the one arm that repairs
    /// X (the first such arm without strict tools, else the first such arm),
    /// so the flag picks an arm instead of being overridden by every arm.
    /// Models with no such arm are left out; models without arms keep
    /// running as `[pipeline] repair` says. Call before `expand_arms`.
    pub fn keep_repair_arm(&mut self, repair: RepairMode) -> Result<RepairArms, ConfigProblem> {
        self.check_arms()?;
        let mut picked = RepairArms::default();
        let mut kept = Vec::with_capacity(self.models.len());
        for m in std::mem::take(&mut self.models) {
            let arms = self.arms_of(&m).to_vec();
            if arms.is_empty() {
                kept.push(m);
                continue;
            }
            let repairs = |name: &String| self.arm(name).and_then(|a| a.repair).unwrap_or(self.pipeline.repair) == repair;
            let plain = |name: &String| self.arm(name).and_then(|a| a.strict_tools) != Some(true);
            let arm = arms.iter().find(|a| repairs(a) && plain(a)).or_else(|| arms.iter().find(|a| repairs(a)));
            match arm {
                Some(arm) => {
                    picked.arms.push((m.name.clone(), arm.clone()));
                    let mut m = m;
                    m.arms = Some(vec![arm.clone()]);
                    kept.push(m);
                }
                None => picked.left_out.push((m.name.clone(), arms)),
            }
        }
        if kept.is_empty() {
            return Err(ConfigProblem::NoRepairArm { repair: repair.as_str(), left_out: picked.left_out });
        }
        self.models = kept;
        Ok(picked)
    }

    /// The arms a configured model runs under: its own, else `[run] arms`.
    fn arms_of<'c>(&'c self, m: &'c ModelConfig) -> &'c [String] {
        m.arms.as_deref().unwrap_or(&self.run.arms)
    }

    /// The settings of the arm `name`: defined in `[arms]`, else built in.
    pub fn arm(&self, name: &str) -> Option<ArmSettings> {
        self.arms.get(name).cloned().or_else(|| {
            BUILT_IN_ARMS
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|(_, repair, strict)| ArmSettings { repair: Some(*repair), strict_tools: Some(*strict) })
        })
    }

    /// Every arm named in `[run] arms` exists, none twice, and no model
    /// name already holds the `@` a variant's name is made with.
    fn check_arms(&self) -> Result<(), ConfigProblem> {
        for list in std::iter::once(&self.run.arms).chain(self.models.iter().filter_map(|m| m.arms.as_ref())) {
            self.check_arm_list(list)?;
        }
        Ok(())
    }

    /// One list of arms: each known, none twice, a plain word.
    fn check_arm_list(&self, arms: &[String]) -> Result<(), ConfigProblem> {
        let mut seen = BTreeSet::new();
        for name in arms {
            if self.arm(name).is_none() {
                let mut known: Vec<String> = BUILT_IN_ARMS.iter().map(|(n, _, _)| n.to_string()).collect();
                known.extend(self.arms.keys().filter(|k| !known.contains(k)).cloned().collect::<Vec<_>>());
                return Err(ConfigProblem::UnknownArm { name: name.clone(), known });
            }
            if name.is_empty() || name.contains(['@', '/', '\\']) || name.chars().any(char::is_whitespace) {
                return Err(ConfigProblem::ArmName { name: name.clone() });
            }
            if !seen.insert(name) {
                return Err(ConfigProblem::DuplicateArm { name: name.clone() });
            }
        }
        Ok(())
    }

    /// With `[run] arms`, each model becomes one variant per arm, in arm
    /// order (`sim-strong@off`, `sim-strong@full`, …): the units of a model
    /// are paired across arms by (suite, scenario, trial). Done once, when a
    /// plan is made; a plan's models are already expanded.
    pub fn expand_arms(&mut self) -> Result<(), ConfigProblem> {
        self.check_arms()?;
        if self.models.iter().any(|m| m.arm.is_some()) {
            return Ok(());
        }
        let mut variants = Vec::with_capacity(self.models.len() * self.run.arms.len().max(1));
        for m in &self.models {
            let arms = self.arms_of(m);
            if arms.is_empty() {
                variants.push(m.clone());
                continue;
            }
            if m.name.contains('@') {
                return Err(ConfigProblem::AtInModelName { name: m.name.clone() });
            }
            for name in arms {
                let settings = self.arm(name).unwrap_or_default();
                let mut v = m.clone();
                v.name = format!("{}@{name}", m.name);
                v.arm =
                    Some(ModelArm { name: name.clone(), base: m.name.clone(), repair: settings.repair.unwrap_or(self.pipeline.repair) });
                v.strict_tools = settings.strict_tools.unwrap_or(m.strict_tools);
                variants.push(v);
            }
        }
        self.models = variants;
        Ok(())
    }
}

/// The bounds `Config::check_numbers` holds every configuration and plan to.
pub mod limits {
    /// Trials of every (model, scenario).
    pub const MAX_TRIALS: u64 = 10_000;
    /// Model requests per scenario.
    pub const MAX_STEPS: u64 = 10_000;
    /// Model repair attempts per call.
    pub const MAX_REPAIR_ATTEMPTS: u64 = 100;
    /// Requests in flight at once for one model.
    pub const MAX_CONCURRENCY: u64 = 4_096;
    /// A request's timeout: one day.
    pub const MAX_TIMEOUT_SECS: u64 = 86_400;
    /// Retries of one request.
    pub const MAX_RETRIES: u64 = 100;
    /// USD per million tokens.
    pub const MAX_PRICE: f64 = 1e6;
    pub const MAX_TEMPERATURE: f64 = 100.0;
    /// A simulated model's latency, per request or per token: ten minutes.
    pub const MAX_SIM_LATENCY_MS: f64 = 600_000.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_configuration_without_approval_rules_gets_the_guard_rails() {
        let config = Config::parse("[approval]\nmode = \"deny\"\n", "test").unwrap();
        assert_eq!(config.approval.rules, crate::pipeline::approval::guard_rails());
    }

    /// The commented live-model examples must stay valid: uncomment every
    /// `# key = value` line after the first commented `[[models]]` and parse.
    #[test]
    fn commented_live_examples_parse_when_uncommented() {
        let start = EMBEDDED_DEFAULT.find("# [[models]]").expect("the default has commented examples");
        let text: String = EMBEDDED_DEFAULT[start..]
            .lines()
            .filter_map(|l| l.strip_prefix("# ").filter(|l| l.starts_with('[') || l.contains(" = ")))
            .map(|l| format!("{l}\n"))
            .collect();
        let c = Config::parse(&text, "examples").unwrap();
        let providers: Vec<ProviderKind> = c.models.iter().map(|m| m.provider).collect();
        assert!(providers.contains(&ProviderKind::Openai) && providers.contains(&ProviderKind::Anthropic));
        assert!(
            providers.contains(&ProviderKind::Gemini) && c.models.len() == 5,
            "{:?}",
            c.models.iter().map(|m| &m.name).collect::<Vec<_>>()
        );
    }

    #[test]
    fn embedded_default_parses() {
        let c = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
        assert!(c.models.len() >= 8);
        assert!(c.models.iter().any(|m| m.tier == Tier::Strong));
    }

    #[test]
    fn unknown_key_is_an_error_naming_it() {
        let err = Config::parse("[run]\ntrails = 3\n", "x.toml").unwrap_err().to_string();
        assert!(err.starts_with("x.toml: "), "{err}");
        assert!(err.contains("trails"), "{err}");
    }

    #[test]
    fn mode_comes_from_the_flag_then_the_model_then_the_run() {
        let mut c = Config::parse(
            "[run]\nmode = \"auto\"\n[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel_id = \"a\"\ntier = \"cheap\"\nmode = \"replay\"\n\n[[models]]\nname = \"b\"\nprovider = \"openai\"\nmodel_id = \"b\"\ntier = \"cheap\"\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(c.mode_for(&c.models[0]), CassetteMode::Replay);
        assert_eq!(c.mode_for(&c.models[1]), CassetteMode::Auto);
        c.run.mode_override = Some(CassetteMode::Record);
        assert_eq!(c.mode_for(&c.models[0]), CassetteMode::Record);
        assert_eq!(Config::parse("", "x.toml").unwrap().run.mode, CassetteMode::Live, "a config that says nothing runs live");
        let err = Config::parse("[cassettes]\nspeed = 0\n", "x.toml").unwrap_err().to_string();
        assert!(err.contains("cassettes.speed"), "{err}");
    }

    #[test]
    fn numbers_out_of_sense_are_errors_naming_the_field() {
        let model = "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel_id = \"a\"\ntier = \"cheap\"\n";
        for (extra, field) in [
            ("concurrency = 0\n", "concurrency"),
            ("concurrency = 100000000\n", "concurrency"),
            ("timeout_secs = 0\n", "timeout_secs"),
            ("temperature = nan\n", "temperature"),
            ("temperature = -1.0\n", "temperature"),
            ("price = { input = inf }\n", "price.input"),
            ("price = { output = -2.0 }\n", "price.output"),
            ("max_retries = 1000000\n", "max_retries"),
        ] {
            let err = Config::parse(&format!("{model}{extra}"), "x.toml").unwrap_err().to_string();
            assert!(err.contains(field), "{extra}: {err}");
        }
        // A glob that can never be used is named where it is loaded.
        let rule = "[[approval.rules]]\ntool = \"git_[\"\ndecision = \"deny\"\n";
        let err = Config::parse(rule, "x.toml").unwrap_err().to_string();
        assert!(err.contains("approval.rules[0].tool: invalid glob \"git_[\""), "{err}");
        let rule = "[[approval.rules]]\ntool = \"Bash\"\ndecision = \"deny\"\nwhen.command = { program = [\"r{m\"] }\n";
        let err = Config::parse(rule, "x.toml").unwrap_err().to_string();
        assert!(err.contains("invalid glob \"r{m\""), "{err}");
        let err = Config::parse("[run]\ntrials = 4000000000\n", "x.toml").unwrap_err().to_string();
        assert!(err.contains("run.trials"), "{err}");
        let err = Config::parse("[run]\nmax_steps = 0\n", "x.toml").unwrap_err().to_string();
        assert!(err.contains("run.max_steps"), "{err}");
    }

    #[test]
    fn selecting_an_unknown_model_lists_the_known() {
        let mut c = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
        let err = c.select_models(&["gpt-9".into()]).unwrap_err().to_string();
        assert!(err.starts_with("unknown model \"gpt-9\"; configured models: "), "{err}");
        assert!(err.contains("configured models: sim-strong, sim-cheap-types, "), "{err}");
    }

    /// The messages users and scripts read, byte for byte, each with the
    /// error it came from kept as its source.
    #[test]
    fn problems_read_as_before_and_keep_their_sources() {
        use std::error::Error;
        let model = "[[models]]\nname = \"s\"\nprovider = \"sim\"\nmodel_id = \"s\"\ntier = \"cheap\"\n";
        let cases = [
            ("[run]\ntrials = 0\n", "x.toml: run.trials must be between 1 and 10000, got 0", false),
            (&format!("{model}price = {{ input = -1.0 }}\n[models.sim]\n"), "x.toml: models[0] (\"s\").price.input must be a number between 0 and 1000000, got -1", false),
            (&format!("{model}[models.sim]\nfault_rate = 2.0\n"), "x.toml: model \"s\": sim.fault_rate must be between 0 and 1, got 2", true),
            (&format!("{model}[models.sim]\nfault_rate = 0.5\n"), "x.toml: model \"s\": sim.fault_rate is set but sim.faults lists no fault kinds", true),
            (&format!("{model}limits = {{ max_event_bytes = 0 }}\n[models.sim]\n"), "x.toml: model \"s\": limits.max_event_bytes must be at least 1", true),
            (model, "x.toml: model \"s\": provider \"sim\" needs a [models.sim] table or a fitted `profile = \"FILE\"`", false),
            (&format!("{model}profile = \"no/such.toml\"\n"), "x.toml: model \"s\": profile ./no/such.toml: No such file or directory (os error 2); write the file with `calltape sim fit RUN_DIR --model NAME --out ./no/such.toml`", true),
            (&format!("{model}profile = \"profiles/qwen2.5-coder-0.5b.toml\"\n[models.sim]\n"), "x.toml: model \"s\": give either a fitted `profile` or a [models.sim] table, not both", false),
            (&format!("{model}tool_format = \"text\"\n[models.sim]\n"), "x.toml: model \"s\": simulated models make structured calls only; tool_format = \"text\" is for live models", false),
            (&format!("{model}[models.sim]\n{model}[models.sim]\n"), "x.toml: model \"s\" is defined twice", false),
            (&format!("{model}scenarios = [\"a[\"]\n[models.sim]\n"), "x.toml: model \"s\": scenarios: invalid glob \"a[\": a `[` is never closed by `]` (quote a special character with \\, e.g. \\[)", true),
            ("[pipeline]\nrepair_model = \"m\"\n", "x.toml: pipeline.repair_model \"m\" is not a configured model", false),
            ("[gate]\nmax_cost_rise = nan\n", "x.toml: gate.max_cost_rise is not a number", false),
            (&format!("{}[models.sim]\n", model.replace("\"s\"\nprovider", "\"\"\nprovider")), "x.toml: models[0].name \"\" must be non-empty, without control characters", false),
            ("[cassettes]\nignore_fields = [\"\"]\n", "x.toml: cassettes.ignore_fields holds an empty name (\"\")", false),
        ];
        for (text, message, has_source) in cases {
            let err = Config::parse(text, "x.toml").unwrap_err();
            assert_eq!(err.to_string(), message, "{text}");
            let problem = err.source().expect("the problem is the source");
            assert_eq!(problem.source().is_some(), has_source, "{text}: {problem}");
        }
        let err = Config::parse("[run]\ntrails = 3\n", "x.toml").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err}");
        assert_eq!(err.to_string(), format!("x.toml: {}", err.source().expect("the toml error is kept")));
    }
}
