//! BFCL's `TicketAPI` (`ticket_api.py`): a queue of support tickets (dicts
//! found by their `id`), created, edited, closed and resolved by a
//! logged-in user.

use crate::bfcl::multi_turn::pyops::{self, dict, error, increment, item, lower, no_attribute, set_item, truthy, Cmp};
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyvalue::Py;

/// BFCL's `TicketAPI`.
#[derive(Debug, Clone)]
pub struct TicketAPI {
    /// Ticket dicts, oldest first.
    ticket_queue: Vec<Py>,
    ticket_counter: Py,
    current_user: Py,
}

impl Default for TicketAPI {
    fn default() -> Self {
        TicketAPI { ticket_queue: Vec::new(), ticket_counter: Py::Int(1), current_user: Py::None }
    }
}

const METHODS: &[Method] = &[
    Method { name: "create_ticket", params: &[req("title"), opt("description"), opt("priority")] },
    Method { name: "get_ticket", params: &[req("ticket_id")] },
    Method { name: "close_ticket", params: &[req("ticket_id")] },
    Method { name: "resolve_ticket", params: &[req("ticket_id"), req("resolution")] },
    Method { name: "edit_ticket", params: &[req("ticket_id"), req("updates")] },
    Method { name: "ticket_login", params: &[req("username"), req("password")] },
    Method { name: "ticket_get_login_status", params: &[] },
    Method { name: "logout", params: &[] },
    Method { name: "get_user_tickets", params: &[opt("status")] },
];

/// The fields `edit_ticket` may change.
const EDITABLE: [&str; 4] = ["title", "description", "status", "priority"];

fn ticket_not_found(ticket_id: &Py) -> Py {
    error(format!("Ticket with ID {} not found.", ticket_id.str_()))
}

fn status(text: String) -> Py {
    dict(vec![("status", Py::Str(text))])
}

impl TicketAPI {
    /// `_find_ticket`: the first ticket whose `id` equals `ticket_id`.
    fn find_ticket(&self, ticket_id: &Py) -> Result<Option<usize>, PyError> {
        for (i, ticket) in self.ticket_queue.iter().enumerate() {
            if item(ticket, "id")?.py_eq(ticket_id) {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    fn create_ticket(&mut self, title: &Py, description: Option<&Py>, priority: Option<&Py>) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(error("User not authenticated. Please log in to create a ticket."));
        }
        let priority = priority.cloned().unwrap_or(Py::Int(1));
        if pyops::compare(Cmp::Lt, &priority, &Py::Int(1))? || pyops::compare(Cmp::Gt, &priority, &Py::Int(5))? {
            return Ok(error("Invalid priority. Priority must be between 1 and 5."));
        }
        let ticket = dict(vec![
            ("id", self.ticket_counter.clone()),
            ("title", title.clone()),
            ("description", description.cloned().unwrap_or(Py::Str(String::new()))),
            ("status", Py::Str("Open".into())),
            ("priority", priority),
            ("created_by", self.current_user.clone()),
        ]);
        self.ticket_queue.push(ticket.clone());
        self.ticket_counter = increment(&self.ticket_counter)?;
        Ok(ticket)
    }

    fn get_ticket(&self, ticket_id: &Py) -> Result<Py, PyError> {
        Ok(match self.find_ticket(ticket_id)? {
            Some(i) => self.ticket_queue[i].clone(),
            None => ticket_not_found(ticket_id),
        })
    }

    fn close_ticket(&mut self, ticket_id: &Py) -> Result<Py, PyError> {
        let Some(i) = self.find_ticket(ticket_id)? else {
            return Ok(ticket_not_found(ticket_id));
        };
        let ticket = &mut self.ticket_queue[i];
        if item(ticket, "status")?.py_eq(&Py::Str("Closed".into())) {
            return Ok(error(format!("Ticket with ID {} is already closed.", ticket_id.str_())));
        }
        set_item(ticket, "status", Py::Str("Closed".into()))?;
        Ok(status(format!("Ticket {} has been closed successfully.", ticket_id.str_())))
    }

    fn resolve_ticket(&mut self, ticket_id: &Py, resolution: &Py) -> Result<Py, PyError> {
        let Some(i) = self.find_ticket(ticket_id)? else {
            return Ok(ticket_not_found(ticket_id));
        };
        let ticket = &mut self.ticket_queue[i];
        if item(ticket, "status")?.py_eq(&Py::Str("Resolved".into())) {
            return Ok(error(format!("Ticket with ID {} is already resolved.", ticket_id.str_())));
        }
        set_item(ticket, "status", Py::Str("Resolved".into()))?;
        set_item(ticket, "resolution", resolution.clone())?;
        Ok(status(format!("Ticket {} has been resolved successfully.", ticket_id.str_())))
    }

    fn edit_ticket(&mut self, ticket_id: &Py, updates: &Py) -> Result<Py, PyError> {
        let Some(i) = self.find_ticket(ticket_id)? else {
            return Ok(ticket_not_found(ticket_id));
        };
        let Py::Dict(updates) = updates else {
            return Err(no_attribute(updates, "keys"));
        };
        // Python lists a set here, in an order that changes from run to run
        // when there are several; the caller's order is as good as any.
        let invalid: Vec<&str> = updates.iter().map(|(k, _)| k.as_str()).filter(|k| !EDITABLE.contains(k)).collect();
        if !invalid.is_empty() {
            return Ok(error(format!("Invalid fields for update: {}", invalid.join(", "))));
        }
        for (key, value) in updates {
            if !matches!(value, Py::None) {
                set_item(&mut self.ticket_queue[i], key, value.clone())?;
            }
        }
        Ok(status(format!("Ticket {} has been updated successfully.", ticket_id.str_())))
    }

    fn ticket_login(&mut self, username: &Py, password: &Py) -> Py {
        // BFCL accepts any non-empty pair.
        if truthy(username) && truthy(password) {
            self.current_user = username.clone();
            return dict(vec![("success", Py::Bool(true))]);
        }
        dict(vec![("success", Py::Bool(false))])
    }

    fn ticket_get_login_status(&self) -> Py {
        dict(vec![("login_status", Py::Bool(truthy(&self.current_user)))])
    }

    fn logout(&mut self) -> Py {
        if truthy(&self.current_user) {
            self.current_user = Py::None;
            return dict(vec![("success", Py::Bool(true))]);
        }
        dict(vec![("success", Py::Bool(false))])
    }

    fn get_user_tickets(&self, status: Option<&Py>) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(Py::List(vec![error("User not authenticated. Please log in to view tickets.")]));
        }
        let mut tickets = Vec::new();
        for ticket in &self.ticket_queue {
            if item(ticket, "created_by")?.py_eq(&self.current_user) {
                tickets.push(ticket.clone());
            }
        }
        if let Some(status) = status.filter(|s| truthy(s)) {
            let mut kept = Vec::new();
            for ticket in tickets {
                if lower(item(&ticket, "status")?)? == lower(status)? {
                    kept.push(ticket);
                }
            }
            tickets = kept;
        }
        Ok(Py::List(tickets))
    }
}

impl ApiClass for TicketAPI {
    fn class_name(&self) -> &'static str {
        "TicketAPI"
    }

    fn load(&mut self, config: &Py, _long_context: bool) {
        self.ticket_queue = match config.get("ticket_queue") {
            Some(Py::List(tickets)) => tickets.clone(),
            _ => Vec::new(),
        };
        self.ticket_counter = config.get("ticket_counter").cloned().unwrap_or(Py::Int(1));
        self.current_user = config.get("current_user").cloned().unwrap_or(Py::None);
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        match method {
            "create_ticket" => self.create_ticket(args.arg("title"), args.get("description"), args.get("priority")),
            "get_ticket" => self.get_ticket(args.arg("ticket_id")),
            "close_ticket" => self.close_ticket(args.arg("ticket_id")),
            "resolve_ticket" => self.resolve_ticket(args.arg("ticket_id"), args.arg("resolution")),
            "edit_ticket" => self.edit_ticket(args.arg("ticket_id"), args.arg("updates")),
            "ticket_login" => Ok(self.ticket_login(args.arg("username"), args.arg("password"))),
            "ticket_get_login_status" => Ok(self.ticket_get_login_status()),
            "logout" => Ok(self.logout()),
            "get_user_tickets" => self.get_user_tickets(args.get("status")),
            _ => Err(format!("'TicketAPI' object has no attribute '{method}'")),
        }
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        vec![
            ("ticket_queue", Attr::List(&self.ticket_queue)),
            ("ticket_counter", Attr::Py(&self.ticket_counter)),
            ("current_user", Attr::Py(&self.current_user)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(api: &mut TicketAPI, method: &str, args: &[(&str, Py)]) -> Result<Py, PyError> {
        api.call(method, &Args(args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()))
    }

    fn text(result: Result<Py, PyError>) -> String {
        crate::bfcl::multi_turn::result_text(&result.expect("call succeeds"))
    }

    fn s(text: &str) -> Py {
        Py::Str(text.to_string())
    }

    fn state_of(api: &TicketAPI, attr: &str) -> String {
        api.state().into_iter().find(|(k, _)| k == attr).map(|(_, v)| v.json_dumps()).expect("attribute present")
    }

    fn with_queue() -> TicketAPI {
        let config: Py = serde_json::from_str(
            r#"{"current_user": "mia", "ticket_queue": [{"id": 7, "title": "Printer", "description": "jam", "status": "Open", "priority": 2, "created_by": "mia"}, {"id": 8, "title": "VPN", "description": "", "status": "Closed", "priority": 1, "created_by": "leo"}]}"#,
        )
        .unwrap();
        let mut api = TicketAPI::default();
        api.load(&config, false);
        api
    }

    #[test]
    fn login_create_and_logout() {
        let mut api = TicketAPI::default();
        assert_eq!(
            text(call(&mut api, "create_ticket", &[("title", s("t"))])),
            r#"{"error": "User not authenticated. Please log in to create a ticket."}"#
        );
        assert_eq!(text(call(&mut api, "get_user_tickets", &[])), "[{'error': 'User not authenticated. Please log in to view tickets.'}]");
        assert_eq!(text(call(&mut api, "ticket_login", &[("username", s("mia")), ("password", s(""))])), r#"{"success": false}"#);
        assert_eq!(text(call(&mut api, "ticket_login", &[("username", s("mia")), ("password", s("pw"))])), r#"{"success": true}"#);
        assert_eq!(text(call(&mut api, "ticket_get_login_status", &[])), r#"{"login_status": true}"#);
        assert_eq!(
            text(call(&mut api, "create_ticket", &[("title", s("t")), ("priority", Py::Int(4))])),
            r#"{"id": 1, "title": "t", "description": "", "status": "Open", "priority": 4, "created_by": "mia"}"#
        );
        assert_eq!(
            text(call(&mut api, "create_ticket", &[("title", s("t")), ("priority", Py::Int(6))])),
            r#"{"error": "Invalid priority. Priority must be between 1 and 5."}"#
        );
        assert_eq!(
            call(&mut api, "create_ticket", &[("title", s("t")), ("priority", s("high"))]).unwrap_err(),
            "'<' not supported between instances of 'str' and 'int'"
        );
        assert_eq!(state_of(&api, "ticket_counter"), "2");
        assert_eq!(text(call(&mut api, "logout", &[])), r#"{"success": true}"#);
        assert_eq!(text(call(&mut api, "logout", &[])), r#"{"success": false}"#);
        assert_eq!(state_of(&api, "current_user"), "null");
    }

    #[test]
    fn close_resolve_and_edit() {
        let mut api = with_queue();
        assert_eq!(
            text(call(&mut api, "close_ticket", &[("ticket_id", Py::Int(7))])),
            r#"{"status": "Ticket 7 has been closed successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "close_ticket", &[("ticket_id", Py::Int(7))])),
            r#"{"error": "Ticket with ID 7 is already closed."}"#
        );
        assert_eq!(text(call(&mut api, "close_ticket", &[("ticket_id", Py::Int(9))])), r#"{"error": "Ticket with ID 9 not found."}"#);
        assert_eq!(
            text(call(&mut api, "resolve_ticket", &[("ticket_id", Py::Float(8.0)), ("resolution", s("fixed"))])),
            r#"{"status": "Ticket 8.0 has been resolved successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "edit_ticket", &[("ticket_id", Py::Int(7)), ("updates", Py::Dict(vec![("owner".into(), s("x"))]))])),
            r#"{"error": "Invalid fields for update: owner"}"#
        );
        let updates = Py::Dict(vec![("priority".into(), Py::Int(5)), ("title".into(), Py::None)]);
        assert_eq!(
            text(call(&mut api, "edit_ticket", &[("ticket_id", Py::Int(7)), ("updates", updates)])),
            r#"{"status": "Ticket 7 has been updated successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "get_ticket", &[("ticket_id", Py::Int(7))])),
            r#"{"id": 7, "title": "Printer", "description": "jam", "status": "Closed", "priority": 5, "created_by": "mia"}"#
        );
        assert_eq!(
            state_of(&api, "ticket_queue").split("}, ").nth(1).unwrap_or_default(),
            r#"{"id": 8, "title": "VPN", "description": "", "status": "Resolved", "priority": 1, "created_by": "leo", "resolution": "fixed"}]"#
        );
        assert_eq!(
            call(&mut api, "edit_ticket", &[("ticket_id", Py::Int(7)), ("updates", Py::List(vec![]))]).unwrap_err(),
            "'list' object has no attribute 'keys'"
        );
    }

    #[test]
    fn user_tickets_by_status() {
        let mut api = with_queue();
        assert_eq!(text(call(&mut api, "get_user_tickets", &[("status", s("OPEN"))])).matches("'id'").count(), 1);
        assert_eq!(text(call(&mut api, "get_user_tickets", &[("status", s("closed"))])), "[]");
        assert_eq!(text(call(&mut api, "get_user_tickets", &[("status", s(""))])).matches("'id'").count(), 1);
        assert_eq!(call(&mut api, "get_user_tickets", &[("status", Py::Int(3))]).unwrap_err(), "'int' object has no attribute 'lower'");
    }
}
