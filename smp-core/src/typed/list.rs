//! `Vec<T>` fields: their steps are compiled once for every element type,
//! on the list seen without its element type ([`Slots`]) and what the
//! steps know of that type ([`ElementType`]), so that a list type adds
//! only a few forwarding methods to a program.

use super::StrategicMerge;
use super::depth::elements_ok;
use super::fallback::{self, FieldPatch, take_new_value};
use super::keyed;
use super::slots::{self, ElementOf, ElementType, Slots, elements};
use super::walk::{FieldValue, ReadJsonFn, SetJsonFn, different_types, read_json_of, set_json_of};
use super::{Field, FieldKey};
use crate::engine::diff::Opts;
use crate::error::Result;
use crate::lists::key::KeyValue;
use crate::schema::{MergeKey, Shape};
use crate::value::deep_eq;
use serde_json::{Map, Value};

/// What a `Vec<T>` needs of its own type, besides its element type's
/// [`ElementType`]: compiled once per element type, a constant of
/// [`FieldValue::kind_of`] (`Walk::__LIST`).
pub struct ListSteps {
    pub(crate) elem: &'static ElementType,
    /// `Vec<T>`'s `__set_json` for an element type that serde may read
    /// from JSON text (`None`: read from a `Value` only).
    set_json: Option<SetJsonFn>,
    /// `Vec<T>`'s `__read_json` for an element type without a new value
    /// to read into (`None`: each element is read in place).
    read_json: Option<ReadJsonFn>,
}

impl ListSteps {
    pub(crate) const fn of<T: StrategicMerge>() -> ListSteps {
        ListSteps {
            elem: ElementOf::<T>::TYPE,
            set_json: if T::__JSON_TEXT { Some(set_json_of::<Vec<T>>) } else { None },
            read_json: if T::__NEW.is_some() { None } else { Some(read_json_of::<Vec<T>>) },
        }
    }

    /// The list, seen without its element type, to change it
    /// ([`ElementType::slots`] reads it).
    pub(crate) fn slots_mut<'s>(&self, v: &'s mut dyn FieldValue) -> Result<&'s mut dyn Slots> {
        self.elem.slots_mut(v).ok_or_else(different_types)
    }

    /// `Vec<T>`'s `__set_json`.
    pub(crate) fn set_json(&self, v: &mut dyn FieldValue, json: &Value, field: Option<&Field>) -> Result<()> {
        match self.set_json {
            Some(set_json) => set_json(v, json, field),
            None => fallback::set_from_json(v, json, field),
        }
    }

    /// `Vec<T>`'s `__read_json`.
    pub(crate) fn read_json(&self, v: &mut dyn FieldValue, json: &Value) -> Result<()> {
        match self.read_json {
            Some(read_json) => read_json(v, json),
            None => slots::read_list(self.slots_mut(v)?, json),
        }
    }
}

/// The steps of [`FieldValue::kind_of`] for a type that is no list (never
/// taken: only a `Vec` has list steps).
pub(crate) static NO_LIST: ListSteps = ListSteps { elem: &ElementType::NONE, set_json: None, read_json: None };

/// Adds to `patch` what turns the list `old` into `new` (`None`: absent
/// from the JSON), lists of elements of type `elem`.
pub(crate) fn diff_field(
    old: Option<&dyn FieldValue>,
    new: Option<&dyn FieldValue>,
    elem: &ElementType,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let shape = (elem.shape)();
    let nested = matches!(shape, Shape::List(_));
    if let (false, Some(mk)) = (nested, keyed(shape, field))
        && let (Some(a), Some(b)) = (old.and_then(|v| elem.slots(v)), new.and_then(|v| elem.slots(v)))
    {
        return keyed::diff_keyed_list(a, b, elem, mk, field, patch, opts);
    }
    diff_list(old, new, nested, field, patch, opts)
}

/// Applies a field's patch entries to a list of elements of type `elem`
/// (`present`: the JSON has it). False: the field's key is gone.
pub(crate) fn apply_field(
    list: &mut dyn Slots,
    present: bool,
    patch: FieldPatch<'_>,
    elem: &ElementType,
    field: &Field,
) -> Result<bool> {
    let shape = (elem.shape)();
    match keyed(shape, field) {
        Some(mk) => keyed::apply_keyed_list(list, present, patch, elem, mk, field),
        None => apply_list(list, present, matches!(shape, Shape::List(_)), patch, field),
    }
}

/// [`Walk::__depth_ok`](super::Walk::__depth_ok) of a list.
pub(crate) fn depth_ok(list: &dyn Slots, elem: &ElementType, open: usize) -> bool {
    elements_ok((elem.shape)(), &mut elements(list), open)
}

/// [`Walk::__quiet_if_equal`](super::Walk::__quiet_if_equal) of a list.
pub(crate) fn quiet_if_equal(list: &dyn Slots, elem: &ElementType, field: &Field) -> bool {
    if !field.strategy.merge {
        // A replaced list: equal lists need no patch.
        return true;
    }
    if keyed((elem.shape)(), field).is_some() {
        return elements(list).all(|e| e.quiet_if_equal(field));
    }
    // What the diff of an unchanged set checks.
    sorted_strings(list)
}

/// A list's JSON: each element's own, so that no serde code is compiled
/// for the list besides its elements'.
pub(crate) fn json(list: &dyn Slots) -> Result<Value> {
    let mut out = Vec::with_capacity(list.len());
    for e in elements(list) {
        out.push(e.json()?);
    }
    Ok(Value::Array(out))
}

/// Diff of a list that is not merged by key (`nested`: a list of lists).
fn diff_list(
    old: Option<&dyn FieldValue>,
    new: Option<&dyn FieldValue>,
    nested: bool,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    if let (Some(a), Some(b), false) = (old, new, nested) {
        // Equal sets whose elements are sorted: what `quiet_if_equal` checks.
        if field.strategy.merge && b.same(a) && a.quiet_if_equal(field) {
            // An unchanged set; only an unsorted one would get a
            // `$setElementOrder`.
            return Ok(());
        }
        if !field.strategy.merge {
            // A replaced list is sent whole when its JSON changed (values
            // may differ where serde does not look: skipped fields).
            if !b.same(a) && opts.additions() {
                let new = b.json()?;
                if !deep_eq(&a.json()?, &new) {
                    patch.insert(field.key.to_string(), new);
                }
            }
            return Ok(());
        }
    }
    fallback::diff_field(old, new, field, patch, opts)
}

/// Apply to a list that is not merged by key (`nested`: a list of lists).
fn apply_list(
    v: &mut dyn FieldValue,
    present: bool,
    nested: bool,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<bool> {
    if patch.is_plain() && !nested {
        match (present, patch.value) {
            (_, Some(Value::Null)) => return Ok(false),
            // Replaced verbatim.
            (true, Some(new @ Value::Array(_))) if !field.strategy.merge => {
                return v.set_json(new, Some(field)).map(|()| true);
            }
            (false, Some(new)) => return take_new_value(v, new, field),
            _ => {}
        }
    }
    fallback::apply_field(v, present, patch, field)
}

/// The merge key of a list of structs (elements of schema `shape`) merged
/// by key.
fn keyed(shape: Shape, field: &Field) -> Option<&MergeKey<'static>> {
    match (field.strategy.merge, shape, &field.merge_key) {
        (true, Shape::Struct(_), Some(mk)) => Some(mk),
        _ => None,
    }
}

/// Whether every element serialises to a string and the strings are in
/// order (as the reference sorts a set of scalars: by their `%v` text).
fn sorted_strings(list: &dyn Slots) -> bool {
    let mut prev = "";
    for e in elements(list) {
        match e.key() {
            FieldKey::Value(KeyValue::Str(s)) if prev <= s => prev = s,
            _ => return false,
        }
    }
    true
}
