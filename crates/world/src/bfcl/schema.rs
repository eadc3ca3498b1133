//! BFCL's parameter schemas as JSON Schema for providers and the validator.
//!
//! BFCL writes `dict`, `float`, `tuple`, `any` and Java/JavaScript type
//! names, and defaults that contradict their type (`"0"` for an integer).
//! Python categories map the types (`dict`→object, `float`→number,
//! `tuple`→array, `any`→no constraint); in Java and JavaScript categories
//! every parameter is a string in that language's syntax, as BFCL sends it,
//! with the declared type written into the description. Keywords outside
//! JSON Schema (`optional`) are dropped; a default or enum that does not fit
//! the type is coerced when its text parses (`"0"`→0), else moved into the
//! description; `null` defaults are dropped.

use serde_json::{json, Map, Value};

use super::{Language, ParamType};

/// JSON Schema keywords kept from BFCL's schemas.
const KEPT: [&str; 12] = [
    "description",
    "enum",
    "default",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "required",
];

/// The JSON Schema type of a BFCL (Python-style) type name; `None` for any value.
fn json_type(bfcl: &str) -> Option<&'static str> {
    Some(match bfcl {
        "integer" | "byte" | "short" | "long" | "Bigint" => "integer",
        "float" | "number" | "double" => "number",
        "boolean" | "bool" | "Boolean" => "boolean",
        "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" => "array",
        "dict" | "object" | "HashMap" | "Hashtable" => "object",
        "any" | "Any" => return None,
        _ => "string",
    })
}

fn fits(value: &Value, json_type: &str) -> bool {
    match json_type {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// A string value read as `json_type`, when its text says so plainly.
fn coerce(value: &Value, json_type: &str) -> Option<Value> {
    let text = value.as_str()?.trim();
    match json_type {
        "integer" => text.parse::<i64>().ok().map(Value::from),
        "number" => text.parse::<f64>().ok().filter(|f| f.is_finite()).map(Value::from),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "array" | "object" => serde_json::from_str::<Value>(text).ok().filter(|v| fits(v, json_type)),
        _ => None,
    }
}

fn append_description(schema: &mut Map<String, Value>, note: &str) {
    let text = schema.get("description").and_then(Value::as_str).unwrap_or("").to_string();
    let joined = if text.is_empty() { note.trim_start().to_string() } else { format!("{text}{note}") };
    schema.insert("description".into(), Value::String(joined));
}

/// Makes `default` and `enum` agree with the schema's type (see the module doc).
fn reconcile(schema: &mut Map<String, Value>) {
    let Some(t) = schema.get("type").and_then(Value::as_str).map(str::to_string) else { return };
    if let Some(default) = schema.remove("default") {
        if default.is_null() {
            // Means "optional"; carries nothing a model needs.
        } else if fits(&default, &t) {
            schema.insert("default".into(), default);
        } else if let Some(v) = coerce(&default, &t) {
            schema.insert("default".into(), v);
        } else {
            append_description(schema, &format!(" Default: {default}."));
        }
    }
    if let Some(Value::Array(values)) = schema.remove("enum") {
        if values.iter().all(|v| fits(v, &t)) {
            schema.insert("enum".into(), Value::Array(values));
        } else if let Some(coerced) =
            values.iter().map(|v| if fits(v, &t) { Some(v.clone()) } else { coerce(v, &t) }).collect::<Option<Vec<_>>>()
        {
            schema.insert("enum".into(), Value::Array(coerced));
        } else {
            append_description(schema, &format!(" One of: {}.", Value::Array(values)));
        }
    }
}

/// One BFCL (Python-style) schema node as JSON Schema.
fn python_node(node: &Value) -> Value {
    let Some(src) = node.as_object() else { return json!({}) };
    let declared = src.get("type").and_then(Value::as_str).unwrap_or("string");
    let mut out = Map::new();
    if let Some(t) = json_type(declared) {
        out.insert("type".into(), Value::String(t.into()));
    }
    for key in KEPT {
        if let Some(v) = src.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if declared == "float" {
        append_description(&mut out, " This is a float type value.");
    }
    if let Some(Value::Object(props)) = src.get("properties") {
        out.insert("properties".into(), Value::Object(props.iter().map(|(k, v)| (k.clone(), python_node(v))).collect()));
    }
    if let Some(items) = src.get("items") {
        out.insert("items".into(), python_node(items));
    }
    reconcile(&mut out);
    Value::Object(out)
}

/// One top-level parameter of a Java or JavaScript function: a string in
/// that language's syntax, described as BFCL describes it to models.
fn language_param(node: &Value, language: Language) -> Value {
    let Some(src) = node.as_object() else { return json!({"type": "string"}) };
    let declared = src.get("type").and_then(Value::as_str).unwrap_or("any");
    let lang = if language == Language::Java { "Java" } else { "JavaScript" };
    let mut out = Map::new();
    out.insert("type".into(), Value::String("string".into()));
    for key in KEPT.iter().filter(|k| **k != "required") {
        if let Some(v) = src.get(*key) {
            out.insert((*key).into(), v.clone());
        }
    }
    if declared == "any" {
        append_description(&mut out, &format!(" This parameter can be of any type of {lang} object in string representation."));
    } else {
        append_description(&mut out, &format!(" This is {lang} {declared} type parameter in string representation."));
    }
    let listed = matches!((language, declared), (Language::Java, "ArrayList" | "Array") | (Language::Javascript, "array"));
    if let (true, Some(item)) = (listed, src.get("items").and_then(|i| i.get("type")).and_then(Value::as_str)) {
        append_description(&mut out, &format!(" The list elements are of type {item}; they are not in string representation."));
    }
    if let (Language::Javascript, "dict", Some(props)) = (language, declared, src.get("properties")) {
        append_description(
            &mut out,
            &format!(" The dictionary entries have the following schema; they are not in string representation. {props}"),
        );
    }
    // Values are strings here: a default or enum of another type is written as text.
    if let Some(default) = out.remove("default") {
        match default {
            Value::Null => {}
            Value::String(s) => {
                out.insert("default".into(), Value::String(s));
            }
            other => {
                out.insert("default".into(), Value::String(other.to_string()));
            }
        }
    }
    if let Some(Value::Array(values)) = out.remove("enum") {
        let texts: Vec<Value> = values.into_iter().map(|v| if v.is_string() { v } else { Value::String(v.to_string()) }).collect();
        out.insert("enum".into(), Value::Array(texts));
    }
    Value::Object(out)
}

/// A BFCL function's `parameters` as a JSON Schema object.
pub fn parameters_schema(parameters: &Value, language: Language) -> Value {
    let properties = parameters.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let converted: Map<String, Value> = properties
        .iter()
        .map(|(k, v)| {
            let node = match language {
                Language::Python => python_node(v),
                Language::Java | Language::Javascript => language_param(v, language),
            };
            (k.clone(), node)
        })
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), Value::String("object".into()));
    out.insert("properties".into(), Value::Object(converted));
    if let Some(required) = parameters.get("required").filter(|r| r.is_array()) {
        out.insert("required".into(), required.clone());
    }
    Value::Object(out)
}

/// The declared types of a function's parameters, as the checker needs them.
pub fn param_types(parameters: &Value) -> std::collections::BTreeMap<String, ParamType> {
    parameters
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| {
                    let kind = v.get("type").and_then(Value::as_str).unwrap_or("string").to_string();
                    let items = v.pointer("/items/type").and_then(Value::as_str).map(str::to_string);
                    (k.clone(), ParamType { kind, items })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// BFCL's note on the language of a function, appended to its description.
pub fn language_hint(language: Language) -> &'static str {
    match language {
        Language::Python => " Note that the provided function is in Python 3 syntax.",
        Language::Java => " Note that the provided function is in Java 8 SDK syntax.",
        Language::Javascript => " Note that the provided function is in JavaScript syntax.",
    }
}

/// Removes the schema keywords that reject `value` (at most a few rounds).
pub fn relax_until_valid(schema: &mut Value, value: &Value) {
    for _ in 0..8 {
        let Ok(validator) = jsonschema::validator_for(schema) else { return };
        let paths: Vec<String> = validator.iter_errors(value).map(|e| e.schema_path().to_string()).collect();
        if paths.is_empty() {
            return;
        }
        for path in paths {
            let (node, keyword) = match path.rsplit_once('/') {
                Some((node, keyword)) => (node.to_string(), keyword.to_string()),
                None => continue,
            };
            // A failing item of `anyOf`-like keywords or `required` is not ours to drop.
            if keyword.chars().all(|c| c.is_ascii_digit()) || keyword == "required" {
                continue;
            }
            let Some(Value::Object(map)) = schema.pointer_mut(&node) else { continue };
            let Some(removed) = map.remove(&keyword) else { continue };
            let note = match keyword.as_str() {
                "enum" => format!(" One of: {removed}."),
                "type" => format!(" Type: {}.", removed.as_str().unwrap_or("any")),
                _ => String::new(),
            };
            if !note.is_empty() {
                let text = map.get("description").and_then(Value::as_str).unwrap_or("").to_string();
                map.insert("description".into(), Value::String(format!("{text}{note}").trim_start().to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_types_map_and_defaults_follow_the_type() {
        let params = json!({"type": "dict", "properties": {
            "n": {"type": "integer", "default": "0", "description": "count"},
            "ratio": {"type": "float", "default": 0.5, "description": "r"},
            "flag": {"type": "boolean", "default": "false", "optional": true},
            "point": {"type": "tuple", "items": {"type": "float"}},
            "opts": {"type": "dict", "properties": {"k": {"type": "string", "default": null}}},
            "x": {"type": "any", "description": "anything"},
            "unit": {"type": "string", "enum": ["a", "b"], "default": "celsius please"},
            "size": {"type": "integer", "default": "large"}
        }, "required": ["n"]});
        let s = parameters_schema(&params, Language::Python);
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["n"], json!({"type": "integer", "default": 0, "description": "count"}));
        assert_eq!(s["properties"]["ratio"]["type"], "number");
        assert_eq!(s["properties"]["ratio"]["description"], "r This is a float type value.");
        assert_eq!(s["properties"]["flag"], json!({"type": "boolean", "default": false}));
        assert_eq!(
            s["properties"]["point"],
            json!({"type": "array", "items": {"type": "number", "description": "This is a float type value."}})
        );
        assert_eq!(s["properties"]["opts"], json!({"type": "object", "properties": {"k": {"type": "string"}}}));
        assert_eq!(s["properties"]["x"], json!({"description": "anything"}));
        assert_eq!(s["properties"]["size"], json!({"type": "integer", "description": "Default: \"large\"."}));
        assert_eq!(s["required"], json!(["n"]));
        assert!(jsonschema::validator_for(&s).is_ok());
    }

    #[test]
    fn java_parameters_are_strings_described_by_their_type() {
        let params = json!({"type": "dict", "properties": {
            "ids": {"type": "ArrayList", "items": {"type": "String"}, "description": "The ids."},
            "ctl": {"type": "any", "description": "C."},
            "n": {"type": "long", "default": 5}
        }, "required": ["ids"]});
        let s = parameters_schema(&params, Language::Java);
        assert_eq!(
            s["properties"]["ids"],
            json!({"type": "string", "description": "The ids. This is Java ArrayList type parameter in string representation. The list elements are of type String; they are not in string representation."})
        );
        assert_eq!(s["properties"]["ctl"]["description"], "C. This parameter can be of any type of Java object in string representation.");
        assert_eq!(s["properties"]["n"]["default"], "5");
        let t = param_types(&params);
        assert_eq!(t["ids"], ParamType { kind: "ArrayList".into(), items: Some("String".into()) });
    }
}
