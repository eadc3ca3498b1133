//! The tool-call pipeline: every call a model makes goes through it —
//! parse (lenient JSON), resolve the tool, validate against its schema,
//! repair (local fixes, then re-asking the model with a cap), approve
//! (the scripted approval rules and the shell command reader), execute
//! (scripted results or the workspace).
//!
//! May depend on: `calltape-vocab`, `calltape-world` (the workspace a call executes on).

use calltape_vocab::{chat, core, quote};
use calltape_world::world;

pub mod pipeline;
