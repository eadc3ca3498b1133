//! Scenarios and what is expected of them: loading suites (JSON, BFCL
//! entries, MCP toolsets), prompt injections, the verdict on a unit's calls
//! (`check`), how an attack came out (`attack`), the simulated models
//! (`sim`, computed from a scenario's reference), and judging BFCL answer
//! files against imported suites (`bfcl_outputs`).
//!
//! Inside, from the bottom: `scenario` < `check`, `sim`, `bfcl_outputs` < `attack`.
//!
//! May depend on: `calltape-vocab`, `calltape-world`, `calltape-pipeline`.

use calltape_pipeline::pipeline;
use calltape_vocab::{core, quote};
use calltape_world::{bfcl, world};

pub mod attack;
pub mod bfcl_outputs;
pub mod check;
pub mod scenario;
pub mod sim;
