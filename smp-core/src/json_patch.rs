//! RFC 6902 JSON patches from two objects, for the API server's
//! `application/json-patch+json`, which custom resources accept.
//!
//! A JSON patch addresses list elements by position. A position is only
//! right for the list it was computed from, so:
//! - [`guarded`] starts with a `test` of `/metadata/resourceVersion`: the
//!   server applies the patch only to the very object it was computed from
//!   (else 422, nothing changed), so lists are patched element by element;
//! - [`diff`] has no guard, so it never names a position: a changed list
//!   (keyed or not) is replaced whole, as a merge patch would.
//!
//! The operation types are the `json-patch` crate's (what kube's
//! `Patch::Json` carries), re-exported here. Its own `diff` addresses list
//! elements by position whatever the guard, hence the walk below.

use crate::engine::MAX_DEPTH;
use crate::error::{ErrorKind, Result};
use ::json_patch::jsonptr::PointerBuf;
pub use ::json_patch::{AddOperation, Patch, PatchOperation, RemoveOperation, ReplaceOperation, TestOperation};
use serde::Deserialize as _;
use serde_json::{Map, Value};

/// The JSON patch from `live` to `desired`, without a guard: objects are
/// patched key by key, a changed list is replaced whole.
/// `metadata.resourceVersion` is left out (it is the server's), and so is
/// a `metadata` holding nothing else.
///
/// ```
/// use serde_json::json;
/// use smp_core::json_patch;
///
/// let live = json!({"spec": {"size": 1, "ports": [{"name": "http", "port": 80}]}});
/// let desired = json!({"spec": {"size": 1, "ports": [{"name": "http", "port": 8080}]}});
/// let patch = json_patch::diff(&live, &desired).unwrap();
/// assert_eq!(
///     serde_json::to_value(&patch).unwrap(),
///     json!([{"op": "replace", "path": "/spec/ports", "value": [{"name": "http", "port": 8080}]}])
/// );
/// assert_eq!(json_patch::apply(&live, &patch).unwrap(), desired);
/// ```
pub fn diff(live: &Value, desired: &Value) -> Result<Patch> {
    let mut ops = Vec::new();
    walk(&without_version(live), &without_version(desired), &mut PointerBuf::new(), Lists::Whole, &mut ops, 0)?;
    Ok(Patch(ops))
}

/// The JSON patch from `live` to `desired`, guarded by a `test` that
/// `/metadata/resourceVersion` is still the live object's: the server
/// refuses it (422 Unprocessable Entity) once anything changed the object.
/// Under that guard, list elements are addressed by position.
/// Fails when `live` has no `metadata.resourceVersion` (it was not read
/// from the server).
///
/// ```
/// use serde_json::json;
/// use smp_core::json_patch;
///
/// let live = json!({"metadata": {"resourceVersion": "7"}, "spec": {"ports": [{"name": "http", "port": 80}]}});
/// let desired = json!({"metadata": {"resourceVersion": "7"}, "spec": {"ports": [{"name": "http", "port": 8080}]}});
/// let patch = json_patch::guarded(&live, &desired).unwrap();
/// assert_eq!(
///     serde_json::to_value(&patch).unwrap(),
///     json!([
///         {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
///         {"op": "replace", "path": "/spec/ports/0/port", "value": 8080}
///     ])
/// );
/// ```
pub fn guarded(live: &Value, desired: &Value) -> Result<Patch> {
    let version = live.pointer("/metadata/resourceVersion").and_then(Value::as_str).filter(|v| !v.is_empty());
    let Some(version) = version else { return Err(ErrorKind::NoResourceVersion.into()) };
    let test = TestOperation {
        path: PointerBuf::from_tokens(["metadata", "resourceVersion"]),
        value: Value::String(version.to_string()),
    };
    let mut ops = vec![PatchOperation::Test(test)];
    walk(&without_version(live), &without_version(desired), &mut PointerBuf::new(), Lists::ByPosition, &mut ops, 0)?;
    Ok(Patch(ops))
}

/// `patch` applied to `doc`, all or nothing: on error `doc` is untouched
/// and the message names the operation that failed, by its position in
/// the patch, with its kind and path.
///
/// ```
/// use serde_json::json;
/// use smp_core::json_patch;
///
/// let doc = json!({"spec": {"ports": [80]}});
/// let patch = json_patch::parse(&json!([
///     {"op": "add", "path": "/spec/ports/-", "value": 443},
///     {"op": "remove", "path": "/spec/size"}
/// ]))
/// .unwrap();
/// let err = json_patch::apply(&doc, &patch).unwrap_err();
/// assert_eq!(err.to_string(), "operation 1 (remove /spec/size): path is invalid");
/// ```
///
/// Where the API server's JSON patch library (evanphx/json-patch v4)
/// departs from RFC 6902, this follows it, as `kubectl patch --type json`
/// does: list positions are read as Go's `strconv.Atoi` reads them
/// (`+1`, `01`) and a negative one counts from the end; `replace` of a key
/// an object lacks adds it; `test` compares numbers by value (`1` equals
/// `1.0`) and a missing value equals `null`.
pub fn apply(doc: &Value, patch: &Patch) -> Result<Value> {
    let mut out = doc.clone();
    for (i, op) in patch.0.iter().enumerate() {
        let failed = |op: &PatchOperation, why: &dyn std::fmt::Display| {
            ErrorKind::JsonPatch(format!("operation {i} ({} {}): {why}", op_name(op), op_path(op)))
        };
        let Some(step) = as_the_server_reads_it(op, &out) else { continue };
        if let PatchOperation::Test(test) = &step {
            let found = test.path.resolve(&out).ok();
            if !found.map_or(test.value.is_null(), |found| equal_as_numbers(found, &test.value)) {
                return Err(failed(op, &"value did not match").into());
            }
            continue;
        }
        ::json_patch::patch(&mut out, std::slice::from_ref(&step)).map_err(|e| failed(op, &e.kind))?;
    }
    Ok(out)
}

/// `op` with its paths read against `doc` as the server's library reads
/// them (see [`apply`]).
fn as_the_server_reads_it(op: &PatchOperation, doc: &Value) -> Option<PatchOperation> {
    let at = |path: &PointerBuf| canonical_positions(path, doc, false);
    // Where a value is inserted, the list is one longer.
    let into = |path: &PointerBuf| canonical_positions(path, doc, true);
    Some(match op {
        PatchOperation::Add(o) => PatchOperation::Add(AddOperation { path: into(&o.path), value: o.value.clone() }),
        PatchOperation::Remove(o) => PatchOperation::Remove(RemoveOperation { path: at(&o.path) }),
        PatchOperation::Replace(o) => {
            let path = at(&o.path);
            let parent_lacks_key = path.split_back().is_some_and(|(parent, key)| {
                parent.resolve(doc).ok().and_then(Value::as_object).is_some_and(|m| !m.contains_key(&*key.decoded()))
            });
            if parent_lacks_key {
                PatchOperation::Add(AddOperation { path, value: o.value.clone() })
            } else {
                PatchOperation::Replace(ReplaceOperation { path, value: o.value.clone() })
            }
        }
        PatchOperation::Move(o) => {
            PatchOperation::Move(::json_patch::MoveOperation { from: at(&o.from), path: into(&o.path) })
        }
        PatchOperation::Copy(o) => {
            PatchOperation::Copy(::json_patch::CopyOperation { from: at(&o.from), path: into(&o.path) })
        }
        PatchOperation::Test(o) => PatchOperation::Test(TestOperation { path: at(&o.path), value: o.value.clone() }),
    })
}

/// `path` with each list position under a list of `doc` written as RFC
/// 6902 writes it, read as Go's `strconv.Atoi` reads it, negative ones
/// counted from the end (of the list one longer when the last position is
/// where a value is `inserted`). Positions out of range, and everything
/// below a point `doc` does not reach, are left as written (they fail as
/// before).
fn canonical_positions(path: &PointerBuf, doc: &Value, inserted: bool) -> PointerBuf {
    let mut out = PointerBuf::new();
    let mut here = Some(doc);
    let count = path.count();
    for (n, token) in path.tokens().enumerate() {
        let decoded = token.decoded();
        let position = match here {
            Some(Value::Array(items)) => go_atoi(&decoded).and_then(|i| {
                let len = items.len() + usize::from(inserted && n + 1 == count);
                if i < 0 { len.checked_sub(i.unsigned_abs() as usize) } else { usize::try_from(i).ok() }
            }),
            _ => None,
        };
        here = match (here, position) {
            (Some(Value::Array(items)), Some(i)) => items.get(i),
            (Some(Value::Object(map)), _) => map.get(&*decoded),
            _ => None,
        };
        match position {
            Some(i) => out.push_back(i),
            None => out.push_back(decoded.into_owned()),
        }
    }
    out
}

/// Go's `strconv.Atoi` on 64-bit: an optional sign, then decimal digits.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// JSON equality with numbers compared by value, as Go compares them
/// after decoding both into `float64`.
fn equal_as_numbers(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal_as_numbers(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal_as_numbers(v, w)))
        }
        _ => a == b,
    }
}

fn op_path(op: &PatchOperation) -> &PointerBuf {
    match op {
        PatchOperation::Add(o) => &o.path,
        PatchOperation::Remove(o) => &o.path,
        PatchOperation::Replace(o) => &o.path,
        PatchOperation::Move(o) => &o.path,
        PatchOperation::Copy(o) => &o.path,
        PatchOperation::Test(o) => &o.path,
    }
}

/// Reads a JSON patch: a list of operations. An operation that is not one
/// is refused with its position (`operation 2: missing field "path"`).
pub fn parse(ops: &Value) -> Result<Patch> {
    let Value::Array(items) = ops else {
        let what = match ops {
            Value::Object(_) => "an object",
            Value::Null => "null",
            _ => "a scalar",
        };
        return Err(ErrorKind::JsonPatch(format!("a JSON patch is a list of operations, not {what}")).into());
    };
    let op = |(i, item): (usize, &Value)| {
        PatchOperation::deserialize(item).map_err(|e| ErrorKind::JsonPatch(format!("operation {i}: {e}")).into())
    };
    Ok(Patch(items.iter().enumerate().map(op).collect::<Result<_>>()?))
}

fn op_name(op: &PatchOperation) -> &'static str {
    match op {
        PatchOperation::Add(_) => "add",
        PatchOperation::Remove(_) => "remove",
        PatchOperation::Replace(_) => "replace",
        PatchOperation::Move(_) => "move",
        PatchOperation::Copy(_) => "copy",
        PatchOperation::Test(_) => "test",
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Lists {
    Whole,
    ByPosition,
}

fn without_version(object: &Value) -> std::borrow::Cow<'_, Value> {
    match object.pointer("/metadata/resourceVersion") {
        None => std::borrow::Cow::Borrowed(object),
        Some(_) => {
            let mut object = object.clone();
            if let Value::Object(root) = &mut object
                && let Some(Value::Object(metadata)) = root.get_mut("metadata")
            {
                metadata.remove("resourceVersion");
                if metadata.is_empty() {
                    root.remove("metadata");
                }
            }
            std::borrow::Cow::Owned(object)
        }
    }
}

fn walk(
    live: &Value,
    desired: &Value,
    path: &mut PointerBuf,
    lists: Lists,
    ops: &mut Vec<PatchOperation>,
    depth: usize,
) -> Result<()> {
    if depth >= MAX_DEPTH {
        return Err(ErrorKind::TooDeep(MAX_DEPTH).into());
    }
    match (live, desired) {
        (Value::Object(live), Value::Object(desired)) => walk_object(live, desired, path, lists, ops, depth + 1),
        (Value::Array(live), Value::Array(desired)) if lists == Lists::ByPosition && live != desired => {
            for (i, (l, d)) in live.iter().zip(desired).enumerate() {
                path.push_back(i);
                walk(l, d, path, lists, ops, depth + 1)?;
                path.pop_back();
            }
            for (i, value) in desired.iter().enumerate().skip(live.len()) {
                ops.push(PatchOperation::Add(AddOperation { path: path.with_trailing_token(i), value: value.clone() }));
            }
            // From the end, so that every position is still valid.
            for i in (desired.len()..live.len()).rev() {
                ops.push(PatchOperation::Remove(RemoveOperation { path: path.with_trailing_token(i) }));
            }
            Ok(())
        }
        _ if live == desired => Ok(()),
        _ => {
            ops.push(PatchOperation::Replace(ReplaceOperation { path: path.clone(), value: desired.clone() }));
            Ok(())
        }
    }
}

fn walk_object(
    live: &Map<String, Value>,
    desired: &Map<String, Value>,
    path: &mut PointerBuf,
    lists: Lists,
    ops: &mut Vec<PatchOperation>,
    depth: usize,
) -> Result<()> {
    for (key, value) in desired {
        match live.get(key) {
            Some(old) => {
                path.push_back(key);
                walk(old, value, path, lists, ops, depth)?;
                path.pop_back();
            }
            None => ops
                .push(PatchOperation::Add(AddOperation { path: path.with_trailing_token(key), value: value.clone() })),
        }
    }
    for key in live.keys().filter(|k| !desired.contains_key(*k)) {
        ops.push(PatchOperation::Remove(RemoveOperation { path: path.with_trailing_token(key) }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(patch: &Patch) -> Value {
        serde_json::to_value(patch).unwrap()
    }

    #[test]
    fn positions_only_under_the_guard() {
        let live = json!({"metadata": {"resourceVersion": "3"}, "l": [1, 2, 3], "m": {"a/b": 1, "c~": 2}});
        let desired = json!({"metadata": {"resourceVersion": "3"}, "l": [1, 5], "m": {"a/b": 2}});
        assert_eq!(
            ops(&diff(&live, &desired).unwrap()),
            json!([
                {"op": "replace", "path": "/l", "value": [1, 5]},
                {"op": "replace", "path": "/m/a~1b", "value": 2},
                {"op": "remove", "path": "/m/c~0"}
            ])
        );
        let guarded_patch = guarded(&live, &desired).unwrap();
        assert_eq!(
            ops(&guarded_patch),
            json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": "3"},
                {"op": "replace", "path": "/l/1", "value": 5},
                {"op": "remove", "path": "/l/2"},
                {"op": "replace", "path": "/m/a~1b", "value": 2},
                {"op": "remove", "path": "/m/c~0"}
            ])
        );
        assert_eq!(apply(&live, &guarded_patch).unwrap(), desired);
        let moved_on = json!({"metadata": {"resourceVersion": "4"}, "l": [1, 2, 3], "m": {}});
        assert!(apply(&moved_on, &guarded_patch).is_err());
    }

    #[test]
    fn growing_lists_and_the_server_version() {
        let live = json!({"metadata": {"resourceVersion": "3"}, "l": [1]});
        let desired = json!({"l": [1, 2, 3]});
        let patch = guarded(&live, &desired).unwrap();
        assert_eq!(
            ops(&patch),
            json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": "3"},
                {"op": "add", "path": "/l/1", "value": 2},
                {"op": "add", "path": "/l/2", "value": 3}
            ])
        );
        assert_eq!(apply(&live, &patch).unwrap(), json!({"metadata": {"resourceVersion": "3"}, "l": [1, 2, 3]}));
        assert_eq!(guarded(&json!({}), &desired).unwrap_err().kind, ErrorKind::NoResourceVersion);
    }

    #[test]
    fn the_server_librarys_departures_from_the_rfc() {
        let doc = json!({"l": [1, 2, 3], "m": {"n": 1}});
        let run = |ops: Value| apply(&doc, &parse(&ops).unwrap());
        let replaced = run(json!([{"op": "replace", "path": "/m/absent", "value": 2}])).unwrap();
        assert_eq!(replaced["m"], json!({"n": 1, "absent": 2}));
        let removed = run(json!([{"op": "remove", "path": "/l/-1"}, {"op": "add", "path": "/l/-1", "value": 9}]));
        assert_eq!(removed.unwrap()["l"], json!([1, 2, 9]), "-1 where a value goes in is the end");
        assert_eq!(run(json!([{"op": "replace", "path": "/l/+01", "value": 0}])).unwrap()["l"], json!([1, 0, 3]));
        assert!(
            run(json!([{"op": "test", "path": "/m/n", "value": 1.0}, {"op": "test", "path": "/x", "value": null}]))
                .is_ok()
        );
        let err = run(json!([{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/l/-4"}])).unwrap_err();
        assert_eq!(err.to_string(), "operation 1 (remove /l/-4): path is invalid");
        assert!(run(json!([{"op": "test", "path": "/x", "value": 0}])).is_err());
    }
}
