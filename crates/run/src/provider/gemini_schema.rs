//! Tool parameter schemas as Gemini accepts them. `functionDeclarations[]
//! .parameters` is Gemini's `Schema` message, an OpenAPI 3.0 subset, not JSON
//! Schema: a request whose schema holds another keyword fails with HTTP 400
//! ("Invalid JSON payload received. Unknown name ..."). So only the fields
//! of `Schema` are kept (`KEPT`); the rest are rewritten or dropped:
//!
//! - `$ref` to a local definition (`#/$defs/…`, `#/definitions/…`) is inlined;
//!   `$schema`, `$id`, `$defs`, `definitions` then go.
//! - `type: ["string", "null"]` becomes `type: "string", nullable: true`;
//!   several non-null types become an `anyOf`.
//! - `oneOf` becomes `anyOf`; `const` a one-value `enum`.
//! - `enum` is kept only when its values are strings (Gemini's enums are
//!   string enums), `format` only when Gemini knows it.
//! - Dropped: `additionalProperties`, `allOf`, `not`, `if`/`then`/`else`,
//!   `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `patternProperties`,
//!   `unevaluatedProperties`, `dependentRequired`, `uniqueItems`, `examples`,
//!   and `default` (BFCL's defaults often contradict their declared type,
//!   which Gemini rejects too).
//!
//! The scenario's own schema is untouched: the pipeline validates calls
//! against it, whatever the model was shown.

use serde_json::{json, Map, Value};

/// The `Schema` fields passed through as they are.
const KEPT: &[&str] = &[
    "type",
    "title",
    "description",
    "nullable",
    "required",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "propertyOrdering",
];

/// The formats Gemini accepts (others are rejected).
const FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

/// How deep references are followed (a self-referencing schema stops here).
const MAX_DEPTH: usize = 12;

/// `parameters` for a tool with this JSON Schema, or `None` for a tool that
/// takes no arguments (Gemini rejects an object schema with no properties).
pub(super) fn parameters(schema: &Value) -> Option<Value> {
    let converted = convert(schema, schema, 0);
    let has_properties = converted.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    has_properties.then_some(converted)
}

fn convert(node: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(node) = node else { return json!({}) };
    if depth > MAX_DEPTH {
        return json!({});
    }
    if let Some(target) = node.get("$ref").and_then(Value::as_str).and_then(|r| resolve(root, r)) {
        let mut inlined = convert(target, root, depth + 1);
        // A description beside the reference describes this use of it.
        if let (Some(d), Value::Object(o)) = (node.get("description"), &mut inlined) {
            o.insert("description".into(), d.clone());
        }
        return inlined;
    }
    let mut out = Map::new();
    for (key, value) in node {
        match key.as_str() {
            "type" => set_type(&mut out, value),
            "properties" => {
                if let Value::Object(props) = value {
                    let props: Map<String, Value> = props.iter().map(|(k, v)| (k.clone(), convert(v, root, depth + 1))).collect();
                    out.insert("properties".into(), Value::Object(props));
                }
            }
            // A tuple form (an array of schemas) becomes its first item's schema.
            "items" => {
                let item = match value {
                    Value::Array(items) => items.first().unwrap_or(&Value::Null),
                    v => v,
                };
                out.insert("items".into(), convert(item, root, depth + 1));
            }
            "anyOf" | "oneOf" => {
                for alt in value.as_array().map(Vec::as_slice).unwrap_or_default() {
                    if alt.get("type").and_then(Value::as_str) == Some("null") {
                        out.insert("nullable".into(), json!(true));
                        continue;
                    }
                    let alt = convert(alt, root, depth + 1);
                    match out.get_mut("anyOf").and_then(Value::as_array_mut) {
                        Some(list) => list.push(alt),
                        None => {
                            out.insert("anyOf".into(), json!([alt]));
                        }
                    }
                }
            }
            "enum" => {
                if let Some(values) = value.as_array().filter(|v| v.iter().all(Value::is_string)) {
                    out.insert("enum".into(), Value::Array(values.clone()));
                }
            }
            "const" if value.is_string() && !node.contains_key("enum") => {
                out.insert("enum".into(), json!([value]));
            }
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert("format".into(), value.clone());
            }
            k if KEPT.contains(&k) => {
                out.insert(k.to_string(), value.clone());
            }
            _ => {}
        }
    }
    // Gemini's enums belong to strings; say so when the schema left the type out.
    if out.contains_key("enum") && !out.contains_key("type") {
        out.insert("type".into(), json!("string"));
    }
    // An anyOf of one schema is that schema.
    if let Some(Value::Array(alts)) = out.get("anyOf") {
        if alts.len() == 1 {
            if let Some(Value::Object(only)) = out.remove("anyOf").and_then(|a| a.as_array().and_then(|a| a.first().cloned())) {
                for (k, v) in only {
                    out.entry(k).or_insert(v);
                }
            }
        }
    }
    Value::Object(out)
}

/// `type` as Gemini takes it: one type name, with `nullable` for `"null"`.
fn set_type(out: &mut Map<String, Value>, value: &Value) {
    match value {
        Value::String(t) if t == "null" => {
            out.insert("nullable".into(), json!(true));
        }
        Value::String(_) => {
            out.insert("type".into(), value.clone());
        }
        Value::Array(types) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            if named.contains(&"null") {
                out.insert("nullable".into(), json!(true));
            }
            let real: Vec<&str> = named.into_iter().filter(|t| *t != "null").collect();
            match real.as_slice() {
                [] => {}
                [one] => {
                    out.insert("type".into(), json!(one));
                }
                many => {
                    out.insert("anyOf".into(), many.iter().map(|t| json!({"type": t})).collect());
                }
            }
        }
        _ => {}
    }
}

/// The schema a local reference (`#/…`, a JSON Pointer) points at.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejected_keywords_are_dropped_and_the_rest_kept() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "location": {"type": "string", "description": "City", "title": "Location", "minLength": 1, "default": "Paris"},
                "units": {"enum": ["c", "f"], "examples": ["c"]},
                "days": {"type": "integer", "minimum": 1, "exclusiveMaximum": 15, "format": "int32"},
                "when": {"type": "string", "format": "uri"},
                "tags": {"type": "array", "items": {"type": "string", "const": "x"}, "uniqueItems": true}
            },
            "required": ["location"]
        });
        assert_eq!(
            parameters(&schema).unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "City", "title": "Location", "minLength": 1},
                    "units": {"type": "string", "enum": ["c", "f"]},
                    "days": {"type": "integer", "minimum": 1, "format": "int32"},
                    "when": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["x"]}}
                },
                "required": ["location"]
            })
        );
    }

    #[test]
    fn nullable_types_unions_and_references() {
        let schema = json!({
            "type": "object",
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false}},
            "properties": {
                "name": {"type": ["string", "null"]},
                "id": {"type": ["string", "integer"]},
                "at": {"$ref": "#/$defs/Point", "description": "Where"},
                "mode": {"oneOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]},
                "level": {"type": "integer", "enum": [1, 2]},
                "self": {"$ref": "#"}
            }
        });
        let got = parameters(&schema).unwrap();
        assert_eq!(got["properties"]["name"], json!({"type": "string", "nullable": true}));
        assert_eq!(got["properties"]["id"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
        assert_eq!(got["properties"]["at"], json!({"type": "object", "properties": {"x": {"type": "number"}}, "description": "Where"}));
        assert_eq!(got["properties"]["mode"], json!({"type": "string", "enum": ["a"], "nullable": true}));
        assert_eq!(got["properties"]["level"], json!({"type": "integer"}));
        assert!(got.get("$defs").is_none());
        // A self-reference stops at the depth limit instead of recursing forever.
        assert!(got["properties"]["self"].is_object());
    }

    #[test]
    fn tools_without_arguments_send_no_parameters() {
        assert_eq!(parameters(&json!({"type": "object", "properties": {}})), None);
        assert_eq!(parameters(&json!({})), None);
        assert_eq!(parameters(&Value::Null), None);
    }
}
