//! Stage 1: find the tool a call names — exactly, else after normalising
//! case and separators (`ReadFile`, `read-file`, `read.file` → `read_file`).

use std::sync::Arc;

use crate::scenario::Tool;

/// How a call's tool name was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameMatch {
    Exact,
    Normalised,
    Unknown,
}

/// The name with case and `-`/`_`/`.`/space separators folded away, so that
/// camelCase, snake_case and kebab-case spellings compare equal.
pub fn normalise_name(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-' | '.' | ' ')).flat_map(char::to_lowercase).collect()
}

/// The tool `name` refers to, and how it was matched.
pub fn resolve_tool<'a>(name: &str, tools: &'a [Arc<Tool>]) -> (Option<&'a Arc<Tool>>, NameMatch) {
    if let Some(t) = tools.iter().find(|t| t.spec.name == name) {
        return (Some(t), NameMatch::Exact);
    }
    let wanted = normalise_name(name);
    let mut candidates = tools.iter().filter(|t| normalise_name(&t.spec.name) == wanted);
    match (candidates.next(), candidates.next()) {
        (Some(t), None) => (Some(t), NameMatch::Normalised),
        _ => (None, NameMatch::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{compile_tool, ToolSpec};

    fn tools(names: &[&str]) -> Vec<Arc<Tool>> {
        names
            .iter()
            .map(|n| {
                let spec = ToolSpec { name: n.to_string(), description: String::new(), parameters: serde_json::json!({}), sensitive: false };
                Arc::new(compile_tool(spec).unwrap())
            })
            .collect()
    }

    #[test]
    fn exact_then_normalised_then_unknown() {
        let ts = tools(&["read_file", "Bash"]);
        assert_eq!(resolve_tool("read_file", &ts).1, NameMatch::Exact);
        for spelling in ["ReadFile", "read-file", "READ_FILE", "read.file", "bash"] {
            assert_eq!(resolve_tool(spelling, &ts).1, NameMatch::Normalised, "{spelling}");
        }
        assert_eq!(resolve_tool("read_fiel", &ts).1, NameMatch::Unknown);
    }

    #[test]
    fn ambiguous_normalised_match_is_unknown() {
        let ts = tools(&["read_file", "readFile"]);
        assert_eq!(resolve_tool("READFILE", &ts).1, NameMatch::Unknown);
    }
}
