//! The schema the reference's own test vectors run against (the Go test type
//! `MergeItem` and its neighbours), as static smp schema tables.

use crate::schema_tables::{field, scalar, scalars, string_map};
use smp_core::schema::{MergeKey, Strategy};
use smp_core::{FieldSchema, Schema, Shape, StructSchema};

fn merge_item() -> Shape {
    Shape::Struct(&MERGE_ITEM)
}
fn merge_items() -> Shape {
    Shape::List(merge_item)
}

pub static MERGE_ITEM: StructSchema = StructSchema {
    name: "MergeItem",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("other", "", "", scalar),
        field("mergingList", "merge", "name", merge_items),
        field("nonMergingList", "", "", merge_items),
        field("mergingIntList", "merge", "", scalars),
        field("nonMergingIntList", "", "", scalars),
        FieldSchema {
            name: "mergeItemPtr",
            strategy: Strategy::MERGE,
            merge_key: Some(MergeKey::One("name")),
            pointer: true,
            flatten: false,
            shape: merge_item,
            key_eq: false,
        },
        field("simpleMap", "", "", string_map),
        field("replacingItem", "replace", "", || Shape::Struct(&RAW_EXTENSION)),
        field("jsonItem", "", "", || Shape::Struct(&JSON_ITEM)),
        field("retainKeysMap", "retainKeys", "", || Shape::Struct(&RETAIN_KEYS_MERGE_ITEM)),
        field("retainKeysMergingList", "merge,retainKeys", "name", merge_items),
    ],
};

pub static RETAIN_KEYS_MERGE_ITEM: StructSchema = StructSchema {
    name: "RetainKeysMergeItem",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("other", "", "", scalar),
        field("simpleMap", "", "", string_map),
        field("mergingIntList", "merge", "", scalars),
        field("mergingList", "merge", "name", merge_items),
        field("nonMergingList", "", "", merge_items),
    ],
};

/// `runtime.RawExtension`: no JSON fields of its own.
pub static RAW_EXTENSION: StructSchema = StructSchema { name: "RawExtension", fields: &[] };

/// An anonymous struct with one untagged field `Raw`.
pub static JSON_ITEM: StructSchema = StructSchema { name: "", fields: &[field("Raw", "", "", scalar)] };

pub static PRECISION_ITEM: StructSchema = StructSchema {
    name: "PrecisionItem",
    fields: &[
        field("name", "", "", scalar),
        field("int32", "", "", scalar),
        field("int64", "", "", scalar),
        field("float32", "", "", scalar),
        field("float64", "", "", scalar),
    ],
};

/// The schema of a vector, by the name the vectors use.
pub fn by_name(name: &str) -> Schema<'static> {
    match name {
        "precisionItem" => Schema::of_struct(&PRECISION_ITEM),
        _ => Schema::of_struct(&MERGE_ITEM),
    }
}
