//! The worlds tools act on: the coding workspace (an in-memory file tree,
//! the coding tools and shell commands on it, the checks outcome
//! expectations make on it) and BFCL (its API classes, the import of its
//! data, its single- and multi-turn judges, Python's values and calls).
//!
//! May depend on: `calltape-vocab`.

use calltape_vocab::{core, quote};

pub mod bfcl;
pub mod world;
