//! `$patchMergeKey` changes identity only: a list keyed by several fields
//! and patched with the directive gives what the reference gives for the
//! same list keyed by one field whose value joins them (the default
//! engine, itself checked against kubectl, on the joined form): the same
//! elements, merged the same way, in the same order (new elements,
//! server-only elements, `$setElementOrder`), errors where it errs.
//!
//! `SMP_PMK_ORDER_CASES` sets the number of cases (default 1024).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Map, Value, json};
use smp_core::{ApplyOptions, OpenApi, apply, apply_with};

/// `ports` is merged by `port` with recommended keys `port,protocol`;
/// `joined` holds the same elements merged by `id`, the two joined.
fn api() -> OpenApi {
    OpenApi::from_value(json!({"openapi": "3.0.0", "components": {"schemas": {
        "root": {"properties": {
            "ports": {"type": "array", "items": {"$ref": "#/components/schemas/port"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "port",
                "x-smp-recommended-patch-merge-key": "port,protocol"},
            "joined": {"type": "array", "items": {"$ref": "#/components/schemas/port"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "id"}
        }},
        "port": {"properties": {"port": {"type": "integer"}, "protocol": {"type": "string"},
            "id": {"type": "string"}, "name": {"type": "string"}, "extra": {"type": "string"}}}
    }}}))
    .unwrap()
}

const ON: ApplyOptions = ApplyOptions { patch_merge_key: true, strict: false };
const KEYS: [&str; 2] = ["port", "protocol"];

/// An element's identity: a port and a protocol that may be absent.
type Id = (u8, Option<&'static str>);

fn id() -> impl Strategy<Value = Id> {
    (0..4u8, prop::option::weighted(0.8, prop::sample::select(vec!["TCP", "UDP"])))
}

/// The element `{port, protocol?}` with the other members given.
fn element(id: Id, rest: &[(&str, Value)]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("port".into(), json!(id.0));
    if let Some(p) = id.1 {
        m.insert("protocol".into(), json!(p));
    }
    for (k, v) in rest {
        m.insert(k.to_string(), v.clone());
    }
    m
}

/// The joined key of an identity.
fn joined(id: Id) -> String {
    format!("{}/{}", id.0, id.1.unwrap_or("-"))
}

/// One patch element: a change (or a new element), a deletion, or (rarely)
/// a `$patch: replace` marker.
#[derive(Clone, Debug)]
enum Op {
    Set(Id, Option<u8>, bool),
    Delete(Id),
    Replace,
}

/// A case: the live list (distinct identities), the patch, and the order
/// entries (identities; `with_directive` says whether each carries it).
#[derive(Clone, Debug)]
struct Case {
    live: Vec<(Id, u8)>,
    patch: Option<Vec<Op>>,
    order: Option<Vec<Id>>,
    with_directive: bool,
}

fn case() -> impl Strategy<Value = Case> {
    let live = prop::collection::vec((id(), 0..3u8), 0..7).prop_map(|l| {
        let mut seen = std::collections::HashSet::new();
        l.into_iter().filter(|(i, _)| seen.insert(*i)).collect::<Vec<_>>()
    });
    let op = prop_oneof![
        8 => (id(), prop::option::of(0..3u8), any::<bool>()).prop_map(|(i, n, x)| Op::Set(i, n, x)),
        3 => id().prop_map(Op::Delete),
        1 => Just(Op::Replace),
    ];
    let patch = prop::option::weighted(0.9, prop::collection::vec(op, 0..5));
    let order = prop::option::weighted(0.5, prop::collection::vec(id(), 0..8));
    (live, patch, order, any::<bool>()).prop_map(|(live, patch, order, with_directive)| {
        // Order entries usually name the live and patched elements, each once.
        let order = order.map(|extra| {
            let mut ids: Vec<Id> = live.iter().map(|(i, _)| *i).collect();
            ids.extend(extra);
            let mut seen = std::collections::HashSet::new();
            ids.retain(|i| seen.insert(*i));
            ids
        });
        Case { live, patch, order, with_directive }
    })
}

/// The case as a document: with the directive on the multi-field list,
/// or on the joined list with its one key.
fn documents(c: &Case, join: bool) -> (Value, Value) {
    let list = if join { "joined" } else { "ports" };
    let keyed = |id: Id, rest: &[(&str, Value)], directive: bool| {
        let mut m = element(id, rest);
        if join {
            m.insert("id".into(), json!(joined(id)));
        } else if directive {
            m.insert("$patchMergeKey".into(), json!(KEYS));
        }
        Value::Object(m)
    };
    let live: Vec<Value> =
        c.live.iter().map(|&(i, n)| keyed(i, &[("name", json!(format!("live{n}")))], false)).collect();
    let mut patch = Map::new();
    if let Some(ops) = &c.patch {
        let elements: Vec<Value> = ops
            .iter()
            .map(|op| match op {
                Op::Set(i, n, x) => {
                    let mut rest = vec![];
                    if let Some(n) = n {
                        rest.push(("name", json!(format!("new{n}"))));
                    }
                    if *x {
                        rest.push(("extra", json!("x")));
                    }
                    keyed(*i, &rest, true)
                }
                Op::Delete(i) => keyed(*i, &[("$patch", json!("delete"))], true),
                Op::Replace => json!({"$patch": "replace"}),
            })
            .collect();
        patch.insert(list.into(), Value::Array(elements));
    }
    if let Some(order) = &c.order {
        let entries = order.iter().map(|&i| keyed(i, &[], c.with_directive)).collect();
        patch.insert(format!("$setElementOrder/{list}"), Value::Array(entries));
    }
    (json!({ list: live }), Value::Object(patch))
}

/// Whether the patch replaces the list with elements named twice.
fn replaces_with_repeats(c: &Case) -> bool {
    let Some(ops) = &c.patch else { return false };
    let mut seen = std::collections::HashSet::new();
    ops.iter().any(|op| matches!(op, Op::Replace))
        && ops.iter().any(|op| matches!(op, Op::Set(i, _, _) if !seen.insert(*i)))
}

/// The joined result with the joined key removed, under the other name.
fn unjoin(v: Value) -> Value {
    let mut list = v.get("joined").cloned().unwrap_or(Value::Null);
    if let Value::Array(a) = &mut list {
        for e in a {
            if let Value::Object(m) = e {
                m.remove("id");
            }
        }
    }
    if list.is_null() { json!({}) } else { json!({ "ports": list }) }
}

#[test]
fn multi_field_keys_order_as_the_reference_orders_a_joined_key() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let cases = std::env::var("SMP_PMK_ORDER_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(1024);
    let config = Config { cases, rng_seed: RngSeed::Fixed(29), failure_persistence: None, ..Config::default() };
    let (agreed, both_failed) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    TestRunner::new(config)
        .run(&case(), |c| {
            let (live, patch) = documents(&c, false);
            let (live_j, patch_j) = documents(&c, true);
            if !patch.to_string().contains("$patchMergeKey") {
                // Without the directive the list is merged by `port`, as
                // the reference merges it.
                return Ok(());
            }
            if replaces_with_repeats(&c) {
                // A `$patch: replace` list is taken as it is, each element
                // on its own (the diff sends a list whose elements the keys
                // cannot tell apart so): not a list told apart by its keys.
                return Ok(());
            }
            let ours = apply_with(&live, &patch, schema, ON);
            let reference = apply(&live_j, &patch_j, schema).map(unjoin);
            match (ours, reference) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(&a, &b, "patch {} on {}\njoined: {} on {}", patch, live, patch_j, live_j);
                    agreed.set(agreed.get() + 1);
                }
                (Err(_), Err(_)) => both_failed.set(both_failed.get() + 1),
                (a, b) => prop_assert!(false, "patch {patch} on {live}: {a:?}\njoined: {patch_j} on {live_j}: {b:?}"),
            }
            Ok(())
        })
        .unwrap();
    let (agreed, both_failed) = (agreed.get(), both_failed.get());
    eprintln!("{agreed} cases agree, {both_failed} fail on both sides");
    assert!(agreed > both_failed, "most cases must apply");
}

/// The examples of the brief, spelt out: a new element goes before the
/// live elements the patch does not name (as the reference puts it), and
/// order entries that carry the listed keys without the directive are
/// matched by all of them.
#[test]
fn new_elements_and_order_entries_as_the_reference() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = json!({"ports": [{"port": 53, "protocol": "TCP"}, {"port": 80, "protocol": "TCP"}]});
    let patch = json!({"ports": [
        {"$patchMergeKey": KEYS, "port": 53, "protocol": "TCP", "name": "dns-tcp"},
        {"$patchMergeKey": KEYS, "port": 53, "protocol": "UDP", "name": "dns"}
    ]});
    // The reference: live [a, b] and patch [a', c] give [a', c, b].
    assert_eq!(
        apply_with(&live, &patch, schema, ON).unwrap(),
        json!({"ports": [
            {"port": 53, "protocol": "TCP", "name": "dns-tcp"},
            {"port": 53, "protocol": "UDP", "name": "dns"},
            {"port": 80, "protocol": "TCP"}
        ]})
    );
    let patch = json!({
        "$setElementOrder/ports": [{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
        "ports": [{"$patchMergeKey": KEYS, "port": 53, "protocol": "UDP"}]
    });
    let live = json!({"ports": [{"port": 53, "protocol": "TCP"}]});
    assert_eq!(
        apply_with(&live, &patch, schema, ON).unwrap(),
        json!({"ports": [{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]})
    );
}

// ---------------------------------------------------------------------------
// Linear on hostile directives: a directive's field list is indexed once
// per list patch, an element's identity is never larger than the element,
// and a list patch matches by at most a few field lists.

fn many_ports(n: usize) -> Value {
    let list: Vec<Value> = (0..n).map(|i| json!({"port": i, "protocol": "TCP"})).collect();
    json!({ "ports": list })
}

/// One directive naming 8,000 fields, against 20,000 elements: the
/// identity of each element holds its own two fields, not 8,000 (which
/// took minutes and gigabytes).
#[test]
fn a_directive_naming_thousands_of_fields_costs_the_size_of_the_elements() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let mut names: Vec<String> = vec!["port".into(), "protocol".into()];
    names.extend((0..8_000).map(|i| format!("f{i}")));
    let patch = json!({"ports": [{"$patchMergeKey": names, "port": 7, "protocol": "TCP", "name": "seven"}]});
    let out = apply_with(&many_ports(20_000), &patch, schema, ON).unwrap();
    let ports = out["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 20_000);
    assert_eq!(ports[7], json!({"port": 7, "protocol": "TCP", "name": "seven"}));
}

/// Every distinct field list indexes the whole live list, so a list patch
/// may use only a few: 2,000 elements with distinct directives (which took
/// seconds and a gigabyte) are refused at the first one too many, with
/// its path; in `$setElementOrder` entries too.
#[test]
fn distinct_field_lists_are_bounded() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let live = many_ports(2_000);
    let directive = |i: usize| json!(["port", format!("x{i}")]);
    let elements: Vec<Value> = (0..2_000).map(|i| json!({"$patchMergeKey": directive(i), "port": i})).collect();
    let e = apply_with(&live, &json!({ "ports": elements }), schema, ON).unwrap_err().to_string();
    assert!(e.starts_with("ports[port=8,x8=<absent>]: invalid $patchMergeKey: "), "{e}");
    assert!(e.contains("at most 8 different field lists"), "{e}");
    let order: Vec<Value> = (0..2_000).map(|i| json!({"$patchMergeKey": directive(i), "port": i})).collect();
    let e = apply_with(&live, &json!({ "$setElementOrder/ports": order }), schema, ON).unwrap_err().to_string();
    assert!(e.contains("at most 8 different field lists"), "{e}");
    // Eight are fine.
    let elements: Vec<Value> = (0..8).map(|i| json!({"$patchMergeKey": directive(i), "port": 5_000 + i})).collect();
    let out = apply_with(&live, &json!({ "ports": elements }), schema, ON).unwrap();
    assert_eq!(out["ports"].as_array().unwrap().len(), 2_008);
}

// ---------------------------------------------------------------------------
// Diff: with the option on, the patch of a list whose elements the listed
// keys tell apart is the reference's patch of the joined list, each joined
// key written as the fields it joins (and the directive on list elements).

/// A list: its elements' identities (distinct) and names.
type List = Vec<(Id, u8)>;

/// A diff case: the live and desired lists.
fn diff_case() -> impl Strategy<Value = (List, List)> {
    let list = || {
        prop::collection::vec((id(), 0..3u8), 0..7).prop_map(|l| {
            let mut seen = std::collections::HashSet::new();
            l.into_iter().filter(|(i, _)| seen.insert(*i)).collect::<Vec<_>>()
        })
    };
    (list(), list())
}

fn list_document(list: &[(Id, u8)], join: bool) -> Value {
    let name = if join { "joined" } else { "ports" };
    let elements: Vec<Value> = list
        .iter()
        .map(|&(i, n)| {
            let mut m = element(i, &[("name", json!(format!("n{n}")))]);
            if join {
                m.insert("id".into(), json!(joined(i)));
            }
            Value::Object(m)
        })
        .collect();
    json!({ name: elements })
}

/// The joined patch written as the multi-field one: `id` becomes the
/// fields it joins, list elements and order entries carry the directive
/// (an order entry needs it when the patch has no element that does).
fn split_patch(patch: Value) -> Value {
    let split = |e: &Value, directive: bool| -> Value {
        let Value::Object(m) = e else { return e.clone() };
        let mut out = Map::new();
        for (k, v) in m {
            if k == "id" {
                let text = v.as_str().unwrap();
                let (port, protocol) = text.split_once('/').unwrap();
                if directive {
                    out.insert("$patchMergeKey".into(), json!(KEYS));
                }
                out.insert("port".into(), json!(port.parse::<u8>().unwrap()));
                if protocol != "-" {
                    out.insert("protocol".into(), json!(protocol));
                }
            } else if k != "port" && k != "protocol" {
                out.insert(k.clone(), v.clone());
            }
        }
        Value::Object(out)
    };
    let Value::Object(m) = patch else { return patch };
    let mut out = Map::new();
    for (k, v) in m {
        match (k.as_str(), &v) {
            ("joined", Value::Array(a)) => {
                out.insert("ports".into(), Value::Array(a.iter().map(|e| split(e, true)).collect()));
            }
            ("$setElementOrder/joined", Value::Array(a)) => {
                out.insert("$setElementOrder/ports".into(), Value::Array(a.iter().map(|e| split(e, true)).collect()));
            }
            _ => {
                out.insert(k, v);
            }
        }
    }
    Value::Object(out)
}

#[test]
fn multi_field_diffs_are_the_reference_diff_of_a_joined_key() {
    let api = api();
    let schema = api.definition("root").unwrap();
    let cases = std::env::var("SMP_PMK_ORDER_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(1024);
    let config = Config { cases, rng_seed: RngSeed::Fixed(29), failure_persistence: None, ..Config::default() };
    let options = smp_core::DiffOptions { set_element_order: true, patch_merge_key: true, ..Default::default() };
    TestRunner::new(config)
        .run(&diff_case(), |(live, desired)| {
            let ours =
                smp_core::diff_with(&list_document(&live, false), &list_document(&desired, false), schema, options)
                    .unwrap();
            let back = apply_with(&list_document(&live, false), &ours, schema, ON).unwrap();
            prop_assert_eq!(&back, &list_document(&desired, false), "the patch {} does not apply back", ours);
            let reference =
                smp_core::diff(&list_document(&live, true), &list_document(&desired, true), schema).unwrap();
            let reference = split_patch(reference);
            prop_assert_eq!(
                &ours,
                &reference,
                "live {} desired {}",
                list_document(&live, false),
                list_document(&desired, false)
            );
            Ok(())
        })
        .unwrap();
}
