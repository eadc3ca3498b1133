//! Provider strict mode for tool schemas (OpenAI's `strict: true` on a
//! function, `ModelConfig::strict_tools`): the tool's JSON Schema turned
//! into the subset strict mode accepts, or the precise reason it cannot be.
//!
//! Strict mode decodes against a grammar compiled from the schema, so it
//! takes a restricted schema: every object closed (`additionalProperties:
//! false`) with all its properties `required`, a property that was optional
//! made nullable instead, and only some keywords. A keyword it cannot take is
//! an error naming the tool, the JSON Pointer and the keyword — never dropped,
//! since a dropped constraint would let the model send what the tool forbids
//! while the run claims strict decoding. Annotations that constrain nothing
//! (`default`, `examples`, `$comment`, `$schema`, `$id`) are left out of what
//! is sent; calltape's pipeline still validates and repairs every call
//! against the tool's original schema.
//!
//! On the way back, `drop_absent_nulls` undoes the one change that alters
//! meaning: strict mode's `null` for a property that was optional means
//! "absent", and is removed before the pipeline sees the call.
//!
//! The rules follow OpenAI's "Supported schemas" for Structured Outputs:
//! types string, number, integer, boolean, object, array, null, with `enum`,
//! `const` and `anyOf` (not at the root); `pattern` and `format` (the listed
//! formats) on strings, `minimum`/`maximum`/`exclusiveMinimum`/
//! `exclusiveMaximum`/`multipleOf` on numbers, `minItems`/`maxItems` on
//! arrays; local `$ref` with `$defs`/`definitions`; at most 5,000 object
//! properties, 10 levels of object nesting, 1,000 enum values and 120,000
//! characters of property names, definition names and enum/const strings.

use serde_json::{json, Map, Value};

/// Levels of object nesting strict mode takes (the root object is level 1).
pub const MAX_NESTING: usize = 10;
/// Object properties strict mode takes across one schema.
pub const MAX_PROPERTIES: usize = 5000;
/// Enum values strict mode takes across one schema.
pub const MAX_ENUM_VALUES: usize = 1000;
/// Characters of property names, definition names and enum and const
/// strings strict mode takes across one schema.
pub const MAX_SCHEMA_CHARS: usize = 120_000;

/// The `format` values strict mode takes on strings.
const FORMATS: [&str; 9] = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// The types strict mode takes.
const TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];
/// Keywords kept as they are: annotations, and the constraints strict mode enforces.
const KEPT: [&str; 11] = [
    "description",
    "title",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "$ref",
];
/// Annotations left out of the strict schema: they constrain nothing, and
/// the pipeline still reads them from the original schema.
const LEFT_OUT: [&str; 5] = ["default", "examples", "$comment", "$schema", "$id"];

/// A tool's schema strict mode cannot take: which tool, where in its schema
/// (a JSON Pointer; empty for the root) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "schema not supported by strict mode: tool `{tool}`: {}: {problem} (the tool cannot be offered strictly; run this model without `strict_tools`, or change the tool's schema)",
    if pointer.is_empty() { "/" } else { pointer.as_str() }
)]
pub struct StrictUnsupported {
    /// The tool's name, as the scenario gives it.
    pub tool: String,
    /// Where in the tool's `parameters` the problem is.
    pub pointer: String,
    /// What strict mode cannot take there.
    pub problem: String,
}

/// The schema strict mode is sent for a tool's `parameters`, or why there is none.
pub fn strict_schema(tool: &str, parameters: &Value) -> Result<Value, StrictUnsupported> {
    let mut walk = Walk { tool, properties: 0, enum_values: 0, chars: 0 };
    let root = match parameters {
        Value::Object(o) if o.is_empty() => {
            return Ok(json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}))
        }
        Value::Object(o) => o,
        Value::Null => return Ok(json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})),
        _ => return Err(walk.unsupported("", "the parameters must be a JSON Schema object")),
    };
    if root.contains_key("anyOf") {
        return Err(walk.unsupported("", "`anyOf` at the root is not supported: the root must be a plain object"));
    }
    match root.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None if root.contains_key("properties") => {}
        _ => return Err(walk.unsupported("", "the root must be an object (`\"type\": \"object\"`)")),
    }
    let mut out = walk.schema(root, "", 0, true)?;
    // An object without `type` is still sent as one: strict mode wants it said.
    out.entry("type").or_insert_with(|| json!("object"));
    Ok(Value::Object(out))
}

/// Counts across one schema, for strict mode's limits.
struct Walk<'a> {
    tool: &'a str,
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl Walk<'_> {
    fn unsupported(&self, pointer: &str, problem: impl Into<String>) -> StrictUnsupported {
        StrictUnsupported { tool: self.tool.to_string(), pointer: pointer.to_string(), problem: problem.into() }
    }

    fn count_chars(&mut self, pointer: &str, n: usize) -> Result<(), StrictUnsupported> {
        self.chars += n;
        if self.chars > MAX_SCHEMA_CHARS {
            return Err(
                self.unsupported(pointer, format!("names and enum values exceed strict mode's {MAX_SCHEMA_CHARS} characters per schema"))
            );
        }
        Ok(())
    }

    /// The strict form of one subschema at `pointer`, inside `depth` objects.
    fn sub(&mut self, schema: &Value, pointer: &str, depth: usize) -> Result<Value, StrictUnsupported> {
        match schema {
            Value::Object(o) => self.schema(o, pointer, depth, false).map(Value::Object),
            Value::Bool(_) => Err(self.unsupported(pointer, "a boolean schema (`true`/`false`) is not supported")),
            _ => Err(self.unsupported(pointer, "a schema must be a JSON object")),
        }
    }

    fn schema(&mut self, s: &Map<String, Value>, pointer: &str, depth: usize, root: bool) -> Result<Map<String, Value>, StrictUnsupported> {
        let mut out = Map::new();
        let types = type_names(s.get("type")).ok_or_else(|| self.unsupported(pointer, "`type` must be a string or a list of strings"))?;
        if let Some(t) = types.iter().find(|t| !TYPES.contains(t)) {
            return Err(self.unsupported(pointer, format!("type `{t}` is not supported")));
        }
        let is_object = types.contains(&"object") || s.contains_key("properties");
        let is_array = types.contains(&"array") || s.contains_key("items");
        for (key, value) in s {
            let here = format!("{pointer}/{}", escape(key));
            match key.as_str() {
                k if KEPT.contains(&k) => {
                    if k == "$ref" && !value.as_str().is_some_and(|r| r.starts_with('#')) {
                        return Err(self.unsupported(&here, "only local `$ref` (starting with `#`) is supported"));
                    }
                    out.insert(key.clone(), value.clone());
                }
                k if LEFT_OUT.contains(&k) => {}
                "type" => {
                    out.insert(key.clone(), value.clone());
                }
                "format" => match value.as_str() {
                    Some(f) if FORMATS.contains(&f) => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => {
                        return Err(
                            self.unsupported(&here, format!("format {value} is not supported (strict mode takes {})", FORMATS.join(", ")))
                        )
                    }
                },
                "enum" => {
                    let values = value.as_array().ok_or_else(|| self.unsupported(&here, "`enum` must be a list"))?;
                    self.enum_values += values.len();
                    if self.enum_values > MAX_ENUM_VALUES {
                        return Err(self.unsupported(&here, format!("more than {MAX_ENUM_VALUES} enum values in one schema")));
                    }
                    let chars = values.iter().filter_map(Value::as_str).map(|v| v.chars().count()).sum();
                    self.count_chars(&here, chars)?;
                    out.insert(key.clone(), value.clone());
                }
                "const" => {
                    self.count_chars(&here, value.as_str().map_or(0, |v| v.chars().count()))?;
                    out.insert(key.clone(), value.clone());
                }
                "anyOf" => {
                    let branches = value.as_array().ok_or_else(|| self.unsupported(&here, "`anyOf` must be a list"))?;
                    let converted = branches.iter().enumerate().map(|(i, b)| self.sub(b, &format!("{here}/{i}"), depth)).collect::<Result<
                        Vec<_>,
                        _,
                    >>(
                    )?;
                    out.insert(key.clone(), Value::Array(converted));
                }
                "items" => {
                    if value.is_array() {
                        return Err(self.unsupported(&here, "`items` as a list (a tuple) is not supported"));
                    }
                    let items = self.sub(value, &here, depth)?;
                    out.insert(key.clone(), items);
                }
                "$defs" | "definitions" if root => {
                    let defs = value.as_object().ok_or_else(|| self.unsupported(&here, format!("`{key}` must be an object")))?;
                    let mut converted = Map::new();
                    for (name, def) in defs {
                        self.count_chars(&here, name.chars().count())?;
                        converted.insert(name.clone(), self.sub(def, &format!("{here}/{}", escape(name)), 0)?);
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                // Written below, from the properties.
                "properties" | "required" => {}
                "additionalProperties" => {
                    if value != &Value::Bool(false) {
                        return Err(self.unsupported(
                            &here,
                            format!("`additionalProperties: {value}` is not supported: strict mode allows no keys beyond `properties`"),
                        ));
                    }
                }
                _ => return Err(self.unsupported(&here, format!("`{key}` is not supported"))),
            }
        }
        if is_array && !s.contains_key("items") && !s.contains_key("$ref") {
            return Err(self.unsupported(pointer, "an array without `items` is not supported: strict mode needs the items' schema"));
        }
        if is_object {
            self.object(s, pointer, depth, root, &mut out)?;
        }
        Ok(out)
    }

    /// An object's properties, all required, the optional ones nullable; closed.
    fn object(
        &mut self,
        s: &Map<String, Value>,
        pointer: &str,
        depth: usize,
        root: bool,
        out: &mut Map<String, Value>,
    ) -> Result<(), StrictUnsupported> {
        let level = depth + 1;
        if level > MAX_NESTING {
            return Err(self.unsupported(pointer, format!("objects nested more than {MAX_NESTING} levels deep are not supported")));
        }
        let properties = match s.get("properties") {
            Some(Value::Object(p)) => p,
            Some(_) => return Err(self.unsupported(&format!("{pointer}/properties"), "`properties` must be an object")),
            None if root => &Map::new(),
            None => {
                return Err(self
                    .unsupported(pointer, "an object without `properties` (any keys) is not supported: strict mode needs every key named"))
            }
        };
        let required: Vec<&str> =
            s.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        self.properties += properties.len();
        if self.properties > MAX_PROPERTIES {
            return Err(self.unsupported(pointer, format!("more than {MAX_PROPERTIES} object properties in one schema")));
        }
        let mut converted = Map::new();
        for (name, schema) in properties {
            let here = format!("{pointer}/properties/{}", escape(name));
            self.count_chars(&here, name.chars().count())?;
            let strict = self.sub(schema, &here, level)?;
            converted.insert(name.clone(), if required.contains(&name.as_str()) { strict } else { nullable(strict) });
        }
        let all: Vec<Value> = properties.keys().map(|k| Value::String(k.clone())).collect();
        out.insert("properties".into(), Value::Object(converted));
        out.insert("required".into(), Value::Array(all));
        out.insert("additionalProperties".into(), Value::Bool(false));
        Ok(())
    }
}

/// The names in a `type` keyword (none when absent); `None` if it is malformed.
fn type_names(t: Option<&Value>) -> Option<Vec<&str>> {
    match t {
        None => Some(Vec::new()),
        Some(Value::String(s)) => Some(vec![s.as_str()]),
        Some(Value::Array(list)) => list.iter().map(Value::as_str).collect(),
        Some(_) => None,
    }
}

/// A schema that also admits `null`: strict mode's way of saying a property
/// may be left out, since every property must be present.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut s) = schema else { return schema };
    if admits_null(&s) {
        return Value::Object(s);
    }
    let null = Value::Null;
    if s.contains_key("const") {
        return json!({"anyOf": [Value::Object(s), {"type": "null"}]});
    }
    if let Some(Value::Array(values)) = s.get_mut("enum") {
        values.push(null);
    }
    let has_enum = s.contains_key("enum");
    match s.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            s.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) => types.push(json!("null")),
        _ if has_enum => {}
        _ => match s.get_mut("anyOf") {
            Some(Value::Array(branches)) => branches.push(json!({"type": "null"})),
            _ => {
                // A `$ref` (or a schema of annotations only): null beside it.
                let description = s.remove("description");
                let mut wrapped = json!({"anyOf": [Value::Object(s), {"type": "null"}]});
                if let Some(d) = description {
                    wrapped["description"] = d;
                }
                return wrapped;
            }
        },
    }
    Value::Object(s)
}

/// Whether a schema already lets `null` through on its own.
fn admits_null(s: &Map<String, Value>) -> bool {
    let typed = match s.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    let in_enum = s.get("enum").and_then(Value::as_array).is_some_and(|v| v.contains(&Value::Null));
    let in_any_of = s.get("anyOf").and_then(Value::as_array).is_some_and(|b| b.iter().any(|b| b.get("type") == Some(&json!("null"))));
    (typed && s.get("enum").is_none_or(|_| in_enum)) || (s.get("type").is_none() && in_enum) || in_any_of
}

/// A key as one JSON Pointer step.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// How deep `$ref`s are followed while dropping nulls (a recursive schema
/// stops here; the pipeline's local repair still drops any null left).
const REF_DEPTH: usize = 32;

/// A strict-mode call's arguments without the `null`s strict mode sends for
/// properties the tool's `original` schema leaves optional (and does not
/// let be null): those nulls mean "absent", which is what the tool was
/// asked. `None` when there is nothing to drop or the text is not a JSON
/// object (then it reaches the pipeline exactly as the model wrote it). The
/// rewritten text has its keys in sorted order.
pub fn drop_absent_nulls(original: &Value, arguments: &str) -> Option<String> {
    let mut value: Value = serde_json::from_str(arguments).ok()?;
    if !value.is_object() {
        return None;
    }
    drop_nulls(original, original, &mut value, 0).then(|| value.to_string())
}

/// Drops absent-meaning nulls in `value` by `schema`; whether any was dropped.
fn drop_nulls(root: &Value, schema: &Value, value: &mut Value, refs: usize) -> bool {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return match target.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(resolved) if refs < REF_DEPTH => drop_nulls(root, resolved, value, refs + 1),
            _ => false,
        };
    }
    let mut dropped = false;
    match value {
        Value::Object(fields) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return false };
            let required = |k: &str| schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == k));
            for (name, sub) in properties {
                let Some(v) = fields.get_mut(name) else { continue };
                if v.is_null() && !required(name) && !sub.as_object().is_some_and(admits_null) {
                    fields.remove(name);
                    dropped = true;
                } else {
                    dropped |= drop_nulls(root, sub, v, refs);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|i| i.is_object()) {
                for item in items {
                    dropped |= drop_nulls(root, item_schema, item, refs);
                }
            }
        }
        _ => {}
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// `(name, parameters)` of every tool in the bundled toolsets.
    fn bundled_toolsets() -> Vec<(String, Value)> {
        let mut tools = Vec::new();
        for file in ["scenarios/coding/toolsets/coding.json", "scenarios/stateful/toolsets/agent.json"] {
            let text = std::fs::read_to_string(root().join(file)).unwrap();
            let list: Vec<Value> = serde_json::from_str(&text).unwrap();
            tools.extend(list.into_iter().map(|t| (t["name"].as_str().unwrap().to_string(), t["parameters"].clone())));
        }
        tools
    }

    /// `(name, parameters)` of every tool in the bundled BFCL sample.
    fn bfcl_tools() -> Vec<(String, Value)> {
        let mut tools = Vec::new();
        for entry in std::fs::read_dir(root().join("scenarios/bfcl-sample")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue; // the NOTICE
            }
            let text = std::fs::read_to_string(path).unwrap();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let scenario: Value = serde_json::from_str(line).unwrap();
                for t in scenario["tools"].as_array().unwrap() {
                    tools.push((t["name"].as_str().unwrap().to_string(), t["parameters"].clone()));
                }
            }
        }
        tools
    }

    /// Every object in a strict schema is closed with all its properties required.
    fn assert_strict_shape(schema: &Value, pointer: &str) {
        match schema {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    let keys: Vec<Value> = props.keys().map(|k| json!(k)).collect();
                    assert_eq!(o.get("required"), Some(&Value::Array(keys)), "{pointer}");
                    assert_eq!(o.get("additionalProperties"), Some(&json!(false)), "{pointer}");
                }
                for k in LEFT_OUT {
                    assert!(!o.contains_key(k), "{pointer} keeps {k}");
                }
                for (k, v) in o {
                    assert_strict_shape(v, &format!("{pointer}/{k}"));
                }
            }
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| assert_strict_shape(v, &format!("{pointer}/{i}"))),
            _ => {}
        }
    }

    #[test]
    fn the_coding_tool_read_file_in_strict_form() {
        let tools = bundled_toolsets();
        let (_, read) = tools.iter().find(|(n, _)| n == "read_file").unwrap();
        let strict = strict_schema("read_file", read).unwrap();
        assert_eq!(
            strict["required"],
            json!(["end_line_one_indexed_inclusive", "explanation", "should_read_entire_file", "start_line_one_indexed", "target_file"])
        );
        assert_eq!(strict["additionalProperties"], json!(false));
        // Required ones keep their type; optional ones admit null, constraints kept.
        assert_eq!(strict["properties"]["target_file"]["type"], json!("string"));
        assert_eq!(strict["properties"]["should_read_entire_file"]["type"], json!("boolean"));
        assert_eq!(strict["properties"]["start_line_one_indexed"]["type"], json!(["integer", "null"]));
        assert_eq!(strict["properties"]["start_line_one_indexed"]["minimum"], json!(1));
        assert_eq!(strict["properties"]["explanation"]["type"], json!(["string", "null"]));
    }

    #[test]
    fn every_bundled_tool_converts_and_accepts_what_the_original_accepts() {
        for (name, parameters) in bundled_toolsets() {
            let strict = strict_schema(&name, &parameters).unwrap_or_else(|e| panic!("{e}"));
            assert_strict_shape(&strict, &name);
            assert_round_trip(&name, &parameters, &strict);
        }
    }

    /// A value strict decoding could write for `schema`: every optional
    /// property null, the rest a simple value within the constraints.
    fn instance(schema: &Value, root: &Value) -> Value {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            return instance(root.pointer(&r[1..]).unwrap(), root);
        }
        let o = schema.as_object().unwrap();
        if admits_null(o) {
            return Value::Null;
        }
        if let Some(c) = o.get("const") {
            return c.clone();
        }
        if let Some(values) = o.get("enum").and_then(Value::as_array) {
            return values[0].clone();
        }
        if let Some(branches) = o.get("anyOf").and_then(Value::as_array) {
            return instance(&branches[0], root);
        }
        match type_names(o.get("type")).unwrap().first().copied() {
            Some("string") => json!("s"),
            Some("integer") | Some("number") => o.get("minimum").cloned().unwrap_or(json!(1)),
            Some("boolean") => json!(false),
            Some("array") if o.get("minItems").and_then(Value::as_u64).unwrap_or(0) > 0 => json!([instance(&o["items"], root)]),
            Some("array") => json!([]),
            _ => Value::Object(o["properties"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), instance(v, root))).collect()),
        }
    }

    /// What strict decoding may write is valid for the strict schema, and,
    /// with its absent-meaning nulls dropped, for the original one.
    fn assert_round_trip(name: &str, original: &Value, strict: &Value) {
        let sent = instance(strict, strict);
        assert!(jsonschema::validator_for(strict).unwrap().is_valid(&sent), "{name}: {sent}");
        let back = drop_absent_nulls(original, &sent.to_string()).unwrap_or_else(|| sent.to_string());
        let back: Value = serde_json::from_str(&back).unwrap();
        assert!(jsonschema::validator_for(original).unwrap().is_valid(&back), "{name}: {back}");
        assert!(!back.to_string().contains("null"), "{name}: {back}");
    }

    #[test]
    fn bfcl_tools_convert_or_name_the_place_strict_mode_cannot_take() {
        let tools = bfcl_tools();
        assert!(tools.len() > 300, "{}", tools.len());
        let mut converted = 0;
        for (name, parameters) in &tools {
            match strict_schema(name, parameters) {
                Ok(strict) => {
                    converted += 1;
                    assert_strict_shape(&strict, name);
                    assert_round_trip(name, parameters, &strict);
                }
                Err(e) => {
                    assert_eq!(&e.tool, name);
                    // The pointer leads to a place in the original schema.
                    assert!(parameters.pointer(&e.pointer).is_some(), "{e}");
                    assert!(e.to_string().starts_with(&format!("schema not supported by strict mode: tool `{name}`: /")), "{e}");
                }
            }
        }
        // Most of BFCL is plain typed properties; the exceptions are free-form objects and arrays.
        assert!(converted * 10 > tools.len() * 9, "{converted} of {}", tools.len());
    }

    #[test]
    fn unsupported_keywords_are_errors_naming_tool_pointer_and_keyword() {
        let cases = [
            (
                json!({"type": "object", "properties": {"y": {"type": "object", "patternProperties": {"^a": {"type": "string"}}}}}),
                "schema not supported by strict mode: tool `x`: /properties/y/patternProperties: `patternProperties` is not supported",
            ),
            (
                json!({"anyOf": [{"type": "object"}]}),
                "schema not supported by strict mode: tool `x`: /: `anyOf` at the root is not supported",
            ),
            (json!({"type": "array", "items": {"type": "string"}}), "tool `x`: /: the root must be an object"),
            (
                json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1}}}),
                "/properties/s/minLength: `minLength` is not supported",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}),
                "/properties/a/uniqueItems",
            ),
            (
                json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
                "/properties/m/additionalProperties: `additionalProperties: {\"type\":\"string\"}` is not supported",
            ),
            (json!({"type": "object", "properties": {"m": {"type": "object"}}}), "/properties/m: an object without `properties`"),
            (json!({"type": "object", "properties": {"l": {"type": "array"}}}), "/properties/l: an array without `items`"),
            (
                json!({"type": "object", "properties": {"u": {"type": "string", "format": "uri"}}}),
                "/properties/u/format: format \"uri\" is not supported",
            ),
            (
                json!({"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}]}}}),
                "/properties/o/oneOf: `oneOf` is not supported",
            ),
            (
                json!({"type": "object", "properties": {"d": {"type": "dict", "properties": {}}}}),
                "/properties/d: type `dict` is not supported",
            ),
            (json!({"type": "object", "properties": {"a/b": {"type": "string", "maxLength": 3}}}), "/properties/a~1b/maxLength"),
            (json!({"type": "object", "properties": {"r": {"$ref": "other.json#/x"}}}), "/properties/r/$ref: only local `$ref`"),
            (
                json!({"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}),
                "/properties/t/items: `items` as a list",
            ),
        ];
        for (schema, want) in cases {
            let e = strict_schema("x", &schema).unwrap_err().to_string();
            assert!(e.contains(want), "{e}\n wanted: {want}");
            assert!(e.ends_with("run this model without `strict_tools`, or change the tool's schema)"), "{e}");
        }
    }

    #[test]
    fn nesting_and_property_limits() {
        let mut deep = json!({"type": "object", "properties": {"leaf": {"type": "string"}}, "required": ["leaf"]});
        for _ in 0..MAX_NESTING - 1 {
            deep = json!({"type": "object", "properties": {"n": deep}, "required": ["n"]});
        }
        assert!(strict_schema("x", &deep).is_ok());
        let deeper = json!({"type": "object", "properties": {"n": deep}, "required": ["n"]});
        let e = strict_schema("x", &deeper).unwrap_err();
        assert!(e.problem.contains("more than 10 levels"), "{e}");
        assert_eq!(e.pointer, format!("/properties/n{}", "/properties/n".repeat(MAX_NESTING - 1)));
        let many: Map<String, Value> = (0..=MAX_PROPERTIES).map(|i| (format!("p{i}"), json!({"type": "integer"}))).collect();
        let e = strict_schema("x", &json!({"type": "object", "properties": many})).unwrap_err();
        assert!(e.problem.contains("more than 5000 object properties"), "{e}");
        let values: Vec<Value> = (0..=MAX_ENUM_VALUES).map(|i| json!(i)).collect();
        let e = strict_schema("x", &json!({"type": "object", "properties": {"e": {"enum": values}}})).unwrap_err();
        assert_eq!(e.pointer, "/properties/e/enum");
    }

    #[test]
    fn optional_properties_become_nullable_in_every_shape() {
        let schema = json!({
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "ref": {"$ref": "#/$defs/point", "description": "where"},
                "choice": {"enum": ["a", "b"]},
                "fixed": {"const": "k"},
                "already": {"type": ["string", "null"]},
                "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}},
                "need": {"type": "integer"}
            },
            "required": ["need"],
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}}
        });
        let strict = strict_schema("t", &schema).unwrap();
        let p = &strict["properties"];
        assert_eq!(p["unit"], json!({"type": ["string", "null"], "enum": ["C", "F", null]}));
        assert_eq!(p["either"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}));
        assert_eq!(p["ref"], json!({"anyOf": [{"$ref": "#/$defs/point"}, {"type": "null"}], "description": "where"}));
        assert_eq!(p["choice"], json!({"enum": ["a", "b", null]}));
        assert_eq!(p["fixed"], json!({"anyOf": [{"const": "k"}, {"type": "null"}]}));
        assert_eq!(p["already"], json!({"type": ["string", "null"]}));
        assert_eq!(p["need"], json!({"type": "integer"}));
        assert_eq!(
            p["list"],
            json!({"type": ["array", "null"], "items": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}},
                "required": ["a", "b"], "additionalProperties": false}})
        );
        assert_eq!(strict["$defs"]["point"]["additionalProperties"], json!(false));
        assert_eq!(strict["required"].as_array().unwrap().len(), 8);
        // Every null stands for an absent optional property and is valid in strict form.
        let sent = json!({"unit": null, "either": null, "ref": null, "choice": null, "fixed": null, "already": null,
            "list": [{"a": 1, "b": null}], "need": 3});
        assert!(jsonschema::validator_for(&strict).unwrap().is_valid(&sent));
        let back: Value = serde_json::from_str(&drop_absent_nulls(&schema, &sent.to_string()).unwrap()).unwrap();
        // `already` admitted null before: its null is a real value and stays.
        assert_eq!(back, json!({"already": null, "list": [{"a": 1}], "need": 3}));
        assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&back));
    }

    #[test]
    fn nulls_are_dropped_only_where_they_mean_absent() {
        let schema = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/p"}, "n": {"type": "integer"}}, "required": ["n"],
            "$defs": {"p": {"type": "object", "properties": {"q": {"type": "string"}}}}});
        // A required property's null is the model's error: the pipeline reports it.
        assert_eq!(drop_absent_nulls(&schema, r#"{"n": null}"#), None);
        // Through a `$ref`.
        assert_eq!(drop_absent_nulls(&schema, r#"{"n": 1, "p": {"q": null}}"#).as_deref(), Some(r#"{"n":1,"p":{}}"#));
        // Nothing to drop, not an object, not JSON: the text is left as the model wrote it.
        assert_eq!(drop_absent_nulls(&schema, r#"{"n": 1}"#), None);
        assert_eq!(drop_absent_nulls(&schema, "[null]"), None);
        assert_eq!(drop_absent_nulls(&schema, r#"{"n": 1,}"#), None);
        // Annotations strict mode cannot use are left out; constraints are not.
        let strict = strict_schema(
            "t",
            &json!({"type": "object", "$schema": "x", "properties": {"a": {"type": "integer", "default": 1, "examples": [2]}}}),
        )
        .unwrap();
        assert_eq!(
            strict,
            json!({"type": "object", "properties": {"a": {"type": ["integer", "null"]}}, "required": ["a"], "additionalProperties": false})
        );
        // No parameters: an empty closed object.
        assert_eq!(
            strict_schema("t", &json!({})).unwrap(),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }
}
