//! A call's arguments in the order the model wrote them. BFCL's checkers
//! walk the model's arguments as Python got them (`json.loads` keeps the
//! order written), so with two faults in one call the first written decides
//! the error type. A run keeps its arguments in a `serde_json` map (key
//! order) and carries the written order beside it: the keys as written,
//! empty when that is key order anyway (no allocation for the usual call).

use serde_json::{Map, Value};

/// The entries of `args` in written order: the keys of `order` that `args`
/// holds, then the rest (keys a repair added) in key order. An empty
/// `order` is key order.
pub fn in_written_order<'a>(args: &'a Map<String, Value>, order: &'a [String]) -> impl Iterator<Item = (&'a String, &'a Value)> {
    let written = order.iter().filter_map(|k| args.get_key_value(k));
    let rest = args.iter().filter(move |(k, _)| !order.contains(k));
    written.chain(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(args: &Value, order: &[&str]) -> Vec<String> {
        let order: Vec<String> = order.iter().map(|k| k.to_string()).collect();
        in_written_order(args.as_object().unwrap(), &order).map(|(k, _)| k.clone()).collect()
    }

    #[test]
    fn written_keys_first_then_added_ones_in_key_order() {
        let args = json!({"a": 1, "b": 2, "c": 3, "d": 4});
        assert_eq!(keys(&args, &[]), ["a", "b", "c", "d"]);
        assert_eq!(keys(&args, &["d", "b"]), ["d", "b", "a", "c"]);
        // A key the repair removed is simply absent.
        assert_eq!(keys(&args, &["gone", "c"]), ["c", "a", "b", "d"]);
    }

    /// BFCL's multi-turn checker runs `func(k=v, ...)` written from the
    /// model's dict in its order and compares state (dict equality, order
    /// free) and results; Python binds keywords by name, so the order shows
    /// only in which unexpected keyword a `TypeError` names: the first passed.
    #[test]
    fn a_multi_turn_bind_error_names_the_first_unexpected_keyword_written() {
        use crate::bfcl::multi_turn::{pycall::Call, World};
        use crate::bfcl::pyvalue::Py;
        let mut world = World::new(&["GorillaFileSystem".to_string()], &Py::Dict(Vec::new()), false).unwrap();
        let args = json!({"alpha": 1, "zeta": 2});
        let written = Call::from_json_in_order("cd", &args, &["zeta".to_string(), "alpha".to_string()]);
        assert!(world.execute(&written).ends_with("got an unexpected keyword argument 'zeta'"), "{}", world.execute(&written));
        assert!(world.execute(&Call::from_json("cd", &args)).ends_with("got an unexpected keyword argument 'alpha'"));
    }
}
