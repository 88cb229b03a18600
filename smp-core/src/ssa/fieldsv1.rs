//! The `FieldsV1` encoding of a field set, byte for byte as the API server
//! writes it into `metadata.managedFields`: a JSON object whose keys are
//! serialized path elements (`f:name`, `k:{"name":"web"}`, `v:"a"`, `i:0`)
//! in element order, `{}` for a member, and `".": {}` for a member that
//! also has children.

use super::fieldpath::{PathElement, Set};
use super::value::{Num, go_float, num};
use serde_json::{Map, Value};

/// A path element's key in `FieldsV1`.
pub fn encode_element(pe: &PathElement) -> String {
    let mut out = String::new();
    match pe {
        // Field names are written raw, unescaped (the reference does so).
        PathElement::Field(name) => {
            out.push_str("f:");
            out.push_str(name);
        }
        PathElement::Key(fields) => {
            out.push_str("k:{");
            for (i, (n, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(&mut out, n);
                out.push(':');
                write_json(&mut out, v);
            }
            out.push('}');
        }
        PathElement::Value(v) => {
            out.push_str("v:");
            write_json(&mut out, v);
        }
        PathElement::Index(i) => {
            out.push_str("i:");
            out.push_str(&i.to_string());
        }
    }
    out
}

/// JSON as the reference's encoder writes it inside a key: HTML-escaped
/// strings, sorted map keys, Go's float text.
fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match num(n) {
            Num::Int(i) => out.push_str(&i.to_string()),
            Num::Float(f) => out.push_str(&go_json_float(f)),
        },
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, e);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_json(out, e);
            }
            out.push('}');
        }
    }
}

/// A float as Go's JSON encoders write it: plain decimal between 1e-6 and
/// 1e21, exponent form outside.
fn go_json_float(f: f64) -> String {
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        // Go writes e-07 as e-7 here (it trims the exponent's leading zero).
        let s = go_float(f);
        return s.replace("e-0", "e-").replace("e+0", "e+");
    }
    let s = format!("{}", f);
    if f == 0.0 && f.is_sign_negative() { "-0".into() } else { s }
}

/// A string as the reference's path elements are written (json-iterator,
/// not `encoding/json`: no short `\b` and `\f` escapes, unlike
/// `crate::value::go_json_string`).
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The `FieldsV1` object of a set.
pub fn encode(set: &Set) -> Value {
    Value::Object(encode_contents(set, false))
}

fn encode_contents(set: &Set, include_self: bool) -> Map<String, Value> {
    let mut m = Map::new();
    if include_self && !set.is_empty() {
        m.insert(".".into(), Value::Object(Map::new()));
    }
    let mut j = 0;
    for pe in &set.members {
        // A member that also has children is written with its children.
        while j < set.children.len() && set.children[j].0 < *pe {
            j += 1;
        }
        if j < set.children.len() && set.children[j].0 == *pe {
            continue;
        }
        m.insert(encode_element(pe), Value::Object(Map::new()));
    }
    for (pe, child) in &set.children {
        let is_member = set.has_member(pe);
        m.insert(encode_element(pe), Value::Object(encode_contents(child, is_member)));
    }
    m
}

/// Why a `FieldsV1` object could not be read.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for DecodeError {}

/// A path element from its `FieldsV1` key; `Ok(None)` for an element type
/// the reference does not know (it skips those).
pub fn decode_element(s: &str) -> Result<Option<PathElement>, DecodeError> {
    let b = s.as_bytes();
    if b.len() < 2 {
        return Err(DecodeError("key must be 2 characters long:".into()));
    }
    if b[1] != b':' {
        return Err(DecodeError(format!("missing colon: {s}")));
    }
    let rest = &s[2..];
    match b[0] {
        b'f' => Ok(Some(PathElement::Field(rest.to_string()))),
        b'v' => {
            let v: Value = serde_json::from_str(rest).map_err(|e| DecodeError(e.to_string()))?;
            Ok(Some(PathElement::Value(v)))
        }
        b'k' => {
            let v: Value = serde_json::from_str(rest).map_err(|e| DecodeError(e.to_string()))?;
            match v {
                Value::Object(m) => Ok(Some(PathElement::Key(m.into_iter().collect()))),
                Value::Null => Ok(Some(PathElement::Key(Vec::new()))),
                _ => Err(DecodeError(format!("expect {{ or n, but found {}", rest.chars().next().unwrap_or(' ')))),
            }
        }
        b'i' => rest.parse::<i64>().map(|i| Some(PathElement::Index(i))).map_err(|_| {
            DecodeError(format!("strconv.Atoi: parsing {}: invalid syntax", super::value::go_quote(rest)))
        }),
        _ => Ok(None),
    }
}

/// The set a `FieldsV1` object encodes.
pub fn decode(v: &Value) -> Result<Set, DecodeError> {
    Ok(read(v, 0)?.0.unwrap_or_default())
}

/// A node: the set below it (if any) and whether it is a member itself.
fn read(v: &Value, depth: usize) -> Result<(Option<Set>, bool), DecodeError> {
    if depth > crate::MAX_DEPTH {
        return Err(DecodeError(format!("nested deeper than {}", crate::MAX_DEPTH)));
    }
    let m = match v {
        Value::Object(m) => m,
        Value::Null => return Ok((None, true)),
        other => {
            return Err(DecodeError(format!(
                "ReadMapCB: expect {{ or n, but found {}",
                other.to_string().chars().next().unwrap_or(' ')
            )));
        }
    };
    let mut children: Option<Set> = None;
    let mut is_member = false;
    for (key, val) in m {
        if key == "." {
            is_member = true;
            continue;
        }
        let Some(pe) = decode_element(key)? else { continue };
        let (grand, child_member) = read(val, depth + 1)?;
        if child_member {
            children.get_or_insert_with(Set::new).insert_member(pe.clone());
        }
        if let Some(g) = grand {
            let c = children.get_or_insert_with(Set::new);
            *c.descend(&pe) = g;
        }
    }
    if children.is_none() {
        is_member = true;
    }
    Ok((children, is_member))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_keeps_the_servers_shape() {
        let v = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {
                "f:containers": {
                    "k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}
                },
                "f:finalizers": {"v:\"a\"": {}},
                "f:replicas": {}
            }
        });
        let s = decode(&v).unwrap();
        assert_eq!(s.len(), 7);
        assert_eq!(encode(&s), v);
    }

    #[test]
    fn key_values_are_html_escaped() {
        let pe = PathElement::Key(vec![("name".into(), json!("a<b")), ("port".into(), json!(80))]);
        assert_eq!(encode_element(&pe), "k:{\"name\":\"a\\u003cb\",\"port\":80}");
        assert_eq!(decode_element("k:{\"port\":80,\"name\":\"a<b\"}").unwrap(), Some(pe));
        assert_eq!(decode_element("x:y").unwrap(), None);
        assert!(decode_element("f").is_err());
        assert!(decode_element("fx").is_err());
    }
}
