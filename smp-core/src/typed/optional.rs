//! An `Option<T>` field of a struct with a field table, reached as its
//! `T`: the walk sees the value inside behind `T`'s vtable and `None` as
//! JSON `null`, with `Option<T>`'s rules (the ones of `impls.rs`, for a
//! field), so that an option adds these few steps to a program, not a
//! vtable of its own.

use super::fallback::{self, FieldPatch};
use super::walk::{FieldValue, Kind, OwnSteps, Steps, Walk, no_new_value};
use super::{Field, FieldKey};
use crate::engine::diff::Opts;
use crate::error::{ErrorKind, Result};
use crate::lists::key::KeyValue;
use serde_json::{Map, Value};
use std::marker::PhantomData;

/// The steps of an `Option<T>` field, compiled once per `T`.
pub struct OptionalOps {
    /// The option's place, reached as [`Reach`] says: one function per
    /// `T` for every way of reaching it, so that an option type adds one
    /// function to a program, not one per way.
    reach: unsafe fn(*mut u8, Reach) -> Option<*mut dyn FieldValue>,
    /// Reads the option whole and moves it there: for a `T` without a new
    /// value.
    read_whole: Option<unsafe fn(*mut u8, &Value) -> Result<()>>,
    /// `Option<T>`'s `__set_json` for a `T` that serde may read from JSON
    /// text ([`Walk::__JSON_TEXT`]); the others are read in place.
    set_text: Option<SetText>,
}

/// How [`OptionalOps::reach`] reaches an option's place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// The value inside, to read it (the place may be borrowed shared
    /// only: the pointer returned is not written through).
    Read,
    /// The value inside, to change it.
    Change,
    /// The value inside, to change it; a `None` is first made `Some` of
    /// `T`'s new value ([`Walk::__NEW`]), to read into, when `T` has one.
    Fill,
    /// Sets the option to `None` (and returns `None`).
    Clear,
}

/// `Option<T>`'s `__set_json` at the option's place.
type SetText = unsafe fn(*mut u8, &Value, Option<&Field>) -> Result<()>;

impl OptionalOps {
    /// The steps of a field of type `Option<T>`.
    pub(crate) const fn of<T: Walk>() -> OptionalOps {
        OptionalOps {
            reach: reach::<T>,
            read_whole: if T::__NEW.is_some() { None } else { Some(read_whole::<T>) },
            set_text: if T::__JSON_TEXT { Some(set_text::<T>) } else { None },
        }
    }

    /// The value inside the option at `at`.
    ///
    /// # Safety
    ///
    /// `at` points to an `Option<T>` of these steps' `T`.
    pub(crate) unsafe fn value<'s>(&self, at: *const u8) -> Option<&'s dyn FieldValue> {
        // SAFETY: as the caller says; `reach` returns a pointer into it,
        // which is only read.
        unsafe { (self.reach)(at.cast_mut(), Reach::Read).map(|v| &*v) }
    }

    /// The value inside the option at `at`, to change it (`fill`: see
    /// [`Reach::Fill`]).
    ///
    /// # Safety
    ///
    /// `at` points to an `Option<T>` of these steps' `T`, borrowed
    /// mutably for the value's lifetime.
    unsafe fn value_mut<'s>(&self, at: *mut u8, fill: bool) -> Option<&'s mut dyn FieldValue> {
        let how = if fill { Reach::Fill } else { Reach::Change };
        // SAFETY: as the caller says; `reach` returns a pointer into it.
        unsafe { (self.reach)(at, how).map(|v| &mut *v) }
    }

    /// Sets the option at `at` to `None`.
    ///
    /// # Safety
    ///
    /// `at` points to an `Option<T>` of these steps' `T`, borrowed
    /// mutably for the call.
    unsafe fn set_none(&self, at: *mut u8) {
        // SAFETY: as the caller says.
        unsafe { (self.reach)(at, Reach::Clear) };
    }

    /// `Option<T>`'s `__read_json`, into the option at `at`: `null` is
    /// `None`, anything else is read into the value inside.
    ///
    /// # Safety
    ///
    /// `at` points to an `Option<T>` of these steps' `T`, borrowed
    /// mutably for the call.
    pub(crate) unsafe fn read_json(&self, at: *mut u8, v: &Value) -> Result<()> {
        // SAFETY (of the calls below): as the caller says; the value
        // inside is borrowed for the read only (`read_whole` is set for a
        // `T` without a new value).
        if v.is_null() {
            unsafe { self.set_none(at) };
            return Ok(());
        }
        if let Some(read_whole) = self.read_whole {
            return unsafe { read_whole(at, v) };
        }
        match unsafe { self.value_mut(at, true) } {
            Some(inner) => inner.read_json(v),
            None => Err(no_new_value()),
        }
    }

    /// `Option<T>`'s `__set_json`, into the option at `at`: read with the
    /// retries of a field.
    ///
    /// # Safety
    ///
    /// As for [`OptionalOps::read_json`].
    unsafe fn set_json(&self, at: *mut u8, v: &Value, field: Option<&Field>) -> Result<()> {
        // SAFETY (of the calls below): as the caller says.
        match self.set_text {
            Some(set_text) => unsafe { set_text(at, v, field) },
            None => fallback::read_value_with(v, field, &mut |v| unsafe { self.read_json(at, v) }),
        }
    }
}

// SAFETY (of the functions below): `at` points to an `Option<T>`.

#[inline(never)]
unsafe fn reach<T: Walk>(at: *mut u8, how: Reach) -> Option<*mut dyn FieldValue> {
    let at = at.cast::<Option<T>>();
    match how {
        // Through a shared borrow only: `at` may come from one.
        Reach::Read => match unsafe { &*at } {
            Some(v) => Some((v as &dyn FieldValue as *const dyn FieldValue).cast_mut()),
            None => None,
        },
        Reach::Clear => {
            unsafe { *at = None };
            None
        }
        Reach::Change | Reach::Fill => {
            if how == Reach::Fill
                && unsafe { (*at).is_none() }
                && let Some(new) = T::__NEW
            {
                // A `None` has nothing to drop.
                unsafe { at.write(Some(new())) };
            }
            match unsafe { &mut *at } {
                Some(v) => Some(v as &mut dyn FieldValue as *mut dyn FieldValue),
                None => None,
            }
        }
    }
}

/// `Option<T>`'s `__from_json`, moved into the field.
#[inline(never)]
unsafe fn read_whole<T: Walk>(at: *mut u8, v: &Value) -> Result<()> {
    match <Option<T> as Walk>::__from_json(v) {
        Ok(value) => {
            unsafe { *at.cast::<Option<T>>() = value };
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `Option<T>`'s `__set_json` for a `T` read from text too.
#[inline(never)]
unsafe fn set_text<T: Walk>(at: *mut u8, v: &Value, field: Option<&Field>) -> Result<()> {
    match fallback::from_field_or_text::<Option<T>>(v, field) {
        Ok(value) => {
            unsafe { *at.cast::<Option<T>>() = value };
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A field's value as the walk reads it.
#[derive(Clone, Copy)]
pub(crate) enum FieldRef<'s> {
    /// Behind its own type's vtable.
    Value(&'s dyn FieldValue),
    /// An `Option<T>`, as its `T` (`None`: it is `None`).
    Optional(Option<&'s dyn FieldValue>),
}

/// `None` where a value is read as JSON: `null`.
const NULL: &dyn FieldValue = &();

impl<'s> FieldRef<'s> {
    /// An option as a field's value.
    pub(crate) fn of<T: Walk>(option: &'s Option<T>) -> Self {
        FieldRef::Optional(match option {
            Some(v) => Some(v),
            None => None,
        })
    }

    /// An `Option` behind its own vtable, as a field's value.
    pub(crate) fn of_option(v: &'s dyn FieldValue) -> Self {
        FieldRef::Optional(v.as_option().flatten())
    }

    /// Serialises to JSON `null`.
    pub(crate) fn is_null(self) -> bool {
        match self {
            FieldRef::Value(v) => v.is_null(),
            FieldRef::Optional(o) => o.is_none(),
        }
    }

    /// The value as a merge key.
    pub(crate) fn key(self) -> FieldKey<'s> {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v.key(),
            FieldRef::Optional(None) => FieldKey::Value(KeyValue::Null),
        }
    }

    /// `other` is a value of the same field and `==` to this one.
    pub(crate) fn same(self, other: FieldRef<'_>) -> bool {
        match (self, other) {
            (FieldRef::Value(a), FieldRef::Value(b)) | (FieldRef::Optional(Some(a)), FieldRef::Optional(Some(b))) => {
                a.same(b)
            }
            (FieldRef::Optional(None), FieldRef::Optional(None)) => true,
            _ => false,
        }
    }

    /// [`FieldValue::by_field`] (a `None` is not walked).
    pub(crate) fn by_field(self) -> bool {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v.by_field(),
            FieldRef::Optional(None) => false,
        }
    }

    /// [`FieldValue::depth_ok`].
    pub(crate) fn depth_ok(self, open: usize) -> bool {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v.depth_ok(open),
            FieldRef::Optional(None) => true,
        }
    }

    /// [`FieldValue::quiet_if_equal`].
    pub(crate) fn quiet_if_equal(self, field: &Field) -> bool {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v.quiet_if_equal(field),
            FieldRef::Optional(None) => true,
        }
    }

    /// The value's JSON form.
    pub(crate) fn json(self) -> Result<Value> {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v.json(),
            FieldRef::Optional(None) => Ok(Value::Null),
        }
    }

    /// The value behind a vtable whose JSON is its JSON (a `None` is `null`).
    fn as_json(self) -> &'s dyn FieldValue {
        match self {
            FieldRef::Value(v) | FieldRef::Optional(Some(v)) => v,
            FieldRef::Optional(None) => NULL,
        }
    }

    /// The value inside an option, `None` when it is `None`; any other
    /// value as it is.
    fn inside(self) -> Option<&'s dyn FieldValue> {
        match self {
            FieldRef::Value(v) => Some(v),
            FieldRef::Optional(o) => o,
        }
    }
}

/// Adds to `patch` what turns a field's value `old` into `new` (`None`:
/// absent from the JSON): the step of the values' type, and for an option
/// `Option<T>`'s (`impls.rs`): the values inside when both are set.
pub(crate) fn diff_field(
    old: Option<FieldRef<'_>>,
    new: Option<FieldRef<'_>>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let optional = matches!(old, Some(FieldRef::Optional(_))) || matches!(new, Some(FieldRef::Optional(_)));
    if !optional {
        let (a, b) = (old.map(FieldRef::as_json), new.map(FieldRef::as_json));
        return match (a, b) {
            (_, Some(v)) | (Some(v), None) => v.diff_field(a, b, field, patch, opts),
            (None, None) => Ok(()),
        };
    }
    match (old.map(FieldRef::inside), new.map(FieldRef::inside)) {
        (Some(Some(a)), Some(Some(b))) => b.diff_field(Some(a), Some(b), field, patch, opts),
        (None, None) | (Some(None), Some(None)) => Ok(()),
        // null on one side: a change of JSON type, or an addition/removal.
        _ => fallback::diff_field(old.map(FieldRef::as_json), new.map(FieldRef::as_json), field, patch, opts),
    }
}

/// Apply to an optional field that is null or absent. A JSON null behaves
/// as an absent key, except for directives: a plain value is stored as a
/// new one, directives go through the engine.
pub(crate) fn apply_null(v: &mut dyn FieldValue, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
    match patch.value {
        Some(Value::Null) if patch.is_plain() => Ok(false),
        Some(new) if patch.is_plain() => fallback::take_new_value(v, new, field),
        _ => fallback::apply_field_from(v, present.then_some(Value::Null), patch, field),
    }
}

/// A field's value as the walk changes it.
pub(crate) enum FieldMut<'s> {
    /// Behind its own type's vtable.
    Value(&'s mut dyn FieldValue),
    /// An `Option<T>`.
    Optional(OptionalSlot<'s>),
}

/// An `Option<T>` field being changed.
pub(crate) struct OptionalSlot<'s> {
    at: *mut u8,
    ops: &'static OptionalOps,
    field: PhantomData<&'s mut ()>,
}

impl OptionalSlot<'_> {
    /// # Safety
    ///
    /// `at` points to an `Option<T>` of `ops`' `T`, borrowed mutably for
    /// the slot's lifetime.
    pub(crate) unsafe fn new(at: *mut u8, ops: &'static OptionalOps) -> Self {
        OptionalSlot { at, ops, field: PhantomData }
    }

    /// Sets it to `None`.
    pub(crate) fn set_none(&mut self) {
        // SAFETY: `new`'s contract.
        unsafe { self.ops.set_none(self.at) }
    }

    /// `Option<T>`'s `__read_json`, into the field.
    pub(crate) fn read_json(&mut self, v: &Value) -> Result<()> {
        // SAFETY: `new`'s contract.
        unsafe { self.ops.read_json(self.at, v) }
    }

    /// `Option<T>`'s `__apply_field`: the patch entries go to the value
    /// inside when the JSON has one, else to the field as a null. False:
    /// the field's key is gone.
    pub(crate) fn apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        if present {
            // SAFETY: `new`'s contract; the value is borrowed through `self`.
            if let Some(inner) = unsafe { self.ops.value_mut(self.at, false) } {
                return inner.apply_field(true, patch, field);
            }
        }
        apply_null(&mut Whole { at: self.at, ops: self.ops }, present, patch, field)
    }
}

/// The option as a whole, behind a vtable, for the steps that set it from
/// JSON ([`apply_null`]): it reads and sets as an option field; the walk's
/// own steps (diff, apply) are an error on it.
struct Whole {
    at: *mut u8,
    ops: &'static OptionalOps,
}

impl Whole {
    fn value(&self) -> FieldRef<'_> {
        // SAFETY: made by `OptionalSlot::apply_field`, whose slot it borrows.
        FieldRef::Optional(unsafe { self.ops.value(self.at) })
    }
}

#[cold]
fn not_for_a_whole_option() -> crate::error::Error {
    ErrorKind::Internal("an optional field's step taken on the option").into()
}

impl super::walk::Sealed for Whole {}

impl FieldValue for Whole {
    fn kind_of(&self) -> Kind<OwnSteps<'_>> {
        Kind::Steps(OwnSteps::of(self))
    }
}

impl Steps for Whole {
    fn is_null(&self) -> bool {
        self.value().is_null()
    }

    fn key(&self) -> FieldKey<'_> {
        self.value().key()
    }

    fn depth_ok(&self, open: usize) -> bool {
        self.value().depth_ok(open)
    }

    fn quiet_if_equal(&self, field: &Field) -> bool {
        self.value().quiet_if_equal(field)
    }

    fn diff_field(
        &self,
        _: Option<&dyn FieldValue>,
        _: Option<&dyn FieldValue>,
        _: &Field,
        _: &mut Map<String, Value>,
        _: Opts,
    ) -> Result<()> {
        Err(not_for_a_whole_option())
    }

    fn apply_field(&mut self, _: bool, _: FieldPatch<'_>, _: &Field) -> Result<bool> {
        Err(not_for_a_whole_option())
    }

    fn set_missing(&mut self, _: &str) -> Result<()> {
        // SAFETY: as in `value`.
        unsafe { self.ops.set_none(self.at) };
        Ok(())
    }

    fn json(&self) -> Result<Value> {
        self.value().json()
    }

    fn as_option(&self) -> Option<Option<&dyn FieldValue>> {
        // SAFETY: as in `value`.
        Some(unsafe { self.ops.value(self.at) })
    }

    fn set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
        // SAFETY: as in `value`.
        unsafe { self.ops.set_json(self.at, v, field) }
    }

    fn read_json(&mut self, v: &Value) -> Result<()> {
        // SAFETY: as in `value`.
        unsafe { self.ops.read_json(self.at, v) }
    }
}
