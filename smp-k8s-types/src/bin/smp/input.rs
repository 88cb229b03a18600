//! Reading documents: files or stdin, JSON or YAML.

use crate::args::Source;
use serde::Deserialize as _;
use serde_json::{Map, Number, Value};
use std::io::Read;

/// Reads the bytes of `source`; `what` names it in the error message.
pub fn read(source: &Source, what: &str) -> Result<Vec<u8>, String> {
    let bytes = match source {
        Source::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin().lock().read_to_end(&mut buf).map(|_| buf)
        }
        Source::File(path) => std::fs::read(path),
    };
    bytes.map_err(|e| format!("cannot read {}: {e}", describe(source, what)))
}

/// Reads and parses the document `what` (e.g. `original`) from `source`.
pub fn load_document(source: &Source, what: &str) -> Result<Value, String> {
    let bytes = read(source, what)?;
    parse_document(&bytes).map_err(|e| format!("{}: {e}", describe(source, what)))
}

/// `original file "a.yaml"`, or `original from stdin`.
pub fn describe(source: &Source, what: &str) -> String {
    match source {
        Source::Stdin => format!("{what} from stdin"),
        Source::File(path) => format!("{what} file {:?}", path.display().to_string()),
    }
}

/// Parses a document that must be an object: JSON exactly as the reference
/// decodes it (`null` and empty input are `{}`), else YAML.
pub fn parse_document(bytes: &[u8]) -> Result<Value, String> {
    if let Ok(doc) = smp_core::decode(bytes) {
        return Ok(doc);
    }
    match parse_any(bytes)? {
        Value::Null => Ok(Value::Object(Map::new())),
        doc @ Value::Object(_) => Ok(doc),
        other => Err(format!("the document must be an object, not {}", type_name(&other))),
    }
}

/// Parses any JSON or YAML value (one YAML document only).
pub fn parse_any(bytes: &[u8]) -> Result<Value, String> {
    if let Ok(mut v) = serde_json::from_slice::<Value>(bytes) {
        smp_core::value::normalize_numbers(&mut v);
        return Ok(v);
    }
    parse_yaml(bytes).map_err(|yaml_err| match json_error(bytes) {
        Some(json_err) => format!("invalid JSON: {json_err}"),
        None => format!("invalid YAML: {yaml_err}"),
    })
}

/// The JSON parse error, when the text looks meant to be JSON.
fn json_error(bytes: &[u8]) -> Option<serde_json::Error> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if !matches!(first, b'{' | b'[' | b'"') {
        return None;
    }
    serde_json::from_slice::<Value>(bytes).err()
}

fn parse_yaml(bytes: &[u8]) -> Result<Value, String> {
    let mut documents = serde_yaml_ng::Deserializer::from_slice(bytes);
    let Some(first) = documents.next() else { return Ok(Value::Null) };
    let mut yaml = serde_yaml_ng::Value::deserialize(first).map_err(|e| e.to_string())?;
    if documents.next().is_some() {
        return Err("several YAML documents where one is expected".into());
    }
    yaml.apply_merge().map_err(|e| e.to_string())?;
    let mut json = yaml_to_json(yaml)?;
    smp_core::value::normalize_numbers(&mut json);
    Ok(json)
}

/// Converts YAML to JSON as `sigs.k8s.io/yaml` does: scalar keys become
/// strings, tags are dropped, integers stay integers.
fn yaml_to_json(yaml: serde_yaml_ng::Value) -> Result<Value, String> {
    use serde_yaml_ng::Value as Y;
    Ok(match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => Value::Number(yaml_number(&n)?),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(yaml_to_json).collect::<Result<_, _>>()?),
        Y::Mapping(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                map.insert(yaml_key(k)?, yaml_to_json(v)?);
            }
            Value::Object(map)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value)?,
    })
}

fn yaml_number(n: &serde_yaml_ng::Number) -> Result<Number, String> {
    if let Some(i) = n.as_i64() {
        Ok(i.into())
    } else if let Some(u) = n.as_u64() {
        Ok(u.into())
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        Number::from_f64(f).ok_or_else(|| format!("{n} cannot be represented in JSON"))
    }
}

fn yaml_key(key: serde_yaml_ng::Value) -> Result<String, String> {
    use serde_yaml_ng::Value as Y;
    match key {
        Y::String(s) => Ok(s),
        Y::Number(n) => Ok(n.to_string()),
        Y::Bool(b) => Ok(b.to_string()),
        Y::Null => Ok("null".into()),
        Y::Tagged(tagged) => yaml_key(tagged.value),
        Y::Sequence(_) | Y::Mapping(_) => Err("a list or map as a mapping key cannot be converted to JSON".into()),
    }
}

/// The JSON type of `v`, for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
