//! MCP toolsets as plain data: where a server is (a command to start, or a
//! streamable HTTP URL), and the lock file that pins the tools it listed
//! (`toolsets/<name>.tools.lock`) with their fingerprint, so a suite loads
//! and replays with no server, and a server whose tools changed is caught.
//! Talking to a server is `crate::mcp`'s job; this module only describes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::tools::ToolSpec;

/// What the names of MCP toolsets start with where they are recorded as models
/// (a cassette tells a model's exchanges from a toolset's by it).
pub const CASSETTE_MODEL_PREFIX: &str = "mcp:";

/// The `"mcp"` object of a toolset file: one server, started as a child
/// process (`command`) or reached over streamable HTTP (`url`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSpec {
    /// The program and its arguments, e.g. `["npx", "-y", "@modelcontextprotocol/server-memory"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Environment variables set for the child process (never recorded:
    /// they are not part of any request).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Variables of calltape's own environment the child also gets, by
    /// name (e.g. `["GITHUB_TOKEN"]`): a child starts with none but
    /// `BASE_ENV`, so no provider key reaches it unless named here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// The server's streamable HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Seconds to wait for one answer (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

/// The variables of calltape's environment every started server gets (when
/// set): what finding programs, a home folder, a locale and a temporary
/// folder need. Nothing else is inherited: see `McpServerSpec::pass_env`.
pub const BASE_ENV: [&str; 12] =
    ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "SYSTEMROOT", "USERPROFILE", "TEMP"];

/// Seconds an MCP server has to answer one request, unless its toolset says.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// What is wrong with an `mcp` server entry that its types let through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpSpecError {
    #[error("mcp.command must name a program: [\"npx\", \"-y\", \"PACKAGE\"]")]
    NoProgram,
    #[error("mcp.url must be an http:// or https:// URL, not {0:?}")]
    NotHttp(String),
    #[error("mcp needs exactly one of \"command\" (a program to start) and \"url\" (a streamable HTTP endpoint)")]
    CommandOrUrl,
    #[error("mcp.env and mcp.pass_env apply to a started command only; a server at a url has its own environment")]
    EnvForUrl,
    #[error("mcp.timeout_secs must be at least 1")]
    ZeroTimeout,
}

impl McpServerSpec {
    /// Checks what the types cannot: exactly one of `command` and `url`.
    pub fn validate(&self) -> Result<(), McpSpecError> {
        match (&self.command, &self.url) {
            (Some(c), None) if c.first().is_some_and(|p| !p.is_empty()) => {}
            (Some(_), None) => return Err(McpSpecError::NoProgram),
            (None, Some(u)) if u.starts_with("http://") || u.starts_with("https://") => {}
            (None, Some(u)) => return Err(McpSpecError::NotHttp(u.clone())),
            _ => return Err(McpSpecError::CommandOrUrl),
        }
        if self.url.is_some() && !(self.env.is_empty() && self.pass_env.is_empty()) {
            return Err(McpSpecError::EnvForUrl);
        }
        if self.timeout_secs == Some(0) {
            return Err(McpSpecError::ZeroTimeout);
        }
        Ok(())
    }

    /// Seconds to wait for one answer.
    pub fn timeout_secs(&self) -> u64 {
        self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS)
    }

    /// The whole environment a started server gets: `BASE_ENV` and
    /// `pass_env` taken from `parent` where set, then `env` on top.
    pub fn child_env(&self, parent: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
        let names = BASE_ENV.iter().copied().chain(self.pass_env.iter().map(String::as_str));
        let mut vars: BTreeMap<String, String> = names.filter_map(|n| parent(n).map(|v| (n.to_string(), v))).collect();
        vars.extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        vars
    }

    /// How the server is reached, for messages: the command line or the URL.
    pub fn describe(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => c.join(" "),
            (None, Some(u)) => u.clone(),
            (None, None) => "(no server)".into(),
        }
    }
}

/// A toolset file that names an MCP server instead of listing tools:
/// `{"mcp": {...}, "sensitive": ["delete_entities"]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolsetFile {
    pub mcp: McpServerSpec,
    /// The server's tools whose calls need approval (names, or globs such as `delete_*`).
    #[serde(default)]
    pub sensitive: Vec<String>,
}

impl McpToolsetFile {
    /// The toolset file `text` names a server, if it is an object with `"mcp"`
    /// (`None`: a plain toolset, or not JSON; the caller reports which).
    pub fn detect(text: &str) -> Option<Result<McpToolsetFile, serde_json::Error>> {
        let value: Value = serde_json::from_str(text).ok()?;
        value.get("mcp")?;
        Some(serde_json::from_str(text))
    }
}

/// The file name of a toolset's lock, beside its `toolsets/<name>.json`.
pub fn lock_file_name(toolset: &str) -> String {
    format!("{toolset}.tools.lock")
}

/// The tools a server listed, as recorded in `toolsets/<name>.tools.lock`
/// (pretty JSON, sorted keys): the suite's view of the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolLock {
    /// [`fingerprint`] of `tools`, for people and for a quick comparison.
    pub fingerprint: String,
    /// The server they were listed from (`McpServerSpec::describe`).
    pub server: String,
    /// The listed tools in the server's order; `sensitive` is always false
    /// here (the toolset file says which are).
    pub tools: Vec<ToolSpec>,
}

impl ToolLock {
    /// The lock of `tools` as listed from `server`.
    pub fn new(server: &McpServerSpec, tools: Vec<ToolSpec>) -> ToolLock {
        ToolLock { fingerprint: fingerprint(&tools), server: server.describe(), tools }
    }

    /// The file's text: canonical, so re-listing unchanged tools gives no diff.
    pub fn to_text(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        // serde_json's map is sorted (no preserve_order), so keys come out sorted.
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// A hex SHA-256 prefix of the tools' canonical JSON: equal lists, equal prints.
pub fn fingerprint(tools: &[ToolSpec]) -> String {
    let canonical = serde_json::to_value(tools).map(|v| v.to_string()).unwrap_or_default();
    let digest = Sha256::digest(canonical.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// How a server's tools differ from its lock, by tool name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolDrift {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Listed in both, with another description or schema.
    pub changed: Vec<String>,
}

impl ToolDrift {
    /// The tools that differ between `locked` and `listed`, `None` if none do.
    pub fn between(locked: &[ToolSpec], listed: &[ToolSpec]) -> Option<ToolDrift> {
        let old: BTreeMap<&str, &ToolSpec> = locked.iter().map(|t| (t.name.as_str(), t)).collect();
        let new: BTreeMap<&str, &ToolSpec> = listed.iter().map(|t| (t.name.as_str(), t)).collect();
        let drift = ToolDrift {
            added: new.keys().filter(|n| !old.contains_key(*n)).map(|n| n.to_string()).collect(),
            removed: old.keys().filter(|n| !new.contains_key(*n)).map(|n| n.to_string()).collect(),
            changed: new.iter().filter(|(n, t)| old.get(*n).is_some_and(|o| o != *t)).map(|(n, _)| n.to_string()).collect(),
        };
        (drift != ToolDrift::default()).then_some(drift)
    }
}

impl std::fmt::Display for ToolDrift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        for (what, names) in [("added", &self.added), ("removed", &self.removed), ("changed", &self.changed)] {
            if !names.is_empty() {
                parts.push(format!("{what} {}", names.join(", ")));
            }
        }
        f.write_str(&parts.join("; "))
    }
}

/// An MCP tool as `tools/list` gives it (`name`, `description`,
/// `inputSchema`), as a tool spec; `None` when it has no name.
pub fn tool_spec_of(listed: &Value) -> Option<ToolSpec> {
    let name = listed.get("name")?.as_str()?.to_string();
    let description = listed.get("description").and_then(Value::as_str).unwrap_or_default().to_string();
    let parameters = listed.get("inputSchema").cloned().unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    Some(ToolSpec { name, description, parameters, sensitive: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec { name: name.into(), description: description.into(), parameters: json!({"type": "object"}), sensitive: false }
    }

    #[test]
    fn a_child_gets_the_base_the_named_and_the_given_variables_only() {
        let spec = McpServerSpec {
            command: Some(vec!["srv".into()]),
            env: [("A".to_string(), "given".to_string())].into(),
            pass_env: vec!["GITHUB_TOKEN".into()],
            ..McpServerSpec::default()
        };
        let parent = |name: &str| ["PATH", "GITHUB_TOKEN", "OPENAI_API_KEY", "A"].contains(&name).then(|| format!("{name}-value"));
        let env = spec.child_env(parent);
        let got: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, [("A", "given"), ("GITHUB_TOKEN", "GITHUB_TOKEN-value"), ("PATH", "PATH-value")]);
    }

    #[test]
    fn a_server_is_a_command_or_a_url() {
        let parse = |v: Value| serde_json::from_value::<McpServerSpec>(v).unwrap().validate().map_err(|e| e.to_string());
        assert_eq!(parse(json!({"command": ["npx", "-y", "x"]})), Ok(()));
        assert_eq!(parse(json!({"url": "http://127.0.0.1:3001/mcp"})), Ok(()));
        assert!(parse(json!({})).unwrap_err().contains("exactly one of"));
        assert!(parse(json!({"command": ["x"], "url": "http://h/mcp"})).unwrap_err().contains("exactly one of"));
        assert!(parse(json!({"command": []})).unwrap_err().contains("must name a program"));
        assert!(parse(json!({"url": "ftp://h"})).unwrap_err().contains("http:// or https://"));
        assert!(parse(json!({"url": "http://h", "env": {"A": "b"}})).unwrap_err().contains("mcp.env"));
        assert!(parse(json!({"url": "http://h", "pass_env": ["A"]})).unwrap_err().contains("mcp.pass_env"));
        assert!(serde_json::from_value::<McpServerSpec>(json!({"cmd": ["x"]})).is_err(), "unknown fields are refused");
    }

    #[test]
    fn drift_names_added_removed_and_changed_tools() {
        let locked = [spec("a", "A"), spec("b", "B"), spec("c", "C")];
        assert_eq!(ToolDrift::between(&locked, &locked), None);
        let listed = [spec("a", "A"), spec("c", "C, now better"), spec("d", "D")];
        let drift = ToolDrift::between(&locked, &listed).unwrap();
        assert_eq!(drift.to_string(), "added d; removed b; changed c");
        assert_ne!(fingerprint(&locked), fingerprint(&listed));
        assert_eq!(fingerprint(&locked).len(), 16);
    }

    #[test]
    fn listed_tools_become_specs() {
        let t = tool_spec_of(&json!({"name": "read_graph", "inputSchema": {"type": "object", "properties": {}}})).unwrap();
        assert_eq!(t.name, "read_graph");
        assert_eq!(t.description, "");
        assert_eq!(tool_spec_of(&json!({"description": "no name"})), None);
        let lock = ToolLock::new(&McpServerSpec { command: Some(vec!["srv".into()]), ..Default::default() }, vec![t]);
        let text = lock.to_text();
        assert_eq!(serde_json::from_str::<ToolLock>(&text).unwrap(), lock);
        assert!(text.find("\"fingerprint\"") < text.find("\"server\"") && text.ends_with("}\n"));
    }
}
