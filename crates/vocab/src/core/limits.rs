//! Limits on what calltape reads from files and processes it did not make,
//! each with a default and an environment variable that raises it. A limit
//! passed is an error that names the limit and the variable, never an abort.

/// One limit: its default and the variable that overrides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimit {
    /// The environment variable that sets it (a number of `unit`).
    pub variable: &'static str,
    pub default: u64,
    /// What it counts: `bytes`, `entries`.
    pub unit: &'static str,
}

/// The longest line of an `events.jsonl` read by `report`, `compare`,
/// `merge`, `show`, `diff` and `--resume` (a call's arguments are kept
/// whole, so a line may be as large as a model's body limit).
pub const EVENT_LINE_BYTES: ReadLimit = ReadLimit { variable: "CALLTAPE_MAX_EVENT_LINE_BYTES", default: 64 << 20, unit: "bytes" };

/// The largest `events.jsonl` that `show`, `diff` and `merge` read whole
/// (`report` and `compare` stream theirs and need no such limit).
pub const EVENTS_FILE_BYTES: ReadLimit = ReadLimit { variable: "CALLTAPE_MAX_EVENTS_BYTES", default: 2 << 30, unit: "bytes" };

/// The most an MCP server's `tools/list` may hold, all pages together.
pub const MCP_TOOLS_LIST_BYTES: ReadLimit = ReadLimit { variable: "CALLTAPE_MAX_MCP_TOOLS_BYTES", default: 32 << 20, unit: "bytes" };

/// The most entries of BFCL's file system one command (`find`, `du`) or
/// the judge's look at the state walks: a directory that contains itself
/// twice over makes the walk double at every level.
pub const BFCL_TREE_ENTRIES: ReadLimit = ReadLimit { variable: "CALLTAPE_MAX_BFCL_TREE_ENTRIES", default: 100_000, unit: "entries" };

impl ReadLimit {
    /// The limit in force (in `unit`s): the variable's value when it is a positive number, else the default.
    pub fn in_force(self) -> u64 {
        std::env::var(self.variable).ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0).unwrap_or(self.default)
    }

    /// What to say when `what` passed it: the limit and how to raise it.
    pub fn passed(self, what: &str) -> String {
        format!("{what} is over the limit of {} {}; raise it with {}=N", self.in_force(), self.unit, self.variable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_raises_a_limit_and_junk_leaves_the_default() {
        let limit = ReadLimit { variable: "CALLTAPE_TEST_LIMIT_BYTES", default: 10, unit: "bytes" };
        assert_eq!(limit.in_force(), 10);
        std::env::set_var(limit.variable, "20");
        assert_eq!(limit.in_force(), 20);
        std::env::set_var(limit.variable, "lots");
        assert_eq!(limit.in_force(), 10);
        assert_eq!(limit.passed("a line"), "a line is over the limit of 10 bytes; raise it with CALLTAPE_TEST_LIMIT_BYTES=N");
    }
}
