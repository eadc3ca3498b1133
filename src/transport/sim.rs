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
