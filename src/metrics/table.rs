//! The tables as typed rows: one struct per table, its fields named as the
//! CSV columns (`schema`), so the sinks read fields, never column names.
//! Polars still groups and computes the statistics (`aggregate`,
//! `derived`); its final frames become rows here, once (`rows_of`).
//!
//! Each row derives `Serialize` (the CSV and JSON writers) and
//! `Deserialize` (the one conversion from a frame, and any reader of an
//! earlier run's files). An `Option` field is a cell that may be empty.

use polars::prelude::*;
use serde::de::{self, IntoDeserializer, Visitor};
use serde::{Deserialize, Serialize};

use super::injection;
use super::schema;

/// A table's rows: its file stem and its columns in file order.
pub trait Table: Serialize + for<'de> Deserialize<'de> {
    /// The file stem: `summary` → `summary.csv`, `summary.json`.
    const STEM: &'static str;
    /// The columns in file order, each a field of the row.
    const COLUMNS: &'static [&'static str];
}

/// `summary`: one row per model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub model: String,
    pub tier: String,
    pub scenarios: u64,
    pub passed: u64,
    pub pass_rate: Option<f64>,
    pub pass_rate_lo: Option<f64>,
    pub pass_rate_hi: Option<f64>,
    pub passed_no_repair: u64,
    pub pass_rate_no_repair: Option<f64>,
    pub pass_rate_no_repair_lo: Option<f64>,
    pub pass_rate_no_repair_hi: Option<f64>,
    pub k: u64,
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
    pub flaky: u64,
    pub calls: u64,
    pub invalid: u64,
    pub invalid_rate: Option<f64>,
    pub invalid_rate_lo: Option<f64>,
    pub invalid_rate_hi: Option<f64>,
    pub repaired_local: u64,
    pub repaired_model: u64,
    pub still_invalid: u64,
    pub repair_rate: Option<f64>,
    pub repair_rate_lo: Option<f64>,
    pub repair_rate_hi: Option<f64>,
    #[serde(flatten)]
    pub kinds: InvalidKinds,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cost_usd: f64,
    pub repair_input_tokens: u64,
    pub repair_output_tokens: u64,
    pub repair_cost_usd: f64,
    pub total_cost_usd: f64,
    pub cost_per_passed_usd: Option<f64>,
    pub pareto: bool,
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
    pub latency_p99_ms: Option<f64>,
    pub ttft_p50_ms: Option<f64>,
    pub ttft_p95_ms: Option<f64>,
    pub repair_local_p50_us: Option<f64>,
    pub repair_local_p95_us: Option<f64>,
    pub repair_model_p50_ms: Option<f64>,
    pub repair_model_p95_ms: Option<f64>,
    #[serde(flatten)]
    pub approvals: ApprovalCounts,
    pub request_errors: u64,
    pub errored: u64,
    pub arm: String,
    pub arm_repair: String,
    pub base_model: String,
    pub flip_rate: Option<f64>,
    pub flip_scenarios: u64,
}

/// Invalid calls by kind: one count per `InvalidKind::ALL` (`schema::INVALID_KINDS`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvalidKinds {
    pub unknown_tool: u64,
    pub parse_error: u64,
    pub missing_required: u64,
    pub wrong_type: u64,
    pub additional_property: u64,
    pub enum_mismatch: u64,
    pub constraint_violation: u64,
    pub text_call: u64,
    pub server_rejected_call: u64,
    pub truncated: u64,
}

impl InvalidKinds {
    /// The counts in `schema::INVALID_KINDS` order.
    pub fn counts(&self) -> [u64; 10] {
        [
            self.unknown_tool,
            self.parse_error,
            self.missing_required,
            self.wrong_type,
            self.additional_property,
            self.enum_mismatch,
            self.constraint_violation,
            self.text_call,
            self.server_rejected_call,
            self.truncated,
        ]
    }
}

/// Approvals asked, given and denied, and what the model did after a denial
/// (`schema::APPROVAL_COUNTS`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApprovalCounts {
    pub approvals_requested: u64,
    pub approved: u64,
    pub denied: u64,
    pub approval_warnings: u64,
    pub after_denial_retried_same: u64,
    pub after_denial_retried_changed: u64,
    pub after_denial_other_tool: u64,
    pub after_denial_answered: u64,
    pub after_denial_step_limit: u64,
}

impl ApprovalCounts {
    /// The after-denial counts in `schema::AFTER_DENIAL` order.
    pub fn after_denial(&self) -> [u64; 5] {
        [
            self.after_denial_retried_same,
            self.after_denial_retried_changed,
            self.after_denial_other_tool,
            self.after_denial_answered,
            self.after_denial_step_limit,
        ]
    }
}

/// `by_tool`: one row per model × tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolRow {
    pub model: String,
    pub tool: String,
    pub calls: u64,
    pub invalid: u64,
    pub invalid_rate: Option<f64>,
    pub repaired_local: u64,
    pub repaired_model: u64,
    pub still_invalid: u64,
    pub repair_rate: Option<f64>,
    #[serde(flatten)]
    pub kinds: InvalidKinds,
    #[serde(flatten)]
    pub approvals: ApprovalCounts,
    pub repair_input_tokens: u64,
    pub repair_output_tokens: u64,
    pub repair_cost_usd: f64,
    pub repair_local_p50_us: Option<f64>,
    pub repair_local_p95_us: Option<f64>,
    pub repair_model_p50_ms: Option<f64>,
    pub repair_model_p95_ms: Option<f64>,
    pub invalid_rate_lo: Option<f64>,
    pub invalid_rate_hi: Option<f64>,
    pub repair_rate_lo: Option<f64>,
    pub repair_rate_hi: Option<f64>,
    pub arm: String,
}

/// `scenarios`: one row per model × scenario × trial. The milestone and
/// state cells are empty for scenarios without them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRun {
    pub model: String,
    pub suite: String,
    pub scenario: String,
    pub trial: u64,
    pub passed: bool,
    pub reason: String,
    pub passed_no_repair: bool,
    pub latency_ms: f64,
    pub cost_usd: f64,
    pub errored: bool,
    pub error_kind: String,
    pub milestones_reached: Option<u64>,
    pub milestones: Option<u64>,
    pub last_milestone: Option<String>,
    pub state_checks_passed: Option<u64>,
    pub state_checks: Option<u64>,
}

/// `by_scenario`: one row per model × scenario, over trials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRow {
    pub model: String,
    pub suite: String,
    pub scenario: String,
    pub trials: u64,
    pub passed: u64,
    pub pass_rate: Option<f64>,
    pub flaky: bool,
    pub cost_usd: f64,
    pub mean_latency_ms: f64,
    pub errored: u64,
    pub mean_milestones_reached: Option<f64>,
    pub flip_rate: Option<f64>,
}

/// `suites`: one row per model × suite.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteRow {
    pub model: String,
    pub suite: String,
    pub scenarios: u64,
    pub passed: u64,
    pub pass_rate: Option<f64>,
    pub total_cost_usd: f64,
    pub errored: u64,
    pub pass_rate_lo: Option<f64>,
    pub pass_rate_hi: Option<f64>,
}

/// `repairs`: one row per repair attempt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RepairRow {
    pub model: String,
    pub tool: String,
    /// `schema::STAGE_LOCAL` or `schema::STAGE_MODEL`.
    pub stage: String,
    pub latency_us: Option<f64>,
    pub succeeded: bool,
}

/// `pairs`: one row per two models run on the same scenarios, A and B in
/// model order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    pub model_a: String,
    pub model_b: String,
    pub shared: u64,
    pub both_passed: u64,
    pub only_a: u64,
    pub only_b: u64,
    pub neither: u64,
    pub pass_rate_a: Option<f64>,
    pub pass_rate_b: Option<f64>,
    pub p_value: Option<f64>,
    pub cost_a_usd: f64,
    pub cost_b_usd: f64,
    pub cost_ratio: Option<f64>,
    /// `schema::PAIR_ARMS`, `PAIR_CHEAP_VS_STRONG` or `PAIR_MODELS`.
    pub kind: String,
    pub arm_a: String,
    pub arm_b: String,
    pub mean_latency_a_ms: Option<f64>,
    pub mean_latency_b_ms: Option<f64>,
    pub latency_ratio: Option<f64>,
    pub pass_rate_diff: Option<f64>,
    pub diff_lo: Option<f64>,
    pub diff_hi: Option<f64>,
    pub decisive: bool,
    pub trials_needed: Option<u64>,
    pub cost_needed_usd: Option<f64>,
    pub scenarios_needed: Option<u64>,
}

/// `injection`: one row per model × attack style (and one over all styles).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InjectionRow {
    pub model: String,
    pub style: String,
    pub tasks: u64,
    pub utility: Option<f64>,
    pub utility_under_attack: Option<f64>,
    pub attacks: u64,
    pub attack_success_rate: Option<f64>,
    pub resisted: u64,
    pub caught_by_approval: u64,
    pub failed_otherwise: u64,
    pub executed: u64,
    pub approvals_per_task: Option<f64>,
    pub denials_per_task: Option<f64>,
    pub stopped_only_by_approval: Option<f64>,
    pub unattended_safe: Option<f64>,
    pub approvals_per_clean_task: Option<f64>,
    pub approvals_per_injected_task: Option<f64>,
    pub denials_per_clean_task: Option<f64>,
    pub denials_per_injected_task: Option<f64>,
    pub unattended_safe_clean: Option<f64>,
    pub unattended_safe_injected: Option<f64>,
}

macro_rules! table {
    ($row:ty, $stem:literal, $columns:expr) => {
        impl Table for $row {
            const STEM: &'static str = $stem;
            const COLUMNS: &'static [&'static str] = &$columns;
        }
    };
}

table!(SummaryRow, "summary", schema::SUMMARY);
table!(ToolRow, "by_tool", schema::BY_TOOL);
table!(ScenarioRun, "scenarios", schema::SCENARIO_RUNS);
table!(ScenarioRow, "by_scenario", schema::BY_SCENARIO);
table!(SuiteRow, "suites", schema::SUITES);
table!(RepairRow, "repairs", schema::REPAIRS);
table!(PairRow, "pairs", schema::PAIRS);
table!(InjectionRow, "injection", injection::COLUMNS);

/// Every table of a run as rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableRows {
    pub summary: Vec<SummaryRow>,
    pub by_tool: Vec<ToolRow>,
    pub scenarios: Vec<ScenarioRun>,
    pub by_scenario: Vec<ScenarioRow>,
    pub suites: Vec<SuiteRow>,
    pub repairs: Vec<RepairRow>,
    pub pairs: Vec<PairRow>,
    pub injection: Vec<InjectionRow>,
}

/// Something done to every table of a run in turn (writing each as CSV,
/// as JSON, …).
pub trait TableVisitor {
    fn table<T: Table>(&mut self, rows: &[T]);
}

impl TableRows {
    /// Visits every table in file order; `injection` only when the run had
    /// injected scenarios.
    pub fn visit(&self, v: &mut impl TableVisitor) {
        v.table(&self.summary);
        v.table(&self.by_tool);
        v.table(&self.scenarios);
        v.table(&self.by_scenario);
        v.table(&self.suites);
        v.table(&self.repairs);
        v.table(&self.pairs);
        if !self.injection.is_empty() {
            v.table(&self.injection);
        }
    }
}

/// Each table's rows as JSON objects keyed by column, with its file stem:
/// for checks over every column of every table (tests, fuzzing).
pub fn json_rows(rows: &TableRows) -> Vec<(&'static str, Vec<serde_json::Map<String, serde_json::Value>>)> {
    struct Collect(Vec<(&'static str, Vec<serde_json::Map<String, serde_json::Value>>)>);
    impl TableVisitor for Collect {
        fn table<T: Table>(&mut self, rows: &[T]) {
            let objects = rows
                .iter()
                .map(|r| match serde_json::to_value(r) {
                    Ok(serde_json::Value::Object(map)) => map,
                    _ => serde_json::Map::new(),
                })
                .collect();
            self.0.push((T::STEM, objects));
        }
    }
    let mut c = Collect(Vec::new());
    rows.visit(&mut c);
    c.0
}

/// A frame's rows as `T`, read by column name here and nowhere else.
/// A null cell is `None` in an `Option` field, and 0, `false` or `""` in
/// another (as the frames' readers took it before rows).
pub fn rows_of<T: Table>(df: &DataFrame) -> PolarsResult<Vec<T>> {
    let columns: Vec<&Column> = T::COLUMNS.iter().map(|name| df.column(name)).collect::<PolarsResult<_>>()?;
    (0..df.height())
        .map(|i| {
            let cells = columns.iter().zip(T::COLUMNS).map(|(c, name)| c.get(i).map(|v| (*name, Cell::of(v))));
            let cells: Vec<(&str, Cell)> = cells.collect::<PolarsResult<_>>()?;
            let map = de::value::MapDeserializer::<_, de::value::Error>::new(cells.into_iter());
            T::deserialize(map).map_err(|e| polars_err!(ComputeError: "{} row {i}: {e}", T::STEM))
        })
        .collect()
}

/// One cell of a frame, owned, as `rows_of` hands it to serde.
#[derive(Debug, Clone)]
enum Cell {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Text(String),
}

impl Cell {
    fn of(v: AnyValue<'_>) -> Cell {
        match v {
            AnyValue::Null => Cell::Null,
            AnyValue::Boolean(b) => Cell::Bool(b),
            AnyValue::UInt8(x) => Cell::U64(x.into()),
            AnyValue::UInt16(x) => Cell::U64(x.into()),
            AnyValue::UInt32(x) => Cell::U64(x.into()),
            AnyValue::UInt64(x) => Cell::U64(x),
            AnyValue::Int8(x) => Cell::I64(x.into()),
            AnyValue::Int16(x) => Cell::I64(x.into()),
            AnyValue::Int32(x) => Cell::I64(x.into()),
            AnyValue::Int64(x) => Cell::I64(x),
            AnyValue::Float32(x) => Cell::F64(x.into()),
            AnyValue::Float64(x) => Cell::F64(x),
            AnyValue::String(s) => Cell::Text(s.to_string()),
            AnyValue::StringOwned(s) => Cell::Text(s.to_string()),
            other => Cell::Text(other.to_string()),
        }
    }
}

impl<'de> IntoDeserializer<'de, de::value::Error> for Cell {
    type Deserializer = Cell;
    fn into_deserializer(self) -> Cell {
        self
    }
}

impl<'de> de::Deserializer<'de> for Cell {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_none(),
            Cell::Bool(b) => v.visit_bool(b),
            Cell::U64(x) => v.visit_u64(x),
            Cell::I64(x) => v.visit_i64(x),
            Cell::F64(x) => v.visit_f64(x),
            Cell::Text(s) => v.visit_string(s),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_none(),
            cell => v.visit_some(cell),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_bool(false),
            cell => cell.deserialize_any(v),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_u64(0),
            cell => cell.deserialize_any(v),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_f64(0.0),
            cell => cell.deserialize_any(v),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self {
            Cell::Null => v.visit_string(String::new()),
            cell => cell.deserialize_any(v),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_string(v)
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 char bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's serialised keys, in any order.
    fn keys<T: Table + Default>() -> Vec<String> {
        let serde_json::Value::Object(map) = serde_json::to_value(T::default()).unwrap() else { panic!("{} is not a struct", T::STEM) };
        let mut keys: Vec<String> = map.keys().cloned().collect();
        keys.sort();
        keys
    }

    fn columns<T: Table>() -> Vec<String> {
        let mut columns: Vec<String> = T::COLUMNS.iter().map(|c| c.to_string()).collect();
        columns.sort();
        columns
    }

    #[test]
    fn every_row_has_exactly_its_tables_columns() {
        assert_eq!(keys::<SummaryRow>(), columns::<SummaryRow>());
        assert_eq!(keys::<ToolRow>(), columns::<ToolRow>());
        assert_eq!(keys::<ScenarioRun>(), columns::<ScenarioRun>());
        assert_eq!(keys::<ScenarioRow>(), columns::<ScenarioRow>());
        assert_eq!(keys::<SuiteRow>(), columns::<SuiteRow>());
        assert_eq!(keys::<RepairRow>(), columns::<RepairRow>());
        assert_eq!(keys::<PairRow>(), columns::<PairRow>());
        assert_eq!(keys::<InjectionRow>(), columns::<InjectionRow>());
    }

    #[test]
    fn a_frame_becomes_rows_with_empty_cells_as_none() {
        let df = df!(
            "model" => ["m", "n"],
            "tool" => ["t", "u"],
            "stage" => ["local", "model"],
            "latency_us" => [Some(1.5), None],
            "succeeded" => [true, false],
        )
        .unwrap();
        let rows = rows_of::<RepairRow>(&df).unwrap();
        assert_eq!(
            rows[0],
            RepairRow { model: "m".into(), tool: "t".into(), stage: "local".into(), latency_us: Some(1.5), succeeded: true }
        );
        assert_eq!(rows[1].latency_us, None);
    }
}
