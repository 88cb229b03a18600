//! Sets, maps with integer keys, shared pointers and scalar types of other
//! crates, typed: every operation gives what the JSON engine gives on the
//! serialised values, with each set's list in the reference's order of
//! scalars (sorted by `%v` text), and patches round-trip.

use proptest::collection::{btree_map, btree_set, hash_map, hash_set, vec};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::net::IpAddr;
use std::rc::Rc;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Doc {
    /// A set of scalars merges without any attribute.
    tags: BTreeSet<String>,
    /// Numbers: the reference orders them by text (`10` before `9`).
    #[patch(strategy = "merge")]
    ids: HashSet<i32>,
    /// Replaced whole, as the attribute asks.
    #[patch(strategy = "replace")]
    plain: BTreeSet<u8>,
    ports: BTreeMap<u16, String>,
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    items: HashMap<i64, String>,
    shared: Arc<Item>,
    counted: Rc<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<IpAddr>,
    #[patch(scalar)]
    size: Quantity,
    #[patch(json)]
    #[serde(default)]
    extra: Opaque,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<u8>,
}

/// A type of another crate, serialised as a string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Quantity(String);

/// A type of another crate, serialised as an object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Opaque(BTreeMap<String, u8>);

fn schema() -> Schema<'static> {
    Schema::Static(Doc::shape())
}

/// The JSON the typed layer stands for: sets in the reference's order.
fn json_of(doc: &Doc) -> Value {
    let mut v = serde_json::to_value(doc).unwrap();
    for set in ["tags", "ids", "plain"] {
        if let Some(Value::Array(items)) = v.get_mut(set) {
            items.sort_by_key(smp_core::unstable::fmt_v);
        }
    }
    v
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(String::from)
}

fn item() -> impl Strategy<Value = Item> {
    (name(), prop::option::of(0u8..3)).prop_map(|(name, weight)| Item { name, weight })
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        btree_set(name(), 0..4),
        hash_set(prop::sample::select(vec![1, 2, 9, 10, 100, -3]), 0..5),
        btree_set(0u8..12, 0..3),
        btree_map(prop::sample::select(vec![80u16, 443, 8080]), name(), 0..3),
        hash_map(prop::sample::select(vec![-1i64, 7, 10]), name(), 0..3),
        item(),
        vec(name(), 0..3),
        prop::option::of(prop::sample::select(vec!["10.0.0.1", "::1", "192.168.1.9"])),
        prop::sample::select(vec!["1Gi", "512Mi"]),
        btree_map(name(), 0u8..3, 0..3),
    )
        .prop_map(|(tags, ids, plain, ports, items, shared, counted, address, size, extra)| Doc {
            tags,
            ids,
            plain,
            ports,
            items,
            shared: Arc::new(shared),
            counted: Rc::new(counted),
            address: address.map(|a| a.parse().unwrap()),
            size: Quantity(size.into()),
            extra: Opaque(extra),
        })
}

/// The engine's result read back as a `Doc` (an error if it does not read).
fn engine_apply(live: &Doc, patch: &Value) -> Result<Doc, String> {
    let merged = smp_core::apply(&json_of(live), patch, schema()).map_err(|e| e.to_string())?;
    serde_json::from_value(merged).map_err(|e| e.to_string())
}

proptest! {
    #[test]
    fn the_typed_diff_is_the_engines_and_applies_back(a in doc(), b in doc()) {
        let patch = a.diff(&b).map_err(|e| e.to_string());
        let engine = smp_core::diff(&json_of(&a), &json_of(&b), schema()).map_err(|e| e.to_string());
        prop_assert_eq!(&patch, &engine);
        let patch = patch.unwrap();
        prop_assert_eq!(a.apply(&patch).unwrap(), b.clone());
        let mut in_place = a.clone();
        in_place.apply_in_place(&patch).unwrap();
        prop_assert_eq!(in_place, b);
    }

    #[test]
    fn no_patch_exactly_when_the_patch_changes_nothing(a in doc(), b in doc()) {
        let unchanged = a.apply(&a.diff(&b).unwrap()).unwrap() == a;
        prop_assert_eq!(a.diff_if_changed(&b).unwrap().is_none(), unchanged);
        prop_assert_eq!(a.diff_if_changed(&a).unwrap(), None);
    }

    #[test]
    fn the_typed_apply_is_the_engines(a in doc(), b in doc(), c in doc()) {
        // Patches made for another object: sets get additions, deletions
        // and orders that do not match what they hold.
        let patch = smp_core::diff(&json_of(&b), &json_of(&c), schema());
        prop_assume!(patch.is_ok());
        let patch = patch.unwrap();
        prop_assert_eq!(a.apply(&patch).map_err(|e| e.to_string()), engine_apply(&a, &patch));
    }

    #[test]
    fn the_typed_three_way_is_the_engines(last in doc(), desired in doc(), live in doc(), overwrite: bool) {
        let options = ThreeWayOptions { overwrite, ..Default::default() };
        let typed = live.three_way(&last, &desired, options).map_err(|e| e.to_string());
        let engine = smp_core::three_way(&json_of(&last), &json_of(&desired), &json_of(&live), schema(), options)
            .map_err(|e| e.to_string());
        prop_assert_eq!(&typed, &engine);
        if let (Ok(patch), true) = (typed, overwrite) {
            // With overwrite, what the desired object adds to a set is there.
            let result = live.apply(&patch).unwrap();
            prop_assert!(result.tags.is_superset(&desired.tags));
        }
    }
}

fn sample() -> Doc {
    Doc {
        tags: BTreeSet::from(["a".into(), "b".into()]),
        ids: HashSet::from([9, 10]),
        plain: BTreeSet::from([1]),
        ports: BTreeMap::from([(80, "http".into())]),
        items: HashMap::new(),
        shared: Arc::new(Item { name: "s".into(), weight: None }),
        counted: Rc::new(vec!["x".into()]),
        address: None,
        size: Quantity("1Gi".into()),
        extra: Opaque::default(),
    }
}

#[test]
fn equal_sets_give_an_empty_patch_whatever_their_iteration_order() {
    let a = sample();
    let mut b = a.clone();
    // Another hasher state: another iteration order, the same set.
    b.ids = [10, 9].into_iter().collect();
    assert_eq!(a.diff(&b).unwrap(), json!({}));
    // The JSON side has the reference's order: "10" sorts before "9".
    assert_eq!(json_of(&a)["ids"], json!([10, 9]));
}

#[test]
fn a_merged_set_changes_single_elements_and_keeps_what_others_added() {
    let live = sample();
    let mut desired = live.clone();
    desired.tags.remove("a");
    desired.tags.insert("c".into());
    desired.ids.insert(100);
    let patch = live.diff(&desired).unwrap();
    assert_eq!(
        patch,
        json!({
            "$deleteFromPrimitiveList/tags": ["a"],
            "$setElementOrder/ids": [10, 100, 9],
            "$setElementOrder/tags": ["b", "c"],
            "ids": [100],
            "tags": ["c"]
        })
    );
    let mut elsewhere = live.clone();
    elsewhere.tags.insert("z".into());
    let result = elsewhere.apply(&patch).unwrap();
    assert_eq!(result.tags, BTreeSet::from(["b".into(), "c".into(), "z".into()]));
}

#[test]
fn a_set_with_the_replace_strategy_is_replaced_whole() {
    let live = sample();
    let mut desired = live.clone();
    desired.plain.insert(2);
    assert_eq!(live.diff(&desired).unwrap(), json!({"plain": [1, 2]}));
}

/// Sets behind `Option` and shared pointers, and sets of elements that are
/// not scalars.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Wrapped {
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<HashSet<u16>>,
    #[allow(clippy::box_collection)]
    boxed: Box<BTreeSet<char>>,
    shared: Arc<BTreeSet<String>>,
    /// Objects as elements: not a set of scalars, replaced whole.
    objects: BTreeSet<Point>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, StrategicMerge)]
struct Point {
    x: u8,
}

#[test]
fn sets_of_scalars_merge_by_default_in_the_schema_and_the_typed_layer() {
    let smp_core::schema::Shape::Struct(fields) = Wrapped::shape() else { panic!("a struct") };
    let merged: Vec<(&str, bool)> = fields.fields.iter().map(|f| (f.name, f.strategy.merge)).collect();
    assert_eq!(merged, [("maybe", true), ("boxed", true), ("shared", true), ("objects", false)]);

    let live = Wrapped {
        maybe: Some(HashSet::from([80, 443])),
        boxed: Box::new(BTreeSet::from(['a'])),
        shared: Arc::new(BTreeSet::from(["x".into()])),
        objects: BTreeSet::from([Point { x: 1 }]),
    };
    let mut desired = live.clone();
    desired.maybe.as_mut().unwrap().remove(&80);
    Arc::make_mut(&mut desired.shared).insert("y".into());
    desired.objects.insert(Point { x: 2 });
    let patch = live.diff(&desired).unwrap();
    assert_eq!(
        patch,
        json!({
            "$deleteFromPrimitiveList/maybe": [80],
            "$setElementOrder/maybe": [443],
            "$setElementOrder/shared": ["x", "y"],
            "shared": ["y"],
            "objects": [{"x": 1}, {"x": 2}]
        })
    );
    let as_json = |w: &Wrapped| {
        let mut v = serde_json::to_value(w).unwrap();
        if let Some(Value::Array(items)) = v.get_mut("maybe") {
            items.sort_by_key(smp_core::unstable::fmt_v);
        }
        v
    };
    let schema = Schema::Static(Wrapped::shape());
    assert_eq!(smp_core::diff(&as_json(&live), &as_json(&desired), schema).unwrap(), patch);
    assert_eq!(live.apply(&patch).unwrap(), desired);
}

#[test]
fn integer_keys_are_json_object_keys() {
    let live = sample();
    let mut desired = live.clone();
    desired.ports.insert(443, "https".into());
    desired.ports.remove(&80);
    desired.items.insert(7, "seven".into());
    let patch = live.diff(&desired).unwrap();
    assert_eq!(patch, json!({"ports": {"443": "https", "80": null}, "items": {"7": "seven"}}));
    assert_eq!(live.apply(&patch).unwrap(), desired);
    let err = live.apply(&json!({"ports": {"http": "x"}})).unwrap_err();
    assert!(err.to_string().contains("ports"), "{err}");
}

#[test]
fn a_shared_value_is_copied_on_write() {
    let live = sample();
    let other_holder = Arc::clone(&live.shared);
    let patched = live.apply(&json!({"shared": {"weight": 2}, "counted": ["y"]})).unwrap();
    assert_eq!(patched.shared.weight, Some(2));
    assert_eq!(*patched.counted, vec!["y".to_string()]);
    assert_eq!(other_holder.weight, None, "the other holder's value is untouched");
}

#[test]
fn foreign_scalars_are_replaced_and_a_value_that_does_not_parse_is_an_error_at_its_field() {
    let live = sample();
    let patched = live.apply(&json!({"address": "10.1.2.3", "size": "2Gi", "extra": {"k": 1}})).unwrap();
    assert_eq!(patched.address, Some("10.1.2.3".parse().unwrap()));
    assert_eq!(patched.size, Quantity("2Gi".into()));
    assert_eq!(patched.extra.0, BTreeMap::from([("k".into(), 1)]));
    assert_eq!(live.diff(&patched).unwrap(), json!({"address": "10.1.2.3", "size": "2Gi", "extra": {"k": 1}}));

    let err = live.apply(&json!({"address": "not-an-address"})).unwrap_err();
    assert!(err.to_string().starts_with("address:"), "{err}");
}

#[cfg(all(feature = "url", feature = "chrono", feature = "jiff"))]
mod features {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    struct Endpoint {
        url: url::Url,
        #[patch(strategy = "merge")]
        mirrors: BTreeSet<url::Url>,
        created: chrono::DateTime<chrono::Utc>,
        day: chrono::NaiveDate,
        seen: jiff::Timestamp,
        timeout: jiff::SignedDuration,
    }

    fn endpoint(url: &str, created: &str, seen: &str) -> Endpoint {
        serde_json::from_value(json!({
            "url": url, "mirrors": ["https://m1.example.com/"], "created": created, "day": "2026-11-24",
            "seen": seen, "timeout": "PT5S"
        }))
        .unwrap()
    }

    #[test]
    fn url_chrono_and_jiff_values_are_scalars() {
        let live = endpoint("https://a.example.com/", "2026-11-24T07:00:00Z", "2026-11-24T07:00:00Z");
        let mut desired = endpoint("https://b.example.com/x", "2026-11-24T08:00:00Z", "2026-11-24T09:30:00Z");
        desired.mirrors.insert("https://m2.example.com/".parse().unwrap());
        let patch = live.diff(&desired).unwrap();
        let json = |e: &Endpoint| serde_json::to_value(e).unwrap();
        assert_eq!(patch, smp_core::diff(&json(&live), &json(&desired), Schema::Static(Endpoint::shape())).unwrap());
        assert_eq!(patch["url"], "https://b.example.com/x");
        assert_eq!(patch["mirrors"], json!(["https://m2.example.com/"]));
        assert_eq!(live.apply(&patch).unwrap(), desired);

        let err = live.apply(&json!({"seen": "yesterday"})).unwrap_err();
        assert!(err.to_string().starts_with("seen:"), "{err}");
    }
}
