//! One module per BFCL API class, each reimplemented from BFCL's Python
//! (`bfcl_eval/eval_checker/multi_turn_eval/func_source_code`) so that the
//! same calls return the same text and leave the same state.

mod file_system;
mod math;
mod message;
mod posting;
mod ticket;
mod trading;
mod travel;
mod vehicle;

use super::ApiClass;

/// A new, unloaded instance of the class of this name.
pub fn new_class(name: &str) -> Option<Box<dyn ApiClass>> {
    Some(match name {
        "GorillaFileSystem" => Box::new(file_system::GorillaFileSystem::default()),
        "MathAPI" => Box::new(math::MathAPI::default()),
        "MessageAPI" => Box::new(message::MessageAPI::default()),
        "TwitterAPI" => Box::new(posting::TwitterAPI::default()),
        "TicketAPI" => Box::new(ticket::TicketAPI::default()),
        "TradingBot" => Box::new(trading::TradingBot::default()),
        "TravelAPI" => Box::new(travel::TravelAPI::default()),
        "VehicleControlAPI" => Box::new(vehicle::VehicleControlAPI::default()),
        _ => return None,
    })
}
