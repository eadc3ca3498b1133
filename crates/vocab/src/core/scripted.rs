//! A scripted tool result: what a tool returns when the model calls it with
//! matching arguments. Scenarios hold them; the pipeline's execute stage
//! answers calls from them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::matcher::ValueMatcher;

/// Conditions on a call's arguments: every named argument must match.
pub type ArgConditions = BTreeMap<String, ValueMatcher>;

/// What a tool returns when the model calls it; first matching rule wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultRule {
    /// Tool name, or `*` for any tool.
    pub tool: String,
    #[serde(default)]
    pub when: ArgConditions,
    /// The result returned to the model (a string, or JSON sent as text).
    #[serde(default)]
    pub result: Option<Value>,
    /// A scripted execution error, returned to the model as an error result.
    #[serde(default)]
    pub error: Option<String>,
}
