//! calltape: a replay-and-evaluation harness for tool-calling language models.
//!
//! The flow (see DESIGN): scenarios and config → runner → agent loop per
//! (model, scenario, trial) → provider adapter → transport → tool-call
//! pipeline → events → metrics (polars) → reports.
//!
//! This crate is the top of the workspace: the tables (`metrics`), every
//! report sink, compare, merge, show/diff (`transcript`), fitted
//! simulators (`sim_fit`), and the commands (`cli`). The layers below are
//! their own crates (docs/architecture.md); their modules are re-exported
//! here under the names they always had (`calltape::config`, …).
//!
//! Inside, from the bottom: `init`, `metrics`, `standalone` < `report` <
//! `compare`, `merge`, `transcript`, `sim_fit`, `fuzz_targets` < `cli`.
//!
//! May depend on: `calltape-vocab`, `calltape-world`, `calltape-pipeline`,
//! `calltape-scenario`, `calltape-run`.

pub use calltape_pipeline::pipeline;
pub use calltape_run::{agent, approver, bundled, config, events, mcp, plan, provider, runner, transport, wire};
pub use calltape_scenario::{attack, bfcl_outputs, check, scenario, sim};
pub use calltape_vocab::{chat, core, encode, exit_codes, interrupt, paired, quote, run_folder, stats};
pub use calltape_world::{bfcl, world};

pub mod cli;
pub mod compare;
pub mod fuzz_targets;
pub mod init;
pub mod merge;
pub mod metrics;
pub mod report;
pub mod sim_fit;
pub mod standalone;
pub mod transcript;
