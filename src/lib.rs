//! calltape: a replay-and-evaluation harness for tool-calling language models.
//!
//! The flow (see DESIGN): scenarios and config → runner → agent loop per
//! (model, scenario, trial) → provider adapter → transport → tool-call
//! pipeline → events → metrics (polars) → reports.

pub mod agent;
pub mod approver;
pub mod attack;
pub mod bfcl;
pub mod bundled;
pub mod chat;
pub mod check;
pub mod cli;
pub mod compare;
pub mod config;
pub mod core;
pub mod events;
pub mod exit_codes;
pub mod fuzz_targets;
pub mod init;
pub mod interrupt;
pub mod mcp;
pub mod merge;
pub mod metrics;
pub mod paired;
pub mod pipeline;
pub mod plan;
pub mod provider;
pub mod quote;
pub mod report;
pub mod run_folder;
pub mod runner;
pub mod scenario;
pub mod sim;
pub mod sim_fit;
pub mod standalone;
pub mod stats;
pub mod transcript;
pub mod transport;
pub mod world;
