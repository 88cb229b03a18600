//! Shared input format and schemas of the fuzz targets.
//!
//! An input is a selector byte followed by UTF-8 text holding one JSON
//! document per line; the selector picks the schema and the options. The
//! seed corpus (`seeds.py`) writes the project's fixtures in this form.

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
        let docs: Vec<Value> = text.lines().take(n).map(|l| smp_core::decode(l.as_bytes()).ok()).collect::<Option<_>>()?;
        (docs.len() == n).then_some(Input { selector, docs })
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

const fn field(name: &'static str, strategy: &'static str, merge_key: &'static str, shape: fn() -> Shape) -> FieldSchema {
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
    fields: &[
        field("metadata", "", "", || Shape::Struct(&META)),
        field("spec", "", "", || Shape::Struct(&SPEC)),
    ],
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
