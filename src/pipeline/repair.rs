//! Stage 4, local repair: fix parsed arguments against the tool's JSON
//! Schema without asking any model. It runs only on arguments the validator
//! rejected, walks them with the schema (into nested objects and arrays),
//! applies safe fixes — aliases, type coercions, defaults for missing
//! required parameters, dropping what the schema forbids, enum case — then
//! validates again; at most `MAX_ROUNDS` rounds, stopping when a round
//! changes nothing. Valid arguments are never touched.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::resolve::{edit_distance, normalise_name};
use super::validate::validate_args;
use super::CallIssue;
use crate::scenario::Tool;

/// Rounds of fix-then-validate before giving up.
pub const MAX_ROUNDS: usize = 4;

/// Per-tool repair configuration (`[pipeline.aliases.TOOL]`, `[pipeline.defaults.TOOL]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepairRules {
    /// Tool → (name the model uses → the schema's parameter name).
    pub aliases: BTreeMap<String, BTreeMap<String, String>>,
    /// Tool → parameter → value filled in when that required parameter is missing.
    pub defaults: BTreeMap<String, Map<String, Value>>,
}

/// One kind of local fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalFixKind {
    /// A parameter under another name, renamed.
    AliasRenamed,
    /// A scalar of the wrong type converted (`"5"` → 5, `"true"` → true, 5 → `"5"`).
    TypeCoerced,
    /// A scalar where an array is wanted, wrapped in one.
    WrappedInArray,
    /// A one-element array where a scalar is wanted, unwrapped.
    UnwrappedArray,
    /// A string holding JSON where an object or array is wanted, decoded.
    JsonStringDecoded,
    /// A missing required parameter given its default.
    DefaultFilled,
    /// A property the schema forbids, dropped.
    PropertyDropped,
    /// A `null` for an optional parameter that cannot be null, dropped.
    NullDropped,
    /// A string matching an enum option but for case or separators.
    EnumCaseFixed,
}

/// One fix: its kind, where (JSON Pointer), and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalFix {
    pub kind: LocalFixKind,
    pub path: String,
    pub detail: String,
}

/// What local repair did.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalRepair {
    pub args: Value,
    pub fixes: Vec<LocalFix>,
    /// What the validator still rejects (empty: the arguments are valid now).
    pub remaining: Vec<CallIssue>,
}

/// Repairs `args` of `tool`, given the validator's `issues` with them.
pub fn repair_locally(tool: &Tool, args: Value, issues: &[CallIssue], rules: &RepairRules) -> LocalRepair {
    let mut repair = LocalRepair { args, fixes: Vec::new(), remaining: issues.to_vec() };
    let root = &tool.spec.parameters;
    let fixer = Fixer { root, aliases: rules.aliases.get(&tool.spec.name), defaults: rules.defaults.get(&tool.spec.name) };
    for _ in 0..MAX_ROUNDS {
        if repair.remaining.is_empty() {
            break;
        }
        let before = repair.fixes.len();
        fixer.fix(root, &mut repair.args, "", &mut repair.fixes);
        if repair.fixes.len() == before {
            break;
        }
        repair.remaining = validate_args(&tool.validator, &repair.args);
    }
    repair
}

/// The walk over one call's arguments.
struct Fixer<'a> {
    root: &'a Value,
    aliases: Option<&'a BTreeMap<String, String>>,
    defaults: Option<&'a Map<String, Value>>,
}

/// A JSON Pointer segment.
fn pointer(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// The JSON type name of a value, as JSON Schema spells it.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl<'a> Fixer<'a> {
    /// The schema with local `$ref`s followed and `anyOf`/`oneOf` narrowed to
    /// the first branch the value's type fits (or the first branch).
    fn resolve(&self, schema: &'a Value, value: &Value) -> &'a Value {
        let mut s = schema;
        for _ in 0..8 {
            if let Some(r) = s.get("$ref").and_then(Value::as_str) {
                match r.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                    Some(target) => {
                        s = target;
                        continue;
                    }
                    None => return s,
                }
            }
            let branches = s.get("anyOf").or_else(|| s.get("oneOf")).and_then(Value::as_array);
            match branches {
                Some(bs) if !bs.is_empty() => {
                    s = bs.iter().find(|b| self.type_fits(b, value)).unwrap_or(&bs[0]);
                }
                _ => return s,
            }
        }
        s
    }

    /// The types a schema allows (empty: any).
    fn types(schema: &Value) -> Vec<&str> {
        match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the value's JSON type is one the schema allows (no allocation: a hot path).
    fn type_fits(&self, schema: &Value, value: &Value) -> bool {
        let schema = if schema.get("$ref").is_some() { self.resolve(schema, value) } else { schema };
        let t = type_of(value);
        let fits = |allowed: &str| allowed == t || (t == "integer" && allowed == "number");
        match schema.get("type") {
            Some(Value::String(allowed)) => fits(allowed),
            Some(Value::Array(allowed)) => allowed.iter().filter_map(Value::as_str).any(fits),
            _ => true,
        }
    }

    /// Fixes `value` in place against `schema`, recording each fix.
    fn fix(&self, schema: &'a Value, value: &mut Value, path: &str, fixes: &mut Vec<LocalFix>) {
        let schema = self.resolve(schema, value);
        if !self.type_fits(schema, value) {
            if let Some((fixed, kind)) = coerce(schema, value) {
                fixes.push(LocalFix { kind, path: path.to_string(), detail: format!("{value} → {fixed}") });
                *value = fixed;
            }
        }
        if let (Some(options), Value::String(s)) = (schema.get("enum").and_then(Value::as_array), &*value) {
            if !options.contains(value) {
                let folded = fold(s);
                let mut matching = options.iter().filter(|o| o.as_str().is_some_and(|o| fold(o) == folded));
                if let (Some(option), None) = (matching.next(), matching.next()) {
                    fixes.push(LocalFix {
                        kind: LocalFixKind::EnumCaseFixed,
                        path: path.to_string(),
                        detail: format!("{value} → {option}"),
                    });
                    *value = option.clone();
                }
            }
        }
        match value {
            Value::Object(map) => self.fix_object(schema, map, path, fixes),
            Value::Array(items) => {
                let prefix = schema.get("prefixItems").and_then(Value::as_array);
                let rest = schema.get("items").filter(|i| i.is_object());
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(s) = prefix.and_then(|p| p.get(i)).or(rest) {
                        self.fix(s, item, &format!("{path}/{i}"), fixes);
                    }
                }
            }
            _ => {}
        }
    }

    fn fix_object(&self, schema: &'a Value, map: &mut Map<String, Value>, path: &str, fixes: &mut Vec<LocalFix>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
        let required: Vec<&str> =
            schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let top = path.is_empty();

        // Configured aliases first (top level: they are per tool).
        if let (true, Some(aliases)) = (top, self.aliases) {
            for (alias, target) in aliases {
                if map.contains_key(alias) && !map.contains_key(target) && properties.contains_key(target) {
                    rename(map, alias, target, path, "configured alias", fixes);
                }
            }
        }
        self.rename_automatically(properties, &required, map, path, fixes);

        for (key, sub) in properties {
            let Some(v) = map.get_mut(key) else { continue };
            if v.is_null() && !required.contains(&key.as_str()) && !self.type_fits(sub, &Value::Null) {
                map.remove(key);
                fixes.push(LocalFix { kind: LocalFixKind::NullDropped, path: pointer(path, key), detail: format!("`{key}`: null") });
                continue;
            }
            self.fix(sub, v, &pointer(path, key), fixes);
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object()) {
            for (key, v) in map.iter_mut().filter(|(k, _)| !properties.contains_key(*k)) {
                self.fix(extra, v, &pointer(path, key), fixes);
            }
        }

        for key in &required {
            if map.contains_key(*key) {
                continue;
            }
            let from_schema =
                properties.get(*key).and_then(|p| p.get("default")).filter(|d| properties.get(*key).is_some_and(|p| self.type_fits(p, d)));
            let (default, origin) = match (from_schema, self.defaults.filter(|_| top).and_then(|d| d.get(*key))) {
                (Some(d), _) => (d.clone(), "schema default"),
                (None, Some(d)) => (d.clone(), "configured default"),
                (None, None) => continue,
            };
            fixes.push(LocalFix {
                kind: LocalFixKind::DefaultFilled,
                path: pointer(path, key),
                detail: format!("`{key}` = {default} ({origin})"),
            });
            map.insert(key.to_string(), default);
        }

        if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
            let forbidden: Vec<String> = map.keys().filter(|k| !properties.contains_key(*k)).cloned().collect();
            for key in forbidden {
                map.remove(&key);
                fixes.push(LocalFix {
                    kind: LocalFixKind::PropertyDropped,
                    path: pointer(path, &key),
                    detail: format!("`{key}` is not a parameter"),
                });
            }
        }
    }

    /// Renames undeclared properties to declared ones that are missing,
    /// when one candidate is clearly meant: the same name but for case and
    /// separators; a near miss; a shared word with a fitting value; or the
    /// only unexpected property against the only missing required one.
    fn rename_automatically(
        &self,
        properties: &'a Map<String, Value>,
        required: &[&str],
        map: &mut Map<String, Value>,
        path: &str,
        fixes: &mut Vec<LocalFix>,
    ) {
        let unexpected: Vec<String> = map.keys().filter(|k| !properties.contains_key(*k)).cloned().collect();
        if unexpected.is_empty() {
            return;
        }
        let mut missing: Vec<&str> = properties.keys().map(String::as_str).filter(|k| !map.contains_key(*k)).collect();
        // Required parameters first: they are what the model most likely meant.
        missing.sort_by_key(|k| !required.contains(k));
        let missing_required = missing.iter().filter(|k| required.contains(k)).count();
        let lone = unexpected.len() == 1 && missing_required == 1;
        // Names folded once: the rules compare every unexpected name with every missing one.
        let mut folded: Vec<(String, Vec<String>)> = missing.iter().map(|m| (normalise_name(m), words(m))).collect();
        for key in &unexpected {
            let value = &map[key];
            let fits = |target: &str| properties.get(target).is_some_and(|s| self.type_fits(s, value) || coerce(s, value).is_some());
            let norm = normalise_name(key);
            let key_words = words(key);
            let same = |i: usize| folded[i].0 == norm;
            let near = |i: usize| norm.chars().count() >= 5 && edit_distance(&norm, &folded[i].0) <= 2;
            let shared_word = |i: usize| key_words.iter().any(|w| folded[i].1.contains(w)) && fits(missing[i]);
            let rules: [&dyn Fn(usize) -> bool; 3] = [&same, &near, &shared_word];
            let mut chosen = None;
            for rule in rules {
                let candidates: Vec<&str> = (0..missing.len()).filter(|i| rule(*i)).map(|i| missing[i]).collect();
                match candidates.as_slice() {
                    [one] => {
                        chosen = Some((*one, "same parameter"));
                        break;
                    }
                    [] => continue,
                    _ => break, // ambiguous: rename nothing rather than guess
                }
            }
            if chosen.is_none() && lone {
                chosen = missing.iter().copied().find(|t| required.contains(t) && fits(t)).map(|t| (t, "only candidate"));
            }
            if let Some((target, why)) = chosen {
                rename(map, key, target, path, why, fixes);
                // A target is taken once: keep `missing` and `folded` in step.
                if let Some(i) = missing.iter().position(|m| *m == target) {
                    missing.remove(i);
                    folded.remove(i);
                }
            }
        }
    }
}

fn rename(map: &mut Map<String, Value>, from: &str, to: &str, path: &str, why: &str, fixes: &mut Vec<LocalFix>) {
    if let Some(v) = map.remove(from) {
        map.insert(to.to_string(), v);
        fixes.push(LocalFix { kind: LocalFixKind::AliasRenamed, path: pointer(path, to), detail: format!("`{from}` → `{to}` ({why})") });
    }
}

/// Words of a parameter name (snake, kebab or camel case), longer than two letters.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = matches!(c, '_' | '-' | '.' | ' ') || (c.is_uppercase() && prev_lower);
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.retain(|w| w.chars().count() > 2);
    out
}

/// Case and `-`/`_`/space folded away, for enum matching.
fn fold(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).flat_map(char::to_lowercase).collect()
}

/// A safe conversion of `value` to a type the schema wants, if there is one.
fn coerce(schema: &Value, value: &Value) -> Option<(Value, LocalFixKind)> {
    let types = Fixer::types(schema);
    let wants = |t: &str| types.contains(&t);
    match value {
        Value::String(s) => {
            let t = s.trim();
            if wants("integer") {
                if let Ok(i) = t.parse::<i64>() {
                    return Some((Value::from(i), LocalFixKind::TypeCoerced));
                }
            }
            if wants("number") {
                if let Some(n) = t.parse::<f64>().ok().filter(|n| n.is_finite()).and_then(serde_json::Number::from_f64) {
                    return Some((Value::Number(n), LocalFixKind::TypeCoerced));
                }
            }
            if wants("boolean") {
                match t.to_ascii_lowercase().as_str() {
                    "true" => return Some((Value::Bool(true), LocalFixKind::TypeCoerced)),
                    "false" => return Some((Value::Bool(false), LocalFixKind::TypeCoerced)),
                    _ => {}
                }
            }
            if wants("object") || wants("array") {
                let decoded = serde_json::from_str::<Value>(t)
                    .ok()
                    .or_else(|| super::lenient::parse_lenient(t).ok().map(|(v, _)| v))
                    .filter(|v| wants(type_of(v)));
                if let Some(v) = decoded {
                    return Some((v, LocalFixKind::JsonStringDecoded));
                }
            }
            if wants("array") {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            if wants("null") && t.eq_ignore_ascii_case("null") {
                return Some((Value::Null, LocalFixKind::TypeCoerced));
            }
            None
        }
        Value::Number(n) => {
            if wants("integer") {
                if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                    return Some((Value::from(f as i64), LocalFixKind::TypeCoerced));
                }
            }
            if wants("string") {
                return Some((Value::String(n.to_string()), LocalFixKind::TypeCoerced));
            }
            if wants("array") {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            None
        }
        Value::Bool(b) => {
            if wants("string") {
                return Some((Value::String(b.to_string()), LocalFixKind::TypeCoerced));
            }
            if wants("array") {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            None
        }
        Value::Array(items) if items.len() == 1 && !wants("array") => {
            let item = &items[0];
            let fitting = types.is_empty() || types.contains(&type_of(item)) || (type_of(item) == "integer" && wants("number"));
            if fitting {
                Some((item.clone(), LocalFixKind::UnwrappedArray))
            } else {
                coerce(schema, item).map(|(v, _)| (v, LocalFixKind::UnwrappedArray))
            }
        }
        Value::Object(_) if wants("string") => Some((Value::String(value.to_string()), LocalFixKind::TypeCoerced)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{compile_tool, ToolSpec};
    use serde_json::json;

    fn tool(name: &str, parameters: Value) -> Tool {
        compile_tool(ToolSpec { name: name.into(), description: String::new(), parameters, sensitive: false }).unwrap()
    }

    fn read_file() -> Tool {
        tool(
            "read_file",
            json!({"type": "object", "additionalProperties": false,
                "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                               "start_line_one_indexed": {"type": "integer", "minimum": 1}},
                "required": ["target_file", "should_read_entire_file"]}),
        )
    }

    fn run(t: &Tool, args: Value, rules: &RepairRules) -> LocalRepair {
        let issues = validate_args(&t.validator, &args);
        repair_locally(t, args, &issues, rules)
    }

    fn kinds(r: &LocalRepair) -> Vec<LocalFixKind> {
        r.fixes.iter().map(|f| f.kind).collect()
    }

    #[test]
    fn valid_arguments_are_untouched() {
        let args = json!({"target_file": "a", "should_read_entire_file": true});
        let r = run(&read_file(), args.clone(), &RepairRules::default());
        assert_eq!((r.args, r.fixes.len(), r.remaining.len()), (args, 0, 0));
    }

    #[test]
    fn aliases_by_normalised_name_near_miss_shared_word_and_lone_candidate() {
        let t = read_file();
        let none = RepairRules::default();
        let r = run(&t, json!({"targetFile": "a", "should_read_entire_file": true}), &none);
        assert_eq!(r.args, json!({"target_file": "a", "should_read_entire_file": true}));
        assert_eq!(r.fixes[0].detail, "`targetFile` → `target_file` (same parameter)");
        let r = run(&t, json!({"target_file": "a", "should_read_entire_fle": true}), &none);
        assert_eq!(r.args["should_read_entire_file"], true);
        let r = run(&t, json!({"file_path": "a", "should_read_entire_file": true}), &none);
        assert_eq!(r.args, json!({"target_file": "a", "should_read_entire_file": true}));
        let r = run(&t, json!({"path": "a", "should_read_entire_file": true}), &none);
        assert_eq!(r.args, json!({"target_file": "a", "should_read_entire_file": true}));
        assert_eq!(r.fixes[0].detail, "`path` → `target_file` (only candidate)");
        assert!(r.remaining.is_empty());
    }

    #[test]
    fn configured_aliases_and_defaults() {
        let t = read_file();
        let rules: RepairRules = serde_json::from_value(json!({
            "aliases": {"read_file": {"fname": "target_file"}},
            "defaults": {"read_file": {"should_read_entire_file": false}}
        }))
        .unwrap();
        let r = run(&t, json!({"fname": "a"}), &rules);
        assert_eq!(r.args, json!({"target_file": "a", "should_read_entire_file": false}));
        assert_eq!(kinds(&r), vec![LocalFixKind::AliasRenamed, LocalFixKind::DefaultFilled]);
        assert!(r.remaining.is_empty());
    }

    #[test]
    fn ambiguous_aliases_are_left_alone() {
        let t = tool(
            "copy",
            json!({"type": "object", "additionalProperties": false,
                "properties": {"source_path": {"type": "string"}, "target_path": {"type": "string"}},
                "required": ["source_path", "target_path"]}),
        );
        let r = run(&t, json!({"path": "a"}), &RepairRules::default());
        // "path" shares a word with both: no rename; it is dropped as forbidden and the call stays invalid.
        assert!(!kinds(&r).contains(&LocalFixKind::AliasRenamed));
        assert!(!r.remaining.is_empty());
    }

    #[test]
    fn coercions() {
        let t = read_file();
        let none = RepairRules::default();
        let r = run(&t, json!({"target_file": 5, "should_read_entire_file": "TRUE", "start_line_one_indexed": "10"}), &none);
        assert_eq!(r.args, json!({"target_file": "5", "should_read_entire_file": true, "start_line_one_indexed": 10}));
        assert!(r.remaining.is_empty());
        let r = run(&t, json!({"target_file": ["a"], "should_read_entire_file": true, "start_line_one_indexed": 3.0}), &none);
        assert_eq!(r.args, json!({"target_file": "a", "should_read_entire_file": true, "start_line_one_indexed": 3}));
        assert_eq!(kinds(&r), vec![LocalFixKind::TypeCoerced, LocalFixKind::UnwrappedArray]);
        // Not safe: "5 apples" is no number, so it stays.
        let r = run(&t, json!({"target_file": "a", "should_read_entire_file": true, "start_line_one_indexed": "5 apples"}), &none);
        assert_eq!(r.remaining.len(), 1);
    }

    #[test]
    fn wrap_decode_enum_drop_and_null() {
        let t = tool(
            "http",
            json!({"type": "object", "additionalProperties": false,
                "properties": {"method": {"type": "string", "enum": ["GET", "POST"]},
                               "tags": {"type": "array", "items": {"type": "string"}},
                               "body": {"type": "object"}, "timeout": {"type": "integer"}},
                "required": ["method"]}),
        );
        let r = run(
            &t,
            json!({"method": "post", "tags": "x", "body": "{\"a\": 1}", "timeout": null, "verbose": true}),
            &RepairRules::default(),
        );
        assert_eq!(r.args, json!({"method": "POST", "tags": ["x"], "body": {"a": 1}}));
        let mut k = kinds(&r);
        k.sort();
        assert_eq!(
            k,
            vec![
                LocalFixKind::WrappedInArray,
                LocalFixKind::JsonStringDecoded,
                LocalFixKind::PropertyDropped,
                LocalFixKind::NullDropped,
                LocalFixKind::EnumCaseFixed
            ]
        );
        assert!(r.remaining.is_empty());
    }

    #[test]
    fn nested_objects_arrays_refs_and_whole_arguments_as_a_string() {
        let t = tool(
            "edit",
            json!({"type": "object", "additionalProperties": false,
                "$defs": {"edit": {"type": "object", "additionalProperties": false,
                    "properties": {"file_path": {"type": "string"}, "line": {"type": "integer"}}, "required": ["file_path", "line"]}},
                "properties": {"edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}}},
                "required": ["edits"]}),
        );
        let r = run(&t, json!({"edits": [{"filePath": "a", "line": "3"}, {"file_path": "b", "line": 4, "x": 1}]}), &RepairRules::default());
        assert_eq!(r.args, json!({"edits": [{"file_path": "a", "line": 3}, {"file_path": "b", "line": 4}]}));
        let paths: Vec<&str> = r.fixes.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["/edits/0/file_path", "/edits/0/line", "/edits/1/x"]);
        let r = run(&t, json!("{\"edits\": []}"), &RepairRules::default());
        assert_eq!((kinds(&r), r.args), (vec![LocalFixKind::JsonStringDecoded], json!({"edits": []})));
    }

    #[test]
    fn unfixable_calls_stay_invalid_and_rounds_are_capped() {
        let t = read_file();
        let r = run(&t, json!({"should_read_entire_file": true, "start_line_one_indexed": 0}), &RepairRules::default());
        assert!(r.fixes.is_empty());
        assert_eq!(r.args, json!({"should_read_entire_file": true, "start_line_one_indexed": 0}));
        assert_eq!(r.remaining.len(), 2);
    }

    #[test]
    fn words_split_every_case() {
        assert_eq!(words("filePath"), vec!["file", "path"]);
        assert_eq!(words("relative_workspace_path"), vec!["relative", "workspace", "path"]);
        assert_eq!(words("is-bg"), Vec::<String>::new());
    }
}
