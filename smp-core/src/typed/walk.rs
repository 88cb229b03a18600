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
            Some(ops) => (ops.key)(self),
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
                    let ops = &table.fields[index];
                    (ops.apply)(self, entries, &ops.field)?;
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

/// The diff step of a field: adds the field's part of the diff of two
/// structs to the patch.
pub type FieldDiff<S> = fn(&S, &S, &Field, &mut Map<String, Value>, Opts) -> Result<()>;

/// One field: its patch metadata and the steps generated for it.
pub struct FieldOps<S: 'static> {
    /// JSON name, strategy, merge key.
    pub field: Field,
    /// How the field appears in the JSON.
    pub presence: fn(&S) -> Presence,
    /// Adds the field's part of the diff of two structs to the patch.
    pub diff: FieldDiff<S>,
    /// Applies the field's patch entries.
    pub apply: fn(&mut S, FieldPatch<'_>, &Field) -> Result<()>,
    /// The field's value as a merge key.
    pub key: fn(&S) -> FieldKey<'_>,
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
            let (was, is) = ((ops.presence)(old), (ops.presence)(new));
            if is == Presence::Value {
                retain.push(ops.field.key);
            }
            removed |= was == Presence::Value && is == Presence::Absent;
        }
        (ops.diff)(old, new, &ops.field, &mut patch, opts)?;
    }
    fallback::finish_diff(&mut patch, retain, removed);
    Ok(patch)
}

/// The `apply` of a field that a patch never sets (serde does not read it).
pub fn not_applied<S>(_: &mut S, _: FieldPatch<'_>, _: &Field) -> Result<()> {
    Ok(())
}
