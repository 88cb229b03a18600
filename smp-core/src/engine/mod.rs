//! The JSON engine: strategic merge patch on `serde_json::Value`, guided by a
//! [`Schema`](crate::schema::Schema). Each step follows the Go reference; the
//! function names in comments are the reference's.

pub mod apply;
pub mod conflicts;
pub mod diff;
pub mod preconditions;
pub(crate) mod strict;
pub mod three_way;

use crate::doc::Document;
use crate::error::{ErrorKind, Result};
use crate::lists::element::Elements;
use crate::lists::key::{Field, KeyValue};
pub(crate) use crate::lists::sets::dedup_scalars_in_place;
use crate::value::GoKind;
use serde_json::{Map, Value};
use std::marker::PhantomData;

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

pub(crate) use crate::nesting::{MAX_DEPTH, check_depth, check_nesting, discard};

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

/// The element type shared by the lists (`sliceElementType`).
pub(crate) fn slice_element_type<D: Document>([a, b]: &[&[D]; 2]) -> Result<GoKind> {
    crate::lists::element::element_kind(&Docs::<(), D>::new(()), a, (b.len(), &|i| &b[i]))
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
