//! The core vocabulary: plain types and small functions every layer shares —
//! tool specs, glob matching, the mode enums, prices and tiers, the gate
//! thresholds, the seeded generator, calendar time. It imports nothing of
//! calltape's (see `docs/architecture.md`; `tests/layers.rs` enforces it).

pub mod cassette;
pub mod gate;
pub mod glob;
pub mod limits;
pub mod matcher;
pub mod mcp;
pub mod modes;
pub mod names;
pub mod plural;
pub mod prices;
pub mod provider;
pub mod rng;
pub mod scripted;
pub mod time;
pub mod tools;
