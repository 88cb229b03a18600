//! A third part of the zoo (`zoo_serde.rs`, `zoo_spec_shapes.rs`): serde
//! attributes and field types the other two leave out, against the same
//! oracle (`oracle.rs`): every typed operation equals the JSON engine on
//! the serialised values with the type's schema.
//!
//! Each type exercises: names serde writes and reads differently
//! (`rename(serialize, deserialize)`, `rename_all(serialize,
//! deserialize)`), merge keys read under an `alias`; `rename_all_fields` of
//! enums and `#[serde(other)]` unit variants as merge keys; keyed lists,
//! `retainKeys` unions and sets inside the values of maps; maps of
//! optional structs, of sets and with integer keys holding structs; keyed
//! lists of boxed elements; keyed list elements with container defaults,
//! with fields left out when zero, with unit, tuple and marker fields, and
//! keyed by floats and by transparent integers; sets holding duplicates
//! and non-ASCII text; `serialize_with` alone beside patch strategies;
//! `deny_unknown_fields` on a struct holding keyed lists and maps; a
//! generic struct with a `bound`; JSON names that are Rust keywords, hold
//! `/` and `~` or are empty; defaults from functions on options, keyed
//! lists and sets; sets and maps keyed by a unit enum; optional maps and
//! `serde_json::Map`, under `retainKeys` too; a `Duration` merged as JSON;
//! a defaulted struct removed by `null`; recursion through the values of
//! maps, keyed lists and an untagged enum; an operator's resource with
//! conditions keyed by an enum, ports keyed by number and protocol, and
//! environment variables whose sources are an enum.
//!
//! Cases per property: `PROPTEST_CASES`, else 64 (the test must stay
//! fast in CI).

use super::oracle as zoo;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::StrategicMerge;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use zoo::*;

// ---------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

fn item(name: &str, value: Option<&str>) -> Item {
    Item { name: name.into(), value: value.map(String::from) }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------
// Names serde writes and reads differently
// ---------------------------------------------------------------------------

/// Fields whose written name is not the name serde reads: a patch that
/// names the written key leaves the value serde reads back at its
/// default, and one that names the read key adds a key serde then reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Asymmetric {
    name: String,
    #[serde(rename(serialize = "outCount", deserialize = "inCount"), default)]
    count: u32,
    #[serde(rename(serialize = "outItems", deserialize = "inItems"), default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
    #[serde(rename(serialize = "label"), default)]
    label_text: String,
}

impl Zoo for Asymmetric {
    fn patches() -> Vec<Value> {
        vec![
            json!({"outCount": 3}),
            json!({"inCount": 3}),
            json!({"outItems": [{"name": "a", "value": "v"}]}),
            json!({"inItems": [{"name": "a"}]}),
            json!({"label": "x"}),
            json!({"label_text": "x"}),
            json!({"$retainKeys": ["name"]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        // Only defaults round trip through JSON: the written names are
        // never read.
        vec![
            Asymmetric { name: "a".into(), count: 0, items: vec![], label_text: String::new() },
            Asymmetric { name: "b".into(), count: 0, items: vec![], label_text: String::new() },
        ]
    }
}

/// `rename_all` with different case styles for writing and reading: the
/// two-word fields do not round trip, the one-word ones do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
struct AsymmetricAll {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
    #[serde(default)]
    max_count: u32,
    #[serde(default)]
    #[patch(strategy = "merge")]
    extra_tags: Vec<String>,
}

impl Zoo for AsymmetricAll {
    fn patches() -> Vec<Value> {
        vec![
            json!({"maxCount": 2}),
            json!({"max_count": 2}),
            json!({"extraTags": ["a"]}),
            json!({"extra_tags": ["a"], "$deleteFromPrimitiveList/extra_tags": ["b"]}),
            json!({"items": [{"name": "z"}]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            AsymmetricAll { name: "a".into(), items: vec![item("a", None)], max_count: 0, extra_tags: vec![] },
            AsymmetricAll {
                name: "b".into(),
                items: vec![item("b", Some("x")), item("a", Some("y"))],
                max_count: 0,
                extra_tags: vec![],
            },
            AsymmetricAll { name: "a".into(), items: vec![], max_count: 0, extra_tags: vec![] },
        ]
    }
}

/// A keyed list element whose merge key serde also reads under an alias:
/// a patch element naming the alias has no merge key for the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Aliased {
    #[serde(alias = "id")]
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "val")]
    value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct AliasedKeys {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Aliased>,
    #[serde(default, alias = "others")]
    #[patch(strategy = "merge", merge_key = "name")]
    more: Vec<Aliased>,
}

fn aliased(name: &str, value: Option<&str>) -> Aliased {
    Aliased { name: name.into(), value: value.map(String::from) }
}

impl Zoo for AliasedKeys {
    fn patches() -> Vec<Value> {
        vec![
            json!({"items": [{"id": "a", "value": "x"}]}),
            json!({"items": [{"name": "a", "val": "x"}]}),
            json!({"items": [{"name": "a", "id": "b"}]}),
            json!({"others": [{"name": "c"}]}),
            json!({"others": [{"name": "c"}], "more": [{"name": "d"}]}),
            json!({"$setElementOrder/items": [{"id": "a"}], "items": [{"id": "a"}]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            AliasedKeys { items: vec![aliased("a", None), aliased("b", Some("v"))], more: vec![aliased("c", None)] },
            AliasedKeys { items: vec![aliased("b", Some("w"))], more: vec![] },
            AliasedKeys { items: vec![], more: vec![aliased("d", Some("v")), aliased("c", None)] },
        ]
    }
}

// ---------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------

/// A unit enum with an unknown variant read as `Unknown`. Its variants are
/// in the order of their names: the typed layer writes a set in the
/// reference's order of scalars, and serde a `BTreeSet` in `Ord`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "kebab-case")]
enum Phase {
    InProgress,
    Pending,
    #[serde(other)]
    Unknown,
}

/// A keyed list element keyed by [`Phase`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct ByPhase {
    phase: Phase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// An internally tagged enum whose struct variants' fields are renamed by
/// `rename_all_fields`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(tag = "type", rename_all = "PascalCase", rename_all_fields = "camelCase")]
enum Update {
    Rolling { max_surge: u32, max_unavailable: Option<u32> },
    Recreate { grace_seconds: u32, extra_items: Vec<Item> },
}

/// An externally tagged enum with `rename_all_fields`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all_fields = "SCREAMING_SNAKE_CASE")]
enum Backend {
    Disk { size_gb: u32, mount_path: String },
    Bucket { bucket_name: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct EnumShapes {
    phase: Phase,
    #[serde(default)]
    #[patch(strategy = "merge")]
    phases: Vec<Phase>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "phase")]
    by_phase: Vec<ByPhase>,
    update: Update,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    backend: Option<Backend>,
    #[serde(default)]
    backends: BTreeMap<String, Backend>,
}

impl Zoo for EnumShapes {
    fn patches() -> Vec<Value> {
        vec![
            json!({"phase": "done"}),
            json!({"phases": ["done", "pending"]}),
            json!({"by_phase": [{"phase": "archived", "note": "n"}]}),
            json!({"by_phase": [{"phase": "pending", "$patch": "delete"}, {"phase": "weird"}]}),
            json!({"update": {"type": "Recreate", "graceSeconds": 3, "extraItems": []}}),
            json!({"update": {"maxSurge": 4}}),
            json!({"backend": {"Bucket": {"BUCKET_NAME": "b"}}}),
            // A struct variant written as a list, which serde reads from text.
            json!({"backend": {"Bucket": ["a"]}}),
            json!({"backend": {"Disk": {"SIZE_GB": 2}}}),
            json!({"backends": {"x": {"Disk": {"MOUNT_PATH": "/y"}}}}),
        ]
    }

    fn seeds() -> Vec<Self> {
        let disk = |size_gb, path: &str| Backend::Disk { size_gb, mount_path: path.into() };
        vec![
            EnumShapes {
                phase: Phase::Pending,
                phases: vec![Phase::Pending, Phase::InProgress],
                by_phase: vec![
                    ByPhase { phase: Phase::Pending, note: None },
                    ByPhase { phase: Phase::InProgress, note: Some("a".into()) },
                ],
                update: Update::Rolling { max_surge: 1, max_unavailable: None },
                backend: Some(disk(1, "/a")),
                backends: BTreeMap::from([("x".into(), disk(1, "/x"))]),
            },
            EnumShapes {
                phase: Phase::InProgress,
                phases: vec![Phase::InProgress],
                by_phase: vec![ByPhase { phase: Phase::InProgress, note: Some("b".into()) }],
                update: Update::Recreate { grace_seconds: 5, extra_items: vec![item("a", None)] },
                backend: Some(Backend::Bucket { bucket_name: "b".into() }),
                backends: BTreeMap::from([
                    ("x".into(), Backend::Bucket { bucket_name: "b".into() }),
                    ("y".into(), disk(2, "/y")),
                ]),
            },
            EnumShapes {
                phase: Phase::Pending,
                phases: vec![],
                by_phase: vec![],
                update: Update::Rolling { max_surge: 2, max_unavailable: Some(1) },
                backend: None,
                backends: BTreeMap::new(),
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Patch metadata inside the values of maps
// ---------------------------------------------------------------------------

/// A union, patched with `retainKeys`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    host_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim: Option<Item>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge")]
    options: Vec<String>,
}

/// A volume: a keyed list element holding a union.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Volume {
    name: String,
    #[patch(strategy = "retainKeys")]
    source: Source,
}

/// A pool of volumes, the value of a map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Pool {
    #[serde(default)]
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    volumes: Vec<VolumeUnion>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    mounts: Vec<Volume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    default_source: Option<Source>,
}

/// A volume whose sources sit beside its name (`volumes` of a pod).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct VolumeUnion {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    host_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim: Option<Item>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct MapValues {
    #[serde(default)]
    pools: BTreeMap<String, Pool>,
    #[serde(default)]
    #[patch(strategy = "retainKeys")]
    retained_pools: HashMap<String, Pool>,
    #[serde(default)]
    optional: BTreeMap<String, Option<Item>>,
    #[serde(default)]
    sets: BTreeMap<String, BTreeSet<String>>,
    #[serde(default)]
    by_number: BTreeMap<i64, Item>,
    #[serde(default)]
    by_unsigned: HashMap<u16, Vec<Item>>,
    #[serde(default)]
    #[patch(strategy = "replace")]
    replaced: BTreeMap<String, Pool>,
}

fn pool(volumes: &[(&str, Option<&str>, Option<&str>)], mounts: Vec<Volume>, default_path: Option<&str>) -> Pool {
    Pool {
        volumes: volumes
            .iter()
            .map(|(n, h, c)| VolumeUnion {
                name: (*n).into(),
                host_path: h.map(String::from),
                claim: c.map(|c| item(c, None)),
            })
            .collect(),
        mounts,
        default_source: default_path.map(|p| Source { host_path: Some(p.into()), claim: None, options: vec![] }),
    }
}

fn volume(name: &str, host_path: Option<&str>, claim: Option<&str>, options: &[&str]) -> Volume {
    Volume {
        name: name.into(),
        source: Source {
            host_path: host_path.map(String::from),
            claim: claim.map(|c| item(c, Some("v"))),
            options: strings(options),
        },
    }
}

impl Zoo for MapValues {
    fn patches() -> Vec<Value> {
        vec![
            json!({"pools": {"p": {"volumes": [{"name": "a", "claim": {"name": "c"}, "$retainKeys": ["name", "claim"]}]}}}),
            json!({"pools": {"p": {"mounts": [{"name": "m", "source": {"$retainKeys": ["claim"], "claim": {"name": "z"}}}]}}}),
            json!({"pools": {"p": {"default_source": {"$retainKeys": [], "options": ["x"]}}}}),
            json!({"retained_pools": {"$retainKeys": ["q"], "q": {"volumes": []}}}),
            json!({"optional": {"a": null, "b": {"name": "x"}}}),
            json!({"sets": {"a": ["z", "z"], "$deleteFromPrimitiveList/a": ["x"]}}),
            json!({"sets": {"$deleteFromPrimitiveList/a": ["x"]}}),
            json!({"by_number": {"-1": {"name": "n"}, "7": null}}),
            json!({"by_unsigned": {"65536": []}}),
            json!({"replaced": {"r": {"mounts": [{"name": "z", "source": {}}]}}}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            MapValues {
                pools: BTreeMap::from([(
                    "p".into(),
                    pool(
                        &[("a", Some("/a"), None), ("b", None, Some("c"))],
                        vec![volume("m", Some("/m"), None, &["ro", "a"])],
                        Some("/d"),
                    ),
                )]),
                retained_pools: HashMap::from([("q".into(), pool(&[("a", None, Some("c"))], vec![], None))]),
                optional: BTreeMap::from([("a".into(), Some(item("a", None))), ("b".into(), None)]),
                sets: BTreeMap::from([("a".into(), BTreeSet::from(["x".into(), "y".into()]))]),
                by_number: BTreeMap::from([(-1, item("n", None)), (7, item("s", Some("v")))]),
                by_unsigned: HashMap::from([(1, vec![item("a", None)])]),
                replaced: BTreeMap::from([("r".into(), pool(&[], vec![volume("z", None, Some("c"), &[])], None))]),
            },
            MapValues {
                pools: BTreeMap::from([
                    (
                        "p".into(),
                        pool(
                            &[("b", Some("/b"), None), ("a", None, Some("d"))],
                            vec![volume("m", None, Some("k"), &["rw"]), volume("n", None, None, &[])],
                            None,
                        ),
                    ),
                    ("q".into(), pool(&[], vec![], Some("/q"))),
                ]),
                retained_pools: HashMap::from([("q".into(), pool(&[("a", Some("/h"), None)], vec![], Some("/x")))]),
                optional: BTreeMap::from([("a".into(), None)]),
                sets: BTreeMap::from([
                    ("a".into(), BTreeSet::from(["y".into()])),
                    ("b".into(), BTreeSet::from(["é".into(), "e".into()])),
                ]),
                by_number: BTreeMap::from([(7, item("s", None))]),
                by_unsigned: HashMap::from([(1, vec![item("b", None), item("a", Some("v"))])]),
                replaced: BTreeMap::new(),
            },
            MapValues {
                pools: BTreeMap::new(),
                retained_pools: HashMap::new(),
                optional: BTreeMap::new(),
                sets: BTreeMap::new(),
                by_number: BTreeMap::new(),
                by_unsigned: HashMap::new(),
                replaced: BTreeMap::from([("r".into(), pool(&[("a", None, None)], vec![], Some("/r")))]),
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Keyed list elements
// ---------------------------------------------------------------------------

/// A keyed list element read with the container's defaults: a patch
/// element without its merge key is read with the default key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(default)]
struct Defaulted {
    name: String,
    #[serde(skip_serializing_if = "is_zero")]
    weight: u32,
    #[serde(skip_serializing_if = "String::is_empty")]
    note: String,
}

impl Default for Defaulted {
    fn default() -> Self {
        Defaulted { name: "default".into(), weight: 0, note: String::new() }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A keyed list element with fields that write `null`, a list and nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Marked {
    id: u32,
    unit: (),
    pair: (String, i8),
    marker: std::marker::PhantomData<Item>,
    #[serde(default)]
    empty: Empty,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Empty {}

/// A transparent integer, as a merge key.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct Port(u16);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct ByPort {
    port: Port,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct ByFloat {
    weight: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Elements {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    defaulted: Vec<Defaulted>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    marked: Vec<Marked>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    by_port: Vec<ByPort>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "weight")]
    by_float: Vec<ByFloat>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    /// As users write it for large elements.
    #[allow(clippy::vec_box)]
    boxed: Vec<Box<Item>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    shared: Option<Vec<std::rc::Rc<Item>>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    arc_list: std::sync::Arc<Vec<Item>>,
    #[serde(default)]
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    #[allow(clippy::vec_box)]
    boxed_unions: Vec<Box<VolumeUnion>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    boxed_source: Option<Box<Source>>,
}

fn defaulted(name: &str, weight: u32, note: &str) -> Defaulted {
    Defaulted { name: name.into(), weight, note: note.into() }
}

fn marked(id: u32, first: &str, second: i8) -> Marked {
    Marked { id, unit: (), pair: (first.into(), second), marker: std::marker::PhantomData, empty: Empty {} }
}

impl Zoo for Elements {
    fn patches() -> Vec<Value> {
        vec![
            json!({"defaulted": [{"weight": 3}]}),
            json!({"defaulted": [{"name": "a", "weight": null, "note": null}]}),
            json!({"marked": [{"id": 1, "unit": 1}]}),
            json!({"marked": [{"id": 1, "pair": ["x"]}]}),
            json!({"marked": [{"id": 1, "marker": {}, "empty": {"x": 1}}]}),
            json!({"by_port": [{"port": 80.0, "note": "n"}]}),
            json!({"by_port": [{"port": "80"}]}),
            json!({"by_float": [{"weight": 1, "note": "n"}]}),
            json!({"by_float": [{"weight": 0.5, "$patch": "delete"}]}),
            json!({"boxed": [{"name": "a", "$patch": "replace"}]}),
            json!({"shared": [{"name": "z"}], "$setElementOrder/shared": [{"name": "z"}, {"name": "a"}]}),
            json!({"arc_list": [{"name": "a", "$patch": "delete"}, {"name": "c"}]}),
            json!({"boxed_unions": [{"name": "a", "claim": {"name": "c"}, "$retainKeys": ["name", "claim"]}]}),
            json!({"boxed_source": {"$retainKeys": ["hostPath"], "hostPath": "/h"}}),
        ]
    }

    fn seeds() -> Vec<Self> {
        let rc = |n: &str, v: Option<&str>| std::rc::Rc::new(item(n, v));
        let union = |n: &str, h: Option<&str>, c: Option<&str>| {
            Box::new(VolumeUnion { name: n.into(), host_path: h.map(String::from), claim: c.map(|c| item(c, None)) })
        };
        let source = |h: Option<&str>, o: &[&str]| {
            Some(Box::new(Source { host_path: h.map(String::from), claim: None, options: strings(o) }))
        };
        vec![
            Elements {
                defaulted: vec![defaulted("a", 1, ""), defaulted("default", 0, "n")],
                marked: vec![marked(1, "a", -1), marked(2, "", 0)],
                by_port: vec![
                    ByPort { port: Port(80), note: None },
                    ByPort { port: Port(443), note: Some("s".into()) },
                ],
                by_float: vec![ByFloat { weight: 0.5, note: None }, ByFloat { weight: 1.0, note: Some("a".into()) }],
                boxed: vec![Box::new(item("a", Some("v"))), Box::new(item("b", None))],
                shared: Some(vec![rc("a", None)]),
                arc_list: std::sync::Arc::new(vec![item("a", None), item("b", Some("v"))]),
                boxed_unions: vec![union("a", Some("/a"), None), union("b", None, Some("c"))],
                boxed_source: source(Some("/s"), &["ro"]),
            },
            Elements {
                defaulted: vec![defaulted("a", 0, "x")],
                marked: vec![marked(2, "b", 127)],
                by_port: vec![ByPort { port: Port(443), note: None }],
                by_float: vec![ByFloat { weight: 1.0, note: None }, ByFloat { weight: -2.25, note: None }],
                boxed: vec![Box::new(item("b", Some("w")))],
                shared: Some(vec![rc("b", Some("x")), rc("a", Some("y"))]),
                arc_list: std::sync::Arc::new(vec![item("b", None)]),
                boxed_unions: vec![union("a", None, Some("d"))],
                boxed_source: source(None, &["rw", "ro"]),
            },
            Elements {
                defaulted: vec![],
                marked: vec![],
                by_port: vec![],
                by_float: vec![],
                boxed: vec![],
                shared: None,
                arc_list: Default::default(),
                boxed_unions: vec![],
                boxed_source: None,
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Sets and serialisers
// ---------------------------------------------------------------------------

mod as_strings {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(items: &[u32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(items.iter().map(|i| i.to_string()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        items.iter().map(|i| i.parse().map_err(serde::de::Error::custom)).collect()
    }
}

fn upper<S: serde::Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&text.to_uppercase())
}

/// Sets holding duplicates and text in several normal forms; free-form
/// JSON lists merged by name and as a set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Sets {
    #[serde(default)]
    #[patch(strategy = "merge")]
    texts: Vec<String>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    numbers: Vec<i64>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    floats: Vec<f64>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    optional: Option<Vec<String>>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    cows: Vec<std::borrow::Cow<'static, str>>,
    /// Free-form objects merged by name, as JSON.
    #[serde(default)]
    #[patch(json, strategy = "merge", merge_key = "name")]
    free: Vec<Value>,
    /// Free-form scalars merged as a set, as JSON.
    #[serde(default)]
    #[patch(json, strategy = "merge")]
    free_set: Vec<Value>,
}

impl Zoo for Sets {
    fn patches() -> Vec<Value> {
        vec![
            json!({"texts": ["é", "é", "e\u{301}"], "$deleteFromPrimitiveList/texts": ["a"]}),
            json!({"$setElementOrder/texts": ["b", "a", "a"], "texts": ["a"]}),
            json!({"numbers": [1, 1.0, 2], "$deleteFromPrimitiveList/numbers": [3]}),
            json!({"floats": [1, 1.0, -0.0, 0]}),
            json!({"optional": ["x"], "$deleteFromPrimitiveList/optional": ["y"]}),
            json!({"$deleteFromPrimitiveList/optional": ["x"]}),
            json!({"cows": ["\u{1F600}", "z"]}),
            json!({"free": [{"name": "a", "x": {"y": 1}}, {"name": "b", "$patch": "delete"}]}),
            json!({"free": [{"x": 1}]}),
            json!({"free_set": [1, "1", null], "$deleteFromPrimitiveList/free_set": [true]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            Sets {
                texts: strings(&["b", "a", "b", "é"]),
                numbers: vec![3, 1, 3],
                floats: vec![1.0, 0.5, 1.0],
                optional: Some(strings(&["x", "x"])),
                cows: vec!["ü".into(), "a".into()],
                free: vec![json!({"name": "a", "x": {"z": 2}}), json!({"name": "b"})],
                free_set: vec![json!(1), json!(true)],
            },
            Sets {
                texts: strings(&["e\u{301}", "é", "a"]),
                numbers: vec![2],
                floats: vec![-0.0, 0.0],
                optional: None,
                cows: vec![],
                free: vec![json!({"name": "b", "x": [1]})],
                free_set: vec![json!("a"), json!(1.5), json!(1)],
            },
            Sets {
                texts: vec![],
                numbers: vec![1, 2, 1, 3],
                floats: vec![],
                optional: Some(vec![]),
                cows: vec!["a".into(), "a".into(), "\u{1F600}".into()],
                free: vec![],
                free_set: vec![],
            },
        ]
    }
}

/// Fields written through functions beside fields walked one by one:
/// `serialize_with` alone (on a field that serde reads as it is), and a
/// module for a set of numbers written as strings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Serializers {
    #[serde(serialize_with = "upper")]
    name: String,
    #[serde(default, with = "as_strings")]
    #[patch(strategy = "merge")]
    ids: Vec<u32>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
}

impl Zoo for Serializers {
    fn patches() -> Vec<Value> {
        vec![
            json!({"name": "lower"}),
            json!({"ids": ["7"], "$deleteFromPrimitiveList/ids": ["1"]}),
            json!({"ids": [7]}),
            json!({"items": [{"name": "a", "value": "z"}]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            Serializers { name: "A".into(), ids: vec![1, 2], items: vec![item("a", None)] },
            Serializers { name: "B".into(), ids: vec![10, 1], items: vec![item("b", Some("v")), item("a", None)] },
            Serializers { name: "A".into(), ids: vec![], items: vec![] },
        ]
    }
}

// ---------------------------------------------------------------------------
// Strict and generic containers
// ---------------------------------------------------------------------------

/// A struct refusing unknown keys, holding keyed lists, maps and an
/// optional struct: a patch naming a key serde does not know fails on both
/// routes, however deep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StrictSpec {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<StrictItem>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    source: Option<StrictSource>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(deny_unknown_fields)]
struct StrictItem {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(deny_unknown_fields)]
struct StrictSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    disk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claim: Option<String>,
}

impl Zoo for StrictSpec {
    fn patches() -> Vec<Value> {
        vec![
            json!({"items": [{"name": "a", "other": 1}]}),
            json!({"items": [{"name": "a", "other": null}]}),
            json!({"source": {"other": "x"}}),
            json!({"source": {"$retainKeys": ["claim"], "claim": "c"}}),
            json!({"labels": {"x": null}, "other": null}),
            json!({"other": 1}),
            json!({"$patch": "replace", "name": "r"}),
        ]
    }

    fn seeds() -> Vec<Self> {
        let strict = |name: &str, value: Option<&str>| StrictItem { name: name.into(), value: value.map(String::from) };
        vec![
            StrictSpec {
                name: "a".into(),
                items: vec![strict("a", None), strict("b", Some("v"))],
                labels: BTreeMap::from([("x".into(), "1".into())]),
                source: Some(StrictSource { disk: Some("d".into()), claim: None }),
            },
            StrictSpec {
                name: "b".into(),
                items: vec![strict("b", None)],
                labels: BTreeMap::new(),
                source: Some(StrictSource { disk: None, claim: Some("c".into()) }),
            },
            StrictSpec { name: "a".into(), items: vec![], labels: BTreeMap::new(), source: None },
        ]
    }
}

/// A generic struct whose serde bounds are written by hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(bound(serialize = "T: Serialize", deserialize = "T: serde::de::DeserializeOwned"))]
struct Bounded<T> {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
    payload: Option<T>,
    #[serde(default)]
    by_name: BTreeMap<String, T>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Generic {
    items: Bounded<Item>,
    numbers: Bounded<Vec<u8>>,
}

impl Zoo for Generic {
    fn patches() -> Vec<Value> {
        vec![
            json!({"items": {"payload": {"name": "p"}, "by_name": {"a": {"value": "v"}}}}),
            json!({"numbers": {"payload": [1], "by_name": {"a": null}}}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            Generic {
                items: Bounded {
                    items: vec![item("a", None)],
                    payload: Some(item("p", Some("v"))),
                    by_name: BTreeMap::from([("a".into(), item("a", None))]),
                },
                numbers: Bounded { items: vec![], payload: Some(vec![1, 2]), by_name: BTreeMap::new() },
            },
            Generic {
                items: Bounded {
                    items: vec![item("b", None), item("a", Some("x"))],
                    payload: None,
                    by_name: BTreeMap::new(),
                },
                numbers: Bounded {
                    items: vec![item("a", None)],
                    payload: None,
                    by_name: BTreeMap::from([("a".into(), vec![3])]),
                },
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Names and defaults
// ---------------------------------------------------------------------------

/// A keyed list element whose merge key is a Rust keyword.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Typed {
    r#type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    r#ref: Option<String>,
}

/// JSON names that are Rust keywords, hold path separators or are empty,
/// beside defaults serde reads when the key is gone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Names {
    r#type: String,
    #[serde(rename = "self", default)]
    me: Option<String>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "type")]
    by_type: Vec<Typed>,
    #[serde(rename = "a/b", default)]
    #[patch(strategy = "merge", merge_key = "name")]
    slashed: Vec<Item>,
    #[serde(rename = "p~q/r", default)]
    #[patch(strategy = "merge")]
    slashed_set: Vec<String>,
    #[serde(rename = "", default)]
    empty: String,
    #[serde(default = "default_mode")]
    mode: Option<String>,
    #[serde(default = "default_items")]
    #[patch(strategy = "merge", merge_key = "name")]
    defaulted: Vec<Item>,
    #[serde(default = "default_tags")]
    #[patch(strategy = "merge")]
    tags: Vec<String>,
}

fn default_mode() -> Option<String> {
    Some("auto".into())
}

fn default_items() -> Vec<Item> {
    vec![item("default", Some("d"))]
}

fn default_tags() -> Vec<String> {
    strings(&["t"])
}

impl Zoo for Names {
    fn patches() -> Vec<Value> {
        vec![
            json!({"mode": null, "defaulted": null, "tags": null}),
            json!({"$retainKeys": ["type"]}),
            json!({"by_type": [{"type": "a", "ref": "r"}], "$setElementOrder/by_type": [{"type": "b"}, {"type": "a"}]}),
            json!({"a/b": [{"name": "z"}], "$setElementOrder/a/b": [{"name": "z"}]}),
            json!({"$deleteFromPrimitiveList/p~q/r": ["x"], "p~q/r": ["y"]}),
            json!({"": null, "self": null}),
            json!({"defaulted": [{"name": "default", "$patch": "delete"}]}),
            json!({"$deleteFromPrimitiveList/tags": ["t"]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        let typed = |t: &str, r: Option<&str>| Typed { r#type: t.into(), r#ref: r.map(String::from) };
        vec![
            Names {
                r#type: "a".into(),
                me: Some("m".into()),
                by_type: vec![typed("a", None), typed("b", Some("r"))],
                slashed: vec![item("a", None)],
                slashed_set: strings(&["x", "y"]),
                empty: "e".into(),
                mode: None,
                defaulted: vec![],
                tags: vec![],
            },
            Names {
                r#type: "b".into(),
                me: None,
                by_type: vec![typed("b", None)],
                slashed: vec![item("b", Some("v")), item("a", None)],
                slashed_set: vec![],
                empty: String::new(),
                mode: Some("manual".into()),
                defaulted: default_items(),
                tags: strings(&["t", "u"]),
            },
            Names {
                r#type: "a".into(),
                me: None,
                by_type: vec![],
                slashed: vec![],
                slashed_set: strings(&["y"]),
                empty: "e".into(),
                mode: Some("auto".into()),
                defaulted: vec![item("x", None)],
                tags: strings(&["u"]),
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Optional maps, enum keys, fixed sizes
// ---------------------------------------------------------------------------

/// Sets and maps keyed by a unit enum, optional maps, maps of lists replaced whole, a
/// keyed list behind `Option<Box<_>>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Containers {
    #[serde(default)]
    phase_set: BTreeSet<Phase>,
    #[serde(default)]
    by_phase: BTreeMap<Phase, Item>,
    #[serde(default)]
    #[patch(strategy = "retainKeys")]
    counts: HashMap<Phase, u32>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    phase_list: Vec<Phase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    retained: Option<HashMap<String, Item>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[patch(strategy = "replace")]
    replaced: BTreeMap<String, Vec<Item>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "merge", merge_key = "name")]
    #[allow(clippy::box_collection)]
    boxed: Option<Box<Vec<Item>>>,
    #[serde(default)]
    config: serde_json::Map<String, Value>,
    #[serde(default)]
    #[patch(strategy = "retainKeys")]
    retained_config: serde_json::Map<String, Value>,
    /// serde writes it as `{"secs": .., "nanos": ..}`, merged as JSON.
    #[patch(json)]
    timeout: std::time::Duration,
    #[serde(default)]
    source: Source,
}

impl Zoo for Containers {
    fn patches() -> Vec<Value> {
        vec![
            json!({"phase_set": ["pending", "zzz"], "$deleteFromPrimitiveList/phase_set": ["in-progress"]}),
            json!({"phase_list": ["in-progress", "pending", "in-progress"]}),
            json!({"by_phase": {"pending": {"name": "p"}, "gone": {"name": "g"}}, "counts": {"in-progress": null}}),
            json!({"by_phase": {"in-progress": null}, "counts": {"$retainKeys": ["pending"], "pending": 1.0}}),
            json!({"labels": {"a": null}, "retained": {"$retainKeys": [], "x": {"name": "x"}}}),
            json!({"labels": null, "retained": null, "replaced": null}),
            json!({"replaced": {"b": [{"name": "b"}]}}),
            json!({"boxed": [{"name": "b", "value": "v"}]}),
            json!({"config": {"a": {"b": null, "c": [1]}, "d": null}}),
            json!({"config": {"$patch": "replace", "x": 1}, "retained_config": {"$retainKeys": ["a"], "b": 2}}),
            json!({"retained_config": {"a": {"$patch": "delete"}}}),
            json!({"timeout": {"secs": 5}}),
            json!({"timeout": {"nanos": null}}),
            json!({"source": null}),
            json!({"source": {"claim": {"name": "c"}, "$retainKeys": ["claim"]}}),
        ]
    }

    fn seeds() -> Vec<Self> {
        vec![
            Containers {
                phase_set: BTreeSet::from([Phase::Pending, Phase::InProgress]),
                by_phase: BTreeMap::from([
                    (Phase::Pending, item("p", None)),
                    (Phase::InProgress, item("i", Some("v"))),
                ]),
                counts: HashMap::from([(Phase::Pending, 1)]),
                phase_list: vec![Phase::InProgress, Phase::Pending],
                labels: Some(BTreeMap::from([("a".into(), "1".into())])),
                retained: Some(HashMap::from([("x".into(), item("x", Some("v")))])),
                replaced: BTreeMap::from([("a".into(), vec![item("a", None)])]),
                boxed: Some(Box::new(vec![item("a", None)])),
                config: json!({"a": {"b": 1}, "list": [1, 2]}).as_object().cloned().unwrap(),
                retained_config: json!({"a": 1, "b": {"c": "d"}}).as_object().cloned().unwrap(),
                timeout: std::time::Duration::from_millis(1500),
                source: Source { host_path: Some("/h".into()), claim: None, options: strings(&["a", "b"]) },
            },
            Containers {
                phase_set: BTreeSet::from([Phase::InProgress]),
                by_phase: BTreeMap::from([(Phase::Pending, item("q", None))]),
                counts: HashMap::new(),
                phase_list: vec![],
                labels: None,
                retained: Some(HashMap::new()),
                replaced: BTreeMap::new(),
                boxed: None,
                config: json!({"a": {"c": [3]}, "e": null}).as_object().cloned().unwrap(),
                retained_config: serde_json::Map::new(),
                timeout: std::time::Duration::from_secs(2),
                source: Source::default(),
            },
            Containers {
                phase_set: BTreeSet::new(),
                by_phase: BTreeMap::new(),
                counts: HashMap::from([(Phase::InProgress, 3)]),
                phase_list: vec![Phase::Pending],
                labels: Some(BTreeMap::new()),
                retained: None,
                replaced: BTreeMap::from([("a".into(), vec![item("b", None), item("a", Some("x"))])]),
                boxed: Some(Box::new(vec![item("b", None), item("a", Some("v"))])),
                config: serde_json::Map::new(),
                retained_config: json!({"b": {"c": "e", "f": 1.5}}).as_object().cloned().unwrap(),
                timeout: std::time::Duration::ZERO,
                source: Source { host_path: None, claim: Some(item("c", None)), options: vec![] },
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// Recursion through maps and between types
// ---------------------------------------------------------------------------

/// A tree whose children are the values of a map, and whose rules point
/// back to trees through a keyed list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Tree {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<i32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    children: BTreeMap<String, Tree>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge", merge_key = "name")]
    rules: Vec<Rule>,
}

/// A keyed list element holding a tree, and a value of an untagged enum
/// that holds trees or keyed lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Rule {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    then: Option<Box<Tree>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action: Option<Action>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(untagged)]
enum Action {
    Items { items: Vec<Item> },
    Tree(Box<Tree>),
    Name(String),
}

fn leaf(value: i32) -> Tree {
    Tree { value: Some(value), children: BTreeMap::new(), rules: vec![] }
}

fn rule(name: &str, then: Option<Tree>, action: Option<Action>) -> Rule {
    Rule { name: name.into(), then: then.map(Box::new), action }
}

impl Zoo for Tree {
    fn patches() -> Vec<Value> {
        vec![
            json!({"children": {"a": {"children": {"b": {"value": 9}}}}}),
            json!({"children": {"a": null, "z": {"rules": [{"name": "r"}]}}}),
            json!({"rules": [{"name": "r", "then": {"children": {"x": {}}}}]}),
            json!({"rules": [{"name": "r", "action": {"items": [{"name": "i"}]}}]}),
            json!({"rules": [{"name": "r", "action": {"value": 1}}]}),
            json!({"rules": [{"name": "r", "action": "n"}, {"name": "s", "$patch": "delete"}]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        let mut deep = leaf(1);
        deep.children.insert("a".into(), leaf(2));
        deep.children.get_mut("a").unwrap().children.insert("b".into(), leaf(3));
        vec![
            Tree {
                value: None,
                children: BTreeMap::from([("a".into(), deep.clone()), ("c".into(), leaf(4))]),
                rules: vec![
                    rule("r", Some(leaf(5)), Some(Action::Items { items: vec![item("a", None)] })),
                    rule("s", None, Some(Action::Name("x".into()))),
                ],
            },
            Tree {
                value: Some(7),
                children: BTreeMap::from([("a".into(), leaf(2))]),
                rules: vec![rule("r", Some(deep), Some(Action::Tree(Box::new(leaf(8)))))],
            },
            Tree {
                value: None,
                children: BTreeMap::new(),
                rules: vec![rule("s", None, None), rule("r", None, Some(Action::Items { items: vec![] }))],
            },
        ]
    }
}

// ---------------------------------------------------------------------------
// An operator's resource
// ---------------------------------------------------------------------------

/// The status condition types of [`Operated`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, StrategicMerge)]
enum ConditionType {
    Available,
    Degraded,
    Progressing,
}

/// A condition, keyed by its type (a unit enum under a keyword name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Condition {
    r#type: ConditionType,
    status: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_transition_time: Option<String>,
}

/// A port identified by its number and protocol.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct ContainerPort {
    container_port: u16,
    #[serde(default = "unset", skip_serializing_if = "Option::is_none")]
    protocol: Option<Protocol>,
}

/// A merge key's declared default: absent reads as `None`.
fn unset<T>() -> Option<T> {
    None
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "UPPERCASE")]
enum Protocol {
    Sctp,
    Tcp,
    Udp,
}

/// Where an environment variable's value comes from: one of two sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
enum EnvSource {
    SecretKey { name: String, key: String },
    Field(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct EnvVar {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value_from: Option<EnvSource>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Container {
    name: String,
    image: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge", merge_key = "containerPort,protocol")]
    ports: Vec<ContainerPort>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge", merge_key = "name")]
    env: Vec<EnvVar>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    limits: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
}

/// A custom resource as an operator writes it: spec and status with keyed
/// lists keyed by enums and by two keys, unions in enums, and a protocol
/// map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Operated {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    containers: Vec<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<u32>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "type")]
    conditions: Vec<Condition>,
    #[serde(default)]
    exposed: BTreeMap<Protocol, BTreeSet<u16>>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    finalizers: Vec<String>,
}

fn container(name: &str, image: &str, ports: &[(u16, Option<Protocol>)], env: Vec<EnvVar>) -> Container {
    Container {
        name: name.into(),
        image: image.into(),
        ports: ports.iter().map(|&(container_port, protocol)| ContainerPort { container_port, protocol }).collect(),
        env,
        limits: BTreeMap::from([("cpu".into(), "1".into())]),
        args: strings(&["--v"]),
    }
}

fn env(name: &str, value: Option<&str>, from: Option<EnvSource>) -> EnvVar {
    EnvVar { name: name.into(), value: value.map(String::from), value_from: from }
}

fn condition(t: ConditionType, status: bool, at: Option<&str>) -> Condition {
    Condition { r#type: t, status, last_transition_time: at.map(String::from) }
}

impl Zoo for Operated {
    fn patches() -> Vec<Value> {
        vec![
            json!({"containers": [{"name": "web", "ports": [{"containerPort": 80, "protocol": "UDP"}]}]}),
            json!({"containers": [{"name": "web", "env": [{"name": "A", "valueFrom": {"field": "x"}}]}]}),
            json!({"containers": [{"name": "web", "env": [{"name": "A", "valueFrom": {"secretKey": {"key": "k"}}}]}]}),
            json!({"conditions": [{"type": "Degraded", "status": true}, {"type": "Available", "$patch": "delete"}]}),
            json!({"conditions": [{"type": "Unknown", "status": false}]}),
            json!({"exposed": {"TCP": [1], "SCTP": null}}),
            json!({"$setElementOrder/conditions": [{"type": "Progressing"}, {"type": "Available"}]}),
        ]
    }

    fn seeds() -> Vec<Self> {
        use ConditionType::*;
        let secret = |n: &str| Some(EnvSource::SecretKey { name: n.into(), key: "k".into() });
        vec![
            Operated {
                containers: vec![
                    container(
                        "web",
                        "web:1",
                        &[(80, Some(Protocol::Tcp)), (80, Some(Protocol::Udp))],
                        vec![env("A", Some("1"), None), env("B", None, secret("s"))],
                    ),
                    container("side", "side:1", &[], vec![]),
                ],
                replicas: Some(1),
                conditions: vec![condition(Available, true, Some("t1")), condition(Progressing, false, None)],
                exposed: BTreeMap::from([(Protocol::Tcp, BTreeSet::from([80, 443]))]),
                finalizers: strings(&["a"]),
            },
            Operated {
                containers: vec![container(
                    "web",
                    "web:2",
                    &[(80, Some(Protocol::Tcp)), (8080, None)],
                    vec![env("B", None, Some(EnvSource::Field("f".into()))), env("A", Some("2"), None)],
                )],
                replicas: None,
                conditions: vec![condition(Progressing, true, Some("t2")), condition(Degraded, false, None)],
                exposed: BTreeMap::from([(Protocol::Udp, BTreeSet::from([53])), (Protocol::Tcp, BTreeSet::from([80]))]),
                finalizers: strings(&["b", "a"]),
            },
            Operated {
                containers: vec![],
                replicas: Some(3),
                conditions: vec![],
                exposed: BTreeMap::new(),
                finalizers: vec![],
            },
        ]
    }
}

zoo_tests! {
    asymmetric_renames: Asymmetric,
    asymmetric_rename_all: AsymmetricAll,
    aliased_merge_keys: AliasedKeys,
    enum_shapes: EnumShapes,
    patch_metadata_in_map_values: MapValues,
    keyed_list_elements: Elements,
    sets_with_duplicates: Sets,
    serializers: Serializers,
    strict_spec: StrictSpec,
    bounded_generic: Generic,
    names_and_defaults: Names,
    optional_maps_and_enum_sets: Containers,
    recursion_through_maps: Tree,
    operator_resource: Operated,
}
