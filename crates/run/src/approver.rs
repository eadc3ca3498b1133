//! Asking a person: the `interactive` approval mode. Shows the tool and the
//! arguments that would run, reads y/n/always/never from the terminal, and
//! remembers always/never per tool for the rest of the run. One question at
//! a time, with the progress bar out of the way.

use std::collections::HashMap;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::Mutex;

use indicatif::ProgressBar;
use serde_json::Value;

use crate::pipeline::approval::{Approval, ApprovalDecision, Decider};

/// Why interactive approval cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--approve interactive needs a terminal to ask at (standard input and error are not both terminals); use script or deny for unattended runs")]
pub struct NoTerminal;

/// A person at the terminal who answers approvals.
pub struct PersonApprover {
    /// tool → approve (`always`) or deny (`never`) from now on.
    remembered: Mutex<HashMap<String, bool>>,
    progress: ProgressBar,
}

/// One answer typed at the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    Always,
    Never,
}

/// Reads an answer; `None` for anything else.
pub fn parse_answer(line: &str) -> Option<Answer> {
    match line.trim().to_lowercase().as_str() {
        "y" | "yes" => Some(Answer::Yes),
        "n" | "no" => Some(Answer::No),
        "a" | "always" => Some(Answer::Always),
        "v" | "never" => Some(Answer::Never),
        _ => None,
    }
}

impl PersonApprover {
    /// An approver on this process's terminal; refuses without one.
    pub fn on_terminal(progress: ProgressBar) -> Result<PersonApprover, NoTerminal> {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(NoTerminal);
        }
        Ok(PersonApprover { remembered: Mutex::new(HashMap::new()), progress })
    }

    /// Asks about one call (blocking; call from a blocking-capable context).
    pub fn ask(&self, scenario: &str, tool: &str, args: &Value) -> Approval {
        let mut remembered = self.remembered.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&approve) = remembered.get(tool) {
            return person(approve, "remembered answer for this tool");
        }
        let answer = self.progress.suspend(|| prompt(scenario, tool, args));
        match answer {
            Some(Answer::Yes) => person(true, "approved at the terminal"),
            Some(Answer::Always) => {
                remembered.insert(tool.to_string(), true);
                person(true, "approved at the terminal (always)")
            }
            Some(Answer::Never) => {
                remembered.insert(tool.to_string(), false);
                person(false, "denied at the terminal (never)")
            }
            Some(Answer::No) | None => person(false, "denied at the terminal"),
        }
    }
}

fn person(approve: bool, why: &str) -> Approval {
    let decision = if approve { ApprovalDecision::Approved } else { ApprovalDecision::Denied { reason: why.to_string() } };
    Approval { decision, decided_by: Decider::Person, rule: None, warning: None }
}

/// Prints the question on stderr and reads answers from stdin until one is
/// understood; end of input counts as no.
fn prompt(scenario: &str, tool: &str, args: &Value) -> Option<Answer> {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\n{}", question(scenario, tool, args));
    let stdin = std::io::stdin();
    loop {
        let _ = write!(err, "approve? [y]es / [n]o / [a]lways / ne[v]er: ");
        let _ = err.flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {
                if let Some(a) = parse_answer(&line) {
                    return Some(a);
                }
            }
        }
    }
}

/// What the prompt shows: the scenario, the tool and the arguments, every
/// one the model's or a suite's text, with control, bidi and zero-width
/// characters shown as escapes so what a person approves is what would run.
/// JSON escapes C0 controls only; each line of it is escaped again.
pub fn question(scenario: &str, tool: &str, args: &Value) -> String {
    use crate::encode::{terminal, terminal_lines};
    let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
    format!("[{}] approve `{}` with arguments:\n{}", terminal(scenario), terminal(tool), terminal_lines(&pretty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_shows_hidden_characters_as_escapes() {
        let args = serde_json::json!({"command": "echo ok\u{202e}fr- mr\u{200b}\u{feff}\u{1b}[2J\u{9b}"});
        let q = question("s\u{2066}", "Bash\u{200d}", &args);
        for hidden in ['\u{202e}', '\u{200b}', '\u{feff}', '\u{1b}', '\u{9b}', '\u{2066}', '\u{200d}'] {
            assert!(!q.contains(hidden), "{hidden:?} shown raw in {q:?}");
        }
        assert!(q.contains("\\u{202e}") && q.contains("\\u{200b}") && q.contains("\\u{feff}") && q.contains("\\u{9b}"), "{q}");
        assert!(q.contains("[s\\u{2066}] approve `Bash\\u{200d}` with arguments:\n{\n"), "{q}");
    }

    #[test]
    fn answers() {
        assert_eq!(parse_answer(" Y\n"), Some(Answer::Yes));
        assert_eq!(parse_answer("never"), Some(Answer::Never));
        assert_eq!(parse_answer("a"), Some(Answer::Always));
        assert_eq!(parse_answer("maybe"), None);
    }
}
