//! Simulated models served over HTTP by a wiremock server, as an
//! OpenAI-compatible endpoint: a stand-in for a real model outside calltape,
//! whose answers vary by scenario (faults, repairs, retries), for the tests
//! of what only such a model has — recording, replay, strict replay.
//!
//! calltape itself computes simulators in-process and never records them;
//! here the same simulator sits behind real HTTP, so the configuration
//! calls it a remote `openai` model and the cassette layer sees a server.

use std::collections::HashMap;
use std::sync::Arc;

use calltape::config::{Config, ProviderKind};
use calltape::scenario::{Scenario, Suite};
use calltape::sim::{SimModel, SimProfile};
use serde_json::Value;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Answers each request as the simulated model it names would, in the
/// scenario whose first user message the request carries.
struct SimResponder {
    /// Scenarios by their first user message.
    scenarios: HashMap<String, Arc<Scenario>>,
    /// Profiles by model id (what the request's `model` field says).
    profiles: HashMap<String, (String, SimProfile)>,
    seed: u64,
}

impl Respond for SimResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).expect("calltape sends JSON");
        let model_id = body["model"].as_str().unwrap_or_default();
        let Some((name, profile)) = self.profiles.get(model_id) else {
            return ResponseTemplate::new(404).set_body_json(serde_json::json!({"error": {"message": "no such model"}}));
        };
        let users = body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "user");
        let scenario = users.filter_map(|m| m["content"].as_str()).find_map(|text| self.scenarios.get(text));
        let Some(scenario) = scenario else {
            return ResponseTemplate::new(400).set_body_json(serde_json::json!({"error": {"message": "unknown scenario"}}));
        };
        let sim = SimModel { model_name: name, model_id, profile, scenario, seed: self.seed, trial: 0 };
        ResponseTemplate::new(200).set_body_json(sim.respond(&body).body)
    }
}

/// Serves the configuration's simulated models over HTTP on 127.0.0.1 and
/// turns them into remote `openai` models of that server (run in `mode`),
/// answering as the simulators would in `suites`. Keep the server alive
/// while the models are asked; a replay needs no server.
pub async fn serve_sims(config: &mut Config, suites: &[Suite]) -> MockServer {
    let server = serve_profiles(config, suites).await;
    as_remote(config, &format!("{}/v1", server.uri()));
    server
}

/// Serves the configuration's simulated models over HTTP on 127.0.0.1, each
/// under its `model_id`, answering as they would in `suites`; a model of
/// a configuration file reaches one as `provider = "openai"`, `base_url =
/// "<uri>/v1"` and that `model_id`.
pub async fn serve_profiles(config: &Config, suites: &[Suite]) -> MockServer {
    let mut scenarios = HashMap::new();
    for suite in suites {
        for index in 0..suite.len() {
            let scenario = suite.scenario(index).unwrap();
            let first = scenario.messages.iter().find(|m| m.role == calltape::scenario::ScriptedRole::User);
            if let Some(text) = first.map(|m| m.content.clone()) {
                scenarios.entry(text).or_insert(scenario);
            }
        }
    }
    let profiles = config.models.iter().filter_map(|m| Some((m.model_id.clone(), (m.base_name().to_string(), m.sim.clone()?)))).collect();
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(SimResponder { scenarios, profiles, seed: config.run.seed })
        .mount(&server)
        .await;
    server
}

/// Turns the configuration's simulated models into remote `openai` models
/// at `base_url`: what a replay of their recordings needs (nothing is
/// reached when every request is recorded).
pub fn as_remote(config: &mut Config, base_url: &str) {
    for m in config.models.iter_mut().filter(|m| m.provider == ProviderKind::Sim) {
        m.provider = ProviderKind::Openai;
        m.base_url = Some(base_url.to_string());
        m.sim = None;
    }
}

/// A `[[models]]` entry for a configuration file: a remote `openai` model
/// named `name` at `base_url` whose answers come from the served simulator
/// `model_id` (see `serve_profiles`).
pub fn remote_model_toml(name: &str, model_id: &str, tier: &str, base_url: &str) -> String {
    format!(
        "\n[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nbase_url = \"{base_url}\"\nmodel_id = \"{model_id}\"\ntier = \"{tier}\"\n"
    )
}
