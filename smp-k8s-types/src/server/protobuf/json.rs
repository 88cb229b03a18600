//! A message as the API server's JSON shows it: the Go struct the message
//! decodes into, encoded by `encoding/json` (field names, `omitempty`,
//! `null` for nil slices and maps that keep them), with Kubernetes' own
//! JSON for its special messages.

use super::table::{Field, Label, messages};
use super::wire::{self, Wire, WireError};
use base64::Engine;
use serde_json::{Map, Value};

/// Messages nest at most this deep (the API's own types nest far less).
const MAX_DEPTH: usize = 64;

/// Why a body could not be decoded, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The JSON path of the field (`metadata.labels`).
    pub path: String,
    pub why: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() { f.write_str(&self.why) } else { write!(f, "{}: {}", self.path, self.why) }
    }
}

fn error(path: &str, why: impl ToString) -> DecodeError {
    DecodeError { path: path.to_string(), why: why.to_string() }
}

fn wire_error(path: &str) -> impl Fn(WireError) -> DecodeError + '_ {
    move |e| error(path, e)
}

const META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.";

/// The message `name` in `bytes` as JSON.
pub fn message(name: &str, bytes: &[u8], path: &str, depth: usize) -> Result<Value, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(error(path, "the message nests too deeply"));
    }
    if let Some(special) = special(name, bytes, path)? {
        return Ok(special);
    }
    let Some(message) = messages().get(name) else {
        return Err(error(path, format!("no message {name} is known")));
    };
    let mut found: Vec<(&Field, Vec<Wire<'_>>)> = Vec::new();
    for item in wire::fields(bytes) {
        let (number, value) = item.map_err(wire_error(path))?;
        // Fields the table does not know are skipped, as Go skips them.
        let Some(field) = message.field(number) else { continue };
        match found.iter_mut().find(|(f, _)| f.number == number) {
            Some((_, values)) => values.push(value),
            None => found.push((field, vec![value])),
        }
    }
    if message.list {
        let items = found.into_iter().find(|(f, _)| f.number == 1);
        return match items {
            Some((field, values)) => repeated(field, &values, path, depth),
            None => Ok(Value::Null),
        };
    }
    let mut out = Map::new();
    for field in &message.fields {
        if field.json == "-" && !field.inline {
            // `json:"-"`: not in the JSON (the raw bytes of the special
            // messages, which are decoded above).
            continue;
        }
        let values = found.iter().find(|(f, _)| f.number == field.number).map(|(_, v)| v.as_slice());
        let path = if field.inline { path.to_string() } else { join(path, field.json) };
        let value = match values {
            Some(values) => present(field, values, &path, depth)?,
            None => absent(field, &path, depth)?,
        };
        match value {
            Some(Value::Object(inner)) if field.inline => out.extend(inner),
            Some(_) if field.inline => {}
            Some(value) => {
                out.insert(field.json.to_string(), value);
            }
            None => {}
        }
    }
    Ok(Value::Object(out))
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path}.{name}") }
}

/// A field on the wire: `None` when `omitempty` drops its value.
fn present(field: &Field, values: &[Wire<'_>], path: &str, depth: usize) -> Result<Option<Value>, DecodeError> {
    match field.label {
        Label::Repeated => repeated(field, values, path, depth).map(Some),
        Label::Map => {
            let mut map = Map::new();
            for entry in values {
                let Wire::Bytes(entry) = entry else { return Err(error(path, "a map entry is not a message")) };
                let (mut key, mut value) = (String::new(), None);
                for item in wire::fields(entry) {
                    match item.map_err(wire_error(path))? {
                        (1, Wire::Bytes(k)) => key = String::from_utf8_lossy(k).into_owned(),
                        (2, v) => value = Some(v),
                        _ => {}
                    }
                }
                let path = format!("{path}[{key}]");
                let value = match value {
                    Some(v) => one(field.type_name, v, &path, depth)?,
                    None => zero(field.type_name, &path, depth)?,
                };
                map.insert(key, value);
            }
            Ok(Some(Value::Object(map)))
        }
        Label::One => {
            let last = *values.last().expect("a present field has a value");
            let value = one(field.type_name, last, path, depth)?;
            let empty = is_scalar(field.type_name) && is_zero(&value);
            Ok((field.pointer || !field.omit_empty || !empty).then_some(value))
        }
    }
}

fn repeated(field: &Field, values: &[Wire<'_>], path: &str, depth: usize) -> Result<Value, DecodeError> {
    let mut items = Vec::new();
    for value in values {
        match (field.type_name, *value) {
            // Packed scalars: varints one after another.
            ("int32" | "int64" | "bool", Wire::Bytes(mut packed)) => {
                while !packed.is_empty() {
                    let (v, rest) = wire::varint(packed).map_err(wire_error(path))?;
                    items.push(scalar(field.type_name, Wire::Varint(v), path)?);
                    packed = rest;
                }
            }
            (type_name, value) => items.push(one(type_name, value, &format!("{path}[{}]", items.len()), depth)?),
        }
    }
    Ok(Value::Array(items))
}

/// A field not on the wire: what the zero value of its Go type shows.
fn absent(field: &Field, path: &str, depth: usize) -> Result<Option<Value>, DecodeError> {
    if field.pointer {
        return Ok(None);
    }
    match field.label {
        Label::Repeated | Label::Map => Ok((!field.omit_empty).then_some(Value::Null)),
        Label::One if is_scalar(field.type_name) => {
            Ok((!field.omit_empty).then(|| zero(field.type_name, path, depth)).transpose()?)
        }
        // A struct is never empty to `omitempty`.
        Label::One => zero(field.type_name, path, depth).map(Some),
    }
}

fn is_scalar(type_name: &str) -> bool {
    matches!(type_name, "string" | "bytes" | "bool" | "int32" | "int64")
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_i64() == Some(0),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// The zero value of a type.
fn zero(type_name: &str, path: &str, depth: usize) -> Result<Value, DecodeError> {
    Ok(match type_name {
        "string" => Value::String(String::new()),
        "bytes" => Value::Null,
        "bool" => Value::Bool(false),
        "int32" | "int64" => Value::from(0),
        message_name => message(message_name, &[], path, depth + 1)?,
    })
}

fn one(type_name: &str, value: Wire<'_>, path: &str, depth: usize) -> Result<Value, DecodeError> {
    if is_scalar(type_name) {
        return scalar(type_name, value, path);
    }
    let Wire::Bytes(bytes) = value else { return Err(error(path, "a message is not length-delimited")) };
    message(type_name, bytes, path, depth + 1)
}

fn scalar(type_name: &str, value: Wire<'_>, path: &str) -> Result<Value, DecodeError> {
    Ok(match (type_name, value) {
        ("string", Wire::Bytes(b)) => Value::String(String::from_utf8_lossy(b).into_owned()),
        ("bytes", Wire::Bytes(b)) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        ("bool", Wire::Varint(v)) => Value::Bool(v != 0),
        // Negative int32s are sign-extended to ten bytes on the wire.
        ("int32", Wire::Varint(v)) => Value::from(v as i64 as i32),
        ("int64", Wire::Varint(v)) => Value::from(v as i64),
        (type_name, _) => return Err(error(path, format!("a {type_name} has the wrong wire type"))),
    })
}

/// The scalar fields of a special message, by number.
fn special_fields<'a>(bytes: &'a [u8], path: &str) -> Result<Vec<(u32, Wire<'a>)>, DecodeError> {
    wire::fields(bytes).collect::<Result<_, _>>().map_err(wire_error(path))
}

fn varint_of(fields: &[(u32, Wire<'_>)], number: u32) -> i64 {
    fields
        .iter()
        .rev()
        .find_map(|(n, v)| match v {
            Wire::Varint(v) if *n == number => Some(*v as i64),
            _ => None,
        })
        .unwrap_or(0)
}

fn bytes_of<'a>(fields: &[(u32, Wire<'a>)], number: u32) -> &'a [u8] {
    fields
        .iter()
        .rev()
        .find_map(|(n, v)| match v {
            Wire::Bytes(b) if *n == number => Some(*b),
            _ => None,
        })
        .unwrap_or_default()
}

/// Kubernetes' messages whose JSON is not their fields'.
fn special(name: &str, bytes: &[u8], path: &str) -> Result<Option<Value>, DecodeError> {
    let value = match name.strip_prefix(META) {
        Some(kind @ ("Time" | "MicroTime")) => {
            let fields = special_fields(bytes, path)?;
            let (seconds, nanos) = (varint_of(&fields, 1), varint_of(&fields, 2) as i32);
            if seconds == 0 && nanos == 0 {
                Value::Null
            } else {
                let micros = (kind == "MicroTime").then(|| u32::try_from(nanos / 1000).unwrap_or(0));
                Value::String(crate::server::clock::rfc3339_at(seconds, micros))
            }
        }
        Some("Duration") => Value::String(go_duration(varint_of(&special_fields(bytes, path)?, 1))),
        Some("FieldsV1") => raw_json(bytes_of(&special_fields(bytes, path)?, 1), path)?,
        _ => match name {
            "k8s.io.apimachinery.pkg.api.resource.Quantity" => {
                let text = String::from_utf8_lossy(bytes_of(&special_fields(bytes, path)?, 1)).into_owned();
                Value::String(if text.is_empty() { "0".into() } else { text })
            }
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString" => {
                let fields = special_fields(bytes, path)?;
                if varint_of(&fields, 1) == 1 {
                    Value::String(String::from_utf8_lossy(bytes_of(&fields, 3)).into_owned())
                } else {
                    Value::from(varint_of(&fields, 2) as i32)
                }
            }
            "k8s.io.apimachinery.pkg.runtime.RawExtension" => {
                raw_json(bytes_of(&special_fields(bytes, path)?, 1), path)?
            }
            _ => return Ok(None),
        },
    };
    Ok(Some(value))
}

/// Raw JSON inside a message (`RawExtension`, `FieldsV1`): `null` when
/// empty.
fn raw_json(raw: &[u8], path: &str) -> Result<Value, DecodeError> {
    if raw.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(raw).map_err(|e| error(path, format!("the embedded object is not JSON: {e}")))
}

/// Go's `time.Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
pub fn go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let n = nanos.unsigned_abs();
    let fraction = |value: u64, unit: u64, suffix: &str| {
        let (whole, rest) = (value / unit, value % unit);
        let digits = unit.ilog10() as usize;
        let rest = format!("{rest:0digits$}");
        let rest = rest.trim_end_matches('0');
        if rest.is_empty() { format!("{whole}{suffix}") } else { format!("{whole}.{rest}{suffix}") }
    };
    let text = if n < 1_000 {
        format!("{n}ns")
    } else if n < 1_000_000 {
        fraction(n, 1_000, "µs")
    } else if n < 1_000_000_000 {
        fraction(n, 1_000_000, "ms")
    } else {
        let seconds = fraction(n % 60_000_000_000, 1_000_000_000, "s");
        let minutes = n / 60_000_000_000;
        match (minutes / 60, minutes % 60) {
            (0, 0) => seconds,
            (0, m) => format!("{m}m{seconds}"),
            (h, m) => format!("{h}h{m}m{seconds}"),
        }
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go_prints_them() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (1_500_000, "1.5ms"),
            (1_000_000_000, "1s"),
            (90_000_000_000, "1m30s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_500_000_000, "1h2m3.5s"),
            (-2_000_000_000, "-2s"),
        ];
        for (nanos, text) in cases {
            assert_eq!(go_duration(nanos), text);
        }
    }
}
