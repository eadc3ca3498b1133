//! calltape's vocabulary: the plain data and small pure functions every
//! layer shares — tool specs, name folding, globs, value matchers, modes,
//! prices, the seeded generator, UTC time (`core`); quoting and escaping
//! for each sink (`quote`, `encode`); statistics (`stats`, `paired`); chat
//! messages (`chat`); the run folder's file names (`run_folder`); exit
//! codes and Ctrl-C (`exit_codes`, `interrupt`).
//!
//! Inside, from the bottom: `core`, `encode`, `exit_codes`, `paired`, `quote`,
//! `run_folder`, `stats` < `chat`, `interrupt`.
//!
//! May depend on: no other calltape crate.

pub mod chat;
pub mod core;
pub mod encode;
pub mod exit_codes;
pub mod interrupt;
pub mod paired;
pub mod quote;
pub mod run_folder;
pub mod stats;
