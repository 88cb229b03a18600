//! Lists of structs merged by key, on typed elements: the list algorithms
//! of `lists/` (the same code the JSON engine runs) run on the typed
//! elements, seen through their type's vtable ([`Element`]), so that the
//! algorithms are compiled once for every element type and not once per
//! type in each program that uses them; each element type adds only its
//! own small steps (key, JSON, merge, diff). A merge moves the elements,
//! boxed for the time of the merge; a diff borrows them.

use super::fallback::{self, FieldPatch};
use super::walk::{FieldValue, Table};
use super::{Field, StrategicMerge, Walk};
use crate::directive::ListDirective;
use crate::engine::diff::Opts;
use crate::error::{ErrorKind, Result, bad_arg};
use crate::lists::element::{DiffElements, Elements, MergeElements};
use crate::lists::key::{self, KeyFields, KeyValue};
use crate::lists::{keyed_diff, keyed_merge};
use crate::schema::{MergeKey, Shape};
use crate::value::GoKind;
use serde_json::{Map, Value};
use std::any::Any;

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

/// A typed element seen through its type's vtable: the keyed diff runs on
/// these, so that it is compiled once for every element type instead of
/// once per type (the element's own steps stay typed).
pub(crate) trait Element: Any {
    /// The value of the field with this JSON name, as a merge key.
    fn key_field(&self, name: &str) -> FieldKey<'_>;

    /// The value of the field at this index of the type's field table, as
    /// a merge key.
    fn key_at(&self, index: usize) -> FieldKey<'_>;

    /// The element's JSON.
    fn json(&self) -> Result<Value>;

    /// The patch from this element to `new`, an element of the same list.
    fn diff(&self, new: &dyn Element, opts: Opts) -> Result<Map<String, Value>>;

    /// `other` is an element of the same type and `==` to this one.
    fn same(&self, other: &dyn Element) -> bool;

    /// [`Walk::__quiet_if_equal`](super::Walk::__quiet_if_equal).
    fn quiet_if_equal(&self, field: &Field) -> bool;

    /// Merges patch elements into the element, one after the other.
    fn merge(&mut self, patches: &[&Map<String, Value>]) -> Result<()>;

    /// The element as `Any`, to take it out of its box.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: StrategicMerge> Element for T {
    fn key_field(&self, name: &str) -> FieldKey<'_> {
        self.__field_key(name)
    }

    fn key_at(&self, index: usize) -> FieldKey<'_> {
        match T::__TABLE {
            Some(table) => super::walk::table_key(self, table, index),
            None => FieldKey::Absent,
        }
    }

    fn json(&self) -> Result<Value> {
        self.__json()
    }

    fn diff(&self, new: &dyn Element, opts: Opts) -> Result<Map<String, Value>> {
        let new: &dyn Any = new;
        match new.downcast_ref::<T>() {
            Some(new) => self.__diff_object(new, opts),
            None => Err(ErrorKind::Internal("elements of one list of different types").into()),
        }
    }

    fn same(&self, other: &dyn Element) -> bool {
        let other: &dyn Any = other;
        match other.downcast_ref::<T>() {
            Some(o) => self == o,
            None => false,
        }
    }

    fn quiet_if_equal(&self, field: &Field) -> bool {
        self.__quiet_if_equal(field)
    }

    fn merge(&mut self, patches: &[&Map<String, Value>]) -> Result<()> {
        match patches {
            [one] => self.__apply_object(one),
            // Several patch elements for one element: merged on its JSON, as
            // the reference merges them (a step in between may not fit `T`).
            several => {
                let merged = merge_json(self.__json()?, several, T::shape())?;
                *self = (T::__READ)(&merged, None)?;
                Ok(())
            }
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// An element of a keyed list being merged.
type Boxed = Box<dyn Element>;

/// A new element from a patch element and the patch elements merged into
/// it after it.
type Build = fn(&Value, &[&Map<String, Value>]) -> Result<Boxed>;

/// A new element of type `T` from a patch element, with more patch
/// elements merged into it one after the other.
fn build<T: StrategicMerge>(patch: &Value, then: &[&Map<String, Value>]) -> Result<Boxed> {
    let e: T = if then.is_empty() {
        (T::__READ)(patch, None)?
    } else {
        (T::__READ)(&merge_json(patch.clone(), then, T::shape())?, None)?
    };
    Ok(Box::new(e))
}

/// A list of `T` read from a patch value, its elements boxed.
fn list_from<T: StrategicMerge>(v: &Value, field: &Field) -> Result<Vec<Boxed>> {
    let list = (<Vec<T> as Walk>::__READ)(v, Some(field))?;
    Ok(boxed(list))
}

fn boxed<T: StrategicMerge>(list: Vec<T>) -> Vec<Boxed> {
    let mut out: Vec<Boxed> = Vec::with_capacity(list.len());
    for e in list {
        out.push(Box::new(e));
    }
    out
}

/// The merged elements, out of their boxes.
fn unboxed<T: StrategicMerge>(list: Vec<Boxed>) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        match e.into_any().downcast::<T>() {
            Ok(e) => out.push(*e),
            Err(_) => return Err(ErrorKind::Internal("elements of one list of different types").into()),
        }
    }
    Ok(out)
}

/// The elements of a keyed list being merged, owned and boxed: the list
/// code runs once for all element types.
struct Owned {
    /// Where the elements' merge key is.
    key: Option<KeyAt>,
    /// A new element from patch elements.
    build: Build,
    /// A list replaced by a patch value.
    list_from: fn(&Value, &Field) -> Result<Vec<Boxed>>,
}

/// The primary merge-key field of a list's element type, found once per
/// list in the type's field table.
#[derive(Clone, Copy)]
struct KeyAt {
    name: &'static str,
    index: usize,
}

impl KeyAt {
    /// `table`: the element type's field table.
    fn of(table: Table, field: &Field) -> Option<KeyAt> {
        let name = field.merge_key?.primary();
        Some(KeyAt { name, index: table?.index_of(name)? })
    }
}

/// An element behind its type's vtable.
fn as_element<T: StrategicMerge>(e: &T) -> &dyn Element {
    e
}

/// The elements of a list, behind their type's vtable, one by one.
type ElementIter<'a, 'e> = &'a mut dyn Iterator<Item = &'e dyn Element>;

/// The value of an element's field with this JSON name, as a merge key:
/// found at its index in the table when it is the field `at` names.
fn element_key<'e, E: Element + ?Sized>(e: &'e E, name: &str, at: Option<KeyAt>) -> FieldKey<'e> {
    match at {
        Some(at) if std::ptr::eq(at.name, name) || at.name == name => e.key_at(at.index),
        _ => e.key_field(name),
    }
}

fn key_of<'e, E: Element + ?Sized>(e: &'e E, name: &str, at: Option<KeyAt>) -> key::Field<KeyValue<'e>> {
    match element_key(e, name, at) {
        FieldKey::Value(v) => key::Field::Value(v),
        // Lists with opaque keys are not given to the list code.
        FieldKey::Absent | FieldKey::Opaque => key::Field::Missing,
    }
}

impl Elements for Owned {
    type Elem = Boxed;

    fn field<'e>(&self, e: &'e Boxed, name: &str) -> key::Field<KeyValue<'e>> {
        key_of(&**e, name, self.key)
    }

    fn kind(&self, _: &Boxed) -> GoKind {
        // Elements of keyed lists are structs deriving field by field.
        GoKind::Object
    }

    fn to_json(&self, e: &Boxed) -> Result<Value> {
        e.json()
    }
}

impl MergeElements for Owned {
    type Patch = Value;

    fn as_member<'e>(&self, _: &'e Boxed) -> Option<KeyValue<'e>> {
        None
    }

    fn merge(&self, e: &mut Boxed, patches: &[&Map<String, Value>]) -> Result<()> {
        e.merge(patches)
    }

    fn build(&self, patch: &Value, then: &[&Map<String, Value>]) -> Result<Boxed> {
        (self.build)(patch, then)
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
    /// The name of the primary merge-key field, read once per element.
    primary: Option<&'a str>,
    field: &'a Field,
}

/// An element of a keyed list being diffed, with its primary key as read
/// once before the list algorithm runs.
struct Read<'a> {
    elem: &'a dyn Element,
    key: FieldKey<'a>,
}

impl<'a> Elements for Borrowed<'a> {
    type Elem = Read<'a>;

    fn field<'e>(&self, e: &'e Read<'a>, name: &str) -> key::Field<KeyValue<'e>> {
        let key = match self.primary {
            Some(p) if std::ptr::eq(p, name) || p == name => e.key,
            _ => e.elem.key_field(name),
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
        old.elem.diff(new.elem, opts)
    }

    fn to_patch(&self, e: &Read<'_>) -> Result<Value> {
        e.elem.json()
    }

    fn entry(&self, _: &Read<'_>, fields: KeyFields<'_>, key: &key::Key<'_>) -> Map<String, Value> {
        fields.entry(key)
    }

    fn unchanged(&self, old: &Read<'_>, new: &Read<'_>) -> bool {
        self.quiet.is_some_and(|sets| old.elem.same(new.elem) && (!sets || new.elem.quiet_if_equal(self.field)))
    }
}

/// Whether every element exposes its key (or lacks it): no opaque key,
/// which only the element's JSON would show.
fn keys_readable(list: ElementIter<'_, '_>, fields: KeyFields<'_>, at: Option<KeyAt>) -> bool {
    for e in list {
        if fields.names().iter().any(|n| matches!(element_key(e, n, at), FieldKey::Opaque)) {
            return false;
        }
    }
    true
}

/// The elements of a list with their primary key, read once; `None` when
/// a key is opaque (only the element's JSON shows it).
fn read_keys<'e>(list: ElementIter<'_, 'e>, primary: Option<&str>, at: Option<KeyAt>) -> Option<Vec<Read<'e>>> {
    let mut out = Vec::with_capacity(list.size_hint().0);
    for e in list {
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
/// ordering of `diffLists`).
pub(crate) fn diff_keyed_list<T: StrategicMerge>(
    old: &Vec<T>,
    new: &Vec<T>,
    mk: &MergeKey<'_>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let lists =
        Lists { old, new, old_elems: &mut old.iter().map(as_element), new_elems: &mut new.iter().map(as_element) };
    diff_lists(lists, T::__TABLE, T::shape(), mk, field, patch, opts)
}

/// Two keyed lists, whole and as their elements.
struct Lists<'a, 'i> {
    old: &'a dyn FieldValue,
    new: &'a dyn FieldValue,
    old_elems: ElementIter<'i, 'a>,
    new_elems: ElementIter<'i, 'a>,
}

/// [`diff_keyed_list`] once the elements are behind their vtable; `table`
/// and `shape` are the element type's.
fn diff_lists(
    lists: Lists<'_, '_>,
    table: Table,
    shape: Shape,
    mk: &MergeKey<'_>,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    if matches!(mk, MergeKey::Composite(_)) {
        // Elements named by several fields: the engine's diff of the field.
        return fallback::diff_field(Some(lists.old), Some(lists.new), field, patch, opts);
    }
    let fields = KeyFields::primary(mk);
    let primary = fields.names().first().copied();
    // The table's key field is the primary key when it has that name.
    let at = KeyAt::of(table, field).filter(|at| primary == Some(at.name));
    let (Some(old_read), Some(new_read)) =
        (read_keys(lists.old_elems, primary, at), read_keys(lists.new_elems, primary, at))
    else {
        return fallback::diff_field(Some(lists.old), Some(lists.new), field, patch, opts);
    };
    let elem_opts = opts.with_retain_keys(field.strategy.retain_keys);
    let l = Borrowed { quiet: super::facts::quiet(shape), primary, field };
    let list = keyed_diff::diff(&l, fields, &old_read, &new_read, elem_opts).map_err(|e| e.at_key(field.key))?;
    if !list.patch.is_empty() {
        patch.insert(field.key.to_string(), Value::Array(list.patch));
    }
    if !list.order.is_empty() {
        patch.insert(ListDirective::SetElementOrder.key(field.key), Value::Array(list.order));
    }
    Ok(())
}

/// Applies a field's patch entries to a keyed list, as the engine's
/// `mergeMap` does them: `$setElementOrder/f` (with `f`) first, then `f`,
/// then `$deleteFromPrimitiveList/f`. The live list (`present`: the JSON
/// has it) is taken out while it is merged: on error the caller drops the
/// half-merged value. False: the field's key is gone.
pub(crate) fn apply_keyed_list<T: StrategicMerge>(
    list: &mut Vec<T>,
    present: bool,
    patch: FieldPatch<'_>,
    mk: &MergeKey<'_>,
    field: &Field,
) -> Result<bool> {
    let l = Owned { key: KeyAt::of(T::__TABLE, field), build: build::<T>, list_from: list_from::<T> };
    let by_json = matches!(mk, MergeKey::Composite(_))
        || (present && !keys_readable(&mut list.iter().map(as_element), KeyFields::primary(mk), l.key))
        || nulls_a_key(&patch, mk.primary())
        || merges_after_the_list(&patch);
    if by_json {
        return fallback::apply_field(list, present, patch, field);
    }
    let live = present.then(|| boxed(std::mem::take(list)));
    match apply_entries(&l, KeyFields::primary(mk), live, patch, field)? {
        Some(new) => {
            *list = unboxed(new)?;
            Ok(true)
        }
        None => Ok(false),
    }
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
fn apply_entries(
    l: &Owned,
    fields: KeyFields<'_>,
    mut list: Option<Vec<Boxed>>,
    patch: FieldPatch<'_>,
    field: &Field,
) -> Result<Option<Vec<Boxed>>> {
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
                (l.list_from)(v, field)
            };
            list = Some(merged.map_err(|e| e.at_key(field.key))?);
        }
        // Absent from the live object, or of another type: the patch value,
        // stored without nulls and directives.
        (Some(v), _) => {
            if let Some(v) = fallback::new_value(v) {
                list = Some((l.list_from)(&v, field)?);
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
