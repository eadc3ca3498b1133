//! Stage 3: validate arguments against the tool's JSON Schema, keeping every
//! error with its kind and instance path.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use jsonschema::error::ValidationErrorKind;

/// Why a call is invalid (a closed set: reports count calls per kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvalidKind {
    /// The tool name matches no offered tool.
    UnknownTool,
    /// The arguments are not JSON.
    ParseError,
    /// A required argument is missing.
    MissingRequired,
    /// An argument has the wrong JSON type.
    WrongType,
    /// An argument the schema does not allow.
    AdditionalProperty,
    /// A value outside the schema's enum or const.
    EnumMismatch,
    /// Any other schema rule (ranges, lengths, patterns, formats, combinators).
    ConstraintViolation,
    /// The call was written as text in the answer (tags, a code fence, a bare
    /// object) instead of as a structured call.
    TextCall,
    /// The server (llama.cpp, Ollama) could not parse the model's output as a
    /// call and answered with an error instead: the model's invalid call.
    ServerRejectedCall,
    /// The model's output was cut while it wrote the call (the provider's
    /// finish reason says it hit the output limit, or the stream ended with
    /// the call's arguments still open): what arrived is not the call the
    /// model meant, however well it can be closed.
    Truncated,
}

impl InvalidKind {
    /// Every kind, in report column order.
    pub const ALL: [InvalidKind; 10] = [
        InvalidKind::UnknownTool,
        InvalidKind::ParseError,
        InvalidKind::MissingRequired,
        InvalidKind::WrongType,
        InvalidKind::AdditionalProperty,
        InvalidKind::EnumMismatch,
        InvalidKind::ConstraintViolation,
        InvalidKind::TextCall,
        InvalidKind::ServerRejectedCall,
        InvalidKind::Truncated,
    ];

    /// The name used in events and report columns.
    pub const fn as_str(self) -> &'static str {
        match self {
            InvalidKind::UnknownTool => "unknown_tool",
            InvalidKind::ParseError => "parse_error",
            InvalidKind::MissingRequired => "missing_required",
            InvalidKind::WrongType => "wrong_type",
            InvalidKind::AdditionalProperty => "additional_property",
            InvalidKind::EnumMismatch => "enum_mismatch",
            InvalidKind::ConstraintViolation => "constraint_violation",
            InvalidKind::TextCall => "text_call",
            InvalidKind::ServerRejectedCall => "server_rejected_call",
            InvalidKind::Truncated => "truncated",
        }
    }
}

/// One problem found in a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallIssue {
    pub kind: InvalidKind,
    /// JSON Pointer to the offending value (`""` for the whole object).
    pub path: String,
    pub message: String,
}

/// Every schema error of `args`, in the validator's order.
pub fn validate_args(validator: &jsonschema::Validator, args: &Value) -> Vec<CallIssue> {
    if validator.is_valid(args) {
        return Vec::new();
    }
    validator
        .iter_errors(args)
        .map(|e| CallIssue { kind: kind_of(e.kind()), path: e.instance_path().as_str().to_owned(), message: message_of(&e) })
        .collect()
}

/// The error's message, written into room made for the usual one (grown
/// step by step, it was reallocated several times per error), and bounded:
/// the validator quotes the offending value whole, which a model may make
/// megabytes long.
fn message_of(e: &jsonschema::ValidationError<'_>) -> String {
    use std::fmt::Write;
    let mut message = String::with_capacity(96);
    let _ = write!(message, "{e}");
    crate::quote::bound_owned(message, crate::quote::CELL_CHARS)
}

fn kind_of(kind: &ValidationErrorKind) -> InvalidKind {
    match kind {
        ValidationErrorKind::Required { .. } => InvalidKind::MissingRequired,
        ValidationErrorKind::Type { .. } => InvalidKind::WrongType,
        ValidationErrorKind::AdditionalProperties { .. } | ValidationErrorKind::UnevaluatedProperties { .. } => {
            InvalidKind::AdditionalProperty
        }
        ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. } => InvalidKind::EnumMismatch,
        _ => InvalidKind::ConstraintViolation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_error_is_kept_with_kind_and_path() {
        let schema = json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": "integer", "maximum": 7}, "b": {"enum": ["x", "y"]},
                           "c": {"type": "object", "properties": {"d": {"type": "string"}}}, "e": {}},
            "required": ["a", "e"]});
        let v = jsonschema::validator_for(&schema).unwrap();
        let mut issues = validate_args(&v, &json!({"a": 10, "b": "X", "c": {"d": 1}, "z": 1}));
        issues.sort_by(|x, y| (x.kind, &x.path).cmp(&(y.kind, &y.path)));
        let got: Vec<(InvalidKind, &str)> = issues.iter().map(|i| (i.kind, i.path.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (InvalidKind::MissingRequired, ""),
                (InvalidKind::WrongType, "/c/d"),
                (InvalidKind::AdditionalProperty, ""),
                (InvalidKind::EnumMismatch, "/b"),
                (InvalidKind::ConstraintViolation, "/a"),
            ]
        );
        assert!(validate_args(&v, &json!({"a": 1, "e": 0})).is_empty());
    }
}
