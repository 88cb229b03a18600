//! Lists of structs merged by key, on typed elements: the list algorithms
//! of `lists/` (the same code the JSON engine runs) instantiated for
//! elements that implement [`StrategicMerge`].

use super::fallback::{self, FieldPatch, Outcome, from_ref, from_value, take_new_value, to_value};
use super::{Field, StrategicMerge};
use crate::engine::SET_ELEMENT_ORDER;
use crate::engine::diff::Opts;
use crate::error::{Result, bad_arg};
use crate::lists::element::{DiffElements, Elements, MergeElements};
use crate::lists::key::{self, KeyFields, KeyValue};
use crate::lists::{keyed_diff, keyed_merge};
use crate::schema::MergeKey;
use crate::value::GoKind;
use serde_json::{Map, Value};
use std::marker::PhantomData;

/// A typed element's merge-key field, as its JSON has it.
#[derive(Clone, Copy, Debug)]
pub enum FieldKey<'a> {
    /// serde leaves the field out (or the type has no such field).
    Absent,
    /// The field's type does not expose its JSON scalar (a custom
    /// `Serialize`, a `with` field): only its serialised form has it.
    Opaque,
    /// The field's value.
    Value(KeyValue<'a>),
}

impl<'a> FieldKey<'a> {
    /// The key of a field serde writes (`Some`) or skips (`None`), from its
    /// value's [`StrategicMerge::__as_key`].
    pub fn of(written: Option<Option<KeyValue<'a>>>) -> Self {
        match written {
            None => FieldKey::Absent,
            Some(None) => FieldKey::Opaque,
            Some(Some(v)) => FieldKey::Value(v),
        }
    }
}

/// Typed elements of a keyed list.
pub(crate) struct Typed<T>(PhantomData<fn() -> T>);

impl<T> Typed<T> {
    fn new() -> Self {
        Typed(PhantomData)
    }
}

impl<T: StrategicMerge> Elements for Typed<T> {
    type Elem = T;

    fn field<'e>(&self, e: &'e T, name: &str) -> key::Field<KeyValue<'e>> {
        match e.__field_key(name) {
            FieldKey::Value(v) => key::Field::Value(v),
            // Lists with opaque keys are not given to the list code.
            FieldKey::Absent | FieldKey::Opaque => key::Field::Missing,
        }
    }

    fn kind(&self, _: &T) -> GoKind {
        // Elements of keyed lists are structs deriving field by field.
        GoKind::Object
    }

    fn to_json(&self, e: &T) -> Result<Value> {
        to_value(e)
    }
}

impl<T: StrategicMerge> MergeElements for Typed<T> {
    fn as_member<'e>(&self, _: &'e T) -> Option<KeyValue<'e>> {
        None
    }

    fn merge(&self, e: &mut T, patches: &[&Map<String, Value>]) -> Result<()> {
        match patches {
            [one] => e.__apply_object(one),
            // Several patch elements for one element: merged on its JSON, as
            // the reference merges them (a step in between may not fit `T`).
            several => {
                let merged = merge_json::<T>(to_value(&*e)?, several)?;
                *e = from_value(merged)?;
                Ok(())
            }
        }
    }

    fn build(&self, patch: &Value, then: &[&Map<String, Value>]) -> Result<T> {
        if then.is_empty() {
            return from_ref(patch);
        }
        from_value(merge_json::<T>(patch.clone(), then)?)
    }
}

/// Patch elements merged one after the other into an element's JSON, by
/// the JSON engine with the element type's schema.
fn merge_json<T: StrategicMerge>(elem: Value, patches: &[&Map<String, Value>]) -> Result<Value> {
    let Value::Object(mut m) = elem else { return Err(bad_arg(GoKind::Object, &elem)) };
    for p in patches {
        fallback::apply_map(&mut m, p, T::shape())?;
    }
    Ok(Value::Object(m))
}

/// Typed elements being diffed.
struct TypedDiff<T>(PhantomData<fn() -> T>);

impl<T: StrategicMerge> Elements for TypedDiff<T> {
    type Elem = T;

    fn field<'e>(&self, e: &'e T, name: &str) -> key::Field<KeyValue<'e>> {
        Typed::<T>::new().field(e, name)
    }

    fn kind(&self, _: &T) -> GoKind {
        GoKind::Object
    }

    fn to_json(&self, e: &T) -> Result<Value> {
        to_value(e)
    }
}

impl<T: StrategicMerge> DiffElements for TypedDiff<T> {
    fn diff(&self, old: &T, new: &T, opts: Opts) -> Result<Map<String, Value>> {
        old.__diff_object(new, opts)
    }
}

/// Whether every element exposes its key (or lacks it): no opaque key,
/// which only the element's JSON would show.
fn keys_readable<T: StrategicMerge>(list: &[T], fields: KeyFields<'_>) -> bool {
    list.iter().all(|e| fields.names().iter().all(|n| !matches!(e.__field_key(n), FieldKey::Opaque)))
}

/// The two-way diff of a keyed list field (`diffListsOfMaps` with the
/// ordering of `diffLists`).
pub(crate) fn diff_keyed_list<T: StrategicMerge>(
    old: &[T],
    new: &[T],
    mk: &MergeKey<'_>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let fields = KeyFields::primary(mk);
    if !keys_readable(old, fields) || !keys_readable(new, fields) {
        return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
    }
    let elem_opts = opts.with_retain_keys(field.strategy.retain_keys);
    let list =
        keyed_diff::diff(&TypedDiff::<T>(PhantomData), fields, old, new, elem_opts).map_err(|e| e.at_key(field.key))?;
    if !list.patch.is_empty() {
        patch.insert(field.key.to_string(), Value::Array(list.patch));
    }
    if !list.order.is_empty() {
        patch.insert(format!("{SET_ELEMENT_ORDER}/{}", field.key), Value::Array(list.order));
    }
    Ok(())
}

/// Applies a field's patch entries to a keyed list, as the engine's
/// `mergeMap` does them: `$setElementOrder/f` (with `f`) first, then `f`,
/// then `$deleteFromPrimitiveList/f`. The live list is taken out while it
/// is merged: on error the caller drops the half-merged value.
pub(crate) fn apply_keyed_list<T: StrategicMerge>(
    mut slot: Option<&mut Vec<T>>,
    patch: FieldPatch<'_>,
    mk: &MergeKey<'_>,
    field: &Field,
) -> Result<Outcome<Vec<T>>> {
    let fields = KeyFields::primary(mk);
    if slot.as_deref().is_some_and(|l| !keys_readable(l, fields)) {
        return fallback::apply_field(slot, patch, field);
    }
    let l = Typed::<T>::new();
    let mut list: Option<Vec<T>> = slot.as_deref_mut().map(std::mem::take);
    let mut value = patch.value;
    if let Some(order) = patch.order {
        let key = format!("{SET_ELEMENT_ORDER}/{}", field.key);
        let Value::Array(order) = order else { return Err(bad_arg(GoKind::Array, order).at_key(&key)) };
        let plist = match value.take() {
            None => None,
            Some(Value::Array(p)) => Some(p.as_slice()),
            Some(other) => return Err(bad_arg(GoKind::Array, other).at_key(&key)),
        };
        list = keyed_merge::merge_ordered(&l, fields, list.take(), plist, order, field.strategy.merge)
            .map_err(|e| e.at_key(&key))?;
    }
    match (value, list.take()) {
        (None, kept) => list = kept,
        (Some(Value::Null), _) => {}
        (Some(v @ Value::Array(p)), Some(orig)) => {
            let merged =
                if field.strategy.merge { keyed_merge::merge(&l, fields, orig, p, false) } else { from_ref(v) };
            list = Some(merged.map_err(|e| e.at_key(field.key))?);
        }
        // Absent from the live object, or of another type: the patch value.
        (Some(v), _) => {
            if let Outcome::Set(new) = take_new_value(v, field)? {
                list = Some(new);
            }
        }
    }
    match (patch.delete, list.take()) {
        (None, kept) => list = kept,
        (Some(Value::Null), _) => {}
        (Some(Value::Array(p)), Some(orig)) => {
            list = Some(keyed_merge::merge(&l, fields, orig, p, true).map_err(|e| e.at_key(field.key))?);
        }
        // Nothing to delete from.
        (Some(_), kept) => list = kept,
    }
    Ok(match (list, slot) {
        (Some(new), Some(slot)) => {
            *slot = new;
            Outcome::Kept
        }
        (Some(new), None) => Outcome::Set(new),
        (None, _) => Outcome::Absent,
    })
}
