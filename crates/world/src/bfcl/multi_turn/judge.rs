//! BFCL's multi-turn checker: a model's calls, turn by turn, executed on
//! fresh instances of the entry's classes beside the ground truth's; each
//! turn whose ground truth makes calls is judged by the state it leaves
//! (every public attribute of every class equal) and by the results (every
//! ground-truth result found among the model's results so far). The checks
//! and their order, and the failure types, are BFCL's
//! (`multi_turn_checker.py`, bfcl-eval 2026.3.23).

use serde::{Deserialize, Serialize};

use super::pycall::{parse_call, Call, CallSyntaxError};
use super::{CallResult, World};
use crate::bfcl::pyvalue::Py;

/// A multi-turn entry's answer key: what the world starts as and the
/// calls of a right answer, per turn (`expect.bfcl_multi_turn`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiTurnKey {
    /// `multi_turn_base`, `multi_turn_miss_func`, …
    pub category: String,
    /// BFCL's class names, in the entry's order.
    pub involved_classes: Vec<String>,
    /// The classes' starting state, by class name (BFCL's `initial_config`).
    #[serde(default)]
    pub initial_config: Py,
    /// The classes load their long-context padding (`multi_turn_long_context`).
    #[serde(default)]
    pub long_context: bool,
    /// The ground truth: per turn, Python call expressions.
    pub ground_truth: Vec<Vec<String>>,
    /// The ground truth's calls, read once on the first answer judged.
    #[serde(skip)]
    pub(crate) read: ReadCache,
}

/// [`MultiTurnKey::ground_truth`] read into calls, kept so that a key judged
/// against many answers reads its call texts once. Not part of the key's
/// identity: clones start empty, and two caches are always equal.
#[derive(Default)]
pub struct ReadCache(std::sync::OnceLock<Result<Vec<Vec<Call>>, CallSyntaxError>>);

impl Clone for ReadCache {
    fn clone(&self) -> ReadCache {
        ReadCache::default()
    }
}

impl PartialEq for ReadCache {
    fn eq(&self, _: &ReadCache) -> bool {
        true
    }
}

impl std::fmt::Debug for ReadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadCache")
    }
}

impl MultiTurnKey {
    /// A fresh world for this entry.
    pub fn world(&self) -> Result<World, super::UnknownClass> {
        World::new(&self.involved_classes, &self.initial_config, self.long_context)
    }

    /// The ground truth's calls, read (`Err` names a call that is not Python call syntax).
    pub fn ground_truth_calls(&self) -> Result<Vec<Vec<Call>>, CallSyntaxError> {
        self.ground_truth.iter().map(|turn| turn.iter().map(|c| parse_call(c)).collect()).collect()
    }
}

/// BFCL's failure types (`error_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureType {
    /// The model did not reach the end of every turn.
    #[serde(rename = "multi_turn:force_terminated")]
    ForceTerminated,
    /// A turn whose ground truth makes calls got none.
    #[serde(rename = "multi_turn:empty_turn_model_response")]
    EmptyTurn,
    /// A class's public state differs from the ground truth's after a turn.
    #[serde(rename = "multi_turn:instance_state_mismatch")]
    StateMismatch,
    /// A ground-truth result is missing from the model's results so far.
    #[serde(rename = "multi_turn:execution_response_mismatch")]
    ResponseMismatch,
}

impl FailureType {
    /// BFCL's name of it.
    pub fn name(self) -> &'static str {
        match self {
            FailureType::ForceTerminated => "multi_turn:force_terminated",
            FailureType::EmptyTurn => "multi_turn:empty_turn_model_response",
            FailureType::StateMismatch => "multi_turn:instance_state_mismatch",
            FailureType::ResponseMismatch => "multi_turn:execution_response_mismatch",
        }
    }
}

/// Why an answer failed: the type, the turn, and what differed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: FailureType,
    /// The turn judged (0-based), if the failure is about one.
    pub turn: Option<usize>,
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.turn {
            Some(turn) => write!(f, "{} at turn {turn}: {}", self.kind.name(), self.detail),
            None => write!(f, "{}: {}", self.kind.name(), self.detail),
        }
    }
}

/// Judges the calls a model made in each turn it reached (`turns.len()`
/// short of the ground truth's: it was force-terminated).
pub fn judge(key: &MultiTurnKey, turns: &[Vec<Call>]) -> Result<(), Failure> {
    if turns.len() != key.ground_truth.len() {
        return Err(Failure {
            kind: FailureType::ForceTerminated,
            turn: None,
            detail: format!("the model finished {} of {} turns", turns.len(), key.ground_truth.len()),
        });
    }
    let read = key.read.0.get_or_init(|| key.ground_truth_calls());
    let ground_truth = read.as_ref().map_err(|e| Failure {
        kind: FailureType::ResponseMismatch,
        turn: None,
        detail: format!("the ground truth cannot be read: {e}"),
    })?;
    let unloadable = |e: super::UnknownClass| Failure { kind: FailureType::StateMismatch, turn: None, detail: e.to_string() };
    let mut model_world = key.world().map_err(unloadable)?;
    let mut truth_world = key.world().map_err(unloadable)?;
    truth_world.share_defaults_with(&model_world);
    let mut model_results: Vec<CallResult> = Vec::new();
    for (turn, (calls, truth)) in turns.iter().zip(ground_truth.iter()).enumerate() {
        model_results.extend(calls.iter().map(|c| model_world.execute_value(c)));
        let truth_results: Vec<CallResult> = truth.iter().map(|c| truth_world.execute_value(c)).collect();
        if truth.is_empty() {
            // BFCL judges nothing here; the calls still ran, so later turns see their effect.
            continue;
        }
        if calls.is_empty() {
            return Err(Failure { kind: FailureType::EmptyTurn, turn: Some(turn), detail: "no call was made".into() });
        }
        if let Some(detail) = state_difference(&model_world, &truth_world) {
            return Err(Failure { kind: FailureType::StateMismatch, turn: Some(turn), detail });
        }
        let missing = missing_results(&truth_results, &model_results);
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().map(|m| crate::quote::bound_owned(m.text().into_owned(), 120)).collect();
            return Err(Failure {
                kind: FailureType::ResponseMismatch,
                turn: Some(turn),
                detail: format!("{} missing: {}", crate::core::plural::count(missing.len(), "ground-truth result"), shown.join(" | ")),
            });
        }
    }
    Ok(())
}

/// The first class whose public attributes differ, and which attributes.
fn state_difference(model: &World, truth: &World) -> Option<String> {
    for ((class, ours), (_, theirs)) in model.attrs().iter().zip(truth.attrs()) {
        let differing: Vec<&str> =
            theirs.iter().filter(|(name, value)| !ours.iter().any(|(n, v)| n == name && v.py_eq(value))).map(|(name, _)| *name).collect();
        if !differing.is_empty() {
            // A state cut at its walking limit says so where the verdict is read.
            let limit = crate::core::limits::BFCL_TREE_ENTRIES;
            let cut = ours.iter().any(|(n, v)| differing.contains(n) && v.to_py().json_dumps().contains(limit.variable));
            let why = if cut { format!(" (its state was cut: {})", limit.passed("the file tree walked")) } else { String::new() };
            return Some(format!("{class} differs from the ground truth's in {}{why}", differing.join(", ")));
        }
    }
    None
}

/// The ground-truth results not found among the model's, each match used once.
fn missing_results<'a>(truth: &'a [CallResult], model: &[CallResult]) -> Vec<&'a CallResult> {
    let mut left: Vec<&CallResult> = model.iter().collect();
    let mut missing = Vec::new();
    for result in truth {
        match left.iter().position(|m| m.same_text(result)) {
            Some(i) => {
                left.remove(i);
            }
            None => missing.push(result),
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file system with /workspace/document/a.txt, and a four-turn ground
    /// truth whose third turn wants no call (a missing parameter to ask for).
    fn key() -> MultiTurnKey {
        let config = r#"{"GorillaFileSystem": {"root": {"workspace": {"type": "directory", "contents": {
            "document": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "budget analysis"}}}}}}}}"#;
        MultiTurnKey {
            read: Default::default(),
            category: "multi_turn_miss_param".into(),
            involved_classes: vec!["GorillaFileSystem".into()],
            initial_config: serde_json::from_str(config).unwrap(),
            long_context: false,
            ground_truth: vec![
                vec!["cd(folder='document')".into(), "mkdir(dir_name='temp')".into()],
                vec!["cat(file_name='a.txt')".into()],
                vec![],
                vec!["mv(source='a.txt', destination='temp')".into()],
            ],
        }
    }

    fn turns(calls: &[&[&str]]) -> Vec<Vec<Call>> {
        calls.iter().map(|t| t.iter().map(|c| parse_call(c).unwrap()).collect()).collect()
    }

    fn failure(calls: &[&[&str]]) -> (FailureType, Option<usize>) {
        let f = judge(&key(), &turns(calls)).unwrap_err();
        (f.kind, f.turn)
    }

    #[test]
    fn the_ground_truth_and_equivalent_answers_pass() {
        let key = key();
        assert_eq!(judge(&key, &key.ground_truth_calls().unwrap()), Ok(()));
        // Keyword or positional, an extra read-only call, and a result found in an earlier turn.
        let other = [
            &["cd('document')", "ls()", "mkdir(dir_name='temp')", "cat(file_name='a.txt')"][..],
            &["pwd()"],
            &[],
            &["mv(source='a.txt', destination='temp')"],
        ];
        assert_eq!(judge(&key, &turns(&other)), Ok(()));
    }

    #[test]
    fn each_failure_type_at_its_turn() {
        // A different directory made: the state differs after turn 0.
        let wrong = [
            &["cd(folder='document')", "mkdir(dir_name='tmp')"][..],
            &["cat(file_name='a.txt')"],
            &[],
            &["mv(source='a.txt', destination='temp')"],
        ];
        assert_eq!(failure(&wrong), (FailureType::StateMismatch, Some(0)));
        // No call where the ground truth makes one.
        let empty = [&["cd(folder='document')", "mkdir(dir_name='temp')"][..], &[], &[], &["mv(source='a.txt', destination='temp')"]];
        assert_eq!(failure(&empty), (FailureType::EmptyTurn, Some(1)));
        // The state is right but the file was never read: its content is missing from the results.
        let unread =
            [&["cd(folder='document')", "mkdir(dir_name='temp')"][..], &["ls()"], &[], &["mv(source='a.txt', destination='temp')"]];
        assert_eq!(failure(&unread), (FailureType::ResponseMismatch, Some(1)));
        // Acting in the turn that should have asked, then nothing when asked: the turn is empty.
        let eager = [
            &["cd(folder='document')", "mkdir(dir_name='temp')"][..],
            &["cat(file_name='a.txt')"],
            &["mv(source='a.txt', destination='temp')"],
            &[],
        ];
        assert_eq!(failure(&eager), (FailureType::EmptyTurn, Some(3)));
        // The last turn never reached.
        let cut = [&["cd(folder='document')", "mkdir(dir_name='temp')"][..], &["cat(file_name='a.txt')"], &[]];
        assert_eq!(failure(&cut), (FailureType::ForceTerminated, None));
        let message = judge(&key(), &turns(&wrong)).unwrap_err().to_string();
        assert_eq!(message, "multi_turn:instance_state_mismatch at turn 0: GorillaFileSystem differs from the ground truth's in root");
    }

    #[test]
    fn the_ground_truths_tweets_share_post_tweets_default_mentions() {
        // bfcl-eval 2026.3.23, `post_tweet(self, content, tags=[], mentions=[])`: one list for the
        // whole process. multi_turn_checker([[["post_tweet(content='a')", "mention(tweet_id=0,
        // mentioned_usernames=['@x'])"]], ...], [["post_tweet(content='a')"], ...]) gives
        // execution_response_mismatch at turn 0, missing '{"id": 0, ..., "mentions": ["@x"]}': the
        // states are equal (both tweets hold the one list), the ground truth's result shows '@x'.
        let config = r#"{"TwitterAPI": {"username": "john", "password": "j", "authenticated": true, "tweets": {}, "tweet_counter": 0}}"#;
        let key = MultiTurnKey {
            read: Default::default(),
            category: "multi_turn_base".into(),
            involved_classes: vec!["TwitterAPI".into()],
            initial_config: serde_json::from_str(config).unwrap(),
            long_context: false,
            ground_truth: vec![vec!["post_tweet(content='a')".into()], vec!["get_tweet(tweet_id=0)".into()]],
        };
        let model = turns(&[&["post_tweet(content='a')", "mention(tweet_id=0, mentioned_usernames=['@x'])"], &["get_tweet(tweet_id=0)"]]);
        let f = judge(&key, &model).unwrap_err();
        assert_eq!((f.kind, f.turn), (FailureType::ResponseMismatch, Some(0)));
        assert!(f.detail.contains(r#""mentions": ["@x"]"#), "{}", f.detail);
    }

    #[test]
    fn failure_types_are_bfcl_names() {
        let names: Vec<String> =
            [FailureType::ForceTerminated, FailureType::EmptyTurn, FailureType::StateMismatch, FailureType::ResponseMismatch]
                .iter()
                .map(|k| serde_json::to_value(k).unwrap().as_str().unwrap().to_string())
                .collect();
        let direct: Vec<&str> =
            [FailureType::ForceTerminated, FailureType::EmptyTurn, FailureType::StateMismatch, FailureType::ResponseMismatch]
                .iter()
                .map(|k| k.name())
                .collect();
        assert_eq!(names, direct);
    }
}
