//! BFCL's `TravelAPI` (`travel_booking.py`): a user's token, credit cards,
//! flight bookings and budget. Ids come from the instance's seeded
//! `random.Random`, drawn in the Python's order, so the same calls make the
//! same ids. Only `verify_traveler_information` reads the clock (an age).
//!
//! Python's dynamic typing shows in the results (an int balance minus a
//! float cost is a float), so values stay [`Py`] and the arithmetic follows
//! Python's rules; a wrong type yields the `TypeError` text Python gives.

mod tables;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use crate::bfcl::multi_turn::pyops::datetime::{strptime, strptime_arg, today, Format};
use crate::bfcl::multi_turn::pyops::{self, dict, error, item, no_attribute, set_entry, set_item, str_key, Cmp, Num, Op};
use crate::bfcl::multi_turn::pyrandom::PyRandom;
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyvalue::Py;
use tables::{Rate, AIRPORTS, BASE_COSTS, EXCHANGE_RATES, NEAREST_AIRPORT};

/// `DEFAULT_STATE["random_seed"]`.
const DEFAULT_SEED: i128 = 141_053;

/// BFCL's long-context extension (`long_context.py`, BFCL's data, Apache-2.0):
/// cards and bookings merged into the configuration when `long_context`.
const LONG_CONTEXT_JSON: &str = include_str!("travel_long_context.json");

/// A dict's entries, in insertion order.
type Entries = Vec<(String, Py)>;

/// The long-context extension: cards and bookings by id.
struct Extension {
    cards: Entries,
    bookings: Entries,
}

/// The extension, parsed once.
fn long_context_extension() -> &'static Extension {
    static EXTENSION: OnceLock<Extension> = OnceLock::new();
    EXTENSION.get_or_init(|| {
        // Bundled at compile time; a unit test proves it parses.
        let data: Py = serde_json::from_str(LONG_CONTEXT_JSON).unwrap_or(Py::None);
        let part = |key: &str| match data.get(key) {
            Some(Py::Dict(entries)) => entries.clone(),
            _ => Vec::new(),
        };
        Extension { cards: part("credit_card_extension"), bookings: part("booking_record_extension") }
    })
}

/// BFCL's `TravelAPI`.
#[derive(Debug, Clone)]
pub struct TravelAPI {
    random: PyRandom,
    credit_card_list: Entries,
    booking_record: Entries,
    access_token: Py,
    token_type: Py,
    token_expires_in: Py,
    token_scope: Py,
    user_first_name: Py,
    user_last_name: Py,
    budget_limit: Py,
    long_context: bool,
}

impl Default for TravelAPI {
    fn default() -> Self {
        TravelAPI {
            random: PyRandom::new(DEFAULT_SEED),
            credit_card_list: Vec::new(),
            booking_record: Vec::new(),
            access_token: Py::None,
            token_type: Py::None,
            token_expires_in: Py::None,
            token_scope: Py::None,
            user_first_name: Py::None,
            user_last_name: Py::None,
            budget_limit: Py::None,
            long_context: false,
        }
    }
}

const METHODS: &[Method] = &[
    Method {
        name: "authenticate_travel",
        params: &[
            req("client_id"),
            req("client_secret"),
            req("refresh_token"),
            req("grant_type"),
            req("user_first_name"),
            req("user_last_name"),
        ],
    },
    Method { name: "travel_get_login_status", params: &[] },
    Method { name: "get_budget_fiscal_year", params: &[opt("lastModifiedAfter"), opt("includeRemoved")] },
    Method {
        name: "register_credit_card",
        params: &[req("access_token"), req("card_number"), req("expiration_date"), req("cardholder_name"), req("card_verification_number")],
    },
    Method { name: "get_flight_cost", params: &[req("travel_from"), req("travel_to"), req("travel_date"), req("travel_class")] },
    Method { name: "get_credit_card_balance", params: &[req("access_token"), req("card_id")] },
    Method {
        name: "book_flight",
        params: &[req("access_token"), req("card_id"), req("travel_date"), req("travel_from"), req("travel_to"), req("travel_class")],
    },
    Method { name: "retrieve_invoice", params: &[req("access_token"), opt("booking_id"), opt("insurance_id")] },
    Method { name: "get_booking_history", params: &[req("access_token")] },
    Method { name: "list_all_airports", params: &[] },
    Method { name: "cancel_booking", params: &[req("access_token"), req("booking_id")] },
    Method { name: "compute_exchange_rate", params: &[req("base_currency"), req("target_currency"), req("value")] },
    Method {
        name: "verify_traveler_information",
        params: &[req("first_name"), req("last_name"), req("date_of_birth"), req("passport_number")],
    },
    Method { name: "set_budget_limit", params: &[req("access_token"), req("budget_limit")] },
    Method { name: "get_nearest_airport_by_city", params: &[req("location")] },
    Method {
        name: "purchase_insurance",
        params: &[req("access_token"), req("insurance_type"), req("booking_id"), req("insurance_cost"), req("card_id")],
    },
    Method { name: "contact_customer_support", params: &[req("booking_id"), req("message")] },
    Method { name: "get_all_credit_cards", params: &[] },
];

impl ApiClass for TravelAPI {
    fn class_name(&self) -> &'static str {
        "TravelAPI"
    }

    fn load(&mut self, config: &Py, long_context: bool) {
        let value = |key: &str| config.get(key).cloned().unwrap_or(Py::None);
        // A non-int seed (never in BFCL's data) falls back to the default.
        let seed = match config.get("random_seed") {
            Some(Py::Int(seed)) => *seed,
            _ => DEFAULT_SEED,
        };
        // BFCL's configurations hold dicts here; anything else reads as empty.
        let entries = |key: &str| match config.get(key) {
            Some(Py::Dict(entries)) => entries.clone(),
            _ => Vec::new(),
        };
        *self = TravelAPI {
            random: PyRandom::new(seed),
            credit_card_list: entries("credit_card_list"),
            booking_record: entries("booking_record"),
            access_token: value("access_token"),
            token_type: value("token_type"),
            token_expires_in: value("token_expires_in"),
            token_scope: value("token_scope"),
            user_first_name: value("user_first_name"),
            user_last_name: value("user_last_name"),
            budget_limit: value("budget_limit"),
            long_context,
        };
        if long_context {
            let extension = long_context_extension();
            merge_missing(&mut self.credit_card_list, &extension.cards);
            merge_missing(&mut self.booking_record, &extension.bookings);
        }
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        let a = |name: &str| args.arg(name);
        match method {
            "authenticate_travel" => Ok(self.authenticate_travel(a("grant_type"), a("user_first_name"), a("user_last_name"))),
            "travel_get_login_status" => Ok(self.travel_get_login_status()),
            "get_budget_fiscal_year" => Ok(self.get_budget_fiscal_year()),
            "register_credit_card" => self.register_credit_card(
                a("access_token"),
                a("card_number"),
                a("expiration_date"),
                a("cardholder_name"),
                a("card_verification_number"),
            ),
            "get_flight_cost" => self.get_flight_cost(a("travel_from"), a("travel_to"), a("travel_date"), a("travel_class")),
            "get_credit_card_balance" => self.get_credit_card_balance(a("access_token"), a("card_id")),
            "book_flight" => {
                self.book_flight(a("access_token"), a("card_id"), a("travel_date"), a("travel_from"), a("travel_to"), a("travel_class"))
            }
            "retrieve_invoice" => self.retrieve_invoice(a("access_token"), a("booking_id")),
            "get_booking_history" => Ok(self.get_booking_history(a("access_token"))),
            "list_all_airports" => Ok(list_all_airports()),
            "cancel_booking" => self.cancel_booking(a("access_token"), a("booking_id")),
            "compute_exchange_rate" => compute_exchange_rate(a("base_currency"), a("target_currency"), a("value")),
            "verify_traveler_information" => {
                self.verify_traveler_information(a("first_name"), a("last_name"), a("date_of_birth"), a("passport_number"))
            }
            "set_budget_limit" => self.set_budget_limit(a("access_token"), a("budget_limit")),
            "get_nearest_airport_by_city" => get_nearest_airport_by_city(a("location")),
            "purchase_insurance" => self.purchase_insurance(a("access_token"), a("booking_id"), a("insurance_cost"), a("card_id")),
            "contact_customer_support" => self.contact_customer_support(a("booking_id")),
            "get_all_credit_cards" => Ok(self.get_all_credit_cards()),
            _ => Err(format!("'TravelAPI' object has no attribute '{method}'")),
        }
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        vec![
            ("credit_card_list", Attr::Dict(&self.credit_card_list)),
            ("booking_record", Attr::Dict(&self.booking_record)),
            ("access_token", Attr::Py(&self.access_token)),
            ("token_type", Attr::Py(&self.token_type)),
            ("token_expires_in", Attr::Py(&self.token_expires_in)),
            ("token_scope", Attr::Py(&self.token_scope)),
            ("user_first_name", Attr::Py(&self.user_first_name)),
            ("user_last_name", Attr::Py(&self.user_last_name)),
            ("budget_limit", Attr::Py(&self.budget_limit)),
            ("long_context", Attr::Made(Py::Bool(self.long_context))),
        ]
    }
}

impl TravelAPI {
    fn authenticate_travel(&mut self, grant_type: &Py, user_first_name: &Py, user_last_name: &Py) -> Py {
        self.token_expires_in = Py::Int(2);
        self.access_token = Py::Str(self.random.randint(100_000, 999_999).to_string());
        self.token_type = Py::Str("Bearer".into());
        self.token_scope = grant_type.clone();
        self.user_first_name = user_first_name.clone();
        self.user_last_name = user_last_name.clone();
        dict([
            ("expires_in", Py::Int(2)),
            ("access_token", self.access_token.clone()),
            ("token_type", Py::Str("Bearer".into())),
            ("scope", grant_type.clone()),
        ])
    }

    fn travel_get_login_status(&self) -> Py {
        let logged_out = matches!(self.token_expires_in, Py::None) || self.token_expires_in.py_eq(&Py::Int(0));
        dict([("status", Py::Bool(!logged_out))])
    }

    fn get_budget_fiscal_year(&self) -> Py {
        dict([("budget_fiscal_year", Py::Str("2018".into()))])
    }

    /// The check most methods start with: `Some(error)` when the token has
    /// expired or is not the one handed out.
    fn token_error(&self, access_token: &Py) -> Option<&'static str> {
        if self.token_expires_in.py_eq(&Py::Int(0)) {
            Some("Token expired")
        } else if !access_token.py_eq(&self.access_token) {
            Some("Invalid access token")
        } else {
            None
        }
    }

    fn register_credit_card(
        &mut self,
        access_token: &Py,
        card_number: &Py,
        expiration_date: &Py,
        cardholder_name: &Py,
        card_verification_number: &Py,
    ) -> Result<Py, PyError> {
        if matches!(self.token_expires_in, Py::None) {
            return Ok(error("Token not initialized"));
        }
        if let Some(e) = self.token_error(access_token) {
            return Ok(error(e));
        }
        // The Python looks the card *number* up among card ids; kept as it is.
        if pyops::has_key(&self.credit_card_list, card_number)? {
            return Ok(error("Card already registered"));
        }
        let card_id = self.random.randint(100_000_000_000, 999_999_999_999).to_string();
        let card = dict([
            ("card_number", card_number.clone()),
            ("expiration_date", expiration_date.clone()),
            ("cardholder_name", cardholder_name.clone()),
            ("card_verification_number", card_verification_number.clone()),
            ("balance", Py::Int(self.random.randint(10_000, 99_999))),
        ]);
        set_entry(&mut self.credit_card_list, &card_id, card);
        Ok(dict([("card_id", Py::Str(card_id))]))
    }

    fn get_flight_cost(&self, travel_from: &Py, travel_to: &Py, travel_date: &Py, travel_class: &Py) -> Result<Py, PyError> {
        let costs = flight_costs(travel_from, travel_to, travel_date, travel_class)?;
        // Long context lists every route's cost at this class and date.
        let list = if self.long_context { costs.all } else { vec![costs.route] };
        Ok(dict([("travel_cost_list", Py::List(list.into_iter().map(Py::Float).collect()))]))
    }

    fn get_credit_card_balance(&self, access_token: &Py, card_id: &Py) -> Result<Py, PyError> {
        if let Some(e) = self.token_error(access_token) {
            return Ok(error(e));
        }
        match pyops::get(&self.credit_card_list, card_id)? {
            Some(card) => Ok(dict([("card_balance", item(card, "balance")?.clone())])),
            None => {
                let ids = Py::List(self.credit_card_list.iter().map(|(k, _)| Py::Str(k.clone())).collect());
                Ok(error(format!("Card not registered. Here are a list of card_id's: {}", ids.repr())))
            }
        }
    }

    fn book_flight(
        &mut self,
        access_token: &Py,
        card_id: &Py,
        travel_date: &Py,
        travel_from: &Py,
        travel_to: &Py,
        travel_class: &Py,
    ) -> Result<Py, PyError> {
        let failed = |e: &str| dict([("booking_status", Py::Bool(false)), ("error", Py::Str(e.into()))]);
        if let Some(e) = self.token_error(access_token) {
            return Ok(failed(e));
        }
        let Some(card) = pyops::get(&self.credit_card_list, card_id)? else {
            return Ok(failed("Card not registered"));
        };
        if card.get("balance").is_none() {
            return Ok(failed("Balance not found"));
        }
        let airports: Vec<Py> = AIRPORTS.iter().map(|a| Py::Str((*a).into())).collect();
        if !travel_from.py_in(&airports) {
            return Ok(failed(&format!("Invalid departure airport code: {}", travel_from.str_())));
        }
        if !travel_to.py_in(&airports) {
            return Ok(failed(&format!("Invalid destination airport code: {}", travel_to.str_())));
        }
        if strptime(strptime_arg(travel_date)?, Format::Date).is_err() {
            return Ok(failed("Invalid date format. Use YYYY-MM-DD."));
        }
        pyops::hashable(travel_class)?;
        if !matches!(travel_class.as_str(), Some("economy" | "business" | "first")) {
            // Python writes a set here, in an order that varies with string
            // hashing from run to run; this is the order of its literal.
            return Ok(failed("Invalid travel class. Must be one of {'economy', 'business', 'first'}"));
        }
        let travel_cost = match flight_costs(travel_from, travel_to, travel_date, travel_class) {
            Ok(costs) => Py::Float(costs.route),
            Err(FlightCostError::Value(e)) => return Ok(failed(e)),
            Err(FlightCostError::Type(e)) => return Err(e),
        };
        let balance = item(card, "balance")?;
        if pyops::compare(Cmp::Lt, balance, &travel_cost)? {
            return Ok(failed("Insufficient funds"));
        }
        if !matches!(self.budget_limit, Py::None) && pyops::compare(Cmp::Lt, balance, &self.budget_limit)? {
            return Ok(failed("Balance is less than budget limit"));
        }
        let balance = pyops::arith(Op::Sub, balance, &travel_cost, true)?;
        let card_key = str_key(card_id)?.unwrap_or_default().to_string();
        set_item(pyops::item_mut(&mut self.credit_card_list, &card_key)?, "balance", balance)?;
        let booking_id = self.random.randint(1_000_000, 9_999_999).to_string();
        let transaction_id = self.random.randint(10_000_000, 99_999_999).to_string();
        let booking = dict([
            ("card_id", card_id.clone()),
            ("travel_date", travel_date.clone()),
            ("travel_from", travel_from.clone()),
            ("travel_to", travel_to.clone()),
            ("travel_class", travel_class.clone()),
            ("travel_cost", travel_cost),
            ("transaction_id", Py::Str(transaction_id.clone())),
        ]);
        set_entry(&mut self.booking_record, &booking_id, booking);
        let history = if self.long_context { self.booking_record.clone() } else { Vec::new() };
        Ok(dict([
            ("booking_id", Py::Str(booking_id)),
            ("transaction_id", Py::Str(transaction_id)),
            ("booking_status", Py::Bool(true)),
            ("booking_history", Py::Dict(history)),
        ]))
    }

    fn retrieve_invoice(&self, access_token: &Py, booking_id: &Py) -> Result<Py, PyError> {
        if let Some(e) = self.token_error(access_token) {
            return Ok(error(e));
        }
        let Some(booking) = pyops::get(&self.booking_record, booking_id)? else {
            return Ok(error("Booking not found"));
        };
        let mut invoice = vec![("booking_id".to_string(), booking_id.clone())];
        for field in ["travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id"] {
            invoice.push((field.to_string(), item(booking, field)?.clone()));
        }
        Ok(dict([("invoice", Py::Dict(invoice))]))
    }

    fn get_booking_history(&self, access_token: &Py) -> Py {
        if let Some(e) = self.token_error(access_token) {
            return error(e);
        }
        dict([("booking_history", Py::Dict(self.booking_record.clone()))])
    }

    fn cancel_booking(&mut self, access_token: &Py, booking_id: &Py) -> Result<Py, PyError> {
        let failed = |e: &str| dict([("cancel_status", Py::Bool(false)), ("error", Py::Str(e.into()))]);
        if let Some(e) = self.token_error(access_token) {
            return Ok(failed(e));
        }
        let Some(booking) = pyops::get(&self.booking_record, booking_id)? else {
            return Ok(failed("Booking not found"));
        };
        let card_id = item(booking, "card_id")?;
        let travel_cost = item(booking, "travel_cost")?;
        let card = pyops::get(&self.credit_card_list, card_id)?.ok_or_else(|| card_id.repr())?;
        let balance = pyops::arith(Op::Add, item(card, "balance")?, travel_cost, true)?;
        let card_key = str_key(card_id)?.unwrap_or_default().to_string();
        set_item(pyops::item_mut(&mut self.credit_card_list, &card_key)?, "balance", balance)?;
        let booking_key = str_key(booking_id)?.unwrap_or_default();
        self.booking_record.retain(|(k, _)| k != booking_key);
        Ok(dict([("cancel_status", Py::Bool(true))]))
    }

    fn verify_traveler_information(
        &self,
        first_name: &Py,
        last_name: &Py,
        date_of_birth: &Py,
        passport_number: &Py,
    ) -> Result<Py, PyError> {
        let failed = |e: &str| dict([("verification_status", Py::Bool(false)), ("verification_failure", Py::Str(e.into()))]);
        if !self.user_first_name.py_eq(first_name) || !self.user_last_name.py_eq(last_name) {
            return Ok(failed(&format!(
                "Cannot book flight information for another user.Expected {} {}, got {} {}",
                self.user_first_name.str_(),
                self.user_last_name.str_(),
                first_name.str_(),
                last_name.str_()
            )));
        }
        let Ok(birth) = strptime(strptime_arg(date_of_birth)?, Format::Date) else {
            return Ok(failed("Invalid date of birth format. Please use YYYY-MM-DD."));
        };
        let (today_year, today_month, today_day) = today();
        let age = today_year - birth.year - i64::from((today_month, today_day) < (birth.month, birth.day));
        if age < 18 {
            return Ok(failed("Traveler must be at least 18 years old."));
        }
        let Py::Str(passport) = passport_number else {
            return Err(format!("'{}' object has no attribute 'startswith'", passport_number.py_type().name()));
        };
        if !passport.starts_with("US") {
            return Ok(failed("Passport must be issued by the United States."));
        }
        Ok(dict([("verification_status", Py::Bool(true))]))
    }

    fn set_budget_limit(&mut self, access_token: &Py, budget_limit: &Py) -> Result<Py, PyError> {
        if let Some(e) = self.token_error(access_token) {
            return Ok(error(e));
        }
        self.budget_limit = Py::Float(pyops::float(budget_limit)?);
        Ok(dict([("budget_limit", self.budget_limit.clone())]))
    }

    fn purchase_insurance(&mut self, access_token: &Py, booking_id: &Py, insurance_cost: &Py, card_id: &Py) -> Result<Py, PyError> {
        let failed = |e: &str| dict([("insurance_status", Py::Bool(false)), ("error", Py::Str(e.into()))]);
        if let Some(e) = self.token_error(access_token) {
            return Ok(failed(e));
        }
        if !matches!(self.budget_limit, Py::None) && pyops::compare(Cmp::Lt, &self.budget_limit, insurance_cost)? {
            return Ok(failed("Exceeded budget limit"));
        }
        if !pyops::has_key(&self.booking_record, booking_id)? {
            return Ok(failed("Booking not found"));
        }
        let Some(card) = pyops::get(&self.credit_card_list, card_id)? else {
            return Ok(failed("Credit card not registered"));
        };
        let balance = pyops::arith(Op::Sub, item(card, "balance")?, insurance_cost, true)?;
        let card_key = str_key(card_id)?.unwrap_or_default().to_string();
        set_item(pyops::item_mut(&mut self.credit_card_list, &card_key)?, "balance", balance)?;
        let insurance_id = self.random.randint(100_000_000, 999_999_999).to_string();
        Ok(dict([("insurance_id", Py::Str(insurance_id)), ("insurance_status", Py::Bool(true))]))
    }

    fn contact_customer_support(&self, booking_id: &Py) -> Result<Py, PyError> {
        if !pyops::has_key(&self.booking_record, booking_id)? {
            return Ok(error("Booking not found"));
        }
        let message = "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.";
        Ok(dict([("customer_support_message", Py::Str(message.into()))]))
    }

    fn get_all_credit_cards(&self) -> Py {
        dict([("credit_card_list", Py::Dict(self.credit_card_list.clone()))])
    }
}

fn list_all_airports() -> Py {
    Py::List(AIRPORTS.iter().map(|a| Py::Str((*a).into())).collect())
}

fn compute_exchange_rate(base_currency: &Py, target_currency: &Py, value: &Py) -> Result<Py, PyError> {
    let (base, target) = (base_currency.as_str(), target_currency.as_str());
    for &(from, to, rate) in EXCHANGE_RATES {
        if base == Some(from) && target == Some(to) {
            return Ok(dict([("exchanged_value", Py::Float(times_rate(value, rate)?))]));
        }
        if base == Some(to) && target == Some(from) {
            return Ok(dict([("exchanged_value", Py::Float(pyops::round_float(over_rate(value, rate)?, 2)))]));
        }
    }
    Err("No available exchange rate for the given currencies.".into())
}

fn get_nearest_airport_by_city(location: &Py) -> Result<Py, PyError> {
    let city = str_key(location)?;
    let airport = NEAREST_AIRPORT.iter().find(|(c, _)| Some(*c) == city).map_or("Unknown", |(_, a)| a);
    Ok(dict([("nearest_airport", Py::Str(airport.into()))]))
}

/// What `get_flight_cost` computes: the asked route's cost and, in
/// order, every route's cost at the same class and date.
struct FlightCosts {
    route: f64,
    all: Vec<f64>,
}

/// How `get_flight_cost` fails: a `ValueError` (`book_flight` turns it into
/// its error) or a wrong type (a `TypeError`, which it does not catch).
#[derive(Debug)]
enum FlightCostError {
    Value(&'static str),
    Type(PyError),
}

impl From<FlightCostError> for PyError {
    fn from(e: FlightCostError) -> PyError {
        match e {
            FlightCostError::Value(e) => e.to_string(),
            FlightCostError::Type(e) => e,
        }
    }
}

/// `get_flight_cost`'s arithmetic: base cost × class factor × 2 when the
/// date's digits sum to an even number.
fn flight_costs(travel_from: &Py, travel_to: &Py, travel_date: &Py, travel_class: &Py) -> Result<FlightCosts, FlightCostError> {
    let (from, to) = (str_key(travel_from).map_err(FlightCostError::Type)?, str_key(travel_to).map_err(FlightCostError::Type)?);
    let base = BASE_COSTS
        .iter()
        .find(|(f, t, _)| Some(*f) == from && Some(*t) == to)
        .map(|(_, _, cost)| *cost)
        .ok_or(FlightCostError::Value("No available route for the given airports."))?;
    let factor = match travel_class.as_str() {
        Some("economy") => 1,
        Some("business") => 2,
        Some("first") => 5,
        _ => return Err(FlightCostError::Value("Invalid travel class. Options are: economy, business, first.")),
    };
    let multiplier = if date_digit_sum_is_even(travel_date).map_err(FlightCostError::Type)? { 2 } else { 1 };
    let cost = |base: i128| (base * factor * multiplier) as f64;
    Ok(FlightCosts { route: cost(base), all: BASE_COSTS.iter().map(|(_, _, b)| cost(*b)).collect() })
}

/// `sum(int(char) for char in travel_date if char.isdigit())` over whatever
/// Python iterates: a string's characters, a list's or tuple's items (Python:
/// for `['2026-11-15']` the one item is no digit string, the sum is 0; for
/// `['20', '26']` it is 46), a dict's keys; an item that is no string has no
/// `isdigit` (AttributeError). Only the sum's parity matters: that of the
/// items' last digits.
fn date_digit_sum_is_even(travel_date: &Py) -> Result<bool, PyError> {
    let mut even = true;
    for item in pyops::iterate(travel_date)? {
        let Py::Str(text) = &item else {
            return Err(no_attribute(&item, "isdigit"));
        };
        // `str.isdigit` (ASCII digits: `int` of Unicode digits is not copied).
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            even ^= text.bytes().last().is_some_and(|d| d % 2 == 1);
        }
    }
    Ok(even)
}

/// `float(value * rate)`, with Python's rules for an int, float or string value.
fn times_rate(value: &Py, rate: Rate) -> Result<f64, PyError> {
    match (value, rate) {
        // An int times an int is exact at any size; `float` of it, or an int
        // meeting a float, raises OverflowError past the largest float.
        (Py::Int(_) | Py::BigInt(_) | Py::Bool(_), _) => {
            let n = pyops::num(value).unwrap_or(Num::Int(0));
            pyops::num_arith(Op::Mul, n, rate.num())?.to_float()
        }
        (Py::Float(v), Rate::Int(r)) => Ok(v * r as f64),
        (Py::Float(v), Rate::Float(r)) => Ok(v * r),
        // A string times an int repeats it; `float` then reads the digits.
        (Py::Str(s), Rate::Int(r)) => pyops::float(&Py::Str(s.repeat(usize::try_from(r).unwrap_or(0)))),
        (Py::Str(_) | Py::List(_) | Py::Tuple(_), Rate::Float(_)) => Err("can't multiply sequence by non-int of type 'float'".into()),
        (Py::List(_) | Py::Tuple(_), Rate::Int(_)) => {
            Err(format!("float() argument must be a string or a real number, not '{}'", value.py_type().name()))
        }
        (other, _) => Err(format!("unsupported operand type(s) for *: '{}' and '{}'", other.py_type().name(), rate.type_name())),
    }
}

/// `value / rate` (true division).
fn over_rate(value: &Py, rate: Rate) -> Result<f64, PyError> {
    match pyops::num(value) {
        // Python's true division: exact for ints, `OverflowError` for a big int and a float.
        Some(n) => pyops::num_arith(Op::Div, n, rate.num())?.to_float(),
        None => Err(format!("unsupported operand type(s) for /: '{}' and '{}'", value.py_type().name(), rate.type_name())),
    }
}

impl Rate {
    fn type_name(self) -> &'static str {
        match self {
            Rate::Int(_) => "int",
            Rate::Float(_) => "float",
        }
    }
}

/// The long-context merge: entries whose key is not there yet, appended.
fn merge_missing(entries: &mut Entries, extension: &[(String, Py)]) {
    for (key, value) in extension {
        if !entries.iter().any(|(k, _)| k == key) {
            entries.push((key.clone(), value.clone()));
        }
    }
}
