//! What the derive's compile-time checks of `#[patch(...)]` ask of field
//! types. The derive sees tokens only; whether a field is a list, a struct
//! or a scalar is asked of the type system by generated assertions, whose
//! errors carry the messages below and point at the attribute.

use serde_json::Value;
use std::marker::PhantomData;
use std::ops::Deref;

use super::StructFields;

/// The JSON fields of a struct deriving `StrategicMerge`: a field access on
/// it names a JSON field (so a misspelt merge key is an "unknown field"
/// error on `Serialized<Element>`).
pub struct Serialized<T: ?Sized>(PhantomData<T>);

impl<T: StructFields> Deref for Serialized<T> {
    type Target = T::Fields;

    fn deref(&self) -> &T::Fields {
        unreachable!("only named in compile-time checks")
    }
}

/// [`Serialized`] of a struct deriving `StrategicMerge` (implemented with
/// [`StructFields`]), as a projection: for a type that is no such struct
/// it fails once, and leaves no type to report more errors about.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a struct deriving `StrategicMerge`, so it has no field to use as a merge key",
    label = "`merge_key` needs a list of structs that derive `StrategicMerge`"
)]
pub trait SerializedOf {
    /// `Serialized<Self>`.
    type Serialized;
}

/// Pointers are serialised as what they point to: a list of boxed or
/// shared structs is keyed by the structs' fields.
macro_rules! pointer_facts {
    ($($ptr:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<T: SerializedOf> SerializedOf for $ptr {
            type Serialized = T::Serialized;
        }
        #[diagnostic::do_not_recommend]
        impl<T: StructFields> StructFields for $ptr {
            type Fields = T::Fields;
        }
    )*};
}
pointer_facts!(Box<T>, std::rc::Rc<T>, std::sync::Arc<T>);

/// A JSON field that serde always writes, holding a `T`.
pub struct Always<T: ?Sized>(PhantomData<T>);

/// A JSON field that serde leaves out for some values
/// (`skip_serializing_if`).
pub struct MaybeAbsent;

/// An `Option` field without a declared default: `null` or absent when
/// `None`, which a merge key cannot be (the API server requires list-map
/// keys to be required or defaulted).
pub struct Undefaulted;

/// A JSON field whose type the checks do not look at (generic, or with
/// a schema of its own).
pub struct Unchecked;

/// Types serialised as a JSON scalar (string, number, boolean, or `null`
/// for `None`): what merge keys and the elements of sets are.
/// `serde_json::Value` counts as one: it may hold anything.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not serialised as a scalar (a string, number or boolean)",
    label = "not a scalar"
)]
pub trait Scalar {}

macro_rules! scalars {
    ($($ty:ty),*) => { $(impl Scalar for $ty {})* };
}
scalars!(bool, String, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, Value, Unchecked);
scalars!(
    std::num::NonZeroI8,
    std::num::NonZeroI16,
    std::num::NonZeroI32,
    std::num::NonZeroI64,
    std::num::NonZeroIsize,
    std::num::NonZeroU8,
    std::num::NonZeroU16,
    std::num::NonZeroU32,
    std::num::NonZeroU64,
    std::num::NonZeroUsize,
    Box<str>,
    std::rc::Rc<str>,
    std::sync::Arc<str>,
    std::borrow::Cow<'static, str>
);
impl<T: Scalar> Scalar for Option<T> {}
impl<T: Scalar> Scalar for Box<T> {}
impl<T: Scalar> Scalar for std::rc::Rc<T> {}
impl<T: Scalar> Scalar for std::sync::Arc<T> {}

/// Field types that `strategy = "merge"` applies to: lists.
#[diagnostic::on_unimplemented(
    message = "`strategy = \"merge\"` is for lists, and `{Self}` is not a list",
    label = "`merge` merges lists, by merge key or as sets"
)]
pub trait MergeList {
    /// The element type.
    type Elem;
}

impl<T> MergeList for Vec<T> {
    type Elem = T;
}
impl<T: MergeList> MergeList for Option<T> {
    type Elem = T::Elem;
}
impl<T: MergeList> MergeList for Box<T> {
    type Elem = T::Elem;
}
impl<T: MergeList> MergeList for std::rc::Rc<T> {
    type Elem = T::Elem;
}
impl<T: MergeList> MergeList for std::sync::Arc<T> {
    type Elem = T::Elem;
}
impl<T> MergeList for std::collections::BTreeSet<T> {
    type Elem = T;
}
impl<T, S> MergeList for std::collections::HashSet<T, S> {
    type Elem = T;
}
impl MergeList for Value {
    type Elem = Value;
}

/// Elements of a list merged without a merge key: a set of scalars.
#[diagnostic::on_unimplemented(
    message = "a list merged without `merge_key` is a set of scalars, and `{Self}` is not a scalar",
    label = "a list of objects needs `merge_key = \"...\"`, naming the field that identifies an element"
)]
pub trait SetElement {}

#[diagnostic::do_not_recommend]
impl<T: Scalar> SetElement for T {}
// A list of lists: the engine refuses to merge it, as the reference does.
impl<T> SetElement for Vec<T> {}
