//! Prices and tiers of models, as `calltape.toml` declares them.

use serde::{Deserialize, Serialize};

/// Whether a model is the cheap or the strong side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Cheap,
    Strong,
}

/// Prices in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cached_input: f64,
}
