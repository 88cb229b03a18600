//! Lists of structs merged by key, on typed elements: the list algorithms
//! of `lists/` (the same code the JSON engine runs) run on the typed
//! elements, seen through their type's vtable ([`FieldValue`]), so that
//! the algorithms are compiled once for every element type and not once
//! per type in each program that uses them. A diff borrows the elements; a
//! merge leaves them where they lie and moves handles to them
//! (`typed/slots.rs`).

use super::Field;
use super::fallback::{self, FieldPatch};
use super::slots::{ElementType, Handle, Slots, Store, elements};
use super::walk::{FieldTable, FieldValue, Table, table_key};
use crate::directive::ListDirective;
use crate::engine::diff::Opts;
use crate::error::{Result, bad_arg};
use crate::lists::element::{DiffElements, Elements, MergeElements};
use crate::lists::key::{self, KeyFields, KeyValue};
use crate::lists::{keyed_diff, keyed_merge};
use crate::schema::{MergeKey, Shape};
use crate::value::GoKind;
use serde_json::{Map, Value};

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
    /// value's [`Walk::__as_key`](super::walk::Walk::__as_key).
    pub fn of(written: Option<Option<KeyValue<'a>>>) -> Self {
        match written {
            None => FieldKey::Absent,
            Some(None) => FieldKey::Opaque,
            Some(Some(v)) => FieldKey::Value(v),
        }
    }
}

/// The elements of a keyed list being merged, where the [`Store`] holds
/// them: the list code runs once for all element types.
struct Owned<'s, 'a> {
    store: &'s Store<'a>,
    /// Where the elements' merge key is.
    key: Option<KeyAt>,
    /// The element type's schema.
    shape: Shape,
}

/// The primary merge-key field of a list's element type, found once per
/// list in the type's field table.
#[derive(Clone, Copy)]
struct KeyAt {
    name: &'static str,
    table: &'static FieldTable,
    index: usize,
}

impl KeyAt {
    /// `table`: the element type's field table.
    fn of(table: Table, field: &Field) -> Option<KeyAt> {
        let name = field.merge_key?.primary();
        let table = table?;
        Some(KeyAt { name, table, index: table.index_of(name)? })
    }
}

/// The value of an element's field with this JSON name, as a merge key:
/// found at its index in the table when it is the field `at` names.
fn element_key<'e>(e: &'e dyn FieldValue, name: &str, at: Option<KeyAt>) -> FieldKey<'e> {
    match at {
        Some(at) if std::ptr::eq(at.name, name) || at.name == name => table_key(e, at.table, at.index),
        _ => e.field_key(name),
    }
}

fn key_of<'e>(e: &'e dyn FieldValue, name: &str, at: Option<KeyAt>) -> key::Field<KeyValue<'e>> {
    match element_key(e, name, at) {
        FieldKey::Value(v) => key::Field::Value(v),
        // Lists with opaque keys are not given to the list code.
        FieldKey::Absent | FieldKey::Opaque => key::Field::Missing,
    }
}

impl<'s> Elements for Owned<'s, '_> {
    type Elem = Handle<'s>;

    fn field<'e>(&self, e: &'e Handle<'s>, name: &str) -> key::Field<KeyValue<'e>> {
        key_of(e.get(), name, self.key)
    }

    fn kind(&self, _: &Handle<'s>) -> GoKind {
        // Elements of keyed lists are structs deriving field by field.
        GoKind::Object
    }

    fn to_json(&self, e: &Handle<'s>) -> Result<Value> {
        e.get().json()
    }
}

impl<'s> MergeElements for Owned<'s, '_> {
    type Patch = Value;

    fn as_member<'e>(&self, _: &'e Handle<'s>) -> Option<KeyValue<'e>> {
        None
    }

    fn merge(&self, e: &mut Handle<'s>, patches: &[&Map<String, Value>]) -> Result<()> {
        let e = e.get_mut();
        match patches {
            [one] => e.apply_object(one),
            // Several patch elements for one element: merged on its JSON, as
            // the reference merges them (a step in between may not fit the
            // element's type).
            several => e.set_json(&merge_json(e.json()?, several, self.shape)?, None),
        }
    }

    fn build(&self, patch: &Value, then: &[&Map<String, Value>]) -> Result<Handle<'s>> {
        if then.is_empty() {
            self.store.read(patch)
        } else {
            self.store.read(&merge_json(patch.clone(), then, self.shape)?)
        }
    }
}

/// Patch elements merged one after the other into an element's JSON, by
/// the JSON engine with the element type's schema.
fn merge_json(elem: Value, patches: &[&Map<String, Value>], shape: Shape) -> Result<Value> {
    let Value::Object(mut m) = elem else { return Err(bad_arg(GoKind::Object, &elem)) };
    for p in patches {
        fallback::apply_map(&mut m, p, shape)?;
    }
    Ok(Value::Object(m))
}

/// The elements of keyed lists being diffed, borrowed; `quiet`: equal
/// elements diff to nothing (`Some(true)`: once their sets are sorted).
struct Borrowed<'a> {
    quiet: Option<bool>,
    /// The elements' type, whose `==` says which are unchanged.
    elem_type: &'a ElementType,
    /// The name of the primary merge-key field, read once per element.
    primary: Option<&'a str>,
    field: &'a Field,
}

/// An element of a keyed list being diffed, with its primary key as read
/// once before the list algorithm runs.
struct Read<'a> {
    elem: &'a dyn FieldValue,
    key: FieldKey<'a>,
}

impl<'a> Elements for Borrowed<'a> {
    type Elem = Read<'a>;

    fn field<'e>(&self, e: &'e Read<'a>, name: &str) -> key::Field<KeyValue<'e>> {
        let key = match self.primary {
            Some(p) if std::ptr::eq(p, name) || p == name => e.key,
            _ => e.elem.field_key(name),
        };
        match key {
            FieldKey::Value(v) => key::Field::Value(v),
            // Lists with opaque keys are not given to the list code.
            FieldKey::Absent | FieldKey::Opaque => key::Field::Missing,
        }
    }

    fn kind(&self, _: &Read<'a>) -> GoKind {
        GoKind::Object
    }

    fn to_json(&self, e: &Read<'a>) -> Result<Value> {
        e.elem.json()
    }
}

impl DiffElements for Borrowed<'_> {
    type Patch = Value;

    fn diff(&self, old: &Read<'_>, new: &Read<'_>, opts: Opts) -> Result<Map<String, Value>> {
        old.elem.diff_object(new.elem, opts)
    }

    fn to_patch(&self, e: &Read<'_>) -> Result<Value> {
        e.elem.json()
    }

    fn entry(&self, _: &Read<'_>, fields: KeyFields<'_>, key: &key::Key<'_>) -> Map<String, Value> {
        fields.entry(key)
    }

    fn unchanged(&self, old: &Read<'_>, new: &Read<'_>) -> bool {
        self.quiet.is_some_and(|sets| {
            self.elem_type.same(old.elem, new.elem) && (!sets || new.elem.quiet_if_equal(self.field))
        })
    }
}

/// Whether every element exposes its key (or lacks it): no opaque key,
/// which only the element's JSON would show.
fn keys_readable(list: &dyn Slots, fields: KeyFields<'_>, at: Option<KeyAt>) -> bool {
    for e in elements(list) {
        if fields.names().iter().any(|n| matches!(element_key(e, n, at), FieldKey::Opaque)) {
            return false;
        }
    }
    true
}

/// The elements of a list with their primary key, read once; `None` when
/// a key is opaque (only the element's JSON shows it).
fn read_keys<'e>(list: &'e dyn Slots, primary: Option<&str>, at: Option<KeyAt>) -> Option<Vec<Read<'e>>> {
    let mut out = Vec::with_capacity(list.len());
    for e in elements(list) {
        let key = match primary {
            None => FieldKey::Absent,
            Some(name) => element_key(e, name, at),
        };
        if matches!(key, FieldKey::Opaque) {
            return None;
        }
        out.push(Read { elem: e, key });
    }
    Some(out)
}

/// The two-way diff of a keyed list field (`diffListsOfMaps` with the
/// ordering of `diffLists`), on two lists of elements of type `elem`.
pub(crate) fn diff_keyed_list(
    old: &dyn Slots,
    new: &dyn Slots,
    elem: &ElementType,
    mk: &MergeKey<'_>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    if matches!(mk, MergeKey::Composite(_)) {
        // Elements named by several fields: the engine's diff of the field.
        return fallback::diff_field(Some(old), Some(new), field, patch, opts);
    }
    let fields = KeyFields::primary(mk);
    let primary = fields.names().first().copied();
    // The table's key field is the primary key when it has that name.
    let at = KeyAt::of((elem.table)(), field).filter(|at| primary == Some(at.name));
    let (Some(old_read), Some(new_read)) = (read_keys(old, primary, at), read_keys(new, primary, at)) else {
        return fallback::diff_field(Some(old), Some(new), field, patch, opts);
    };
    let elem_opts = opts.with_retain_keys(field.strategy.retain_keys);
    let l = Borrowed { quiet: super::facts::quiet((elem.shape)()), elem_type: elem, primary, field };
    let list = keyed_diff::diff(&l, fields, &old_read, &new_read, elem_opts).map_err(|e| e.at_key(field.key))?;
    if !list.patch.is_empty() {
        patch.insert(field.key.to_string(), Value::Array(list.patch));
    }
    if !list.order.is_empty() {
        patch.insert(ListDirective::SetElementOrder.key(field.key), Value::Array(list.order));
    }
    Ok(())
}

/// Applies a field's patch entries to a keyed list of elements of type
/// `elem`, as the engine's `mergeMap` does them: `$setElementOrder/f`
/// (with `f`) first, then `f`, then `$deleteFromPrimitiveList/f`. The live
/// list (`present`: the JSON has it) is merged where it lies: on error the
/// caller drops the half-merged value. False: the field's key is gone.
pub(crate) fn apply_keyed_list(
    list: &mut dyn Slots,
    present: bool,
    patch: FieldPatch<'_>,
    elem: &ElementType,
    mk: &MergeKey<'_>,
    field: &Field,
) -> Result<bool> {
    let key = KeyAt::of((elem.table)(), field);
    let by_json = matches!(mk, MergeKey::Composite(_))
        || (present && !keys_readable(list, KeyFields::primary(mk), key))
        || nulls_a_key(&patch, mk.primary())
        || merges_after_the_list(&patch);
    if by_json {
        return fallback::apply_field(list, present, patch, field);
    }
    let store = Store::new(list);
    let l = Owned { store: &store, key, shape: (elem.shape)() };
    let live = present.then(|| store.live());
    let merged = apply_entries(&l, KeyFields::primary(mk), live, patch, field)?;
    let order: Option<Vec<usize>> = merged.map(|list| list.iter().map(Handle::at).collect());
    store.finish(order.as_deref().unwrap_or_default())?;
    Ok(order.is_some())
}

/// Whether a patch element sets its merge key to `null`. The reference
/// then deletes the key from the merged element, which a typed element
/// cannot hold (its key is `None` or a value, never absent), and later
/// steps refuse the keyless element: such a patch takes the JSON route.
fn nulls_a_key(patch: &FieldPatch<'_>, key: &str) -> bool {
    [patch.value, patch.delete]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .any(|e| e.get(key).is_some_and(Value::is_null))
}

/// Whether a patch holds both the list and a `$deleteFromPrimitiveList`,
/// which acts after it. The list's step may leave a value a typed field
/// cannot hold (`{}` for a list, a number, a list of strings) that the
/// later step sets right (removes the strings, or the field), so such a
/// patch takes the JSON route.
fn merges_after_the_list(patch: &FieldPatch<'_>) -> bool {
    patch.value.is_some() && patch.delete.is_some()
}

/// [`apply_keyed_list`] on the taken list: the new list, `None` when the
/// field is gone.
fn apply_entries<'s>(
    l: &Owned<'s, '_>,
    fields: KeyFields<'_>,
    mut list: Option<Vec<Handle<'s>>>,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<Option<Vec<Handle<'s>>>> {
    let mut value = patch.value;
    if let Some(order) = patch.order {
        let key = ListDirective::SetElementOrder.key(field.key);
        let Value::Array(order) = order else { return Err(bad_arg(GoKind::Array, order).at_key(&key)) };
        let plist = match value.take() {
            None => None,
            Some(Value::Array(p)) => Some(p.as_slice()),
            Some(other) => return Err(bad_arg(GoKind::Array, other).at_key(&key)),
        };
        list = keyed_merge::merge_ordered(l, fields, list.take(), plist, order, field.strategy.merge)
            .map_err(|e| e.at_key(&key))?;
    }
    match (value, list.take()) {
        (None, kept) => list = kept,
        (Some(Value::Null), _) => {}
        (Some(v @ Value::Array(p)), Some(orig)) => {
            let merged = if field.strategy.merge {
                keyed_merge::merge(l, fields, orig, p, false)
            } else {
                l.store.read_list(v, field)
            };
            list = Some(merged.map_err(|e| e.at_key(field.key))?);
        }
        // Absent from the live object, or of another type: the patch value,
        // stored without nulls and directives.
        (Some(v), _) => {
            if let Some(v) = fallback::new_value(v) {
                list = Some(l.store.read_list(&v, field)?);
            }
        }
    }
    match (patch.delete, list.take()) {
        (None, kept) => list = kept,
        (Some(Value::Null), _) => {}
        (Some(Value::Array(p)), Some(orig)) => {
            list = Some(keyed_merge::merge(l, fields, orig, p, true).map_err(|e| e.at_key(field.key))?);
        }
        // Nothing to delete from.
        (Some(_), kept) => list = kept,
    }
    Ok(list)
}
