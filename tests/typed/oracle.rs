//! The oracle of the typed zoos: every typed operation (`diff`, `apply`,
//! `apply_in_place`, `three_way`, errors included) equals serialising the
//! values, running the JSON engine with the type's schema (`shape()`), and
//! reading the result back (as the reference prints it).
//!
//! A zoo type has a few hand-written seeds; values are the seeds, blends
//! of two seeds' JSON and list edits of those, read back as the type.
//! Patches are the engine's two-way and three-way diffs between such
//! values, with random edits (directives, nulls, type changes, unknown
//! keys). Every seed pair and triple is also checked exhaustively.
//!
//! Cases per property: `PROPTEST_CASES`, else 64 (the tests must stay
//! fast in CI).

// Each test crate that includes the oracle uses a part of it.
#![allow(dead_code)]

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::Serialize;
use serde_json::{Value, json};
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};
use std::fmt::Debug;

// ---------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------

/// A zoo type with its seeds.
pub trait Zoo: StrategicMerge + Debug + Sized + 'static {
    fn seeds() -> Vec<Self>;

    /// Patches aimed at the type's attributes, applied to every seed.
    fn patches() -> Vec<Value> {
        Vec::new()
    }
}

pub fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("zoo values serialise")
}

pub fn schema<T: StrategicMerge>() -> Schema<'static> {
    Schema::Static(T::shape())
}

/// JSON equality that tells `1` from `1.0` and `-0.0` from `0.0`.
pub fn strict_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_string() == y.to_string(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| strict_eq(v, w)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| strict_eq(v, w)))
        }
        _ => a == b,
    }
}

/// [`strict_eq`] with lists compared as multisets: for two values already
/// `==`, whose lists may come from hashed sets.
pub fn strict_eq_unordered(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            let mut left: Vec<&Value> = y.iter().collect();
            x.len() == y.len()
                && x.iter().all(|v| match left.iter().position(|w| strict_eq_unordered(v, w)) {
                    Some(i) => {
                        left.swap_remove(i);
                        true
                    }
                    None => false,
                })
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| strict_eq_unordered(v, w)))
        }
        _ => strict_eq(a, b),
    }
}

/// Both fail (a conflict on both sides, or no conflict on either), or both
/// give the same patch.
pub fn same_patch(typed: &smp_core::Result<Value>, engine: &smp_core::Result<Value>) -> bool {
    match (typed, engine) {
        (Ok(t), Ok(e)) => strict_eq(t, e),
        // A document may hold several faults, and the reference looks at
        // map keys in random order: which one is reported is not compared,
        // but an error the engine places is placed.
        (Err(t), Err(e)) => {
            t.is_conflict() == e.is_conflict()
                && (!t.is_conflict() || t.kind == e.kind)
                && (t.kind != e.kind || e.path.is_root() || !t.path.is_root())
        }
        _ => false,
    }
}

pub fn show(r: &smp_core::Result<Value>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("Err({e}) [{:?}]", e.kind),
    }
}

pub fn check_diff<T: Zoo>(a: &T, b: &T) -> Result<(), String> {
    check_written(a)?;
    check_written(b)?;
    check_read::<T>(&to_json(a))?;
    let typed = a.diff(b);
    let engine = smp_core::diff(&to_json(a), &to_json(b), schema::<T>());
    if !same_patch(&typed, &engine) {
        return Err(format!(
            "diff differs\n  original: {}\n  modified: {}\n  typed:    {}\n  engine:   {}",
            to_json(a),
            to_json(b),
            show(&typed),
            show(&engine)
        ));
    }
    Ok(())
}

/// The walker writes a value's JSON as serde does (a struct through its
/// field table, not through serde).
pub fn check_written<T: Zoo>(v: &T) -> Result<(), String> {
    let (walker, serde) = (v.__json(), serde_json::to_value(v));
    match (&walker, &serde) {
        (Ok(a), Ok(b)) if strict_eq(a, b) => Ok(()),
        (Err(_), Err(_)) => Ok(()),
        _ => Err(format!("written differently\n  walker: {}\n  serde:  {serde:?}", show(&walker))),
    }
}

/// The walker reads JSON as serde does: the same value, or the same
/// error (a struct through its field table, not through serde).
pub fn check_read<T: Zoo>(v: &Value) -> Result<(), String> {
    let (walker, serde) = (T::__from_json(v), T::deserialize(v));
    match (&walker, &serde) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Err(a), Err(b)) if matches!(&a.kind, smp_core::ErrorKind::Deserialize(m) if *m == b.to_string()) => Ok(()),
        _ => Err(format!(
            "read differently\n  json:   {v}\n  walker: {:?}\n  serde:  {:?}",
            walker.map(|_| "a value"),
            serde.map(|_| "a value")
        )),
    }
}

/// The engine's apply read back: as serde reads the engine's JSON, and as
/// it reads the JSON the reference prints (where an integer field takes a
/// whole float, and a number beyond `int64` is a float). The typed result
/// must be one of the two.
pub fn engine_apply<T: Zoo>(a: &T, patch: &Value) -> Result<(Value, [Option<T>; 4]), String> {
    let out = smp_core::apply(&to_json(a), patch, schema::<T>()).map_err(|e| e.to_string())?;
    check_read::<T>(&out)?;
    check_read::<T>(&whole_floats_as_integers(out.clone(), false))?;
    let direct = serde_json::from_value(out.clone()).ok();
    let printed = serde_json::from_str(&smp_core::unstable::to_go_json(&out)).ok();
    let whole = serde_json::from_value(whole_floats_as_integers(out.clone(), false)).ok();
    let zeros = serde_json::from_value(whole_floats_as_integers(out.clone(), true)).ok();
    let read = [direct, printed, whole, zeros];
    if read.iter().all(Option::is_none) {
        return Err(format!("read back: {out}"));
    }
    Ok((out, read))
}

/// Whole floats within `int64` as integers (as the reference prints them;
/// `-0.0` too when `zero`), other numbers as they are.
pub fn whole_floats_as_integers(v: Value, zero: bool) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if zero || !(f == 0.0 && f.is_sign_negative()) => {
                smp_core::unstable::go_integer(f).filter(|i| i.is_i64()).map_or(Value::Number(n), Value::Number)
            }
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|v| whole_floats_as_integers(v, zero)).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, whole_floats_as_integers(v, zero))).collect()),
        other => other,
    }
}

pub fn check_apply<T: Zoo>(a: &T, patch: &Value) -> Result<(), String> {
    let typed = a.apply(patch);
    let engine = engine_apply(a, patch);
    let same = match (&typed, &engine) {
        // One of the readings, or (numbers compared by value: `-0.0` read
        // into an integer field beside a float `-0.0` elsewhere) the JSON,
        // when that JSON reads back as the typed value (a key serde writes
        // but never reads is lost in the reading).
        (Ok(t), Ok((out, e))) => {
            e.iter().flatten().any(|e| t == e && strict_eq_unordered(&to_json(t), &to_json(e)))
                || (smp_tests::json_cmp::same_value(&to_json(t), out)
                    && serde_json::from_value::<T>(to_json(t)).is_ok_and(|back| &back == t))
                || e.iter().flatten().any(|e| t == e && smp_tests::json_cmp::same_value(&to_json(t), &to_json(e)))
        }
        (Err(t), Err(_)) => {
            // Where the engine says where, the typed error does too.
            let engine_error = smp_core::apply(&to_json(a), patch, schema::<T>()).err();
            if let Some(e) = engine_error
                && e.kind == t.kind
                && !e.path.is_root()
                && t.path.is_root()
            {
                return Err(format!(
                    "typed error without a place: {t} (engine: {e})\n  original: {}\n  patch: {patch}",
                    to_json(a)
                ));
            }
            true
        }
        _ => false,
    };
    if !same {
        return Err(format!(
            "apply differs\n  original: {}\n  patch:    {}\n  typed:    {}\n  engine:   {}",
            to_json(a),
            patch,
            match &typed {
                Ok(t) => to_json(t).to_string(),
                Err(e) => format!("Err({e})"),
            },
            match &engine {
                Ok((_, e)) => e
                    .iter()
                    .map(|t| t.as_ref().map_or("(no read back)".into(), |t| to_json(t).to_string()))
                    .collect::<Vec<_>>()
                    .join(" or "),
                Err(e) => format!("Err({e})"),
            },
        ));
    }
    let mut target = a.clone();
    match (target.apply_in_place(patch), &typed) {
        (Ok(()), Ok(t)) if &target == t => Ok(()),
        (Err(_), Err(_)) if &target == a => Ok(()),
        _ => Err(format!("apply_in_place differs from apply\n  original: {}\n  patch: {patch}", to_json(a))),
    }
}

/// Where the engine's own round trip holds (`apply(a, diff(a, b))` reads
/// back as `b`), the typed one holds too.
pub fn check_round_trip<T: Zoo>(a: &T, b: &T) -> Result<(), String> {
    let Ok(patch) = smp_core::diff(&to_json(a), &to_json(b), schema::<T>()) else { return Ok(()) };
    let engine_holds = engine_apply(a, &patch).is_ok_and(|(_, e)| e.iter().flatten().any(|e| e == b));
    if !engine_holds {
        return Ok(());
    }
    let typed_patch = a.diff(b).map_err(|e| format!("typed diff failed where the engine's did not: {e}"))?;
    match a.apply(&typed_patch) {
        Ok(back) if &back == b => Ok(()),
        other => Err(format!(
            "apply(a, diff(a, b)) != b\n  a: {}\n  b: {}\n  patch: {typed_patch}\n  got: {other:?}",
            to_json(a),
            to_json(b)
        )),
    }
}

pub fn check_three_way<T: Zoo>(original: &T, modified: &T, live: &T) -> Result<(), String> {
    for (overwrite, patch_merge_key) in [(false, false), (true, false), (true, true)] {
        let opts = ThreeWayOptions { overwrite, patch_merge_key, ..Default::default() };
        let typed = live.three_way(original, modified, opts);
        let engine = smp_core::three_way(&to_json(original), &to_json(modified), &to_json(live), schema::<T>(), opts);
        if !same_patch(&typed, &engine) {
            return Err(format!(
                "three-way differs (overwrite: {overwrite}, patch_merge_key: {patch_merge_key})\n  original: {}\n  modified: {}\n  live:     {}\n  typed:    {}\n  engine:   {}",
                to_json(original),
                to_json(modified),
                to_json(live),
                show(&typed),
                show(&engine)
            ));
        }
    }
    Ok(())
}

/// Every operation on every pair and triple of seeds, and the patches the
/// engine computes between them applied back.
pub fn exhaustive<T: Zoo>() -> Vec<String> {
    let seeds = T::seeds();
    let mut failures = Vec::new();
    let mut note = |r: Result<(), String>| {
        if let Err(e) = r {
            failures.push(e);
        }
    };
    for a in &seeds {
        for p in T::patches() {
            note(check_apply(a, &p));
        }
        let back: Result<T, _> = serde_json::from_value(to_json(a));
        note(match back {
            Ok(b) if &b == a => Ok(()),
            other => Err(format!("seed does not round trip: {} -> {other:?}", to_json(a))),
        });
        for b in &seeds {
            note(check_diff(a, b));
            note(check_round_trip(a, b));
            note(check_apply(a, &to_json(b)));
            if let Ok(p) = smp_core::diff(&to_json(a), &to_json(b), schema::<T>()) {
                note(check_apply(a, &p));
                for c in &seeds {
                    note(check_apply(c, &p));
                }
            }
            for c in &seeds {
                note(check_three_way(a, b, c));
                // With `$patchMergeKey` too, which a receiver without the
                // option reads as any other key.
                for patch_merge_key in [false, true] {
                    let opts = ThreeWayOptions { overwrite: true, patch_merge_key, ..Default::default() };
                    if let Ok(p) = smp_core::three_way(&to_json(a), &to_json(b), &to_json(c), schema::<T>(), opts) {
                        note(check_apply(c, &p));
                    }
                }
            }
        }
    }
    failures
}

// ---------------------------------------------------------------------------
// Generated values and patches
// ---------------------------------------------------------------------------

/// Mixes two JSON documents: at each object key and list position one
/// side's value is kept, following `bits`.
pub fn blend(a: &Value, b: &Value, bits: &mut impl Iterator<Item = bool>) -> Value {
    let take_a = bits.next().unwrap_or(false);
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if !take_a => Value::Object(
            y.iter().map(|(k, v)| (k.clone(), x.get(k).map_or_else(|| v.clone(), |u| blend(u, v, bits)))).collect(),
        ),
        (Value::Array(x), Value::Array(y)) if !take_a => Value::Array(
            y.iter().enumerate().map(|(i, v)| x.get(i).map_or_else(|| v.clone(), |u| blend(u, v, bits))).collect(),
        ),
        _ if take_a => a.clone(),
        _ => b.clone(),
    }
}

/// The node `path` leads to (a child index per level, modulo the number of
/// children; stops at scalars).
pub fn node_at<'v>(doc: &'v mut Value, path: &[u8]) -> &'v mut Value {
    let mut node = doc;
    for step in path {
        let len = match &*node {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if len == 0 {
            break;
        }
        let i = *step as usize % len;
        let is_container = |v: &Value| v.is_object() || v.is_array();
        let next_ok = match &*node {
            Value::Object(m) => m.values().nth(i).is_some_and(is_container),
            Value::Array(a) => is_container(&a[i]),
            _ => false,
        };
        if !next_ok {
            break;
        }
        node = match node {
            Value::Object(m) => m.values_mut().nth(i).expect("in range"),
            Value::Array(a) => &mut a[i],
            _ => unreachable!(),
        };
    }
    node
}

/// A list edit that keeps the element type: drop, duplicate, swap.
pub fn edit_list(doc: &mut Value, path: &[u8], op: u8) {
    if let Value::Array(a) = node_at(doc, path)
        && !a.is_empty()
    {
        let i = op as usize % a.len();
        match op % 3 {
            0 => {
                a.remove(i);
            }
            1 => {
                let e = a[i].clone();
                a.push(e);
            }
            _ => a.swap(0, i),
        }
    }
}

/// A value of `T`: a seed, or two seeds blended and edited, read back.
pub fn value<T: Zoo>() -> impl Strategy<Value = T> {
    let n = T::seeds().len();
    (0..n, 0..n, vec(any::<bool>(), 48), vec((vec(any::<u8>(), 0..4), any::<u8>()), 0..3)).prop_map(
        |(i, j, bits, edits)| {
            let seeds = T::seeds();
            let mut doc = blend(&to_json(&seeds[i]), &to_json(&seeds[j]), &mut bits.into_iter());
            for (path, op) in &edits {
                edit_list(&mut doc, path, *op);
            }
            // Only values that survive their own JSON round trip: the
            // oracle reads the engine's JSON back.
            match serde_json::from_value::<T>(doc) {
                Ok(v) if serde_json::from_value::<T>(to_json(&v)).is_ok_and(|w| w == v) => v,
                _ => seeds[i].clone(),
            }
        },
    )
}

/// Odd values a patch may carry.
pub fn odd(arg: u8) -> Value {
    [
        json!("a"),
        json!(1),
        json!(-1.5),
        json!(true),
        json!([]),
        json!({}),
        json!(["a"]),
        json!([{"name": "a"}]),
        json!({"$patch": "delete"}),
        json!({"$patch": "replace"}),
        Value::Null,
        json!(18446744073709551615u64),
        json!(-0.0),
        json!("1"),
    ][arg as usize % 14]
        .clone()
}

/// One random edit of a patch at the node `path` leads to.
pub fn edit_patch(doc: &mut Value, path: &[u8], op: u8, arg: u8) {
    match node_at(doc, path) {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let pick = keys.get(arg as usize % keys.len().max(1)).cloned();
            let lists: Vec<String> = m.iter().filter(|(_, v)| v.is_array()).map(|(k, _)| k.clone()).collect();
            let list = lists.get(arg as usize % lists.len().max(1)).cloned();
            match op % 10 {
                0 => {
                    m.insert("$patch".into(), json!(["replace", "delete", "merge", "x"][arg as usize % 4]));
                }
                1 => {
                    if let Some(k) = pick {
                        m.insert(k, Value::Null);
                    }
                }
                2 => {
                    if let Some(k) = pick {
                        m.remove(&k);
                    }
                }
                3 => {
                    if let Some(k) = pick {
                        m.insert(k, odd(arg / 3));
                    }
                }
                4 => {
                    m.insert(["zzz", "$x", "Name", "c"][arg as usize % 4].into(), odd(arg / 4));
                }
                5 => {
                    let mut listed: Vec<Value> =
                        keys.iter().filter(|k| !k.starts_with('$')).map(|k| json!(k)).collect();
                    if arg % 3 == 1 {
                        listed.pop();
                    }
                    m.insert("$retainKeys".into(), if arg % 3 == 2 { json!("x") } else { Value::Array(listed) });
                }
                6 => {
                    if let Some(k) = list {
                        let mut order = m[&k].as_array().cloned().unwrap_or_default();
                        order.retain(|e| e.get("$patch").is_none());
                        if arg % 2 == 1 {
                            order.reverse();
                        }
                        if arg % 3 == 1 {
                            order.pop();
                        }
                        m.insert(format!("$setElementOrder/{k}"), Value::Array(order));
                    }
                }
                7 => {
                    if let Some(k) = list {
                        let first = m[&k].as_array().and_then(|a| a.first().cloned()).unwrap_or(json!("a"));
                        m.insert(format!("$deleteFromPrimitiveList/{k}"), json!([first]));
                    }
                }
                8 => {
                    if let Some(k) = pick {
                        m.insert(k, odd(arg));
                    }
                }
                _ => {
                    if let Some(k) = pick {
                        m.insert(format!("$setElementOrder/{k}"), json!([odd(arg)]));
                    }
                }
            }
        }
        Value::Array(a) => match op % 4 {
            0 => {
                if let Some(Value::Object(e)) = a.first().cloned() {
                    let mut e = e;
                    e.insert("$patch".into(), json!("delete"));
                    a.push(Value::Object(e));
                }
            }
            1 => a.push(json!({"$patch": (["replace", "merge", "delete"][arg as usize % 3])})),
            2 => {
                if let Some(Value::Object(e)) = a.first_mut() {
                    let key = e.keys().next().cloned();
                    if let Some(k) = key {
                        e.insert(k, odd(arg));
                    }
                }
            }
            _ => a.push(odd(arg)),
        },
        other => *other = odd(arg),
    }
}

/// A patch (the engine's two-way or three-way patch between zoo values, or
/// a whole value), edited, with the value to apply it to.
pub fn patch_case<T: Zoo>() -> impl Strategy<Value = (T, Value)> {
    (value::<T>(), value::<T>(), value::<T>(), 0u8..4, vec((vec(any::<u8>(), 0..5), any::<u8>(), any::<u8>()), 0..4))
        .prop_map(|(a, b, c, kind, edits)| {
            // Half of the three-way patches carry `$patchMergeKey`.
            let opts = ThreeWayOptions { overwrite: true, patch_merge_key: edits.len() % 2 == 1, ..Default::default() };
            let mut patch = match kind {
                0 => to_json(&b),
                1 => smp_core::three_way(&to_json(&a), &to_json(&b), &to_json(&c), schema::<T>(), opts)
                    .unwrap_or(json!({})),
                _ => smp_core::diff(&to_json(&a), &to_json(&b), schema::<T>()).unwrap_or(json!({})),
            };
            for (path, op, arg) in &edits {
                edit_patch(&mut patch, path, *op, *arg);
            }
            let target = if kind == 3 { c } else { a };
            (target, patch)
        })
}

pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64)
}

pub fn run<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), String>)
where
    S::Value: Debug,
{
    let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    if let Err(e) = runner.run(&strategy, |v| test(v).map_err(TestCaseError::fail)) {
        panic!("{e}");
    }
}

/// The properties of one zoo type.
pub fn properties<T: Zoo>() {
    let failures = exhaustive::<T>();
    assert!(failures.is_empty(), "{} failures, the first:\n{}", failures.len(), failures[0]);
    run((value::<T>(), value::<T>()), |(a, b)| {
        check_diff(&a, &b)?;
        check_round_trip(&a, &b)
    });
    run((value::<T>(), value::<T>(), value::<T>()), |(o, m, l)| check_three_way(&o, &m, &l));
    run(patch_case::<T>(), |(a, p)| check_apply(&a, &p));
}

macro_rules! zoo_tests {
    ($($name:ident: $ty:ty,)*) => {
        $(
            #[test]
            fn $name() {
                $crate::oracle::properties::<$ty>();
            }
        )*
    };
}

pub(crate) use zoo_tests;
