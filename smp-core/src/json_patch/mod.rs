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

mod apply;

pub use apply::{COPY_BUDGET, apply_ops};

use crate::engine::{MAX_DEPTH, check_nesting};
use crate::error::{ErrorKind, JsonPatchError, Result};
use crate::nesting::check_nesting_from;
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
    check_nesting(live)?;
    check_nesting(desired)?;
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
    check_nesting(live)?;
    check_nesting(desired)?;
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
/// The operations run as the API server's JSON patch library runs them,
/// as `kubectl patch --type json` does ([`apply_ops`] lists where that
/// departs from RFC 6902).
pub fn apply(doc: &Value, patch: &Patch) -> Result<Value> {
    check_nesting(doc)?;
    // Written out as JSON, each value sits in an operation in the list.
    for op in &patch.0 {
        if let PatchOperation::Add(AddOperation { value, .. })
        | PatchOperation::Replace(ReplaceOperation { value, .. })
        | PatchOperation::Test(TestOperation { value, .. }) = op
        {
            check_nesting_from(value, 2)?;
        }
    }
    let ops = serde_json::to_value(patch).map_err(|e| ErrorKind::Serialize(e.to_string()))?;
    apply_ops(doc, &ops)
}

/// Reads a JSON patch: a list of operations. An operation that is not one
/// is refused with its position (`operation 2: missing field "path"`).
pub fn parse(ops: &Value) -> Result<Patch> {
    check_nesting(ops)?;
    let Value::Array(items) = ops else {
        let found = match ops {
            Value::Object(_) => "an object",
            Value::Null => "null",
            _ => "a scalar",
        };
        return Err(ErrorKind::JsonPatch(JsonPatchError::NotAList { found }).into());
    };
    let op = |(i, item): (usize, &Value)| {
        let unreadable = |e: serde_json::Error| JsonPatchError::Unreadable { index: i, message: e.to_string() };
        PatchOperation::deserialize(item).map_err(|e| ErrorKind::JsonPatch(unreadable(e)).into())
    };
    Ok(Patch(items.iter().enumerate().map(op).collect::<Result<_>>()?))
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
        // The guard's test fails: a caller tells this from bad input by its kind.
        let kind = apply(&moved_on, &guarded_patch).unwrap_err().kind;
        let ErrorKind::JsonPatch(JsonPatchError::Failed { index: 0, op, path, reason }) = kind else {
            panic!("{kind:?}")
        };
        assert_eq!((op.as_str(), path.as_deref()), ("test", Some("/metadata/resourceVersion")));
        assert_eq!(reason, crate::error::OperationFailure::TestFailed);
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

    #[test]
    fn each_refusal_has_its_kind_and_says_it() {
        use crate::error::OperationFailure::*;
        let doc = json!({"l": [1, 2], "m": {"n": 1}});
        let failure = |ops: Value| match apply_ops(&doc, &ops).unwrap_err().kind {
            ErrorKind::JsonPatch(JsonPatchError::Failed { index: 0, reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(failure(json!([{"op": "add", "value": 1}])), MissingField("path"));
        assert_eq!(failure(json!([{"op": "move", "path": "/a"}])), MissingField("from"));
        assert_eq!(failure(json!([{"op": "replace", "path": ""}])), MissingField("value"));
        assert_eq!(failure(json!([{"op": "add", "path": 1}])), NotAString { field: "path", found: "a scalar" });
        assert_eq!(failure(json!([{"op": "remove", "path": "/absent"}])), InvalidPath);
        assert_eq!(failure(json!([{"op": "remove", "path": "/l/2"}])), InvalidPath);
        assert_eq!(failure(json!([{"op": "add", "path": "/absent/x", "value": 1}])), InvalidPath);
        assert_eq!(failure(json!([{"op": "copy", "from": "/l/9", "path": "/x"}])), InvalidPath);
        assert_eq!(failure(json!([{"op": "move", "from": "/absent/x", "path": "/x"}])), InvalidFrom);
        assert_eq!(failure(json!([{"op": "test", "path": "/m/n", "value": 2}])), TestFailed);
        assert_eq!(failure(json!([{"op": "test", "path": "/m/n"}])), TestFailed);
        assert_eq!(failure(json!([{"op": "frob", "path": "/m"}])), UnknownOperation("frob".into()));
        let kind = |ops: Value| apply_ops(&doc, &ops).unwrap_err().kind;
        assert_eq!(kind(json!({})), ErrorKind::JsonPatch(JsonPatchError::NotAList { found: "an object" }));
        assert_eq!(kind(json!([[]])), ErrorKind::JsonPatch(JsonPatchError::NotAnObject { index: 0, found: "a list" }));
        let unreadable = parse(&json!([{"op": "add"}])).unwrap_err();
        assert!(matches!(unreadable.kind, ErrorKind::JsonPatch(JsonPatchError::Unreadable { index: 0, .. })));
        // The message names the operation, its path and the kind's words.
        let err = apply_ops(&doc, &json!([{"op": "test", "path": "/m/n", "value": 2}])).unwrap_err();
        assert_eq!(err.to_string(), format!("operation 0 (test /m/n): {TestFailed}"));
        let err = apply_ops(&doc, &json!([{"op": "add", "value": 1}])).unwrap_err();
        assert_eq!(err.to_string(), format!("operation 0 (add): {}", MissingField("path")));
    }
}
