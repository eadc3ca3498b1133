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

use super::resolve::within_edits;
use super::validate::validate_args;
use super::CallIssue;
use crate::pipeline::tool::Tool;

use crate::core::names::{normalise_name, words};
use crate::pipeline::tool::schema::{types, Additional, Node, NodeId, Property, Ref, RepairSchema};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, strum::IntoStaticStr)]
#[cfg_attr(test, derive(strum::EnumIter))]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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

/// Repairs `args` of `tool`, given the validator's `issues` with them
/// (copied only if nothing can be fixed: they are what remains then).
pub fn repair_locally(tool: &Tool, args: Value, issues: &[CallIssue], rules: &RepairRules) -> LocalRepair {
    let mut repair = LocalRepair { args, fixes: Vec::new(), remaining: Vec::new() };
    if issues.is_empty() {
        return repair;
    }
    let fixer =
        Fixer { schema: &tool.repair_schema, aliases: rules.aliases.get(&tool.spec.name), defaults: rules.defaults.get(&tool.spec.name) };
    for round in 0..MAX_ROUNDS {
        let before = repair.fixes.len();
        fixer.fix(RepairSchema::ROOT, &mut repair.args, Path::Root, &mut repair.fixes);
        if repair.fixes.len() == before {
            if round == 0 {
                repair.remaining = issues.to_vec();
            }
            break;
        }
        repair.remaining = validate_args(&tool.validator, &repair.args);
        if repair.remaining.is_empty() {
            break;
        }
    }
    repair
}

/// Where the walk is, as a chain of parents: the JSON Pointer is written
/// only for a fix, not for every value visited.
#[derive(Clone, Copy)]
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    fn pointer(&self) -> String {
        let mut out = String::with_capacity(32);
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write(out);
                out.push('/');
                if !key.bytes().any(|b| b == b'~' || b == b'/') {
                    out.push_str(key);
                    return;
                }
                // JSON Pointer escapes: `~` first, so a `/` written as `~1` stays.
                for c in key.chars() {
                    match c {
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
            Path::Index(parent, i) => {
                use std::fmt::Write;
                parent.write(out);
                let _ = write!(out, "/{i}");
            }
        }
    }
}

/// A fix's detail, `old → new` in JSON, written by serde_json straight into
/// bytes (through `format!` it cost as much as the fix).
fn change(from: &Value, to: &Value) -> String {
    let mut out = Vec::with_capacity(32);
    // Writing a Value into a Vec cannot fail, and serde_json writes UTF-8.
    let _ = serde_json::to_writer(&mut out, from);
    out.extend_from_slice(" → ".as_bytes());
    let _ = serde_json::to_writer(&mut out, to);
    String::from_utf8(out).unwrap_or_default()
}

/// The walk over one call's arguments.
struct Fixer<'a> {
    schema: &'a RepairSchema,
    aliases: Option<&'a BTreeMap<String, String>>,
    defaults: Option<&'a Map<String, Value>>,
}

/// The bit of a value's JSON type, as JSON Schema names it.
fn type_bit(v: &Value) -> u8 {
    match v {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Number(n) if n.is_i64() || n.is_u64() => types::INTEGER,
        Value::Number(_) => types::NUMBER,
        Value::String(_) => types::STRING,
        Value::Array(_) => types::ARRAY,
        Value::Object(_) => types::OBJECT,
    }
}

/// The type bits a value fits: an integer is a number too.
fn fitting_types(v: &Value) -> u8 {
    match type_bit(v) {
        types::INTEGER => types::INTEGER | types::NUMBER,
        bit => bit,
    }
}

/// How many `$ref` and `anyOf` steps resolving one schema may take: a
/// schema whose branches refer back to itself ends here, not in the stack.
const RESOLVE_BUDGET: usize = 8;

impl<'a> Fixer<'a> {
    fn node(&self, id: NodeId) -> &'a Node {
        self.schema.node(id)
    }

    /// The schema with local `$ref`s followed and `anyOf`/`oneOf` narrowed to
    /// the first branch the value's type fits (or the first branch).
    fn resolve(&self, id: NodeId, value: &Value, budget: usize) -> NodeId {
        let mut s = id;
        for step in 0..budget {
            let node = self.node(s);
            match node.reference {
                Ref::To(target) => {
                    s = target;
                    continue;
                }
                Ref::Broken => return s,
                Ref::Absent | Ref::NotAString => {}
            }
            match &node.branches {
                Some(bs) => {
                    let left = budget - step - 1;
                    s = bs.iter().copied().find(|b| self.type_fits_within(*b, value, left)).unwrap_or(bs[0]);
                }
                None => return s,
            }
        }
        s
    }

    /// Whether the value's JSON type is one the schema allows.
    fn type_fits(&self, id: NodeId, value: &Value) -> bool {
        self.type_fits_within(id, value, RESOLVE_BUDGET)
    }

    fn type_fits_within(&self, id: NodeId, value: &Value, budget: usize) -> bool {
        let id = if self.node(id).reference == Ref::Absent || budget == 0 { id } else { self.resolve(id, value, budget) };
        self.node(id).types.is_none_or(|allowed| allowed & fitting_types(value) != 0)
    }

    /// Fixes `value` in place against schema node `id`, recording each fix.
    fn fix(&self, id: NodeId, value: &mut Value, path: Path<'_>, fixes: &mut Vec<LocalFix>) {
        let id = self.resolve(id, value, RESOLVE_BUDGET);
        let node = self.node(id);
        if !self.type_fits(id, value) {
            if let Some((fixed, kind)) = coerce(node, value) {
                fixes.push(LocalFix { kind, path: path.pointer(), detail: change(value, &fixed) });
                *value = fixed;
            }
        }
        if let (Some(options), Value::String(s)) = (&node.enum_options, &*value) {
            if !options.contains(value) {
                let folded = fold(s);
                let mut matching = options.iter().filter(|o| o.as_str().is_some_and(|o| fold(o) == folded));
                if let (Some(option), None) = (matching.next(), matching.next()) {
                    fixes.push(LocalFix { kind: LocalFixKind::EnumCaseFixed, path: path.pointer(), detail: change(value, option) });
                    *value = option.clone();
                }
            }
        }
        match value {
            Value::Object(map) => self.fix_object(node, map, path, fixes),
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(s) = node.prefix_items.as_ref().and_then(|p| p.get(i).copied()).or(node.items) {
                        self.fix(s, item, Path::Index(&path, i), fixes);
                    }
                }
            }
            _ => {}
        }
    }

    fn fix_object(&self, node: &'a Node, map: &mut Map<String, Value>, path: Path<'_>, fixes: &mut Vec<LocalFix>) {
        let Some(properties) = &node.properties else { return };
        let top = matches!(path, Path::Root);
        // Renaming, extra-property schemas and dropping concern undeclared
        // properties only. Looked for once: renames add declared names only,
        // and a default for a required name the schema does not declare
        // sets it again.
        let mut undeclared = map.keys().any(|k| !node.declares(k));

        // Configured aliases first (top level: they are per tool).
        if let (true, Some(aliases)) = (top, self.aliases) {
            for (alias, target) in aliases {
                if map.contains_key(alias) && !map.contains_key(target) && node.declares(target) {
                    rename(map, alias, target, path, "configured alias", fixes);
                }
            }
        }
        if undeclared {
            self.rename_automatically(node, properties, map, path, fixes);
        }

        for p in properties {
            let Some(v) = map.get_mut(&p.name) else { continue };
            if v.is_null() && !node.requires(&p.name) && !self.type_fits(p.node, &Value::Null) {
                map.remove(&p.name);
                let key = &p.name;
                fixes.push(LocalFix {
                    kind: LocalFixKind::NullDropped,
                    path: Path::Key(&path, key).pointer(),
                    detail: ["`", key, "`: null"].concat(),
                });
                continue;
            }
            self.fix(p.node, v, Path::Key(&path, &p.name), fixes);
        }
        if let (true, Additional::Schema(extra)) = (undeclared, node.additional) {
            for (key, v) in map.iter_mut().filter(|(k, _)| !node.declares(k)) {
                self.fix(extra, v, Path::Key(&path, key), fixes);
            }
        }

        for key in &node.required {
            if map.contains_key(key) {
                continue;
            }
            let declared = node.property(key);
            let from_schema = declared.and_then(|p| self.node(p.node).default.as_ref().filter(|d| self.type_fits(p.node, d)));
            let (default, origin) = match (from_schema, self.defaults.filter(|_| top).and_then(|d| d.get(key))) {
                (Some(d), _) => (d.clone(), "schema default"),
                (None, Some(d)) => (d.clone(), "configured default"),
                (None, None) => continue,
            };
            fixes.push(LocalFix {
                kind: LocalFixKind::DefaultFilled,
                path: Path::Key(&path, key).pointer(),
                detail: format!("`{key}` = {default} ({origin})"),
            });
            map.insert(key.clone(), default);
            undeclared |= declared.is_none();
        }

        if undeclared && node.additional == Additional::Forbidden {
            map.retain(|key, _| {
                let declared = node.declares(key);
                if !declared {
                    fixes.push(LocalFix {
                        kind: LocalFixKind::PropertyDropped,
                        path: Path::Key(&path, key).pointer(),
                        detail: ["`", key, "` is not a parameter"].concat(),
                    });
                }
                declared
            });
        }
    }

    /// Renames undeclared properties to declared ones that are missing,
    /// when one candidate is clearly meant: the same name but for case and
    /// separators; a near miss; a shared word with a fitting value; or the
    /// only unexpected property against the only missing required one.
    fn rename_automatically(
        &self,
        node: &'a Node,
        properties: &'a [Property],
        map: &mut Map<String, Value>,
        path: Path<'_>,
        fixes: &mut Vec<LocalFix>,
    ) {
        let unexpected: Vec<String> = map.keys().filter(|k| !node.declares(k)).cloned().collect();
        if unexpected.is_empty() {
            return;
        }
        let mut missing: Vec<&Property> = properties.iter().filter(|p| !map.contains_key(&p.name)).collect();
        if missing.is_empty() {
            return; // nothing an unexpected name could be meant as
        }
        // Required parameters first: they are what the model most likely meant.
        missing.sort_by_key(|p| !node.requires(&p.name));
        let missing_required = missing.iter().filter(|p| node.requires(&p.name)).count();
        let lone = unexpected.len() == 1 && missing_required == 1;
        for key in &unexpected {
            let value = &map[key];
            let fits = |p: &Property| self.type_fits(p.node, value) || coerce(self.node(p.node), value).is_some();
            let norm = normalise_name(key);
            // Words are only needed by the third rule.
            let key_words = std::cell::OnceCell::new();
            let near_enough = norm.chars().count() >= 5;
            let same = |p: &Property| p.folded == norm;
            let near = |p: &Property| near_enough && within_edits(&norm, &p.folded, 2);
            let shared_word = |p: &Property| key_words.get_or_init(|| words(key)).iter().any(|w| p.words.contains(w)) && fits(p);
            let rules: [&dyn Fn(&Property) -> bool; 3] = [&same, &near, &shared_word];
            let mut chosen = None;
            for rule in rules {
                let mut candidates = missing.iter().copied().filter(|p| rule(p));
                match (candidates.next(), candidates.next()) {
                    (Some(one), None) => {
                        chosen = Some((one.name.as_str(), "same parameter"));
                        break;
                    }
                    (None, _) => continue,
                    _ => break, // ambiguous: rename nothing rather than guess
                }
            }
            if chosen.is_none() && lone {
                chosen = missing.iter().copied().find(|p| node.requires(&p.name) && fits(p)).map(|p| (p.name.as_str(), "only candidate"));
            }
            if let Some((target, why)) = chosen {
                rename(map, key, target, path, why, fixes);
                // A target is taken once.
                missing.retain(|p| p.name != target);
            }
        }
    }
}

fn rename(map: &mut Map<String, Value>, from: &str, to: &str, path: Path<'_>, why: &str, fixes: &mut Vec<LocalFix>) {
    if let Some(v) = map.remove(from) {
        map.insert(to.to_string(), v);
        fixes.push(LocalFix {
            kind: LocalFixKind::AliasRenamed,
            path: Path::Key(&path, to).pointer(),
            detail: ["`", from, "` → `", to, "` (", why, ")"].concat(),
        });
    }
}

/// Case and `-`/`_`/space folded away, for enum matching.
fn fold(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).flat_map(char::to_lowercase).collect()
}

/// A safe conversion of `value` to a type the schema wants, if there is one.
fn coerce(node: &Node, value: &Value) -> Option<(Value, LocalFixKind)> {
    let bits = node.types.unwrap_or(0);
    let wants = |t: u8| bits & t != 0;
    match value {
        Value::String(s) => {
            let t = s.trim();
            if wants(types::INTEGER) {
                if let Ok(i) = t.parse::<i64>() {
                    return Some((Value::from(i), LocalFixKind::TypeCoerced));
                }
            }
            if wants(types::NUMBER) {
                if let Some(n) = t.parse::<f64>().ok().filter(|n| n.is_finite()).and_then(serde_json::Number::from_f64) {
                    return Some((Value::Number(n), LocalFixKind::TypeCoerced));
                }
            }
            if wants(types::BOOLEAN) {
                for b in [true, false] {
                    if t.eq_ignore_ascii_case(if b { "true" } else { "false" }) {
                        return Some((Value::Bool(b), LocalFixKind::TypeCoerced));
                    }
                }
            }
            if wants(types::OBJECT | types::ARRAY) {
                let decoded = serde_json::from_str::<Value>(t)
                    .ok()
                    .or_else(|| super::lenient::parse_lenient(t).ok().map(|(v, _)| v))
                    .filter(|v| wants(type_bit(v)));
                if let Some(v) = decoded {
                    return Some((v, LocalFixKind::JsonStringDecoded));
                }
            }
            if wants(types::ARRAY) {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            if wants(types::NULL) && t.eq_ignore_ascii_case("null") {
                return Some((Value::Null, LocalFixKind::TypeCoerced));
            }
            None
        }
        Value::Number(n) => {
            if wants(types::INTEGER) {
                if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                    return Some((Value::from(f as i64), LocalFixKind::TypeCoerced));
                }
            }
            if wants(types::STRING) {
                return Some((Value::String(n.to_string()), LocalFixKind::TypeCoerced));
            }
            if wants(types::ARRAY) {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            None
        }
        Value::Bool(b) => {
            if wants(types::STRING) {
                return Some((Value::String(b.to_string()), LocalFixKind::TypeCoerced));
            }
            if wants(types::ARRAY) {
                return Some((Value::Array(vec![value.clone()]), LocalFixKind::WrappedInArray));
            }
            None
        }
        Value::Array(items) if items.len() == 1 && !wants(types::ARRAY) => {
            let item = &items[0];
            // Any type (no list, or an empty one), or the item's own type.
            let fitting = bits == 0 || bits & fitting_types(item) != 0;
            if fitting {
                Some((item.clone(), LocalFixKind::UnwrappedArray))
            } else {
                coerce(node, item).map(|(v, _)| (v, LocalFixKind::UnwrappedArray))
            }
        }
        Value::Object(_) if wants(types::STRING) => Some((Value::String(value.to_string()), LocalFixKind::TypeCoerced)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tools::ToolSpec;
    use crate::pipeline::tool::compile_tool;
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
    fn a_default_for_an_undeclared_name_is_still_dropped_where_forbidden() {
        // Required but not declared, with no other properties allowed: the
        // schema cannot be met. The configured default goes in, then out
        // again as a forbidden property, even when nothing else was extra.
        let t = tool(
            "t",
            json!({"type": "object", "additionalProperties": false,
                "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}),
        );
        let rules: RepairRules = serde_json::from_value(json!({"defaults": {"t": {"b": 1}}})).unwrap();
        let r = run(&t, json!({"a": "x"}), &rules);
        // Each round puts it in and takes it out again, until the rounds run out.
        let pair = [LocalFixKind::DefaultFilled, LocalFixKind::PropertyDropped];
        assert_eq!(kinds(&r), pair.repeat(MAX_ROUNDS));
        assert_eq!(r.args, json!({"a": "x"}));
        assert!(!r.remaining.is_empty());
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
    fn branches_that_refer_back_to_themselves_end() {
        // Walked over the JSON, this schema recursed until the stack ran out.
        let schema = RepairSchema::compile(&json!({"anyOf": [{"$ref": "#"}, {"type": "integer"}]}));
        let fixer = Fixer { schema: &schema, aliases: None, defaults: None };
        let mut value = json!("5");
        let mut fixes = Vec::new();
        fixer.fix(RepairSchema::ROOT, &mut value, Path::Root, &mut fixes);
        assert_eq!(value, json!("5"), "{fixes:?}");
    }

    #[test]
    fn pointers_escape_and_index() {
        let root = Path::Root;
        let a = Path::Key(&root, "a/b~c");
        assert_eq!(Path::Index(&a, 3).pointer(), "/a~1b~0c/3");
        assert_eq!(Path::Key(&root, "plain").pointer(), "/plain");
        assert_eq!(root.pointer(), "");
    }

    #[test]
    fn words_split_every_case() {
        assert_eq!(words("filePath"), vec!["file", "path"]);
        assert_eq!(words("relative_workspace_path"), vec!["relative", "workspace", "path"]);
        assert_eq!(words("is-bg"), Vec::<String>::new());
    }
}
