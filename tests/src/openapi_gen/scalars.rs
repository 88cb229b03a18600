//! Scalars of the right type and format, drawn from small pools so that
//! values and merge keys collide between an object and its modifications.

use super::{Gen, Scalar};
use crate::long_text::long_text;
use serde_json::{Value, json};

const STRINGS: &[&str] = &["a", "b", "c", "web", "db"];
const INTEGERS: &[i64] = &[0, 1, 2, 3, 80, 443, 8080];
const NUMBERS: &[f64] = &[0.5, 1.5, 2.25];
const QUANTITIES: &[&str] = &["100m", "1", "2", "250m", "1Gi", "512Mi"];
const PERCENTS: &[&str] = &["25%", "50%", "http"];
/// The API server's formats: seconds for `Time`, microseconds for `MicroTime`.
const TIMES: &[&str] = &["2024-01-02T03:04:05Z", "2025-06-07T08:09:10Z", "2023-11-12T13:14:15Z"];
const MICRO_TIMES: &[&str] = &["2024-01-02T03:04:05.123456Z", "2025-06-07T08:09:10.000001Z"];
/// Base64 with padding, as Go's `[]byte` fields marshal.
const BYTES: &[&str] = &["aGVsbG8=", "d29ybGQ=", "YQ=="];
/// Map keys and the string values of merge keys.
pub(super) const KEYS: &[&str] = &["a", "b", "c", "d", "app", "tier"];
/// Fields of free text: their strings (their own, their map values, their
/// list items) are sometimes long, with escapes; never names or merge keys.
const TEXT_FIELDS: &[&str] =
    &["annotations", "data", "stringData", "value", "message", "description", "command", "args"];

/// The chance that a string of free text is long: higher than the other
/// generators' (`long_text::LONG_TEXT`), as these objects seldom have such
/// optional fields.
const LONG: f64 = 0.25;

pub(super) fn is_text_field(name: &str) -> bool {
    TEXT_FIELDS.contains(&name)
}

impl Gen<'_> {
    pub(super) fn scalar(&mut self, scalar: Scalar) -> Value {
        let rng = &mut self.rng;
        match scalar {
            Scalar::String if self.text && rng.chance(LONG) => json!(long_text(rng)),
            Scalar::String => json!(rng.pick(STRINGS)),
            Scalar::Enum(values) => rng.pick(values).clone(),
            Scalar::Integer => json!(rng.pick(INTEGERS)),
            Scalar::Number => json!(rng.pick(NUMBERS)),
            Scalar::Boolean => json!(rng.chance(0.5)),
            Scalar::IntOrString if rng.chance(0.5) => json!(rng.pick(INTEGERS)),
            Scalar::IntOrString => json!(rng.pick(PERCENTS)),
            Scalar::Quantity => json!(rng.pick(QUANTITIES)),
            Scalar::Time => json!(rng.pick(TIMES)),
            Scalar::MicroTime => json!(rng.pick(MICRO_TIMES)),
            Scalar::Bytes => json!(rng.pick(BYTES)),
        }
    }

    /// A merge key value of the type of `scalar`.
    pub(super) fn key_value(&mut self, scalar: Option<Scalar>) -> Value {
        match scalar {
            Some(Scalar::Integer) => json!(self.rng.pick(INTEGERS)),
            Some(s @ (Scalar::Enum(_) | Scalar::Boolean)) => self.scalar(s),
            _ => json!(self.rng.pick(KEYS)),
        }
    }
}
