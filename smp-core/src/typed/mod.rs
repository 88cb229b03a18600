//! The typed layer: strategic merge patch on Rust values.
//!
//! `#[derive(StrategicMerge)]` implements the hidden walker (`Walk`,
//! `typed/walk.rs`) for a struct: a constant table of its fields, each with
//! its patch metadata (strategy, merge key), and one accessor that reaches
//! a field's value behind its type's vtable. One routine walks every
//! struct's table; a field is diffed and patched in place through the
//! vtable, by steps written once for every type (scalars, structs, lists,
//! options, the keyed lists' algorithms), so that each type adds only its
//! serde code and a few small functions to the program that uses it: a
//! struct with a table and a `Vec` say only which kind of value they are
//! (their vtable's one method, `kind_of`), with a constant of the few steps
//! their own type must give (its type, its table, how serde reads it); every
//! other step of theirs is the one routine of their kind. A list's element
//! type adds its `==` on runs of elements, which compares its elements and
//! its lists alike, and a struct is compared field by field through its
//! table. Every type the walker
//! knows gets the public [`StrategicMerge`] methods, the same for all. Diff
//! walks the two values field by field (equal scalars compare with `==`,
//! equal keyed lists pair up by position without an index), apply walks
//! the borrowed patch and updates fields in place; nothing is parsed or
//! looked up by name at run time. A value that a patch sets from JSON is
//! read in place too, by steps written once: a struct field by field into
//! its table's places, an option into its value, a list into new elements
//! (`typed/optional.rs`, `typed/slots.rs`), made by their type
//! (`Walk::__NEW`, its `Default`: k8s-openapi's structs, lists, options);
//! other types are read whole and moved there.
//!
//! Keyed lists run the list algorithms of `lists/` (keyed merge, keyed
//! diff, the key index, `$setElementOrder`), the same code the JSON engine
//! runs, on the typed elements (`typed/keyed.rs`): duplicate keys, `$patch:
//! delete|replace` elements, `$deleteFromPrimitiveList`, null and unusual
//! keys behave as in the engine without leaving the typed values. A
//! struct's patch may carry `$retainKeys` (checked as the engine checks it;
//! the fields it does not list are removed) and `$patch: replace|delete`
//! (the struct is read from the rest of the patch, or from `{}`). The
//! three-way patch is the engine's `CreateThreeWayMergePatch` over the
//! typed diff.
//!
//! Diff skips what cannot change the patch: a field (or an element of a
//! keyed list) whose two values are `==`, when its type makes equal values
//! diff to `{}` (`typed/facts.rs` works that out once per type from its
//! schema: not for replace-strategy objects, arbitrary JSON, keyed lists
//! whose keys may be missing or whose `==` is not the reference's, and
//! only once the merged sets of scalars it holds are seen to be sorted).
//! The two values are compared whole once, at the top; below, a struct
//! field is walked rather than compared (its own fields are compared
//! there), so that what comes before a change is not compared again at
//! every level.
//!
//! A field the typed value holds but serde skips (`#[serde(skip)]`) is not
//! in the JSON, so no patch can name it: typed apply leaves it as it is
//! (the JSON route would reset it to its default).
//!
//! What the typed walk still leaves to the JSON engine, on the serialised
//! field (`typed/fallback.rs`), so that the result is always the engine's:
//!
//! - patch keys that name no field (the whole object goes through the
//!   engine): the JSON keeps them, a struct has nowhere to put them;
//! - lists of scalars merged as sets (and `BTreeSet`/`HashSet` fields),
//!   when they changed or carry directives: the reference's in-place
//!   de-duplication and `%v` ordering act on the JSON values;
//! - maps whose patch holds objects, lists or directives, changed maps of
//!   objects or lists in a diff (a changed map of scalars with string keys
//!   is diffed key by key, unless replaced or under `retainKeys`), and a
//!   value that changes JSON type (an `Option` that is `None` on one side
//!   only, a patch value of another type), and lists of lists: the engine
//!   recurses into such values with the schema below them, which the
//!   typed walk does not yet do on the values themselves;
//! - changed maps keyed by integers, `char`, `bool` or a unit enum, and
//!   their patches: their JSON keys are the keys' text, which only the
//!   serialised map shows;
//! - keyed lists with a composite key (`merge_key = "port,protocol"`,
//!   [`MergeKey::Composite`]): the engine pairs their elements by all the
//!   key's fields;
//! - keyed lists whose merge key's type does not expose its JSON scalar (a
//!   `#[patch(with = ...)]` field, a unit enum, `char`, addresses, dates):
//!   only the serialised key can be compared;
//! - a keyed list whose patch also holds a `$deleteFromPrimitiveList` of
//!   objects or `null` for it: the reference takes that step after the
//!   list's, which may leave a value in between that a typed field cannot
//!   hold;
//! - a keyed list whose patch sets an element's merge key to `null`: the
//!   reference deletes the key from the merged element, which a typed
//!   element cannot hold (its key field is `None` or a value, never
//!   absent), and later steps refuse the keyless element with an error the
//!   JSON route gives as the reference does;
//! - structs whose serde form is not their fields one by one (`flatten`,
//!   `from`, `try_from`, a `tag`, `serialize_with`, a field serde writes
//!   under one name and reads under another, which the reading resets),
//!   types serde writes `into` another (with that type's schema), enums
//!   with data and transparent wrappers, as whole values: their merge keys, as
//!   elements of keyed lists, are read in their JSON, and two equal such
//!   values are diffed rather than skipped (the sets they hold are seen in
//!   their JSON only);
//! - a three-way patch with `$patchMergeKey`
//!   ([`ThreeWayOptions::patch_merge_key`]): the typed diff does not write
//!   the directive, so the whole values go through the engine;
//! - fields that are arbitrary JSON (`serde_json::Value`,
//!   `#[patch(with = ...)]`, `#[patch(json)]`) or whose serde form is opaque
//!   (custom `Serialize` impls, scalars such as `Quantity`): their type
//!   carries no structure to walk.

mod checks;
mod depth;
mod facts;
pub(crate) mod fallback;
mod foreign;
mod impls;
mod keyed;
mod list;
mod optional;
mod sets;
mod slots;
mod walk;

pub use depth::check_depth;
pub use fallback::FieldPatch;
pub use foreign::shapes;
#[doc(hidden)]
pub use walk::Walk;

use crate::engine::diff::{DiffOptions, Opts};
use crate::engine::three_way::{Pair, ThreeWayOptions, three_way_with};
use crate::error::Result;
use crate::schema::{MergeKey, Schema, Shape, Strategy};
pub use keyed::FieldKey;
use serde_json::{Map, Value};

/// How one field of a struct is patched: its JSON name, its patch metadata
/// (from the schema in the struct's table) and the schema of the struct
/// that holds it.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's JSON name.
    pub key: &'static str,
    /// Its patch strategy.
    pub strategy: Strategy,
    /// The merge key of a list of objects.
    pub merge_key: Option<MergeKey<'static>>,
    /// The schema of the struct holding the field (the engine's fallback
    /// looks the field up in it).
    pub parent: fn() -> Shape,
}

impl Field {
    pub(crate) fn parent_schema(&self) -> Schema<'static> {
        Schema::Static((self.parent)())
    }
}

/// A type whose values can be diffed and patched with strategic merge patch
/// semantics, exactly as the JSON engine does on their serde JSON form.
///
/// Derive it for structs; it is implemented for strings (`String`,
/// `Box<str>`, `Rc<str>`, `Arc<str>`, `Cow<'static, str>`), numbers (the
/// `NonZero` integers too), booleans, `char`, `()` and `PhantomData` (JSON
/// `null`), tuples and arrays (lists replaced whole), `Option`, `Vec`,
/// `Box`, `Rc`, `Arc`, maps with string, integer,
/// `char`, `bool` or unit enum keys (and `serde_json::Map`), sets (`BTreeSet`, `HashSet`: lists in the
/// reference's order of scalars; a set of scalars merges as with
/// `#[patch(strategy = "merge")]` unless its field says `strategy =
/// "replace"`),
/// the `std::net` addresses, `serde_json::Value`, and with smp-core's
/// features `url`, `chrono` and `jiff`, those crates' scalar types. A field
/// of any other type takes `#[patch(scalar)]`, `#[patch(json)]` or
/// `#[patch(with = "module")]`.
///
/// `==` must be true only for values whose JSON is the same, as a derived
/// `PartialEq` is: [`diff`](Self::diff) skips equal values (and equal
/// fields and elements) without serialising them, so a hand-written
/// `PartialEq` that ignores a field hides its changes from the patch.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Worker {
///     name: String,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     threads: Option<u32>,
/// }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Spec {
///     #[patch(strategy = "merge", merge_key = "name")]
///     workers: Vec<Worker>,
/// }
///
/// let live = Spec { workers: vec![Worker { name: "a".into(), threads: Some(1) }] };
/// let mut desired = live.clone();
/// desired.workers[0].threads = Some(4);
/// desired.workers.push(Worker { name: "b".into(), threads: None });
///
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(
///     patch,
///     json!({
///         "$setElementOrder/workers": [{"name": "a"}, {"name": "b"}],
///         "workers": [{"name": "a", "threads": 4}, {"name": "b"}]
///     })
/// );
/// assert_eq!(live.apply(&patch).unwrap(), desired);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `StrategicMerge`",
    label = "`{Self}` does not implement `StrategicMerge`",
    note = "add `#[derive(StrategicMerge)]` to `{Self}` (for the root type of a kube `CustomResource`, `#[kube(derive = \"StrategicMerge\")]` on its spec)",
    note = "for a type of another crate, mark the field `#[patch(scalar)]` (serialised as a string, number or boolean), `#[patch(json)]` (any JSON, merged without metadata) or `#[patch(with = \"module\")]`; smp-core's features `url`, `chrono` and `jiff` implement `StrategicMerge` for those crates' types"
)]
pub trait StrategicMerge: Walk {
    /// The schema of this type's JSON form.
    fn shape() -> Shape {
        Self::__shape()
    }

    /// The two-way patch from `self` to `desired` (`{}` when equal), as the
    /// JSON engine computes it from the serialised values.
    ///
    /// Values nested deeper than the JSON engine accepts are refused with
    /// its error ([`check_depth`]), as for every method here.
    fn diff(&self, desired: &Self) -> Result<Value> {
        check_depth(self)?;
        check_depth(desired)?;
        let opts = Opts::new(DiffOptions { set_element_order: true, ..Default::default() });
        let Some(table) = walk::table_of::<Self>() else { return self.__diff_object(desired, opts).map(Value::Object) };
        // Compared once here: the walk below does not compare its struct
        // fields whole, and skips every quiet field of equal values.
        let equal = self == desired;
        if let Some(sets) = facts::quiet(Self::__shape())
            && equal
            && (!sets || walk::table_quiet_if_equal(self, table))
        {
            return Ok(Value::Object(Map::new()));
        }
        walk::diff_fields(self, desired, table, Self::__shape(), opts, equal).map(Value::Object)
    }

    /// [`diff`](Self::diff), or `None` when the patch would change nothing:
    /// `desired` equals `self`, or the patch is `{}`. `diff` always gives
    /// the reference's patch, which for equal values is not always `{}` (an
    /// unsorted set of scalars gets its order re-sent).
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use smp_core::StrategicMerge;
    ///
    /// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    /// struct Meta {
    ///     #[patch(strategy = "merge")]
    ///     finalizers: Vec<String>,
    /// }
    ///
    /// let live = Meta { finalizers: vec!["b".into(), "a".into()] };
    /// assert_ne!(live.diff(&live).unwrap(), serde_json::json!({}), "the reference re-sends the order");
    /// assert_eq!(live.diff_if_changed(&live).unwrap(), None);
    ///
    /// let desired = Meta { finalizers: vec!["b".into()] };
    /// assert!(live.diff_if_changed(&desired).unwrap().is_some());
    /// ```
    fn diff_if_changed(&self, desired: &Self) -> Result<Option<Value>> {
        // `==` recurses.
        check_depth(self)?;
        check_depth(desired)?;
        if self == desired {
            return Ok(None);
        }
        let patch = self.diff(desired)?;
        Ok(if patch.as_object().is_some_and(Map::is_empty) { None } else { Some(patch) })
    }

    /// `self` with `patch` applied.
    fn apply(&self, patch: &Value) -> Result<Self> {
        check_depth(self)?;
        let patch = crate::engine::document(patch)?;
        let mut out = self.clone();
        out.__apply_object(patch)?;
        Ok(out)
    }

    /// Applies `patch` in place; on error `self` is left as it was.
    fn apply_in_place(&mut self, patch: &Value) -> Result<()> {
        *self = self.apply(patch)?;
        Ok(())
    }

    /// The three-way patch of `kubectl apply`: from `last_applied` and the
    /// live object `self` to `desired`.
    fn three_way(&self, last_applied: &Self, desired: &Self, options: ThreeWayOptions<'_>) -> Result<Value> {
        check_depth(self)?;
        check_depth(last_applied)?;
        check_depth(desired)?;
        if options.patch_merge_key {
            // The typed diff does not write `$patchMergeKey`: the engine's
            // three-way on the serialised values.
            let json = Self::__json;
            let schema = Schema::Static(Self::__shape());
            return crate::three_way(&json(last_applied)?, &json(desired)?, &json(self)?, schema, options);
        }
        let diff = |pair: Pair, opts: DiffOptions| match pair {
            Pair::CurrentToModified => self.__diff_object(desired, Opts::new(opts)),
            Pair::OriginalToModified => last_applied.__diff_object(desired, Opts::new(opts)),
            Pair::OriginalToCurrent => last_applied.__diff_object(self, Opts::new(opts)),
        };
        three_way_with::<Value>(diff, Schema::Static(Self::__shape()), options, false).map(Value::Object)
    }
}

/// Every type the walker knows is patched with the public methods; the
/// methods cannot be overridden, so that they mean the same for every type.
impl<T: Walk> StrategicMerge for T {}

/// Marks structs that derive [`StrategicMerge`] field by field; `Fields`
/// has one associated item per JSON field name, so that a misspelt
/// `merge_key` is a type error at the attribute.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a struct deriving `StrategicMerge`, so it has no field to use as a merge key",
    label = "`merge_key` needs a list of structs that derive `StrategicMerge`"
)]
pub trait StructFields: StrategicMerge {
    type Fields;
}

/// List types, for the `merge_key` check.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`merge_key` is for lists, and `{Self}` is not a list",
    label = "`merge_key` needs a `Vec<T>` field"
)]
pub trait ListField {
    type Elem;
}

impl<T> ListField for Vec<T> {
    type Elem = T;
}
impl<T: ListField> ListField for Option<T> {
    type Elem = T::Elem;
}
impl<T: ListField> ListField for Box<T> {
    type Elem = T::Elem;
}
impl<T: ListField> ListField for std::rc::Rc<T> {
    type Elem = T::Elem;
}
impl<T: ListField> ListField for std::sync::Arc<T> {
    type Elem = T::Elem;
}

/// Field types that `$retainKeys` can apply to: objects and lists of objects.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`retainKeys` is for objects and lists of objects, and `{Self}` is neither",
    label = "`retainKeys` needs a struct, a map or a list of structs"
)]
pub trait RetainKeysField {}

impl<T: StructFields> RetainKeysField for T {}
impl<T: StructFields> RetainKeysField for Vec<T> {}
impl<T: RetainKeysField> RetainKeysField for Option<T> {}
impl<T: StrategicMerge> RetainKeysField for std::collections::BTreeMap<String, T> {}
impl<T: StrategicMerge> RetainKeysField for std::collections::HashMap<String, T> {}
impl RetainKeysField for Map<String, Value> {}
impl RetainKeysField for Value {}

/// Helpers for generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use super::checks::{
        Always, MaybeAbsent, MergeList, Scalar, Serialized, SerializedOf, SetElement, Unchecked, Undefaulted,
    };
    pub use super::fallback::{Grouped, finish_diff, group_patch};
    pub use super::sets::ScalarMapKey;
    pub use super::walk::{
        FieldAccess, FieldOps, FieldTable, FieldValue, Json, Missing, New, Skip, by_table, default_of, no_own_default,
        no_skip_if, table_of, this, this_mut,
    };
    pub use super::{Field, FieldKey, FieldPatch, ListField, RetainKeysField, StrategicMerge, StructFields, Walk};
    pub use crate::doc::member::KeyValue;
    pub use crate::engine::diff::Opts;
    pub use crate::error::{Error, Result};
    pub use crate::schema::{FieldSchema, MergeKey, Shape, Strategy, StructSchema};
    pub use serde_json::{Map, Value};
}
