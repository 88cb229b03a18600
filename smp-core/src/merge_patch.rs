//! JSON merge patch (RFC 7386), exactly as Go clients compute it: the
//! route for kinds without strategic patch metadata, such as custom
//! resources, which the API server refuses to patch strategically.
//!
//! - [`create`]: the two-way patch from the object read to the object
//!   wanted (controller-runtime's `client.MergeFrom`, evanphx/json-patch
//!   `CreateMergePatch`);
//! - [`three_way`]: what `kubectl apply` sends for such kinds
//!   (`jsonmergepatch.CreateThreeWayJSONMergePatch` from last-applied,
//!   desired and live);
//! - [`apply`]: a merge patch applied to a document (`jsonpatch.MergePatch`,
//!   what the API server and `kubectl patch --type merge` run).
//!
//! Lists are always replaced whole: a merge patch cannot add one element
//! to a list, which is why an operator that does not own a whole list
//! sends the patch with an optimistic lock (`metadata.resourceVersion`).
//!
//! Why this is written here rather than taken from the `json-patch` crate
//! (whose `merge` is RFC 7386 to the letter): the reference departs from
//! the RFC, and agreeing with it byte for byte means following it.
//! - Apply strips nulls from objects nested in arrays of a new value
//!   (`{"a":[{"b":null}]}` on `{}` gives `{"a":[{}]}`), but not when an
//!   array replaces an object; a `null` document or patch is an error, a
//!   patch that is not an object replaces the document, except a scalar,
//!   which is an error.
//! - The two-way diff decodes numbers as `float64`: `3` and `3.0` are
//!   equal, so are 2^53 and 2^53+1, and every number it writes is a
//!   `float64` (2^53+1 is written 2^53).
//! - Two arrays give an array of patches, one per pair of elements.

use crate::engine::conflicts::has_conflicts;
use crate::engine::preconditions::{Precondition, check_preconditions};
use crate::error::{ErrorKind, Result};
use crate::nesting::{MAX_DEPTH, check_nesting};
use serde_json::{Map, Number, Value};

/// The two-way merge patch from `original` to `modified`
/// (`jsonpatch.CreateMergePatch`): changed and added values, and `null`
/// for every removed key; `{}` when nothing changed.
///
/// Both must be objects (or `null`, read as `{}`), or both arrays of
/// objects, which give an array of patches.
///
/// ```
/// use serde_json::json;
/// use smp_core::merge_patch;
///
/// let live = json!({"spec": {"replicas": 1, "ports": [80], "paused": true}});
/// let desired = json!({"spec": {"replicas": 3.0, "ports": [80, 443]}});
/// let patch = merge_patch::create(&live, &desired).unwrap();
/// assert_eq!(patch, json!({"spec": {"replicas": 3, "ports": [80, 443], "paused": null}}));
/// assert_eq!(merge_patch::apply(&live, &patch).unwrap(), json!({"spec": {"replicas": 3, "ports": [80, 443]}}));
/// ```
pub fn create(original: &Value, modified: &Value) -> Result<Value> {
    check_nesting(original)?;
    check_nesting(modified)?;
    match (original, modified) {
        (Value::Array(originals), Value::Array(modifieds)) => {
            if originals.len() != modifieds.len() {
                return Err(ErrorKind::BadMergeDocument.into());
            }
            let mut patches = Vec::with_capacity(originals.len());
            for (o, m) in originals.iter().zip(modifieds) {
                patches.push(object_patch(o, m)?);
            }
            Ok(Value::Array(patches))
        }
        (Value::Array(_), _) | (_, Value::Array(_)) => Err(ErrorKind::MismatchedMergeDocuments.into()),
        _ => object_patch(original, modified),
    }
}

/// The three-way merge patch `kubectl apply` sends for a kind without
/// strategic patch metadata (`jsonmergepatch.CreateThreeWayJSONMergePatch`):
/// the changes and additions from `current` (live) to `modified`
/// (desired), plus the deletions from `original` (last applied) to
/// `modified`. The patch must pass every precondition (kubectl passes
/// [`Precondition::KUBECTL`]). There is no `overwrite` on this route: the
/// reference's conflict check compares two patches derived from
/// `modified` that cannot collide.
///
/// ```
/// use serde_json::json;
/// use smp_core::{Precondition, merge_patch};
///
/// let last_applied = json!({"spec": {"size": 1, "tier": "gold"}});
/// let desired = json!({"spec": {"size": 2}});
/// let live = json!({"spec": {"size": 1, "tier": "gold", "defaulted": true}});
/// let patch = merge_patch::three_way(&last_applied, &desired, &live, &Precondition::KUBECTL).unwrap();
/// // `defaulted` was never applied, so it stays.
/// assert_eq!(patch, json!({"spec": {"size": 2, "tier": null}}));
/// ```
pub fn three_way(
    original: &Value,
    modified: &Value,
    current: &Value,
    preconditions: &[Precondition<'_>],
) -> Result<Value> {
    for document in [original, modified, current] {
        check_nesting(document)?;
    }
    let changes = keep_or_drop_nulls(&create(current, modified)?, false, 0)?;
    let deletions = keep_or_drop_nulls(&create(original, modified)?, true, 0)?;
    let (changes, deletions) = (Value::Object(changes), Value::Object(deletions));
    if has_conflicts(&changes, &deletions)? {
        return Err(ErrorKind::Conflict { patch: changes, changed: deletions }.into());
    }
    let patch = apply(&deletions, &changes)?;
    check_preconditions(&patch, preconditions)?;
    Ok(patch)
}

/// `patch` applied to `doc` (`jsonpatch.MergePatch`): keys set to `null`
/// are removed, objects are merged key by key, anything else replaces what
/// was there. Values the patch brings in lose the `null`s of their objects.
///
/// ```
/// use serde_json::json;
/// use smp_core::merge_patch;
///
/// let doc = json!({"spec": {"size": 1, "tags": ["a"]}, "status": {}});
/// let patch = json!({"spec": {"size": null, "tags": ["b"], "new": {"x": null, "y": 1}}});
/// assert_eq!(
///     merge_patch::apply(&doc, &patch).unwrap(),
///     json!({"spec": {"tags": ["b"], "new": {"y": 1}}, "status": {}})
/// );
/// ```
pub fn apply(doc: &Value, patch: &Value) -> Result<Value> {
    check_nesting(doc)?;
    check_nesting(patch)?;
    if doc.is_null() {
        return Err(ErrorKind::BadMergeDocument.into());
    }
    match (doc, patch) {
        (_, Value::Null) => Err(ErrorKind::BadMergePatch.into()),
        (Value::Object(doc), Value::Object(patch)) => {
            let mut out = doc.clone();
            merge_objects(&mut out, patch, 0)?;
            Ok(Value::Object(out))
        }
        // A document or a patch that is not an object: the patch is the
        // result, if it is an object or an array.
        (_, Value::Object(_) | Value::Array(_)) => pruned(patch, 0),
        _ => Err(ErrorKind::BadMergePatch.into()),
    }
}

/// One more level of the walks below, which count every value (a scalar
/// too): a guard behind the entry points' own check, so a document
/// [`check_nesting`] accepts never reaches it.
fn deeper(depth: usize) -> Result<usize> {
    if depth > MAX_DEPTH { Err(ErrorKind::TooDeep(MAX_DEPTH).into()) } else { Ok(depth + 1) }
}

/// `mergeDocs`: `patch` merged into the object `doc`.
fn merge_objects(doc: &mut Map<String, Value>, patch: &Map<String, Value>, depth: usize) -> Result<()> {
    let depth = deeper(depth)?;
    for (key, value) in patch {
        if value.is_null() {
            doc.remove(key);
            continue;
        }
        match doc.get_mut(key) {
            Some(Value::Object(current)) => match value {
                Value::Object(value) => merge_objects(current, value, depth)?,
                // Replacing an object, the reference keeps the patch value
                // as written, nulls included.
                _ => doc[key] = value.clone(),
            },
            Some(current) if !current.is_null() => *current = pruned(value, depth)?,
            _ => {
                doc.insert(key.clone(), pruned(value, depth)?);
            }
        }
    }
    Ok(())
}

/// `pruneNulls`: `value` without the null members of its objects, at any
/// depth, arrays included (null array elements stay).
fn pruned(value: &Value, depth: usize) -> Result<Value> {
    let depth = deeper(depth)?;
    Ok(match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map.iter().filter(|(_, v)| !v.is_null()) {
                out.insert(key.clone(), pruned(value, depth)?);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(each(items, |v| pruned(v, depth))?),
        other => other.clone(),
    })
}

/// `createObjectMergePatch`: both sides decode into a Go map, so each must
/// be an object or `null`.
fn object_patch(original: &Value, modified: &Value) -> Result<Value> {
    let empty = Map::new();
    let original = object_or_empty(original, &empty)?;
    let modified = object_or_empty(modified, &empty)?;
    object_diff(original, modified, 0).map(Value::Object)
}

fn object_or_empty<'a>(value: &'a Value, empty: &'a Map<String, Value>) -> Result<&'a Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(empty),
        _ => Err(ErrorKind::BadMergeDocument.into()),
    }
}

/// `getDiff`: what changed from `a` to `b`, values written as the
/// reference decoded them (numbers as `float64`).
fn object_diff(a: &Map<String, Value>, b: &Map<String, Value>, depth: usize) -> Result<Map<String, Value>> {
    let depth = deeper(depth)?;
    let mut into = Map::new();
    for (key, bv) in b {
        let Some(av) = a.get(key) else {
            into.insert(key.clone(), as_float64(bv, depth)?);
            continue;
        };
        match (av, bv) {
            (Value::Object(am), Value::Object(bm)) => {
                let sub = object_diff(am, bm, depth)?;
                if !sub.is_empty() {
                    into.insert(key.clone(), Value::Object(sub));
                }
            }
            (Value::Null, Value::Null) => {}
            _ if same_float64(av, bv, depth)? => {}
            _ => {
                into.insert(key.clone(), as_float64(bv, depth)?);
            }
        }
    }
    for key in a.keys().filter(|k| !b.contains_key(*k)) {
        into.insert(key.clone(), Value::Null);
    }
    Ok(into)
}

/// `matchesValue`: equal as the reference decodes JSON (numbers as
/// `float64`, so `1` equals `1.0`).
fn same_float64(a: &Value, b: &Value, depth: usize) -> Result<bool> {
    let depth = deeper(depth)?;
    Ok(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (x, y) in x.iter().zip(y) {
                if !same_float64(x, y, depth)? {
                    return Ok(false);
                }
            }
            true
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (key, y) in y {
                match x.get(key) {
                    Some(x) if same_float64(x, y, depth)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        _ => false,
    })
}

/// `f` of each item, in order; the first error.
fn each(items: &[Value], f: impl Fn(&Value) -> Result<Value>) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        out.push(f(v)?);
    }
    Ok(out)
}

/// `value` with every number turned into the `float64` the reference
/// decoded, written as Go writes it (integral values without a fraction).
fn as_float64(value: &Value, depth: usize) -> Result<Value> {
    let depth = deeper(depth)?;
    Ok(match value {
        Value::Number(n) => Value::Number(float64_number(n)),
        Value::Array(items) => Value::Array(each(items, |v| as_float64(v, depth))?),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                out.insert(key.clone(), as_float64(value, depth)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// The number as the reference writes the `float64` it decoded, and as
/// its receiver reads that text back: Go writes a float's shortest digits
/// (2^62 as `4611686018427388000`, not its exact `4611686018427387904`),
/// and a text without fraction or exponent that fits an `int64` is read as
/// that integer; any other value stays a float (which smp's writers print
/// as Go does).
fn float64_number(n: &Number) -> Number {
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // `-0` reads back as the integer 0.
        if let Ok(i) = crate::value::go_float(f).parse::<i64>() {
            return Number::from(i);
        }
    }
    Number::from_f64(f).unwrap_or_else(|| n.clone())
}

/// `keepOrDeleteNullInObj`: with `keep_null`, only the nulls (the
/// deletions) and the objects that lead to them; otherwise everything but
/// the nulls. An empty object is a value, kept only without `keep_null`.
fn keep_or_drop_nulls(patch: &Value, keep_null: bool, depth: usize) -> Result<Map<String, Value>> {
    let depth = deeper(depth)?;
    let Value::Object(map) = patch else {
        // The reference decodes the patch into a map: an array of patches
        // does not go further.
        return Err(ErrorKind::BadMergeDocument.into());
    };
    let mut out = Map::new();
    for (key, value) in map {
        match value {
            Value::Null if keep_null => {
                out.insert(key.clone(), Value::Null);
            }
            Value::Null => {}
            // An explicitly empty object is a value, not an empty patch.
            Value::Object(sub) if sub.is_empty() && keep_null => {}
            Value::Object(sub) if sub.is_empty() => {
                out.insert(key.clone(), value.clone());
            }
            Value::Object(_) => {
                let sub = keep_or_drop_nulls(value, keep_null, depth)?;
                if !sub.is_empty() {
                    out.insert(key.clone(), Value::Object(sub));
                }
            }
            _ if !keep_null => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_float64_in_the_two_way_diff() {
        let big = 9_007_199_254_740_993_u64; // 2^53 + 1
        assert_eq!(create(&json!({"a": 3}), &json!({"a": 3.0})).unwrap(), json!({}));
        assert_eq!(create(&json!({"a": 9_007_199_254_740_992_u64}), &json!({"a": big})).unwrap(), json!({}));
        assert_eq!(
            create(&json!({}), &json!({"a": [big, 1.5]})).unwrap(),
            json!({"a": [9_007_199_254_740_992_u64, 1.5]})
        );
        assert_eq!(create(&json!({"a": 1}), &json!({"a": "1"})).unwrap(), json!({"a": "1"}));
    }

    /// What kubectl sends for a custom resource (`kubectl edit`'s two-way
    /// patch and `kubectl apply`'s three-way one, both through float64;
    /// `tests/kubectl/merge_patch.rs` checks them against kubectl itself):
    /// every number as Go writes a float64, read back as an integer where
    /// that text is one that fits int64.
    #[test]
    fn numbers_are_written_as_go_writes_float64() {
        use crate::value::to_go_json;
        let modified = json!({
            "b": 4_611_686_018_427_387_904_u64, "c": 9_007_199_254_740_993_u64, "h": 3.0,
            "i": i64::MAX, "j": 123_456_789_012_345_678_u64, "k": i64::MIN, "e": -0.0,
            "d": 1e20, "g": 1e21, "l": [4_611_686_018_427_387_904_u64, 1.5]
        });
        let patch = create(&json!({}), &modified).unwrap();
        assert_eq!(
            to_go_json(&patch),
            r#"{"b":4611686018427388000,"c":9007199254740992,"d":100000000000000000000,"e":0,"g":1e+21,"h":3,"i":9223372036854776000,"j":123456789012345680,"k":-9223372036854776000,"l":[4611686018427388000,1.5]}"#
        );
        // The receiver reads the integers Go's text gives.
        assert_eq!(patch["b"].as_i64(), Some(4_611_686_018_427_388_000));
        assert!(patch["i"].is_f64(), "beyond int64 as Go writes it: a float");
        // Apply keeps the patch's numbers as written.
        let applied = apply(&json!({}), &json!({"b": 4_611_686_018_427_387_904_u64})).unwrap();
        assert_eq!(applied["b"].as_u64(), Some(4_611_686_018_427_387_904));
    }

    #[test]
    fn two_way_removals_nulls_and_arrays_of_documents() {
        assert_eq!(create(&json!({"a": {"b": 1}}), &json!({"a": {}})).unwrap(), json!({"a": {"b": null}}));
        assert_eq!(create(&json!({"a": null}), &json!({"a": null})).unwrap(), json!({}));
        assert_eq!(create(&json!({"a": 1}), &json!({"a": null})).unwrap(), json!({"a": null}));
        assert_eq!(create(&Value::Null, &json!({"a": 1})).unwrap(), json!({"a": 1}));
        assert_eq!(create(&json!([{"a": 1}, {}]), &json!([{"a": 2}, {}])).unwrap(), json!([{"a": 2}, {}]));
        let kind = |r: Result<Value>| r.unwrap_err().kind;
        assert_eq!(kind(create(&json!([{}]), &json!([]))), ErrorKind::BadMergeDocument);
        assert_eq!(kind(create(&json!([]), &json!({}))), ErrorKind::MismatchedMergeDocuments);
        assert_eq!(kind(create(&json!("s"), &json!({}))), ErrorKind::BadMergeDocument);
    }

    #[test]
    fn apply_prunes_nulls_of_new_values_only() {
        assert_eq!(apply(&json!({}), &json!({"a": [{"b": null}, null]})).unwrap(), json!({"a": [{}, null]}));
        // An array replacing an object is kept as written.
        assert_eq!(apply(&json!({"a": {}}), &json!({"a": [{"b": null}]})).unwrap(), json!({"a": [{"b": null}]}));
        assert_eq!(apply(&json!({"a": 1}), &json!({"a": {"b": null, "c": 2}})).unwrap(), json!({"a": {"c": 2}}));
        assert_eq!(apply(&json!({"a": null}), &json!({"a": {"b": null}})).unwrap(), json!({"a": {}}));
    }

    #[test]
    fn apply_on_documents_that_are_not_objects() {
        let kind = |r: Result<Value>| r.unwrap_err().kind;
        assert_eq!(kind(apply(&Value::Null, &json!({}))), ErrorKind::BadMergeDocument);
        assert_eq!(kind(apply(&json!({}), &Value::Null)), ErrorKind::BadMergePatch);
        assert_eq!(kind(apply(&json!({}), &json!(1))), ErrorKind::BadMergePatch);
        assert_eq!(apply(&json!([1]), &json!({"a": null, "b": 1})).unwrap(), json!({"b": 1}));
        assert_eq!(apply(&json!({"a": 1}), &json!([{"x": null}, null])).unwrap(), json!([{}, null]));
    }

    #[test]
    fn three_way_keeps_what_others_added_and_checks_preconditions() {
        let original = json!({"kind": "W", "spec": {"a": 1, "b": {"c": 1}}});
        let modified = json!({"kind": "W", "spec": {"a": 2, "b": {}}});
        let current = json!({"kind": "W", "spec": {"a": 1, "b": {"c": 1, "d": 1}, "e": 1}});
        let patch = three_way(&original, &modified, &current, &Precondition::KUBECTL).unwrap();
        assert_eq!(patch, json!({"spec": {"a": 2, "b": {"c": null}}}));
        let renamed = json!({"kind": "X"});
        let err = three_way(&original, &renamed, &current, &Precondition::KUBECTL).unwrap_err();
        assert!(matches!(err.kind, ErrorKind::PreconditionFailed { .. }), "{err}");
    }

    #[test]
    fn depth_is_bounded() {
        let mut deep = json!(1);
        for _ in 0..(MAX_DEPTH + 10) {
            deep = json!({ "a": deep });
        }
        let kind = |r: Result<Value>| r.unwrap_err().kind;
        assert_eq!(kind(create(&json!({}), &deep)), ErrorKind::TooDeep(MAX_DEPTH));
        assert_eq!(kind(apply(&json!({}), &deep)), ErrorKind::TooDeep(MAX_DEPTH));
        assert_eq!(kind(three_way(&json!({}), &deep, &json!({}), &[])), ErrorKind::TooDeep(MAX_DEPTH));
    }
}
