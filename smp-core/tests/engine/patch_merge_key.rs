//! The `$patchMergeKey` directive and recommended merge keys (opt-in): the
//! examples of the multi-field merge key proposal as tests, round trips on
//! the lists a single merge key corrupts, and a round-trip property.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Value, json};
use smp_core::{
    ApplyOptions, DiffOptions, OpenApi, ThreeWayOptions, apply, apply_with, check, diff, diff_checked, diff_with,
    three_way,
};

/// `list` is merged by `foo` (the default key), with recommended keys
/// `foo,bar,baz`; `replaced` has no strategy; `ports` is keyed by `port`
/// with recommended `port,protocol`; `env` by `name` alone.
fn api() -> OpenApi {
    OpenApi::from_value(json!({"openapi": "3.0.0", "components": {"schemas": {
        "root": {"properties": {
            "list": {"type": "array", "items": {"$ref": "#/components/schemas/item"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "foo",
                "x-smp-recommended-patch-merge-key": "foo,bar,baz"},
            "replaced": {"type": "array", "items": {"$ref": "#/components/schemas/item"},
                "x-smp-recommended-patch-merge-key": "foo,bar"},
            "ports": {"type": "array", "items": {"$ref": "#/components/schemas/port"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "port",
                "x-smp-recommended-patch-merge-key": "port,protocol"},
            "env": {"type": "array", "items": {"$ref": "#/components/schemas/env"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}
        }},
        "item": {"properties": {"foo": {"type": "string"}, "bar": {"type": "string"}, "baz": {"type": "string"},
            "other": {"type": "string"},
            "nested": {"type": "array", "items": {"$ref": "#/components/schemas/item"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "foo"}}},
        "port": {"properties": {"port": {"type": "integer"}, "protocol": {"type": "string"},
            "name": {"type": "string"}, "targetPort": {"type": "integer"}}},
        "env": {"properties": {"name": {"type": "string"}, "value": {"type": "string"}}}
    }}}))
    .unwrap()
}

const ON: ApplyOptions = ApplyOptions { patch_merge_key: true, strict: false };
const DIFF_ON: DiffOptions = DiffOptions {
    set_element_order: true,
    patch_merge_key: true,
    ignore_changes_and_additions: false,
    ignore_deletions: false,
};

fn apply_on(live: &Value, patch: &Value) -> smp_core::Result<Value> {
    let api = api();
    apply_with(live, patch, api.definition("root").unwrap(), ON)
}

// ---------------------------------------------------------------------------
// The proposal's examples (apply)

#[test]
fn client_sends_the_directive_and_it_never_reaches_the_result() {
    let live = json!({"list": [{"foo": "a", "bar": "x"}, {"foo": "b"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "x", "other": "val"}]});
    let out = apply_on(&live, &patch).unwrap();
    assert_eq!(out, json!({"list": [{"foo": "a", "bar": "x", "other": "val"}, {"foo": "b"}]}));
}

#[test]
fn a_listed_key_absent_from_the_patch_must_be_absent_in_the_match() {
    let live = json!({"list": [{"foo": "a"}, {"foo": "a", "bar": "x"}]});
    let first = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "other": "val"}]});
    assert_eq!(
        apply_on(&live, &first).unwrap(),
        json!({"list": [{"foo": "a", "other": "val"}, {"foo": "a", "bar": "x"}]})
    );
    let second = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "x", "other": "val"}]});
    assert_eq!(
        apply_on(&live, &second).unwrap(),
        json!({"list": [{"foo": "a"}, {"foo": "a", "bar": "x", "other": "val"}]})
    );
}

#[test]
fn without_the_directive_the_default_key_merges() {
    let live = json!({"list": [{"foo": "a", "bar": "y"}]});
    let patch = json!({"list": [{"foo": "a", "bar": "x", "other": "val"}]});
    let want = json!({"list": [{"foo": "a", "bar": "x", "other": "val"}]});
    assert_eq!(apply_on(&live, &patch).unwrap(), want);
    // Exactly the reference's merge.
    let api = api();
    assert_eq!(apply(&live, &patch, api.definition("root").unwrap()).unwrap(), want);
}

#[test]
fn partial_keys_must_match_exactly_one_element() {
    let live = json!({"list": [
        {"foo": "a", "other": "0"},
        {"foo": "b", "bar": "x", "other": "1"},
        {"foo": "b", "bar": "x", "other": "2"}
    ]});
    let valid = json!({"list": [{"$patchMergeKey": ["foo"], "foo": "a", "other": "3"}]});
    assert_eq!(
        apply_on(&live, &valid).unwrap(),
        json!({"list": [
            {"foo": "a", "other": "3"},
            {"foo": "b", "bar": "x", "other": "1"},
            {"foo": "b", "bar": "x", "other": "2"}
        ]})
    );
    let invalid = json!({"list": [{"$patchMergeKey": ["foo"], "foo": "b", "other": "3"}]});
    let e = apply_on(&live, &invalid).unwrap_err();
    assert_eq!(
        e.to_string(),
        "list[foo=b]: foo=b matches 2 elements of the list; name more key fields in $patchMergeKey to tell them apart"
    );
}

#[test]
fn all_keys_identify_one_element() {
    let live = json!({"list": [{"foo": "b", "bar": "x", "other": "1"}, {"foo": "b", "bar": "y", "other": "2"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "b", "bar": "y", "other": "3"}]});
    assert_eq!(
        apply_on(&live, &patch).unwrap(),
        json!({"list": [{"foo": "b", "bar": "x", "other": "1"}, {"foo": "b", "bar": "y", "other": "3"}]})
    );
}

#[test]
fn adding_an_unlisted_key_field_is_an_update() {
    let live = json!({"list": [{"foo": "a", "bar": "x"}, {"foo": "a", "bar": "y"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "x", "baz": "m"}]});
    assert_eq!(
        apply_on(&live, &patch).unwrap(),
        json!({"list": [{"foo": "a", "bar": "x", "baz": "m"}, {"foo": "a", "bar": "y"}]})
    );
}

#[test]
fn a_listed_key_cannot_be_nulled_in_place() {
    // The proposal's "delete a field" example identifies the element by
    // values the patch no longer carries; smp refuses it and says how.
    let live = json!({"list": [{"foo": "a", "bar": "x"}, {"foo": "a", "bar": "y"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": null}]});
    let e = apply_on(&live, &patch).unwrap_err().to_string();
    assert!(e.contains("invalid $patchMergeKey: key field \"bar\" is null"), "{e}");
    // The way to do it: delete the element, create it without the field.
    let patch = json!({"list": [
        {"$patchMergeKey": ["foo", "bar"], "$patch": "delete", "foo": "a", "bar": "x"},
        {"$patchMergeKey": ["foo", "bar"], "foo": "a"}
    ]});
    // The new element goes before the live one the patch does not name,
    // where the reference puts a new element.
    assert_eq!(apply_on(&live, &patch).unwrap(), json!({"list": [{"foo": "a"}, {"foo": "a", "bar": "y"}]}));
}

#[test]
fn changing_a_listed_key_is_a_delete_and_a_create() {
    let live = json!({"list": [{"foo": "a", "bar": "x", "other": "val"}]});
    let patch = json!({"list": [
        {"$patchMergeKey": ["foo", "bar"], "$patch": "delete", "foo": "a", "bar": "x"},
        {"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "y"}
    ]});
    assert_eq!(apply_on(&live, &patch).unwrap(), json!({"list": [{"foo": "a", "bar": "y"}]}));
}

#[test]
fn changing_an_unlisted_key_field_is_an_update() {
    let live = json!({"list": [{"foo": "a", "bar": "x", "other": "val"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo"], "foo": "a", "bar": "y"}]});
    assert_eq!(apply_on(&live, &patch).unwrap(), json!({"list": [{"foo": "a", "bar": "y", "other": "val"}]}));
}

#[test]
fn the_directive_turns_a_replaced_list_into_a_merged_one() {
    let live = json!({"replaced": [{"foo": "a", "bar": "x", "other": "1"}, {"foo": "a", "bar": "y"}]});
    let patch = json!({"replaced": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "y", "other": "2"}]});
    assert_eq!(
        apply_on(&live, &patch).unwrap(),
        json!({"replaced": [{"foo": "a", "bar": "x", "other": "1"}, {"foo": "a", "bar": "y", "other": "2"}]})
    );
    // Without it the list is replaced, as the reference does.
    let plain = json!({"replaced": [{"foo": "a", "bar": "y"}]});
    assert_eq!(apply_on(&live, &plain).unwrap(), plain);
    // A list without a merge key needs the directive on every element.
    let mixed = json!({"replaced": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "x"}, {"foo": "b"}]});
    let e = apply_on(&live, &mixed).unwrap_err().to_string();
    assert!(e.contains("every element needs $patchMergeKey"), "{e}");
}

#[test]
fn set_element_order_entries_carry_the_listed_keys() {
    let live = json!({"ports": [
        {"port": 53, "protocol": "TCP", "name": "t"},
        {"port": 53, "protocol": "UDP", "name": "u"},
        {"port": 80, "protocol": "TCP"}
    ]});
    let keys = json!(["port", "protocol"]);
    let patch = json!({
        "$setElementOrder/ports": [
            {"$patchMergeKey": keys, "port": 80, "protocol": "TCP"},
            {"$patchMergeKey": keys, "port": 53, "protocol": "UDP"},
            {"$patchMergeKey": keys, "port": 53, "protocol": "TCP"}
        ],
        "ports": [{"$patchMergeKey": keys, "port": 53, "protocol": "UDP", "name": "dns"}]
    });
    assert_eq!(
        apply_on(&live, &patch).unwrap(),
        json!({"ports": [
            {"port": 80, "protocol": "TCP"},
            {"port": 53, "protocol": "UDP", "name": "dns"},
            {"port": 53, "protocol": "TCP", "name": "t"}
        ]})
    );
    // An entry that names two elements is refused.
    let ambiguous = json!({"$setElementOrder/ports": [{"$patchMergeKey": ["port"], "port": 53}]});
    let e = apply_on(&live, &ambiguous).unwrap_err().to_string();
    assert!(e.contains("port=53 matches 2 elements"), "{e}");
}

#[test]
fn deletion_by_directive_removes_exactly_one_element() {
    let live = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}, {"name": "B"}]});
    let api = api();
    let schema = api.definition("root").unwrap();
    // The reference deletes every element named A.
    let plain = json!({"env": [{"name": "A", "$patch": "delete"}]});
    assert_eq!(apply(&live, &plain, schema).unwrap(), json!({"env": [{"name": "B"}]}));
    // With the directive the key must name one element.
    let by_name = json!({"env": [{"$patchMergeKey": ["name"], "name": "A", "$patch": "delete"}]});
    assert!(apply_on(&live, &by_name).unwrap_err().to_string().contains("name=A matches 2 elements"));
    let exact = json!({"env": [{"$patchMergeKey": ["name", "value"], "name": "A", "value": "2", "$patch": "delete"}]});
    assert_eq!(apply_on(&live, &exact).unwrap(), json!({"env": [{"name": "A", "value": "1"}, {"name": "B"}]}));
}

#[test]
fn the_directive_is_removed_from_new_and_nested_elements() {
    let live = json!({"list": [{"foo": "a"}]});
    let patch = json!({
        "list": [
            {"$patchMergeKey": ["foo"], "foo": "b", "nested": [{"$patchMergeKey": ["foo"], "foo": "n"}]},
            {"$patchMergeKey": ["foo"], "foo": "a", "nested": [{"$patchMergeKey": ["foo"], "foo": "m"}]}
        ],
        "replaced": [{"$patchMergeKey": ["foo"], "foo": "new"}]
    });
    let out = apply_on(&live, &patch).unwrap();
    assert_eq!(
        out,
        json!({"list": [{"foo": "b", "nested": [{"foo": "n"}]}, {"foo": "a", "nested": [{"foo": "m"}]}],
            "replaced": [{"foo": "new"}]})
    );
    assert!(!out.to_string().contains("$patchMergeKey"));
}

#[test]
fn bad_directives_are_errors_with_paths() {
    let live = json!({"list": [{"foo": "a"}]});
    for (directive, why) in [
        (json!("foo"), "expected a list of field names"),
        (json!([]), "expected at least one field name"),
        (json!(["foo", "foo"]), "\"foo\" is listed twice"),
        (json!([1]), "expected a list of field names"),
    ] {
        let patch = json!({"list": [{"$patchMergeKey": directive, "foo": "a"}]});
        let e = apply_on(&live, &patch).unwrap_err();
        assert!(e.to_string().starts_with("list[0]: invalid $patchMergeKey: "), "{e}");
        assert!(e.to_string().contains(why), "{e}");
    }
}

#[test]
fn off_by_default_the_directive_is_plain_data() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = json!({"list": [{"foo": "a", "bar": "x"}, {"foo": "a", "bar": "y"}]});
    let patch = json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "y", "other": "1"}]});
    // The reference merges by foo into the first element and keeps the key.
    let out = apply(&live, &patch, schema).unwrap();
    assert_eq!(
        out,
        json!({"list": [{"$patchMergeKey": ["foo", "bar"], "foo": "a", "bar": "y", "other": "1"}, {"foo": "a", "bar": "y"}]})
    );
    assert_eq!(apply_with(&live, &patch, schema, ApplyOptions::default()).unwrap(), out);
    // And diff emits no directive.
    let desired = json!({"list": [{"foo": "a", "bar": "x"}, {"foo": "a", "bar": "z"}]});
    assert!(!diff(&live, &desired, schema).unwrap().to_string().contains("$patchMergeKey"));
}

// ---------------------------------------------------------------------------
// Diff and three-way

fn service(ports: Value) -> Value {
    json!({"ports": ports})
}

#[test]
fn renaming_the_udp_port_of_53_touches_only_udp() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = service(
        json!([{"port": 53, "protocol": "TCP", "name": "dns-tcp"}, {"port": 53, "protocol": "UDP", "name": "dns"}]),
    );
    let desired = service(
        json!([{"port": 53, "protocol": "TCP", "name": "dns-tcp"}, {"port": 53, "protocol": "UDP", "name": "dns-udp"}]),
    );
    // The reference's patch renames the TCP port.
    let reference = diff(&live, &desired, schema).unwrap();
    assert_ne!(apply(&live, &reference, schema).unwrap(), desired);
    let e = diff_checked(&live, &desired, schema, DiffOptions { set_element_order: true, ..Default::default() })
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "the patch would not give the desired object: the result differs at ports[0].name; \
             ports: elements 0, 1 have the same merge key port=53"
        ),
        "{e}"
    );

    let patch = diff_with(&live, &desired, schema, DIFF_ON).unwrap();
    let keys = json!(["port", "protocol"]);
    assert_eq!(
        patch,
        json!({
            "$setElementOrder/ports": [
                {"$patchMergeKey": keys, "port": 53, "protocol": "TCP"},
                {"$patchMergeKey": keys, "port": 53, "protocol": "UDP"}
            ],
            "ports": [{"$patchMergeKey": keys, "port": 53, "protocol": "UDP", "name": "dns-udp"}]
        })
    );
    assert_eq!(apply_with(&live, &patch, schema, ON).unwrap(), desired);
    assert_eq!(diff_checked(&live, &desired, schema, DIFF_ON).unwrap(), patch);
}

#[test]
fn adding_udp_beside_tcp_keeps_both() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = service(json!([{"port": 53, "protocol": "TCP"}]));
    let desired = service(json!([{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]));
    let reference = diff(&live, &desired, schema).unwrap();
    assert_ne!(apply(&live, &reference, schema).unwrap(), desired, "the reference loses the UDP port");
    let patch = diff_with(&live, &desired, schema, DIFF_ON).unwrap();
    assert_eq!(apply_with(&live, &patch, schema, ON).unwrap(), desired);
    // Removing it again deletes UDP only.
    let back = diff_with(&desired, &live, schema, DIFF_ON).unwrap();
    assert_eq!(apply_with(&desired, &back, schema, ON).unwrap(), live);
}

#[test]
fn env_vars_with_one_name_round_trip() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]});
    let desired = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "3"}]});
    let reference = diff(&live, &desired, schema).unwrap();
    assert_ne!(apply(&live, &reference, schema).unwrap(), desired);
    let patch = diff_with(&live, &desired, schema, DIFF_ON).unwrap();
    // No key tells them apart: the list is sent whole.
    assert_eq!(patch["env"][0], json!({"$patch": "replace", "$patchMergeKey": ["name"]}));
    assert_eq!(apply_with(&live, &patch, schema, ON).unwrap(), desired);
    // Lists without duplicates keep the reference's patch.
    let unique = json!({"env": [{"name": "A", "value": "1"}]});
    let changed = json!({"env": [{"name": "A", "value": "2"}]});
    assert_eq!(diff_with(&unique, &changed, schema, DIFF_ON).unwrap(), diff(&unique, &changed, schema).unwrap());
}

#[test]
fn three_way_on_ports_with_one_number() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let options = ThreeWayOptions { patch_merge_key: true, ..Default::default() };
    let last =
        service(json!([{"port": 53, "protocol": "TCP", "name": "a"}, {"port": 53, "protocol": "UDP", "name": "b"}]));
    let desired =
        service(json!([{"port": 53, "protocol": "TCP", "name": "a"}, {"port": 53, "protocol": "UDP", "name": "c"}]));
    // The server added a port nobody applied; it is kept.
    let mut live = last.clone();
    live["ports"].as_array_mut().unwrap().push(json!({"port": 53, "protocol": "SCTP"}));
    let patch = three_way(&last, &desired, &live, schema, options).unwrap();
    let mut want = desired.clone();
    want["ports"].as_array_mut().unwrap().push(json!({"port": 53, "protocol": "SCTP"}));
    assert_eq!(apply_with(&live, &patch, schema, ON).unwrap(), want);

    // Removing the UDP port from the desired configuration deletes it alone.
    let fewer = service(json!([{"port": 53, "protocol": "TCP", "name": "a"}]));
    let patch = three_way(&last, &fewer, &last, schema, options).unwrap();
    assert_eq!(apply_with(&last, &patch, schema, ON).unwrap(), fewer);

    // A live change to the same element conflicts; to another one does not.
    let mut changed = last.clone();
    changed["ports"][1]["name"] = json!("server");
    let e = three_way(&last, &desired, &changed, schema, options).unwrap_err();
    assert!(e.is_conflict(), "{e}");
    let mut other = last.clone();
    other["ports"][0]["targetPort"] = json!(5353);
    let patch = three_way(&last, &desired, &other, schema, options).unwrap();
    let mut want = desired.clone();
    want["ports"][0]["targetPort"] = json!(5353);
    assert_eq!(apply_with(&other, &patch, schema, ON).unwrap(), want);
}

#[test]
fn check_reports_duplicate_keys_with_paths() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let doc = json!({
        "ports": [{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
        "env": [{"name": "A"}, {"name": "B"}, {"name": "A"}],
        "list": [{"foo": "x", "nested": [{"foo": "n"}, {"foo": "n"}]}]
    });
    let found: Vec<String> = check(&doc, schema).unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            "env: elements 0, 2 have the same merge key name=A; strategic merge patch treats them as one element",
            "list[foo=x].nested: elements 0, 1 have the same merge key foo=n; strategic merge patch treats them as one element",
            "ports: elements 0, 1, 2 have the same merge key port=53; strategic merge patch treats them as one element",
            "ports: elements 0, 2 have the same recommended merge keys port=53,protocol=TCP",
        ]
    );
    let unique = json!({"ports": [{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]});
    let found: Vec<String> = check(&unique, schema).unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        ["ports: elements 0, 1 have the same merge key port=53; strategic merge patch treats them as one element \
          (the recommended merge keys port,protocol tell them apart: use $patchMergeKey)"]
    );
    assert!(check(&json!({"ports": [{"port": 53}, {"port": 54}]}), schema).unwrap().is_empty());
}

// ---------------------------------------------------------------------------
// The round-trip property

/// A port list: port numbers from a small pool so that they repeat, a
/// protocol that may be absent, and a payload.
fn ports() -> impl Strategy<Value = Vec<Value>> {
    let element = (0..3u8, prop::option::of(prop::sample::select(vec!["TCP", "UDP"])), prop::option::of(0..3u8));
    prop::collection::vec(element, 0..6).prop_map(|elements| {
        let mut seen = std::collections::HashSet::new();
        elements
            .into_iter()
            .filter(|(port, protocol, _)| seen.insert((*port, *protocol)))
            .map(|(port, protocol, name)| {
                let mut e = serde_json::Map::new();
                e.insert("port".into(), json!(port));
                if let Some(p) = protocol {
                    e.insert("protocol".into(), json!(p));
                }
                if let Some(n) = name {
                    e.insert("name".into(), json!(format!("n{n}")));
                }
                Value::Object(e)
            })
            .collect()
    })
}

/// An env list whose names repeat.
fn env() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec((0..3u8, 0..3u8), 0..5)
        .prop_map(|e| e.into_iter().map(|(n, v)| json!({"name": format!("N{n}"), "value": format!("{v}")})).collect())
}

#[test]
fn with_the_option_diff_then_apply_gives_the_desired_lists() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let config = Config { cases: 1024, rng_seed: RngSeed::Fixed(11), failure_persistence: None, ..Config::default() };
    let doc = || (ports(), env()).prop_map(|(p, e)| json!({"ports": p, "env": e}));
    let mut runner = TestRunner::new(config);
    runner
        .run(&(doc(), doc(), doc()), |(a, b, c)| {
            let patch = diff_with(&a, &b, schema, DIFF_ON).unwrap();
            prop_assert_eq!(&apply_with(&a, &patch, schema, ON).unwrap(), &b, "two-way patch {}", patch);
            // Three-way from a last-applied `c` to `b` on a live `a`:
            // `b`'s lists come out whole when the live object is `c`.
            let options = ThreeWayOptions { patch_merge_key: true, overwrite: true, ..Default::default() };
            let patch = three_way(&c, &b, &c, schema, options).unwrap();
            prop_assert_eq!(&apply_with(&c, &patch, schema, ON).unwrap(), &b, "three-way patch {}", patch);
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------
// Typed values: `merge_key = "port,protocol"` and `WithOptions`

mod typed {
    use super::*;
    use serde::{Deserialize, Serialize};
    use smp_core::{StrategicMerge, WithOptions};

    /// A key field's declared default: absent reads as `None`.
    fn unset() -> Option<String> {
        None
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    struct Port {
        port: u16,
        #[serde(default = "unset", skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    struct Spec {
        #[patch(strategy = "merge", merge_key = "port,protocol")]
        ports: Vec<Port>,
    }

    fn spec() -> impl Strategy<Value = Spec> {
        ports()
            .prop_map(|ports| Spec { ports: ports.into_iter().map(|p| serde_json::from_value(p).unwrap()).collect() })
    }

    #[test]
    fn typed_values_round_trip_with_repeated_ports() {
        let config =
            Config { cases: 512, rng_seed: RngSeed::Fixed(12), failure_persistence: None, ..Config::default() };
        TestRunner::new(config)
            .run(&(spec(), spec()), |(a, b)| {
                let patch = a.diff_with(&b, DIFF_ON).unwrap();
                prop_assert_eq!(&a.apply_with(&patch, ON).unwrap(), &b, "patch {}", patch);
                // The reference's own diff agrees with it wherever ports are unique.
                let unique = |s: &Spec| {
                    let mut seen = std::collections::HashSet::new();
                    s.ports.iter().all(|p| seen.insert(p.port))
                };
                if unique(&a) && unique(&b) && a.check().unwrap().is_empty() {
                    prop_assert_eq!(&a.apply(&a.diff(&b).unwrap()).unwrap(), &b);
                }
                Ok(())
            })
            .unwrap();
    }
}
