//! Properties of the JSON engine, checked on random documents.
//!
//! The documents conform to a small family of static schemas (below): nested
//! structs, keyed lists (string or integer merge keys), primitive sets,
//! atomic lists, maps of scalars, `retainKeys` structs and lists, and
//! replace-strategy maps. Values come from small pools so that keys, list
//! elements and values of different documents collide often. Generated
//! documents hold no nulls, no duplicate merge keys or set values, and one
//! key type per keyed list (the documented exceptions to the round trip).
//!
//! Each property runs 1024 cases by default (`PROPTEST_CASES` overrides) from
//! a fixed seed (`PROPTEST_RNG_SEED` overrides), and prints its case count.

use proptest::prelude::*;
use proptest::sample::{select, subsequence};
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::{Map, Value, json};
use smp_core::unstable::fmt_v;
use smp_core::{
    FieldSchema, Schema, Shape, StructSchema, ThreeWayOptions, apply, apply_in_place, diff, has_conflicts,
    merge_patches, merging_maps_have_conflicts, three_way,
};
use smp_tests::merge_item::MERGE_ITEM;
use smp_tests::schema_tables::{field, scalar, scalars, string_map};

// ---------------------------------------------------------------------------
// The schema family

static LEAF: StructSchema =
    StructSchema { name: "Leaf", fields: &[field("x", "", "", scalar), field("y", "", "", scalar)] };

/// An element keyed by a string `name`.
static ITEM: StructSchema = StructSchema {
    name: "Item",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("other", "", "", scalar),
        field("labels", "", "", string_map),
    ],
};

/// An element keyed by an integer `id`.
static PORT: StructSchema = StructSchema {
    name: "Port",
    fields: &[field("id", "", "", scalar), field("proto", "", "", scalar), field("note", "", "", scalar)],
};

/// A keyed element with lists of its own.
static CONTAINER: StructSchema = StructSchema {
    name: "Container",
    fields: &[
        field("name", "", "", scalar),
        field("image", "", "", scalar),
        field("env", "merge", "name", || Shape::List(|| Shape::Struct(&ITEM))),
        field("ports", "merge", "id", || Shape::List(|| Shape::Struct(&PORT))),
        field("args", "", "", scalars),
        field("tags", "merge", "", scalars),
    ],
};

/// The target of a `retainKeys` field (a discriminated union).
static UNION: StructSchema = StructSchema {
    name: "Union",
    fields: &[
        field("kind", "", "", scalar),
        field("a", "", "", scalar),
        field("b", "", "", scalar),
        field("leaf", "", "", || Shape::Struct(&LEAF)),
    ],
};

/// An element of a `merge,retainKeys` list.
static VOLUME: StructSchema = StructSchema {
    name: "Volume",
    fields: &[
        field("name", "", "", scalar),
        field("a", "", "", scalar),
        field("b", "", "", scalar),
        field("leaf", "", "", || Shape::Struct(&LEAF)),
    ],
};

/// The target of a replace-strategy field.
static RAW: StructSchema = StructSchema {
    name: "Raw",
    fields: &[
        field("p", "", "", scalar),
        field("q", "", "", scalar),
        field("labels", "", "", string_map),
        field("leaf", "", "", || Shape::Struct(&LEAF)),
    ],
};

/// Scalars, an atomic list and a replace map: every value is replaced whole.
static FLAT: StructSchema = StructSchema {
    name: "Flat",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("other", "", "", scalar),
        field("args", "", "", scalars),
        field("raw", "replace", "", || Shape::Struct(&RAW)),
    ],
};

static SPEC_PLAIN: StructSchema = StructSchema {
    name: "SpecPlain",
    fields: &[
        field("replicas", "", "", scalar),
        field("selector", "", "", string_map),
        field("leaf", "", "", || Shape::Struct(&LEAF)),
    ],
};

/// Nested structs and maps, no lists to merge.
static PLAIN: StructSchema = StructSchema {
    name: "Plain",
    fields: &[
        field("name", "", "", scalar),
        field("value", "", "", scalar),
        field("labels", "", "", string_map),
        field("meta", "", "", || Shape::Struct(&LEAF)),
        field("spec", "", "", || Shape::Struct(&SPEC_PLAIN)),
        field("args", "", "", scalars),
    ],
};

/// Keyed lists with string and integer keys.
static KEYED: StructSchema = StructSchema {
    name: "Keyed",
    fields: &[
        field("name", "", "", scalar),
        field("items", "merge", "name", || Shape::List(|| Shape::Struct(&ITEM))),
        field("ports", "merge", "id", || Shape::List(|| Shape::Struct(&PORT))),
    ],
};

/// Keyed lists inside keyed elements.
static NESTED: StructSchema = StructSchema {
    name: "Nested",
    fields: &[
        field("name", "", "", scalar),
        field("containers", "merge", "name", || Shape::List(|| Shape::Struct(&CONTAINER))),
        field("meta", "", "", || Shape::Struct(&LEAF)),
    ],
};

/// Primitive sets beside an atomic list.
static SETS: StructSchema = StructSchema {
    name: "Sets",
    fields: &[
        field("name", "", "", scalar),
        field("tags", "merge", "", scalars),
        field("finalizers", "merge", "", scalars),
        field("args", "", "", scalars),
    ],
};

/// `retainKeys` on a struct and on a keyed list.
static RETAIN: StructSchema = StructSchema {
    name: "Retain",
    fields: &[
        field("name", "", "", scalar),
        field("union", "retainKeys", "", || Shape::Struct(&UNION)),
        field("volumes", "merge,retainKeys", "name", || Shape::List(|| Shape::Struct(&VOLUME))),
    ],
};

static SPEC_MIXED: StructSchema = StructSchema {
    name: "SpecMixed",
    fields: &[
        field("replicas", "", "", scalar),
        field("containers", "merge", "name", || Shape::List(|| Shape::Struct(&CONTAINER))),
        field("union", "retainKeys", "", || Shape::Struct(&UNION)),
        field("volumes", "merge,retainKeys", "name", || Shape::List(|| Shape::Struct(&VOLUME))),
        field("raw", "replace", "", || Shape::Struct(&RAW)),
        field("finalizers", "merge", "", scalars),
    ],
};

/// Everything at once, one level down.
static MIXED: StructSchema = StructSchema {
    name: "Mixed",
    fields: &[
        field("name", "", "", scalar),
        field("labels", "", "", string_map),
        field("spec", "", "", || Shape::Struct(&SPEC_MIXED)),
    ],
};

/// The root schemas the strategies choose from.
static ROOTS: &[&StructSchema] = &[&FLAT, &PLAIN, &KEYED, &NESTED, &SETS, &RETAIN, &MIXED];

/// What a field holds, as far as patching is concerned.
#[derive(Clone, Copy)]
enum Kind {
    Scalar,
    /// A struct; `replace` and `retain` come from the field's strategy.
    Struct {
        s: &'static StructSchema,
        replace: bool,
        retain: bool,
    },
    /// A map of strings.
    Map,
    /// A keyed list of structs.
    Keyed {
        s: &'static StructSchema,
        key: &'static str,
        retain: bool,
    },
    /// A primitive merge list.
    Set,
    /// A list without the merge strategy.
    Atomic,
}

fn kind(f: &FieldSchema) -> Kind {
    let (merge, replace, retain) = (f.strategy.merge, f.strategy.replace, f.strategy.retain_keys);
    match (f.shape)() {
        Shape::Struct(s) => Kind::Struct { s, replace, retain },
        Shape::Map(_) => Kind::Map,
        Shape::List(elem) => match elem() {
            Shape::Struct(s) if merge => Kind::Keyed { s, key: f.merge_key.map_or("", |k| k.primary()), retain },
            _ if merge => Kind::Set,
            _ => Kind::Atomic,
        },
        _ => Kind::Scalar,
    }
}

fn field_of(s: &'static StructSchema, key: &str) -> &'static FieldSchema {
    s.field(key).unwrap_or_else(|| panic!("{} has no field {key}", s.name))
}

// ---------------------------------------------------------------------------
// Conforming documents

fn scalar_value() -> BoxedStrategy<Value> {
    select(vec![json!("a"), json!("b"), json!("c"), json!(1), json!(2), json!(true)]).boxed()
}

fn field_value(f: &'static FieldSchema) -> BoxedStrategy<Value> {
    match kind(f) {
        Kind::Scalar => scalar_value(),
        Kind::Struct { s, .. } => object(s, None).prop_map(Value::Object).boxed(),
        Kind::Map => prop::collection::btree_map(select(vec!["x", "y", "z"]), select(vec!["a", "b"]), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect()))
            .boxed(),
        Kind::Keyed { s, key, .. } => keyed_list(s, key),
        Kind::Set => subsequence(vec!["p", "q", "r", "s"], 0..=4)
            .prop_shuffle()
            .prop_map(|v| Value::Array(v.into_iter().map(|x| json!(x)).collect()))
            .boxed(),
        Kind::Atomic => prop::collection::vec(select(vec!["u", "v"]), 0..3)
            .prop_map(|v| Value::Array(v.into_iter().map(|x| json!(x)).collect()))
            .boxed(),
    }
}

/// An object of struct `s`; each field present with probability 0.6,
/// except `skip` (the merge key, set by the list).
fn object(s: &'static StructSchema, skip: Option<&'static str>) -> BoxedStrategy<Map<String, Value>> {
    let parts: Vec<BoxedStrategy<Option<(String, Value)>>> = s
        .fields
        .iter()
        .filter(|f| Some(f.name) != skip)
        .map(|f| prop::option::weighted(0.6, field_value(f).prop_map(move |v| (f.name.to_string(), v))).boxed())
        .collect();
    parts.prop_map(|kvs| kvs.into_iter().flatten().collect()).boxed()
}

/// A keyed list with unique keys, all of one type (`id` keys are integers).
fn keyed_list(s: &'static StructSchema, key: &'static str) -> BoxedStrategy<Value> {
    let pool: Vec<Value> = if key == "id" {
        vec![json!(1), json!(2), json!(3), json!(4)]
    } else {
        vec![json!("k1"), json!("k2"), json!("k3"), json!("k4")]
    };
    subsequence(pool, 0..=4)
        .prop_shuffle()
        .prop_flat_map(move |keys| {
            keys.into_iter()
                .map(|k| {
                    object(s, Some(key))
                        .prop_map(move |mut m| {
                            m.insert(key.to_string(), k.clone());
                            Value::Object(m)
                        })
                        .boxed()
                })
                .collect::<Vec<_>>()
        })
        .prop_map(Value::Array)
        .boxed()
}

/// A root schema (an index into `ROOTS`) and `n` documents conforming to it.
fn docs(n: usize) -> impl Strategy<Value = (usize, Vec<Value>)> {
    (0..ROOTS.len()).prop_flat_map(move |i| docs_of(i, n))
}

/// `n` documents conforming to `ROOTS[i]`.
fn docs_of(i: usize, n: usize) -> impl Strategy<Value = (usize, Vec<Value>)> {
    (Just(i), prop::collection::vec(object(ROOTS[i], None).prop_map(Value::Object), n))
}

// ---------------------------------------------------------------------------
// Running

fn config() -> Config {
    let base = Config::default();
    let env = |name: &str| std::env::var_os(name).is_some();
    Config {
        cases: if env("PROPTEST_CASES") { base.cases } else { 1024 },
        rng_seed: if env("PROPTEST_RNG_SEED") { base.rng_seed } else { RngSeed::Fixed(0x5eed_5a1d) },
        failure_persistence: None,
        ..base
    }
}

/// Generated inputs, shown as compact JSON in failure reports.
trait Show {
    fn show(&self) -> String;
}

impl Show for (usize, Vec<Value>) {
    fn show(&self) -> String {
        let docs: Vec<String> = self.1.iter().map(Value::to_string).collect();
        format!("root schema {}, documents:\n  {}", ROOTS[self.0].name, docs.join("\n  "))
    }
}

impl Show for (usize, Value, Value, Value) {
    fn show(&self) -> String {
        format!("schema #{}, original {}, patch {}, other {}", self.0, self.1, self.2, self.3)
    }
}

/// Runs one property and prints its case count; a failure is reported with
/// the shrunk input.
fn check<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: Show,
{
    let config = config();
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    match runner.run(&strategy, test) {
        Ok(()) => println!("property {name}: {cases} cases passed"),
        Err(TestError::Fail(why, input)) => panic!("property {name} failed: {why}\nminimal input: {}", input.show()),
        Err(e @ TestError::Abort(_)) => panic!("property {name} aborted: {e}"),
    }
}

fn ok<T>(what: &str, r: smp_core::Result<T>) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{what}: {e}")))
}

fn schema(i: usize) -> Schema<'static> {
    Schema::of_struct(ROOTS[i])
}

// ---------------------------------------------------------------------------
// 1. Round trip

fn sorted_as_go_prints(items: &[Value]) -> bool {
    items.windows(2).all(|w| fmt_v(&w[0]) <= fmt_v(&w[1]))
}

/// What the round trip from `a` to `b` gives: `b`, except where a primitive
/// set of `a` was only reordered into sorted order. The diff sorts the
/// original's set in place before comparing it with modified, so that
/// reorder goes unnoticed and the set keeps `a`'s order (the mirror image
/// of the spurious order list of an unsorted, unchanged set).
fn round_trip_result(a: &Map<String, Value>, b: &Map<String, Value>, s: &'static StructSchema) -> Map<String, Value> {
    let mut want = b.clone();
    for (k, bv) in b {
        let Some(av) = a.get(k) else { continue };
        let fixed = match (kind(field_of(s, k)), av, bv) {
            (Kind::Struct { s, replace: false, .. }, Value::Object(ao), Value::Object(bo)) => {
                Value::Object(round_trip_result(ao, bo, s))
            }
            (Kind::Keyed { s, key, .. }, Value::Array(al), Value::Array(bl)) => Value::Array(
                bl.iter()
                    .map(|be| match (al.iter().find(|ae| ae.get(key) == be.get(key)), be) {
                        (Some(Value::Object(ao)), Value::Object(bo)) => Value::Object(round_trip_result(ao, bo, s)),
                        _ => be.clone(),
                    })
                    .collect(),
            ),
            (Kind::Set, Value::Array(al), Value::Array(bl)) => {
                let same_values = al.len() == bl.len() && al.iter().all(|v| bl.contains(v));
                if same_values && sorted_as_go_prints(bl) { av.clone() } else { bv.clone() }
            }
            _ => bv.clone(),
        };
        want.insert(k.clone(), fixed);
    }
    want
}

/// Applying the two-way patch from `a` to `b` gives `b` (documents without
/// nulls, duplicate keys or mixed key types), but for the one reorder the
/// diff cannot see (see `round_trip_result`).
#[test]
fn round_trip() {
    check("round_trip", docs(2), |(i, d)| {
        let (a, b) = (&d[0], &d[1]);
        let patch = ok("diff", diff(a, b, schema(i)))?;
        let got = ok("apply", apply(a, &patch, schema(i)))?;
        let want = Value::Object(round_trip_result(a.as_object().unwrap(), b.as_object().unwrap(), ROOTS[i]));
        prop_assert_eq!(&got, &want, "schema {}, patch {}", ROOTS[i].name, patch);
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// 2. Three-way

/// `m` is contained in `r`: every key of `m` is in `r` with `m`'s value;
/// keyed-list elements of `m` are in `r` (by key) with `m`'s values;
/// primitive sets of `r` hold `m`'s values.
fn contains(
    r: &Map<String, Value>,
    m: &Map<String, Value>,
    s: &'static StructSchema,
    path: &str,
) -> Result<(), String> {
    for (k, mv) in m {
        let here = format!("{path}.{k}");
        let rv = r.get(k).ok_or_else(|| format!("{here} missing"))?;
        match (kind(field_of(s, k)), mv, rv) {
            (Kind::Struct { s, replace: false, .. }, Value::Object(mo), Value::Object(ro)) => {
                contains(ro, mo, s, &here)?
            }
            (Kind::Map, Value::Object(mo), Value::Object(ro)) => {
                for (kk, v) in mo {
                    if ro.get(kk) != Some(v) {
                        return Err(format!("{here}.{kk} lost"));
                    }
                }
            }
            (Kind::Keyed { s, key, .. }, Value::Array(ml), Value::Array(rl)) => {
                for me in ml {
                    let found = rl.iter().find(|re| re.get(key) == me.get(key));
                    match (found, me) {
                        (Some(Value::Object(ro)), Value::Object(mo)) => {
                            contains(ro, mo, s, &format!("{here}[{key}={}]", me[key]))?
                        }
                        _ => return Err(format!("{here}: element {me} missing")),
                    }
                }
            }
            (Kind::Set, Value::Array(ml), Value::Array(rl)) => {
                if let Some(v) = ml.iter().find(|v| !rl.contains(v)) {
                    return Err(format!("{here}: value {v} missing"));
                }
            }
            _ if mv == rv => {}
            _ => return Err(format!("{here}: got {rv}, want {mv}")),
        }
    }
    Ok(())
}

/// What the live object `c` added where neither `o` nor `m` mentions it
/// survives in `r`. Not checked inside `retainKeys` structs or elements (the
/// directive clears such keys on purpose) nor inside replace maps.
fn keeps_additions(
    o: Option<&Map<String, Value>>,
    m: &Map<String, Value>,
    c: &Map<String, Value>,
    r: &Map<String, Value>,
    s: &'static StructSchema,
    path: &str,
) -> Result<(), String> {
    let empty = Map::new();
    let o = o.unwrap_or(&empty);
    for (k, cv) in c {
        let here = format!("{path}.{k}");
        let (ov, mv, rv) = (o.get(k), m.get(k), r.get(k));
        if ov.is_none() && mv.is_none() {
            if rv != Some(cv) {
                return Err(format!("{here}: the live value {cv} became {rv:?}"));
            }
            continue;
        }
        let (Some(mv), Some(rv)) = (mv, rv) else { continue };
        match (kind(field_of(s, k)), cv, mv, rv) {
            (
                Kind::Struct { s, replace: false, retain: false },
                Value::Object(co),
                Value::Object(mo),
                Value::Object(ro),
            ) => keeps_additions(ov.and_then(Value::as_object), mo, co, ro, s, &here)?,
            (Kind::Map, Value::Object(co), Value::Object(mo), Value::Object(ro)) => {
                let oo = ov.and_then(Value::as_object);
                for (kk, v) in co {
                    let mentioned = mo.contains_key(kk) || oo.is_some_and(|oo| oo.contains_key(kk));
                    if !mentioned && ro.get(kk) != Some(v) {
                        return Err(format!("{here}.{kk}: the live value {v} was lost"));
                    }
                }
            }
            (Kind::Keyed { s, key, retain }, Value::Array(cl), Value::Array(ml), Value::Array(rl)) => {
                let ol = ov.and_then(Value::as_array);
                let by_key = |l: &Vec<Value>, k: &Value| l.iter().find(|e| e.get(key) == Some(k)).cloned();
                for ce in cl {
                    let ck = &ce[key];
                    let (oe, me) = (ol.and_then(|l| by_key(l, ck)), by_key(ml, ck));
                    let re = by_key(rl, ck);
                    let elem = format!("{here}[{key}={ck}]");
                    match (oe, me) {
                        (None, None) if re.as_ref() != Some(ce) => {
                            return Err(format!("{elem}: the live element {ce} became {re:?}"));
                        }
                        (oe, Some(me)) if !retain => {
                            let re = re.ok_or_else(|| format!("{elem} missing"))?;
                            let (Value::Object(co), Value::Object(mo), Value::Object(ro)) = (ce, &me, &re) else {
                                return Err(format!("{elem}: not objects"));
                            };
                            keeps_additions(oe.as_ref().and_then(Value::as_object), mo, co, ro, s, &elem)?;
                        }
                        _ => {}
                    }
                }
            }
            (Kind::Set, Value::Array(cl), Value::Array(ml), Value::Array(rl)) => {
                let ol = ov.and_then(Value::as_array);
                for v in cl {
                    let mentioned = ml.contains(v) || ol.is_some_and(|l| l.contains(v));
                    if !mentioned && !rl.contains(v) {
                        return Err(format!("{here}: the live value {v} was lost"));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// With overwrite, the three-way patch applied to the live object keeps all
/// of `modified` and what the live object added on its own.
#[test]
fn three_way_keeps_modified_and_live_additions() {
    check("three_way_keeps_modified_and_live_additions", docs(3), |(i, d)| {
        let (o, m, c) = (&d[0], &d[1], &d[2]);
        let options = ThreeWayOptions { overwrite: true, ..Default::default() };
        let patch = ok("three-way", three_way(o, m, c, schema(i), options))?;
        let r = ok("apply", apply(c, &patch, schema(i)))?;
        let obj = |v: &Value| v.as_object().cloned().unwrap_or_default();
        let (om, mm, cm, rm) = (obj(o), obj(m), obj(c), obj(&r));
        let context = || format!("schema {}, patch {patch}, result {r}", ROOTS[i].name);
        contains(&rm, &mm, ROOTS[i], "")
            .map_err(|e| TestCaseError::fail(format!("modified not kept: {e}; {}", context())))?;
        keeps_additions(Some(&om), &mm, &cm, &rm, ROOTS[i], "")
            .map_err(|e| TestCaseError::fail(format!("live addition lost: {e}; {}", context())))?;
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// 3. Determinism

/// A copy with every object's keys inserted in reverse order. (With
/// serde_json's default sorted maps this is the same value; it matters if
/// insertion order is ever preserved.)
fn reinserted(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().rev().map(|(k, v)| (k.clone(), reinserted(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(reinserted).collect()),
        other => other.clone(),
    }
}

/// diff and three_way give identical outputs on repeated calls and on
/// inputs whose keys were inserted in another order.
#[test]
fn deterministic() {
    check("deterministic", docs(3), |(i, d)| {
        let (a, b, c) = (&d[0], &d[1], &d[2]);
        let text = |r: smp_core::Result<Value>| match r {
            Ok(v) => format!("ok {}", smp_core::unstable::to_go_json(&v)),
            Err(e) => format!("err {e}"),
        };
        let two = || text(diff(a, b, schema(i)));
        let two_re = text(diff(&reinserted(a), &reinserted(b), schema(i)));
        prop_assert_eq!(two(), two());
        prop_assert_eq!(two(), two_re);
        for overwrite in [false, true] {
            let options = ThreeWayOptions { overwrite, ..Default::default() };
            let three = || text(three_way(a, b, c, schema(i), options));
            let three_re = text(three_way(&reinserted(a), &reinserted(b), &reinserted(c), schema(i), options));
            prop_assert_eq!(three(), three());
            prop_assert_eq!(three(), three_re);
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// 4. The diff of a document with itself

/// What the reference's diff of a document with itself contains: nothing,
/// except an unchanged replace-strategy map (always sent whole) and a
/// `$setElementOrder` for a primitive set that is not sorted as Go prints
/// its values (the original side is sorted before comparing), plus the
/// `$retainKeys` and keyed-list order lists that come with any non-empty
/// patch of a `retainKeys` map or keyed element.
fn self_diff(doc: &Map<String, Value>, s: &'static StructSchema, retain: bool) -> Map<String, Value> {
    let mut patch = Map::new();
    for (k, v) in doc {
        match (kind(field_of(s, k)), v) {
            (Kind::Struct { replace: true, .. }, _) => {
                patch.insert(k.clone(), v.clone());
            }
            (Kind::Struct { s, retain, .. }, Value::Object(m)) => {
                let sub = self_diff(m, s, retain);
                if !sub.is_empty() {
                    patch.insert(k.clone(), Value::Object(sub));
                }
            }
            (Kind::Keyed { s, key, retain }, Value::Array(items)) => {
                let changed: Vec<Value> = items
                    .iter()
                    .filter_map(|e| {
                        let mut sub = self_diff(e.as_object()?, s, retain);
                        (!sub.is_empty()).then(|| {
                            sub.insert(key.to_string(), e[key].clone());
                            Value::Object(sub)
                        })
                    })
                    .collect();
                if !changed.is_empty() {
                    let order = items.iter().map(|e| json!({ key: e[key].clone() })).collect();
                    patch.insert(format!("$setElementOrder/{k}"), Value::Array(order));
                    patch.insert(k.clone(), Value::Array(changed));
                }
            }
            (Kind::Set, Value::Array(items)) if !items.is_empty() && !sorted_as_go_prints(items) => {
                patch.insert(format!("$setElementOrder/{k}"), v.clone());
            }
            _ => {}
        }
    }
    if retain && !patch.is_empty() {
        let mut keys: Vec<&String> = doc.iter().filter(|(_, v)| !v.is_null()).map(|(k, _)| k).collect();
        keys.sort_by_key(|k| fmt_v(&json!(k)));
        patch.insert("$retainKeys".into(), json!(keys));
    }
    patch
}

/// `diff(a, a)` is `{}` unless the document holds a replace map or an
/// unsorted primitive set; then exactly what those produce.
#[test]
fn self_diff_is_empty_but_for_replace_maps_and_unsorted_sets() {
    check("self_diff_is_empty_but_for_replace_maps_and_unsorted_sets", docs(1), |(i, d)| {
        let a = &d[0];
        let got = ok("diff", diff(a, a, schema(i)))?;
        let want = Value::Object(self_diff(a.as_object().unwrap(), ROOTS[i], false));
        prop_assert_eq!(&got, &want, "schema {}", ROOTS[i].name);
        if want.as_object().is_some_and(Map::is_empty) {
            prop_assert_eq!(ok("apply", apply(a, &got, schema(i)))?, a.clone());
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// 5. Merging patches

/// `merge_patches([diff(a, b), diff(b, c)])` applied to `a` gives `c`, for
/// documents whose values are all replaced whole (scalars, atomic lists,
/// replace maps: the `Flat` schema).
///
/// The reference does not guarantee it for anything deeper, so it is not
/// asserted there (`garbage_never_panics` checks that merging returns):
/// - merging starts from `{}`, so the first patch's `$patch: delete`
///   elements are dropped like those of any new subtree, and the deletion
///   is lost;
/// - `$setElementOrder` and `$retainKeys` lists of the two patches must be
///   equal, or merging fails;
/// - a map deleted by the first patch (`null`) and re-added by the second is
///   stored whole, and applying it merges it into the stale map of `a`.
#[test]
fn merged_patches_compose_on_flat_documents() {
    let flat = ROOTS.iter().position(|r| std::ptr::eq(*r, &FLAT)).unwrap();
    check("merged_patches_compose_on_flat_documents", docs_of(flat, 3), |(i, d)| {
        let (a, b, c) = (&d[0], &d[1], &d[2]);
        let p1 = ok("diff a b", diff(a, b, schema(i)))?;
        let p2 = ok("diff b c", diff(b, c, schema(i)))?;
        let merged = ok("merge", merge_patches(&[p1.clone(), p2.clone()], schema(i)))?;
        let got = ok("apply", apply(a, &merged, schema(i)))?;
        prop_assert_eq!(&got, c, "patches {} and {} merged to {}", p1, p2, merged);
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// 6. Garbage patches

const GARBAGE_KEYS: &[&str] = &[
    "name",
    "value",
    "items",
    "ports",
    "id",
    "tags",
    "labels",
    "union",
    "volumes",
    "raw",
    "spec",
    "containers",
    "env",
    "mergingList",
    "mergingIntList",
    "nonMergingList",
    "simpleMap",
    "retainKeysMap",
    "replacingItem",
    "mergeItemPtr",
    "$patch",
    "$retainKeys",
    "$setElementOrder/items",
    "$setElementOrder/tags",
    "$setElementOrder/mergingList",
    "$setElementOrder/nonMergingList",
    "$deleteFromPrimitiveList/tags",
    "$deleteFromPrimitiveList/items",
    "$deleteFromPrimitiveList/mergingIntList",
    "$deleteFromPrimitiveList",
    "$setElementOrder",
    "$setElementOrderX/items",
    "$foo",
];

/// Random JSON with directive keys and directive words mixed in.
fn garbage() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1i64..4).prop_map(|n| json!(n)),
        select(vec![json!(1.0), json!(2.5)]),
        select(vec!["a", "k1", "p", "replace", "delete", "merge", "name"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(select(GARBAGE_KEYS), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
    .boxed()
}

/// A garbage document: an object mostly, sometimes any JSON value.
fn garbage_doc() -> BoxedStrategy<Value> {
    prop_oneof![
        8 => prop::collection::btree_map(select(GARBAGE_KEYS), garbage(), 0..5)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        1 => garbage(),
    ]
    .boxed()
}

/// A schema of the family, `MergeItem`, or none at all.
fn any_schema(i: usize) -> Schema<'static> {
    match i {
        i if i < ROOTS.len() => schema(i),
        i if i == ROOTS.len() => Schema::of_struct(&MERGE_ITEM),
        _ => Schema::Untyped,
    }
}

/// Nothing panics on garbage: apply returns Ok or Err, and a failed
/// in-place apply leaves its target as it was; diff, three-way, merging
/// and the conflict checks return too.
#[test]
fn garbage_never_panics() {
    let originals = (0..ROOTS.len() + 2).prop_flat_map(|i| {
        let conforming = match ROOTS.get(i) {
            Some(root) => object(root, None).prop_map(Value::Object).boxed(),
            None => garbage_doc(),
        };
        (Just(i), prop_oneof![conforming, garbage_doc()], garbage_doc(), garbage_doc())
    });
    check("garbage_never_panics", originals, |(i, original, patch, other)| {
        let s = any_schema(i);
        let mut target = original.clone();
        match apply_in_place(&mut target, &patch, s) {
            Ok(()) => prop_assert_eq!(Ok(target), apply(&original, &patch, s)),
            Err(_) => prop_assert_eq!(&target, &original),
        }
        let _ = apply(&patch, &other, s);
        let _ = diff(&original, &patch, s);
        let _ = three_way(&original, &patch, &other, s, ThreeWayOptions::default());
        let _ = three_way(&other, &patch, &original, s, ThreeWayOptions { overwrite: true, ..Default::default() });
        let _ = merge_patches(&[patch.clone(), other.clone()], s);
        let _ = merging_maps_have_conflicts(&patch, &other, s);
        let _ = has_conflicts(&patch, &other);
        Ok(())
    });
}
