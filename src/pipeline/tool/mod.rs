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

/// Compiles a tool's parameter schema into a validator.
pub fn compile_tool(spec: ToolSpec) -> Result<Tool, String> {
    if !spec.parameters.is_object() {
        return Err(format!("tool {:?}: parameters must be a JSON Schema object", spec.name));
    }
    let validator = jsonschema::validator_for(&spec.parameters)
        .map_err(|e| format!("tool {:?}: parameters is not a valid JSON Schema: {e}", spec.name))?;
    let repair_schema = schema::RepairSchema::compile(&spec.parameters);
    let folded_name = crate::core::names::normalise_name(&spec.name);
    Ok(Tool { spec, validator, repair_schema, folded_name })
}
