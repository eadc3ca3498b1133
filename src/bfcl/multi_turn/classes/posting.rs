//! BFCL's `TwitterAPI` (stub: to be implemented).

use crate::bfcl::multi_turn::{ApiClass, Args, Method, PyError};
use crate::bfcl::pyvalue::Py;

/// BFCL's `TwitterAPI`.
#[derive(Debug, Clone, Default)]
pub struct TwitterAPI {}

impl ApiClass for TwitterAPI {
    fn class_name(&self) -> &'static str {
        "TwitterAPI"
    }

    fn load(&mut self, _config: &Py, _long_context: bool) {}

    fn methods(&self) -> &'static [Method] {
        &[]
    }

    fn call(&mut self, method: &str, _args: &Args) -> Result<Py, PyError> {
        Err(format!("'TwitterAPI' object has no attribute '{method}'"))
    }

    fn state(&self) -> Vec<(String, Py)> {
        Vec::new()
    }
}
