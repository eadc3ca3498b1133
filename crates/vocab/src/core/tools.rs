//! Tools as scenarios and toolset files declare them: plain data. The
//! pipeline compiles them (`pipeline::tool`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as a scenario or toolset file declares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the arguments object.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
    /// Calls to this tool need approval.
    #[serde(default)]
    pub sensitive: bool,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}
