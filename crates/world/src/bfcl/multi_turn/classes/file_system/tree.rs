//! The objects of BFCL's file system — `File`s and `Directory`s — kept in
//! an arena so that what Python shares stays shared: a moved directory's
//! `contents` dict is the very dict of the old one, a copied directory's is
//! a shallow copy holding the same children, and a child's `parent` still
//! points at the directory object it was created in.

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::Py;

/// A `File` or `Directory` object (an index into [`Tree::nodes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NodeId(usize);

/// A directory's `contents` dict object (an index into [`Tree::dicts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DictId(usize);

/// Python's default recursion limit: deeper means a cycle, where Python
/// raises `RecursionError`.
pub(super) const RECURSION_LIMIT: usize = 1000;

/// How deep [`Tree::plain`] writes a directory that contains itself (Python
/// cannot write it at all); shallow enough for a JSON reader's nesting limit.
const PLAIN_DEPTH_LIMIT: usize = 100;

/// Python's `RecursionError` text.
pub(super) const RECURSION_ERROR: &str = "maximum recursion depth exceeded";

#[derive(Debug, Clone)]
enum Node {
    /// `content` is whatever was written (`echo` stores any value).
    File {
        name: String,
        content: Py,
    },
    Directory {
        name: String,
        parent: Option<NodeId>,
        contents: DictId,
    },
}

/// Every object ever created; orphans stay, as Python keeps what is referenced.
#[derive(Debug, Clone, Default)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// Each dict's entries in insertion order.
    dicts: Vec<Vec<(String, NodeId)>>,
}

impl Tree {
    /// `File(name, content)`.
    pub(super) fn new_file(&mut self, name: &str, content: Py) -> NodeId {
        self.nodes.push(Node::File { name: name.to_string(), content });
        NodeId(self.nodes.len() - 1)
    }

    /// `Directory(name, parent)` with a new empty `contents`.
    pub(super) fn new_directory(&mut self, name: &str, parent: Option<NodeId>) -> NodeId {
        self.dicts.push(Vec::new());
        let contents = DictId(self.dicts.len() - 1);
        self.nodes.push(Node::Directory { name: name.to_string(), parent, contents });
        NodeId(self.nodes.len() - 1)
    }

    /// `item.name`.
    pub(super) fn name(&self, id: NodeId) -> &str {
        match &self.nodes[id.0] {
            Node::File { name, .. } | Node::Directory { name, .. } => name,
        }
    }

    /// `directory.parent` (`None` for a file, which has none).
    pub(super) fn parent(&self, id: NodeId) -> Option<NodeId> {
        match &self.nodes[id.0] {
            Node::Directory { parent, .. } => *parent,
            Node::File { .. } => None,
        }
    }

    /// `isinstance(item, Directory)`.
    pub(super) fn is_dir(&self, id: NodeId) -> bool {
        matches!(self.nodes[id.0], Node::Directory { .. })
    }

    /// A file's `content` (`None` for a directory).
    pub(super) fn content(&self, id: NodeId) -> Option<&Py> {
        match &self.nodes[id.0] {
            Node::File { content, .. } => Some(content),
            Node::Directory { .. } => None,
        }
    }

    /// `file._write(content)`.
    pub(super) fn write(&mut self, id: NodeId, new_content: Py) {
        if let Node::File { content, .. } = &mut self.nodes[id.0] {
            *content = new_content;
        }
    }

    /// A directory's `contents` dict object.
    pub(super) fn contents(&self, dir: NodeId) -> DictId {
        match &self.nodes[dir.0] {
            Node::Directory { contents, .. } => *contents,
            Node::File { .. } => unreachable!("only directories are navigated into"),
        }
    }

    /// `directory.contents = dict` (the same object, not a copy).
    pub(super) fn set_contents(&mut self, dir: NodeId, dict: DictId) {
        if let Node::Directory { contents, .. } = &mut self.nodes[dir.0] {
            *contents = dict;
        }
    }

    /// `directory.contents.copy()`: a new dict holding the same children.
    pub(super) fn copy_contents(&mut self, dir: NodeId) -> DictId {
        let entries = self.dicts[self.contents(dir).0].clone();
        self.dicts.push(entries);
        DictId(self.dicts.len() - 1)
    }

    /// A directory's entries, in insertion order.
    pub(super) fn entries(&self, dir: NodeId) -> &[(String, NodeId)] {
        &self.dicts[self.contents(dir).0]
    }

    /// `directory.contents.get(name)`.
    pub(super) fn lookup(&self, dir: NodeId, name: &str) -> Option<NodeId> {
        self.entries(dir).iter().find(|(k, _)| k == name).map(|(_, id)| *id)
    }

    /// `directory._get_item(name)`: `.` is the directory itself.
    pub(super) fn get_item(&self, dir: NodeId, name: &str) -> Option<NodeId> {
        if name == "." {
            return Some(dir);
        }
        self.lookup(dir, name)
    }

    /// `directory.contents[name] = item`: a new key goes last, a known key keeps its place.
    pub(super) fn insert(&mut self, dir: NodeId, name: &str, item: NodeId) {
        let at_dict = self.contents(dir).0;
        let dict = &mut self.dicts[at_dict];
        match dict.iter_mut().find(|(k, _)| k == name) {
            Some(entry) => entry.1 = item,
            None => dict.push((name.to_string(), item)),
        }
    }

    /// `directory.contents.pop(name)`: the others keep their order.
    pub(super) fn pop(&mut self, dir: NodeId, name: &str) -> Option<NodeId> {
        let at_dict = self.contents(dir).0;
        let dict = &mut self.dicts[at_dict];
        let at = dict.iter().position(|(k, _)| k == name)?;
        Some(dict.remove(at).1)
    }

    /// `directory._add_file(name, content)`.
    pub(super) fn add_file(&mut self, dir: NodeId, name: &str, content: Py) -> Result<NodeId, PyError> {
        if self.lookup(dir, name).is_some() {
            return Err(format!("File '{name}' already exists in directory '{}'.", self.name(dir)));
        }
        let file = self.new_file(name, content);
        self.insert(dir, name, file);
        Ok(file)
    }

    /// `directory._add_directory(name)`: the new directory's parent is `dir`.
    pub(super) fn add_directory(&mut self, dir: NodeId, name: &str) -> Result<NodeId, PyError> {
        if self.lookup(dir, name).is_some() {
            return Err(format!("Directory '{name}' already exists in directory '{}'.", self.name(dir)));
        }
        let child = self.new_directory(name, Some(dir));
        self.insert(dir, name, child);
        Ok(child)
    }

    /// The object's public attributes, nested, `parent` left out (a
    /// directory that contains itself is cut at [`PLAIN_DEPTH_LIMIT`]).
    /// Past `BFCL_TREE_ENTRIES` entries the rest of the tree is written as
    /// one text naming the limit: a directory that contains itself twice
    /// would otherwise double the state at every level.
    pub(super) fn plain(&self, id: NodeId, depth: usize) -> Py {
        let mut budget = crate::core::limits::BFCL_TREE_ENTRIES.in_force();
        self.plain_within(id, depth, &mut budget)
    }

    fn plain_within(&self, id: NodeId, depth: usize, budget: &mut u64) -> Py {
        match &self.nodes[id.0] {
            Node::File { name, content } => Py::Dict(vec![("name".into(), Py::Str(name.clone())), ("content".into(), content.clone())]),
            Node::Directory { name, contents, .. } => {
                let children = if depth >= PLAIN_DEPTH_LIMIT {
                    Py::Dict(Vec::new())
                } else if *budget < self.dicts[contents.0].len() as u64 {
                    *budget = 0;
                    Py::Str(format!("calltape: {}", tree_too_big()))
                } else {
                    *budget -= self.dicts[contents.0].len() as u64;
                    Py::Dict(
                        self.dicts[contents.0].iter().map(|(k, child)| (k.clone(), self.plain_within(*child, depth + 1, budget))).collect(),
                    )
                };
                Py::Dict(vec![("name".into(), Py::Str(name.clone())), ("contents".into(), children)])
            }
        }
    }
}

/// What a walk past `BFCL_TREE_ENTRIES` says.
pub(super) fn tree_too_big() -> String {
    crate::core::limits::BFCL_TREE_ENTRIES.passed("the file tree (a directory that contains itself) walked")
}
