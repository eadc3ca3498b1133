//! Stage 7: approval. Sensitive tools ask before they run; the decision is
//! scripted (never a model's), so runs are repeatable.

use serde::{Deserialize, Serialize};

use crate::config::{ApprovalMode, ApprovalSettings};
use crate::scenario::Tool;

/// The decision on one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalDecision {
    Approved,
    Denied { reason: String },
}

/// Whether calls to `tool` need approval: marked sensitive, or configured so.
pub fn needs_approval(tool: &Tool, settings: &ApprovalSettings) -> bool {
    tool.spec.sensitive || settings.sensitive_tools.iter().any(|n| n == &tool.spec.name)
}

/// Decides a call that needs approval.
pub fn decide(settings: &ApprovalSettings) -> ApprovalDecision {
    match settings.mode {
        ApprovalMode::Auto => ApprovalDecision::Approved,
    }
}
