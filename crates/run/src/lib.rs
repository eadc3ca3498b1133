//! Runs: the configuration (`config`, with the bundled default's suites in
//! `bundled`), the typed event stream (`events`), HTTP data and its
//! redaction (`wire`), the transports (live, cassette, simulated, stdio),
//! MCP, the provider adapters, the plan, the agent loop per unit, the
//! person at the terminal who approves calls (`approver`), and the runner.
//!
//! Inside, from the bottom: `wire`, `bundled` < `config` < `events` <
//! `transport` < `mcp`, `provider` < `plan` < `approver` < `agent` < `runner`.
//!
//! May depend on: `calltape-vocab`, `calltape-world`, `calltape-pipeline`, `calltape-scenario`.

use calltape_pipeline::pipeline;
use calltape_scenario::{attack, check, scenario, sim};
use calltape_vocab::{chat, core, encode, interrupt, quote, run_folder};
use calltape_world::{bfcl, world};

pub mod agent;
pub mod approver;
pub mod bundled;
pub mod config;
pub mod events;
pub mod mcp;
pub mod plan;
pub mod provider;
pub mod runner;
pub mod transport;
pub mod wire;
