//! JSON patches applied as the API server and kubectl apply them: with
//! evanphx/json-patch v4, which departs from RFC 6902 where a client can
//! see it:
//!
//! - a path is split at `/` and what comes before the first `/` is
//!   ignored (`spec/replicas` names `/replicas`; `~0` and `~1` are the only
//!   escapes, any other `~` is itself);
//! - a list position is read as Go's `strconv.Atoi` reads it (`+1`, `01`)
//!   and a negative one counts from the end;
//! - `replace` of a key an object lacks adds it; `replace` of the whole
//!   document with a value that is not an object or a list does nothing;
//!   `add` of the whole document fails;
//! - a missing `value` is `null` (`test` without one fails); `copy` from a
//!   key an object lacks copies `null`;
//! - `test` compares numbers by value (`1` equals `1.0`), and a key that is
//!   missing equals `null`.
//!
//! A patch cannot make `copy` duplicate more than [`COPY_BUDGET`] values
//! beyond the size of the input, and the patched document is nested at
//! most [`MAX_DEPTH`](crate::engine::MAX_DEPTH) levels. A `move` takes the
//! value out and puts it in: it costs the length of its paths, not the
//! size of the value, so nothing measures the value on its way. In between
//! operations the document may therefore nest deeper (moves can chain its
//! containers); nothing here recurses into it then (values are dropped by
//! [`discard`], compared against the patch's own bounded values, and
//! copied only when bounded), and the result is measured once, at the end.

use crate::engine::{MAX_DEPTH, check_nesting, discard};
use crate::error::{ErrorKind, JsonPatchError, OperationFailure, Result};
use OperationFailure::{InvalidFrom, InvalidPath, MissingField, TestFailed};
use serde_json::{Map, Value};

/// How many values `copy` operations may duplicate in one patch, beyond
/// ten times the values of the document and the patch: repeated copies
/// of a copy would otherwise grow the document exponentially.
pub const COPY_BUDGET: usize = 1_000_000;

/// `ops`, a JSON patch as JSON text reads, applied to `doc`, all or
/// nothing. An error names the operation by its position, with its kind
/// and path.
pub fn apply_ops(doc: &Value, ops: &Value) -> Result<Value> {
    check_nesting(doc)?;
    check_nesting(ops)?;
    let Value::Array(items) = ops else {
        return Err(refused(JsonPatchError::NotAList { found: what(ops) }));
    };
    // The library decodes every operation before it applies one.
    let mut steps = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(op) = item else {
            return Err(refused(JsonPatchError::NotAnObject { index: i, found: what(item) }));
        };
        steps.push(op);
    }
    let mut budget = COPY_BUDGET.saturating_add(10 * (size(doc) + size(ops)));
    let mut out = doc.clone();
    for (i, op) in steps.into_iter().enumerate() {
        let kind = op.get("op").and_then(Value::as_str).unwrap_or("unknown");
        let path = op.get("path").and_then(Value::as_str);
        if let Err(reason) = step(&mut out, kind, op, &mut budget) {
            discard(out);
            let (op, path) = (kind.to_string(), path.map(str::to_string));
            return Err(refused(JsonPatchError::Failed { index: i, op, path, reason }));
        }
    }
    if let Err(too_deep) = check_nesting(&out) {
        discard(out);
        return Err(too_deep);
    }
    Ok(out)
}

fn refused(why: JsonPatchError) -> crate::Error {
    ErrorKind::JsonPatch(why).into()
}

/// One operation on `doc`.
fn step(doc: &mut Value, kind: &str, op: &Map<String, Value>, budget: &mut usize) -> Result<(), OperationFailure> {
    let value = || op.get("value").cloned().unwrap_or(Value::Null);
    match kind {
        "add" => {
            let (at, key) = find(doc, field(op, "path")?).ok_or(InvalidPath)?;
            add(container(doc, &at), &key, value())
        }
        "remove" => {
            let (at, key) = find(doc, field(op, "path")?).ok_or(InvalidPath)?;
            remove(container(doc, &at), &key).map(discard)
        }
        "replace" => {
            let path = field(op, "path")?;
            if path.is_empty() {
                if !op.contains_key("value") {
                    return Err(MissingField("value"));
                }
                // The library keeps the document when the value is not one.
                let value = value();
                if value.is_object() || value.is_array() {
                    discard(std::mem::replace(doc, value));
                }
                return Ok(());
            }
            let (at, key) = find(doc, path).ok_or(InvalidPath)?;
            let con = container(doc, &at);
            get(con, &key)?;
            set(con, &key, value())
        }
        "move" => {
            let (from, from_key) = find(doc, field(op, "from")?).ok_or(InvalidFrom)?;
            let moved = remove(container(doc, &from), &from_key)?;
            let Some((at, key)) = find(doc, field(op, "path")?) else {
                discard(moved);
                return Err(InvalidPath);
            };
            add(container(doc, &at), &key, moved)
        }
        "copy" => {
            let (from, from_key) = find(doc, field(op, "from")?).ok_or(InvalidFrom)?;
            let copied = get(container(doc, &from), &from_key)?;
            // Moves may have nested it deeper than a clone may recurse.
            if copied.is_some_and(|v| check_nesting(v).is_err()) {
                return Err(OperationFailure::CopiedTooDeep(MAX_DEPTH));
            }
            let copied = copied.cloned().unwrap_or(Value::Null);
            *budget = budget.checked_sub(size(&copied)).ok_or(OperationFailure::TooManyCopies)?;
            let (at, key) = find(doc, field(op, "path")?).ok_or(InvalidPath)?;
            add(container(doc, &at), &key, copied)
        }
        "test" => {
            let path = field(op, "path")?;
            let Some(expected) = op.get("value") else { return Err(TestFailed) };
            let found = if path.is_empty() {
                Some(&*doc)
            } else {
                let (at, key) = find(doc, path).ok_or(InvalidPath)?;
                get(container(doc, &at), &key)?
            };
            let matches = match found {
                None => expected.is_null(),
                Some(found) => equal_as_numbers(found, expected),
            };
            if matches { Ok(()) } else { Err(TestFailed) }
        }
        other => Err(OperationFailure::UnknownOperation(other.to_string())),
    }
}

/// A string field of the operation (`path`, `from`).
fn field<'o>(op: &'o Map<String, Value>, name: &'static str) -> Result<&'o str, OperationFailure> {
    match op.get(name) {
        None | Some(Value::Null) => Err(MissingField(name)),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(OperationFailure::NotAString { field: name, found: what(other) }),
    }
}

/// One step from a container to a value in it.
enum Step {
    Key(String),
    Index(usize),
}

/// The container a path ends in (as steps from the root) and the last
/// token, decoded; `None` when the path does not lead to an object or a
/// list.
fn find(doc: &Value, path: &str) -> Option<(Vec<Step>, String)> {
    let mut tokens = path.split('/');
    // Whatever stands before the first `/` is not read.
    tokens.next();
    let mut tokens: Vec<String> = tokens.map(decode).collect();
    let key = tokens.pop()?;
    let mut here = doc;
    let mut steps = Vec::with_capacity(tokens.len());
    for token in tokens {
        let (step, next) = match here {
            Value::Object(map) => {
                let next = map.get(&token)?;
                (Step::Key(token), next)
            }
            Value::Array(items) => {
                let i = position(&token, items.len())?;
                (Step::Index(i), &items[i])
            }
            _ => return None,
        };
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        steps.push(step);
        here = next;
    }
    (here.is_object() || here.is_array()).then_some((steps, key))
}

/// A path token with `~1` read as `/` and `~0` as `~`, in one pass.
fn decode(token: &str) -> String {
    if !token.contains('~') {
        return token.to_string();
    }
    let mut out = String::with_capacity(token.len());
    let mut rest = token;
    while let Some(i) = rest.find('~') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match rest.as_bytes().get(1) {
            Some(b'1') => out.push('/'),
            Some(b'0') => out.push('~'),
            _ => {
                out.push('~');
                rest = &rest[1..];
                continue;
            }
        }
        rest = &rest[2..];
    }
    out.push_str(rest);
    out
}

/// The container `steps` lead to (found by [`find`] on this document).
fn container<'d>(doc: &'d mut Value, steps: &[Step]) -> &'d mut Value {
    steps.iter().fold(doc, |here, step| match (here, step) {
        (Value::Object(map), Step::Key(key)) => map.get_mut(key).expect("found by `find`"),
        (Value::Array(items), Step::Index(i)) => &mut items[*i],
        _ => unreachable!("`find` walked the same document"),
    })
}

/// A list position as the library reads it: Go's `strconv.Atoi`, a
/// negative one counted back from `len`; `None` out of `0..len`.
fn position(token: &str, len: usize) -> Option<usize> {
    let i = go_atoi(token)?;
    let i = if i < 0 { len.checked_sub(usize::try_from(i.unsigned_abs()).ok()?)? } else { usize::try_from(i).ok()? };
    (i < len).then_some(i)
}

/// Go's `strconv.Atoi` on 64-bit: an optional sign, then decimal digits.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Puts `value` in at `key`; on error it is discarded.
fn add(con: &mut Value, key: &str, value: Value) -> Result<(), OperationFailure> {
    match con {
        Value::Object(map) => {
            if let Some(old) = map.insert(key.to_string(), value) {
                discard(old);
            }
            Ok(())
        }
        Value::Array(items) if key == "-" => {
            items.push(value);
            Ok(())
        }
        Value::Array(items) => {
            // One past the end is where a value goes in.
            let Some(i) = position(key, items.len() + 1) else {
                discard(value);
                return Err(InvalidPath);
            };
            items.insert(i, value);
            Ok(())
        }
        _ => {
            discard(value);
            Err(InvalidPath)
        }
    }
}

fn remove(con: &mut Value, key: &str) -> Result<Value, OperationFailure> {
    match con {
        Value::Object(map) => map.remove(key).ok_or(InvalidPath),
        Value::Array(items) => {
            let i = position(key, items.len()).ok_or(InvalidPath)?;
            Ok(items.remove(i))
        }
        _ => Err(InvalidPath),
    }
}

/// The value at `key`: `None` when an object lacks it or it is `null` (the
/// library holds both as nothing); a position outside a list is an error.
fn get<'c>(con: &'c Value, key: &str) -> Result<Option<&'c Value>, OperationFailure> {
    let found = match con {
        Value::Object(map) => map.get(key),
        Value::Array(items) => Some(&items[position(key, items.len()).ok_or(InvalidPath)?]),
        _ => return Err(InvalidPath),
    };
    Ok(found.filter(|v| !v.is_null()))
}

/// Sets the value at `key` (found by [`get`]); the value it replaces is
/// discarded.
fn set(con: &mut Value, key: &str, value: Value) -> Result<(), OperationFailure> {
    let old = match con {
        Value::Object(map) => map.insert(key.to_string(), value),
        Value::Array(items) => {
            let i = position(key, items.len()).ok_or(InvalidPath)?;
            Some(std::mem::replace(&mut items[i], value))
        }
        _ => return Err(InvalidPath),
    };
    if let Some(old) = old {
        discard(old);
    }
    Ok(())
}

/// JSON equality with numbers compared by value, as the library compares
/// them. It recurses only as deep as both values go, and the patch's
/// value is bounded.
pub(super) fn equal_as_numbers(a: &Value, b: &Value) -> bool {
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

/// How many values a value holds, itself included, without recursion.
fn size(value: &Value) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    count
}

fn what(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::Array(_) => "a list",
        Value::Null => "null",
        _ => "a scalar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_decode_in_one_pass_and_other_tildes_stay() {
        assert_eq!(decode("a~1b~0c"), "a/b~c");
        assert_eq!(decode("~01"), "~1");
        assert_eq!(decode("~2~"), "~2~");
    }

    #[test]
    fn repeated_copies_cannot_grow_the_document_exponentially() {
        // Each copy doubles the list: 40 of them would hold 2^40 values.
        let doc = json!({"a": [[0, 0, 0, 0, 0, 0, 0, 0]]});
        let ops: Vec<Value> = (0..40).map(|_| json!({"op": "copy", "from": "/a", "path": "/a/-"})).collect();
        let err = apply_ops(&doc, &Value::Array(ops)).unwrap_err();
        assert!(err.to_string().contains("copies duplicate too many values"), "{err}");
    }

    #[test]
    fn no_operation_nests_the_document_beyond_the_bound() {
        let mut deep = json!(1);
        for _ in 0..MAX_DEPTH - 1 {
            deep = json!([deep]);
        }
        let doc = json!({"a": deep, "b": {}});
        let moved = apply_ops(&doc, &json!([{"op": "move", "from": "/a", "path": "/b/a"}])).unwrap_err();
        assert!(moved.to_string().contains("nested deeper than"), "{moved}");
        let copied = apply_ops(&doc, &json!([{"op": "copy", "from": "/a", "path": "/b/a"}])).unwrap_err();
        assert!(copied.to_string().contains("nested deeper than"), "{copied}");
        assert!(apply_ops(&doc, &json!([{"op": "move", "from": "/a", "path": "/c"}])).is_ok());
    }

    /// `{"k0": {}, "k1": {}, ...}` and the moves that chain its objects:
    /// `k0` into `k1`, then `k1` into `k2`, ... `levels` deep in all.
    fn chained_by_moves(levels: usize) -> (Value, Vec<Value>) {
        let doc: Map<String, Value> = (0..levels).map(|i| (format!("k{i}"), json!({}))).collect();
        let moves =
            (1..levels).map(|i| json!({"op": "move", "from": format!("/k{}", i - 1), "path": format!("/k{i}/c")}));
        (Value::Object(doc), moves.collect())
    }

    #[test]
    fn moves_may_nest_deeper_in_between_and_the_result_is_measured() {
        let run = || {
            let levels = 10_000;
            let (doc, moves) = chained_by_moves(levels);
            let last = format!("/k{}", levels - 1);
            // Left 10,000 deep: refused, and dropped without recursion.
            let err = apply_ops(&doc, &Value::Array(moves.clone())).unwrap_err();
            assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
            // Failing later: the deep document is dropped as well.
            let mut failing = moves.clone();
            failing.push(json!({"op": "remove", "path": "/absent"}));
            let err = apply_ops(&doc, &Value::Array(failing)).unwrap_err();
            assert!(err.to_string().contains("path is invalid"), "{err}");
            // A copy of the deep chain is refused before it is cloned.
            let mut copied = moves.clone();
            copied.push(json!({"op": "copy", "from": last.clone(), "path": "/copy"}));
            let err = apply_ops(&doc, &Value::Array(copied)).unwrap_err();
            assert!(err.to_string().contains("value copied is nested deeper"), "{err}");
            // Removed again before the end: accepted.
            let mut undone = moves;
            undone.push(json!({"op": "remove", "path": format!("{last}/c")}));
            let out = apply_ops(&doc, &Value::Array(undone)).unwrap();
            assert_eq!(out, json!({format!("k{}", levels - 1): {}}));
        };
        let on_small_stack = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(run).unwrap();
        on_small_stack.join().expect("no stack overflow");
    }
}
