//! Scenarios: one task for a model — messages, tools, scripted tool results,
//! and what counts as success. This module holds the types; `load` reads
//! suites from disk and `matcher` decides whether a value matches a rule.

mod bfcl_answer;
mod build;
pub mod injection;
mod load;
mod mcp_toolset;
mod source;
mod spans;
pub mod suite_injection;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::core::tools::ToolSpec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::matcher::ValueMatcher;
use crate::pipeline::tool::Tool;
use crate::world::{StateCheck, Workspace};
pub use load::{load_suite, load_suites, load_suites_injected, parse_scenario_file};
pub use mcp_toolset::McpToolset;
pub use source::LoadError;
// Scripted results are the pipeline's execute stage's input too, so they live in `core`.
pub use crate::core::scripted::{ArgConditions, ToolResultRule};

/// Who speaks a scripted message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptedRole {
    System,
    User,
    /// An earlier answer of the model, scripted (no tool calls).
    Assistant,
}

/// A scripted message of the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedMessage {
    pub role: ScriptedRole,
    pub content: String,
}

/// A call the scenario expects: the tool and, per argument, the acceptable
/// values (BFCL's rule: `""` in the list means the argument may be omitted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedCall {
    pub tool: String,
    #[serde(default)]
    pub args: BTreeMap<String, Alternatives>,
    /// The arguments exactly as a right answer sends them, where the call
    /// comes from a key that says them (BFCL multi-turn ground truth: an
    /// empty string there is a value, not "may be omitted").
    #[serde(skip)]
    pub exact: Option<serde_json::Map<String, Value>>,
}

impl ExpectedCall {
    /// The arguments a right answer sends: each argument's first plain value.
    pub fn canonical_args(&self) -> serde_json::Map<String, Value> {
        if let Some(exact) = &self.exact {
            return exact.clone();
        }
        self.args.iter().filter_map(|(k, alts)| alts.canonical().map(|v| (k.clone(), v.clone()))).collect()
    }
}

/// Acceptable values of one argument: a list, or a single value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
pub struct Alternatives(pub Vec<ValueMatcher>);

impl TryFrom<Value> for Alternatives {
    type Error = String;

    fn try_from(v: Value) -> Result<Self, String> {
        let items = match v {
            Value::Array(items) => items,
            other => vec![other],
        };
        items.into_iter().map(ValueMatcher::try_from).collect::<Result<_, _>>().map(Alternatives)
    }
}

impl From<Alternatives> for Value {
    fn from(a: Alternatives) -> Self {
        Value::Array(a.0.into_iter().map(Value::from).collect())
    }
}

impl Alternatives {
    /// `""` among the alternatives: the argument may be left out.
    pub fn may_be_omitted(&self) -> bool {
        self.0.iter().any(|m| matches!(m, ValueMatcher::Exact(Value::String(s)) if s.is_empty()))
    }

    /// The first concrete value: what a model that gets it right would send.
    pub fn canonical(&self) -> Option<&Value> {
        self.0.iter().find_map(|m| match m {
            ValueMatcher::Exact(Value::String(s)) if s.is_empty() => None,
            ValueMatcher::Exact(v) => Some(v),
            _ => None,
        })
    }
}

/// One step of the expected calls: a single call, or calls made together in
/// one turn (parallel, in any order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpectedStep {
    One(ExpectedCall),
    Parallel(Vec<ExpectedCall>),
}

impl ExpectedStep {
    /// The calls of this step.
    pub fn calls(&self) -> &[ExpectedCall] {
        match self {
            ExpectedStep::One(c) => std::slice::from_ref(c),
            ExpectedStep::Parallel(cs) => cs,
        }
    }
}

/// Whether expected steps must happen in the order given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOrder {
    #[default]
    Sequence,
    Any,
}

/// A call pattern: a tool name or glob, and conditions on its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallPattern {
    pub tool: String,
    #[serde(default)]
    pub args: ArgConditions,
}

/// What counts as success for a scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub calls: Vec<ExpectedStep>,
    #[serde(default)]
    pub order: CallOrder,
    /// Calls that must not be executed.
    #[serde(default)]
    pub forbidden: Vec<CallPattern>,
    /// The model must make no tool call at all (irrelevance).
    #[serde(default)]
    pub no_call: bool,
    /// Text the final answer must contain (case-insensitive).
    #[serde(default)]
    pub final_contains: Vec<String>,
    /// Step limit (model requests) for this scenario; the run default if unset.
    #[serde(default)]
    pub max_steps: Option<u32>,
    /// Step limit (model requests) within one user turn: reaching it ends
    /// the conversation, as reaching `max_steps` does (BFCL's multi-turn
    /// entries: 21, as its inference allows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps_per_turn: Option<u32>,
    /// No executed calls beyond the expected ones.
    #[serde(default)]
    pub strict: bool,
    /// Calls that must be made and denied by approval.
    #[serde(default)]
    pub denied: Vec<CallPattern>,
    /// After a denial, the model must not make the same call again.
    #[serde(default)]
    pub no_retry_after_denial: bool,
    /// Judged by BFCL's AST checker against this answer key instead of
    /// `calls` (which the loader derives from it for the simulated models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfcl: Option<crate::bfcl::BfclCheck>,
    /// Judged as BFCL's multi-turn checker judges: the calls of each user
    /// turn run on BFCL's API classes beside the ground truth's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfcl_multi_turn: Option<crate::bfcl::multi_turn::judge::MultiTurnKey>,
    /// Final-state checks on the scenario's workspace, each reported.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<StateCheck>,
    /// States (or calls) the model must reach, in this order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub milestones: Vec<Milestone>,
    /// States (or calls) the model must never reach.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minefields: Vec<Milestone>,
}

/// A named point of a stateful scenario, reached after an executed call
/// that matches `call` (if given) and leaves the workspace where every
/// `state` check holds (if given). As a minefield, the same point must
/// never be reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Milestone {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallPattern>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<StateCheck>,
}

impl Expect {
    /// Whether the scenario is judged by the state it leaves (it needs a workspace).
    pub fn judges_state(&self) -> bool {
        !self.state.is_empty() || self.milestones.iter().chain(&self.minefields).any(|m| !m.state.is_empty())
    }
}

/// The tree a stateful scenario starts from: files given inline, or a
/// folder (relative to the scenario's file) read once when it is loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceFile {
    /// Relative path → text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<BTreeMap<String, String>>,
    /// A folder whose text files become the tree (symlinks and `.git` left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Where the model sees the tree (default `/workspace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount: Option<String>,
}

/// A scenario's own approval settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioApprovals {
    /// Overrides the configured mode (but not `--approve`).
    #[serde(default)]
    pub mode: Option<crate::core::modes::ApprovalMode>,
    /// Rules tried before the configuration's.
    #[serde(default)]
    pub rules: Vec<crate::pipeline::approval::ApprovalRule>,
}

/// A scenario as it appears in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub id: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Name of a shared toolset in the suite's `toolsets/` folder.
    #[serde(default)]
    pub toolset: Option<String>,
    /// Tools offered: names from the toolset, or whole tool definitions.
    /// Omitted with a toolset: every tool of the toolset.
    #[serde(default)]
    pub tools: Option<Vec<ToolRef>>,
    pub messages: Vec<ScriptedMessage>,
    /// Scripted user turns sent after each final answer, in order.
    #[serde(default)]
    pub followups: Vec<Followup>,
    #[serde(default)]
    pub tool_results: Vec<ToolResultRule>,
    #[serde(default)]
    pub approvals: ScenarioApprovals,
    /// The world the tools act on: the coding tools change this tree.
    #[serde(default)]
    pub workspace: Option<WorkspaceFile>,
    /// The calls of a right solution, in order (the simulated models make
    /// them); `expect.calls` when absent.
    #[serde(default)]
    pub reference: Vec<ExpectedStep>,
    #[serde(default)]
    pub expect: Expect,
    /// A prompt injection: the scenario runs clean and injected, paired (see `injection`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injection: Option<injection::InjectionSpec>,
}

/// A scripted user turn: its text, and the tools first offered with it
/// (BFCL's held-out functions). A plain string is a turn that offers none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "FollowupFile", into = "FollowupFile")]
pub struct Followup {
    pub content: String,
    /// Names of the scenario's tools held back until this turn.
    pub offer: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum FollowupFile {
    Text(String),
    #[serde(rename_all = "snake_case")]
    WithTools {
        user: String,
        #[serde(default)]
        offer: Vec<String>,
    },
}

impl From<FollowupFile> for Followup {
    fn from(f: FollowupFile) -> Followup {
        match f {
            FollowupFile::Text(content) => Followup { content, offer: Vec::new() },
            FollowupFile::WithTools { user, offer } => Followup { content: user, offer },
        }
    }
}

impl From<Followup> for FollowupFile {
    fn from(f: Followup) -> FollowupFile {
        if f.offer.is_empty() {
            FollowupFile::Text(f.content)
        } else {
            FollowupFile::WithTools { user: f.content, offer: f.offer }
        }
    }
}

/// A tool named from the toolset, or defined inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolRef {
    Named(String),
    Inline(ToolSpec),
}

/// A loaded scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub suite: String,
    pub id: String,
    pub description: String,
    pub tags: Vec<String>,
    pub tools: Vec<Arc<Tool>>,
    pub messages: Vec<ScriptedMessage>,
    pub followups: Vec<Followup>,
    pub tool_results: Vec<ToolResultRule>,
    pub approvals: ScenarioApprovals,
    /// The starting tree of a stateful scenario; each unit works on its own copy.
    pub workspace: Option<Arc<Workspace>>,
    /// The calls of a right solution (see [`ScenarioFile::reference`]).
    pub reference: Vec<ExpectedStep>,
    /// A right solution's calls per user turn, where the scenario's key
    /// says them (BFCL multi-turn); empty otherwise.
    pub reference_by_turn: Vec<Vec<ExpectedStep>>,
    pub expect: Expect,
    /// Where it was read from, as `file:line`.
    pub origin: String,
    /// Its prompt injection and which half of the pair this is.
    pub injection: Option<Arc<injection::Injection>>,
}

impl Scenario {
    /// The tool of this name, exactly.
    pub fn tool(&self, name: &str) -> Option<&Arc<Tool>> {
        self.tools.iter().find(|t| t.spec.name == name)
    }

    /// Tools held back until a later user turn (none offered at the start).
    pub fn held_back(&self, tool: &str) -> bool {
        self.followups.iter().any(|f| f.offer.iter().any(|t| t == tool))
    }

    /// The steps a right answer takes in user turn `turn` (0: the first):
    /// that turn's reference where the scenario has one per turn, else the
    /// whole plan in the first turn.
    pub fn plan_of_turn(&self, turn: usize) -> &[ExpectedStep] {
        match (self.reference_by_turn.is_empty(), turn) {
            (false, t) => self.reference_by_turn.get(t).map_or(&[], Vec::as_slice),
            (true, _) => self.plan(),
        }
    }

    /// The steps a right answer takes: the reference solution, else the expected calls.
    pub fn plan(&self) -> &[ExpectedStep] {
        if self.reference.is_empty() {
            &self.expect.calls
        } else {
            &self.reference
        }
    }
}

/// A suite: the scenarios of one folder under `scenarios/`, checked, and
/// kept as an index of where each lies (see `load`): `scenario(i)` reads one
/// again.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    files: Vec<std::path::PathBuf>,
    toolsets: build::Toolsets,
    mcp: load::McpToolsets,
    entries: Vec<load::Entry>,
    /// The suite-wide injection its scenarios were given (see `suite_injection`).
    inject: Option<suite_injection::SuiteInjection>,
}

impl Suite {
    /// How many scenarios it has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The scenario ids, in suite order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| &*e.id)
    }

    /// Keeps only the scenarios whose id `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.entries.retain(|e| keep(&e.id));
    }

    /// The suite's MCP toolsets, by name.
    pub fn mcp_toolsets(&self) -> impl Iterator<Item = &Arc<McpToolset>> {
        self.mcp.values()
    }

    /// The MCP toolset whose tools `scenario` offers, if it offers any.
    pub fn mcp_toolset_of(&self, scenario: &Scenario) -> Option<&Arc<McpToolset>> {
        self.mcp.values().find(|set| scenario.tools.iter().any(|t| set.serves(t)))
    }

    /// Whether a scenario asks a person to approve its calls.
    pub fn needs_person(&self) -> bool {
        self.entries.iter().any(|e| e.interactive)
    }
}
