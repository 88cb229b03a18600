//! The JSON engine: strategic merge patch on `serde_json::Value`, guided by a
//! [`Schema`](crate::schema::Schema). Each step follows the Go reference; the
//! function names in comments are the reference's.

pub mod apply;
pub mod conflicts;
pub mod diff;
pub mod order;
pub mod preconditions;
pub mod three_way;

use crate::error::{Error, ErrorKind, Result};
use crate::value::{GoKind, ScalarKey, fmt_v_list};
use serde_json::Value;
use std::collections::HashMap;

pub(crate) const PATCH: &str = "$patch";
pub(crate) const RETAIN_KEYS: &str = "$retainKeys";
pub(crate) const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
pub(crate) const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Nesting deeper than this is refused rather than risking the stack.
/// (serde_json's parser already stops at 128 levels.)
pub(crate) const MAX_DEPTH: usize = 256;

pub(crate) fn check_depth(depth: usize) -> Result<()> {
    if depth > MAX_DEPTH { Err(ErrorKind::TooDeep(MAX_DEPTH).into()) } else { Ok(()) }
}

/// Refuses documents nested deeper than [`MAX_DEPTH`], without recursing,
/// before any recursive step (cloning included) touches them.
pub(crate) fn check_nesting(v: &Value) -> Result<()> {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    let nested = |c: &&Value| c.is_object() || c.is_array();
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Object(m) => {
                check_depth(depth + 1)?;
                stack.extend(m.values().filter(nested).map(|c| (c, depth + 1)));
            }
            Value::Array(a) => {
                check_depth(depth + 1)?;
                stack.extend(a.iter().filter(nested).map(|c| (c, depth + 1)));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The field name after a directive prefix (`extractKey`): the key must read
/// `<prefix>/<field>`.
pub(crate) fn directive_field<'k>(key: &'k str, prefix: &str, err: ErrorKind) -> Result<&'k str> {
    match key.split_once('/') {
        Some((p, field)) if p == prefix => Ok(field),
        _ => Err(err.into()),
    }
}

/// The element type shared by the lists (`sliceElementType`).
pub(crate) fn slice_element_type(lists: &[&[Value]]) -> Result<GoKind> {
    let mut kind = None;
    for v in lists.iter().flat_map(|l| l.iter()) {
        let k = GoKind::of(v);
        match kind {
            None if k == GoKind::Null => {
                // The reference dereferences a nil type here and panics.
                return Err(ErrorKind::Unsupported("a merged list may not start with a null element".into()).into());
            }
            None if k == GoKind::Array => return Err(ErrorKind::ListOfLists.into()),
            None => kind = Some(k),
            Some(prev) if prev != k => {
                let all: Vec<String> = lists.iter().map(|l| fmt_v_list(l)).collect();
                return Err(ErrorKind::MixedElementTypes(format!("[{}]", all.join(" "))).into());
            }
            Some(_) => {}
        }
    }
    kind.ok_or_else(|| ErrorKind::NoElements.into())
}

/// Drops objects carrying `$patch` (as values or list elements), at any
/// depth (`removeDirectives`). `None` when `v` itself is such an object.
pub(crate) fn remove_directives(v: Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            if m.contains_key(PATCH) {
                return None;
            }
            Some(Value::Object(m.into_iter().filter_map(|(k, v)| remove_directives(v).map(|v| (k, v))).collect()))
        }
        Value::Array(a) => Some(Value::Array(a.into_iter().filter_map(remove_directives).collect())),
        other => Some(other),
    }
}

/// Removes null object members at any depth; null list elements stay
/// (`discardNullValuesFromPatch`).
pub(crate) fn discard_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

static NULL: Value = Value::Null;

/// What the reference's `index` compares for an element: the merge-key value
/// of an object (nil when missing or not an object), or the element itself.
pub(crate) fn order_key<'v>(item: &'v Value, merge_key: &str, objects: bool) -> &'v Value {
    if objects { item.get(merge_key).unwrap_or(&NULL) } else { item }
}

/// First positions of values in a list, for Go `==` lookups in O(1).
pub(crate) struct KeyIndex<'v> {
    first: HashMap<ScalarKey<'v>, usize>,
    /// Go panics comparing two objects (or two arrays) with `==`.
    has_object: bool,
    has_array: bool,
}

impl<'v> KeyIndex<'v> {
    pub(crate) fn new(keys: impl IntoIterator<Item = &'v Value>) -> Self {
        let mut idx = KeyIndex { first: HashMap::new(), has_object: false, has_array: false };
        for (i, k) in keys.into_iter().enumerate() {
            match ScalarKey::of(k) {
                Some(s) => {
                    idx.first.entry(s).or_insert(i);
                }
                None if k.is_object() => idx.has_object = true,
                None => idx.has_array = true,
            }
        }
        idx
    }

    /// Position of the first element `==` to `key`.
    pub(crate) fn position(&self, key: &Value) -> Result<Option<usize>> {
        match ScalarKey::of(key) {
            Some(s) => Ok(self.first.get(&s).copied()),
            None if (key.is_object() && self.has_object) || (key.is_array() && self.has_array) => Err(uncomparable()),
            None => Ok(None),
        }
    }

    /// [`Self::position`] for the order code, which fails only where it
    /// evaluates the lookup.
    pub(crate) fn lookup(&self, key: &Value) -> order::Lookup {
        self.position(key).map_err(|_| order::Uncomparable)
    }

    pub(crate) fn contains(&self, key: &Value) -> Result<bool> {
        Ok(self.position(key)?.is_some())
    }
}

pub(crate) fn uncomparable() -> Error {
    ErrorKind::Unsupported("objects and lists cannot be compared as merge keys or set members".into()).into()
}

/// Removes duplicates the way the reference's `deduplicateScalars` does:
/// each later duplicate is overwritten by the current last element, so the
/// order is not preserved (`[1,1,2,3]` becomes `[1,3,2]`). Works in place on
/// `buf` like the Go code, leaving stale values past the returned length.
///
/// The Go loop compares every pair; here the copies of each value are found
/// by hashing and visited in position order, and every slot is written as
/// the Go loop writes it, so the result (stale tail included) is the same
/// in linear time (plus sorting the positions of each duplicated value).
pub(crate) fn dedup_scalars_in_place(buf: &mut [Value]) -> Result<usize> {
    let n = buf.len();
    // The value id at each position, and the positions of each value (an
    // entry at or past the current length is stale).
    let mut id_at: Vec<usize> = Vec::with_capacity(n);
    let mut positions: Vec<Vec<usize>> = Vec::new();
    {
        let mut ids: HashMap<ScalarKey<'_>, usize> = HashMap::with_capacity(n);
        for (p, v) in buf.iter().enumerate() {
            let next = positions.len();
            let id = *ids.entry(ScalarKey::of(v).ok_or_else(uncomparable)?).or_insert(next);
            if id == next {
                positions.push(Vec::new());
            }
            positions[id].push(p);
            id_at.push(id);
        }
    }
    if positions.len() == n {
        return Ok(n);
    }
    let mut len = n;
    let mut i = 0;
    while i + 1 < len {
        let x = id_at[i];
        if positions[x].len() > 1 {
            // The later copies of `x`, in position order: the Go loop's holes.
            let mut copies: Vec<usize> = std::mem::take(&mut positions[x]);
            copies.retain(|&p| p > i && p < len);
            copies.sort_unstable();
            // copies[front..back] are still in the list.
            let (mut front, mut back) = (0, copies.len());
            while front < back {
                let hole = copies[front];
                // Go: `s[j] = s[length]; length--`, then `s[j]` is tested again.
                loop {
                    let last = len - 1;
                    if last != hole {
                        buf[hole] = buf[last].clone();
                    }
                    len -= 1;
                    let y = id_at[last];
                    if y == x {
                        // The last element was the last copy of `x`.
                        back -= 1;
                        if last == hole {
                            break;
                        }
                        continue;
                    }
                    id_at[hole] = y;
                    positions[y].push(hole);
                    break;
                }
                front += 1;
            }
        }
        i += 1;
    }
    Ok(len)
}

/// Capacity of a list the reference decoded from JSON: the decoder appends
/// one element at a time, so it is the next power of two (up to 512; larger
/// lists are assumed full, where Go's growth rule gets involved).
pub(crate) fn decoded_capacity(n: usize) -> usize {
    if n == 0 || n > 512 { n } else { n.next_power_of_two() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dedup_scrambles_like_the_reference() {
        let dedup = |x: Value| {
            let mut buf = x.as_array().unwrap().clone();
            let n = dedup_scalars_in_place(&mut buf).unwrap();
            (Value::Array(buf[..n].to_vec()), Value::Array(buf))
        };
        assert_eq!(dedup(json!([1, 1, 2, 3])), (json!([1, 3, 2]), json!([1, 3, 2, 3])));
        assert_eq!(dedup(json!([1, 2, 3])).0, json!([1, 2, 3]));
        assert_eq!(dedup(json!([1, 1, 1])).0, json!([1]));
    }

    /// The reference's quadratic loop, step for step.
    fn dedup_quadratic(s: &mut [Value]) -> usize {
        let mut length = s.len();
        let mut i = 0;
        while i + 1 < length {
            let mut j = i + 1;
            while j < length {
                if crate::value::go_eq(&s[i], &s[j]) == Some(true) {
                    s[j] = s[length - 1].clone();
                    length -= 1;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        length
    }

    #[test]
    fn linear_dedup_writes_what_the_quadratic_loop_writes() {
        // Values that are `==` but print differently (0.0 and -0.0) show
        // which copy each slot received.
        let pool = [json!(0.0), json!(-0.0), json!(1), json!(1.0), json!("1"), json!("a"), json!(true), json!(null)];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for case in 0..20_000 {
            let len = next(14);
            let width = 1 + next(pool.len());
            let list: Vec<Value> = (0..len).map(|_| pool[next(width)].clone()).collect();
            let (mut fast, mut slow) = (list.clone(), list.clone());
            let n_fast = dedup_scalars_in_place(&mut fast).unwrap();
            let n_slow = dedup_quadratic(&mut slow);
            let text = |l: &[Value]| l.iter().map(Value::to_string).collect::<Vec<_>>();
            assert_eq!((n_fast, text(&fast)), (n_slow, text(&slow)), "case {case}: {list:?}");
        }
    }

    #[test]
    fn element_types_must_agree() {
        let a = [json!(1), json!(2)];
        let b = [json!("a")];
        let e = slice_element_type(&[&a, &b]).unwrap_err();
        assert_eq!(e.to_string(), "list element types are not identical: [[1 2] [a]]");
        assert_eq!(slice_element_type(&[&[], &[]]).unwrap_err().to_string(), "no elements in any of the given slices");
    }
}
