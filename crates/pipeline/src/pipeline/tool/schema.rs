//! A tool's parameter schema compiled once for local repair. The repair walk
//! asks every schema node the same questions (its types, properties,
//! required names, enum, default); answering them from the JSON meant a
//! dozen map lookups per node per call. Compiled, they are fields, and each
//! property's folded name and words (for alias matching) are ready too.
//! Local `$ref`s are followed here, once, so a recursive schema becomes a
//! graph of node indices.

use std::collections::HashMap;

use serde_json::Value;

use crate::core::names::{normalise_name, words};

/// Index of a node in [`RepairSchema::nodes`].
pub(crate) type NodeId = usize;

/// JSON types as bits, for [`Node::types`].
pub(crate) mod types {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 1 << 1;
    pub const INTEGER: u8 = 1 << 2;
    pub const NUMBER: u8 = 1 << 3;
    pub const STRING: u8 = 1 << 4;
    pub const ARRAY: u8 = 1 << 5;
    pub const OBJECT: u8 = 1 << 6;
    /// A type name JSON Schema does not have (`"float"`): allows nothing,
    /// but the list is not empty.
    pub const UNKNOWN: u8 = 1 << 7;

    pub fn of_name(name: &str) -> u8 {
        match name {
            "null" => NULL,
            "boolean" => BOOLEAN,
            "integer" => INTEGER,
            "number" => NUMBER,
            "string" => STRING,
            "array" => ARRAY,
            "object" => OBJECT,
            _ => UNKNOWN,
        }
    }
}

/// Where a node's `$ref` leads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Ref {
    /// No `$ref` keyword.
    Absent,
    /// A `$ref` that is not a string: present, but leads nowhere.
    NotAString,
    /// A local reference, compiled.
    To(NodeId),
    /// A reference that is not local or points at nothing.
    Broken,
}

/// What `additionalProperties` says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Additional {
    /// `false`: undeclared properties are dropped.
    Forbidden,
    /// A schema object: undeclared properties are repaired against it.
    Schema(NodeId),
    /// Absent, `true` or anything else.
    Allowed,
}

/// One declared property, with its name folded for alias matching.
#[derive(Debug, Clone)]
pub(crate) struct Property {
    pub name: String,
    /// The name with case and separators folded away.
    pub folded: String,
    /// The name's words, longer than two letters.
    pub words: Vec<String>,
    pub node: NodeId,
}

/// One schema, as the repair walk reads it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub reference: Ref,
    /// `anyOf` (or else `oneOf`) branches, when a non-empty array.
    pub branches: Option<Vec<NodeId>>,
    /// The `type` keyword as bits; `None` when absent (any type).
    pub types: Option<u8>,
    pub enum_options: Option<Vec<Value>>,
    /// Declared properties in name order; `None` without a `properties` object.
    pub properties: Option<Vec<Property>>,
    pub required: Vec<String>,
    pub additional: Additional,
    pub prefix_items: Option<Vec<NodeId>>,
    pub items: Option<NodeId>,
    pub default: Option<Value>,
}

impl Node {
    fn empty() -> Self {
        Node {
            reference: Ref::Absent,
            branches: None,
            types: None,
            enum_options: None,
            properties: None,
            required: Vec::new(),
            additional: Additional::Allowed,
            prefix_items: None,
            items: None,
            default: None,
        }
    }

    /// The declared property `name`.
    pub fn property(&self, name: &str) -> Option<&Property> {
        let props = self.properties.as_deref()?;
        // A few properties are found sooner by length and bytes than by halving.
        if props.len() <= 8 {
            return props.iter().find(|p| p.name.len() == name.len() && p.name == name);
        }
        props.binary_search_by(|p| p.name.as_str().cmp(name)).ok().map(|i| &props[i])
    }

    pub fn declares(&self, name: &str) -> bool {
        self.property(name).is_some()
    }

    pub fn requires(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }
}

/// A parameter schema compiled for the repair walk; node 0 is the root.
#[derive(Debug, Clone)]
pub struct RepairSchema {
    pub(crate) nodes: Vec<Node>,
}

impl RepairSchema {
    /// Compiles `schema` (a tool's parameters). Never fails: what the walk
    /// cannot use is left out, as the walk over the JSON left it alone.
    pub fn compile(schema: &Value) -> Self {
        let mut c = Compiler { root: schema, nodes: Vec::new(), by_pointer: HashMap::new() };
        let root = c.reserve();
        c.by_pointer.insert(String::new(), root);
        c.fill(root, schema);
        RepairSchema { nodes: c.nodes }
    }

    pub(crate) const ROOT: NodeId = 0;

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    /// `$ref` targets compiled so far, by JSON Pointer: each once, which
    /// also ends recursion.
    by_pointer: HashMap<String, NodeId>,
}

impl Compiler<'_> {
    fn reserve(&mut self) -> NodeId {
        self.nodes.push(Node::empty());
        self.nodes.len() - 1
    }

    fn compile(&mut self, schema: &Value) -> NodeId {
        let id = self.reserve();
        self.fill(id, schema);
        id
    }

    fn fill(&mut self, id: NodeId, schema: &Value) {
        let mut node = Node::empty();
        node.reference = match schema.get("$ref") {
            None => Ref::Absent,
            Some(Value::String(r)) => self.target(r),
            Some(_) => Ref::NotAString,
        };
        node.branches = match schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            Some(bs) if !bs.is_empty() => Some(bs.iter().map(|b| self.compile(b)).collect()),
            _ => None,
        };
        node.types = match schema.get("type") {
            Some(Value::String(t)) => Some(types::of_name(t)),
            Some(Value::Array(ts)) => Some(ts.iter().filter_map(Value::as_str).fold(0, |bits, t| bits | types::of_name(t))),
            _ => None,
        };
        node.enum_options = schema.get("enum").and_then(Value::as_array).cloned();
        node.properties = schema.get("properties").and_then(Value::as_object).map(|props| {
            props
                .iter()
                .map(|(name, sub)| Property {
                    name: name.clone(),
                    folded: normalise_name(name),
                    words: words(name),
                    node: self.compile(sub),
                })
                .collect()
        });
        node.required = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        node.additional = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(s @ Value::Object(_)) => Additional::Schema(self.compile(s)),
            _ => Additional::Allowed,
        };
        node.prefix_items = schema.get("prefixItems").and_then(Value::as_array).map(|p| p.iter().map(|s| self.compile(s)).collect());
        node.items = schema.get("items").filter(|i| i.is_object()).map(|i| self.compile(i));
        node.default = schema.get("default").cloned();
        self.nodes[id] = node;
    }

    fn target(&mut self, reference: &str) -> Ref {
        let Some(pointer) = reference.strip_prefix('#') else { return Ref::Broken };
        if let Some(&id) = self.by_pointer.get(pointer) {
            return Ref::To(id);
        }
        let Some(target) = self.root.pointer(pointer) else { return Ref::Broken };
        let id = self.reserve();
        self.by_pointer.insert(pointer.to_string(), id);
        self.fill(id, target);
        Ref::To(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_refs_and_recursion_compile_once() {
        let s = RepairSchema::compile(&json!({
            "type": "object",
            "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}, "name": {"type": ["string", "null"]}}}},
            "properties": {"b": {"$ref": "#/$defs/node"}, "a": {"$ref": "#/nowhere"}, "c": {"$ref": 5}},
            "required": ["a", 7], "additionalProperties": false
        }));
        let root = s.node(RepairSchema::ROOT);
        let names: Vec<&str> = root.properties.as_ref().unwrap().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(root.required, ["a"]);
        assert_eq!(root.additional, Additional::Forbidden);
        assert_eq!(s.node(root.property("a").unwrap().node).reference, Ref::Broken);
        assert_eq!(s.node(root.property("c").unwrap().node).reference, Ref::NotAString);
        let Ref::To(def) = s.node(root.property("b").unwrap().node).reference else { panic!("b is a ref") };
        let child = s.node(def).property("child").unwrap().node;
        assert_eq!(s.node(child).reference, Ref::To(def), "the recursive ref is the same node");
        let name = s.node(def).property("name").unwrap().node;
        assert_eq!(s.node(name).types, Some(types::STRING | types::NULL));
    }
}
