//! `StrategicMerge` for standard types, with the fast paths that are
//! equivalent to the JSON engine; everything else takes the default
//! (exact, JSON) path.

use super::depth::elements_ok;
use super::fallback::{self, FieldPatch, take_new_value, to_value};
use super::list::ListSteps;
use super::optional::{self, FieldRef, OptionalOps};
use super::slots;
use super::walk::{FieldAccess, FieldValue, New, as_field, typed};
use super::{Field, FieldKey, StrategicMerge, Walk};
use crate::directive::PATCH;
use crate::engine::diff::Opts;
use crate::error::Result;
use crate::lists::key::KeyValue;
use crate::schema::Shape;
use crate::value::deep_eq;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroIsize, NonZeroU8, NonZeroU16, NonZeroU32, NonZeroU64,
    NonZeroUsize,
};
use std::rc::Rc;
use std::sync::Arc;

/// Diff of a scalar-like field: equal values need nothing; otherwise the
/// new value replaces the old one.
pub(crate) fn diff_scalar(
    old: Option<&dyn FieldValue>,
    new: Option<&dyn FieldValue>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    match (old, new) {
        (Some(a), Some(b)) if b.same(a) => Ok(()),
        (_, Some(b)) => {
            if opts.additions() {
                patch.insert(field.key.to_string(), b.json()?);
            }
            Ok(())
        }
        (Some(_), None) => {
            if opts.deletions() {
                patch.insert(field.key.to_string(), Value::Null);
            }
            Ok(())
        }
        (None, None) => Ok(()),
    }
}

/// Apply to a scalar-like field: a scalar patch value replaces it, null
/// removes it; anything else goes through the engine.
pub(crate) fn apply_scalar(
    v: &mut dyn FieldValue,
    present: bool,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<bool> {
    if patch.is_plain() {
        match patch.value {
            Some(Value::Null) => return Ok(false),
            Some(new) if !new.is_object() && !new.is_array() => return v.set_json(new, Some(field)).map(|()| true),
            _ => {}
        }
    }
    fallback::apply_field(v, present, patch, field)
}

macro_rules! scalar_impl {
    ($($t:ty => |$s:ident| $key:expr, $key_eq:literal),* $(,)?) => {
        scalar_impl_maybe_key! { $($t => |$s| Some($key), $key_eq),* }
    };
}

/// [`scalar_impl`] for types whose key may be unknown (`None`: only the
/// serialised form shows it).
macro_rules! scalar_impl_maybe_key {
    ($($t:ty => |$s:ident| $key:expr, $key_eq:literal),* $(,)?) => {$(
        impl Walk for $t {
            const __SCALAR: bool = true;
            const __KEY_EQ: bool = $key_eq;
            fn __shape() -> Shape {
                Shape::Scalar
            }
            fn __as_key(&self) -> Option<KeyValue<'_>> {
                let $s = self;
                $key
            }
        }
    )*};
}

scalar_impl! {
    String => |s| KeyValue::Str(s.as_str()), true,
    bool => |b| KeyValue::Bool(*b), true,
    i8 => |i| KeyValue::Int(*i as i64), true,
    i16 => |i| KeyValue::Int(*i as i64), true,
    i32 => |i| KeyValue::Int(*i as i64), true,
    i64 => |i| KeyValue::Int(*i), true,
    u8 => |i| KeyValue::Int(*i as i64), true,
    u16 => |i| KeyValue::Int(*i as i64), true,
    u32 => |i| KeyValue::Int(*i as i64), true,
    u64 => |i| KeyValue::Uint(*i), true,
    // `-0.0 == 0.0`, but the reference prints them `-0` and `0`.
    f32 => |f| KeyValue::Float(*f as f64), false,
    f64 => |f| KeyValue::Float(*f), false,
    isize => |i| KeyValue::Int(*i as i64), true,
    usize => |i| KeyValue::Uint(*i as u64), true,
    NonZeroI8 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroI16 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroI32 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroI64 => |i| KeyValue::Int(i.get()), true,
    NonZeroIsize => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroU8 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroU16 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroU32 => |i| KeyValue::Int(i.get() as i64), true,
    NonZeroU64 => |i| KeyValue::Uint(i.get()), true,
    NonZeroUsize => |i| KeyValue::Uint(i.get() as u64), true,
    Box<str> => |s| KeyValue::Str(s), true,
    Rc<str> => |s| KeyValue::Str(s), true,
    Arc<str> => |s| KeyValue::Str(s), true,
    Cow<'static, str> => |s| KeyValue::Str(s), true,
}

// Beyond 64 bits serde_json cannot write the number: only the serialised
// form (an error) shows such a key.
scalar_impl_maybe_key! {
    i128 => |i| i64::try_from(*i).map(KeyValue::Int).or_else(|_| u64::try_from(*i).map(KeyValue::Uint)).ok(), true,
    u128 => |i| u64::try_from(*i).map(KeyValue::Uint).ok(), true,
}

/// `()` and `PhantomData`: JSON `null`, replaced as a scalar.
macro_rules! null_impl {
    ($($t:ty $(, $param:ident)?);* $(;)?) => {$(
        impl$(<$param: 'static>)? Walk for $t {
            const __SCALAR: bool = true;
            fn __shape() -> Shape {
                Shape::Scalar
            }
            fn __is_null(&self) -> bool {
                true
            }
        }
    )*};
}

null_impl! {
    ();
    PhantomData<T>, T;
}

/// Tuples: JSON lists of fixed length, whose elements may differ in type;
/// replaced whole, as lists without a strategy are.
macro_rules! tuple_impl {
    ($(($($t:ident),+)),* $(,)?) => {$(
        impl<$($t: StrategicMerge),+> Walk for ($($t,)+) {
            fn __shape() -> Shape {
                Shape::List(|| Shape::Any)
            }
        }
    )*};
}

tuple_impl! { (A), (A, B), (A, B, C), (A, B, C, D), (A, B, C, D, E), (A, B, C, D, E, F) }

/// Arrays: JSON lists of fixed length, replaced whole as lists without a
/// strategy are (serde reads and writes arrays of up to 32 elements).
impl<T: StrategicMerge, const N: usize> Walk for [T; N]
where
    [T; N]: serde::Serialize + serde::de::DeserializeOwned,
{
    fn __shape() -> Shape {
        Shape::List(T::__SHAPE)
    }

    fn __depth_ok(&self, open: usize) -> bool {
        elements_ok(T::__shape(), &mut self.iter().map(as_field), open)
    }
}

impl<T: StrategicMerge> Walk for Option<T> {
    const __JSON_TEXT: bool = T::__JSON_TEXT;
    const __POINTER: bool = true;
    const __ABSENT_OK: bool = true;
    /// A field reached as its `T` (`typed/optional.rs`).
    const __ACCESS: &'static FieldAccess = &FieldAccess::optional(OptionalOps::of::<T>());
    const __SCALAR: bool = T::__SCALAR;
    const __KEY_EQ: bool = T::__KEY_EQ;
    const __MERGED_SET: bool = T::__MERGED_SET;
    const __SHAPE: fn() -> Shape = T::__SHAPE;

    fn __shape() -> Shape {
        T::__shape()
    }

    // The rules of an option are the ones of an option field
    // (`typed/optional.rs`).
    fn __as_key(&self) -> Option<KeyValue<'_>> {
        match FieldRef::of(self).key() {
            FieldKey::Value(v) => Some(v),
            FieldKey::Absent | FieldKey::Opaque => None,
        }
    }

    fn __is_null(&self) -> bool {
        FieldRef::of(self).is_null()
    }

    fn __by_field() -> bool {
        T::__by_field()
    }

    fn __depth_ok(&self, open: usize) -> bool {
        FieldRef::of(self).depth_ok(open)
    }

    fn __quiet_if_equal(&self, field: &Field) -> bool {
        FieldRef::of(self).quiet_if_equal(field)
    }

    fn __missing(_key: &str) -> Result<Self> {
        Ok(None)
    }

    /// `T`'s own JSON, so that no serde code is compiled for `Option<T>`
    /// besides `T`'s.
    fn __json(&self) -> Result<Value> {
        FieldRef::of(self).json()
    }

    fn __from_json(v: &Value) -> Result<Self> {
        if v.is_null() {
            return Ok(None);
        }
        match T::__from_json(v) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(e),
        }
    }

    const __NEW: New<Self> = Some(|| None);

    fn __read_json(&mut self, v: &Value) -> Result<()> {
        let ops: &OptionalOps = const { &OptionalOps::of::<T>() };
        // SAFETY: `self` is an `Option<T>`, of the steps' `T`.
        unsafe { ops.read_json((self as *mut Self).cast(), v) }
    }

    fn __as_option(&self) -> Option<Option<&dyn FieldValue>> {
        Some(match self {
            Some(v) => Some(v),
            None => None,
        })
    }

    fn __diff_field(
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        optional::diff_field(old.map(FieldRef::of_option), new.map(FieldRef::of_option), field, patch, opts)
    }

    fn __apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        match self {
            Some(inner) if present => inner.__apply_field(true, patch, field),
            _ => optional::apply_null(self, present, patch, field),
        }
    }
}

/// `Box`, `Rc` and `Arc`: the value they point to. Apply writes through
/// `$mut` (`make_mut` for a shared pointer, which clones a value that is
/// shared).
macro_rules! pointer_impl {
    ($ptr:ident, $mut:expr) => {
        impl<T: StrategicMerge> Walk for $ptr<T> {
            const __JSON_TEXT: bool = T::__JSON_TEXT;
            const __SCALAR: bool = T::__SCALAR;
            const __KEY_EQ: bool = T::__KEY_EQ;
            const __MERGED_SET: bool = T::__MERGED_SET;
            const __ABSENT_OK: bool = T::__ABSENT_OK;
            const __SHAPE: fn() -> Shape = T::__SHAPE;
            fn __shape() -> Shape {
                T::__shape()
            }
            fn __as_key(&self) -> Option<KeyValue<'_>> {
                (**self).__as_key()
            }
            fn __field_key(&self, name: &str) -> FieldKey<'_> {
                (**self).__field_key(name)
            }
            fn __is_null(&self) -> bool {
                (**self).__is_null()
            }
            fn __by_field() -> bool {
                T::__by_field()
            }
            fn __depth_ok(&self, open: usize) -> bool {
                (**self).__depth_ok(open)
            }
            fn __quiet_if_equal(&self, field: &Field) -> bool {
                (**self).__quiet_if_equal(field)
            }
            fn __missing(key: &str) -> Result<Self> {
                match T::__missing(key) {
                    Ok(value) => Ok($ptr::new(value)),
                    Err(e) => Err(e),
                }
            }
            fn __diff_object(&self, desired: &Self, opts: Opts) -> Result<Map<String, Value>> {
                (**self).__diff_object(desired, opts)
            }
            fn __apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
                $mut(self).__apply_object(patch)
            }
            fn __json(&self) -> Result<Value> {
                (**self).__json()
            }
            fn __set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
                $mut(self).__set_json(v, field)
            }
            fn __from_json(v: &Value) -> Result<Self> {
                match T::__from_json(v) {
                    Ok(value) => Ok($ptr::new(value)),
                    Err(e) => Err(e),
                }
            }
            fn __diff_field(
                old: Option<&dyn FieldValue>,
                new: Option<&dyn FieldValue>,
                field: &Field,
                patch: &mut Map<String, Value>,
                opts: Opts,
            ) -> Result<()> {
                let inner = |v| Ok::<_, crate::error::Error>(typed::<Self>(v)?.map(|p| &**p as &dyn FieldValue));
                T::__diff_field(inner(old)?, inner(new)?, field, patch, opts)
            }
            fn __apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
                $mut(self).__apply_field(present, patch, field)
            }
        }
    };
}

pointer_impl!(Box, Box::as_mut);
pointer_impl!(Rc, Rc::make_mut);
pointer_impl!(Arc, Arc::make_mut);

impl<T: StrategicMerge> Walk for Vec<T> {
    const __JSON_TEXT: bool = T::__JSON_TEXT;

    const __LIST: Option<&'static ListSteps> = Some(&ListSteps::of::<T>());

    fn __shape() -> Shape {
        Shape::List(T::__SHAPE)
    }

    fn __from_json(v: &Value) -> Result<Self> {
        let Value::Array(list) = v else { return Err(fallback::invalid_type(v, "a sequence")) };
        let mut out = Vec::with_capacity(list.len());
        for e in list {
            match T::__from_json(e) {
                Ok(value) => out.push(value),
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    const __NEW: New<Self> = Some(Vec::new);

    fn __read_json(&mut self, v: &Value) -> Result<()> {
        if const { T::__NEW.is_some() } {
            slots::read_list(self, v)
        } else {
            match Self::__from_json(v) {
                Ok(value) => {
                    *self = value;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
    }
}

/// The diff of a map field whose values are scalars, on both sides, key by
/// key as the engine's `diffMaps` makes it: a changed or added value is
/// sent, a removed key is null. False (nothing done) where the engine
/// would do more: a map replaced whole or under `retainKeys`, or a field
/// its parent's schema does not find.
fn diff_scalar_maps<'m, T: StrategicMerge>(
    old: impl Iterator<Item = (&'m String, &'m T)>,
    old_get: impl Fn(&str) -> Option<&'m T>,
    new: impl Iterator<Item = (&'m String, &'m T)>,
    new_get: impl Fn(&str) -> Option<&'m T>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<bool> {
    let Ok((_, meta)) = field.parent_schema().lookup_struct(field.key) else { return Ok(false) };
    let strategy = meta.strategy()?;
    if strategy.replace || strategy.retain_keys {
        return Ok(false);
    }
    let mut sub = Map::new();
    if opts.additions() {
        for (k, b) in new {
            let changed = match old_get(k) {
                None => true,
                Some(a) if a == b => false,
                // Unequal values may still print alike.
                Some(a) => !deep_eq(&to_value(a)?, &to_value(b)?),
            };
            if changed {
                sub.insert(k.clone(), to_value(b)?);
            }
        }
    }
    if opts.deletions() {
        for (k, _) in old {
            if new_get(k).is_none() {
                sub.insert(k.clone(), Value::Null);
            }
        }
    }
    if !sub.is_empty() {
        patch.insert(field.key.to_string(), Value::Object(sub));
    }
    Ok(true)
}

/// Maps with string keys: JSON objects whose keys carry no metadata.
macro_rules! map_impl {
    ([$($generics:tt)*] $map:ty, $t:ty) => {
        impl<$($generics)*> Walk for $map {
            const __JSON_TEXT: bool = <$t>::__JSON_TEXT;

            fn __shape() -> Shape {
                Shape::Map(<$t>::__SHAPE)
            }

            fn __depth_ok(&self, open: usize) -> bool {
                elements_ok(<$t>::__shape(), &mut self.values().map(as_field), open)
            }

            /// Each value's own JSON, so that no serde code is compiled
            /// for the map besides its values'.
            fn __json(&self) -> Result<Value> {
                let mut m = Map::new();
                for (k, v) in self {
                    m.insert(k.clone(), v.__json()?);
                }
                Ok(Value::Object(m))
            }

            fn __from_json(v: &Value) -> Result<Self> {
                let Value::Object(m) = v else { return Err(fallback::invalid_type(v, "a map")) };
                let mut out = Self::default();
                for (k, v) in m {
                    match <$t>::__from_json(v) {
                        Ok(value) => out.insert(k.clone(), value),
                        Err(e) => return Err(e),
                    };
                }
                Ok(out)
            }

            /// A `$patch` key is a directive to the reference's diff, which
            /// refuses it even in equal maps unless its value is a string.
            fn __quiet_if_equal(&self, _field: &Field) -> bool {
                !self.contains_key(PATCH)
            }

            fn __diff_field(old: Option<&dyn FieldValue>, new: Option<&dyn FieldValue>, field: &Field, patch: &mut Map<String, Value>, opts: Opts) -> Result<()> {
                let strategy = field.strategy;
                if let (Some(a), Some(b)) = (typed::<Self>(old)?, typed::<Self>(new)?) {
                    if a == b && !strategy.replace && !a.contains_key(PATCH) {
                        return Ok(());
                    }
                    if <$t>::__SCALAR && !a.contains_key(PATCH) && !b.contains_key(PATCH) {
                        if diff_scalar_maps(a.iter(), |k| a.get(k), b.iter(), |k| b.get(k), field, patch, opts)? {
                            return Ok(());
                        }
                    }
                }
                fallback::diff_field(old, new, field, patch, opts)
            }

            fn __apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
                if let (true, true, false, Some(Value::Object(p))) = (present, patch.is_plain(), field.strategy.replace, patch.value) {
                    // Scalars and nulls only: set or remove keys one by one
                    // (on error the caller drops the half-patched value).
                    let simple = p.iter().all(|(k, v)| !k.starts_with('$') && !v.is_object() && !v.is_array());
                    if simple {
                        for (k, v) in p {
                            if v.is_null() {
                                self.remove(k);
                            } else {
                                self.insert(k.clone(), (<$t>::__READ)(v, None).map_err(|e| e.at_key(k).at_key(field.key))?);
                            }
                        }
                        return Ok(true);
                    }
                }
                fallback::apply_field(self, present, patch, field)
            }
        }
    };
}

map_impl!([T: StrategicMerge] BTreeMap<String, T>, T);
map_impl!([T: StrategicMerge] HashMap<String, T>, T);
map_impl!([] Map<String, Value>, Value);

impl Walk for Value {
    fn __shape() -> Shape {
        Shape::Any
    }

    fn __as_key(&self) -> Option<KeyValue<'_>> {
        Some(KeyValue::Json(self))
    }

    fn __is_null(&self) -> bool {
        self.is_null()
    }
}

/// Diff of a field holding a struct (an object).
pub(crate) fn diff_struct_field(
    old: Option<&dyn FieldValue>,
    new: Option<&dyn FieldValue>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let (Some(a), Some(b)) = (old, new) else { return fallback::diff_field(old, new, field, patch, opts) };
    let strategy = field.strategy;
    if strategy.replace {
        // The reference sends a replace-strategy object whole, changed or not.
        if opts.additions() {
            patch.insert(field.key.to_string(), b.json()?);
        }
        return Ok(());
    }
    let sub = a.diff_object(b, opts.with_retain_keys(strategy.retain_keys)).map_err(|e| e.at_key(field.key))?;
    if !sub.is_empty() {
        patch.insert(field.key.to_string(), Value::Object(sub));
    }
    Ok(())
}

/// Apply to a field holding a struct (an object).
pub(crate) fn apply_struct_field(
    v: &mut dyn FieldValue,
    present: bool,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<bool> {
    if !patch.is_plain() {
        return fallback::apply_field(v, present, patch, field);
    }
    match (present, patch.value) {
        (_, Some(Value::Null)) => Ok(false),
        (true, Some(new @ Value::Object(p))) => {
            if field.strategy.replace {
                return v.set_json(new, Some(field)).map(|()| true);
            }
            v.apply_object(p).map_err(|e| e.at_key(field.key))?;
            Ok(true)
        }
        (_, Some(new)) => take_new_value(v, new, field),
        (_, None) => Ok(true),
    }
}
