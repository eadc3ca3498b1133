//! BFCL's `MessageAPI` (`message_api.py`): a workspace's users and an inbox
//! of `{receiver_id: message}` entries, with message ids drawn from
//! `random.Random(200191)` as BFCL draws them.
//!
//! The bottom of this file holds the few Python operations the messaging,
//! posting and ticket classes share (truthiness, `in` on a dict, `len`,
//! iteration, `+= 1`), each with Python's error text for odd input.

use crate::bfcl::multi_turn::pyops::{dict, error, get_any, increment, lower, no_attribute, plain_dict, truthy};
use crate::bfcl::multi_turn::pyrandom::PyRandom;
use crate::bfcl::multi_turn::{req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyvalue::Py;

/// `random_seed` when the configuration gives none.
const DEFAULT_SEED: i128 = 200_191;

/// BFCL's `MessageAPI`.
#[derive(Debug, Clone)]
pub struct MessageAPI {
    random: PyRandom,
    /// A Python set of ints; written out sorted, as set equality ignores order.
    generated_ids: Vec<i128>,
    user_count: Py,
    /// User name → user id; keys are whatever the caller passed (a dict's keys).
    user_map: Vec<(Py, Py)>,
    /// `{receiver_id: message}` dicts, oldest first.
    inbox: Vec<Py>,
    message_count: Py,
    current_user: Py,
}

impl Default for MessageAPI {
    fn default() -> Self {
        let mut api = MessageAPI {
            random: PyRandom::new(DEFAULT_SEED),
            generated_ids: Vec::new(),
            user_count: Py::Int(0),
            user_map: Vec::new(),
            inbox: Vec::new(),
            message_count: Py::Int(0),
            current_user: Py::None,
        };
        api.load(&Py::Dict(Vec::new()), false);
        api
    }
}

const METHODS: &[Method] = &[
    Method { name: "list_users", params: &[] },
    Method { name: "get_user_id", params: &[req("user")] },
    Method { name: "message_login", params: &[req("user_id")] },
    Method { name: "message_get_login_status", params: &[] },
    Method { name: "send_message", params: &[req("receiver_id"), req("message")] },
    Method { name: "delete_message", params: &[req("receiver_id")] },
    Method { name: "view_messages_sent", params: &[] },
    Method { name: "add_contact", params: &[req("user_name")] },
    Method { name: "search_messages", params: &[req("keyword")] },
    Method { name: "get_message_stats", params: &[] },
];

/// BFCL's `DEFAULT_STATE["user_map"]`.
const DEFAULT_USERS: [(&str, &str); 4] = [("Alice", "USR001"), ("Bob", "USR002"), ("Catherine", "USR003"), ("Daniel", "USR004")];

/// BFCL's `DEFAULT_STATE["inbox"]`.
const DEFAULT_INBOX: [(&str, &str); 3] = [
    ("USR002", "My name is Alice. I want to connect."),
    ("USR003", "Could you upload the file?"),
    ("USR004", "Could you upload the file?"),
];

fn not_logged_in() -> Py {
    error("No user is currently logged in.")
}

impl MessageAPI {
    /// `_generate_id`: a five-digit id not drawn before.
    fn generate_id(&mut self) -> Py {
        let mut new_id = self.random.randint(10_000, 99_999);
        while self.generated_ids.contains(&new_id) {
            new_id = self.random.randint(10_000, 99_999);
        }
        self.generated_ids.push(new_id);
        dict(vec![("new_id", Py::Int(new_id))])
    }

    fn list_users(&self) -> Py {
        dict(vec![("user_list", Py::List(self.user_map.iter().map(|(k, _)| k.clone()).collect()))])
    }

    fn get_user_id(&self, user: &Py) -> Result<Py, PyError> {
        match get_any(&self.user_map, user)? {
            None => Ok(error(format!("User '{}' not found in the workspace.", user.str_()))),
            Some(id) => Ok(dict(vec![("user_id", id.clone())])),
        }
    }

    fn message_login(&mut self, user_id: &Py) -> Py {
        if !self.user_ids().any(|id| id.py_eq(user_id)) {
            return dict(vec![("login_status", Py::Bool(false)), ("message", Py::Str(format!("User ID '{}' not found.", user_id.str_())))]);
        }
        self.current_user = user_id.clone();
        dict(vec![("login_status", Py::Bool(true)), ("message", Py::Str(format!("User '{}' logged in successfully.", user_id.str_())))])
    }

    fn message_get_login_status(&self) -> Py {
        dict(vec![("login_status", Py::Bool(truthy(&self.current_user)))])
    }

    fn send_message(&mut self, receiver_id: &Py, message: &Py) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(not_logged_in());
        }
        if !self.user_ids().any(|id| id.py_eq(receiver_id)) {
            return Ok(error(format!("Receiver ID '{}' not found.", receiver_id.str_())));
        }
        let message_id = self.generate_id();
        self.inbox.push(Py::Dict(vec![(receiver_id.str_(), message.clone())]));
        self.message_count = increment(&self.message_count)?;
        Ok(dict(vec![
            ("sent_status", Py::Bool(true)),
            ("message_id", message_id),
            ("message", Py::Str(format!("Message sent to '{}' successfully.", receiver_id.str_()))),
        ]))
    }

    fn delete_message(&mut self, receiver_id: &Py) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(not_logged_in());
        }
        for message in self.inbox.iter().rev() {
            let (receiver, _) = first_item(message)?;
            if receiver.py_eq(receiver_id) {
                // `list.remove` drops the first equal entry, not the one found from the end.
                let message = message.clone();
                if let Some(i) = self.inbox.iter().position(|m| m.py_eq(&message)) {
                    self.inbox.remove(i);
                }
                return Ok(dict(vec![
                    ("deleted_status", Py::Bool(true)),
                    ("receiver_id", receiver),
                    ("message", Py::Str(format!("Receiver {}'s latest message deleted successfully.", receiver_id.str_()))),
                ]));
            }
        }
        Ok(error(format!("Receiver ID {} not found.", receiver_id.str_())))
    }

    fn view_messages_sent(&self) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(not_logged_in());
        }
        let mut sent: Vec<(String, Py)> = Vec::new();
        for message in &self.inbox {
            let (receiver, content) = first_item(message)?;
            let receiver = receiver.str_();
            match sent.iter_mut().find(|(k, _)| *k == receiver) {
                Some((_, Py::List(items))) => items.push(content),
                _ => sent.push((receiver, Py::List(vec![content]))),
            }
        }
        Ok(dict(vec![("messages", Py::Dict(sent))]))
    }

    fn add_contact(&mut self, user_name: &Py) -> Result<Py, PyError> {
        if get_any(&self.user_map, user_name)?.is_some() {
            return Ok(error(format!("User name '{}' already exists.", user_name.str_())));
        }
        self.user_count = increment(&self.user_count)?;
        let user_id = Py::Str(format!("USR{}", zfill(&self.user_count.str_(), 3)));
        if self.user_ids().any(|id| id.py_eq(&user_id)) {
            return Ok(error(format!("User ID '{}' already exists.", user_id.str_())));
        }
        self.user_map.push((user_name.clone(), user_id.clone()));
        Ok(dict(vec![
            ("added_status", Py::Bool(true)),
            ("user_id", user_id),
            ("message", Py::Str(format!("Contact '{}' added successfully.", user_name.str_()))),
        ]))
    }

    fn search_messages(&self, keyword: &Py) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(not_logged_in());
        }
        let keyword = lower(keyword)?;
        let mut results = Vec::new();
        for message in &self.inbox {
            let (receiver, content) = first_item(message)?;
            if lower(&content)?.contains(&keyword) {
                results.push(dict(vec![("receiver_id", receiver), ("message", content)]));
            }
        }
        Ok(dict(vec![("results", Py::List(results))]))
    }

    fn get_message_stats(&self) -> Result<Py, PyError> {
        if !truthy(&self.current_user) {
            return Ok(not_logged_in());
        }
        let mut contacts: Vec<Py> = Vec::new();
        for message in &self.inbox {
            let (receiver, _) = first_item(message)?;
            if !receiver.py_in(&contacts) {
                contacts.push(receiver);
            }
        }
        let stats = dict(vec![("received_count", Py::Int(self.inbox.len() as i128)), ("total_contacts", Py::Int(contacts.len() as i128))]);
        Ok(dict(vec![("stats", stats)]))
    }

    fn user_ids(&self) -> impl Iterator<Item = &Py> {
        self.user_map.iter().map(|(_, id)| id)
    }
}

impl ApiClass for MessageAPI {
    fn class_name(&self) -> &'static str {
        "MessageAPI"
    }

    fn load(&mut self, config: &Py, _long_context: bool) {
        let seed = match config.get("random_seed") {
            Some(Py::Int(seed)) => *seed,
            _ => DEFAULT_SEED,
        };
        self.random = PyRandom::new(seed);
        self.generated_ids = match config.get("generated_ids") {
            Some(Py::List(ids)) => ids.iter().filter_map(|id| if let Py::Int(i) = id { Some(*i) } else { None }).collect(),
            _ => Vec::new(),
        };
        self.user_count = config.get("user_count").cloned().unwrap_or(Py::Int(4));
        self.user_map = match config.get("user_map") {
            Some(Py::Dict(users)) => users.iter().map(|(k, v)| (Py::Str(k.clone()), v.clone())).collect(),
            _ => DEFAULT_USERS.iter().map(|(name, id)| (Py::Str(name.to_string()), Py::Str(id.to_string()))).collect(),
        };
        self.inbox = match config.get("inbox") {
            Some(Py::List(inbox)) => inbox.clone(),
            _ => DEFAULT_INBOX.iter().map(|(to, text)| Py::Dict(vec![(to.to_string(), Py::Str(text.to_string()))])).collect(),
        };
        self.message_count = config.get("message_count").cloned().unwrap_or(Py::Int(3));
        self.current_user = config.get("current_user").cloned().unwrap_or(Py::None);
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        match method {
            "list_users" => Ok(self.list_users()),
            "get_user_id" => self.get_user_id(args.arg("user")),
            "message_login" => Ok(self.message_login(args.arg("user_id"))),
            "message_get_login_status" => Ok(self.message_get_login_status()),
            "send_message" => self.send_message(args.arg("receiver_id"), args.arg("message")),
            "delete_message" => self.delete_message(args.arg("receiver_id")),
            "view_messages_sent" => self.view_messages_sent(),
            "add_contact" => self.add_contact(args.arg("user_name")),
            "search_messages" => self.search_messages(args.arg("keyword")),
            "get_message_stats" => self.get_message_stats(),
            _ => Err(format!("'MessageAPI' object has no attribute '{method}'")),
        }
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        let mut ids = self.generated_ids.clone();
        ids.sort_unstable();
        vec![
            ("generated_ids", Attr::Made(Py::List(ids.into_iter().map(Py::Int).collect()))),
            ("user_count", Attr::Py(&self.user_count)),
            ("user_map", Attr::Made(plain_dict(&self.user_map))),
            ("inbox", Attr::List(&self.inbox)),
            ("message_count", Attr::Py(&self.message_count)),
            ("current_user", Attr::Py(&self.current_user)),
        ]
    }
}

/// `list(message.items())[0]` of an inbox entry.
fn first_item(message: &Py) -> Result<(Py, Py), PyError> {
    match message {
        Py::Dict(entries) => {
            entries.first().map(|(k, v)| (Py::Str(k.clone()), v.clone())).ok_or_else(|| "list index out of range".to_string())
        }
        other => Err(no_attribute(other, "items")),
    }
}

/// `str.zfill(width)`: zeros after any sign up to `width` characters.
fn zfill(text: &str, width: usize) -> String {
    let len = text.chars().count();
    if len >= width {
        return text.to_string();
    }
    let (sign, digits) = match text.strip_prefix(['-', '+']) {
        Some(rest) => (&text[..1], rest),
        None => ("", text),
    };
    format!("{sign}{}{digits}", "0".repeat(width - len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(api: &mut MessageAPI, method: &str, args: &[(&str, Py)]) -> Result<Py, PyError> {
        api.call(method, &Args(args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()))
    }

    fn text(result: Result<Py, PyError>) -> String {
        crate::bfcl::multi_turn::result_text(&result.expect("call succeeds"))
    }

    fn s(text: &str) -> Py {
        Py::Str(text.to_string())
    }

    fn state_of(api: &MessageAPI, attr: &str) -> Py {
        api.state().into_iter().find(|(k, _)| k == attr).map(|(_, v)| v).expect("attribute present")
    }

    #[test]
    fn default_state_and_listing() {
        let mut api = MessageAPI::default();
        let names: Vec<String> = api.state().into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["generated_ids", "user_count", "user_map", "inbox", "message_count", "current_user"]);
        assert_eq!(text(call(&mut api, "list_users", &[])), r#"{"user_list": ["Alice", "Bob", "Catherine", "Daniel"]}"#);
        assert_eq!(text(call(&mut api, "get_user_id", &[("user", s("Bob"))])), r#"{"user_id": "USR002"}"#);
        assert_eq!(text(call(&mut api, "get_user_id", &[("user", s("Zed"))])), r#"{"error": "User 'Zed' not found in the workspace."}"#);
        assert_eq!(text(call(&mut api, "message_get_login_status", &[])), r#"{"login_status": false}"#);
    }

    #[test]
    fn send_draws_ids_as_python() {
        // python3: m = MessageAPI(); m._load_scenario({}); m.message_login('USR001');
        // [m.send_message('USR002', 'hi') for _ in range(2)]
        let mut api = MessageAPI::default();
        assert_eq!(
            text(call(&mut api, "send_message", &[("receiver_id", s("USR002")), ("message", s("hi"))])),
            r#"{"error": "No user is currently logged in."}"#
        );
        assert_eq!(
            text(call(&mut api, "message_login", &[("user_id", s("USR001"))])),
            r#"{"login_status": true, "message": "User 'USR001' logged in successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "send_message", &[("receiver_id", s("USR002")), ("message", s("hi"))])),
            r#"{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to 'USR002' successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "send_message", &[("receiver_id", s("USR002")), ("message", s("hi"))])),
            r#"{"sent_status": true, "message_id": {"new_id": 41772}, "message": "Message sent to 'USR002' successfully."}"#
        );
        assert_eq!(
            text(call(&mut api, "send_message", &[("receiver_id", s("USR009")), ("message", s("x"))])),
            r#"{"error": "Receiver ID 'USR009' not found."}"#
        );
        assert_eq!(state_of(&api, "generated_ids").repr(), "[41772, 67410]");
        assert_eq!(state_of(&api, "message_count").repr(), "5");
        assert_eq!(state_of(&api, "inbox").py_type(), crate::bfcl::pyvalue::PyType::List);
    }

    #[test]
    fn delete_removes_the_first_equal_message() {
        let config: Py = serde_json::from_str(
            r#"{"current_user": "USR001", "inbox": [{"USR002": "a"}, {"USR003": "b"}, {"USR002": "a"}, {"USR002": "c"}]}"#,
        )
        .unwrap();
        let mut api = MessageAPI::default();
        api.load(&config, false);
        assert_eq!(
            text(call(&mut api, "delete_message", &[("receiver_id", s("USR003"))])),
            r#"{"deleted_status": true, "receiver_id": "USR003", "message": "Receiver USR003's latest message deleted successfully."}"#
        );
        call(&mut api, "delete_message", &[("receiver_id", s("USR002"))]).unwrap();
        call(&mut api, "delete_message", &[("receiver_id", s("USR002"))]).unwrap();
        // Python's `list.remove(message)`: the last {"USR002": "a"} is found, the first one goes.
        assert_eq!(state_of(&api, "inbox").repr(), "[{'USR002': 'a'}]");
        assert_eq!(
            text(call(&mut api, "delete_message", &[("receiver_id", s("USR004"))])),
            r#"{"error": "Receiver ID USR004 not found."}"#
        );
    }

    #[test]
    fn view_search_and_stats() {
        let mut api = MessageAPI::default();
        call(&mut api, "message_login", &[("user_id", s("USR001"))]).unwrap();
        assert_eq!(
            text(call(&mut api, "view_messages_sent", &[])),
            r#"{"messages": {"USR002": ["My name is Alice. I want to connect."], "USR003": ["Could you upload the file?"], "USR004": ["Could you upload the file?"]}}"#
        );
        assert_eq!(
            text(call(&mut api, "search_messages", &[("keyword", s("UPLOAD"))])),
            r#"{"results": [{"receiver_id": "USR003", "message": "Could you upload the file?"}, {"receiver_id": "USR004", "message": "Could you upload the file?"}]}"#
        );
        assert_eq!(text(call(&mut api, "get_message_stats", &[])), r#"{"stats": {"received_count": 3, "total_contacts": 3}}"#);
        assert_eq!(call(&mut api, "search_messages", &[("keyword", Py::Int(5))]).unwrap_err(), "'int' object has no attribute 'lower'");
    }

    #[test]
    fn add_contact_counts_users() {
        let mut api = MessageAPI::default();
        assert_eq!(
            text(call(&mut api, "add_contact", &[("user_name", s("Eve"))])),
            r#"{"added_status": true, "user_id": "USR005", "message": "Contact 'Eve' added successfully."}"#
        );
        assert_eq!(text(call(&mut api, "add_contact", &[("user_name", s("Eve"))])), r#"{"error": "User name 'Eve' already exists."}"#);
        assert_eq!(state_of(&api, "user_count").repr(), "5");
        // The count goes up even when the id it makes is taken.
        let config: Py = serde_json::from_str(r#"{"user_count": 0, "user_map": {"A": "USR001"}}"#).unwrap();
        api.load(&config, false);
        assert_eq!(text(call(&mut api, "add_contact", &[("user_name", s("B"))])), r#"{"error": "User ID 'USR001' already exists."}"#);
        assert_eq!(state_of(&api, "user_count").repr(), "1");
    }

    #[test]
    fn helpers_follow_python() {
        assert_eq!(zfill("7", 3), "007");
        assert_eq!(zfill("-7", 3), "-07");
        assert_eq!(zfill("1234", 3), "1234");
        assert_eq!(first_item(&Py::Dict(vec![])).unwrap_err(), "list index out of range");
    }
}
