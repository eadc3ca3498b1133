//! BFCL's `TradingBot` (`trading_bot.py`): an account, orders, stocks, a
//! watch list and a transaction history. Values from the entry's
//! configuration are kept as the Python values they are (an order may be a
//! string in BFCL's data), so that odd input fails as Python fails.

use crate::bfcl::multi_turn::pyops::datetime::{self as pydatetime, strptime_arg, DateTime, Format};
use crate::bfcl::multi_turn::pyops::{self, dict, error, Cmp, Op};
use crate::bfcl::multi_turn::pyrandom::PyRandom;
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyvalue::Py;
use std::sync::OnceLock;

/// BFCL's `DEFAULT_STATE`, for the keys an entry's configuration leaves out.
const DEFAULT_STATE: &str = r#"{
  "orders": {
    "12345": {"id": 12345, "order_type": "Buy", "symbol": "AAPL", "price": 210.65, "amount": 10, "status": "Completed"},
    "12446": {"id": 12446, "order_type": "Sell", "symbol": "GOOG", "price": 2840.56, "amount": 5, "status": "Pending"}
  },
  "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
  "authenticated": false,
  "market_status": "Closed",
  "order_counter": 12446,
  "stocks": {
    "AAPL": {"price": 227.16, "percent_change": 0.17, "volume": 2.552, "MA(5)": 227.11, "MA(20)": 227.09},
    "GOOG": {"price": 2840.34, "percent_change": 0.24, "volume": 1.123, "MA(5)": 2835.67, "MA(20)": 2842.15},
    "TSLA": {"price": 667.92, "percent_change": -0.12, "volume": 1.654, "MA(5)": 671.15, "MA(20)": 668.2},
    "MSFT": {"price": 310.23, "percent_change": 0.09, "volume": 3.234, "MA(5)": 309.88, "MA(20)": 310.11},
    "NVDA": {"price": 220.34, "percent_change": 0.34, "volume": 1.234, "MA(5)": 220.45, "MA(20)": 220.67},
    "ALPH": {"price": 1320.45, "percent_change": -0.08, "volume": 1.567, "MA(5)": 1321.12, "MA(20)": 1325.78},
    "OMEG": {"price": 457.23, "percent_change": 0.12, "volume": 2.345, "MA(5)": 456.78, "MA(20)": 458.12},
    "QUAS": {"price": 725.89, "percent_change": -0.03, "volume": 1.789, "MA(5)": 726.45, "MA(20)": 728.0},
    "NEPT": {"price": 88.34, "percent_change": 0.19, "volume": 0.654, "MA(5)": 88.21, "MA(20)": 88.67},
    "SYNX": {"price": 345.67, "percent_change": 0.11, "volume": 2.112, "MA(5)": 345.34, "MA(20)": 346.12},
    "ZETA": {"price": 22.09, "percent_change": -0.05, "volume": 0.789, "MA(5)": 22.12, "MA(20)": 22.34}
  },
  "watch_list": ["NVDA"],
  "transaction_history": [],
  "random_seed": 1053520
}"#;

/// BFCL's `CURRENT_TIME`: 2024-09-01 10:30, naive (read in UTC here).
const CURRENT_TIME: DateTime = DateTime { year: 2024, month: 9, day: 1, hour: 10, minute: 30, ..pydatetime::MIN };

/// `get_symbol_by_name`'s table.
const SYMBOLS: &[(&str, &str)] = &[
    ("Apple", "AAPL"),
    ("Google", "GOOG"),
    ("Tesla", "TSLA"),
    ("Microsoft", "MSFT"),
    ("Nvidia", "NVDA"),
    ("Zeta Corp", "ZETA"),
    ("Alpha Tech", "ALPH"),
    ("Omega Industries", "OMEG"),
    ("Quasar Ltd.", "QUAS"),
    ("Neptune Systems", "NEPT"),
    ("Synex Solutions", "SYNX"),
    ("Amazon", "AMZN"),
    ("Gorilla", "GORI"),
];

/// The extra data BFCL's `long_context.py` gives this class.
struct LongContext {
    automobile: Vec<Py>,
    ma_5: Py,
    ma_20: Py,
    /// `ORDER_DETAIL_EXTENSION`: templates with `{symbol}`.
    order_detail: Vec<(String, String)>,
    technology: Vec<Py>,
    transaction_history: Vec<Py>,
    /// `WATCH_LIST_EXTENSION` less its last item, Python's `Ellipsis`.
    watch_list: Vec<Py>,
}

fn long_context_data() -> &'static LongContext {
    static DATA: OnceLock<LongContext> = OnceLock::new();
    DATA.get_or_init(|| {
        let all: Py = serde_json::from_str(include_str!("trading_long_context.json")).expect("bundled long-context data is JSON");
        let list = |key: &str| match all.get(key) {
            Some(Py::List(items)) => items.clone(),
            _ => Vec::new(),
        };
        let order_detail = match all.get("ORDER_DETAIL_EXTENSION") {
            Some(Py::Dict(entries)) => entries.iter().map(|(k, v)| (k.clone(), v.str_())).collect(),
            _ => Vec::new(),
        };
        LongContext {
            automobile: list("AUTOMOBILE_EXTENSION"),
            ma_5: Py::List(list("MA_5_EXTENSION")),
            ma_20: Py::List(list("MA_20_EXTENSION")),
            order_detail,
            technology: list("TECHNOLOGY_EXTENSION"),
            transaction_history: list("TRANSACTION_HISTORY_EXTENSION"),
            watch_list: list("WATCH_LIST_EXTENSION"),
        }
    })
}

/// BFCL's `TradingBot`.
#[derive(Debug, Clone)]
pub struct TradingBot {
    /// Keys as Python holds them: ints where the configuration's key is all digits.
    orders: Vec<(Py, Py)>,
    account_info: Py,
    authenticated: Py,
    market_status: Py,
    order_counter: Py,
    stocks: Vec<(String, Py)>,
    watch_list: Vec<Py>,
    transaction_history: Vec<Py>,
    long_context: bool,
    random: PyRandom,
}

impl Default for TradingBot {
    fn default() -> Self {
        TradingBot {
            orders: Vec::new(),
            account_info: Py::Dict(Vec::new()),
            authenticated: Py::Bool(false),
            market_status: Py::Str("Closed".into()),
            order_counter: Py::Int(0),
            stocks: Vec::new(),
            watch_list: Vec::new(),
            transaction_history: Vec::new(),
            long_context: false,
            random: PyRandom::new(1_053_520),
        }
    }
}

const METHODS: &[Method] = &[
    Method { name: "get_current_time", params: &[] },
    Method { name: "get_symbol_by_name", params: &[req("name")] },
    Method { name: "get_stock_info", params: &[req("symbol")] },
    Method { name: "get_order_details", params: &[req("order_id")] },
    Method { name: "cancel_order", params: &[req("order_id")] },
    Method { name: "place_order", params: &[req("order_type"), req("symbol"), req("price"), req("amount")] },
    Method { name: "withdraw_funds", params: &[req("amount")] },
    Method { name: "get_account_info", params: &[] },
    Method { name: "trading_login", params: &[req("username"), req("password")] },
    Method { name: "trading_get_login_status", params: &[] },
    Method { name: "trading_logout", params: &[] },
    Method { name: "fund_account", params: &[req("amount")] },
    Method { name: "remove_stock_from_watchlist", params: &[req("symbol")] },
    Method { name: "get_watchlist", params: &[] },
    Method { name: "get_order_history", params: &[] },
    Method { name: "get_transaction_history", params: &[opt("start_date"), opt("end_date")] },
    Method { name: "get_available_stocks", params: &[req("sector")] },
    Method { name: "filter_stocks_by_price", params: &[req("stocks"), req("min_price"), req("max_price")] },
    Method { name: "add_to_watchlist", params: &[req("stock")] },
    Method { name: "notify_price_change", params: &[req("stocks"), req("threshold")] },
];

fn text(s: impl Into<String>) -> Py {
    Py::Str(s.into())
}

/// The configuration's value of `key`, or the default's.
fn config_or_default<'a>(config: &'a Py, defaults: &'a Py, key: &str) -> &'a Py {
    config.get(key).or_else(|| defaults.get(key)).unwrap_or(&Py::None)
}

fn as_list(v: &Py) -> Vec<Py> {
    match v {
        Py::List(items) => items.clone(),
        _ => Vec::new(),
    }
}

impl TradingBot {
    fn is_authenticated(&self) -> bool {
        pyops::truthy(&self.authenticated)
    }

    /// The position of `order_id` among the orders' keys (`order_id in self.orders`).
    fn order_index(&self, order_id: &Py) -> Result<Option<usize>, PyError> {
        pyops::hashable(order_id)?;
        Ok(self.orders.iter().position(|(k, _)| k.py_eq(order_id)))
    }

    fn stock(&self, symbol: &str) -> Option<&Py> {
        self.stocks.iter().find(|(k, _)| k == symbol).map(|(_, v)| v)
    }

    /// A random time in the day after `CURRENT_TIME`, drawn as BFCL draws it.
    fn generate_transaction_timestamp(&mut self) -> String {
        let start = pydatetime::timestamp(&CURRENT_TIME);
        let end = start + 86_400;
        let drawn = self.random.randint(i128::from(start), i128::from(end));
        pydatetime::format_timestamp(i64::try_from(drawn).unwrap_or(start))
    }

    fn get_current_time(&self) -> Py {
        dict([("current_time", text("10:30 AM"))])
    }

    fn get_symbol_by_name(&self, name: &Py) -> Result<Py, PyError> {
        pyops::hashable(name)?;
        let symbol = SYMBOLS.iter().find(|(n, _)| name.as_str() == Some(*n)).map_or("Stock not found", |(_, s)| *s);
        Ok(dict([("symbol", text(symbol))]))
    }

    fn get_stock_info(&self, symbol: &Py) -> Result<Py, PyError> {
        let found = match (pyops::has_key(&self.stocks, symbol)?, symbol) {
            (true, Py::Str(s)) => self.stock(s),
            _ => None,
        };
        let Some(stock) = found else {
            return Ok(error(format!("Stock with symbol '{}' not found.", symbol.str_())));
        };
        if self.long_context {
            let mut stock = copy(stock)?;
            pyops::set_item(&mut stock, "MA(5)", long_context_data().ma_5.clone())?;
            pyops::set_item(&mut stock, "MA(20)", long_context_data().ma_20.clone())?;
            return Ok(stock);
        }
        Ok(stock.clone())
    }

    fn get_order_details(&self, order_id: &Py) -> Result<Py, PyError> {
        let Some(index) = self.order_index(order_id)? else {
            let keys = Py::List(self.orders.iter().map(|(k, _)| k.clone()).collect());
            return Ok(error(format!("Order with ID {} not found.Here is the list of orders_id: {}", order_id.str_(), keys.repr())));
        };
        let order = &self.orders[index].1;
        if self.long_context {
            let mut order = copy(order)?;
            let symbol = pyops::item(&order, "symbol")?.str_();
            let metadata = long_context_data()
                .order_detail
                .iter()
                .map(|(k, template)| (k.clone(), text(template.replace("{symbol}", &symbol))))
                .collect();
            pyops::set_item(&mut order, "metadata", Py::Dict(metadata))?;
            return Ok(order);
        }
        Ok(order.clone())
    }

    fn cancel_order(&mut self, order_id: &Py) -> Result<Py, PyError> {
        let Some(index) = self.order_index(order_id)? else {
            return Ok(error(format!("Order with ID {} not found.", order_id.str_())));
        };
        let order = &mut self.orders[index].1;
        if pyops::item(order, "status")?.py_eq(&text("Completed")) {
            return Ok(error(format!("Can't cancel order {}. Order is already completed.", order_id.str_())));
        }
        pyops::set_item(order, "status", text("Cancelled"))?;
        Ok(dict([("order_id", order_id.clone()), ("status", text("Cancelled"))]))
    }

    fn place_order(&mut self, order_type: &Py, symbol: &Py, price: &Py, amount: &Py) -> Result<Py, PyError> {
        if !self.is_authenticated() {
            return Ok(error("User not authenticated. Please log in to place an order."));
        }
        if !pyops::has_key(&self.stocks, symbol)? {
            return Ok(error(format!("Invalid stock symbol: {}", symbol.str_())));
        }
        if pyops::compare(Cmp::Le, price, &Py::Int(0))? || pyops::compare(Cmp::Le, amount, &Py::Int(0))? {
            return Ok(error("Price and amount must be positive values."));
        }
        let kind = pyops::lower(order_type)?;
        // Both passed `<= 0`, so both are numbers; `float(price)` of an int
        // past the largest float raises OverflowError, as `float(x) * int(y)` does.
        let price = pyops::float(price)?;
        if kind == "buy" {
            let amount = pyops::num(&pyops::int(amount)?).unwrap_or(pyops::Num::Int(0));
            let total_cost = pyops::num_arith(Op::Mul, pyops::Num::Float(price), amount)?.as_f64();
            let balance = self.account_info.get("balance").cloned().unwrap_or(Py::Int(0));
            if pyops::compare(Cmp::Gt, &Py::Float(total_cost), &balance)? {
                return Ok(error(format!(
                    "Insufficient funds: required ${} but only ${} available.",
                    fixed2(total_cost),
                    fixed2(pyops::num(&balance).map_or(0.0, pyops::Num::as_f64))
                )));
            }
        }
        let order_id = self.order_counter.clone();
        let order = dict([
            ("id", order_id.clone()),
            ("order_type", order_type.clone()),
            ("symbol", symbol.clone()),
            ("price", Py::Float(price)),
            ("amount", amount.clone()),
            ("status", text("Open")),
        ]);
        match self.orders.iter_mut().find(|(k, _)| k.py_eq(&order_id)) {
            Some(entry) => entry.1 = order,
            None => self.orders.push((order_id.clone(), order)),
        }
        self.order_counter = pyops::arith(Op::Add, &self.order_counter, &Py::Int(1), true)?;
        Ok(dict([
            ("order_id", order_id),
            ("order_type", order_type.clone()),
            ("status", text("Pending")),
            ("price", Py::Float(price)),
            ("amount", amount.clone()),
        ]))
    }

    fn withdraw_funds(&mut self, amount: &Py) -> Result<Py, PyError> {
        if !self.is_authenticated() {
            return Ok(error("User not authenticated. Please log in to make a transaction."));
        }
        if !self.market_status.py_eq(&text("Open")) {
            return Ok(error("Market is closed. Transactions are not allowed."));
        }
        if pyops::compare(Cmp::Le, amount, &Py::Int(0))? {
            return Ok(error("Transaction amount must be positive."));
        }
        let balance = pyops::item(&self.account_info, "balance")?.clone();
        if pyops::compare(Cmp::Gt, amount, &balance)? {
            return Ok(error("Insufficient funds for withdrawal."));
        }
        let new_balance = pyops::arith(Op::Sub, &balance, amount, true)?;
        pyops::set_item(&mut self.account_info, "balance", new_balance.clone())?;
        let timestamp = self.generate_transaction_timestamp();
        self.transaction_history.push(dict([("type", text("withdrawal")), ("amount", amount.clone()), ("timestamp", text(timestamp))]));
        Ok(dict([("status", text("Withdrawal successful")), ("new_balance", new_balance)]))
    }

    fn get_account_info(&self) -> Py {
        if !self.is_authenticated() {
            return error("User not authenticated. Please log in to view account information.");
        }
        self.account_info.clone()
    }

    fn trading_login(&mut self) -> Py {
        if self.is_authenticated() {
            return dict([("status", text("Already logged in"))]);
        }
        self.authenticated = Py::Bool(true);
        dict([("status", text("Logged in successfully"))])
    }

    fn trading_get_login_status(&self) -> Py {
        dict([("status", Py::Bool(self.is_authenticated()))])
    }

    fn trading_logout(&mut self) -> Py {
        if !self.is_authenticated() {
            return dict([("status", text("No user is currently logged in"))]);
        }
        self.authenticated = Py::Bool(false);
        dict([("status", text("Logged out successfully"))])
    }

    fn fund_account(&mut self, amount: &Py) -> Result<Py, PyError> {
        if !self.is_authenticated() {
            return Ok(error("User not authenticated. Please log in to fund the account."));
        }
        if pyops::compare(Cmp::Le, amount, &Py::Int(0))? {
            return Ok(error("Funding amount must be positive."));
        }
        let balance = pyops::item(&self.account_info, "balance")?;
        let new_balance = pyops::arith(Op::Add, balance, amount, true)?;
        pyops::set_item(&mut self.account_info, "balance", new_balance.clone())?;
        let timestamp = self.generate_transaction_timestamp();
        self.transaction_history.push(dict([("type", text("deposit")), ("amount", amount.clone()), ("timestamp", text(timestamp))]));
        Ok(dict([("status", text("Account funded successfully")), ("new_balance", new_balance)]))
    }

    fn remove_stock_from_watchlist(&mut self, symbol: &Py) -> Py {
        if !self.is_authenticated() {
            return error("User not authenticated. Please log in to modify the watchlist.");
        }
        let Some(index) = self.watch_list.iter().position(|s| s.py_eq(symbol)) else {
            return error(format!("Stock {} not found in watchlist.", symbol.str_()));
        };
        self.watch_list.remove(index);
        dict([("status", text(format!("Stock {} removed from watchlist successfully.", symbol.str_())))])
    }

    fn get_watchlist(&self) -> Py {
        if !self.is_authenticated() {
            return Py::List(vec![text("Error: User not authenticated. Please log in to view the watchlist.")]);
        }
        if self.long_context {
            // A list, so BFCL writes its `str()`; the extension ends in Python's
            // `Ellipsis`, which `Py` cannot hold: write the text here.
            let items: Vec<Py> = self.watch_list.iter().chain(&long_context_data().watch_list).cloned().collect();
            let listed = Py::List(items).repr();
            let inner = listed.strip_suffix(']').unwrap_or(&listed);
            let sep = if inner.len() > 1 { ", " } else { "" };
            return text(format!("{inner}{sep}Ellipsis]"));
        }
        dict([("watchlist", Py::List(self.watch_list.clone()))])
    }

    fn get_order_history(&self) -> Py {
        if !self.is_authenticated() {
            return Py::List(vec![error("User not authenticated. Please log in to view order history.")]);
        }
        dict([("history", Py::List(self.orders.iter().map(|(k, _)| k.clone()).collect()))])
    }

    fn get_transaction_history(&self, start_date: &Py, end_date: &Py) -> Result<Py, PyError> {
        if !self.is_authenticated() {
            return Ok(Py::List(vec![error("User not authenticated. Please log in to view transaction history.")]));
        }
        let bound = |date: &Py, unset: DateTime| -> Result<DateTime, PyError> {
            if !pyops::truthy(date) {
                return Ok(unset);
            }
            pydatetime::strptime(strptime_arg(date)?, Format::Date)
        };
        let (start, end) = (bound(start_date, pydatetime::MIN)?, bound(end_date, pydatetime::MAX)?);
        let mut filtered = Vec::new();
        for transaction in &self.transaction_history {
            let when = pydatetime::strptime(strptime_arg(pyops::item(transaction, "timestamp")?)?, Format::DateTime)?;
            if start <= when && when <= end {
                filtered.push(transaction.clone());
            }
        }
        if self.long_context {
            filtered.extend(long_context_data().transaction_history.iter().cloned());
        }
        Ok(dict([("transaction_history", Py::List(filtered))]))
    }

    fn get_available_stocks(&self, sector: &Py) -> Result<Py, PyError> {
        pyops::hashable(sector)?;
        let names = |list: &[&str]| list.iter().map(|s| text(*s)).collect::<Vec<Py>>();
        let mut stocks = match sector.as_str() {
            Some("Technology") => names(&["AAPL", "GOOG", "MSFT", "NVDA"]),
            Some("Automobile") => names(&["TSLA", "F", "GM"]),
            _ => return Ok(dict([("stock_list", Py::List(Vec::new()))])),
        };
        if self.long_context {
            let data = long_context_data();
            stocks.extend(if sector.as_str() == Some("Technology") { &data.technology } else { &data.automobile }.iter().cloned());
        }
        Ok(dict([("stock_list", Py::List(stocks))]))
    }

    /// `self.stocks.get(symbol, {}).get("price", 0)`.
    fn price_of(&self, symbol: &Py) -> Result<Py, PyError> {
        pyops::hashable(symbol)?;
        let stock = match symbol {
            Py::Str(s) => self.stock(s),
            _ => None,
        };
        match stock {
            None => Ok(Py::Int(0)),
            Some(found @ Py::Dict(_)) => Ok(found.get("price").cloned().unwrap_or(Py::Int(0))),
            Some(other) => Err(pyops::no_attribute(other, "get")),
        }
    }

    fn filter_stocks_by_price(&self, stocks: &Py, min_price: &Py, max_price: &Py) -> Result<Py, PyError> {
        let mut filtered = Vec::new();
        for symbol in pyops::iterate(stocks)? {
            if pyops::compare(Cmp::Ge, &self.price_of(&symbol)?, min_price)?
                && pyops::compare(Cmp::Le, &self.price_of(&symbol)?, max_price)?
            {
                filtered.push(symbol);
            }
        }
        Ok(dict([("filtered_stocks", Py::List(filtered))]))
    }

    fn add_to_watchlist(&mut self, stock: &Py) -> Result<Py, PyError> {
        if !stock.py_in(&self.watch_list) && pyops::has_key(&self.stocks, stock)? {
            self.watch_list.push(stock.clone());
        }
        Ok(dict([("watchlist", Py::List(self.watch_list.clone()))]))
    }

    fn notify_price_change(&self, stocks: &Py, threshold: &Py) -> Result<Py, PyError> {
        let mut changed = Vec::new();
        for symbol in pyops::iterate(stocks)? {
            if !pyops::has_key(&self.stocks, &symbol)? {
                continue;
            }
            let stock = self.stock(symbol.as_str().unwrap_or_default()).unwrap_or(&Py::None);
            let change = pyops::abs(pyops::item(stock, "percent_change")?)?;
            if pyops::compare(Cmp::Ge, &change, threshold)? {
                changed.push(symbol.str_());
            }
        }
        if changed.is_empty() {
            return Ok(dict([("notification", text("No significant price changes in the selected stocks."))]));
        }
        Ok(dict([("notification", text(format!("Stocks {} have significant price changes.", changed.join(", "))))]))
    }
}

/// `value.copy()` of a dict (or list); anything else has no `copy`.
fn copy(value: &Py) -> Result<Py, PyError> {
    match value {
        Py::Dict(_) | Py::List(_) => Ok(value.clone()),
        other => Err(pyops::no_attribute(other, "copy")),
    }
}

/// `f"{x:.2f}"`: Rust's fixed formatting rounds the exact binary value half
/// to even, as Python's does.
fn fixed2(x: f64) -> String {
    format!("{x:.2}")
}

impl ApiClass for TradingBot {
    fn class_name(&self) -> &'static str {
        "TradingBot"
    }

    fn load(&mut self, config: &Py, long_context: bool) {
        let defaults: Py = serde_json::from_str(DEFAULT_STATE).expect("DEFAULT_STATE is JSON");
        let get = |key: &str| config_or_default(config, &defaults, key).clone();
        self.orders = match get("orders") {
            Py::Dict(entries) => entries
                .into_iter()
                .map(|(k, v)| {
                    // BFCL turns all-digit keys back into the ints JSON made strings of.
                    let key = if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                        // Exact at any length, as Python's `int(k)`.
                        pyops::int(&Py::Str(k.clone())).unwrap_or(Py::Str(k))
                    } else {
                        Py::Str(k)
                    };
                    (key, v)
                })
                .collect(),
            _ => Vec::new(),
        };
        self.account_info = get("account_info");
        self.authenticated = get("authenticated");
        self.market_status = get("market_status");
        self.order_counter = get("order_counter");
        self.stocks = match get("stocks") {
            Py::Dict(entries) => entries,
            _ => Vec::new(),
        };
        self.watch_list = as_list(&get("watch_list"));
        self.transaction_history = as_list(&get("transaction_history"));
        self.long_context = long_context;
        let seed = match get("random_seed") {
            Py::Int(i) => i,
            _ => 1_053_520,
        };
        self.random = PyRandom::new(seed);
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        let a = |name: &str| args.arg(name);
        let optional = |name: &str| args.get(name).unwrap_or(&Py::None);
        match method {
            "get_current_time" => Ok(self.get_current_time()),
            "get_symbol_by_name" => self.get_symbol_by_name(a("name")),
            "get_stock_info" => self.get_stock_info(a("symbol")),
            "get_order_details" => self.get_order_details(a("order_id")),
            "cancel_order" => self.cancel_order(a("order_id")),
            "place_order" => self.place_order(a("order_type"), a("symbol"), a("price"), a("amount")),
            "withdraw_funds" => self.withdraw_funds(a("amount")),
            "get_account_info" => Ok(self.get_account_info()),
            "trading_login" => Ok(self.trading_login()),
            "trading_get_login_status" => Ok(self.trading_get_login_status()),
            "trading_logout" => Ok(self.trading_logout()),
            "fund_account" => self.fund_account(a("amount")),
            "remove_stock_from_watchlist" => Ok(self.remove_stock_from_watchlist(a("symbol"))),
            "get_watchlist" => Ok(self.get_watchlist()),
            "get_order_history" => Ok(self.get_order_history()),
            "get_transaction_history" => self.get_transaction_history(optional("start_date"), optional("end_date")),
            "get_available_stocks" => self.get_available_stocks(a("sector")),
            "filter_stocks_by_price" => self.filter_stocks_by_price(a("stocks"), a("min_price"), a("max_price")),
            "add_to_watchlist" => self.add_to_watchlist(a("stock")),
            "notify_price_change" => self.notify_price_change(a("stocks"), a("threshold")),
            _ => Err(format!("'TradingBot' object has no attribute '{method}'")),
        }
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        let orders = self.orders.iter().map(|(k, v)| (k.str_(), v.clone())).collect();
        vec![
            ("orders", Attr::Made(Py::Dict(orders))),
            ("account_info", Attr::Py(&self.account_info)),
            ("authenticated", Attr::Py(&self.authenticated)),
            ("market_status", Attr::Py(&self.market_status)),
            ("order_counter", Attr::Py(&self.order_counter)),
            ("stocks", Attr::Dict(&self.stocks)),
            ("watch_list", Attr::List(&self.watch_list)),
            ("transaction_history", Attr::List(&self.transaction_history)),
            ("long_context", Attr::Made(Py::Bool(self.long_context))),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfcl::multi_turn::result_text;

    fn bot(config: &str, long_context: bool) -> TradingBot {
        let mut bot = TradingBot::default();
        bot.load(&serde_json::from_str(config).unwrap(), long_context);
        bot
    }

    /// The text BFCL's executor makes of the call (errors as `ERR …`).
    fn run(bot: &mut TradingBot, method: &str, args: &[(&str, Py)]) -> String {
        let args = Args(args.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect());
        match bot.call(method, &args) {
            Ok(v) => result_text(&v),
            Err(e) => format!("ERR {e}"),
        }
    }

    fn s(text: &str) -> Py {
        Py::Str(text.into())
    }

    fn state_of<'a>(state: &'a [(String, Py)], attr: &str) -> &'a Py {
        &state.iter().find(|(k, _)| k == attr).unwrap().1
    }

    #[test]
    fn a_tuple_is_a_hashable_key_that_no_symbol_equals() {
        // Python: ('ZETA',) in {'ZETA': {...}} is False (a tuple hashes; a list
        // raises "unhashable type: 'list'"), so add_to_watchlist(stock=('ZETA',))
        // adds nothing and returns the watchlist as it was.
        let mut b = bot(r#"{"watch_list": ["NVDA"]}"#, false);
        let tuple = Py::Tuple(vec![s("ZETA")]);
        assert_eq!(run(&mut b, "add_to_watchlist", &[("stock", tuple)]), r#"{"watchlist": ["NVDA"]}"#);
        let list = Py::List(vec![s("ZETA")]);
        assert_eq!(run(&mut b, "add_to_watchlist", &[("stock", list)]), "ERR unhashable type: 'list'");
        let nested = Py::Tuple(vec![Py::List(vec![s("ZETA")])]);
        assert_eq!(run(&mut b, "add_to_watchlist", &[("stock", nested)]), "ERR unhashable type: 'list'");
    }

    #[test]
    fn orders_need_a_login_and_funds() {
        let mut b = bot("{}", false);
        let order = [("order_type", s("Buy")), ("symbol", s("AAPL")), ("price", Py::Int(150)), ("amount", Py::Int(10))];
        assert_eq!(run(&mut b, "place_order", &order), r#"{"error": "User not authenticated. Please log in to place an order."}"#);
        assert_eq!(run(&mut b, "trading_login", &[("username", s("u")), ("password", s("p"))]), r#"{"status": "Logged in successfully"}"#);
        let mut big = order.clone();
        big[3].1 = Py::Int(100);
        assert_eq!(
            run(&mut b, "place_order", &big),
            r#"{"error": "Insufficient funds: required $15000.00 but only $10000.00 available."}"#
        );
        // The default counter is the id of an existing order: BFCL overwrites it in place.
        assert_eq!(
            run(&mut b, "place_order", &order),
            r#"{"order_id": 12446, "order_type": "Buy", "status": "Pending", "price": 150.0, "amount": 10}"#
        );
        let state = b.state();
        assert_eq!(state_of(&state, "order_counter").repr(), "12447");
        assert_eq!(
            state_of(&state, "orders").get("12446").unwrap().json_dumps(),
            r#"{"id": 12446, "order_type": "Buy", "symbol": "AAPL", "price": 150.0, "amount": 10, "status": "Open"}"#
        );
        let names: Vec<&str> = state.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "orders",
                "account_info",
                "authenticated",
                "market_status",
                "order_counter",
                "stocks",
                "watch_list",
                "transaction_history",
                "long_context"
            ]
        );
    }

    #[test]
    fn cancel_and_look_up_orders() {
        let mut b = bot("{}", false);
        assert_eq!(
            run(&mut b, "cancel_order", &[("order_id", Py::Int(12345))]),
            r#"{"error": "Can't cancel order 12345. Order is already completed."}"#
        );
        assert_eq!(run(&mut b, "cancel_order", &[("order_id", Py::Float(12446.0))]), r#"{"order_id": 12446.0, "status": "Cancelled"}"#);
        assert_eq!(run(&mut b, "cancel_order", &[("order_id", Py::Int(1))]), r#"{"error": "Order with ID 1 not found."}"#);
        assert_eq!(
            run(&mut b, "get_order_details", &[("order_id", Py::Int(99))]),
            r#"{"error": "Order with ID 99 not found.Here is the list of orders_id: [12345, 12446]"}"#
        );
        assert_eq!(run(&mut b, "get_order_details", &[("order_id", Py::List(vec![]))]), "ERR unhashable type: 'list'");
    }

    #[test]
    fn funds_move_with_random_timestamps() {
        let mut b = bot("{}", false);
        run(&mut b, "trading_login", &[]);
        assert_eq!(
            run(&mut b, "fund_account", &[("amount", Py::Int(500))]),
            r#"{"status": "Account funded successfully", "new_balance": 10500.0}"#
        );
        assert_eq!(
            run(&mut b, "withdraw_funds", &[("amount", Py::Int(1))]),
            r#"{"error": "Market is closed. Transactions are not allowed."}"#
        );
        b.market_status = s("Open");
        assert_eq!(
            run(&mut b, "withdraw_funds", &[("amount", Py::Float(200.5))]),
            r#"{"status": "Withdrawal successful", "new_balance": 10299.5}"#
        );
        assert_eq!(
            Py::List(b.transaction_history.clone()).json_dumps(),
            r#"[{"type": "deposit", "amount": 500, "timestamp": "2024-09-02 05:40:15"}, {"type": "withdrawal", "amount": 200.5, "timestamp": "2024-09-01 12:26:34"}]"#
        );
        assert_eq!(
            run(&mut b, "get_transaction_history", &[("start_date", s("2024-09-02"))]),
            r#"{"transaction_history": [{"type": "deposit", "amount": 500, "timestamp": "2024-09-02 05:40:15"}]}"#
        );
        assert_eq!(
            run(&mut b, "get_transaction_history", &[("start_date", s("2024-13-01"))]),
            "ERR time data '2024-13-01' does not match format '%Y-%m-%d'"
        );
        assert_eq!(run(&mut b, "fund_account", &[("amount", s("5"))]), "ERR '<=' not supported between instances of 'str' and 'int'");
    }

    #[test]
    fn watch_list_and_stock_queries() {
        let mut b = bot("{}", false);
        assert_eq!(run(&mut b, "get_watchlist", &[]), "['Error: User not authenticated. Please log in to view the watchlist.']");
        assert_eq!(run(&mut b, "get_order_history", &[]), "[{'error': 'User not authenticated. Please log in to view order history.'}]");
        run(&mut b, "trading_login", &[]);
        assert_eq!(run(&mut b, "add_to_watchlist", &[("stock", s("TSLA"))]), r#"{"watchlist": ["NVDA", "TSLA"]}"#);
        assert_eq!(run(&mut b, "add_to_watchlist", &[("stock", s("XX"))]), r#"{"watchlist": ["NVDA", "TSLA"]}"#);
        assert_eq!(
            run(&mut b, "remove_stock_from_watchlist", &[("symbol", s("NVDA"))]),
            r#"{"status": "Stock NVDA removed from watchlist successfully."}"#
        );
        let symbols = Py::List(vec![s("AAPL"), s("GOOG"), s("TSLA"), s("XX")]);
        let filter = [("stocks", symbols.clone()), ("min_price", Py::Int(200)), ("max_price", Py::Int(700))];
        assert_eq!(run(&mut b, "filter_stocks_by_price", &filter), r#"{"filtered_stocks": ["AAPL", "TSLA"]}"#);
        let notify = [("stocks", symbols), ("threshold", Py::Float(0.15))];
        assert_eq!(run(&mut b, "notify_price_change", &notify), r#"{"notification": "Stocks AAPL, GOOG have significant price changes."}"#);
        assert_eq!(run(&mut b, "get_symbol_by_name", &[("name", s("Quasar Ltd."))]), r#"{"symbol": "QUAS"}"#);
        assert_eq!(run(&mut b, "get_stock_info", &[("symbol", s("XTC"))]), r#"{"error": "Stock with symbol 'XTC' not found."}"#);
        assert_eq!(run(&mut b, "get_current_time", &[]), r#"{"current_time": "10:30 AM"}"#);
        assert_eq!(run(&mut b, "trading_get_login_status", &[]), r#"{"status": true}"#);
    }

    #[test]
    fn odd_configurations_and_long_context() {
        let config = r#"{"orders": {"12345": {"symbol": "AAPL", "status": "Completed"}, "order_type": "Buy"}}"#;
        let mut b = bot(config, true);
        b.authenticated = Py::Bool(true);
        assert_eq!(run(&mut b, "get_order_history", &[]), r#"{"history": [12345, "order_type"]}"#);
        assert_eq!(run(&mut b, "cancel_order", &[("order_id", s("order_type"))]), "ERR string indices must be integers, not 'str'");
        let details = run(&mut b, "get_order_details", &[("order_id", Py::Int(12345))]);
        assert!(details.contains("Despite its strong performance, AAPL faces several risks"));
        let watch = run(&mut b, "get_watchlist", &[]);
        assert!(watch.starts_with("['NVDA', 'JHGUN', ") && watch.ends_with("'ZRFRE', Ellipsis]"));
        let info = run(&mut b, "get_stock_info", &[("symbol", s("AAPL"))]);
        assert!(info.contains(r#""MA(5)": [234.34, 212.46, 228.56, "#));
        let stocks = run(&mut b, "get_available_stocks", &[("sector", s("Automobile"))]);
        assert!(stocks.starts_with(r#"{"stock_list": ["TSLA", "F", "GM", "TSLA", "F", "GM", "UNUGJ""#));
    }
}
