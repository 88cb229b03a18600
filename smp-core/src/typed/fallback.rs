//! The exact path: a field (or a whole object) is serialised, handed to the
//! JSON engine, and deserialised again. The typed fast paths fall back here
//! for everything they do not handle themselves.

use super::Field;
use super::walk::{FieldValue, Walk};
use crate::directive::{ListDirective, PATCH, RETAIN_KEYS};
use crate::doc::copy_patch_value;
use crate::engine::apply::{Merger, Mode};
use crate::engine::diff::{Opts, diff_maps};
use crate::error::{ErrorKind, Result};
use crate::schema::{Schema, Shape};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The entries of a patch map that concern one field `f`: `f` itself,
/// `$setElementOrder/f` and `$deleteFromPrimitiveList/f`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FieldPatch<'p> {
    /// The patch value under `f`.
    pub value: Option<&'p Value>,
    /// The `$setElementOrder/f` list.
    pub order: Option<&'p Value>,
    /// The `$deleteFromPrimitiveList/f` list.
    pub delete: Option<&'p Value>,
}

impl FieldPatch<'_> {
    /// Only the value, no parallel directive.
    pub fn is_plain(&self) -> bool {
        self.order.is_none() && self.delete.is_none()
    }

    fn into_map(self, key: &str) -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(v) = self.value {
            m.insert(key.to_string(), v.clone());
        }
        if let Some(v) = self.order {
            m.insert(ListDirective::SetElementOrder.key(key), v.clone());
        }
        if let Some(v) = self.delete {
            m.insert(ListDirective::DeleteFromPrimitiveList.key(key), v.clone());
        }
        m
    }
}

/// A patch map split by field, or `Whole` when the typed walk cannot take
/// it field by field (keys that name no field).
pub enum Grouped<'p> {
    /// Each field's entries, by the field's position in the struct, and the
    /// `$retainKeys` list.
    Fields(Vec<(usize, FieldPatch<'p>)>, Option<&'p Value>),
    /// The patch map holds `$patch` (which decides before anything else).
    Directive(&'p Value),
    /// The walk cannot take the patch map field by field: the JSON engine does.
    Whole,
}

/// Splits a patch map by field; `index_of` gives the index of the field
/// under a JSON name.
pub fn group_patch<'p>(patch: &'p Map<String, Value>, index_of: impl Fn(&str) -> Option<usize>) -> Grouped<'p> {
    if let Some(directive) = patch.get(PATCH) {
        return Grouped::Directive(directive);
    }
    let field_of = |key: &str| -> Option<(usize, u8)> {
        let (name, slot) = match ListDirective::parse(key) {
            Some((ListDirective::SetElementOrder, f)) => (f, 1),
            Some((ListDirective::DeleteFromPrimitiveList, f)) => (f, 2),
            None if ListDirective::ALL.iter().any(|d| d.starts(key)) => return None,
            None => (key, 0),
        };
        Some((index_of(name)?, slot))
    };
    let mut grouped: Vec<(usize, FieldPatch)> = Vec::with_capacity(patch.len());
    let mut retain = None;
    for (k, v) in patch {
        if k == RETAIN_KEYS {
            retain = Some(v);
            continue;
        }
        let Some((i, slot)) = field_of(k) else { return Grouped::Whole };
        let pos = match grouped.iter().position(|(j, _)| *j == i) {
            Some(p) => p,
            None => {
                grouped.push((i, FieldPatch::default()));
                grouped.len() - 1
            }
        };
        let fp = &mut grouped[pos].1;
        match slot {
            0 => fp.value = Some(v),
            1 => fp.order = Some(v),
            _ => fp.delete = Some(v),
        }
    }
    Grouped::Fields(grouped, retain)
}

/// The value's JSON form; a failure of its `Serialize` is an error
/// ([`ErrorKind::Serialize`]).
pub fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| ErrorKind::Serialize(e.to_string()).into())
}

/// The typed value of a patched JSON value: what it deserialises into once
/// the reference has printed it. Go prints a whole float64 such as `5.0` as
/// `5`, which an integer field accepts; so when the value as it is does not
/// fit, whole floats are read as the integers Go prints.
pub(crate) fn from_value<T: DeserializeOwned>(v: Value) -> Result<T> {
    from_ref(&v)
}

/// [`from_value`] on a borrowed value, without copying it.
pub(crate) fn from_ref<T: DeserializeOwned>(v: &Value) -> Result<T> {
    from_field(v, None)
}

/// A field's typed value read from JSON ([`from_value`]); an error is at
/// the field's key. The one deserializer of each type: the retries are
/// the same code for every type.
pub(crate) fn from_field<T: DeserializeOwned>(v: &Value, field: Option<&Field>) -> Result<T> {
    from_value_or_text(v, field, deserialize::<T>)
}

/// [`from_field`] for a type with a walker: read from a `Value` by it
/// ([`Walk::__from_json`]), and from text by serde.
pub(crate) fn from_field_or_text<T: Walk>(v: &Value, field: Option<&Field>) -> Result<T> {
    from_value_or_text(v, field, T::__from_json)
}

/// Reads a value with the retries of [`read_json`]: from a `Value` with
/// `from_value`, from text with serde.
fn from_value_or_text<T: DeserializeOwned>(
    v: &Value,
    field: Option<&Field>,
    from_value: fn(&Value) -> Result<T>,
) -> Result<T> {
    let mut out = None;
    let mut read = |input: Input<'_>| {
        let read = match input {
            Input::Value(v) => from_value(v),
            Input::Text(text) => serde_json::from_str(text).map_err(deserialize_error),
        };
        match read {
            Ok(value) => {
                out = Some(value);
                Ok(())
            }
            Err(e) => Err(e),
        }
    };
    read_json(v, field, true, &mut read)?;
    out.ok_or_else(nothing_read)
}

/// [`from_field`] for a type whose serde reads from JSON text nothing it
/// refuses from a `Value` (the types of k8s-openapi): no text reader is
/// compiled for it, and the value is read by its walker
/// ([`Walk::__from_json`]).
pub(crate) fn from_field_value<T: Walk>(v: &Value, field: Option<&Field>) -> Result<T> {
    let mut out = None;
    let mut read = |input: Input<'_>| {
        if let Input::Value(v) = input {
            match T::__from_json(v) {
                Ok(value) => out = Some(value),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    };
    read_json(v, field, false, &mut read)?;
    out.ok_or_else(nothing_read)
}

/// [`from_field_value`] into a value in place, compiled once for every
/// type: the value is read by its vtable (each retry reads all of it
/// again); on error it may be half read, and the error goes up to the
/// apply, which drops the copy it patched.
pub(crate) fn set_from_json(slot: &mut dyn FieldValue, v: &Value, field: Option<&Field>) -> Result<()> {
    read_value_with(v, field, &mut |v| slot.read_json(v))
}

/// [`set_from_json`] with the reader given: the retries of a field read
/// from a `Value` only.
pub(crate) fn read_value_with(
    v: &Value,
    field: Option<&Field>,
    read_value: &mut dyn FnMut(&Value) -> Result<()>,
) -> Result<()> {
    let mut read = |input: Input<'_>| match input {
        Input::Value(v) => read_value(v),
        Input::Text(_) => Ok(()),
    };
    read_json(v, field, false, &mut read)
}

/// The value serde reads from `v`, without retries.
pub(crate) fn deserialize<T: DeserializeOwned>(v: &Value) -> Result<T> {
    T::deserialize(v).map_err(deserialize_error)
}

/// serde's error for a JSON value of the wrong type, `expected` saying
/// what the reader wanted (`"a sequence"`, `"struct Foo"`): the words
/// serde_json's `Value` reader gives.
pub(crate) fn invalid_type(v: &Value, expected: &str) -> crate::error::Error {
    use serde::de::{Error as _, Unexpected};
    let unexpected = match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    deserialize_error(serde_json::Error::invalid_type(unexpected, &expected))
}

/// serde's error for a list of the wrong length.
pub(crate) fn invalid_length(len: usize, expected: &str) -> crate::error::Error {
    use serde::de::Error as _;
    deserialize_error(serde_json::Error::invalid_length(len, &expected))
}

/// serde's error for a string that is not the one expected.
pub(crate) fn invalid_string(s: &str, expected: &str) -> crate::error::Error {
    use serde::de::{Error as _, Unexpected};
    deserialize_error(serde_json::Error::invalid_value(Unexpected::Str(s), &expected))
}

#[cold]
fn nothing_read() -> crate::error::Error {
    ErrorKind::Internal("a value read without a result").into()
}

/// What a typed value is read from.
enum Input<'a> {
    Value(&'a Value),
    Text(&'a str),
}

/// Reads `v` with `read`: as it is, then with whole floats as the integers
/// Go prints, then (`text`) from its text; an error is at the field's key.
fn read_json(
    v: &Value,
    field: Option<&Field>,
    text: bool,
    read: &mut dyn FnMut(Input<'_>) -> Result<()>,
) -> Result<()> {
    let first = match read(Input::Value(v)) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    let printed = go_printed(v);
    let (v, e) = match &printed {
        Some(printed) => match read(Input::Value(printed)) {
            Ok(()) => return Ok(()),
            Err(e) => (printed, e),
        },
        None => (v, first),
    };
    // serde_json reads a few forms from text that it refuses from a
    // `Value` (a struct variant written as a list): the value is read as
    // the JSON route reads its result, from its text.
    let from_text = text && serde_json::to_string(v).is_ok_and(|text| read(Input::Text(&text)).is_ok());
    if from_text {
        return Ok(());
    }
    Err(match field {
        Some(f) => e.at_key(f.key),
        None => e,
    })
}

/// The integer Go prints for a whole float64 ([`go_integer`](crate::value::go_integer)).
fn go_printed_integer(n: &serde_json::Number) -> Option<serde_json::Number> {
    n.as_f64().filter(|_| n.is_f64()).and_then(crate::value::go_integer)
}

fn has_go_integral_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => go_printed_integer(n).is_some(),
        Value::Array(a) => a.iter().any(has_go_integral_float),
        Value::Object(m) => m.values().any(has_go_integral_float),
        _ => false,
    }
}

fn integral_floats_to_integers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(i) = go_printed_integer(n) {
                *n = i;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_floats_to_integers),
        Value::Object(m) => m.values_mut().for_each(integral_floats_to_integers),
        _ => {}
    }
}

fn deserialize_error(e: serde_json::Error) -> crate::error::Error {
    ErrorKind::Deserialize(e.to_string()).into()
}

/// The value as the reference prints it, when that differs: whole floats
/// as integers.
fn go_printed(v: &Value) -> Option<Value> {
    if !has_go_integral_float(v) {
        return None;
    }
    let mut v = v.clone();
    integral_floats_to_integers(&mut v);
    Some(v)
}

fn into_object(v: Value) -> Result<Map<String, Value>> {
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        _ => Err(ErrorKind::InvalidJsonDocument.into()),
    }
}

/// The diff of two whole objects through the JSON engine.
pub(crate) fn diff_object(
    old: &dyn FieldValue,
    new: &dyn FieldValue,
    shape: Shape,
    opts: Opts,
) -> Result<Map<String, Value>> {
    diff_maps(&into_object(old.json()?)?, &into_object(new.json()?)?, Schema::Static(shape), opts, 0)
}

/// Applies a patch map to a whole object through the JSON engine.
pub(crate) fn apply_object(slot: &mut dyn FieldValue, patch: &Map<String, Value>, shape: Shape) -> Result<()> {
    let mut merged = into_object(slot.json()?)?;
    apply_map(&mut merged, patch, shape)?;
    slot.set_json(&Value::Object(merged), None)
}

/// Applies a patch map to an object's JSON through the JSON engine.
pub(crate) fn apply_map(m: &mut Map<String, Value>, patch: &Map<String, Value>, shape: Shape) -> Result<()> {
    let merged = Merger::new(Mode::Apply).merge_map(std::mem::take(m), patch, Schema::Static(shape), 0)?;
    *m = merged;
    Ok(())
}

/// The diff of one field through the JSON engine: a one-key map on each
/// side, looked up in the parent's schema.
pub(crate) fn diff_field(
    old: Option<&dyn FieldValue>,
    new: Option<&dyn FieldValue>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    if old.is_none() && new.is_none() {
        // Absent on both sides (most optional fields): nothing to compare.
        return Ok(());
    }
    let old = old.map(|v| v.json()).transpose()?;
    let new = new.map(|v| v.json()).transpose()?;
    diff_field_values(old, new, field, patch, opts)
}

/// [`diff_field`] on the serialised values.
pub(crate) fn diff_field_values(
    old: Option<Value>,
    new: Option<Value>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let one = |v: Option<Value>| -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(v) = v {
            m.insert(field.key.to_string(), v);
        }
        m
    };
    let sub = diff_maps(&one(old), &one(new), field.parent_schema(), opts.with_retain_keys(false), 0)?;
    patch.extend(sub);
    Ok(())
}

/// Applies one field's patch entries through the JSON engine (`present`:
/// the JSON has the field). False: the field's key is gone.
pub(crate) fn apply_field(v: &mut dyn FieldValue, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
    let original = if present { Some(v.json()?) } else { None };
    apply_field_from(v, original, patch, field)
}

/// [`apply_field`] on the field's JSON as given (`None`: absent).
pub(crate) fn apply_field_from(
    v: &mut dyn FieldValue,
    original: Option<Value>,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<bool> {
    match apply_field_value(original, patch, field)? {
        Some(new) => v.set_json(&new, Some(field)).map(|()| true),
        None => Ok(false),
    }
}

/// [`apply_field`] on the serialised value: the field's new JSON value,
/// `None` when its key is gone.
pub(crate) fn apply_field_value(
    original: Option<Value>,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<Option<Value>> {
    let mut map = Map::new();
    if let Some(v) = original {
        map.insert(field.key.to_string(), v);
    }
    let mut merged = Merger::new(Mode::Apply).merge_map(map, &patch.into_map(field.key), field.parent_schema(), 0)?;
    Ok(merged.remove(field.key))
}

/// The missing-field value of a type without the trait: what it
/// deserialises from `null` (`None` for options), else an error.
pub fn missing_json<T: DeserializeOwned>(key: &str) -> Result<T> {
    T::deserialize(&Value::Null).map_err(|_| ErrorKind::Deserialize(format!("missing field `{key}`")).into())
}

/// A patch value for a field the JSON lacks (or holds with another type):
/// the engine stores it without nulls and without `$patch` objects. False:
/// nothing is left, the field's key is gone.
pub(crate) fn take_new_value(v: &mut dyn FieldValue, patch: &Value, field: &Field) -> Result<bool> {
    match new_value(patch) {
        Some(new) => v.set_json(&new, Some(field)).map(|()| true),
        None => Ok(false),
    }
}

/// A patch value as the engine stores it for a key the JSON lacks:
/// without nulls and `$patch` objects (`None`: nothing left).
pub(crate) fn new_value(v: &Value) -> Option<Value> {
    copy_patch_value(v, true)
}

/// Adds `$retainKeys` to a struct's patch (for generated code).
pub fn finish_diff(patch: &mut Map<String, Value>, retain: Vec<&str>, removed_field: bool) {
    crate::engine::diff::add_retain_keys(patch, retain, || removed_field);
}
