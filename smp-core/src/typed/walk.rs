//! The walker: what generated code implements so that the public
//! [`StrategicMerge`](super::StrategicMerge) methods can diff and patch a
//! type field by field. Not a stable API: derive it, never implement it by
//! hand.

use super::fallback::{self, FieldPatch, Grouped, Outcome, group_patch};
use super::impls::{apply_struct_field, diff_struct_field};
use super::{Field, FieldKey};
use crate::engine::diff::Opts;
use crate::error::{ErrorKind, Result};
use crate::lists::key::KeyValue;
use crate::schema::Shape;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::any::Any;

/// How the typed layer walks a type: its schema, its fields and the
/// per-field steps of diff and apply. `#[derive(StrategicMerge)]` and the
/// Kubernetes impls implement it; every type that does gets
/// [`StrategicMerge`](super::StrategicMerge).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `StrategicMerge`",
    label = "`{Self}` does not implement `StrategicMerge`",
    note = "add `#[derive(StrategicMerge)]` to `{Self}` (for the root type of a kube `CustomResource`, `#[kube(derive = \"StrategicMerge\")]` on its spec)",
    note = "for a type of another crate, mark the field `#[patch(scalar)]` (serialised as a string, number or boolean), `#[patch(json)]` (any JSON, merged without metadata) or `#[patch(with = \"module\")]`; smp-core's features `url`, `chrono` and `jiff` implement `StrategicMerge` for those crates' types"
)]
pub trait Walk: Serialize + DeserializeOwned + PartialEq + Clone + 'static {
    /// The schema of this type's JSON form.
    fn __shape() -> Shape;

    /// The fields of a struct walked field by field (`None`: any other type).
    fn __fields() -> Option<&'static FieldTable<Self>> {
        None
    }

    /// A Go pointer: the reference also accepts a list under such a field.
    const __POINTER: bool = false;

    /// A string, number, boolean or other scalar.
    const __SCALAR: bool = false;

    /// A set of scalars: merged as with `strategy = "merge"` when the field
    /// names no strategy.
    const __MERGED_SET: bool = false;

    /// The value as a merge key, when it is a scalar the type exposes
    /// (`None`: only its serialised form shows it).
    fn __as_key(&self) -> Option<KeyValue<'_>> {
        None
    }

    /// The value of the field with this JSON name, as a merge key.
    fn __field_key(&self, json_name: &str) -> FieldKey<'_> {
        let ops = Self::__fields().and_then(|table| table.fields.iter().find(|f| f.field.key == json_name));
        match ops {
            Some(ops) => ops.key(self),
            None => FieldKey::Absent,
        }
    }

    /// Serialises to JSON `null` (an `Option` that is `None`).
    fn __is_null(&self) -> bool {
        false
    }

    /// The value a field of this type takes when its key is absent from
    /// the JSON (serde's missing-field rule).
    fn __missing(key: &str) -> Result<Self> {
        Err(ErrorKind::Deserialize(format!("missing field `{key}`")).into())
    }

    /// The diff of a whole object (the document root, or a struct field).
    fn __diff_object(&self, desired: &Self, opts: Opts) -> Result<Map<String, Value>> {
        match Self::__fields() {
            Some(table) => diff_fields(self, desired, table, opts),
            None => fallback::diff_object(self, desired, Self::__shape(), opts),
        }
    }

    /// Applies a patch map to a whole object.
    fn __apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
        match Self::__fields().map(|table| (table, group_patch(patch, table.by_name))) {
            Some((table, Grouped::Fields(fields))) => {
                for (index, entries) in fields {
                    table.fields[index].apply(self, entries)?;
                }
                Ok(())
            }
            // `$patch`, `$retainKeys` or keys that name no field.
            Some((_, Grouped::Whole)) | None => fallback::apply_object(self, patch, Self::__shape()),
        }
    }

    /// Adds to `patch` what turns the field value `old` into `new` (`None`:
    /// the field is absent from the JSON).
    fn __diff_field(
        old: Option<&Self>,
        new: Option<&Self>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        match Self::__fields() {
            Some(_) => diff_struct_field(old, new, field, patch, opts),
            None => fallback::diff_field(old, new, field, patch, opts),
        }
    }

    /// Applies the patch entries of one field to its value (`None`: absent).
    fn __apply_field(slot: Option<&mut Self>, patch: FieldPatch<'_>, field: &Field) -> Result<Outcome<Self>> {
        match Self::__fields() {
            Some(_) => apply_struct_field(slot, patch, field),
            None => fallback::apply_field(slot, patch, field),
        }
    }
}

/// The fields of a struct: a constant table that generated code writes,
/// walked by the one routine below for every struct.
pub struct FieldTable<S: 'static> {
    /// Every JSON field, in declaration order.
    pub fields: &'static [FieldOps<S>],
    /// The JSON names of the fields a patch may set, sorted, with their
    /// index in `fields` (the first field of a name wins).
    pub by_name: &'static [(&'static str, usize)],
}

/// Where a field's value is in the struct's JSON form.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Presence {
    /// Left out (`skip_serializing_if`).
    Absent,
    /// Written as `null`.
    Null,
    /// Written with a value.
    Value,
}

/// A field's value behind its type's vtable: the steps of diff and apply
/// are compiled once per field type, and a struct's table only says where
/// each field is.
pub trait FieldValue: Any {
    /// Serialises to JSON `null`.
    fn is_null(&self) -> bool;

    /// The value as a merge key.
    fn key(&self) -> FieldKey<'_>;

    /// Adds to `patch` what turns the field value `old` into `new`; `self`
    /// is `new` when `self_is_new`, else `old`, and `other` the other side,
    /// a value of the same type (`None`: absent from the JSON).
    fn diff(
        &self,
        self_is_new: bool,
        other: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()>;

    /// Applies the field's patch entries to the value (`present`: the JSON
    /// has it); false when the field is gone and takes its missing value.
    fn apply(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool>;

    /// Sets the value a field of this type takes when its key is absent
    /// from the JSON (the type's own rule).
    fn set_missing(&mut self, key: &str) -> Result<()>;
}

fn same_type<T: 'static>(other: Option<&dyn FieldValue>) -> Result<Option<&T>> {
    match other {
        None => Ok(None),
        Some(v) => {
            let v: &dyn Any = v;
            v.downcast_ref::<T>()
                .map(Some)
                .ok_or_else(|| ErrorKind::Unsupported("fields of different types".into()).into())
        }
    }
}

/// Puts the outcome of a typed apply into the field.
fn store<T>(slot: &mut T, outcome: Outcome<T>) -> bool {
    match outcome {
        Outcome::Kept => true,
        Outcome::Set(v) => {
            *slot = v;
            true
        }
        Outcome::Absent => false,
    }
}

impl<T: Walk> FieldValue for T {
    fn is_null(&self) -> bool {
        self.__is_null()
    }

    fn key(&self) -> FieldKey<'_> {
        FieldKey::of(Some(self.__as_key()))
    }

    fn diff(
        &self,
        self_is_new: bool,
        other: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        let other = same_type::<T>(other)?;
        let (old, new) = if self_is_new { (other, Some(self)) } else { (Some(self), other) };
        T::__diff_field(old, new, field, patch, opts)
    }

    fn apply(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        let outcome = T::__apply_field(present.then_some(&mut *self), patch, field)?;
        Ok(store(self, outcome))
    }

    fn set_missing(&mut self, key: &str) -> Result<()> {
        *self = T::__missing(key)?;
        Ok(())
    }
}

/// A field's value behind its type's vtable (for generated code).
pub fn field_value<T: Walk>(v: &T) -> &dyn FieldValue {
    v
}

/// A field's value behind its type's vtable, to change it (for generated
/// code).
pub fn field_value_mut<T: Walk>(v: &mut T) -> &mut dyn FieldValue {
    v
}

/// A field read and written only through its serde form
/// (`#[patch(with = ...)]`: its type has no walker).
#[repr(transparent)]
pub struct Json<T>(T);

impl<T> Json<T> {
    /// The field as such.
    pub fn wrap(v: &T) -> &Self {
        // SAFETY: `Json<T>` is a `repr(transparent)` wrapper of `T`.
        unsafe { &*(v as *const T as *const Self) }
    }

    /// The field as such, to change it.
    pub fn wrap_mut(v: &mut T) -> &mut Self {
        // SAFETY: `Json<T>` is a `repr(transparent)` wrapper of `T`.
        unsafe { &mut *(v as *mut T as *mut Self) }
    }
}

impl<T: Serialize + DeserializeOwned + 'static> FieldValue for Json<T> {
    fn is_null(&self) -> bool {
        fallback::to_value(&self.0).is_ok_and(|v| v.is_null())
    }

    fn key(&self) -> FieldKey<'_> {
        // Only the serialised form shows its value.
        FieldKey::Opaque
    }

    fn diff(
        &self,
        self_is_new: bool,
        other: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        let other = same_type::<Self>(other)?.map(|o| &o.0);
        let (old, new) = if self_is_new { (other, Some(&self.0)) } else { (Some(&self.0), other) };
        fallback::diff_field_json(old, new, field, patch, opts)
    }

    fn apply(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        let outcome = fallback::apply_field_json(present.then_some(&mut self.0), patch, field)?;
        Ok(store(&mut self.0, outcome))
    }

    fn set_missing(&mut self, key: &str) -> Result<()> {
        self.0 = fallback::missing_json(key)?;
        Ok(())
    }
}

/// When serde leaves a field out of the JSON.
pub enum Skip<S: 'static> {
    /// Never.
    Never,
    /// When it is null (`Option::is_none`).
    Null,
    /// When this says so (`skip_serializing_if`).
    If(fn(&S) -> bool),
}

/// The value a field takes when its key is absent from the JSON.
pub enum Missing<S: 'static> {
    /// Its type's rule ([`FieldValue::set_missing`]).
    Type,
    /// Set by this (a default value).
    Set(fn(&mut S) -> Result<()>),
}

/// One field of a struct: its patch metadata, where it is, and how serde
/// writes and reads it.
pub struct FieldOps<S: 'static> {
    /// JSON name, strategy, merge key.
    pub field: Field,
    /// The field's value.
    pub get: fn(&S) -> &dyn FieldValue,
    /// The field's value, to change it.
    pub get_mut: fn(&mut S) -> &mut dyn FieldValue,
    /// When serde leaves it out.
    pub skip: Skip<S>,
    /// Its value when a patch removes it.
    pub missing: Missing<S>,
    /// serde reads it (a patch may set it).
    pub applied: bool,
}

impl<S> FieldOps<S> {
    /// The field's value as serde writes it (`None`: left out).
    fn value<'s>(&self, s: &'s S) -> Option<&'s dyn FieldValue> {
        let skipped = match &self.skip {
            Skip::Never => false,
            Skip::Null => (self.get)(s).is_null(),
            Skip::If(f) => f(s),
        };
        if skipped { None } else { Some((self.get)(s)) }
    }

    fn presence(&self, s: &S) -> Presence {
        match self.value(s) {
            None => Presence::Absent,
            Some(v) if v.is_null() => Presence::Null,
            Some(_) => Presence::Value,
        }
    }

    /// The field's value as a merge key.
    pub(crate) fn key<'s>(&self, s: &'s S) -> FieldKey<'s> {
        match self.value(s) {
            None => FieldKey::Absent,
            Some(v) => v.key(),
        }
    }

    /// Applies the field's patch entries.
    fn apply(&self, s: &mut S, patch: FieldPatch<'_>) -> Result<()> {
        if !self.applied {
            return Ok(());
        }
        let present = self.value(s).is_some();
        if (self.get_mut)(s).apply(present, patch, &self.field)? {
            return Ok(());
        }
        match &self.missing {
            Missing::Type => (self.get_mut)(s).set_missing(self.field.key),
            Missing::Set(f) => f(s),
        }
    }
}

/// The diff of two structs, field by field, with the `$retainKeys` list of
/// a struct under the `retainKeys` strategy.
fn diff_fields<S>(old: &S, new: &S, table: &FieldTable<S>, opts: Opts) -> Result<Map<String, Value>> {
    let mut patch = Map::new();
    let mut retain: Vec<&'static str> = Vec::new();
    let mut removed = false;
    for ops in table.fields {
        // Only a `retainKeys` struct's patch lists its fields.
        if opts.retain_keys() {
            let (was, is) = (ops.presence(old), ops.presence(new));
            if is == Presence::Value {
                retain.push(ops.field.key);
            }
            removed |= was == Presence::Value && is == Presence::Absent;
        }
        match (ops.value(old), ops.value(new)) {
            (None, None) => {}
            (old, Some(new)) => new.diff(true, old, &ops.field, &mut patch, opts)?,
            (Some(old), None) => old.diff(false, None, &ops.field, &mut patch, opts)?,
        }
    }
    fallback::finish_diff(&mut patch, retain, removed);
    Ok(patch)
}
