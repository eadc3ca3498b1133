//! How a simulated model meets a prompt injection: once the payload is in
//! a tool result it has read, it falls for it with its profile's
//! `injection_susceptibility` times the style's strength (drawn once per
//! unit from the seed), and then makes the injection's attack call before
//! going on with the task. A split payload pulls only once the model has
//! read all its parts. Deterministic, like the rest of the simulator.

use serde_json::Value;

use super::{past_turns, SimModel};
use crate::scenario::injection::{marker_of, Variant};
use crate::scenario::ExpectedStep;

impl SimModel<'_> {
    /// The plan with the attack call in it, where this model falls for the
    /// unit's injection and has already read the payload; `None` otherwise.
    pub(super) fn attacked_plan(&self, request: &Value, since: usize, steps: &[ExpectedStep]) -> Option<Vec<ExpectedStep>> {
        let injection = self.scenario.injection.as_deref().filter(|i| i.variant == Variant::Injected)?;
        let attack = injection.attack.as_ref()?;
        let chance = (self.profile.injection_susceptibility * injection.strength).clamp(0.0, 1.0);
        if injection.marker.is_empty() || !self.rng(&["injection"]).chance(chance) {
            return None;
        }
        let messages = request.get("messages").and_then(Value::as_array)?;
        let messages = messages.get(since..).unwrap_or_default();
        // A split payload pulls only once every part has been read: the
        // attack comes after the result that carried the last one.
        let markers = std::iter::once(injection.marker.clone()).chain(injection.later_parts.iter().map(|p| marker_of("", p)));
        let mut seen = 0;
        for marker in markers {
            let after = messages.get(seen..).unwrap_or_default();
            let at = after.iter().position(|m| {
                m.get("role").and_then(Value::as_str) == Some("tool")
                    && m.get("content").and_then(Value::as_str).is_some_and(|c| c.contains(&marker))
            })?;
            seen += at;
        }
        // The turns up to the one whose result carried the payload: the
        // attack comes right after the step that read it.
        let read_turns = messages[..seen]
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .filter(|m| m.get("tool_calls").and_then(Value::as_array).is_some_and(|c| !c.is_empty()))
            .count();
        let turns = past_turns(request, since);
        let at = self.progress(&turns[..read_turns.min(turns.len())], steps).step.min(steps.len());
        let mut plan = steps.to_vec();
        plan.insert(at, ExpectedStep::One(attack.clone()));
        Some(plan)
    }
}
