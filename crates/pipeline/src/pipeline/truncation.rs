//! Calls cut off by the model's output limit or by a broken stream. Every
//! adapter reads the turn's finish reason; this module decides from it
//! which call of the turn was being written when the output stopped, and
//! files that call as `truncated`: the rest of its arguments is lost, so
//! the text lenient parsing closes (a file written as "Filing taxes", the
//! rest gone) is not the call the model meant, and never counts as a fix.

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
/// When the model's arguments come as text (OpenAI-compatible servers,
/// Anthropic streams, calls found in an answer's text), the output may have
/// stopped after the last call was done — the cut text may even hold a
/// further call too broken to find — so that call is cut only when its
/// argument text is not yet a whole JSON value. When they come as an object
/// (Gemini, Anthropic's whole answers) the provider closed it itself and a
/// whole-looking object proves nothing: at the output limit the last call
/// is cut, and a provider's word is all there is to go on.
pub fn cut_call(cut: &Cut, calls: &[ToolCall], arguments_as_text: bool) -> Option<usize> {
    let last = calls.len().checked_sub(1)?;
    let surely = matches!(cut, Cut::Limit(_)) && !arguments_as_text;
    (surely || !is_whole_json(&calls[last].arguments)).then_some(last)
}

fn is_whole_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Files a judged call as truncated. Its one issue is the cut: what else
/// was wrong with its text follows from the cut. A call local repair could
/// close and validate still runs, so the turn goes on as it would have,
/// with the fixes that closed it listed; one it could not stays invalid,
/// and the model is told its output was cut.
pub fn mark_truncated(v: &mut CallVerdict<'_>, call: &ToolCall, cut: &Cut) {
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
    v.first_issues = smallvec::smallvec![cut_issue.clone()];
    if v.outcome == CallOutcome::Invalid {
        v.issues = smallvec::smallvec![cut_issue];
    } else {
        v.outcome = CallOutcome::Truncated;
    }
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
        for as_text in [false, true] {
            assert_eq!(cut_call(&limit, &calls, as_text), Some(1));
            assert_eq!(cut_call(&Cut::Stream, &calls, as_text), Some(1));
        }
        // The output stopped after a last call sent as text was whole: nothing was cut in it
        // (a real llama.cpp answer in recordings/ ends in a call too broken to find after it).
        assert_eq!(cut_call(&Cut::Stream, &calls[..1], true), None);
        assert_eq!(cut_call(&limit, &calls[..1], true), None);
        // At the limit, an object a provider closed itself proves nothing.
        assert_eq!(cut_call(&limit, &calls[..1], false), Some(0));
        assert_eq!(cut_call(&Cut::Stream, &calls[..1], false), None);
        // Nothing of the arguments arrived yet.
        assert_eq!(cut_call(&Cut::Stream, &[call("")], true), Some(0));
        assert_eq!(cut_call(&limit, &[], false), None);
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
        // Closed, it runs, but as truncated: not repaired, and nothing left to report as still wrong.
        assert_eq!((v.outcome, v.invalid_kinds(), v.remaining_kinds()), (CallOutcome::Truncated, vec![InvalidKind::Truncated], vec![]));
        assert_eq!(v.args, Some(serde_json::json!({"path": "taxes.md", "content": "Filing taxes"})));
        assert!(!v.fixes.is_empty(), "the fixes that closed it are listed");
        assert_eq!(
            v.first_issues[0].message,
            "the model's output was cut at its output limit (finish reason `length`) while it wrote this call: \
             its arguments end unfinished after 45 characters"
        );

        // Without repair the text stays unclosed: invalid, and the model is told why.
        let mut v = check_call(&cut_text, &tools, PipelineOptions { repair: RepairMode::Off, rules: &rules });
        mark_truncated(&mut v, &cut_text, &Cut::Stream);
        assert_eq!(
            (v.outcome, v.invalid_kinds(), v.remaining_kinds()),
            (CallOutcome::Invalid, vec![InvalidKind::Truncated], vec![InvalidKind::Truncated])
        );
        let told = v.error_message(&cut_text, &tools);
        assert!(told.starts_with("invalid tool call: arguments of `write_file` are invalid: the stream ended before"), "{told}");

        // A whole-looking call (Gemini sends an object) at the limit still runs, as truncated.
        let whole = call(r#"{"path": "taxes.md", "content": "Filing taxes"}"#);
        let mut v = check_call(&whole, &tools, PipelineOptions { repair: RepairMode::Local, rules: &rules });
        mark_truncated(&mut v, &whole, &Cut::Limit("MAX_TOKENS".into()));
        assert_eq!((v.outcome, v.invalid_kinds()), (CallOutcome::Truncated, vec![InvalidKind::Truncated]));
    }
}
