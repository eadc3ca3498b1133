//! `tool_format = "text"`: the tools are described in the system prompt and
//! the model writes its calls as text (`<tool_call>{"name": ..., "arguments":
//! ...}</tool_call>`, the format Qwen and Hermes models are trained on),
//! which calltape reads itself. The API's tool fields are not used, so a
//! server that parses calls (llama.cpp, Ollama, vLLM) never sees them and
//! cannot reject what it fails to parse: the model's text, malformed or not,
//! reaches the repair pipeline.
//!
//! Wraps any adapter: only the messages and the answer's text change.

use std::sync::Arc;

use serde_json::json;

use super::{made_up_call_id, prior_call_count, Provider, ProviderError};
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall, ToolDefinition};
use crate::pipeline::text_calls::{find_text_calls, text_around_calls, TextCallForm};
use crate::transport::{HttpRequest, HttpResponse};

/// An adapter whose tools travel as text.
pub struct TextTools {
    pub inner: Arc<dyn Provider>,
}

impl Provider for TextTools {
    fn build_request(&self, request: &ChatRequest) -> HttpRequest {
        self.inner.build_request(&as_text_request(request))
    }

    fn try_build_request(&self, request: &ChatRequest) -> Result<HttpRequest, ProviderError> {
        self.inner.try_build_request(&as_text_request(request))
    }

    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError> {
        let mut turn = self.inner.parse_response(&as_text_request(request), response)?;
        if !turn.tool_calls.is_empty() {
            return Ok(turn);
        }
        let text = turn.text.clone().unwrap_or_default();
        let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        let calls = find_text_calls(&text, &offered);
        if calls.is_empty() {
            return Ok(turn);
        }
        let first = prior_call_count(request);
        // What is left of the text besides tagged calls; a fenced or bare call
        // is sent back tagged, so its text is not kept twice.
        turn.text = if calls.iter().all(|c| c.form == TextCallForm::Tagged) { text_around_calls(&text) } else { None };
        turn.tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall { id: made_up_call_id(first + i), name: c.name, arguments: c.arguments })
            .collect();
        Ok(turn)
    }
}

/// The request with its tools moved into the system prompt, earlier calls
/// written back as tagged text and tool results as `<tool_response>` text in
/// a user message (consecutive results in one message).
fn as_text_request(request: &ChatRequest) -> ChatRequest {
    let mut messages: Vec<ChatMessage> = Vec::with_capacity(request.messages.len() + 1);
    let mut prompt_placed = request.tools.is_empty();
    let mut last_was_result = false;
    for message in &request.messages {
        let is_result = matches!(message, ChatMessage::Tool { .. });
        match message {
            ChatMessage::System { content } if !prompt_placed => {
                messages.push(ChatMessage::System { content: format!("{content}\n\n{}", tools_prompt(&request.tools)) });
                prompt_placed = true;
            }
            ChatMessage::Assistant { content, tool_calls, .. } if !tool_calls.is_empty() => {
                let mut parts: Vec<String> = content.iter().filter(|c| !c.trim().is_empty()).cloned().collect();
                parts.extend(tool_calls.iter().map(tagged_call));
                messages.push(ChatMessage::Assistant { content: Some(parts.join("\n")), tool_calls: Vec::new(), provider_state: None });
            }
            ChatMessage::Tool { content, .. } => {
                let response = format!("<tool_response>\n{content}\n</tool_response>");
                match messages.last_mut() {
                    Some(ChatMessage::User { content }) if last_was_result => {
                        content.push('\n');
                        content.push_str(&response);
                    }
                    _ => messages.push(ChatMessage::User { content: response }),
                }
            }
            other => messages.push(other.clone()),
        }
        last_was_result = is_result;
    }
    if !prompt_placed {
        messages.insert(0, ChatMessage::System { content: tools_prompt(&request.tools) });
    }
    ChatRequest { messages, tools: Vec::new(), ..request.clone() }
}

/// A call as the model is asked to write one.
fn tagged_call(call: &ToolCall) -> String {
    let arguments = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    format!("<tool_call>\n{{\"name\": {}, \"arguments\": {arguments}}}\n</tool_call>", json!(call.name))
}

/// The system-prompt text that offers the tools.
fn tools_prompt(tools: &[ToolDefinition]) -> String {
    let listed: Vec<String> = tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}).to_string()
        })
        .collect();
    format!(
        "# Tools\n\nYou may call one or more functions to help with the request. The functions are listed below, \
         one JSON object per line, between <tools></tools> tags:\n<tools>\n{}\n</tools>\n\n\
         To call a function, write a JSON object with its name and arguments between <tool_call></tool_call> tags:\n\
         <tool_call>\n{{\"name\": <function-name>, \"arguments\": <arguments-object>}}\n</tool_call>",
        listed.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::openai::OpenAi;
    use crate::transport::ResponseBody;

    fn request() -> ChatRequest {
        ChatRequest {
            model_id: "m".into(),
            messages: vec![
                ChatMessage::System { content: "You are a coding agent.".into() },
                ChatMessage::User { content: "Read a.rs and b.rs".into() },
                ChatMessage::Assistant {
                    content: Some("Reading both.".into()),
                    tool_calls: vec![
                        ToolCall { id: "call_0".into(), name: "read_file".into(), arguments: r#"{"target_file": "a.rs"}"#.into() },
                        ToolCall { id: "call_1".into(), name: "read_file".into(), arguments: String::new() },
                    ],
                    provider_state: None,
                },
                ChatMessage::Tool { call_id: "call_0".into(), name: "read_file".into(), content: "fn a() {}".into() },
                ChatMessage::Tool { call_id: "call_1".into(), name: "read_file".into(), content: "fn b() {}".into() },
            ],
            tools: vec![ToolDefinition {
                name: "read_file".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"target_file": {"type": "string"}}}),
            }],
            temperature: Some(0.0),
            max_tokens: None,
            seed: None,
        }
    }

    #[test]
    fn tools_go_into_the_system_prompt_and_the_history_becomes_text() {
        let adapter = TextTools { inner: Arc::new(OpenAi { base_url: "http://x/v1".into(), strict_tools: false }) };
        let body = adapter.build_request(&request()).body;
        assert!(body.get("tools").is_none(), "{body}");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 4, "system, user, assistant, one user message with both results: {body}");
        let system = messages[0]["content"].as_str().unwrap();
        assert!(system.starts_with("You are a coding agent.\n\n# Tools") && system.contains(r#""name":"read_file""#), "{system}");
        assert_eq!(
            messages[2]["content"],
            "Reading both.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"a.rs\"}}\n</tool_call>\n\
             <tool_call>\n{\"name\": \"read_file\", \"arguments\": {}}\n</tool_call>"
        );
        assert!(messages[2].get("tool_calls").is_none());
        assert_eq!(messages[3]["role"], "user");
        assert_eq!(messages[3]["content"], "<tool_response>\nfn a() {}\n</tool_response>\n<tool_response>\nfn b() {}\n</tool_response>");
    }

    #[test]
    fn calls_are_read_from_the_answer_text_with_ids_that_count_on() {
        let adapter = TextTools { inner: Arc::new(OpenAi { base_url: "http://x/v1".into(), strict_tools: false }) };
        let body = json!({"choices": [{"message": {"role": "assistant",
            "content": "Next:\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"c.rs\",}}\n</tool_call>"},
            "finish_reason": "stop"}]});
        let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Json(body), latency_ms: 1.0 };
        let turn = adapter.parse_response(&request(), &response).unwrap();
        assert_eq!(turn.text.as_deref(), Some("Next:"));
        assert_eq!(turn.tool_calls.len(), 1);
        assert_eq!(turn.tool_calls[0].id, "call_2", "two calls came before");
        assert_eq!(turn.tool_calls[0].arguments, "{\"target_file\": \"c.rs\",}", "the model's own text, trailing comma and all");
    }

    #[test]
    fn without_tools_the_request_is_unchanged() {
        let mut r = request();
        r.tools.clear();
        r.messages.truncate(2);
        let text = as_text_request(&r);
        assert_eq!(text.messages, r.messages);
    }
}
