//! Shared input format and schemas of the fuzz targets.
//!
//! An input is a selector byte followed by UTF-8 text holding one JSON
//! document per line; the selector picks the schema and the options. The
//! seed corpus (`seeds.py`) writes the project's fixtures in this form.
//!
//! Large input mode: with `SMP_FUZZ_GROW=N` in the environment, every
//! document is grown ([`grow`]) so that its lists hold N elements and its
//! objects N members, the same way in every document of an input (so a
//! patch's elements still meet the original's). Run with a short
//! `-timeout`: a path that is super-linear in list length or key count
//! shows as a timeout.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smp_core::schema::{MergeKey, Strategy};
use smp_core::{FieldSchema, Schema, Shape, StrategicMerge, StructSchema};
use std::collections::BTreeMap;

/// A decoded input: the selector and the documents, decoded as the
/// reference decodes them.
pub struct Input {
    pub selector: u8,
    pub docs: Vec<Value>,
}

impl Input {
    /// `None` unless there are at least `n` lines that decode.
    pub fn parse(data: &[u8], n: usize) -> Option<Input> {
        let (&selector, rest) = data.split_first()?;
        let text = std::str::from_utf8(rest).ok()?;
        let docs: Vec<Value> =
            text.lines().take(n).map(|l| smp_core::decode(l.as_bytes()).ok()).collect::<Option<_>>()?;
        (docs.len() == n).then_some(Input { selector, docs: docs.iter().map(grown).collect() })
    }

    /// [`Input::parse`] of documents of any kind (a JSON patch is a list):
    /// each line read as JSON text.
    pub fn parse_values(data: &[u8], n: usize) -> Option<Input> {
        let (&selector, rest) = data.split_first()?;
        let text = std::str::from_utf8(rest).ok()?;
        let docs: Vec<Value> = text.lines().take(n).map(|l| serde_json::from_str(l).ok()).collect::<Option<_>>()?;
        (docs.len() == n).then_some(Input { selector, docs: docs.iter().map(grown).collect() })
    }

    /// The schema the selector names.
    pub fn schema(&self) -> Schema<'static> {
        match (self.selector & 0x0f) % 3 {
            0 => Schema::Untyped,
            1 => Schema::of_struct(&ITEM),
            _ => Schema::of_struct(&POD),
        }
    }

    /// A flag from the selector's high bit.
    pub fn flag(&self) -> bool {
        self.selector & 0x80 != 0
    }
}

/// An input whose documents stay raw text (for the bytes entry points,
/// which decode it themselves): the selector and `n` lines, missing lines
/// empty.
pub struct RawInput<'a> {
    pub selector: u8,
    pub docs: Vec<&'a [u8]>,
}

impl<'a> RawInput<'a> {
    pub fn parse(data: &'a [u8], n: usize) -> Option<RawInput<'a>> {
        let (&selector, rest) = data.split_first()?;
        let mut docs: Vec<&[u8]> = rest.split(|&b| b == b'\n').take(n).collect();
        docs.resize(n, b"");
        Some(RawInput { selector, docs })
    }

    /// The schema the selector names (as [`Input::schema`]).
    pub fn schema(&self) -> Schema<'static> {
        Input { selector: self.selector, docs: Vec::new() }.schema()
    }

    /// A flag from the selector's high bit.
    pub fn flag(&self) -> bool {
        self.selector & 0x80 != 0
    }
}

/// The document as the large input mode grows it (itself without it).
fn grown(doc: &Value) -> Value {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let size = *SIZE.get_or_init(|| std::env::var("SMP_FUZZ_GROW").ok().and_then(|n| n.parse().ok()).unwrap_or(0));
    if size == 0 { doc.clone() } else { grow(doc, size) }
}

/// The most values [`grow`] makes of one document.
const GROWN_VALUES: usize = 1_000_000;

/// `doc` with every list of `n` elements or fewer grown to `n` and every
/// object to `n` members, by copies of what they hold: copy `j` of an
/// element or a member has `-j` after each of its strings and keys (a
/// directive's key excepted), so that merge keys, set members and the
/// names `$retainKeys` lists stay distinct, and grow alike in every
/// document. What copies hold is not grown again, so a document grows to
/// about `n` times the number of its lists and objects (at most
/// [`GROWN_VALUES`] values).
pub fn grow(doc: &Value, n: usize) -> Value {
    let mut budget = GROWN_VALUES;
    grow_within(doc, n, &mut budget)
}

fn grow_within(v: &Value, n: usize, budget: &mut usize) -> Value {
    match v {
        Value::Array(items) => {
            let mut out: Vec<Value> = items.iter().map(|e| grow_within(e, n, budget)).collect();
            for i in items.len()..n.max(items.len()) {
                let Some(e) = items.get(i % items.len().max(1)) else { break };
                let copy = suffixed(e, i / items.len(), budget);
                let Some(copy) = copy else { break };
                out.push(copy);
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().map(|(k, e)| (k.clone(), grow_within(e, n, budget))).collect();
            let plain: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| !k.starts_with('$')).collect();
            for i in map.len()..n.max(map.len()) {
                let Some((k, e)) = plain.get(i % plain.len().max(1)) else { break };
                let j = i / plain.len();
                let Some(copy) = suffixed(e, j, budget) else { break };
                out.insert(format!("{k}-{j}"), copy);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Copy `j` of a value: `-j` after each string and key but a directive's;
/// `None` once the budget is spent.
fn suffixed(v: &Value, j: usize, budget: &mut usize) -> Option<Value> {
    *budget = budget.checked_sub(1)?;
    Some(match v {
        Value::String(s) => Value::String(format!("{s}-{j}")),
        Value::Array(items) => Value::Array(items.iter().map(|e| suffixed(e, j, budget)).collect::<Option<_>>()?),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, e)| {
                    let k = if k.starts_with('$') { k.clone() } else { format!("{k}-{j}") };
                    Some((k, suffixed(e, j, budget)?))
                })
                .collect::<Option<_>>()?,
        ),
        other => other.clone(),
    })
}

const fn field(
    name: &'static str,
    strategy: &'static str,
    merge_key: &'static str,
    shape: fn() -> Shape,
) -> FieldSchema {
    FieldSchema::new(name, Strategy::of(strategy), MergeKey::from_text(merge_key), shape)
}

fn scalar() -> Shape {
    Shape::Scalar
}
fn scalars() -> Shape {
    Shape::List(scalar)
}
fn items() -> Shape {
    Shape::List(|| Shape::Struct(&ITEM))
}

/// A recursive item with every kind of field metadata.
pub static ITEM: StructSchema = StructSchema {
    name: "Item",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("mergingList", "merge", "name", items),
        field("nonMergingList", "", "", items),
        field("mergingIntList", "merge", "", scalars),
        field("nonMergingIntList", "", "", scalars),
        FieldSchema { pointer: true, ..field("mergeItemPtr", "merge", "name", || Shape::Struct(&ITEM)) },
        field("simpleMap", "", "", || Shape::Map(scalar)),
        field("replacingItem", "replace", "", || Shape::Any),
        field("retainKeysMap", "retainKeys", "", || Shape::Struct(&ITEM)),
        field("retainKeysMergingList", "merge,retainKeys", "name", items),
        field("any", "", "", || Shape::Any),
    ],
};

/// A small Pod: containers keyed by name, ports keyed by an integer.
pub static POD: StructSchema = StructSchema {
    name: "Pod",
    fields: &[field("metadata", "", "", || Shape::Struct(&META)), field("spec", "", "", || Shape::Struct(&SPEC))],
};
static META: StructSchema = StructSchema {
    name: "ObjectMeta",
    fields: &[
        field("name", "", "", scalar),
        field("labels", "", "", || Shape::Map(scalar)),
        field("finalizers", "merge", "", scalars),
    ],
};
static SPEC: StructSchema = StructSchema {
    name: "PodSpec",
    fields: &[field("containers", "merge", "name", || Shape::List(|| Shape::Struct(&CONTAINER)))],
};
static CONTAINER: StructSchema = StructSchema {
    name: "Container",
    fields: &[
        field("name", "", "", scalar),
        field("image", "", "", scalar),
        field("args", "", "", scalars),
        field("env", "merge", "name", || Shape::List(|| Shape::Struct(&ITEM))),
        field("ports", "merge", "containerPort", || Shape::List(|| Shape::Map(scalar))),
    ],
};

/// A recursive derived type for the typed layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The merge key of the lists of nodes: always written (the derive
    /// refuses a merge key that serde may leave out).
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[patch(strategy = "retainKeys")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

/// A union-like struct whose unlisted keys `$retainKeys` clears.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Node>,
}
