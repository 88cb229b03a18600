//! The walker: what generated code implements so that the public
//! [`StrategicMerge`](super::StrategicMerge) methods can diff and patch a
//! type field by field. Not a stable API: derive it, never implement it by
//! hand.

use super::depth::probe_ok;
use super::facts::{self, FieldFacts, StructFacts};
use super::fallback::{self, FieldPatch, Grouped, group_patch};
use super::impls::{apply_scalar, apply_struct_field, diff_scalar, diff_struct_field};
use super::list::{self, ListSteps};
use super::optional::{self, FieldMut, FieldRef, OptionalOps, OptionalSlot};
use super::{Field, FieldKey};
use crate::directive::{PATCH, PatchOp};
use crate::engine::MAX_DEPTH;
use crate::engine::apply::retained_keys;
use crate::engine::diff::Opts;
use crate::error::{ErrorKind, Result};
use crate::lists::key::KeyValue;
use crate::schema::{FieldSchema, Shape, Strategy, StructSchema};
use crate::value::{fmt_s, fmt_v_map};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::any::{Any, TypeId};
use std::ops::{Deref, DerefMut};

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

    /// [`Walk::__shape`], or for an option or a pointer its value's, which
    /// is the same: the schemas that name a type's (its fields', its
    /// elements') take it from here, so that an option or a pointer adds no
    /// schema function to a program.
    const __SHAPE: fn() -> Shape = Self::__shape;

    /// The fields of a struct walked field by field (`None`: any other type).
    const __TABLE: Option<&'static FieldTable> = None;

    /// [`Walk::__TABLE`] is set: the methods below walk the struct by it.
    /// (A constant, so that only the steps of the type's kind are compiled
    /// for it: the other branch is left out when the type is known.)
    const __BY_TABLE: bool = Self::__TABLE.is_some();

    /// How a field of this type is reached in a struct's table.
    const __ACCESS: &'static FieldAccess = &FieldAccess::value::<Self>();

    /// A Go pointer: the reference also accepts a list under such a field.
    const __POINTER: bool = false;

    /// A string, number, boolean or other scalar: a patch replaces it.
    const __SCALAR: bool = false;

    /// serde may read values of this type from JSON text that it refuses
    /// from their `Value` (a struct variant written as a list); false for
    /// the types of k8s-openapi, whose readers take both alike.
    const __JSON_TEXT: bool = true;

    /// Reads a value of this type from JSON ([`Walk::__JSON_TEXT`] says
    /// which reader; only the one chosen is compiled).
    const __READ: Read<Self> =
        if Self::__JSON_TEXT { fallback::from_field_or_text::<Self> } else { fallback::from_field_value::<Self> };

    /// A JSON object without a field table (its serde form is not its
    /// fields one by one): diffed and patched as a whole object.
    const __OBJECT: bool = false;

    /// A set of scalars: merged as with `strategy = "merge"` when the field
    /// names no strategy.
    const __MERGED_SET: bool = false;

    /// `==` on two values is the reference's equality of their merge-key
    /// text (strings, integers, booleans); false where that is not known
    /// (floats: `-0.0 == 0.0`, but the texts differ).
    const __KEY_EQ: bool = false;

    /// The value as a merge key, when it is a scalar the type exposes
    /// (`None`: only its serialised form shows it).
    fn __as_key(&self) -> Option<KeyValue<'_>> {
        None
    }

    /// The value of the field with this JSON name, as a merge key.
    fn __field_key(&self, json_name: &str) -> FieldKey<'_> {
        if Self::__BY_TABLE {
            as_field(self).field_key(json_name)
        } else {
            // A struct the walk does not see field by field (`flatten`,
            // `from`/`into`, an enum, a transparent wrapper): only its JSON
            // shows the key.
            FieldKey::Opaque
        }
    }

    /// Serialises to JSON `null` (an `Option` that is `None`).
    fn __is_null(&self) -> bool {
        false
    }

    /// A struct diffed field by field (or a pointer to one): its diff
    /// compares each of its fields, so comparing the whole value first
    /// would compare them twice.
    fn __by_field() -> bool {
        Self::__BY_TABLE
    }

    /// Whether the merged sets of scalars the value holds are sorted as the
    /// reference sorts them (by their `%v` text), and its maps hold no
    /// `$patch` key, so that two equal values of a quiet type
    /// (`typed/facts.rs`) diff to `{}`; false when unsure. `field` is the
    /// field holding the value.
    fn __quiet_if_equal(&self, _field: &Field) -> bool {
        if const { shares_steps::<Self>() } {
            as_field(self).quiet_if_equal(_field)
        } else {
            // A scalar; anything else whose sets and maps are seen in its
            // JSON only (a struct with `flatten` or `from`/`into`, an enum,
            // a transparent wrapper) is diffed, not skipped.
            matches!(Self::__shape(), Shape::Scalar)
        }
    }

    /// Whether the value's JSON form, written inside `open` levels of
    /// objects and lists, nests no deeper than the engine accepts.
    fn __depth_ok(&self, open: usize) -> bool {
        if const { shares_steps::<Self>() } {
            as_field(self).depth_ok(open)
        } else {
            Self::__SCALAR || probe_ok(self, open)
        }
    }

    /// serde reads a missing key as a value of this type (`None`): only
    /// then is [`Walk::__missing`] anything but the missing-field error.
    const __ABSENT_OK: bool = false;

    /// The value a field of this type takes when its key is absent from
    /// the JSON (serde's missing-field rule: `None` for an `Option`).
    fn __missing(key: &str) -> Result<Self> {
        Err(missing_field(key))
    }

    /// The diff of a whole object (the document root, or a struct field).
    fn __diff_object(&self, desired: &Self, opts: Opts) -> Result<Map<String, Value>> {
        if Self::__BY_TABLE {
            as_field(self).diff_object(desired, opts)
        } else {
            fallback::diff_object(self, desired, Self::__shape(), opts)
        }
    }

    /// Applies a patch map to a whole object.
    fn __apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
        if Self::__BY_TABLE {
            as_field_mut(self).apply_object(patch)
        } else {
            fallback::apply_object(self, patch, Self::__shape())
        }
    }

    /// The value's JSON form: a struct's fields one by one through its
    /// table, as serde writes them (in order, each left out as serde
    /// leaves it out), so that no serde code for `Value` is compiled for
    /// the struct.
    fn __json(&self) -> Result<Value> {
        if const { shares_steps::<Self>() } { as_field(self).json() } else { fallback::to_value(self) }
    }

    /// The value serde reads from JSON, without the retries of
    /// [`Walk::__READ`], which calls it.
    fn __from_json(v: &Value) -> Result<Self> {
        // (A test of the constant alone, so that only its branch is
        // compiled for the type.)
        if Self::__READ_BY_TABLE {
            // Read in place into a new value.
            let Some(new) = Self::__NEW else { return Err(no_new_value()) };
            let mut s = new();
            match s.__read_json(v) {
                Ok(()) => Ok(s),
                Err(e) => Err(e),
            }
        } else {
            fallback::deserialize(v)
        }
    }

    /// A value to read into in place ([`Walk::__read_json`] then
    /// overwrites all of it), for the places that make one before reading
    /// (an option's `Some`, a list's new element); `None`: values of this
    /// type are read whole ([`Walk::__from_json`]) and moved there.
    const __NEW: New<Self> = None;

    /// A `Vec`: walked by its element type's list steps.
    const __LIST: Option<&'static ListSteps> = None;

    /// [`Walk::__read_json`] reads a struct in place by its table
    /// (`by_table::read_json`), and [`Walk::__from_json`] into its new
    /// value ([`Walk::__NEW`], which such a struct has).
    const __READ_BY_TABLE: bool = false;

    /// Sets the value to what [`Walk::__from_json`] reads from `v`; a
    /// type with [`Walk::__NEW`] reads in place, the others move the value
    /// read. (On error the value may be half read.)
    fn __read_json(&mut self, v: &Value) -> Result<()> {
        if Self::__READ_BY_TABLE {
            return by_table::read_json(self, table_of::<Self>(), v);
        }
        match Self::__from_json(v) {
            Ok(value) => {
                *self = value;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Sets the value from its JSON form; an error is at the key of the
    /// field (if any) that holds it.
    fn __set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
        if Self::__JSON_TEXT {
            match fallback::from_field_or_text(v, field) {
                Ok(value) => {
                    *self = value;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        } else {
            fallback::set_from_json(self, v, field)
        }
    }

    /// Adds to `patch` what turns the field value `old` into `new`, values
    /// of this type behind their vtable (`None`: the field is absent from
    /// the JSON).
    fn __diff_field(
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        if Self::__SCALAR {
            diff_scalar(old, new, field, patch, opts)
        } else if Self::__OBJECT || Self::__BY_TABLE {
            diff_struct_field(old, new, field, patch, opts)
        } else if const { Self::__LIST.is_some() } {
            // The list steps, by the value's kind.
            match new.or(old) {
                Some(v) => v.diff_field(old, new, field, patch, opts),
                None => Ok(()),
            }
        } else {
            fallback::diff_field(old, new, field, patch, opts)
        }
    }

    /// An `Option`, seen through: `Some(inner)` (`None`: another type).
    fn __as_option(&self) -> Option<Option<&dyn FieldValue>> {
        None
    }

    /// Applies the patch entries of one field to its value, in place
    /// (`present`: the JSON has the field; when it has not, the value is
    /// not read, only set). False: the field's key is gone from the JSON,
    /// and the field takes its missing value.
    fn __apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        if Self::__SCALAR {
            apply_scalar(self, present, patch, field)
        } else if Self::__OBJECT || Self::__BY_TABLE {
            apply_struct_field(self, present, patch, field)
        } else if const { Self::__LIST.is_some() } {
            as_field_mut(self).apply_field(present, patch, field)
        } else {
            fallback::apply_field(self, present, patch, field)
        }
    }
}

/// A value read in place (a struct by its table, an option's value, a
/// list's new element) has a new value of its type to read into.
#[cold]
pub(crate) fn no_new_value() -> crate::error::Error {
    ErrorKind::Internal("a value read in place without a new value to read into").into()
}

/// The error for a field absent from the JSON that its type requires.
fn missing_field(key: &str) -> crate::error::Error {
    ErrorKind::Deserialize(format!("missing field `{key}`")).into()
}

/// The [`Walk`] methods of a struct walked through its field table (for
/// generated code: the derive implements them with these, which are
/// compiled once for every struct).
pub mod by_table {
    use super::*;

    /// [`Walk::__field_key`].
    pub fn field_key<'s>(s: &'s dyn FieldValue, table: Table, json_name: &str) -> FieldKey<'s> {
        let Some(table) = table else { return FieldKey::Opaque };
        // Else a field serde writes but does not read.
        let schemas = table.field_schemas();
        let at = table.index_in(schemas, json_name).or_else(|| schemas.iter().position(|f| f.name == json_name));
        match at {
            Some(i) => table_key(s, table, i),
            None => FieldKey::Absent,
        }
    }

    /// `==` of two structs, field by field, each with its own type's `==`,
    /// so that a struct adds no `==` of its own to the walk. Only the
    /// fields serde writes are in the table, as only they are in the JSON.
    /// (For the walk, not for generated code.)
    pub(crate) fn same(a: &dyn FieldValue, b: &dyn FieldValue, table: Table) -> bool {
        let Some(table) = table else { return false };
        (0..table.fields.len()).all(|i| match (table.get(a, i), table.get(b, i)) {
            (Some(a), Some(b)) => a.same(b),
            _ => false,
        })
    }

    /// [`Walk::__quiet_if_equal`].
    pub fn quiet_if_equal(s: &dyn FieldValue, table: Table) -> bool {
        match table.map(|t| (t, (t.shape)())) {
            Some((table, shape @ Shape::Struct(schema))) => {
                fields_quiet_if_equal_in(&Struct::new(table, shape, s), schema)
            }
            _ => false,
        }
    }

    /// [`Walk::__depth_ok`].
    pub fn depth_ok(s: &dyn FieldValue, table: Table, open: usize) -> bool {
        match table.map(|t| (t, (t.shape)())) {
            // A table that does not line up with its schema is refused:
            // generated code always writes both alike.
            Some((table, shape @ Shape::Struct(schema))) => {
                fields_depth_ok_in(&Struct::new(table, shape, s), schema, open).unwrap_or(false)
            }
            _ => false,
        }
    }

    /// [`Walk::__diff_object`].
    pub fn diff_object(
        s: &dyn FieldValue,
        desired: &dyn FieldValue,
        table: Table,
        opts: Opts,
    ) -> Result<Map<String, Value>> {
        let table = table.ok_or_else(no_table)?;
        if s.value_type() != table.type_id || desired.value_type() != table.type_id {
            return Err(different_types());
        }
        let shape = (table.shape)();
        diff_fields_in(&Struct::new(table, shape, s), &Struct::new(table, shape, desired), shape, opts, false)
    }

    /// [`Walk::__apply_object`].
    pub fn apply_object(s: &mut dyn FieldValue, table: Table, patch: &Map<String, Value>) -> Result<()> {
        let table = table.ok_or_else(no_table)?;
        apply_struct(&mut Struct::new(table, (table.shape)(), s), patch)
    }

    /// [`Walk::__json`] of a struct that serde writes field by field: its
    /// constant keys (a k8s-openapi resource's), then each field it
    /// writes, in the table's order.
    pub fn to_json(s: &dyn FieldValue, table: Table) -> Result<Value> {
        let table = table.ok_or_else(no_table)?;
        let mut m = Map::new();
        for (key, value) in table.constants {
            m.insert((*key).to_string(), Value::String((*value).to_string()));
        }
        for (i, f) in table.field_schemas().iter().enumerate() {
            if let Some(v) = written(table, s, i) {
                m.insert(f.name.to_string(), v.json()?);
            }
        }
        Ok(Value::Object(m))
    }

    /// [`Walk::__read_json`] of such a struct, in place: as k8s-openapi
    /// reads it, a key that names no field is ignored, a null is a missing
    /// key, and a constant key must hold its value; each field is read in
    /// place, or takes its missing value, so nothing of the old value is
    /// left.
    pub fn read_json(s: &mut dyn FieldValue, table: Table, v: &Value) -> Result<()> {
        read_fields(s, table.ok_or_else(no_table)?, v)
    }

    fn read_fields(s: &mut dyn FieldValue, table: &'static FieldTable, v: &Value) -> Result<()> {
        let Value::Object(m) = v else {
            let name = match (table.shape)() {
                Shape::Struct(schema) => schema.name,
                _ => "",
            };
            return Err(fallback::invalid_type(v, name));
        };
        let mut read = vec![false; table.fields.len()];
        let schemas = table.field_schemas();
        for (key, v) in m {
            if let Some((_, value)) = table.constants.iter().find(|(c, _)| c == key) {
                match v {
                    Value::String(s) if s == value => continue,
                    Value::String(s) => return Err(fallback::invalid_string(s, value)),
                    _ => return Err(fallback::invalid_type(v, "a string")),
                }
            }
            let Some(i) = table.index_in(schemas, key) else { continue };
            read[i] = !v.is_null();
            if read[i] {
                match table.get_mut(s, i).ok_or_else(no_table)? {
                    FieldMut::Value(field) => field.read_json(v)?,
                    FieldMut::Optional(mut field) => field.read_json(v)?,
                }
            }
        }
        let mut s = Struct::new(table, (table.shape)(), s);
        for (i, _) in read.iter().enumerate().filter(|(_, read)| !**read) {
            s.remove(i)?;
        }
        Ok(())
    }

    /// The values of a struct's fields as serde_derive's reader takes them
    /// from JSON, by their index in the table (for generated code): from an
    /// object, the keys that name a field, in the object's order (the
    /// others are ignored); from a list, its elements in the fields' order.
    /// Anything else is serde's error, saying what it `expecting`.
    pub fn serde_fields<'v>(table: Table, v: &'v Value, expecting: &str) -> Result<SerdeFields<'v>> {
        let table = table.ok_or_else(no_table)?;
        let fields = table.fields.len();
        let (values, list) = match v {
            Value::Object(m) => {
                let schemas = table.field_schemas();
                let named = |(key, v): (&String, &'v Value)| Some((table.index_in(schemas, key)?, v));
                (m.iter().filter_map(named).collect(), None)
            }
            Value::Array(a) => (a.iter().take(fields).enumerate().collect(), Some(a.len())),
            _ => return Err(fallback::invalid_type(v, expecting)),
        };
        Ok(SerdeFields { values, list, fields })
    }

    /// [`serde_fields`]: the fields' values, and the list they came from.
    pub struct SerdeFields<'v> {
        values: Vec<(usize, &'v Value)>,
        list: Option<usize>,
        fields: usize,
    }

    impl<'v> SerdeFields<'v> {
        /// The values, by field index, in the order serde reads them.
        pub fn values(&self) -> &[(usize, &'v Value)] {
            &self.values
        }

        /// The values came from a list (where a field without a default
        /// must have its element).
        pub fn is_list(&self) -> bool {
            self.list.is_some()
        }

        /// serde's error for a list that ends before the field at `index`.
        pub fn too_short(&self, index: usize, expecting: &str) -> crate::error::Error {
            fallback::invalid_length(index, expecting)
        }

        /// serde_json's error for a list longer than the struct's fields.
        pub fn finish(&self) -> Result<()> {
            match self.list {
                Some(len) if len > self.fields => Err(fallback::invalid_length(len, "fewer elements in array")),
                _ => Ok(()),
            }
        }
    }

    #[cold]
    fn no_table() -> crate::error::Error {
        ErrorKind::Internal("a struct walked by its table without one").into()
    }
}

/// A struct's field table, if it has one ([`Walk::__TABLE`]).
pub type Table = Option<&'static FieldTable>;

/// A reader of a type's values from JSON; an error is at the key of the
/// field (if any) that holds the value.
pub type Read<T> = fn(&Value, Option<&Field>) -> Result<T>;

/// A maker of a type's value to read into ([`Walk::__NEW`]).
pub type New<T> = Option<fn() -> T>;

/// The fields of a struct: a constant table that generated code writes,
/// walked by the one routine below for every struct. A field is reached at
/// its offset in the struct, by functions compiled once per field type;
/// only a field with a `skip_serializing_if` or a default of its own needs
/// a function of the struct (a `match` on the field's index).
pub struct FieldTable {
    /// How each field of the struct's schema (after its constant keys) is
    /// reached and written, in declaration order: the schema has the
    /// fields' names and patch metadata.
    pub fields: &'static [FieldOps],
    /// The indices in `fields` of the fields a patch may set, in the order
    /// of their JSON names (the first field of a name wins): the names are
    /// the schema's, so that the table does not hold a second copy.
    pub by_name: &'static [u16],
    /// The struct's schema.
    pub shape: fn() -> Shape,
    /// Keys serde writes with a constant string (`apiVersion` and `kind`
    /// of a k8s-openapi resource), with their values.
    pub constants: &'static [(&'static str, &'static str)],
    /// The struct's type: the offsets of `fields` are into it.
    pub type_id: TypeId,
    /// Whether serde leaves out the field at an index ([`Skip::If`]).
    pub skip_if: fn(&dyn FieldValue, usize) -> bool,
    /// Sets the field at an index to the value serde gives it when it is
    /// missing ([`Missing::Set`]).
    pub set_default: fn(&mut dyn FieldValue, usize),
}

impl FieldTable {
    /// The schema of the struct's fields, after its constant keys.
    pub(crate) fn field_schemas(&self) -> &'static [FieldSchema] {
        self.field_schemas_in((self.shape)())
    }

    /// [`field_schemas`](Self::field_schemas) in the struct's schema, read
    /// once by the caller (empty when it is not a struct's: generated code
    /// writes a struct's with every table).
    fn field_schemas_in(&self, shape: Shape) -> &'static [FieldSchema] {
        match shape {
            Shape::Struct(schema) => schema.fields.get(self.constants.len()..).unwrap_or_default(),
            _ => &[],
        }
    }

    /// The field at an index with its name and patch metadata, from the
    /// schema's fields (`field_schemas`).
    pub(crate) fn field(&self, schemas: &'static [FieldSchema], i: usize) -> Field {
        match schemas.get(i) {
            Some(f) => Field { key: f.name, strategy: f.strategy, merge_key: f.merge_key, parent: self.shape },
            None => Field { key: "", strategy: Strategy::NONE, merge_key: None, parent: self.shape },
        }
    }

    /// The index of the field a patch or serde reads under this JSON name.
    pub(crate) fn index_of(&self, json_name: &str) -> Option<usize> {
        self.index_in(self.field_schemas(), json_name)
    }

    /// [`index_of`](Self::index_of) with the struct's
    /// [`field_schemas`](Self::field_schemas), read once by the caller.
    pub(crate) fn index_in(&self, schemas: &[FieldSchema], json_name: &str) -> Option<usize> {
        let name = |i: &u16| schemas.get(usize::from(*i)).map_or("", |f| f.name);
        let at = self.by_name.binary_search_by(|i| name(i).cmp(json_name)).ok()?;
        Some(usize::from(self.by_name[at]))
    }

    /// The value of the field at an index (`None`: the struct is not of
    /// the table's type).
    fn get<'s>(&self, s: &'s dyn FieldValue, i: usize) -> Option<FieldRef<'s>> {
        let ops = self.fields.get(i)?;
        if s.value_type() != self.type_id {
            return None;
        }
        let at = (s as *const dyn FieldValue).cast::<u8>().wrapping_add(ops.offset);
        // SAFETY: `s` is a value of the table's struct, whose field at
        // `offset` has the type `access` is for: generated code writes the
        // offset with `offset_of!` and the access of the field's declared
        // type (or of `Json` around it, of the same layout), and checks
        // that type against the field's at compile time (in a struct that
        // is not packed, so the field is aligned).
        Some(match &ops.access.0 {
            Access::Value(place) => FieldRef::Value(unsafe { &*place(at.cast_mut()) }),
            Access::Optional(optional) => FieldRef::Optional(unsafe { optional.value(at) }),
        })
    }

    /// [`FieldTable::get`], to change the value.
    fn get_mut<'s>(&self, s: &'s mut dyn FieldValue, i: usize) -> Option<FieldMut<'s>> {
        let ops = self.fields.get(i)?;
        if s.value_type() != self.type_id {
            return None;
        }
        let at = (s as *mut dyn FieldValue).cast::<u8>().wrapping_add(ops.offset);
        // SAFETY: as in `get`, and `s` is borrowed mutably for as long.
        Some(match &ops.access.0 {
            Access::Value(place) => FieldMut::Value(unsafe { &mut *place(at) }),
            Access::Optional(optional) => FieldMut::Optional(unsafe { OptionalSlot::new(at, optional) }),
        })
    }
}

/// How a field of one type is reached at its place in a struct: compiled
/// once per field type, for every struct that has such a field.
pub struct FieldAccess(Access);

enum Access {
    /// The field behind its type's vtable (the pointer keeps the place's
    /// borrow: read only when it is shared).
    Value(unsafe fn(*mut u8) -> *mut dyn FieldValue),
    /// An `Option<T>` field, reached as its `T` (`typed/optional.rs`).
    Optional(OptionalOps),
}

impl FieldAccess {
    /// A field of type `T`, behind its vtable.
    const fn value<T: FieldValue>() -> FieldAccess {
        FieldAccess(Access::Value(field_at::<T>))
    }

    /// An `Option<T>` field.
    pub(crate) const fn optional(ops: OptionalOps) -> FieldAccess {
        FieldAccess(Access::Optional(ops))
    }
}

impl<T: Serialize + DeserializeOwned + 'static> Json<T> {
    /// The [`FieldAccess`] of a field read and written through its serde
    /// form (`#[patch(with)]`, for generated code; a field of a type with
    /// the walker has [`Walk::__ACCESS`]).
    pub const ACCESS: &'static FieldAccess = &FieldAccess::value::<Json<T>>();
}

/// The field of type `T` at `at`, behind its vtable: a cast, which
/// creates no borrow, so one function serves to read and to change it.
///
/// # Safety
///
/// `at` points to a `T`.
#[inline(never)]
unsafe fn field_at<T: FieldValue>(at: *mut u8) -> *mut dyn FieldValue {
    at.cast::<T>() as *mut dyn FieldValue
}

/// Sets a field to its type's default (a [`Missing::Default`], for
/// generated code).
#[inline(never)]
pub fn default_of<T: Default + 'static>(v: &mut dyn FieldValue) {
    if let Some(v) = v.downcast_mut::<T>() {
        *v = T::default();
    }
}

/// [`FieldTable::skip_if`] of a struct without [`Skip::If`] fields.
pub fn no_skip_if(_: &dyn FieldValue, _: usize) -> bool {
    false
}

/// [`FieldTable::set_default`] of a struct without [`Missing::Set`] fields.
pub fn no_own_default(_: &mut dyn FieldValue, _: usize) {}

/// The struct behind `Any` as its own type, for generated code.
pub fn this<S: 'static>(s: &dyn FieldValue) -> Option<&S> {
    s.downcast_ref()
}

/// [`this`], to change it.
pub fn this_mut<S: 'static>(s: &mut dyn FieldValue) -> Option<&mut S> {
    s.downcast_mut()
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
/// each field is. A struct walked by its table is walked by code compiled
/// once for every struct (`Kind::Table`): its vtable holds only this one
/// method, not a copy of each step. Every other type has its own
/// `Steps`. (The steps are called on `dyn FieldValue`, below, which picks
/// the one of the value's kind.)
pub trait FieldValue: Sealed + 'static {
    /// How the value is walked: for a type with steps of its own, the
    /// value behind them, with the way to reach them to change it (the
    /// walk reads it with `kind` and `kind_mut` on `dyn FieldValue`).
    fn kind_of(&self) -> Kind<OwnSteps<'_>>;
}

/// Only smp-core implements [`FieldValue`]: a value's kind says its type
/// (`value_type` on `dyn FieldValue`), which downcasts trust.
pub trait Sealed {}

impl<T: Walk> Sealed for T {}
impl<T: Serialize + DeserializeOwned + 'static> Sealed for Json<T> {}

/// A value behind its own steps ([`Kind::Steps`]), and the way to reach
/// them to change it: one small function per type with steps of its own,
/// so that reading and changing a value take one method of its vtable.
pub struct OwnSteps<'s> {
    steps: &'s dyn Steps,
    to_mut: unsafe fn(*mut dyn FieldValue) -> *mut dyn Steps,
}

impl<'s> OwnSteps<'s> {
    /// The steps of `T`, a type whose [`FieldValue::kind_of`] gives them.
    pub(crate) fn of<T: FieldValue + Steps>(value: &'s T) -> Self {
        OwnSteps { steps: value, to_mut: steps_mut::<T> }
    }
}

/// The value at `v` behind its own steps, to change it.
///
/// # Safety
///
/// `v` points to a `T` (it is the value whose `kind_of` gave this
/// function).
unsafe fn steps_mut<T: FieldValue + Steps>(v: *mut dyn FieldValue) -> *mut dyn Steps {
    v.cast::<T>() as *mut dyn Steps
}

/// How a value is walked ([`FieldValue::kind_of`]); `S` is the value behind
/// its own steps, borrowed to read or to change it.
pub enum Kind<S> {
    /// A struct, by its table.
    Table(&'static TableSteps),
    /// A `Vec`, by the list steps of its element type.
    List(&'static ListSteps),
    /// Any other type, by its own steps.
    Steps(S),
}

/// What a struct walked by its table needs of its own type, besides the
/// table: compiled once per struct, a constant of [`FieldValue::kind_of`].
pub struct TableSteps {
    /// The struct's type.
    type_id: TypeId,
    /// [`table_of`] the struct.
    table: fn() -> Table,
    /// [`Walk::__read_json`] (`None`: read in place by the table).
    read_json: Option<ReadJsonFn>,
    /// [`Walk::__set_json`] (`None`: read from a `Value` only, by
    /// [`FieldValue::read_json`](Steps::read_json) with a field's retries).
    set_json: Option<SetJsonFn>,
    /// [`Walk::__missing`] (`None`: a missing field is an error).
    missing: Option<SetMissingFn>,
}

/// [`Walk::__missing`], set into a value behind its vtable.
type SetMissingFn = fn(&mut dyn FieldValue, &str) -> Result<()>;

/// [`Walk::__read_json`] on a value behind its vtable.
pub(crate) type ReadJsonFn = fn(&mut dyn FieldValue, &Value) -> Result<()>;

/// [`Walk::__set_json`] on a value behind its vtable.
pub(crate) type SetJsonFn = fn(&mut dyn FieldValue, &Value, Option<&Field>) -> Result<()>;

impl TableSteps {
    /// The steps of `T`, a struct with a table (of any other type: steps
    /// that are never taken, as its values are walked by their own).
    const fn of<T: Walk>() -> TableSteps {
        match T::__TABLE {
            Some(_) => TableSteps {
                type_id: TypeId::of::<T>(),
                table: table_of::<T>,
                read_json: if T::__READ_BY_TABLE { None } else { Some(read_json_of::<T>) },
                set_json: if T::__JSON_TEXT { Some(set_json_of::<T>) } else { None },
                missing: if T::__ABSENT_OK { Some(missing_of::<T>) } else { None },
            },
            None => TableSteps {
                type_id: TypeId::of::<NotAValue>(),
                table: || None,
                read_json: None,
                set_json: None,
                missing: None,
            },
        }
    }
}

#[inline(never)]
pub(crate) fn read_json_of<T: Walk>(s: &mut dyn FieldValue, v: &Value) -> Result<()> {
    match s.downcast_mut::<T>() {
        Some(s) => s.__read_json(v),
        None => Err(different_types()),
    }
}

#[inline(never)]
pub(crate) fn set_json_of<T: Walk>(s: &mut dyn FieldValue, v: &Value, field: Option<&Field>) -> Result<()> {
    match s.downcast_mut::<T>() {
        Some(s) => s.__set_json(v, field),
        None => Err(different_types()),
    }
}

#[inline(never)]
fn missing_of<T: Walk>(s: &mut dyn FieldValue, key: &str) -> Result<()> {
    match s.downcast_mut::<T>() {
        Some(s) => {
            *s = T::__missing(key)?;
            Ok(())
        }
        None => Err(different_types()),
    }
}

/// The type of the steps of no value (those of a type that does not take
/// them): no value is of it.
pub(crate) enum NotAValue {}

/// A value's type, and the value as the type it is: the type is said by its
/// kind (a constant of its table or list steps, or its own steps' `Any`),
/// so that a type adds no function of its own for it.
impl dyn FieldValue {
    /// How the value is walked.
    pub(crate) fn kind(&self) -> Kind<&dyn Steps> {
        match self.kind_of() {
            Kind::Table(t) => Kind::Table(t),
            Kind::List(l) => Kind::List(l),
            Kind::Steps(own) => Kind::Steps(own.steps),
        }
    }

    /// [`kind`](Self::kind), to change the value.
    pub(crate) fn kind_mut(&mut self) -> Kind<&mut dyn Steps> {
        let to_mut = match self.kind_of() {
            Kind::Table(t) => return Kind::Table(t),
            Kind::List(l) => return Kind::List(l),
            Kind::Steps(own) => own.to_mut,
        };
        // SAFETY: the function of this value's own kind, on the value,
        // which is borrowed mutably for as long as its steps.
        Kind::Steps(unsafe { &mut *to_mut(self) })
    }

    /// The value's type.
    pub(crate) fn value_type(&self) -> TypeId {
        match self.kind() {
            Kind::Table(t) => t.type_id,
            Kind::List(l) => l.elem.list_type,
            Kind::Steps(s) => {
                // Through the value's vtable (`dyn Steps` is an `Any` of
                // its own type too).
                let any: &dyn Any = s;
                any.type_id()
            }
        }
    }

    /// The value as a `T`, if it is one.
    pub(crate) fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        // SAFETY: the value is a `T` (its kind's type is the type of the
        // value it is made from: `FieldValue`'s implementations give the
        // constant of their own type, or themselves as `Steps`).
        (self.value_type() == TypeId::of::<T>()).then(|| unsafe { &*(self as *const dyn FieldValue).cast::<T>() })
    }

    /// [`downcast_ref`](Self::downcast_ref), to change it.
    pub(crate) fn downcast_mut<T: 'static>(&mut self) -> Option<&mut T> {
        // SAFETY: as in `downcast_ref`.
        (self.value_type() == TypeId::of::<T>()).then(|| unsafe { &mut *(self as *mut dyn FieldValue).cast::<T>() })
    }
}

/// The steps of diff and apply, each by the value's kind.
impl dyn FieldValue {
    /// Serialises to JSON `null`.
    pub(crate) fn is_null(&self) -> bool {
        match self.kind() {
            Kind::Table(_) | Kind::List(_) => false,
            Kind::Steps(s) => s.is_null(),
        }
    }

    /// The value as a merge key.
    pub(crate) fn key(&self) -> FieldKey<'_> {
        match self.kind() {
            // Only its JSON shows a struct as a key.
            Kind::Table(_) | Kind::List(_) => FieldKey::Opaque,
            Kind::Steps(s) => s.key(),
        }
    }

    /// [`Walk::__field_key`].
    pub(crate) fn field_key(&self, json_name: &str) -> FieldKey<'_> {
        match self.kind() {
            Kind::Table(t) => by_table::field_key(self, (t.table)(), json_name),
            Kind::List(_) => FieldKey::Opaque,
            Kind::Steps(s) => s.field_key(json_name),
        }
    }

    /// `other` is a value of the same type and `==` to this one.
    pub(crate) fn same(&self, other: &dyn FieldValue) -> bool {
        match self.kind() {
            Kind::Table(t) => by_table::same(self, other, (t.table)()),
            Kind::List(l) => l.elem.same_lists(self, other),
            Kind::Steps(s) => s.same(other),
        }
    }

    /// [`Walk::__by_field`].
    pub(crate) fn by_field(&self) -> bool {
        match self.kind() {
            Kind::Table(_) => true,
            Kind::List(_) => false,
            Kind::Steps(s) => s.by_field(),
        }
    }

    /// [`Walk::__depth_ok`].
    pub(crate) fn depth_ok(&self, open: usize) -> bool {
        match self.kind() {
            Kind::Table(t) => by_table::depth_ok(self, (t.table)(), open),
            Kind::List(l) => l.elem.slots(self).is_some_and(|s| list::depth_ok(s, l.elem, open)),
            Kind::Steps(s) => s.depth_ok(open),
        }
    }

    /// [`Walk::__quiet_if_equal`].
    pub(crate) fn quiet_if_equal(&self, field: &Field) -> bool {
        match self.kind() {
            Kind::Table(t) => by_table::quiet_if_equal(self, (t.table)()),
            Kind::List(l) => l.elem.slots(self).is_some_and(|s| list::quiet_if_equal(s, l.elem, field)),
            Kind::Steps(s) => s.quiet_if_equal(field),
        }
    }

    /// [`Steps::diff_field`].
    pub(crate) fn diff_field(
        &self,
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        match self.kind() {
            Kind::Table(_) => diff_struct_field(old, new, field, patch, opts),
            Kind::List(l) => list::diff_field(old, new, l.elem, field, patch, opts),
            Kind::Steps(s) => s.diff_field(old, new, field, patch, opts),
        }
    }

    /// [`Steps::apply_field`].
    pub(crate) fn apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        match self.kind_mut() {
            Kind::Table(_) => apply_struct_field(self, present, patch, field),
            Kind::List(l) => list::apply_field(l.slots_mut(self)?, present, patch, l.elem, field),
            Kind::Steps(s) => s.apply_field(present, patch, field),
        }
    }

    /// [`Steps::set_missing`].
    pub(crate) fn set_missing(&mut self, key: &str) -> Result<()> {
        match self.kind_mut() {
            Kind::Table(TableSteps { missing: Some(missing), .. }) => missing(self, key),
            Kind::Table(_) | Kind::List(_) => Err(missing_field(key)),
            Kind::Steps(s) => s.set_missing(key),
        }
    }

    /// The value's JSON form.
    pub(crate) fn json(&self) -> Result<Value> {
        match self.kind() {
            Kind::Table(t) => by_table::to_json(self, (t.table)()),
            Kind::List(l) => list::json(l.elem.slots(self).ok_or_else(different_types)?),
            Kind::Steps(s) => s.json(),
        }
    }

    /// [`Walk::__as_option`].
    pub(crate) fn as_option(&self) -> Option<Option<&dyn FieldValue>> {
        match self.kind() {
            Kind::Table(_) | Kind::List(_) => None,
            Kind::Steps(s) => s.as_option(),
        }
    }

    /// [`Steps::set_json`].
    pub(crate) fn set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
        match self.kind_mut() {
            Kind::Table(TableSteps { set_json: Some(set_json), .. }) => set_json(self, v, field),
            Kind::Table(_) => fallback::set_from_json(self, v, field),
            Kind::List(l) => l.set_json(self, v, field),
            Kind::Steps(s) => s.set_json(v, field),
        }
    }

    /// [`Steps::read_json`].
    pub(crate) fn read_json(&mut self, v: &Value) -> Result<()> {
        match self.kind_mut() {
            Kind::Table(TableSteps { read_json: Some(read_json), .. }) => read_json(self, v),
            Kind::Table(t) => by_table::read_json(self, (t.table)(), v),
            Kind::List(l) => l.read_json(self, v),
            Kind::Steps(s) => s.read_json(v),
        }
    }

    /// [`Steps::diff_object`].
    pub(crate) fn diff_object(&self, new: &dyn FieldValue, opts: Opts) -> Result<Map<String, Value>> {
        match self.kind() {
            // Without seeing `new` as the struct: the table checks the types.
            Kind::Table(t) => by_table::diff_object(self, new, (t.table)(), opts),
            Kind::List(_) => Err(not_an_object()),
            Kind::Steps(s) => s.diff_object(new, opts),
        }
    }

    /// [`Steps::apply_object`].
    pub(crate) fn apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
        match self.kind_mut() {
            Kind::Table(t) => by_table::apply_object(self, (t.table)(), patch),
            Kind::List(_) => Err(not_an_object()),
            Kind::Steps(s) => s.apply_object(patch),
        }
    }
}

/// The steps of a value that is not a struct walked by its table.
pub trait Steps: Any {
    /// Serialises to JSON `null`.
    fn is_null(&self) -> bool;

    /// The value as a merge key.
    fn key(&self) -> FieldKey<'_>;

    /// [`Walk::__field_key`].
    fn field_key(&self, json_name: &str) -> FieldKey<'_> {
        // Only a struct's JSON shows its fields.
        let _ = json_name;
        FieldKey::Opaque
    }

    /// `other` is a value of the same type and `==` to this one.
    fn same(&self, other: &dyn FieldValue) -> bool {
        // Without `==`, never known equal.
        let _ = other;
        false
    }

    /// [`Walk::__by_field`].
    fn by_field(&self) -> bool {
        false
    }

    /// [`Walk::__depth_ok`].
    fn depth_ok(&self, open: usize) -> bool;

    /// [`Walk::__quiet_if_equal`].
    fn quiet_if_equal(&self, field: &Field) -> bool;

    /// Adds to `patch` what turns the field value `old` into `new`, values
    /// of this type (`None`: absent from the JSON); `self` is one of them,
    /// whose type's step it is.
    fn diff_field(
        &self,
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()>;

    /// Applies the field's patch entries to the value (`present`: the JSON
    /// has it); false when the field is gone and takes its missing value.
    fn apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool>;

    /// Sets the value a field of this type takes when its key is absent
    /// from the JSON (the type's own rule).
    fn set_missing(&mut self, key: &str) -> Result<()>;

    /// The value's JSON form.
    fn json(&self) -> Result<Value>;

    /// [`Walk::__as_option`].
    fn as_option(&self) -> Option<Option<&dyn FieldValue>> {
        None
    }

    /// Sets the value from its JSON form (an error is at the key of the
    /// field, if any, that holds it).
    fn set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()>;

    /// [`Walk::__read_json`]: what [`Walk::__from_json`] reads, set into
    /// this value.
    fn read_json(&mut self, v: &Value) -> Result<()>;

    /// The diff of two objects: this one and `new`, a value of the same type.
    fn diff_object(&self, new: &dyn FieldValue, opts: Opts) -> Result<Map<String, Value>> {
        let _ = (new, opts);
        Err(not_an_object())
    }

    /// Applies a patch map to the value, an object.
    fn apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
        let _ = patch;
        Err(not_an_object())
    }
}

/// A value behind its type's vtable.
pub(crate) fn as_field<T: FieldValue>(v: &T) -> &dyn FieldValue {
    v
}

/// [`as_field`], to change it.
pub(crate) fn as_field_mut<T: FieldValue>(v: &mut T) -> &mut dyn FieldValue {
    v
}

/// A value behind the vtable as the type it is (`None`: absent).
pub(crate) fn typed<T: 'static>(other: Option<&dyn FieldValue>) -> Result<Option<&T>> {
    let Some(v) = other else { return Ok(None) };
    match v.downcast_ref::<T>() {
        Some(v) => Ok(Some(v)),
        None => Err(different_types()),
    }
}

/// A field read only through its JSON (`Json`, an option as a whole) is
/// never diffed or patched as an object of its own.
#[cold]
pub(crate) fn not_an_object() -> crate::error::Error {
    ErrorKind::Internal("a value diffed or patched as an object that is none").into()
}

#[cold]
pub(crate) fn different_types() -> crate::error::Error {
    ErrorKind::Internal("fields of different types").into()
}

/// The kind of a type with the walker: a struct walked by its table and a
/// `Vec` take the steps of their kind (on `dyn FieldValue`, from
/// [`by_table`] and `typed/list.rs`), so that they add no copy of the
/// steps to a program; any other type, its own [`Steps`].
impl<T: Walk> FieldValue for T {
    #[inline(never)]
    fn kind_of(&self) -> Kind<OwnSteps<'_>> {
        // (Only the branch of `T`'s kind is compiled for it: a struct
        // walked by its table adds no copy of the steps below.)
        if const { shares_steps::<T>() } { shared_kind::<T, _>() } else { Kind::Steps(OwnSteps::of(self)) }
    }
}

/// `T` is walked by the steps of its kind, a struct's or a list's.
pub(crate) const fn shares_steps<T: Walk>() -> bool {
    T::__BY_TABLE || T::__LIST.is_some()
}

/// The kind of `T`, one that [`shares_steps`].
fn shared_kind<T: Walk, S>() -> Kind<S> {
    // (Tests of constants alone: only `T`'s branch is compiled.)
    if T::__BY_TABLE {
        Kind::Table(<T as WithTable>::STEPS)
    } else {
        Kind::List(match T::__LIST {
            Some(list) => list,
            None => &list::NO_LIST,
        })
    }
}

/// `T`'s field table, from one place in a program. A constant is written
/// out in every unit of code that names it; a table, with the fields and
/// schemas it points to, is named here only, so that a program holds one
/// copy of it.
#[inline(never)]
pub fn table_of<T: Walk>() -> Table {
    T::__TABLE
}

/// A struct's [`TableSteps`], a constant.
trait WithTable {
    const STEPS: &'static TableSteps;
}

impl<T: Walk> WithTable for T {
    const STEPS: &'static TableSteps = &TableSteps::of::<T>();
}

/// The steps of a type that shares no kind's ([`FieldValue::kind_of`] gives
/// them only for such a type): its [`Walk`] methods.
impl<T: Walk> Steps for T {
    fn is_null(&self) -> bool {
        self.__is_null()
    }

    fn key(&self) -> FieldKey<'_> {
        FieldKey::of(Some(self.__as_key()))
    }

    fn field_key(&self, json_name: &str) -> FieldKey<'_> {
        self.__field_key(json_name)
    }

    fn same(&self, other: &dyn FieldValue) -> bool {
        match other.downcast_ref::<T>() {
            Some(o) => T::eq(self, o),
            None => false,
        }
    }

    fn by_field(&self) -> bool {
        T::__by_field()
    }

    fn depth_ok(&self, open: usize) -> bool {
        self.__depth_ok(open)
    }

    fn quiet_if_equal(&self, field: &Field) -> bool {
        self.__quiet_if_equal(field)
    }

    fn diff_field(
        &self,
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        T::__diff_field(old, new, field, patch, opts)
    }

    fn apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        self.__apply_field(present, patch, field)
    }

    fn set_missing(&mut self, key: &str) -> Result<()> {
        if T::__ABSENT_OK {
            match T::__missing(key) {
                Ok(value) => {
                    *self = value;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        } else {
            Err(missing_field(key))
        }
    }

    fn json(&self) -> Result<Value> {
        self.__json()
    }

    fn as_option(&self) -> Option<Option<&dyn FieldValue>> {
        self.__as_option()
    }

    fn set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
        self.__set_json(v, field)
    }

    fn read_json(&mut self, v: &Value) -> Result<()> {
        self.__read_json(v)
    }

    // Only a struct's field (one with a table, or an object of its own) is
    // diffed or patched as an object, by the type's own steps.
    fn diff_object(&self, new: &dyn FieldValue, opts: Opts) -> Result<Map<String, Value>> {
        match new.downcast_ref::<T>() {
            Some(new) => self.__diff_object(new, opts),
            None => Err(different_types()),
        }
    }

    fn apply_object(&mut self, patch: &Map<String, Value>) -> Result<()> {
        self.__apply_object(patch)
    }
}

/// A field read and written only through its serde form
/// (`#[patch(with = ...)]`: its type has no walker).
#[repr(transparent)]
pub struct Json<T>(T);

impl<T: Serialize + DeserializeOwned + 'static> FieldValue for Json<T> {
    fn kind_of(&self) -> Kind<OwnSteps<'_>> {
        Kind::Steps(OwnSteps::of(self))
    }
}

impl<T: Serialize + DeserializeOwned + 'static> Steps for Json<T> {
    fn is_null(&self) -> bool {
        fallback::to_value(&self.0).is_ok_and(|v| v.is_null())
    }

    fn key(&self) -> FieldKey<'_> {
        // Only the serialised form shows its value.
        FieldKey::Opaque
    }

    fn depth_ok(&self, open: usize) -> bool {
        probe_ok(&self.0, open)
    }

    fn quiet_if_equal(&self, _: &Field) -> bool {
        // Its sets (if any) are seen only in its JSON.
        false
    }

    fn diff_field(
        &self,
        old: Option<&dyn FieldValue>,
        new: Option<&dyn FieldValue>,
        field: &Field,
        patch: &mut Map<String, Value>,
        opts: Opts,
    ) -> Result<()> {
        fallback::diff_field(old, new, field, patch, opts)
    }

    fn apply_field(&mut self, present: bool, patch: FieldPatch<'_>, field: &Field) -> Result<bool> {
        fallback::apply_field(self, present, patch, field)
    }

    fn set_missing(&mut self, key: &str) -> Result<()> {
        self.0 = fallback::missing_json(key)?;
        Ok(())
    }

    fn json(&self) -> Result<Value> {
        fallback::to_value(&self.0)
    }

    fn set_json(&mut self, v: &Value, field: Option<&Field>) -> Result<()> {
        self.0 = fallback::from_field(v, field)?;
        Ok(())
    }

    fn read_json(&mut self, v: &Value) -> Result<()> {
        self.0 = fallback::deserialize(v)?;
        Ok(())
    }
}

/// When serde leaves a field out of the JSON.
pub enum Skip {
    /// Never.
    Never,
    /// When it is null (`Option::is_none`).
    Null,
    /// When its `skip_serializing_if` says so ([`FieldTable::skip_if`]).
    If,
}

/// The value a field takes when its key is absent from the JSON.
pub enum Missing {
    /// Its type's rule (the `set_missing` step of its kind).
    Type,
    /// Its type's `Default` ([`default_of`]).
    Default(fn(&mut dyn FieldValue)),
    /// Its serde default of its own ([`FieldTable::set_default`]).
    Set,
}

/// One field of a struct: how it is reached, and how serde writes and
/// reads it (its name and patch metadata are in the table's schema).
pub struct FieldOps {
    /// When serde leaves it out.
    pub skip: Skip,
    /// Its value when a patch removes it.
    pub missing: Missing,
    /// serde reads it (a patch may set it).
    pub applied: bool,
    /// Where it is in the struct (`offset_of!`).
    pub offset: usize,
    /// How a field of its type is reached there.
    pub access: &'static FieldAccess,
}

/// A struct value with its field table, seen without its type: the walk
/// over its fields is compiled once for every struct, each struct type
/// adds only these small steps.
pub(crate) trait Fields {
    /// How many fields the table has.
    fn count(&self) -> usize;

    /// The field at this index, and whether serde reads it (a patch may
    /// set it).
    fn field(&self, i: usize) -> (Field, bool);

    /// The field's value as serde writes it (`None`: left out).
    fn value(&self, i: usize) -> Option<FieldRef<'_>>;
}

/// [`Fields`] of a struct being patched.
pub(crate) trait FieldsMut: Fields {
    /// Applies the field's patch entries (`removed`: the field's key is
    /// gone from the JSON, whatever its value).
    fn apply(&mut self, i: usize, patch: FieldPatch<'_>, removed: bool) -> Result<()>;

    /// Removes the field's key from the JSON.
    fn remove(&mut self, i: usize) -> Result<()>;

    /// The index of the field under a JSON name.
    fn index_of(&self, json_name: &str) -> Option<usize>;

    /// The struct's schema.
    fn shape(&self) -> Shape;

    /// The whole struct, behind its type's vtable.
    fn whole(&mut self) -> &mut dyn FieldValue;
}

/// A struct and its table; `R` is a reference to the struct behind its
/// vtable, `&mut dyn FieldValue` when it is being patched.
struct Struct<R> {
    table: &'static FieldTable,
    /// The schema of its fields (`FieldTable::field_schemas`).
    schemas: &'static [FieldSchema],
    s: R,
}

impl<R> Struct<R> {
    /// `shape`: the table's schema, `(table.shape)()`, which the caller
    /// has read.
    fn new(table: &'static FieldTable, shape: Shape, s: R) -> Self {
        Struct { table, schemas: table.field_schemas_in(shape), s }
    }
}

impl<R: Deref<Target = dyn FieldValue>> Fields for Struct<R> {
    fn count(&self) -> usize {
        self.table.fields.len()
    }

    fn field(&self, i: usize) -> (Field, bool) {
        (self.table.field(self.schemas, i), self.table.fields[i].applied)
    }

    fn value(&self, i: usize) -> Option<FieldRef<'_>> {
        written(self.table, &*self.s, i)
    }
}

/// The value of a struct's field at this index of its table, as serde
/// writes it (`None`: left out).
fn written<'s>(table: &'static FieldTable, s: &'s dyn FieldValue, i: usize) -> Option<FieldRef<'s>> {
    let v = table.get(s, i)?;
    let skipped = match table.fields.get(i)?.skip {
        Skip::Never => false,
        Skip::Null => v.is_null(),
        Skip::If => (table.skip_if)(s, i),
    };
    if skipped { None } else { Some(v) }
}

impl<R: DerefMut<Target = dyn FieldValue>> FieldsMut for Struct<R> {
    fn apply(&mut self, i: usize, patch: FieldPatch<'_>, removed: bool) -> Result<()> {
        let ops = &self.table.fields[i];
        if !ops.applied {
            return Ok(());
        }
        let present = !removed && self.value(i).is_some();
        let field = self.table.field(self.schemas, i);
        let kept = match self.table.get_mut(&mut *self.s, i) {
            Some(FieldMut::Value(v)) => v.apply_field(present, patch, &field)?,
            Some(FieldMut::Optional(mut v)) => v.apply_field(present, patch, &field)?,
            None => return Ok(()),
        };
        if kept {
            return Ok(());
        }
        self.remove(i)
    }

    fn remove(&mut self, i: usize) -> Result<()> {
        let ops = &self.table.fields[i];
        match ops.missing {
            Missing::Set => {
                (self.table.set_default)(&mut *self.s, i);
                Ok(())
            }
            // An option's default and missing value are both `None`.
            Missing::Default(set) => {
                match self.table.get_mut(&mut *self.s, i) {
                    Some(FieldMut::Value(v)) => set(v),
                    Some(FieldMut::Optional(mut v)) => v.set_none(),
                    None => {}
                }
                Ok(())
            }
            Missing::Type => match self.table.get_mut(&mut *self.s, i) {
                Some(FieldMut::Value(v)) => v.set_missing(self.table.field(self.schemas, i).key),
                Some(FieldMut::Optional(mut v)) => {
                    v.set_none();
                    Ok(())
                }
                None => Ok(()),
            },
        }
    }

    fn index_of(&self, json_name: &str) -> Option<usize> {
        self.table.index_in(self.schemas, json_name)
    }

    fn shape(&self) -> Shape {
        (self.table.shape)()
    }

    fn whole(&mut self) -> &mut dyn FieldValue {
        &mut *self.s
    }
}

/// Where a field's value is in the JSON.
fn presence(v: Option<FieldRef<'_>>) -> Presence {
    match v {
        None => Presence::Absent,
        Some(v) if v.is_null() => Presence::Null,
        Some(_) => Presence::Value,
    }
}

/// Applies a patch map to a struct, field by field when its keys name
/// fields.
fn apply_struct(s: &mut dyn FieldsMut, patch: &Map<String, Value>) -> Result<()> {
    match group_patch(patch, |name| s.index_of(name)) {
        Grouped::Fields(fields, retain) => apply_fields(s, fields, retain, patch),
        Grouped::Directive(directive) => s.whole().set_json(&directive_object(directive, patch)?, None),
        // Keys that name no field.
        Grouped::Whole => {
            let shape = s.shape();
            fallback::apply_object(s.whole(), patch, shape)
        }
    }
}

/// Applies a struct's patch, grouped by field, with the `$retainKeys` list
/// if any: the fields it removes are absent from the JSON for the rest of
/// the patch.
fn apply_fields(
    s: &mut dyn FieldsMut,
    fields: Vec<(usize, FieldPatch<'_>)>,
    retain: Option<&Value>,
    patch: &Map<String, Value>,
) -> Result<()> {
    let removed = match retain {
        Some(retain) => retain_fields(s, retain, patch)?,
        None => Vec::new(),
    };
    for (index, entries) in fields {
        s.apply(index, entries, removed.contains(&index))?;
    }
    Ok(())
}

/// `$retainKeys` on a struct (`applyRetainKeysDirective`, the engine's
/// check): every field the JSON has and the list does not name is removed.
/// A field serde does not read stays as it is, as for every patch. Returns
/// the indices of the fields removed.
fn retain_fields(s: &mut dyn FieldsMut, retain: &Value, patch: &Map<String, Value>) -> Result<Vec<usize>> {
    let kept = retained_keys(retain, patch)?;
    let mut removed = Vec::new();
    for i in 0..s.count() {
        let (field, applied) = s.field(i);
        if applied && !kept.keeps(field.key) && s.value(i).is_some() {
            s.remove(i)?;
            removed.push(i);
        }
    }
    Ok(removed)
}

/// The JSON of a struct under `$patch` (`handleDirectiveInMergeMap`):
/// `replace` makes it the rest of the patch map, taken as it is; `delete`
/// makes it `{}`.
fn directive_object(directive: &Value, patch: &Map<String, Value>) -> Result<Value> {
    match directive.as_str().and_then(PatchOp::parse) {
        Some(PatchOp::Replace) => {
            let kept: Map<String, Value> =
                patch.iter().filter(|(k, _)| *k != PATCH).map(|(k, v)| (k.clone(), v.clone())).collect();
            Ok(Value::Object(kept))
        }
        Some(PatchOp::Delete) => Ok(Value::Object(Map::new())),
        _ => Err(ErrorKind::UnknownPatchType { value: fmt_s(directive), map: fmt_v_map(patch) }.into()),
    }
}

/// The facts of a struct's fields, by their index in its table.
fn table_facts(
    s: &dyn Fields,
    schema: &'static StructSchema,
    facts: &'static StructFacts,
) -> Option<&'static [FieldFacts]> {
    facts::table_fields(schema, facts, s.count())
}

/// A struct's depth check: only fields whose type does not bound their depth
/// are looked into (`None`: the table and the schema do not line up, the
/// value's JSON is measured).
fn fields_depth_ok_in(s: &dyn Fields, schema: &'static StructSchema, open: usize) -> Option<bool> {
    let facts = facts::of(schema);
    if facts.depth.is_some_and(|d| open + d <= MAX_DEPTH) {
        return Some(true);
    }
    if open + 1 > MAX_DEPTH {
        return Some(false);
    }
    let fields = table_facts(s, schema, facts)?;
    if open + 1 + facts.bounded <= MAX_DEPTH {
        // Only the fields whose type does not bound their depth can be too deep.
        let skip = facts.fields.len() - fields.len();
        return Some(facts.unbounded.iter().filter_map(|&i| i.checked_sub(skip)).all(|i| {
            let inner = if fields[i].flatten { open } else { open + 1 };
            s.value(i).is_none_or(|v| v.depth_ok(inner))
        }));
    }
    Some(fields.iter().enumerate().all(|(i, f)| {
        // A flattened field's keys sit in this object.
        let inner = if f.flatten { open } else { open + 1 };
        f.depth.is_some_and(|d| inner + d <= MAX_DEPTH) || s.value(i).is_none_or(|v| v.depth_ok(inner))
    }))
}

/// [`Walk::__quiet_if_equal`] of a struct: only fields that may hold merged
/// sets or maps are looked into.
fn fields_quiet_if_equal_in(s: &dyn Fields, schema: &'static StructSchema) -> bool {
    let facts = facts::of(schema);
    if !facts.sets {
        return true;
    }
    let Some(fields) = table_facts(s, schema, facts) else { return false };
    fields.iter().enumerate().all(|(i, f)| !f.sets || s.value(i).is_none_or(|v| v.quiet_if_equal(&s.field(i).0)))
}

/// [`Walk::__quiet_if_equal`] of a struct with a table.
pub(crate) fn table_quiet_if_equal(s: &dyn FieldValue, table: &'static FieldTable) -> bool {
    by_table::quiet_if_equal(s, Some(table))
}

/// The field at this index of a struct's table, as a merge key.
pub(crate) fn table_key<'s>(s: &'s dyn FieldValue, table: &'static FieldTable, index: usize) -> FieldKey<'s> {
    match written(table, s, index) {
        None => FieldKey::Absent,
        Some(v) => v.key(),
    }
}

/// The diff of two structs, field by field, with the `$retainKeys` list of
/// a struct under the `retainKeys` strategy. A field whose type makes
/// equal values diff to nothing is skipped when its values are `==` (and
/// the sets they hold sorted). A struct field is not compared first but
/// walked, as its own fields are compared there: comparing it whole would
/// compare what comes before a change once more for every level above it.
/// `equal`: the two structs are known to be `==`.
pub(crate) fn diff_fields(
    old: &dyn FieldValue,
    new: &dyn FieldValue,
    table: &'static FieldTable,
    shape: Shape,
    opts: Opts,
    equal: bool,
) -> Result<Map<String, Value>> {
    diff_fields_in(&Struct::new(table, shape, old), &Struct::new(table, shape, new), shape, opts, equal)
}

/// [`diff_fields`] on two values of one struct type.
fn diff_fields_in(
    old: &dyn Fields,
    new: &dyn Fields,
    shape: Shape,
    opts: Opts,
    equal: bool,
) -> Result<Map<String, Value>> {
    let quiet = match shape {
        Shape::Struct(schema) => table_facts(new, schema, facts::of(schema)),
        _ => None,
    };
    let quiet = |i: usize| quiet.map(|q| q[i]).filter(|f| f.quiet);
    let mut patch = Map::new();
    let mut retain: Vec<&'static str> = Vec::new();
    let mut removed = false;
    for i in 0..new.count() {
        let field = &new.field(i).0;
        let (a, b) = (old.value(i), new.value(i));
        // Only a `retainKeys` struct's patch lists its fields.
        if opts.retain_keys() {
            let (was, is) = (presence(a), presence(b));
            if is == Presence::Value {
                retain.push(field.key);
            }
            removed |= was == Presence::Value && is == Presence::Absent;
        }
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b))
                if quiet(i).is_some_and(|f| {
                    (equal || (!b.by_field() && b.same(a))) && (!f.sets || b.quiet_if_equal(field))
                }) => {}
            (a, b) => optional::diff_field(a, b, field, &mut patch, opts)?,
        }
    }
    fallback::finish_diff(&mut patch, retain, removed);
    Ok(patch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A value of each kind is seen as its own type only, and is changed
    /// through the steps its kind gives.
    #[test]
    fn values_are_seen_as_their_own_type_only() {
        let mut text = String::from("a");
        let mut list = vec![String::from("b")];
        let mut map = BTreeMap::from([(String::from("k"), 1_i64)]);
        let values: [(&mut dyn FieldValue, TypeId); 3] = [
            (&mut text, TypeId::of::<String>()),
            (&mut list, TypeId::of::<Vec<String>>()),
            (&mut map, TypeId::of::<BTreeMap<String, i64>>()),
        ];
        for (v, ty) in values {
            assert_eq!(v.value_type(), ty);
            assert_eq!(v.downcast_ref::<String>().is_some(), ty == TypeId::of::<String>());
            assert_eq!(v.downcast_mut::<Vec<String>>().is_some(), ty == TypeId::of::<Vec<String>>());
            assert!(v.downcast_ref::<Vec<i64>>().is_none());
            assert!(v.downcast_ref::<NotAValue>().is_none());
        }
        // The steps reached to change a value change that value.
        let v: &mut dyn FieldValue = &mut text;
        match v.kind_mut() {
            Kind::Steps(s) => s.set_json(&Value::from("changed"), None).unwrap(),
            _ => panic!("a string has steps of its own"),
        }
        assert_eq!(text, "changed");
    }

    /// A struct is `==` field by field through its table, as its derived
    /// `PartialEq` says.
    #[cfg(feature = "k8s-openapi")]
    #[test]
    fn structs_are_compared_by_their_tables() {
        use k8s_openapi::api::core::v1::{Container, EnvVar};
        let a = Container {
            name: "app".into(),
            env: Some(vec![EnvVar { name: "A".into(), value: Some("1".into()), ..Default::default() }]),
            ..Default::default()
        };
        let mut b = a.clone();
        let same = |a: &Container, b: &Container| (a as &dyn FieldValue).same(b);
        assert!(same(&a, &b));
        b.env.as_mut().unwrap()[0].value = Some("2".into());
        assert!(!same(&a, &b));
        b = a.clone();
        b.image = Some("nginx".into());
        assert!(!same(&a, &b));
        assert_eq!((&a as &dyn FieldValue).value_type(), TypeId::of::<Container>());
        assert!(!(&a as &dyn FieldValue).same(&EnvVar::default()));
    }
}
