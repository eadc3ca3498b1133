//! Stage 5, model repair: when local repair leaves a call invalid, ask a
//! model to fix it. This module builds the request and reads the answer;
//! the agent loop sends it through the same provider adapter and transport
//! as any other request, so it is recorded, replayed and costed the same way.

use serde_json::Value;

use super::CallIssue;
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall, ToolDefinition};
use crate::pipeline::tool::Tool;

/// The system prompt of every repair request (simulated models recognise it).
pub const REPAIR_SYSTEM_PROMPT: &str = "You repair tool calls. A tool call was rejected because its arguments do not \
satisfy the tool's JSON Schema. Call the tool once more with corrected arguments that satisfy the schema, keeping \
the values the caller meant. Do not explain.";

/// The request asking `model_id` to fix `call`: the conversation up to the
/// turn that made the call (so the model knows what was meant), then the
/// schema, the arguments sent and the errors.
pub fn repair_request(
    model_id: &str,
    tool: &Tool,
    call: &ToolCall,
    issues: &[CallIssue],
    context: &[ChatMessage],
    temperature: Option<f64>,
) -> ChatRequest {
    let errors: Vec<String> = issues
        .iter()
        .map(|i| if i.path.is_empty() { format!("- {}", i.message) } else { format!("- at {}: {}", i.path, i.message) })
        .collect();
    let schema = serde_json::to_string_pretty(&tool.spec.parameters).unwrap_or_default();
    let prompt = format!(
        "Your call to `{}` was rejected.\nSchema of its arguments:\n{schema}\n\nArguments sent:\n{}\n\nErrors:\n{}\n\nCall `{}` with corrected arguments.",
        tool.spec.name,
        call.arguments,
        errors.join("\n"),
        tool.spec.name
    );
    let mut messages = vec![ChatMessage::System { content: REPAIR_SYSTEM_PROMPT.into() }];
    messages.extend(context.iter().cloned());
    messages.push(ChatMessage::User { content: prompt });
    ChatRequest {
        model_id: model_id.to_string(),
        messages,
        tools: vec![ToolDefinition::of(&tool.spec)],
        temperature,
        max_tokens: None,
        seed: None,
    }
}

/// The corrected call in a repair answer: its tool call, or else arguments
/// written as text (which the pipeline then parses leniently). It keeps the
/// original call's id, so attempts are counted against the same call.
pub fn answered_call(turn: &ModelTurn, original: &ToolCall, tool: &Tool) -> Option<ToolCall> {
    if let Some(c) = turn.tool_calls.first() {
        return Some(ToolCall { id: original.id.clone(), name: c.name.clone(), arguments: c.arguments.clone() });
    }
    let text = turn.text.as_deref()?.trim();
    if text.is_empty() {
        return None;
    }
    // A text answer shaped {"name": ..., "arguments": {...}} names the call; otherwise it is the arguments.
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) {
        if let (Some(Value::String(name)), Some(args)) = (o.get("name"), o.get("arguments")) {
            let arguments = args.as_str().map(str::to_string).unwrap_or_else(|| args.to_string());
            return Some(ToolCall { id: original.id.clone(), name: name.clone(), arguments });
        }
    }
    Some(ToolCall { id: original.id.clone(), name: tool.spec.name.clone(), arguments: text.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tools::ToolSpec;
    use crate::pipeline::tool::compile_tool;
    use crate::pipeline::InvalidKind;
    use serde_json::json;

    fn tool() -> Tool {
        compile_tool(ToolSpec {
            name: "read_file".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"target_file": {"type": "string"}}, "required": ["target_file"]}),
            sensitive: false,
        })
        .unwrap()
    }

    #[test]
    fn request_carries_schema_arguments_and_errors() {
        let call = ToolCall { id: "c1".into(), name: "read_file".into(), arguments: r#"{"path": "a"}"#.into() };
        let issue =
            CallIssue { kind: InvalidKind::MissingRequired, path: String::new(), message: "\"target_file\" is a required property".into() };
        let context = [ChatMessage::User { content: "read a".into() }];
        let req = repair_request("m", &tool(), &call, &[issue], &context, Some(0.0));
        assert_eq!(req.tools.len(), 1);
        assert_eq!(req.messages.len(), 3);
        assert_eq!(req.messages[1], context[0]);
        let ChatMessage::User { content } = &req.messages[2] else { panic!("user prompt") };
        assert!(content.contains(r#"{"path": "a"}"#) && content.contains("- \"target_file\" is a required property"));
        assert!(content.contains("\"required\""));
    }

    #[test]
    fn answer_as_call_or_as_text() {
        let original = ToolCall { id: "c1".into(), name: "read_file".into(), arguments: "{}".into() };
        let t = tool();
        let turn = ModelTurn {
            tool_calls: vec![ToolCall { id: "x".into(), name: "read_file".into(), arguments: r#"{"target_file":"a"}"#.into() }],
            ..Default::default()
        };
        let c = answered_call(&turn, &original, &t).unwrap();
        assert_eq!((c.id.as_str(), c.arguments.as_str()), ("c1", r#"{"target_file":"a"}"#));
        let turn = ModelTurn { text: Some("```json\n{\"target_file\": \"a\"}\n```".into()), ..Default::default() };
        assert_eq!(answered_call(&turn, &original, &t).unwrap().arguments, "```json\n{\"target_file\": \"a\"}\n```");
        let turn = ModelTurn { text: Some(r#"{"name": "read_file", "arguments": {"target_file": "b"}}"#.into()), ..Default::default() };
        assert_eq!(answered_call(&turn, &original, &t).unwrap().arguments, r#"{"target_file":"b"}"#);
        assert!(answered_call(&ModelTurn::default(), &original, &t).is_none());
    }
}
