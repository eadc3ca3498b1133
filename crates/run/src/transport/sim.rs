//! The simulated transport: answers requests with a simulated model, as an
//! OpenAI-compatible server would, with no network.

use std::sync::Arc;

use super::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};
use crate::config::ModelConfig;
use crate::scenario::Scenario;
use crate::sim::{SimModel, SimProfile};

/// A transport serving one (model, scenario, trial) from a simulated model.
pub struct SimTransport {
    model: Arc<ModelConfig>,
    profile: SimProfile,
    scenario: Arc<Scenario>,
    seed: u64,
    trial: u32,
}

impl SimTransport {
    /// A simulated transport; `model` must carry a `sim` profile.
    pub fn new(model: Arc<ModelConfig>, scenario: Arc<Scenario>, seed: u64, trial: u32) -> Option<SimTransport> {
        let profile = model.sim.clone()?;
        Some(SimTransport { model, profile, scenario, seed, trial })
    }
}

impl Transport for SimTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let sim = SimModel {
                // A variant's arms share its draws: the same model, paired.
                model_name: self.model.base_name(),
                model_id: &self.model.model_id,
                profile: &self.profile,
                scenario: &self.scenario,
                seed: self.seed,
                trial: self.trial,
            };
            let answer = sim.respond(&request.body);
            Ok(HttpResponse {
                status: answer.status,
                headers: vec![("content-type".into(), "application/json".into())],
                body: ResponseBody::Json(answer.body),
                latency_ms: answer.latency_ms,
            })
        })
    }
}

/// The simulator under strict mode, as the OpenAI adapter sends a request
/// (here because the adapter sits above the simulator).
#[cfg(test)]
mod strict_mode_tests {
    use crate::chat::{ChatMessage, ChatRequest, ToolDefinition};
    use crate::provider::openai::OpenAi;
    use crate::provider::Provider;
    use crate::scenario::Scenario;
    use crate::sim::*;
    use serde_json::{json, Value};

    fn scenario(id: &str) -> Scenario {
        let suite = crate::scenario::load_suite(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/coding")).unwrap();
        let s = suite.scenarios().map(Result::unwrap).find(|s| s.id == id).unwrap();
        (*s).clone()
    }

    /// The first request of `scenario` as the OpenAI-compatible adapter sends it.
    fn request(scenario: &Scenario, strict_tools: bool) -> Value {
        let chat = ChatRequest {
            model_id: "m".into(),
            messages: vec![ChatMessage::User { content: scenario.messages.last().unwrap().content.clone() }],
            tools: scenario.tools.iter().map(|t| ToolDefinition::of(&t.spec)).collect(),
            temperature: None,
            max_tokens: None,
            seed: None,
        };
        OpenAi { base_url: "sim://x/v1".into(), strict_tools }.build_request(&chat).body
    }

    fn first_call(scenario: &Scenario, profile: &SimProfile, strict_tools: bool) -> Value {
        let sim = SimModel { model_name: "s", model_id: "s", profile, scenario, seed: 1, trial: 0 };
        let body = sim.respond(&request(scenario, strict_tools)).body;
        let arguments = body.pointer("/choices/0/message/tool_calls/0/function/arguments").and_then(Value::as_str).unwrap();
        serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
    }

    fn profile(faults: Vec<FaultKind>, fault_rate: f64, wrong_value_rate: f64) -> SimProfile {
        SimProfile {
            faults,
            fault_weights: Vec::new(),
            fault_rate,
            retry_fix_rate: None,
            unwanted_call_rate: 0.0,
            retry_after_denial_rate: 0.0,
            wrong_value_rate,
            injection_susceptibility: 0.0,
            latency_ms: 1.0,
            ms_per_output_token: 0.0,
        }
    }

    #[test]
    fn under_strict_mode_calls_are_faultless_and_write_every_property() {
        let s = scenario("read-cargo-toml");
        let always_faulty = profile(vec![FaultKind::TrailingComma, FaultKind::WrongType], 1.0, 0.0);
        let plain = first_call(&s, &always_faulty, false);
        let strict = first_call(&s, &always_faulty, true);
        // Without strict mode the call carries a fault; with it, the right call
        // with strict mode's null for each optional property it leaves out.
        assert_ne!(plain, json!({"target_file": "Cargo.toml", "should_read_entire_file": true}));
        assert_eq!(
            strict,
            json!({"target_file": "Cargo.toml", "should_read_entire_file": true, "explanation": null,
                   "start_line_one_indexed": null, "end_line_one_indexed_inclusive": null})
        );
        let sent = request(&s, true);
        let strict_schema =
            &sent["tools"].as_array().unwrap().iter().find(|t| t["function"]["name"] == "read_file").unwrap()["function"]["parameters"];
        assert!(jsonschema::validator_for(strict_schema).unwrap().is_valid(&strict));
    }

    #[test]
    fn under_strict_mode_values_can_still_be_wrong() {
        let s = scenario("read-cargo-toml");
        let call = first_call(&s, &profile(vec![], 0.0, 1.0), true);
        assert_ne!(call["target_file"], json!("Cargo.toml"), "{call}");
        assert!(call.as_object().unwrap().contains_key("explanation"), "{call}");
    }
}
