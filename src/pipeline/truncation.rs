//! Calls cut off by the model's output limit or by a broken stream. Every
//! adapter reads the turn's finish reason; this module decides from it
//! which call of the turn was being written when the output stopped, and
//! files that call as `truncated`: the rest of its arguments is lost, so
//! closing the text (which lenient parsing can always do) would run a call
//! the model never made — a file written as "Filing taxes", the rest gone.

use crate::chat::ToolCall;

use super::{issue, CallOutcome, CallVerdict, InvalidKind};

/// `ModelTurn::finish_reason` of a stream that ended before the provider said
/// why it stopped (connection cut, no closing events). Whatever arrived is
/// kept: text, and tool calls with their arguments as far as they got.
pub const FINISH_TRUNCATED: &str = "stream_truncated";

/// How a turn's output was cut short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// The provider stopped at the output limit; its finish reason as it wrote it.
    Limit(String),
    /// The stream ended before the provider said why it stopped.
    Stream,
}

/// Finish reasons that mean "stopped at the output limit", compared without
/// case: OpenAI and OpenAI-compatible servers (vLLM, llama.cpp, Ollama,
/// Groq, DeepSeek) `length`, Mistral `model_length`, Anthropic `max_tokens`
/// and `model_context_window_exceeded`, Gemini `MAX_TOKENS`, OpenAI's
/// Responses API `max_output_tokens`.
const LIMIT_REASONS: [&str; 5] = ["length", "model_length", "max_tokens", "model_context_window_exceeded", "max_output_tokens"];

/// How the turn with this finish reason was cut, if it was.
pub fn turn_cut(finish_reason: Option<&str>) -> Option<Cut> {
    let reason = finish_reason?.trim();
    if reason == FINISH_TRUNCATED {
        return Some(Cut::Stream);
    }
    LIMIT_REASONS.iter().any(|r| r.eq_ignore_ascii_case(reason)).then(|| Cut::Limit(reason.to_string()))
}

/// The index of the call the cut fell in, if any: output is written in
/// order, so only the turn's last call can have been cut (earlier calls of
/// a parallel turn were finished before it began).
///
/// At the output limit the last call is cut whatever its text looks like:
/// providers that send arguments as an object (Anthropic, Gemini) close it
/// themselves, so a whole-looking object proves nothing. A stream that just
/// stopped may have stopped after the last call was done: that call is cut
/// only when its argument text is not yet a whole JSON value.
pub fn cut_call(cut: &Cut, calls: &[ToolCall]) -> Option<usize> {
    let last = calls.len().checked_sub(1)?;
    match cut {
        Cut::Limit(_) => Some(last),
        Cut::Stream => (!is_whole_json(&calls[last].arguments)).then_some(last),
    }
}

fn is_whole_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Files a judged call as truncated: its one issue is the cut (what else was
/// wrong with the text follows from the cut), it is not run, and nothing of
/// what local repair made of it counts as a fix.
pub fn mark_truncated(v: &mut CallVerdict, call: &ToolCall, cut: &Cut) {
    let chars = call.arguments.chars().count();
    let message = match cut {
        Cut::Limit(reason) => format!(
            "the model's output was cut at its output limit (finish reason `{}`) while it wrote this call: \
             its arguments end unfinished after {chars} characters",
            crate::quote::quoted(reason)
        ),
        Cut::Stream => format!(
            "the stream ended before the provider finished it, while this call's arguments were still open \
             (they end after {chars} characters)"
        ),
    };
    let cut_issue = issue(InvalidKind::Truncated, message);
    v.first_issues = vec![cut_issue.clone()];
    v.issues = vec![cut_issue];
    v.fixes.clear();
    v.outcome = CallOutcome::Invalid;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::modes::RepairMode;
    use crate::core::tools::ToolSpec;
    use crate::pipeline::tool::compile_tool;
    use crate::pipeline::{check_call, PipelineOptions, RepairRules};
    use std::sync::Arc;

    fn call(arguments: &str) -> ToolCall {
        ToolCall { id: "c".into(), name: "write_file".into(), arguments: arguments.into() }
    }

    #[test]
    fn every_providers_limit_reason_and_a_cut_stream_are_cuts() {
        for reason in
            ["length", "max_tokens", "MAX_TOKENS", "model_length", "model_context_window_exceeded", "max_output_tokens", " Length "]
        {
            assert_eq!(turn_cut(Some(reason)), Some(Cut::Limit(reason.trim().to_string())), "{reason}");
        }
        assert_eq!(turn_cut(Some(FINISH_TRUNCATED)), Some(Cut::Stream));
        for whole in ["stop", "tool_calls", "tool_use", "end_turn", "STOP", "MALFORMED_FUNCTION_CALL", "content_filter", "lengthy", ""] {
            assert_eq!(turn_cut(Some(whole)), None, "{whole}");
        }
        assert_eq!(turn_cut(None), None);
    }

    #[test]
    fn only_the_last_call_is_cut_and_a_stream_only_inside_its_arguments() {
        let limit = Cut::Limit("length".into());
        let calls = [call(r#"{"path": "a"}"#), call(r#"{"path": "b", "content": "Filing ta"#)];
        assert_eq!(cut_call(&limit, &calls), Some(1));
        assert_eq!(cut_call(&Cut::Stream, &calls), Some(1));
        // The stream stopped after the last call was whole: nothing was cut in it.
        assert_eq!(cut_call(&Cut::Stream, &calls[..1]), None);
        // The limit says the output stopped: an object a provider closed itself proves nothing.
        assert_eq!(cut_call(&limit, &calls[..1]), Some(0));
        // Nothing of the arguments arrived yet.
        assert_eq!(cut_call(&Cut::Stream, &[call("")]), Some(0));
        assert_eq!(cut_call(&limit, &[]), None);
    }

    #[test]
    fn a_cut_call_that_local_repair_can_close_is_truncated_not_repaired() {
        let tool = compile_tool(ToolSpec {
            name: "write_file".into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"]}),
            sensitive: false,
        })
        .unwrap();
        let tools = [Arc::new(tool)];
        let cut_text = call(r#"{"path": "taxes.md", "content": "Filing taxes"#);
        let rules = RepairRules::default();
        let mut v = check_call(&cut_text, &tools, PipelineOptions { repair: RepairMode::Local, rules: &rules });
        assert_eq!(v.outcome, CallOutcome::Repaired, "lenient parsing closes it");
        mark_truncated(&mut v, &cut_text, &Cut::Limit("length".into()));
        assert_eq!(
            (v.outcome, v.invalid_kinds(), v.remaining_kinds()),
            (CallOutcome::Invalid, vec![InvalidKind::Truncated], vec![InvalidKind::Truncated])
        );
        assert!(v.fixes.is_empty());
        assert_eq!(
            v.issues[0].message,
            "the model's output was cut at its output limit (finish reason `length`) while it wrote this call: \
             its arguments end unfinished after 45 characters"
        );
        let told = v.error_message(&cut_text, &tools);
        assert!(told.starts_with("invalid tool call: arguments of `write_file` are invalid: the model's output was cut"), "{told}");
    }
}
