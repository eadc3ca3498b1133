//! BFCL's `TicketAPI` (stub: to be implemented).

use crate::bfcl::multi_turn::{ApiClass, Args, Method, PyError};
use crate::bfcl::pyvalue::Py;

/// BFCL's `TicketAPI`.
#[derive(Debug, Clone, Default)]
pub struct TicketAPI {}

impl ApiClass for TicketAPI {
    fn class_name(&self) -> &'static str {
        "TicketAPI"
    }

    fn load(&mut self, _config: &Py, _long_context: bool) {}

    fn methods(&self) -> &'static [Method] {
        &[]
    }

    fn call(&mut self, method: &str, _args: &Args) -> Result<Py, PyError> {
        Err(format!("'TicketAPI' object has no attribute '{method}'"))
    }

    fn state(&self) -> Vec<(String, Py)> {
        Vec::new()
    }
}
