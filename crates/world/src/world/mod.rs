//! A world the coding tools really act on: an in-memory file tree
//! ([`Workspace`]) built from a scenario's inline JSON or a folder, the
//! coding toolset on it ([`tools`]), a few shell commands answered from it
//! ([`shell`]); `calltape-pipeline`'s `workspace_executor` plugs it into
//! the pipeline's execute stage. The host filesystem is only ever read, when a
//! folder is loaded; no tool or command reaches it.
//!
//! `tree`, `path`, `diff`, `tools`, `shell` and `state` (checks on the
//! tree that outcome expectations make) import nothing of calltape's
//! but `core`, so scenarios and the pipeline can hold a workspace.

pub mod diff;
pub mod path;
pub mod shell;
pub mod state;
pub mod tools;
pub mod tree;

pub use state::StateCheck;
pub use tree::{Change, ChangeKind, Limits, TreeError, Workspace};
