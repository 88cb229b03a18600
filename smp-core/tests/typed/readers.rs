//! Derived structs are read from JSON as serde_derive reads them: a struct
//! whose serde form the table's reader follows (no aliases, no skipped or
//! `with` fields, unknown keys ignored) is read field by field through its
//! table, not by serde's code for `serde_json::Value`, and written so too.
//! The fixture below is read whole and with every node changed in each of
//! the ways of `common/readers.rs` (objects, lists read by position, too
//! short and too long, nulls, wrong types, missing keys with and without
//! defaults), and each result compared with serde's.

#[path = "../common/readers.rs"]
mod common;

use serde::{Deserialize, Serialize};
use serde_json::json;
use smp_core::StrategicMerge;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Port {
    name: String,
    #[serde(default)]
    port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase", default)]
struct Limits {
    max_items: u32,
    ratio: f64,
    tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Single {
    only: u8,
}

fn one() -> i32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct AppSpec {
    app_name: String,
    #[serde(default = "one")]
    replicas: i32,
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default)]
    ports: Vec<Port>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limits: Option<Limits>,
    labels: BTreeMap<String, String>,
    #[serde(rename = "enabled?")]
    enabled: bool,
    nested: Box<Port>,
    single: Single,
    maybe: Option<Single>,
}

#[test]
fn derived_structs_are_read_and_written_as_serde_does() {
    let fixture = json!({
        "appName": "web",
        "replicas": 3,
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}, {"name": "admin", "port": 9000}],
        "limits": {"maxItems": 10, "ratio": 0.5, "tags": ["a", "b"]},
        "labels": {"app": "web"},
        "enabled?": true,
        "nested": {"name": "n", "port": 1},
        "single": {"only": 7},
        "maybe": [8],
        "extra": {"ignored": true}
    });
    let [read, refused] = common::compare_all::<AppSpec>(fixture);
    assert!(read > 50 && refused > 200, "{read} inputs read and {refused} refused");
}

#[test]
fn a_struct_written_as_a_list_is_read_by_position() {
    for v in [
        json!(["web", 2, [], null, {}, false, ["n", 1, null], [1], null]),
        json!(["web", 2, [], null, {}, false, ["n"], [1], null]),
        json!(["web"]),
        json!(["web", 2, [], null, {}, false, ["n"], [1], null, "one too many"]),
        json!(["web", 2, [], null, {}, false, ["n", 1, null], {"only": 1}]),
    ] {
        common::compare::<AppSpec>(&v).unwrap();
    }
    // Read by both; refused by both (an `Option` without a default needs
    // its element, and a list may not be longer than the fields).
    let read = json!(["web", 2, [], null, {}, false, ["n", 1, null], [1], null]);
    assert_eq!(common::compare::<AppSpec>(&read), Ok(true));
    let too_long = json!(["web", 2, [], null, {}, false, ["n", 1, null], [1, 2], null]);
    for refused in [json!(["web"]), json!(["web", 2, [], null, {}, false, ["n"], [1], null]), too_long] {
        assert_eq!(common::compare::<AppSpec>(&refused), Ok(false), "{refused}");
    }
}
