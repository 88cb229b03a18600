//! `StrategicMerge` for sets and maps with non-string keys.
//!
//! A set (`BTreeSet`, `HashSet`) is a JSON list whose order means nothing.
//! Its JSON form, as the engine sees it, is in the order the reference
//! sorts lists of scalars (by their `%v` text), so that a `HashSet` gives
//! the same patch whatever its iteration order, and two equal sets give
//! `{}` rather than a `$setElementOrder`. A set of scalars is merged (a
//! patch adds and removes single elements) unless its field says
//! `#[patch(strategy = "replace")]`: without a strategy it merges as with
//! `strategy = "merge"`, in the derived schema too. A set of other
//! elements is replaced whole, as any list.
//!
//! Maps with integer, `char` or `bool` keys are JSON objects whose keys
//! are the keys' text (serde_json's rule); they go through the engine on
//! that form.

use super::depth::elements_ok;
use super::fallback::{self, FieldPatch, from_value, to_value};
use super::walk::{FieldValue, as_field, typed};
use super::{Field, StrategicMerge, Walk};
use crate::engine::diff::Opts;
use crate::error::Result;
use crate::schema::Shape;
use crate::value::fmt_v;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hash;

/// The elements as a JSON list in the reference's order of scalars.
fn in_reference_order<'a, T: Serialize + 'a>(set: impl Iterator<Item = &'a T>) -> Result<Value> {
    let mut items = set.map(|e| to_value(e).map(|v| (fmt_v(&v), v))).collect::<Result<Vec<_>>>()?;
    items.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Value::Array(items.into_iter().map(|(_, v)| v).collect()))
}

/// A set's field diff: the engine's, on both sides in the reference's order.
fn diff_set<'a, S, T>(
    old: Option<&'a S>,
    new: Option<&'a S>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()>
where
    S: PartialEq + 'a,
    &'a S: IntoIterator<Item = &'a T>,
    T: Serialize + 'a,
{
    if let (Some(a), Some(b)) = (old, new)
        && a == b
    {
        // Equal sets in the same (sorted) order: the engine emits nothing.
        return Ok(());
    }
    let json = |s: Option<&'a S>| s.map(|s| in_reference_order(s.into_iter())).transpose();
    let (old, new) = (json(old)?, json(new)?);
    fallback::diff_field(
        old.as_ref().map(|v| v as &dyn FieldValue),
        new.as_ref().map(|v| v as &dyn FieldValue),
        field,
        patch,
        opts,
    )
}

/// A set's field apply: the engine's, on the sorted list; the merged list
/// becomes a set again (the engine already removes duplicates from merged
/// lists of scalars).
fn apply_set<'a, S, T>(set: &'a mut S, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool>
where
    S: DeserializeOwned + 'a,
    for<'s> &'s S: IntoIterator<Item = &'s T>,
    T: Serialize + 'a,
{
    let mut json = if present { in_reference_order((&*set).into_iter())? } else { Value::Null };
    if !fallback::apply_field(&mut json, present, patch, field)? {
        return Ok(false);
    }
    *set = from_value(json).map_err(|e| e.at_key(field.key))?;
    Ok(true)
}

macro_rules! set_impl {
    ($set:ident, $($bound:path),+) => {
        impl<T: StrategicMerge $(+ $bound)+> Walk for $set<T> {
            const __MERGED_SET: bool = T::__SCALAR;
            fn __shape() -> Shape {
                Shape::List(T::__SHAPE)
            }

            fn __depth_ok(&self, open: usize) -> bool {
                elements_ok(T::__shape(), &mut self.iter().map(as_field), open)
            }

            fn __diff_field(
                old: Option<&dyn FieldValue>,
                new: Option<&dyn FieldValue>,
                field: &Field,
                patch: &mut Map<String, Value>,
                opts: Opts,
            ) -> Result<()> {
                diff_set(typed::<Self>(old)?, typed::<Self>(new)?, field, patch, opts)
            }

            fn __apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
                apply_set(self, present, patch, field)
            }
        }
    };
}

set_impl!(BTreeSet, Ord);
set_impl!(HashSet, Eq, Hash);

/// Map keys that serde_json writes as the text of a scalar: integers,
/// `char`, `bool` and (implemented by the derive) enums of unit variants.
/// (`String` keys have their own impl.)
#[doc(hidden)]
pub trait ScalarMapKey: Serialize + DeserializeOwned + Clone + PartialEq + 'static {}

macro_rules! scalar_map_keys {
    ($($t:ty),*) => {$(impl ScalarMapKey for $t {})*};
}

scalar_map_keys!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, char, bool);

macro_rules! scalar_key_map_impl {
    ($map:ident, $($bound:path),+) => {
        /// Through the engine on the JSON object (keys as text); equal maps
        /// need no diff.
        impl<K: ScalarMapKey $(+ $bound)+, T: StrategicMerge> Walk for $map<K, T> {
            fn __shape() -> Shape {
                Shape::Map(T::__SHAPE)
            }

            fn __depth_ok(&self, open: usize) -> bool {
                elements_ok(T::__shape(), &mut self.values().map(as_field), open)
            }

            fn __diff_field(
                old: Option<&dyn FieldValue>,
                new: Option<&dyn FieldValue>,
                field: &Field,
                patch: &mut Map<String, Value>,
                opts: Opts,
            ) -> Result<()> {
                if let (Some(a), Some(b)) = (old, new)
                    && b.same(a)
                    && !field.strategy.replace
                {
                    return Ok(());
                }
                fallback::diff_field(old, new, field, patch, opts)
            }
        }

        impl<K: ScalarMapKey $(+ $bound)+, T: StrategicMerge> super::RetainKeysField for $map<K, T> {}
    };
}

scalar_key_map_impl!(BTreeMap, Ord);
scalar_key_map_impl!(HashMap, Eq, Hash);
