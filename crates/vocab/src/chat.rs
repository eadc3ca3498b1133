//! Provider-agnostic conversation types: what the agent loop sends to a model
//! and what comes back, before any provider's wire format.

use serde::{Deserialize, Serialize};

/// One tool call as the model wrote it: the name and the raw argument text,
/// untouched, so the repair pipeline sees exactly what the model produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: Option<String>,
        tool_calls: Vec<ToolCall>,
        /// What the provider needs back verbatim with this message (Gemini's
        /// parts with their `thoughtSignature`, Anthropic's content blocks such
        /// as `server_tool_use`), opaque to everything but the adapter.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_state: Option<serde_json::Value>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
    },
}

/// A tool as offered to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

impl ToolDefinition {
    /// A configured tool as it is offered.
    pub fn of(spec: &crate::core::tools::ToolSpec) -> ToolDefinition {
        ToolDefinition { name: spec.name.clone(), description: spec.description.clone(), parameters: spec.parameters.clone() }
    }
}

/// Everything a provider adapter needs to build one request.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub model_id: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolDefinition>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
}

/// Token counts of one request, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
}

/// The assistant's answer to one request, parsed out of the provider's body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelTurn {
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub finish_reason: Option<String>,
    /// Reasoning text the provider returned beside the answer (`reasoning_content`, thinking blocks).
    pub reasoning: Option<String>,
    /// See `ChatMessage::Assistant::provider_state`.
    pub provider_state: Option<serde_json::Value>,
    /// Time to the first streamed event, for streaming responses.
    pub ttft_ms: Option<f64>,
}
