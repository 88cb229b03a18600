//! The JSON engine: strategic merge patch on `serde_json::Value`, guided by a
//! [`Schema`](crate::schema::Schema). Each step follows the Go reference; the
//! function names in comments are the reference's.

pub mod apply;
pub mod conflicts;
pub mod diff;
pub mod preconditions;
pub mod three_way;

use crate::doc::{Document, Object as _};
use crate::error::{ErrorKind, Result};
use crate::lists::element::Elements;
use crate::lists::key::{Field, KeyValue};
pub(crate) use crate::lists::sets::dedup_scalars_in_place;
use crate::value::GoKind;
use serde_json::{Map, Value};
use std::marker::PhantomData;

pub(crate) const PATCH: &str = "$patch";
pub(crate) const RETAIN_KEYS: &str = "$retainKeys";
pub(crate) const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
pub(crate) const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// The elements of a list of documents `D` (`serde_json::Value` or the
/// compact document), with the context `C` of the operation (applying or
/// diffing) that the list algorithms need.
pub(crate) struct Docs<C, D> {
    pub(crate) cx: C,
    elements: PhantomData<fn() -> D>,
}

impl<C, D> Docs<C, D> {
    pub(crate) fn new(cx: C) -> Self {
        Docs { cx, elements: PhantomData }
    }
}

impl<C, D: Document> Elements for Docs<C, D> {
    type Elem = D;

    fn field<'e>(&self, e: &'e D, name: &str) -> Field<KeyValue<'e>> {
        e.field(name)
    }

    fn kind(&self, e: &D) -> GoKind {
        e.kind()
    }

    fn to_json(&self, e: &D) -> Result<Value> {
        Ok(e.to_json())
    }
}

/// Documents nested deeper than this (objects and lists counted) are refused
/// on every entry point, typed ones included, rather than risking the
/// stack. (serde_json's parser already stops at 128 levels.)
pub const MAX_DEPTH: usize = 256;

pub(crate) fn check_depth(depth: usize) -> Result<()> {
    if depth > MAX_DEPTH { Err(ErrorKind::TooDeep(MAX_DEPTH).into()) } else { Ok(()) }
}

/// Refuses documents nested deeper than [`MAX_DEPTH`], recursing no deeper
/// than that, before any unbounded recursive step (cloning included)
/// touches them: the check every entry point makes, for callers that copy
/// or print a document first.
pub fn check_nesting(v: &Value) -> Result<()> {
    check_nesting_from(v, 0)
}

/// The nesting check below `depth` open levels: a level is refused before
/// it is entered, so the recursion stops at [`MAX_DEPTH`] levels (a few
/// kilobytes of stack), and it needs no heap.
pub(crate) fn check_nesting_from(v: &Value, depth: usize) -> Result<()> {
    // Plain loops: one small frame per level, in debug builds too.
    match v {
        Value::Object(m) => {
            check_depth(depth + 1)?;
            for c in m.values() {
                check_nesting_from(c, depth + 1)?;
            }
        }
        Value::Array(a) => {
            check_depth(depth + 1)?;
            for c in a {
                check_nesting_from(c, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Drops a value without recursion: serde_json's drop recurses, and a
/// value given away to an entry point, or nested deeper by JSON patch
/// moves, may be deeper than the stack allows.
pub(crate) fn discard(value: Value) {
    if !(value.is_object() || value.is_array()) {
        return;
    }
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// The document a patch operation works on: a JSON object (`null` counts
/// as `{}`), nested no deeper than [`MAX_DEPTH`].
pub(crate) fn document(v: &Value) -> Result<&Map<String, Value>> {
    check_nesting(v)?;
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        _ => Err(ErrorKind::InvalidJsonDocument.into()),
    }
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
pub(crate) fn slice_element_type<D: Document>([a, b]: &[&[D]; 2]) -> Result<GoKind> {
    crate::lists::element::element_kind(&Docs::<(), D>::new(()), a, b.iter())
}

/// A copy of a patch value as it is taken whole into the result: without
/// objects carrying `$patch` (`removeDirectives`) and, when `drop_nulls`,
/// without null object members (`discardNullValuesFromPatch`, which runs
/// first: a null `$patch` member is dropped, not obeyed). `None` when `v`
/// itself is dropped. ([`take_patch_value`] of a clone: what it drops is
/// rare, and copying it first costs nothing measurable.)
pub(crate) fn copy_patch_value<D: Document>(v: &D, drop_nulls: bool) -> Option<D> {
    take_patch_value(v.clone(), drop_nulls)
}

/// A patch value as it is taken whole into the result, from a value the
/// caller gives away: what is kept is moved (see [`copy_patch_value`];
/// without `drop_nulls`, `removeDirectives`).
pub(crate) fn take_patch_value<D: Document>(v: D, drop_nulls: bool) -> Option<D> {
    match v.into_object() {
        Ok(mut m) => {
            if m.get(PATCH).is_some_and(|d| !(drop_nulls && d.is_null())) {
                return None;
            }
            m.retain_members(|_, v| {
                if drop_nulls && v.is_null() {
                    return false;
                }
                take_patch_value(std::mem::take(v), drop_nulls).map(|kept| *v = kept).is_some()
            });
            Some(D::object(m))
        }
        Err(v) => match v.into_array() {
            Ok(a) => Some(D::array(a.into_iter().filter_map(|v| take_patch_value(v, drop_nulls)).collect())),
            Err(v) => Some(v),
        },
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn element_types_must_agree() {
        let a = [json!(1), json!(2)];
        let b = [json!("a")];
        let e = slice_element_type::<Value>(&[&a, &b]).unwrap_err();
        assert_eq!(e.to_string(), "list element types are not identical: [[1 2] [a]]");
        let none: &[Value] = &[];
        assert_eq!(
            slice_element_type(&[none, none]).unwrap_err().to_string(),
            "no elements in any of the given slices"
        );
    }
}
