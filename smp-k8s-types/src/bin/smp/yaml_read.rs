//! YAML documents read as kubectl reads them: go-yaml v2 decodes the text,
//! then `sigs.k8s.io/yaml` turns it into JSON.
//!
//! Where that differs from a YAML 1.2 reader:
//! - a key given twice is not an error: the last one wins;
//! - merge keys (`<<`) are applied where they stand, so a key after them
//!   overrides what they bring and a key before them is overridden (of a
//!   list of merged maps, the first wins);
//! - `!!binary` scalars are their decoded bytes (as text), and invalid
//!   base64 is an error;
//! - a scalar with a tag go-yaml does not know is its text;
//! - a `null` key cannot be a JSON key: an error.

use serde::de::{self, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// One YAML node, keys in document order, duplicates kept.
#[derive(Debug)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Tagged(String, Box<Node>),
}

impl<'de> de::Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Node, E> {
        Ok(Node::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Node, E> {
        Ok(Node::UInt(u))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Node, E> {
        Ok(Node::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry()? {
            entries.push((k, v));
        }
        Ok(Node::Map(entries))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Node, A::Error> {
        // A tagged node: the tag is the variant's name.
        let (tag, value): (String, A::Variant) = data.variant()?;
        Ok(Node::Tagged(tag, Box::new(value.newtype_variant()?)))
    }
}

impl Node {
    /// The node as JSON, as `sigs.k8s.io/yaml` converts go-yaml's value.
    pub fn into_json(self) -> Result<Value, String> {
        Ok(match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Int(i) => Value::Number(i.into()),
            Node::UInt(u) => Value::Number(u.into()),
            Node::Float(f) => Value::Number(float(f)?),
            Node::Str(s) => Value::String(s),
            Node::Seq(items) => Value::Array(items.into_iter().map(Node::into_json).collect::<Result<_, _>>()?),
            Node::Map(entries) => {
                let mut map = Map::new();
                merge_entries(&mut map, entries)?;
                Value::Object(map)
            }
            Node::Tagged(tag, node) => tagged(&tag, *node)?,
        })
    }
}

/// The entries of a mapping into `map`, in order: later keys win, and a
/// merge key brings its map's entries where it stands.
fn merge_entries(map: &mut Map<String, Value>, entries: Vec<(Node, Node)>) -> Result<(), String> {
    for (key, value) in entries {
        if matches!(&key, Node::Str(k) if k == "<<") {
            match value {
                Node::Map(merged) => merge_entries(map, merged)?,
                // Of several merged maps the first wins: go-yaml merges them last to first.
                Node::Seq(maps) => {
                    for merged in maps.into_iter().rev() {
                        let Node::Map(merged) = merged else {
                            return Err("map merge requires map or sequence of maps as the value".into());
                        };
                        merge_entries(map, merged)?;
                    }
                }
                _ => return Err("map merge requires map or sequence of maps as the value".into()),
            }
            continue;
        }
        let value = value.into_json()?;
        map.insert(key_text(key, &value)?, value);
    }
    Ok(())
}

/// A mapping key as JSON text: scalars by their text, anything else (and
/// `null`) an error, as `sigs.k8s.io/yaml` says it.
fn key_text(key: Node, value: &Value) -> Result<String, String> {
    Ok(match key {
        Node::Str(s) => s,
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::UInt(u) => u.to_string(),
        Node::Float(f) => crate::numbers::go_float(f),
        Node::Tagged(_, inner) => key_text(*inner, value)?,
        Node::Null => return Err(format!("unsupported map key of type: %!s(<nil>), key: <nil>, value: {value}")),
        Node::Seq(_) | Node::Map(_) => return Err("a list or map as a mapping key cannot be converted to JSON".into()),
    })
}

/// A tagged node: `!!binary` decoded, a scalar under a tag go-yaml does
/// not know read as its text, anything else as it is.
fn tagged(tag: &str, node: Node) -> Result<Value, String> {
    let binary = matches!(tag, "!!binary" | "tag:yaml.org,2002:binary" | "binary");
    match node {
        Node::Str(s) if binary => {
            use base64::Engine as _;
            let text: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|_| "!!binary value contains invalid base64 data".to_string())?;
            // JSON text holds the bytes as Go writes them: U+FFFD for each bad byte.
            Ok(Value::String(smp_core::text::utf8_as_go_reads(&bytes).into_owned()))
        }
        Node::Bool(b) => Ok(Value::String(b.to_string())),
        Node::Int(i) => Ok(Value::String(i.to_string())),
        Node::UInt(u) => Ok(Value::String(u.to_string())),
        Node::Float(f) => Ok(Value::String(crate::numbers::go_float(f))),
        other => other.into_json(),
    }
}

/// A YAML float as JSON. One with an integral value that fits an `int64`
/// is an integer: the reference's YAML-to-JSON step writes `1.0` as `1`,
/// which then decodes as an integer.
fn float(f: f64) -> Result<Number, String> {
    if f.fract() == 0.0 && (-INT64_BOUND..INT64_BOUND).contains(&f) {
        return Ok((f as i64).into());
    }
    Number::from_f64(f).ok_or_else(|| {
        let text = if f.is_nan() {
            ".nan"
        } else if f > 0.0 {
            ".inf"
        } else {
            "-.inf"
        };
        format!("{text} cannot be represented in JSON")
    })
}

/// 2^63: integral floats in `[-2^63, 2^63)` are exactly `int64` values.
const INT64_BOUND: f64 = 9_223_372_036_854_775_808.0;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize as _;
    use serde_json::json;

    fn read(text: &str) -> Result<Value, String> {
        let node = Node::deserialize(serde_yaml_ng::Deserializer::from_str(text)).map_err(|e| e.to_string())?;
        node.into_json()
    }

    #[test]
    fn keys_and_merges_as_go_yaml_reads_them() {
        // What kubectl patch --local -f prints for these documents.
        assert_eq!(read("a: 1\na: 2\n").unwrap(), json!({"a": 2}));
        assert_eq!(read("<<: {a: 1, b: 2}\na: 3\na: 4\n").unwrap(), json!({"a": 4, "b": 2}));
        assert_eq!(read("a: 3\n<<: {a: 1, b: 2}\n").unwrap(), json!({"a": 1, "b": 2}));
        assert_eq!(read("a: 3\n<<: [{a: 1, b: 2}, {a: 5, c: 6}]\n").unwrap(), json!({"a": 1, "b": 2, "c": 6}));
        assert_eq!(read("d: &d {a: x}\ne:\n  <<: *d\n").unwrap(), json!({"d": {"a": "x"}, "e": {"a": "x"}}));
        assert_eq!(read("1.5: x\ntrue: y\n3: z\n").unwrap(), json!({"1.5": "x", "true": "y", "3": "z"}));
        assert!(read("~: z\n").unwrap_err().starts_with("unsupported map key of type: %!s(<nil>)"));
        assert!(read("<<: 1\n").unwrap_err().contains("map merge requires map or sequence of maps"));
    }

    #[test]
    fn scalars_under_unknown_tags_are_their_text() {
        assert_eq!(
            read("a: !custom 3\nb: !!str 4\nc: !!int \"5\"\nd: !custom [1]\n").unwrap(),
            json!({"a": "3", "b": "4", "c": 5, "d": [1]})
        );
        assert_eq!(read("a: 2.0\nb: 1.5\n").unwrap(), json!({"a": 2, "b": 1.5}));
        assert!(read("a: .inf\n").unwrap_err().contains(".inf cannot be represented in JSON"));
    }
}
