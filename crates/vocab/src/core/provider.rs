//! The wire protocol a model speaks, and how it carries an API key.

use serde::{Deserialize, Serialize};

/// The wire protocol a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// A built-in simulated model (OpenAI-compatible responses, no network).
    Sim,
    /// OpenAI Chat Completions and compatible servers.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
}

impl ProviderKind {
    /// The header that carries an API key to this provider: `(name, value)`.
    /// The transport adds it; adapters never see the key, so it never
    /// reaches a request body, a URL or a cassette.
    pub fn auth_header(self, key: &str) -> (String, String) {
        match self {
            ProviderKind::Sim | ProviderKind::Openai => ("authorization".into(), format!("Bearer {key}")),
            ProviderKind::Anthropic => ("x-api-key".into(), key.to_string()),
            ProviderKind::Gemini => ("x-goog-api-key".into(), key.to_string()),
        }
    }
}
