//! More of the zoo (`zoo_serde.rs`): shapes an operator author writes in a
//! custom resource's spec, against the same oracle (`oracle.rs`): every
//! typed operation equals the JSON engine on the serialised values with
//! the type's schema.
//!
//! Each type exercises: containers serialised through another type
//! (`from`/`into`, `try_from`); enums holding keyed lists and maps in
//! struct and newtype variants, in every tagging, as fields and inside
//! keyed list elements; `flatten` of an optional struct, of a struct
//! holding a keyed list, of two structs side by side and beside a map;
//! such types as fields of a struct walked field by field (where equal
//! values are skipped) and as elements of keyed lists; maps of lists and
//! of maps; keyed lists three levels deep; defaults from functions and
//! keyed lists and sets left out when empty; strings with escapes,
//! non-ASCII text and directive-like text as map keys and merge keys.
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
struct Port {
    port: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

fn port(port: u16, name: Option<&str>) -> Port {
    Port { port, name: name.map(String::from) }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A struct walked field by field holding a keyed list, a merged set
/// (unsorted in some seeds: the reference re-sends its order even when
/// nothing changed) and a map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Inner {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    ports: Vec<Port>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    tags: Vec<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

fn inner(name: &str, ports: Vec<Port>, tags: &[&str], l: &[(&str, &str)]) -> Inner {
    Inner { name: name.into(), ports, tags: strings(tags), labels: labels(l) }
}

fn inners() -> [Inner; 3] {
    [
        inner("a", vec![port(80, None), port(443, Some("https"))], &["b", "a"], &[("app", "web")]),
        inner("a", vec![port(443, None)], &["a", "c"], &[("$patch", "replace"), ("app", "db")]),
        inner("b", vec![], &[], &[]),
    ]
}

// ---------------------------------------------------------------------------
// Containers serialised through another type
// ---------------------------------------------------------------------------

/// The serde form of [`Converted`] and [`Validated`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct RawService {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    ports: Vec<Port>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    finalizers: Vec<String>,
}

/// Read and written through [`RawService`]: patched as a `RawService`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(from = "RawService", into = "RawService")]
struct Converted {
    name: String,
    ports: Vec<Port>,
    finalizers: Vec<String>,
}

/// The serde form of [`Renamed`], whose JSON names are not its fields'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct RawRenamed {
    service_name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    service_ports: Vec<Port>,
}

/// Read and written through [`RawRenamed`] (`into` with `try_from`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(try_from = "RawRenamed", into = "RawRenamed")]
struct Renamed {
    name: String,
    ports: Vec<Port>,
}

impl TryFrom<RawRenamed> for Renamed {
    type Error = String;

    fn try_from(r: RawRenamed) -> Result<Self, String> {
        if r.service_name.is_empty() {
            return Err("a service needs a name".into());
        }
        Ok(Renamed { name: r.service_name, ports: r.service_ports })
    }
}

impl From<Renamed> for RawRenamed {
    fn from(r: Renamed) -> Self {
        RawRenamed { service_name: r.name, service_ports: r.ports }
    }
}

fn renamed(name: &str, ports: Vec<Port>) -> Renamed {
    Renamed { name: name.into(), ports }
}

impl Zoo for Renamed {
    fn seeds() -> Vec<Self> {
        vec![renamed("a", vec![port(80, None), port(443, None)]), renamed("a", vec![port(443, Some("https"))])]
    }
}

impl From<RawService> for Converted {
    fn from(r: RawService) -> Self {
        Converted { name: r.name, ports: r.ports, finalizers: r.finalizers }
    }
}

impl From<Converted> for RawService {
    fn from(c: Converted) -> Self {
        RawService { name: c.name, ports: c.ports, finalizers: c.finalizers }
    }
}

/// Read through [`RawService`], refusing a service without ports named
/// `bad`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(try_from = "RawService", rename_all = "camelCase")]
struct Validated {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    ports: Vec<Port>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    finalizers: Vec<String>,
}

impl TryFrom<RawService> for Validated {
    type Error = String;

    fn try_from(r: RawService) -> Result<Self, String> {
        if r.name == "bad" && r.ports.is_empty() {
            return Err("a bad service needs ports".into());
        }
        Ok(Validated { name: r.name, ports: r.ports, finalizers: r.finalizers })
    }
}

/// Converted containers as fields (walked field by field around them),
/// behind `Option`, and as keyed list elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Conversions {
    converted: Converted,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    validated: Option<Validated>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    services: Vec<Validated>,
    #[serde(default)]
    note: String,
    renamed: Renamed,
    #[patch(strategy = "retainKeys")]
    retained: Converted,
    #[patch(strategy = "replace")]
    replaced: Renamed,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    strict: Vec<StrictMember>,
    /// Keyed by a JSON name of the type the elements are written as.
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "serviceName")]
    renamed_list: Vec<Renamed>,
}

/// A keyed list element refusing unknown keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(deny_unknown_fields)]
struct StrictMember {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    role: Option<String>,
}

impl Zoo for Conversions {
    fn seeds() -> Vec<Self> {
        let c = |name: &str, ports, fin: &[&str]| Converted { name: name.into(), ports, finalizers: strings(fin) };
        let v = |name: &str, ports, fin: &[&str]| Validated { name: name.into(), ports, finalizers: strings(fin) };
        let strict = |name: &str, role: Option<&str>| StrictMember { name: name.into(), role: role.map(String::from) };
        vec![
            Conversions {
                converted: c("a", vec![port(80, None), port(443, Some("x"))], &["b", "a"]),
                validated: Some(v("bad", vec![port(1, None)], &["z", "y"])),
                services: vec![v("a", vec![], &["b", "a"]), v("bad", vec![port(2, None)], &[])],
                note: "".into(),
                renamed: renamed("a", vec![port(80, None), port(443, None)]),
                retained: c("r", vec![port(1, None)], &["b", "a"]),
                replaced: renamed("x", vec![port(1, None)]),
                strict: vec![strict("a", None), strict("b", Some("r"))],
                renamed_list: vec![renamed("a", vec![port(1, None)]), renamed("b", vec![])],
            },
            Conversions {
                converted: c("a", vec![port(443, None)], &["a"]),
                validated: None,
                services: vec![v("b", vec![port(2, Some("two"))], &["a", "b"])],
                note: "n".into(),
                renamed: renamed("a", vec![port(443, Some("https"))]),
                retained: c("r", vec![], &[]),
                replaced: renamed("x", vec![port(1, None)]),
                strict: vec![strict("b", None)],
                renamed_list: vec![renamed("b", vec![port(2, None), port(1, None)])],
            },
            Conversions {
                converted: c("b", vec![], &[]),
                validated: Some(v("ok", vec![], &["q"])),
                services: vec![],
                note: "".into(),
                renamed: renamed("b", vec![]),
                retained: c("q", vec![port(2, Some("n"))], &["a"]),
                replaced: renamed("y", vec![]),
                strict: vec![],
                renamed_list: vec![],
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"validated": {"ports": null}}),
            json!({"validated": {"ports": [{"port": 1, "$patch": "delete"}]}}),
            json!({"services": [{"name": "bad", "ports": [{"port": 2, "$patch": "delete"}]}]}),
            json!({"converted": {"finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["a"]}}),
            json!({"converted": {"$patch": "replace", "name": "r"}}),
            json!({"converted": {"extra": 1}}),
            json!({"services": [{"name": "c", "extra": true}]}),
            json!({"renamed": {"servicePorts": [{"port": 80, "$patch": "delete"}, {"port": 8080}]}}),
            json!({"renamed": {"serviceName": ""}}),
            json!({"renamed": {"name": "x", "ports": []}}),
            json!({"renamed_list": [{"serviceName": "a", "servicePorts": [{"port": 3}]}]}),
            json!({"renamed_list": [{"serviceName": "b", "$patch": "delete"}]}),
            json!({"retained": {"$retainKeys": ["name"], "name": "z"}}),
            json!({"retained": {"$retainKeys": ["name", "ports"], "ports": [{"port": 5}]}}),
            json!({"replaced": {"serviceName": "z"}}),
            json!({"strict": [{"name": "a", "zzz": 1}]}),
            json!({"strict": [{"name": "c", "role": "x"}], "$setElementOrder/strict": [{"name": "c"}]}),
        ]
    }
}

// ---------------------------------------------------------------------------
// Enums holding keyed lists and maps
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
enum ExternalSource {
    Ports {
        #[serde(default)]
        ports: Vec<Port>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
    },
    Wrapped(Inner),
    Nothing,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum InternalSource {
    Ports {
        #[serde(default)]
        ports: Vec<Port>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
    },
    Wrapped(Inner),
    Nothing,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(tag = "kind", content = "spec", rename_all = "camelCase")]
enum AdjacentSource {
    Ports {
        #[serde(default)]
        ports: Vec<Port>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
    },
    Wrapped(Inner),
    Nothing,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(untagged)]
enum UntaggedSource {
    Wrapped(Inner),
    Text(String),
}

/// An enum of newtype variants only: its schema is each variant's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
enum Choice {
    First(Inner),
    Second(Box<Inner>),
}

/// A keyed list element holding enums of every tagging.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Sourced {
    name: String,
    external: ExternalSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    internal: Option<InternalSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    choice: Option<Choice>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Sources {
    external: ExternalSource,
    internal: InternalSource,
    adjacent: AdjacentSource,
    untagged: UntaggedSource,
    choice: Choice,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    sourced: Vec<Sourced>,
    #[serde(default)]
    by_name: BTreeMap<String, Choice>,
}

impl Zoo for Sources {
    fn seeds() -> Vec<Self> {
        let [i0, i1, i2] = inners();
        let ports = |ports, l: &[(&str, &str)]| (ports, labels(l));
        let (p0, l0) = ports(vec![port(80, None), port(81, Some("b"))], &[("a", "1")]);
        let (p1, l1) = ports(vec![port(81, Some("c"))], &[("a", "2"), ("$retainKeys", "x")]);
        vec![
            Sources {
                external: ExternalSource::Ports { ports: p0.clone(), labels: l0.clone() },
                internal: InternalSource::Wrapped(i0.clone()),
                adjacent: AdjacentSource::Ports { ports: p1.clone(), labels: l1.clone() },
                untagged: UntaggedSource::Wrapped(i1.clone()),
                choice: Choice::First(i0.clone()),
                sourced: vec![
                    Sourced {
                        name: "a".into(),
                        external: ExternalSource::Wrapped(i0.clone()),
                        internal: Some(InternalSource::Ports { ports: p0.clone(), labels: l0.clone() }),
                        choice: Some(Choice::Second(Box::new(i1.clone()))),
                    },
                    Sourced { name: "b".into(), external: ExternalSource::Nothing, internal: None, choice: None },
                ],
                by_name: BTreeMap::from([("x".into(), Choice::First(i0.clone()))]),
            },
            Sources {
                external: ExternalSource::Wrapped(i1.clone()),
                internal: InternalSource::Ports { ports: p1.clone(), labels: l1.clone() },
                adjacent: AdjacentSource::Wrapped(i0.clone()),
                untagged: UntaggedSource::Text("t".into()),
                choice: Choice::Second(Box::new(i0.clone())),
                sourced: vec![Sourced {
                    name: "a".into(),
                    external: ExternalSource::Ports { ports: p1.clone(), labels: l1.clone() },
                    internal: Some(InternalSource::Wrapped(i1.clone())),
                    choice: Some(Choice::First(i0.clone())),
                }],
                by_name: BTreeMap::from([
                    ("x".into(), Choice::First(i1.clone())),
                    ("y".into(), Choice::Second(Box::new(i2.clone()))),
                ]),
            },
            Sources {
                external: ExternalSource::Nothing,
                internal: InternalSource::Nothing,
                adjacent: AdjacentSource::Nothing,
                untagged: UntaggedSource::Wrapped(i2.clone()),
                choice: Choice::First(i2.clone()),
                sourced: vec![],
                by_name: BTreeMap::new(),
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"external": {"ports": {"ports": [{"port": 80, "$patch": "delete"}]}}}),
            json!({"external": {"wrapped": {"ports": [{"port": 1}], "tags": ["z"]}}}),
            json!({"internal": {"kind": "ports", "ports": [{"port": 9}]}}),
            json!({"internal": {"ports": [{"port": 9}], "labels": {"a": null}}}),
            json!({"adjacent": {"spec": {"ports": [{"port": 9}]}}}),
            json!({"adjacent": {"kind": "nothing", "spec": null}}),
            json!({"choice": {"first": {"ports": [{"port": 80, "name": "n"}]}}}),
            json!({"choice": {"second": {"tags": ["z"]}, "first": null}}),
            json!({"choice": {"first": {"$patch": "delete"}}}),
            json!({"sourced": [{"name": "a", "choice": {"first": {"ports": [{"port": 3}]}}}]}),
            json!({"by_name": {"x": {"first": {"labels": {"$patch": "delete"}}}}}),
            json!({"untagged": {"tags": ["q"]}}),
        ]
    }
}

// ---------------------------------------------------------------------------
// Flatten
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Limits {
    max_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_count: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct PortsPart {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "port")]
    ports: Vec<Port>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct MetaPart {
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

/// An optional flattened struct, two flattened structs side by side (one
/// holding a keyed list and a set), and a map taking the other keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Flats {
    name: String,
    #[serde(flatten)]
    limits: Option<Limits>,
    #[serde(flatten)]
    ports: PortsPart,
    #[serde(flatten)]
    meta: MetaPart,
    #[serde(flatten)]
    rest: BTreeMap<String, String>,
}

/// Flattening types as fields, behind `Option`, and as keyed list
/// elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct FlatHolder {
    flats: Flats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    maybe: Option<Flats>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Flats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    retained: Option<Flats>,
    #[serde(default)]
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    unions: Vec<Flats>,
}

fn flats(
    name: &str,
    limits: Option<u32>,
    ports: Vec<Port>,
    tags: &[&str],
    l: &[(&str, &str)],
    rest: &[(&str, &str)],
) -> Flats {
    Flats {
        name: name.into(),
        limits: limits.map(|max_count| Limits { max_count, min_count: None }),
        ports: PortsPart { ports, tags: strings(tags) },
        meta: MetaPart { labels: labels(l), owner: None },
        rest: labels(rest),
    }
}

impl Zoo for FlatHolder {
    fn seeds() -> Vec<Self> {
        let f0 =
            flats("a", Some(1), vec![port(80, None), port(81, None)], &["b", "a"], &[("x", "1")], &[("extra", "e")]);
        let f1 = flats("a", None, vec![port(81, Some("n"))], &["a"], &[("$patch", "merge")], &[]);
        let f2 = flats("b", Some(2), vec![], &[], &[], &[("other", "o"), ("$retainKeys", "r")]);
        vec![
            FlatHolder {
                flats: f0.clone(),
                maybe: Some(f1.clone()),
                items: vec![f0.clone(), f2.clone()],
                retained: Some(f0.clone()),
                unions: vec![f2.clone()],
            },
            FlatHolder {
                flats: f1.clone(),
                maybe: None,
                items: vec![f1.clone()],
                retained: Some(f1.clone()),
                unions: vec![f1.clone(), f2.clone()],
            },
            FlatHolder { flats: f2.clone(), maybe: Some(f2.clone()), items: vec![], retained: None, unions: vec![] },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"flats": {"maxCount": null}}),
            json!({"flats": {"maxCount": 5, "minCount": 1}}),
            json!({"flats": {"minCount": 1}}),
            json!({"flats": {"ports": [{"port": 80, "$patch": "delete"}], "zzz": "z"}}),
            json!({"flats": {"labels": {"y": "2"}, "extra": null}}),
            json!({"flats": {"zzz": 1}}),
            json!({"items": [{"name": "a", "tags": ["c"], "$retainKeys": ["name", "tags"]}]}),
            json!({"maybe": {"$patch": "delete"}}),
            json!({"retained": {"$retainKeys": ["name", "labels"], "labels": {"z": "1"}}}),
            json!({"retained": {"$retainKeys": ["name", "extra"]}}),
            json!({"unions": [{"name": "b", "maxCount": 7, "$retainKeys": ["name", "maxCount"]}]}),
        ]
    }
}

// ---------------------------------------------------------------------------
// Maps of lists and of maps, keyed lists three levels deep
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Level1 {
    name: String,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    groups: Vec<Level2>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Level2 {
    id: u32,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "key")]
    entries: Vec<Level3>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Level3 {
    key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Nesting {
    #[serde(default)]
    lists: BTreeMap<String, Vec<Port>>,
    #[serde(default)]
    maps: HashMap<String, BTreeMap<String, String>>,
    #[serde(default)]
    structs: BTreeMap<String, Inner>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    tree: Vec<Level1>,
    #[serde(default)]
    optional_strings: Vec<Option<String>>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    optional_set: Vec<Option<String>>,
}

impl Zoo for Nesting {
    fn seeds() -> Vec<Self> {
        let [i0, i1, i2] = inners();
        let l3 = |key: &str, value: Option<&str>, tags: &[&str]| Level3 {
            key: key.into(),
            value: value.map(String::from),
            tags: strings(tags),
        };
        let l2 = |id, entries| Level2 { id, entries };
        let l1 = |name: &str, groups| Level1 { name: name.into(), groups };
        vec![
            Nesting {
                lists: BTreeMap::from([("a".into(), vec![port(1, None)]), ("b".into(), vec![])]),
                maps: HashMap::from([("a".into(), labels(&[("x", "1"), ("$patch", "delete")]))]),
                structs: BTreeMap::from([("a".into(), i0.clone())]),
                tree: vec![
                    l1("a", vec![l2(1, vec![l3("k", Some("v"), &["b", "a"]), l3("$patch", None, &[])]), l2(2, vec![])]),
                    l1("b", vec![]),
                ],
                optional_strings: vec![Some("a".into()), None],
                optional_set: vec![None, Some("b".into()), Some("a".into())],
            },
            Nesting {
                lists: BTreeMap::from([("a".into(), vec![port(2, Some("n")), port(1, None)])]),
                maps: HashMap::from([
                    ("a".into(), labels(&[("x", "2")])),
                    ("$setElementOrder/a".into(), labels(&[("é", "\"q\"\n")])),
                ]),
                structs: BTreeMap::from([("a".into(), i1.clone()), ("b".into(), i2.clone())]),
                tree: vec![l1("a", vec![l2(2, vec![l3("k", None, &["a"])]), l2(1, vec![l3("j", None, &[])])])],
                optional_strings: vec![],
                optional_set: vec![Some("a".into())],
            },
            Nesting {
                lists: BTreeMap::new(),
                maps: HashMap::new(),
                structs: BTreeMap::new(),
                tree: vec![],
                optional_strings: vec![None],
                optional_set: vec![],
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"tree": [{"name": "a", "groups": [{"id": 1, "entries": [{"key": "k", "$patch": "delete"}]}]}]}),
            json!({"tree": [{"name": "a", "groups": [{"id": 1, "entries": [{"key": "n", "tags": ["t"]}]}]}]}),
            json!({"lists": {"a": [{"port": 3}]}}),
            json!({"maps": {"a": {"$patch": "replace", "y": "1"}}}),
            json!({"structs": {"a": {"ports": [{"port": 80, "$patch": "delete"}]}}}),
            json!({"optional_set": [null, "c"], "$deleteFromPrimitiveList/optional_set": [null]}),
        ]
    }
}

// ---------------------------------------------------------------------------
// Defaults and empty lists left out
// ---------------------------------------------------------------------------

fn default_ports() -> Vec<Port> {
    vec![port(8080, Some("http"))]
}

fn default_tags() -> Vec<String> {
    strings(&["default"])
}

/// Keyed lists and sets left out of the JSON when empty, and defaults
/// from functions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Sparse {
    name: String,
    #[serde(default = "default_ports", skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge", merge_key = "port")]
    ports: Vec<Port>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge")]
    tags: Vec<String>,
    #[serde(default = "default_tags")]
    #[patch(strategy = "merge")]
    defaulted: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    set: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    unions: Vec<Union>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Union {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    disk: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[patch(strategy = "merge")]
    claims: Vec<String>,
}

impl Zoo for Sparse {
    fn seeds() -> Vec<Self> {
        let set = |s: &[&str]| s.iter().map(|s| s.to_string()).collect();
        let union = |name: &str, disk: Option<&str>, claims: &[&str]| Union {
            name: name.into(),
            disk: disk.map(String::from),
            claims: strings(claims),
        };
        vec![
            Sparse {
                name: "a".into(),
                ports: default_ports(),
                tags: vec![],
                defaulted: default_tags(),
                set: set(&[]),
                labels: BTreeMap::new(),
                unions: vec![],
            },
            Sparse {
                name: "a".into(),
                ports: vec![port(80, None)],
                tags: strings(&["b", "a"]),
                defaulted: strings(&["default"]),
                set: set(&["x"]),
                labels: labels(&[("a", "1")]),
                unions: vec![union("u", Some("d"), &[]), union("v", None, &["c"])],
            },
            Sparse {
                name: "b".into(),
                ports: vec![port(8080, Some("http"))],
                tags: strings(&["a"]),
                defaulted: strings(&["x", "default"]),
                set: set(&["x", "y"]),
                labels: BTreeMap::new(),
                unions: vec![union("u", None, &["b", "a"])],
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"ports": null}),
            json!({"ports": []}),
            json!({"ports": [{"port": 80, "$patch": "delete"}]}),
            json!({"$deleteFromPrimitiveList/tags": ["a", "b"]}),
            json!({"tags": [], "set": []}),
            json!({"defaulted": null, "set": null, "labels": null}),
            json!({"$retainKeys": ["name"]}),
            json!({"unions": [{"name": "u", "claims": [], "$retainKeys": ["name", "claims"]}]}),
            json!({"$setElementOrder/ports": [{"port": 8080}]}),
        ]
    }
}

// ---------------------------------------------------------------------------
// Odd text
// ---------------------------------------------------------------------------

/// Strings with escapes, non-ASCII text and directive-like text, as map
/// keys, merge keys and set elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct OddText {
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    named: Vec<Named>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    set: Vec<String>,
    #[serde(default)]
    structs: BTreeMap<String, Named>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Named {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

impl Zoo for OddText {
    fn seeds() -> Vec<Self> {
        let named = |n: &str, v: Option<&str>| Named { name: n.into(), value: v.map(String::from) };
        vec![
            OddText {
                labels: labels(&[("$patch", "delete"), ("$retainKeys", "[]"), ("é", "ü"), ("a\"b\\c\n", "\u{1F600}")]),
                named: vec![named("$patch", Some("v")), named("é", None), named("a/b", Some("\t"))],
                set: strings(&["$patch", "é", "a", "\u{0}"]),
                structs: BTreeMap::from([("$setElementOrder/x".into(), named("$retainKeys", None))]),
            },
            OddText {
                labels: labels(&[("$setElementOrder/x", "y"), ("é", "e")]),
                named: vec![named("é", Some("x")), named("$deleteFromPrimitiveList/set", None)],
                set: strings(&["é", "$retainKeys"]),
                structs: BTreeMap::from([
                    ("$setElementOrder/x".into(), named("$patch", Some("delete"))),
                    ("$deleteFromPrimitiveList/labels".into(), named("", None)),
                ]),
            },
            OddText { labels: BTreeMap::new(), named: vec![], set: vec![], structs: BTreeMap::new() },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"labels": {"$patch": "x"}}),
            json!({"labels": {"é": null, "\u{0}": "z"}}),
            json!({"named": [{"name": "$patch", "$patch": "delete"}]}),
            json!({"named": [{"name": "é", "value": "ü"}], "$setElementOrder/named": [{"name": "é"}, {"name": "$patch"}]}),
            json!({"$deleteFromPrimitiveList/set": ["$patch"]}),
            json!({"structs": {"$setElementOrder/x": {"value": "w"}}}),
        ]
    }
}

/// Keyed lists and sets of a generic element type, whose merge key and
/// set elements are checked only once instantiated: with elements that
/// may lack the key (`Port`'s `name`) or are no scalars, both routes fail
/// alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct GenericKeyed<T> {
    #[serde(default = "Vec::new")]
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<T>,
    #[serde(default = "Vec::new")]
    #[patch(strategy = "merge")]
    set: Vec<T>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Generics {
    named: GenericKeyed<Named>,
    ports: GenericKeyed<Port>,
}

impl Zoo for Generics {
    fn seeds() -> Vec<Self> {
        let named = |n: &str, v: Option<&str>| Named { name: n.into(), value: v.map(String::from) };
        vec![
            Generics {
                named: GenericKeyed { items: vec![named("a", None), named("b", Some("v"))], set: vec![] },
                ports: GenericKeyed { items: vec![port(1, Some("a")), port(2, Some("b"))], set: vec![port(1, None)] },
            },
            Generics {
                named: GenericKeyed { items: vec![named("b", None)], set: vec![named("s", None)] },
                ports: GenericKeyed { items: vec![port(2, None)], set: vec![] },
            },
            Generics {
                named: GenericKeyed { items: vec![], set: vec![] },
                ports: GenericKeyed { items: vec![port(3, Some("c"))], set: vec![port(1, None), port(2, None)] },
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"ports": {"items": [{"port": 9}]}}),
            json!({"ports": {"items": [{"port": 1, "name": "a", "$patch": "delete"}]}}),
            json!({"named": {"set": [{"name": "t"}]}}),
            json!({"named": {"items": [{"name": "a", "value": "x"}]}}),
        ]
    }
}

zoo_tests! {
    generic_keyed_lists: Generics,
    from_into_and_try_from: Conversions,
    enums_holding_keyed_lists: Sources,
    flatten_shapes: FlatHolder,
    maps_of_lists_and_deep_keyed_lists: Nesting,
    sparse_lists_and_default_paths: Sparse,
    odd_text: OddText,
}

// ---------------------------------------------------------------------------
// Regressions
// ---------------------------------------------------------------------------

/// The elements of a keyed list that the walk does not see field by field
/// (here `flatten`; `from`/`into` and `try_from` alike) show their merge
/// key in their JSON: typed diff and apply read it there (they once found
/// no key and failed).
#[test]
fn keyed_list_elements_seen_only_as_json_have_their_key() {
    let holder = &FlatHolder::seeds()[0];
    let patch = json!({"items": [{"name": "c", "maxCount": 3}]});
    check_apply(holder, &patch).unwrap();
    let patched = holder.apply(&patch).unwrap();
    let mut names: Vec<&str> = patched.items.iter().map(|f| f.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["a", "b", "c"]);
    for other in FlatHolder::seeds() {
        check_diff(holder, &other).unwrap();
    }
    let conversions = &Conversions::seeds()[0];
    check_apply(conversions, &json!({"services": [{"name": "a", "ports": [{"port": 7}]}]})).unwrap();
    check_diff(conversions, &Conversions::seeds()[1]).unwrap();
}

/// Two equal values of a struct the walk does not see field by field (a
/// `from`/`into` container, an enum of newtypes, flattened parts) holding
/// an unsorted merged set: the reference re-sends the set's order, and so
/// does the typed diff (it once skipped such fields as equal).
#[test]
fn equal_values_seen_only_as_json_resend_their_sets_order() {
    let conversions = &Conversions::seeds()[0];
    check_diff(conversions, conversions).unwrap();
    let patch = conversions.diff(conversions).unwrap();
    assert_eq!(patch["converted"], json!({"$setElementOrder/finalizers": ["b", "a"]}));
    let sources = &Sources::seeds()[0];
    check_diff(sources, sources).unwrap();
    assert_eq!(sources.diff(sources).unwrap()["choice"], json!({"first": {"$setElementOrder/tags": ["b", "a"]}}));
    let holder = &FlatHolder::seeds()[0];
    check_diff(holder, holder).unwrap();
    assert_eq!(holder.diff(holder).unwrap()["flats"], json!({"$setElementOrder/tags": ["b", "a"]}));
}

/// A container serde writes `into` another type is patched as that type,
/// with its JSON names and patch metadata (its own fields' names once
/// made the engine refuse every change to a renamed list).
#[test]
fn a_container_written_into_another_type_is_patched_as_that_type() {
    let live = renamed("a", vec![port(80, None), port(443, None)]);
    let desired = renamed("a", vec![port(443, Some("https"))]);
    check_diff(&live, &desired).unwrap();
    let patch = live.diff(&desired).unwrap();
    assert_eq!(live.apply(&patch).unwrap(), desired);
    let added = json!({"servicePorts": [{"port": 8080}]});
    check_apply(&live, &added).unwrap();
    let merged = live.apply(&added).unwrap();
    assert_eq!(merged.ports.len(), 3, "merged by port, not replaced: {merged:?}");
}

// ---------------------------------------------------------------------------
// Standard types beyond the common scalars
// ---------------------------------------------------------------------------

/// A keyed list element keyed by a field of type `K`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct ByKey<K> {
    id: K,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Wide and non-zero integers, shared and borrowed strings, unit values,
/// tuples and arrays, as fields, merge keys and set elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct StdTypes {
    count: usize,
    offset: isize,
    huge: u128,
    signed_huge: i128,
    replicas: std::num::NonZeroU32,
    title: Box<str>,
    shared: std::sync::Arc<str>,
    local: std::rc::Rc<str>,
    label: std::borrow::Cow<'static, str>,
    unit: (),
    marker: std::marker::PhantomData<Port>,
    pair: (String, u32),
    octets: [u8; 4],
    #[serde(default)]
    pairs: Vec<(String, u32)>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    sizes: Vec<usize>,
    #[serde(default)]
    #[patch(strategy = "merge")]
    names: Vec<Box<str>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_box: Vec<ByKey<Box<str>>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_cow: Vec<ByKey<std::borrow::Cow<'static, str>>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_arc: Vec<ByKey<std::sync::Arc<str>>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_non_zero: Vec<ByKey<std::num::NonZeroU32>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_wide: Vec<ByKey<u128>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_size: Vec<ByKey<usize>>,
}

impl Zoo for StdTypes {
    fn seeds() -> Vec<Self> {
        let nz = |n| std::num::NonZeroU32::new(n).expect("not zero");
        fn by<K>(id: K, note: Option<&str>) -> ByKey<K> {
            ByKey { id, note: note.map(String::from) }
        }
        vec![
            StdTypes {
                count: 1,
                offset: -1,
                huge: u64::MAX as u128,
                signed_huge: i64::MIN as i128,
                replicas: nz(1),
                title: "é\"".into(),
                shared: "$patch".into(),
                local: "a".into(),
                label: "l".into(),
                unit: (),
                marker: std::marker::PhantomData,
                pair: ("a".into(), 1),
                octets: [10, 0, 0, 1],
                pairs: vec![("a".into(), 1), ("b".into(), 2)],
                sizes: vec![10, 2],
                names: vec!["b".into(), "a".into()],
                by_box: vec![by("a".into(), None), by("$patch".into(), Some("x"))],
                by_cow: vec![by("a".into(), Some("c"))],
                by_arc: vec![by("a".into(), None), by("b".into(), None)],
                by_non_zero: vec![by(nz(1), None), by(nz(2), Some("two"))],
                by_wide: vec![by(u64::MAX as u128, None), by(1, Some("one"))],
                by_size: vec![by(0, None)],
            },
            StdTypes {
                count: usize::MAX,
                offset: isize::MIN,
                huge: 0,
                signed_huge: u64::MAX as i128,
                replicas: nz(u32::MAX),
                title: "".into(),
                shared: "b".into(),
                local: "\u{0}".into(),
                label: "$retainKeys".into(),
                unit: (),
                marker: std::marker::PhantomData,
                pair: ("b".into(), 0),
                octets: [0; 4],
                pairs: vec![],
                sizes: vec![1],
                names: vec![],
                by_box: vec![by("$patch".into(), None)],
                by_cow: vec![],
                by_arc: vec![by("b".into(), Some("n")), by("a".into(), Some("m"))],
                by_non_zero: vec![by(nz(2), None)],
                by_wide: vec![by(1, None), by(2, None)],
                by_size: vec![by(usize::MAX, Some("max")), by(0, Some("zero"))],
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"replicas": 0}),
            json!({"replicas": null}),
            json!({"unit": null}),
            json!({"unit": 1, "marker": null}),
            json!({"marker": {}}),
            json!({"huge": 18446744073709551615u64, "signed_huge": -1}),
            json!({"huge": -1}),
            json!({"huge": 1.5e18}),
            json!({"count": -1, "offset": 9223372036854775808u64}),
            json!({"pair": ["c", 3]}),
            json!({"pair": ["c", 3, 4]}),
            json!({"octets": [1, 2, 3]}),
            json!({"octets": [1, 2, 3, 256]}),
            json!({"pairs": [["z", 0]]}),
            json!({"sizes": [3, 3], "$deleteFromPrimitiveList/sizes": [10]}),
            json!({"names": ["c"], "$setElementOrder/names": ["c", "a"]}),
            json!({"by_box": [{"id": "$patch", "$patch": "delete"}]}),
            json!({"by_non_zero": [{"id": 0, "note": "z"}]}),
            json!({"by_wide": [{"id": 18446744073709551615u64, "note": "max"}, {"id": 1.0}]}),
            json!({"by_cow": [{"id": "a", "note": null}]}),
        ]
    }
}

zoo_tests! {
    standard_types: StdTypes,
}

// ---------------------------------------------------------------------------
// Edges
// ---------------------------------------------------------------------------

/// A quantity written as a string (`"512Mi"`), read back through
/// `try_from`: a scalar, which a merge key and a set may hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(try_from = "String", into = "String")]
struct Quantity {
    amount: u32,
    unit: String,
}

impl TryFrom<String> for Quantity {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let amount = s[..digits].parse().map_err(|e| format!("{s:?}: {e}"))?;
        Ok(Quantity { amount, unit: s[digits..].to_string() })
    }
}

impl From<Quantity> for String {
    fn from(q: Quantity) -> String {
        format!("{}{}", q.amount, q.unit)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Resources {
    memory: Quantity,
    #[serde(default)]
    #[patch(strategy = "merge")]
    sizes: Vec<Quantity>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "id")]
    by_quantity: Vec<ByKey<Quantity>>,
    #[serde(default)]
    limits: BTreeMap<String, Quantity>,
}

impl Zoo for Resources {
    fn seeds() -> Vec<Self> {
        let q = |s: &str| Quantity::try_from(s.to_string()).expect("a quantity");
        let by = |s: &str, note: Option<&str>| ByKey { id: q(s), note: note.map(String::from) };
        vec![
            Resources {
                memory: q("512Mi"),
                sizes: vec![q("2Gi"), q("10Gi")],
                by_quantity: vec![by("1Gi", None), by("2Gi", Some("two"))],
                limits: BTreeMap::from([("cpu".into(), q("2")), ("$patch".into(), q("1m"))]),
            },
            Resources {
                memory: q("1Gi"),
                sizes: vec![],
                by_quantity: vec![by("2Gi", None)],
                limits: BTreeMap::from([("cpu".into(), q("3"))]),
            },
            Resources { memory: q("0"), sizes: vec![q("1Gi")], by_quantity: vec![], limits: BTreeMap::new() },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"memory": "x"}),
            json!({"memory": 5}),
            json!({"sizes": ["3Gi"], "$deleteFromPrimitiveList/sizes": ["2Gi"]}),
            json!({"by_quantity": [{"id": "1Gi", "$patch": "delete"}, {"id": "7", "note": "n"}]}),
            json!({"by_quantity": [{"id": "bad", "note": "n"}]}),
            json!({"limits": {"cpu": "4", "memory": "1Gi"}}),
        ]
    }
}

/// A generic envelope flattening its payload beside its name, as
/// operators wrap specs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Envelope<T> {
    #[serde(rename = "envelopeName")]
    envelope_name: String,
    #[serde(flatten)]
    payload: T,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Envelopes {
    spec: Envelope<Inner>,
    extra: Envelope<BTreeMap<String, String>>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "envelopeName")]
    items: Vec<Envelope<Inner>>,
}

impl Zoo for Envelopes {
    fn seeds() -> Vec<Self> {
        let [i0, i1, i2] = inners();
        fn env<T>(name: &str, payload: T) -> Envelope<T> {
            Envelope { envelope_name: name.into(), payload }
        }
        vec![
            Envelopes {
                spec: env("a", i0.clone()),
                extra: env("x", labels(&[("k", "v"), ("$retainKeys", "k")])),
                items: vec![env("a", i1.clone()), env("b", i0.clone())],
            },
            Envelopes { spec: env("a", i1.clone()), extra: env("x", labels(&[])), items: vec![env("b", i2.clone())] },
            Envelopes { spec: env("b", i2.clone()), extra: env("y", labels(&[("k", "w")])), items: vec![] },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"spec": {"ports": [{"port": 80, "$patch": "delete"}], "tags": ["z"]}}),
            json!({"extra": {"k": null, "n": "1"}}),
            json!({"items": [{"envelopeName": "b", "ports": [{"port": 5}]}]}),
            json!({"items": [{"envelopeName": "c", "name": "c"}]}),
        ]
    }
}

/// A keyed list behind two options (serde reads `null` as `None`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Edges {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "merge", merge_key = "port")]
    double: Option<Option<Vec<Port>>>,
}

impl Zoo for Edges {
    fn seeds() -> Vec<Self> {
        vec![
            Edges { name: "a".into(), double: Some(Some(vec![port(1, None), port(2, None)])) },
            Edges { name: "a".into(), double: None },
            Edges { name: "b".into(), double: Some(Some(vec![])) },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![json!({"double": null}), json!({"double": [{"port": 1, "$patch": "delete"}]}), json!({"double": []})]
    }
}

/// Transparent wrappers of a struct, a map and a keyed list's elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct InnerWrapper(Inner);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct Labels(BTreeMap<String, String>);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct Ports(Vec<Port>);

/// A rollout strategy as operators write it: internally tagged, fields
/// renamed in every variant, unknown kinds read as `Unknown`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(tag = "type", rename_all = "PascalCase", rename_all_fields = "camelCase")]
enum Rollout {
    RollingUpdate {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_surge: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_unavailable: Option<u32>,
    },
    Recreate,
    #[serde(other)]
    Unknown,
}

/// An externally tagged enum with an alias, a variant serde skips and a
/// variant holding a map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
enum Storage {
    #[serde(alias = "disk")]
    Volume(Inner),
    Config(BTreeMap<String, String>),
    #[serde(skip)]
    #[allow(dead_code)]
    Internal(u8),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Wrapped {
    inner: InnerWrapper,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    maybe: Option<InnerWrapper>,
    labels: Labels,
    ports: Ports,
    #[serde(default)]
    by_name: BTreeMap<String, InnerWrapper>,
    #[serde(default)]
    list: Vec<InnerWrapper>,
    rollout: Rollout,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    storage: Option<Storage>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    stores: Vec<Store>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Store {
    name: String,
    storage: Storage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rollout: Option<Rollout>,
}

impl Zoo for Wrapped {
    fn seeds() -> Vec<Self> {
        let [i0, i1, i2] = inners();
        let rolling = |s, u| Rollout::RollingUpdate { max_surge: s, max_unavailable: u };
        vec![
            Wrapped {
                inner: InnerWrapper(i0.clone()),
                maybe: Some(InnerWrapper(i1.clone())),
                labels: Labels(labels(&[("a", "1"), ("$patch", "merge")])),
                ports: Ports(vec![port(1, None), port(2, Some("b"))]),
                by_name: BTreeMap::from([("x".into(), InnerWrapper(i0.clone()))]),
                list: vec![InnerWrapper(i2.clone())],
                rollout: rolling(Some(1), None),
                storage: Some(Storage::Volume(i0.clone())),
                stores: vec![
                    Store { name: "a".into(), storage: Storage::Volume(i1.clone()), rollout: Some(Rollout::Recreate) },
                    Store { name: "b".into(), storage: Storage::Config(labels(&[("k", "v")])), rollout: None },
                ],
            },
            Wrapped {
                inner: InnerWrapper(i1.clone()),
                maybe: None,
                labels: Labels(labels(&[("a", "2")])),
                ports: Ports(vec![]),
                by_name: BTreeMap::new(),
                list: vec![InnerWrapper(i0.clone()), InnerWrapper(i1.clone())],
                rollout: Rollout::Recreate,
                storage: Some(Storage::Config(labels(&[("$retainKeys", "k")]))),
                stores: vec![Store {
                    name: "a".into(),
                    storage: Storage::Config(BTreeMap::new()),
                    rollout: Some(rolling(None, Some(2))),
                }],
            },
            Wrapped {
                inner: InnerWrapper(i2.clone()),
                maybe: Some(InnerWrapper(i2.clone())),
                labels: Labels(BTreeMap::new()),
                ports: Ports(vec![port(3, None)]),
                by_name: BTreeMap::from([("y".into(), InnerWrapper(i1.clone()))]),
                list: vec![],
                rollout: Rollout::Unknown,
                storage: None,
                stores: vec![],
            },
        ]
    }

    fn patches() -> Vec<Value> {
        vec![
            json!({"rollout": {"type": "Blue"}}),
            json!({"rollout": {"maxSurge": null, "maxUnavailable": 3}}),
            json!({"rollout": {"type": "RollingUpdate", "maxSurge": "1"}}),
            json!({"storage": {"disk": {"name": "d"}}}),
            json!({"storage": {"internal": 1}}),
            json!({"storage": {"volume": {"ports": [{"port": 80, "$patch": "delete"}]}}}),
            json!({"stores": [{"name": "a", "storage": {"config": {"k": null}}}]}),
            json!({"stores": [{"name": "b", "rollout": {"type": "Recreate"}}]}),
            json!({"inner": {"ports": [{"port": 9}], "$setElementOrder/tags": ["a"]}}),
            json!({"labels": {"$patch": "replace", "z": "1"}}),
            json!({"ports": [{"port": 4}]}),
            json!({"by_name": {"x": {"tags": ["n"]}}}),
        ]
    }
}

/// A port identified by its number and protocol (the recommended merge
/// keys of a container's ports).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct ProtoPort {
    container_port: u16,
    #[serde(default = "unset", skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// A merge key's declared default: absent reads as `None`.
fn unset() -> Option<String> {
    None
}

/// Keyed lists with several merge keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct MultiKeys {
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "containerPort,protocol")]
    ports: Vec<ProtoPort>,
    #[serde(default)]
    #[patch(strategy = "merge", merge_key = "name")]
    named: Vec<Named>,
}

impl Zoo for MultiKeys {
    fn seeds() -> Vec<Self> {
        let p = |port, protocol: Option<&str>, name: Option<&str>| ProtoPort {
            container_port: port,
            protocol: protocol.map(String::from),
            name: name.map(String::from),
        };
        let named = |n: &str, v: Option<&str>| Named { name: n.into(), value: v.map(String::from) };
        vec![
            MultiKeys {
                ports: vec![p(53, Some("TCP"), Some("dns")), p(53, Some("UDP"), None), p(80, None, None)],
                named: vec![named("a", None), named("a", Some("dup"))],
            },
            MultiKeys {
                ports: vec![p(53, Some("UDP"), Some("dns-udp")), p(80, Some("TCP"), None)],
                named: vec![named("b", Some("v"))],
            },
            MultiKeys { ports: vec![], named: vec![named("a", Some("x")), named("b", None)] },
        ]
    }
}

/// `$patchMergeKey` in a three-way patch (for receivers that know it):
/// the typed three-way writes it as the JSON route does (it was left out).
#[test]
fn three_way_patch_merge_keys_are_the_json_routes() {
    let seeds = MultiKeys::seeds();
    let opts = smp_core::ThreeWayOptions { overwrite: true, patch_merge_key: true, ..Default::default() };
    let patch = seeds[0].three_way(&seeds[0], &seeds[1], opts).unwrap();
    let engine =
        smp_core::three_way(&to_json(&seeds[0]), &to_json(&seeds[1]), &to_json(&seeds[0]), schema::<MultiKeys>(), opts)
            .unwrap();
    assert_eq!(patch, engine);
    assert!(patch.to_string().contains("$patchMergeKey"), "{patch}");
}

zoo_tests! {
    generic_flattened_envelopes: Envelopes,
    quantities_written_as_strings: Resources,
    multiple_merge_keys: MultiKeys,
    edges: Edges,
    transparent_wrappers_and_rollouts: Wrapped,
}
