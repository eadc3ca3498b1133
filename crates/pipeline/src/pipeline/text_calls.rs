//! Tool calls written as text in a model's answer instead of as structured
//! calls: between `<tool_call>` tags (Qwen and Hermes style), in a fenced
//! JSON block, or as a bare `{"name": ..., "arguments": ...}` object in prose.
//! Small models do this when a server's tool parser misses their format, and
//! `tool_format = "text"` asks for it on purpose.
//!
//! The arguments are returned as the model wrote them whenever they can be
//! cut out of the text, so the pipeline's own stages see (and count) any
//! broken JSON inside.

use serde_json::Value;

use super::lenient::parse_lenient;
use crate::core::names::normalise_name;

/// How a call was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextCallForm {
    /// `<tool_call>{...}</tool_call>`
    Tagged,
    /// A fenced code block holding the call object.
    Fenced,
    /// A call object in prose.
    Bare,
}

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    pub name: String,
    /// The argument text (`{}` when the call gave none).
    pub arguments: String,
    pub form: TextCallForm,
}

const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";
const NAME_KEYS: [&str; 3] = ["name", "tool_name", "tool"];
const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "args", "input"];
/// Bare objects tried per text: a bound on work for adversarial input.
const MAX_CANDIDATES: usize = 64;

/// The calls written in `text`. Tagged calls count whatever they name, and
/// so does an answer that is nothing but a call object (bare or fenced);
/// a fenced or bare object within prose counts only when its name is one of
/// `offered` (exactly or after normalising), since a model may show JSON
/// for other reasons.
pub fn find_text_calls(text: &str, offered: &[&str]) -> Vec<TextCall> {
    let tagged = tagged_calls(text);
    if !tagged.is_empty() {
        return tagged;
    }
    let whole = strip_fence(text.trim());
    if whole.starts_with(['{', '[']) && balanced_end(whole, 0) == Some(whole.len()) {
        let form = if whole.len() < text.trim().len() { TextCallForm::Fenced } else { TextCallForm::Bare };
        let calls = read_calls(whole, form);
        if !calls.is_empty() {
            return calls;
        }
    }
    let known = |name: &str| offered.iter().any(|o| *o == name || normalise_name(o) == normalise_name(name));
    let fenced: Vec<TextCall> =
        fenced_blocks(text).into_iter().flat_map(|b| read_calls(b, TextCallForm::Fenced)).filter(|c| known(&c.name)).collect();
    if !fenced.is_empty() {
        return fenced;
    }
    bare_calls(text, &known)
}

/// The text with every tagged call removed, trimmed; `None` if nothing is left.
pub fn text_around_calls(text: &str) -> Option<String> {
    let mut rest = String::new();
    let mut at = 0;
    while let Some(open) = text[at..].find(OPEN_TAG).map(|i| at + i) {
        rest.push_str(&text[at..open]);
        at = match text[open..].find(CLOSE_TAG) {
            Some(close) => open + close + CLOSE_TAG.len(),
            None => text.len(),
        };
    }
    rest.push_str(&text[at..]);
    let rest = rest.trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

fn tagged_calls(text: &str) -> Vec<TextCall> {
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find(OPEN_TAG).map(|i| at + i + OPEN_TAG.len()) {
        // A call cut off by the token limit has no closing tag: read to the end.
        let close = text[open..].find(CLOSE_TAG).map_or(text.len(), |i| open + i);
        let inner = text[open..close].trim();
        let inner = strip_fence(inner);
        let found = read_calls(inner, TextCallForm::Tagged);
        if found.is_empty() && !inner.is_empty() {
            // Unreadable, but the model meant a call: the pipeline reports it.
            calls.push(TextCall { name: raw_name(inner).unwrap_or_default(), arguments: inner.to_string(), form: TextCallForm::Tagged });
        }
        calls.extend(found);
        at = (close + CLOSE_TAG.len()).min(text.len());
    }
    calls
}

/// A code fence around a tag's content, removed.
fn strip_fence(text: &str) -> &str {
    match fenced_blocks(text).first() {
        Some(inner) if text.starts_with("```") => inner,
        _ => text,
    }
}

/// The contents of the fenced code blocks in `text` (an unclosed last fence runs to the end).
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find("```").map(|i| at + i + 3) {
        // Skip the language tag on the opening line.
        let body = text[open..].find('\n').map_or(text.len(), |i| open + i + 1);
        let close = text[body..].find("```").map_or(text.len(), |i| body + i);
        blocks.push(text[body..close].trim());
        at = (close + 3).min(text.len());
    }
    blocks
}

fn bare_calls(text: &str, known: &dyn Fn(&str) -> bool) -> Vec<TextCall> {
    let mut calls = Vec::new();
    let mut tried = 0;
    let mut at = 0;
    while let Some(start) = text[at..].find('{').map(|i| at + i) {
        at = start + 1;
        if !starts_with_call_key(&text[at..]) {
            continue;
        }
        tried += 1;
        if tried > MAX_CANDIDATES {
            break;
        }
        let end = balanced_end(text, start).unwrap_or(text.len());
        let found: Vec<TextCall> = read_calls(&text[start..end], TextCallForm::Bare).into_iter().filter(|c| known(&c.name)).collect();
        if !found.is_empty() {
            calls.extend(found);
            at = end;
        }
    }
    calls
}

/// Whether an object's first key (after its `{`) is one a call object starts with.
fn starts_with_call_key(after_brace: &str) -> bool {
    let rest = after_brace.trim_start();
    let Some(rest) = rest.strip_prefix('"') else { return false };
    NAME_KEYS
        .iter()
        .chain(ARGUMENT_KEYS.iter())
        .chain(["function", "type"].iter())
        .any(|k| rest.strip_prefix(k).is_some_and(|r| r.starts_with('"')))
}

/// The calls in one JSON text: a call object, `{"function": {...}}`, or an
/// array of either. Broken JSON is read leniently, but the arguments are
/// cut out of the original text so their faults stay visible.
fn read_calls(json: &str, form: TextCallForm) -> Vec<TextCall> {
    if let Ok(value) = serde_json::from_str::<Value>(json) {
        return calls_in_value(&value, None, form);
    }
    match parse_lenient(json) {
        Ok((value, _)) => calls_in_value(&value, Some(json), form),
        Err(_) => Vec::new(),
    }
}

fn calls_in_value(value: &Value, raw: Option<&str>, form: TextCallForm) -> Vec<TextCall> {
    match value {
        Value::Array(items) => items.iter().flat_map(|v| call_in_object(v, None, form)).collect(),
        other => call_in_object(other, raw, form).into_iter().collect(),
    }
}

fn call_in_object(value: &Value, raw: Option<&str>, form: TextCallForm) -> Option<TextCall> {
    let object = value.as_object()?;
    if let Some(inner @ Value::Object(_)) = object.get("function") {
        return call_in_object(inner, raw, form);
    }
    let name = NAME_KEYS.iter().find_map(|k| object.get(*k)?.as_str())?.to_string();
    let arguments = match ARGUMENT_KEYS.iter().find_map(|k| object.get(*k)) {
        None | Some(Value::Null) => "{}".to_string(),
        // Arguments encoded as a JSON string are passed on as that string.
        Some(Value::String(s)) => s.clone(),
        Some(args) => raw.and_then(raw_arguments).unwrap_or_else(|| args.to_string()),
    };
    Some(TextCall { name, arguments, form })
}

/// The arguments' own text in a broken call object: the value after the
/// first argument key, to its closing bracket (or the end, if it has none).
fn raw_arguments(json: &str) -> Option<String> {
    let value_start = ARGUMENT_KEYS.iter().find_map(|k| {
        let at = json.find(&format!("\"{k}\""))? + k.len() + 2;
        let rest = json[at..].trim_start().strip_prefix(':')?;
        Some(json.len() - rest.trim_start().len())
    })?;
    if !matches!(json[value_start..].chars().next(), Some('{' | '[')) {
        return None;
    }
    let end = balanced_end(json, value_start).unwrap_or_else(|| {
        // Unclosed: everything up to the call object's own closing brace, if any.
        let tail = json.trim_end();
        tail.strip_suffix('}').map_or(tail.len(), str::len)
    });
    Some(json[value_start..end].trim_end().to_string())
}

/// The name in an unreadable call object, found by its key.
fn raw_name(json: &str) -> Option<String> {
    let at = json.find("\"name\"")? + 6;
    let rest = json[at..].trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// The byte after the bracket that closes the one at `start`, skipping strings.
fn balanced_end(text: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFERED: [&str; 2] = ["read_file", "run_terminal_cmd"];

    fn one(text: &str) -> TextCall {
        let calls = find_text_calls(text, &OFFERED);
        assert_eq!(calls.len(), 1, "{text}: {calls:?}");
        calls.into_iter().next().unwrap()
    }

    #[test]
    fn a_tagged_call_is_read_with_its_arguments() {
        let c = one("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"a.rs\"}}\n</tool_call>");
        assert_eq!((c.name.as_str(), c.arguments.as_str(), c.form), ("read_file", r#"{"target_file":"a.rs"}"#, TextCallForm::Tagged));
    }

    #[test]
    fn tagged_calls_count_whatever_they_name_and_several_are_kept_in_order() {
        let text = "<tool_call>{\"name\": \"nope\", \"arguments\": {}}</tool_call> then <tool_call>{\"name\": \"read_file\"}</tool_call>";
        let calls = find_text_calls(text, &OFFERED);
        assert_eq!(calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["nope", "read_file"]);
        assert_eq!(calls[1].arguments, "{}");
    }

    #[test]
    fn broken_arguments_come_out_as_the_model_wrote_them() {
        let c = one("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {'target_file': 'a.rs',}}\n</tool_call>");
        assert_eq!(c.arguments, "{'target_file': 'a.rs',}");
        // Cut off by the token limit: no closing brace or tag.
        let c = one("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"src/ma");
        assert_eq!(c.arguments, "{\"target_file\": \"src/ma");
    }

    #[test]
    fn an_unreadable_tag_is_still_a_call_for_the_pipeline_to_judge() {
        let c = one("<tool_call>read_file(target_file='a.rs')</tool_call>");
        assert_eq!((c.name.as_str(), c.arguments.as_str()), ("", "read_file(target_file='a.rs')"));
    }

    #[test]
    fn a_fenced_call_and_a_bare_call_need_an_offered_name() {
        let fenced = "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"a.rs\"}}\n```";
        assert_eq!(one(fenced).form, TextCallForm::Fenced);
        let bare = "Sure! {\"name\": \"ReadFile\", \"parameters\": {\"target_file\": \"a.rs\"}} should do it.";
        let c = one(bare);
        assert_eq!((c.name.as_str(), c.form, c.arguments.as_str()), ("ReadFile", TextCallForm::Bare, r#"{"target_file":"a.rs"}"#));
        assert!(find_text_calls("Here is the config: {\"name\": \"my-app\", \"version\": \"1.0\"}", &OFFERED).is_empty());
        assert!(find_text_calls("The config:\n```json\n{\"name\": \"my-app\"}\n```", &OFFERED).is_empty());
    }

    #[test]
    fn an_answer_that_is_only_a_call_counts_whatever_it_names() {
        // Seen from Qwen2.5-Coder-0.5B asked for tools as text: a call to a tool it made up.
        let c = one("{\"name\": \"delete_target_directory_and_rebuild\", \"arguments\": {\"target_directory\": \"/workspace/target\"}}");
        assert_eq!((c.name.as_str(), c.form), ("delete_target_directory_and_rebuild", TextCallForm::Bare));
        assert_eq!(one("```json\n{\"name\": \"say_hello\", \"arguments\": {}}\n```").form, TextCallForm::Fenced);
        assert!(find_text_calls("{\"answer\": 42}", &OFFERED).is_empty(), "an object that is not a call is not one");
    }

    #[test]
    fn wrapped_and_listed_calls_are_unwrapped() {
        let text = r#"[{"type": "function", "function": {"name": "read_file", "arguments": "{\"target_file\": \"a\"}"}}, {"name": "run_terminal_cmd", "arguments": {"command": "ls"}}]"#;
        let calls = find_text_calls(&format!("```\n{text}\n```"), &OFFERED);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, r#"{"target_file": "a"}"#, "a string is passed on as written");
    }

    #[test]
    fn plain_answers_and_hostile_text_find_nothing_and_do_not_panic() {
        for text in
            ["The file is fine.", "{", "{\"name\":", "<tool_call>", "```", "{{{{{{\"name\"", "\"}{\"name\"}]]", "<tool_call></tool_call>"]
        {
            let _ = find_text_calls(text, &OFFERED);
        }
        assert!(find_text_calls("The file is fine.", &OFFERED).is_empty());
        let nested = format!("{}\"name\"{}", "{".repeat(10_000), "}".repeat(10_000));
        assert!(find_text_calls(&nested, &OFFERED).is_empty());
    }

    #[test]
    fn the_text_around_tagged_calls_is_kept() {
        assert_eq!(text_around_calls("Let me look.\n<tool_call>{}</tool_call>\n"), Some("Let me look.".into()));
        assert_eq!(text_around_calls("<tool_call>{}</tool_call>"), None);
    }
}
