//! A tool compiled for the pipeline: its spec (plain data from `core`), the
//! argument validator, the schema compiled for local repair and the folded
//! name for name repair. Compiled once per toolset entry, shared by `Arc`.

pub mod schema;

use crate::core::tools::ToolSpec;

/// A tool ready for use: its spec, its compiled argument validator and its
/// schema compiled for local repair. Shared (`Arc`) by every scenario that
/// uses the same toolset entry.
pub struct Tool {
    pub spec: ToolSpec,
    pub validator: jsonschema::Validator,
    pub repair_schema: schema::RepairSchema,
    /// The name with case and separators folded away, for name repair.
    pub folded_name: String,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("spec", &self.spec).finish()
    }
}

/// Why a tool's spec cannot be compiled; the message names the tool.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// `parameters` is not a JSON object (a string, a list, …).
    #[error("tool {name:?}: parameters must be a JSON Schema object")]
    NotAnObject { name: String },
    /// `jsonschema` refused the schema; its error is kept as the source.
    #[error("tool {name:?}: parameters is not a valid JSON Schema: {source}")]
    InvalidSchema {
        name: String,
        #[source]
        source: jsonschema::ValidationError<'static>,
    },
}

/// Compiles a tool's parameter schema into a validator.
pub fn compile_tool(spec: ToolSpec) -> Result<Tool, ToolError> {
    if !spec.parameters.is_object() {
        return Err(ToolError::NotAnObject { name: spec.name });
    }
    let validator =
        jsonschema::validator_for(&spec.parameters).map_err(|source| ToolError::InvalidSchema { name: spec.name.clone(), source })?;
    let repair_schema = schema::RepairSchema::compile(&spec.parameters);
    let folded_name = crate::core::names::normalise_name(&spec.name);
    Ok(Tool { spec, validator, repair_schema, folded_name })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(parameters: serde_json::Value) -> ToolSpec {
        ToolSpec { name: "read_file".into(), description: String::new(), parameters, sensitive: false }
    }

    #[test]
    fn a_schema_that_is_not_an_object_is_named() {
        let e = compile_tool(spec(json!("string"))).unwrap_err();
        assert_eq!(e.to_string(), "tool \"read_file\": parameters must be a JSON Schema object");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn an_invalid_schema_keeps_the_validator_error_as_its_source() {
        let e = compile_tool(spec(json!({"type": 5}))).unwrap_err();
        let source = std::error::Error::source(&e).expect("the jsonschema error is kept");
        assert_eq!(e.to_string(), format!("tool \"read_file\": parameters is not a valid JSON Schema: {source}"));
    }
}
