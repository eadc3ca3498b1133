//! What a right answer sends, from BFCL's answer key: the first acceptable
//! value of each parameter that is not the omitted marker `""`; nested dicts
//! by the same rule; in Java and JavaScript categories written as a string
//! in that language's syntax, which BFCL's converters turn back into the
//! answer's value.

use serde_json::{Map, Value};

use super::{Language, ParamType};

/// The first alternative that is not `""`.
fn first_concrete(alternatives: &Value) -> Option<&Value> {
    match alternatives {
        Value::Array(items) => items.iter().find(|v| v.as_str() != Some("")),
        other => Some(other),
    }
}

/// A nested dict of the answer key (`{key: [alternatives]}`) made concrete.
fn concrete_dict(answer: &Map<String, Value>) -> Value {
    Value::Object(answer.iter().filter_map(|(k, alts)| first_concrete(alts).map(|v| (k.clone(), v.clone()))).collect())
}

/// The value a right answer sends for one parameter, or `None` when the
/// parameter is best left out (its only acceptable value is `""`).
pub fn right_value(alternatives: &Value, declared: Option<&ParamType>, language: Language) -> Option<Value> {
    let value = first_concrete(alternatives)?;
    let kind = declared.map_or("", |t| t.kind.as_str());
    let items = declared.and_then(|t| t.items.as_deref());
    let value = match (kind, value) {
        ("dict" | "HashMap", Value::Object(answer)) => concrete_dict(answer),
        ("array" | "tuple" | "ArrayList" | "Array", Value::Array(list)) if items == Some("dict") => {
            Value::Array(list.iter().map(|v| v.as_object().map_or_else(|| v.clone(), concrete_dict)).collect())
        }
        _ => value.clone(),
    };
    Some(match language {
        Language::Python => value,
        Language::Java => Value::String(java_text(&value, kind, items)),
        Language::Javascript => Value::String(js_text(&value, kind, items)),
    })
}

/// Python's `str()` of a JSON value, as BFCL's converters leave strings.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "true".into(),
        Value::Bool(false) => "false".into(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

fn java_literal(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => plain(other),
    }
}

fn java_scalar(value: &Value, kind: &str) -> String {
    match (kind, value) {
        ("long", Value::Number(n)) => format!("{n}L"),
        ("float", Value::Number(n)) => format!("{}f", n.as_f64().map_or_else(|| n.to_string(), |f| format!("{f:?}"))),
        ("double", Value::Number(n)) => n.as_f64().map_or_else(|| n.to_string(), |f| format!("{f:?}")),
        _ => plain(value),
    }
}

/// Java source text that BFCL's `java_type_converter` reads back as `value`.
pub fn java_text(value: &Value, kind: &str, items: Option<&str>) -> String {
    let item_kind = items.unwrap_or("String");
    match (kind, value) {
        ("ArrayList", Value::Array(list)) if list.is_empty() => "new ArrayList<>()".into(),
        ("ArrayList", Value::Array(list)) => {
            let parts: Vec<String> = list
                .iter()
                .map(|v| match item_kind {
                    "String" => format!("\"{}\"", plain(v)),
                    "char" => format!("'{}'", plain(v)),
                    k => java_scalar(v, k),
                })
                .collect();
            format!("new ArrayList<>(Arrays.asList({}))", parts.join(", "))
        }
        ("Array", Value::Array(list)) => {
            let parts: Vec<String> = list.iter().map(|v| java_scalar(v, item_kind)).collect();
            format!("new {}[]{{{}}}", java_array_type(item_kind), parts.join(", "))
        }
        ("HashMap", Value::Object(map)) if map.is_empty() => "new HashMap<>()".into(),
        ("HashMap", Value::Object(map)) => {
            let puts: Vec<String> = map.iter().map(|(k, v)| format!("put(\"{k}\", {});", java_literal(v))).collect();
            format!("new HashMap<String, Object>() {{{{ {} }}}}", puts.join(" "))
        }
        _ => java_scalar(value, kind),
    }
}

fn java_array_type(item_kind: &str) -> &str {
    match item_kind {
        "integer" => "int",
        "String" => "String",
        "any" => "Object",
        other => other,
    }
}

fn js_literal(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        Value::Array(list) => format!("[{}]", list.iter().map(js_literal).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            format!("{{{}}}", map.iter().map(|(k, v)| format!("'{k}': {}", js_literal(v))).collect::<Vec<_>>().join(", "))
        }
        other => plain(other),
    }
}

/// JavaScript source text that BFCL's `js_type_converter` reads back as `value`.
pub fn js_text(value: &Value, kind: &str, items: Option<&str>) -> String {
    match (kind, value) {
        ("Bigint", Value::Number(n)) => format!("{n}n"),
        ("float", Value::Number(n)) => n.to_string(),
        ("array", Value::Array(list)) => {
            let parts: Vec<String> = list
                .iter()
                .map(|v| match (items, v) {
                    (Some("Bigint"), Value::Number(n)) => format!("{n}n"),
                    (_, v) => js_literal(v),
                })
                .collect();
            format!("[{}]", parts.join(", "))
        }
        ("dict", Value::Object(_)) => js_literal(value),
        _ => plain(value),
    }
}

/// Arguments that satisfy a JSON Schema, for a call whose values do not
/// matter (BFCL's relevance entries want any call): every required property
/// with its first enum value, its default, or a simple value of its type.
pub fn plausible_args(schema: &Value) -> Map<String, Value> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    required
        .into_iter()
        .map(|k| (k.to_string(), plausible_value(schema.pointer(&format!("/properties/{k}")).unwrap_or(&Value::Null))))
        .collect()
}

fn plausible_value(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => schema.get("minimum").cloned().unwrap_or(Value::from(1)),
        Some("number") => schema.get("minimum").cloned().unwrap_or(Value::from(1.0)),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(plausible_args(schema)),
        _ => Value::String("example".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::convert;
    use super::*;
    use serde_json::json;

    fn ty(kind: &str, items: Option<&str>) -> ParamType {
        ParamType { kind: kind.into(), items: items.map(str::to_string) }
    }

    #[test]
    fn python_takes_the_first_concrete_value_and_nested_dicts() {
        assert_eq!(right_value(&json!(["", 5]), Some(&ty("integer", None)), Language::Python), Some(json!(5)));
        assert_eq!(right_value(&json!([""]), Some(&ty("integer", None)), Language::Python), None);
        let dict = json!([{"city": ["Paris", "paris"], "zip": ["", "75001"], "note": [""]}]);
        assert_eq!(right_value(&dict, Some(&ty("dict", None)), Language::Python), Some(json!({"city": "Paris", "zip": "75001"})));
    }

    #[test]
    fn java_and_javascript_text_converts_back() {
        let cases = [
            (json!(50), ty("long", None)),
            (json!(1.5), ty("float", None)),
            (json!(2.25), ty("double", None)),
            (json!(true), ty("boolean", None)),
            (json!([1, 2, 3]), ty("Array", Some("integer"))),
            (json!(["a", "b"]), ty("ArrayList", Some("String"))),
            (json!({"limit": 50, "schema": "public"}), ty("HashMap", None)),
        ];
        for (value, t) in cases {
            let text = java_text(&value, &t.kind, t.items.as_deref());
            let back = convert::java(&text, &t.kind, t.items.as_deref()).unwrap();
            assert!(back.py_eq(&super::super::pyvalue::Py::from_json(&value)), "{text} -> {}", back.repr());
        }
        let cases = [
            (json!(7), ty("Bigint", None)),
            (json!(["x", "y"]), ty("array", Some("String"))),
            (json!({"a": 1, "b": "two", "c": [1, 2]}), ty("dict", None)),
            (json!(false), ty("Boolean", None)),
        ];
        for (value, t) in cases {
            let text = js_text(&value, &t.kind, t.items.as_deref());
            let back = convert::javascript(&text, &t.kind, t.items.as_deref()).unwrap();
            assert!(back.py_eq(&super::super::pyvalue::Py::from_json(&value)), "{text} -> {}", back.repr());
        }
    }
}
