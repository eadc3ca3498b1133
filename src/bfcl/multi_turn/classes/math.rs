//! BFCL's `MathAPI` (stub: to be implemented).

pub(super) mod pyops;

use crate::bfcl::multi_turn::{ApiClass, Args, Method, PyError};
use crate::bfcl::pyvalue::Py;

/// BFCL's `MathAPI`.
#[derive(Debug, Clone, Default)]
pub struct MathAPI {}

impl ApiClass for MathAPI {
    fn class_name(&self) -> &'static str {
        "MathAPI"
    }

    fn load(&mut self, _config: &Py, _long_context: bool) {}

    fn methods(&self) -> &'static [Method] {
        &[]
    }

    fn call(&mut self, method: &str, _args: &Args) -> Result<Py, PyError> {
        Err(format!("'MathAPI' object has no attribute '{method}'"))
    }

    fn state(&self) -> Vec<(String, Py)> {
        Vec::new()
    }
}
