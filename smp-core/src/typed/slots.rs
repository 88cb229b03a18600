//! The elements of a keyed list while the list algorithm merges it: they
//! stay where they are (the live ones in the list, the new ones in chunks
//! beside it) and the algorithm moves [`Handle`]s to them, which act as
//! boxes that do not own. The merge is compiled once for every element
//! type; an element type adds only the few steps of [`Slots`], and the
//! merged order is made at the end by swaps.

use super::fallback;
use super::walk::{FieldValue, NotAValue, Table, no_new_value, table_of};
use super::{Field, StrategicMerge};
use crate::error::{ErrorKind, Result};
use crate::schema::Shape;
use serde_json::Value;
use std::any::TypeId;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::slice;

/// What the list steps know of a list's element type.
pub(crate) struct ElementType {
    /// The element type.
    type_id: TypeId,
    /// The type of its lists, `Vec<T>`.
    pub(crate) list_type: TypeId,
    /// Its field table, if it is a struct with one ([`table_of`]).
    pub(crate) table: fn() -> Table,
    /// Its schema.
    pub(crate) shape: fn() -> Shape,
    /// A value of the list type, `Vec<T>`, behind its steps ([`slots_at`]:
    /// a cast; [`ElementType::slots`] checks the value's type first).
    slots: unsafe fn(*mut dyn FieldValue) -> *mut dyn Slots,
    /// `==` on two runs of elements ([`same_elements`]): the one `==` a
    /// type adds to the walk, for its elements and its lists alike.
    same: unsafe fn(*const u8, *const u8, usize) -> bool,
}

impl ElementType {
    pub(crate) const fn of<T: StrategicMerge>() -> Self {
        ElementType {
            type_id: TypeId::of::<T>(),
            list_type: TypeId::of::<Vec<T>>(),
            table: table_of::<T>,
            shape: T::__SHAPE,
            slots: slots_at::<T>,
            same: same_elements::<T>,
        }
    }

    /// The element type of no list: no value is a list of it.
    pub(crate) const NONE: ElementType = ElementType {
        type_id: TypeId::of::<NotAValue>(),
        list_type: TypeId::of::<NotAValue>(),
        table: || None,
        shape: || Shape::Any,
        slots: slots_at::<()>,
        same: |_, _, _| false,
    };

    /// `v` as a list of elements of this type, if it is one.
    pub(crate) fn slots<'s>(&self, v: &'s dyn FieldValue) -> Option<&'s dyn Slots> {
        // SAFETY: `v` is a list of this type, and only read.
        (v.value_type() == self.list_type).then(|| unsafe { &*(self.slots)((v as *const dyn FieldValue).cast_mut()) })
    }

    /// [`slots`](Self::slots), to change it.
    pub(crate) fn slots_mut<'s>(&self, v: &'s mut dyn FieldValue) -> Option<&'s mut dyn Slots> {
        // SAFETY: `v` is a list of this type.
        (v.value_type() == self.list_type).then(|| unsafe { &mut *(self.slots)(v) })
    }

    /// `a` and `b` are elements of this type, and `==`.
    pub(crate) fn same(&self, a: &dyn FieldValue, b: &dyn FieldValue) -> bool {
        let element = |v: &dyn FieldValue| (v as *const dyn FieldValue).cast::<u8>();
        // SAFETY: one element each, of this type.
        a.value_type() == self.type_id
            && b.value_type() == self.type_id
            && unsafe { (self.same)(element(a), element(b), 1) }
    }

    /// `a` and `b` are lists of elements of this type, and `==`.
    pub(crate) fn same_lists(&self, a: &dyn FieldValue, b: &dyn FieldValue) -> bool {
        let (Some(a), Some(b)) = (self.slots(a), self.slots(b)) else { return false };
        let (a, b) = (a.parts(), b.parts());
        // SAFETY: `len` elements of this type at each list's first place
        // (its lists' `Slots` are this type's).
        a.len == b.len && unsafe { (self.same)(a.first.cast::<u8>(), b.first.cast::<u8>(), a.len) }
    }
}

/// The list at `v` behind its steps: a cast, which creates no borrow, so
/// one function serves to read and to change it.
///
/// # Safety
///
/// `v` points to a `Vec<T>`.
#[inline(never)]
unsafe fn slots_at<T: StrategicMerge>(v: *mut dyn FieldValue) -> *mut dyn Slots {
    v.cast::<Vec<T>>() as *mut dyn Slots
}

/// `==` on the `len` elements of type `T` at `a` and at `b`, as slices.
///
/// # Safety
///
/// `a` and `b` each point to `len` values of type `T`, aligned and
/// initialised.
#[inline(never)]
unsafe fn same_elements<T: StrategicMerge>(a: *const u8, b: *const u8, len: usize) -> bool {
    // SAFETY: as the caller says.
    let (a, b) = unsafe { (slice::from_raw_parts(a.cast::<T>(), len), slice::from_raw_parts(b.cast::<T>(), len)) };
    a == b
}

/// The [`ElementType`] of `T`, a constant.
pub(crate) struct ElementOf<T>(PhantomData<T>);

impl<T: StrategicMerge> ElementOf<T> {
    pub(crate) const TYPE: &'static ElementType = &ElementType::of::<T>();
}

/// A `Vec` of typed values, seen without its element type: each element
/// type adds these few steps, and the rest is compiled once (on `dyn
/// Slots`, below). The list is a field value too: `&dyn Slots` converts to
/// `&dyn FieldValue` by the vtable it holds, with no step of its own.
pub(crate) trait Slots: FieldValue {
    /// Where the elements lie, to read them.
    fn parts(&self) -> Parts;

    /// Where the elements lie, to change them.
    fn parts_mut(&mut self) -> Parts;

    /// A new, empty list of the same element type, with room for `n`.
    fn with_room(&self, n: usize) -> Box<dyn Slots>;

    /// Adds an element at the end: read from `v` (with the element type's
    /// reader and its retries, where there is room), or without `v` the
    /// element type's new value ([`Walk::__NEW`](super::Walk::__NEW)), to
    /// read into. False: the type has no new value.
    fn push(&mut self, v: Option<&Value>) -> Result<bool>;

    /// Moves the elements of `other`, a list of the same type, to the end.
    fn append(&mut self, other: &mut dyn Slots) -> Result<()>;

    /// Drops the elements from `len` on, and makes room for `room` more.
    fn truncate_reserve(&mut self, len: usize, room: usize);
}

/// Where the elements of a list lie: the first one's place, behind the
/// element type's vtable (dangling when there is none), how many there
/// are, room for how many, and the size of each. From [`Slots::parts`],
/// the places are only read.
#[derive(Clone, Copy)]
pub(crate) struct Parts {
    first: *mut dyn FieldValue,
    len: usize,
    room: usize,
    size: usize,
}

impl Parts {
    fn of<T: StrategicMerge>(first: *mut T, list: &[T], room: usize) -> Parts {
        Parts { first, len: list.len(), room, size: size_of::<T>() }
    }

    /// The place of the element at `i` (`None`: past the end).
    fn at(&self, i: usize) -> Option<*mut dyn FieldValue> {
        if i < self.len { Some(self.first.wrapping_byte_add(i * self.size)) } else { None }
    }
}

impl dyn Slots {
    /// How many elements it holds.
    pub(crate) fn len(&self) -> usize {
        self.parts().len
    }

    /// Whether an element can be added without moving the others.
    pub(crate) fn has_room(&self) -> bool {
        let parts = self.parts();
        parts.len < parts.room
    }

    /// A pointer to the element at `i`, made without a reference to the
    /// list, so that pointers to its other elements stay valid.
    pub(crate) fn element(&mut self, i: usize) -> Option<NonNull<dyn FieldValue>> {
        NonNull::new(self.parts_mut().at(i)?)
    }

    /// Empties the list, with room for `n` elements.
    fn reset(&mut self, n: usize) {
        self.truncate_reserve(0, n);
    }

    /// Drops the elements from `len` on.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.truncate_reserve(len, 0);
    }

    /// Reads an element from JSON and adds it at the end ([`Slots::push`]).
    fn push_read(&mut self, v: &Value) -> Result<()> {
        self.push(Some(v)).map(drop)
    }

    /// Adds the element type's new value ([`Slots::push`]), and a pointer
    /// to the element added.
    fn push_new_element(&mut self) -> Option<NonNull<dyn FieldValue>> {
        if !self.push(None).unwrap_or(false) {
            return None;
        }
        let last = self.len().checked_sub(1)?;
        self.element(last)
    }

    /// Pointers to its elements, as [`element`](Self::element) makes them.
    pub(crate) fn places(&mut self) -> impl Iterator<Item = NonNull<dyn FieldValue>> {
        let parts = self.parts_mut();
        (0..parts.len).filter_map(move |i| NonNull::new(parts.at(i)?))
    }

    /// Swaps two elements.
    pub(crate) fn swap_at(&mut self, i: usize, j: usize) {
        let parts = self.parts_mut();
        if let (Some(a), Some(b)) = (parts.at(i), parts.at(j))
            && i != j
        {
            // SAFETY: two distinct elements of the list, of `size` bytes
            // each; swapping their bytes (untyped) swaps the values.
            unsafe { std::ptr::swap_nonoverlapping(a.cast::<MaybeUninit<u8>>(), b.cast(), parts.size) }
        }
    }
}

impl<T: StrategicMerge> Slots for Vec<T> {
    #[inline(never)]
    fn parts(&self) -> Parts {
        Parts::of(self.as_ptr().cast_mut(), self, self.capacity())
    }

    #[inline(never)]
    fn parts_mut(&mut self) -> Parts {
        Parts::of(self.as_mut_ptr(), self, self.capacity())
    }

    #[inline(never)]
    fn with_room(&self, n: usize) -> Box<dyn Slots> {
        Box::new(Vec::<T>::with_capacity(n))
    }

    #[inline(never)]
    fn push(&mut self, v: Option<&Value>) -> Result<bool> {
        let Some(v) = v else {
            let Some(new) = T::__NEW else { return Ok(false) };
            Vec::push(self, new());
            return Ok(true);
        };
        if self.len() == self.capacity() {
            return Err(no_room());
        }
        if const { T::__NEW.is_some() } {
            return read_new(self, v).map(|()| true);
        }
        match (T::__READ)(v, None) {
            Ok(e) => {
                Vec::push(self, e);
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    #[inline(never)]
    fn append(&mut self, other: &mut dyn Slots) -> Result<()> {
        let other: &mut dyn FieldValue = other;
        match other.downcast_mut::<Vec<T>>() {
            Some(other) => {
                Vec::append(self, other);
                Ok(())
            }
            None => Err(ErrorKind::Internal("elements of one list of different types").into()),
        }
    }

    #[inline(never)]
    fn truncate_reserve(&mut self, len: usize, room: usize) {
        Vec::truncate(self, len);
        self.reserve(room);
    }
}

/// [`Walk::__read_json`] of a list whose element type has a new value:
/// each element is read into a new one.
pub(crate) fn read_list(list: &mut dyn Slots, v: &Value) -> Result<()> {
    let Value::Array(items) = v else { return Err(fallback::invalid_type(v, "a sequence")) };
    list.reset(items.len());
    for item in items {
        let Some(mut e) = list.push_new_element() else { return Err(no_new_value()) };
        // SAFETY: the element just added, which nothing else borrows.
        unsafe { e.as_mut() }.read_json(item)?;
    }
    Ok(())
}

/// Reads an element into a new one added at the end (where there is
/// room), with its type's reader and retries; on error it is removed.
fn read_new(list: &mut dyn Slots, v: &Value) -> Result<()> {
    let len = list.len();
    let Some(mut e) = list.push_new_element() else { return Err(no_new_value()) };
    // SAFETY: the element just added, which nothing else borrows.
    match unsafe { e.as_mut() }.set_json(v, None) {
        Ok(()) => Ok(()),
        Err(err) => {
            list.truncate(len);
            Err(err)
        }
    }
}

/// The elements of a list, behind their type's vtable.
pub(crate) fn elements(list: &dyn Slots) -> impl Iterator<Item = &dyn FieldValue> {
    let parts = list.parts();
    // SAFETY: the elements of the list, borrowed as the list is.
    (0..parts.len).filter_map(move |i| parts.at(i).map(|e| unsafe { &*e }))
}

/// One element of a list being merged, where it lies in the [`Store`]:
/// like a `Box` that does not own it. There is one handle per element,
/// never copied, so that `&Handle` and `&mut Handle` lend the element as
/// `&` and `&mut` borrows of the handle would.
pub(crate) struct Handle<'s> {
    /// The element's index in the list [`Store::finish`] makes before it
    /// orders the elements.
    at: usize,
    ptr: NonNull<dyn FieldValue>,
    store: PhantomData<&'s ()>,
}

impl Handle<'_> {
    pub(crate) fn get(&self) -> &dyn FieldValue {
        // SAFETY: the element lives in the store, which outlives the handle
        // ('s) and does not move, read or drop its elements until
        // `finish`, which takes the store when no handle is left. No other
        // handle points to this element, so it is borrowed as the handle is.
        unsafe { self.ptr.as_ref() }
    }

    pub(crate) fn get_mut(&mut self) -> &mut dyn FieldValue {
        // SAFETY: as in `get`; the handle is borrowed mutably for as long.
        unsafe { self.ptr.as_mut() }
    }
}

/// Where the elements of one list lie while it is merged: the list itself
/// (its live elements, not moved) and chunks of new elements, each added
/// where there is room, so that no element moves.
pub(crate) struct Store<'a> {
    inner: RefCell<Inner<'a>>,
}

struct Inner<'a> {
    list: &'a mut dyn Slots,
    /// Handles to the list's elements were made (once: one per element).
    lent: bool,
    chunks: Vec<Box<dyn Slots>>,
    /// The elements of the list and the chunks.
    count: usize,
}

impl<'a> Store<'a> {
    pub(crate) fn new(list: &'a mut dyn Slots) -> Self {
        let count = list.len();
        Store { inner: RefCell::new(Inner { list, lent: false, chunks: Vec::new(), count }) }
    }

    /// Handles to the list's elements (the first time; none after).
    pub(crate) fn live(&self) -> Vec<Handle<'_>> {
        let mut inner = self.inner.borrow_mut();
        if std::mem::replace(&mut inner.lent, true) {
            return Vec::new();
        }
        inner.list.places().enumerate().map(|(at, ptr)| Handle { at, ptr, store: PhantomData }).collect()
    }

    /// A new element read from JSON.
    pub(crate) fn read(&self, v: &Value) -> Result<Handle<'_>> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        let full = inner.chunks.last().is_none_or(|c| !c.has_room());
        if full {
            let room = inner.chunks.last().map_or(0, |c| c.len()).max(2) * 2;
            inner.chunks.push(inner.list.with_room(room));
        }
        let Some(chunk) = inner.chunks.last_mut() else { return Err(no_chunk()) };
        chunk.push_read(v)?;
        let ptr = chunk.element(chunk.len() - 1).ok_or_else(no_chunk)?;
        let at = inner.count;
        inner.count += 1;
        Ok(Handle { at, ptr, store: PhantomData })
    }

    /// A list read whole from JSON, as its field reads it (an error is at
    /// the field's key).
    pub(crate) fn read_list(&self, v: &Value, field: &Field) -> Result<Vec<Handle<'_>>> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        let mut chunk = inner.list.with_room(0);
        (&mut *chunk as &mut dyn FieldValue).set_json(v, Some(field))?;
        let base = inner.count;
        let handles: Vec<Handle<'_>> =
            chunk.places().enumerate().map(|(i, ptr)| Handle { at: base + i, ptr, store: PhantomData }).collect();
        inner.count += handles.len();
        // New elements go after these (in this chunk while it has room).
        inner.chunks.push(chunk);
        Ok(handles)
    }

    /// Makes the list the elements of `order` (their [`Handle::at`]), in
    /// that order; the others are dropped.
    pub(crate) fn finish(self, order: &[usize]) -> Result<()> {
        let Inner { list, mut chunks, count, .. } = self.inner.into_inner();
        for chunk in &mut chunks {
            list.append(&mut **chunk)?;
        }
        if list.len() != count {
            return Err(no_chunk());
        }
        // `at[k]`: where the element first at `k` is now; `first[p]`: which
        // element is at `p` now.
        let mut at: Vec<usize> = (0..count).collect();
        let mut first: Vec<usize> = (0..count).collect();
        for (p, &k) in order.iter().enumerate() {
            let q = *at.get(k).ok_or_else(no_chunk)?;
            if q < p {
                // An element in the order twice.
                return Err(no_chunk());
            }
            if q != p {
                list.swap_at(p, q);
                let moved = first[p];
                first.swap(p, q);
                at[k] = p;
                at[moved] = q;
            }
        }
        list.truncate(order.len());
        Ok(())
    }
}

impl Handle<'_> {
    /// The element's index in the list [`Store::finish`] makes.
    pub(crate) fn at(&self) -> usize {
        self.at
    }
}

#[cold]
fn no_room() -> crate::error::Error {
    ErrorKind::Internal("an element added to a full chunk").into()
}

#[cold]
fn no_chunk() -> crate::error::Error {
    ErrorKind::Internal("a keyed list's elements lost while merged").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every order of every subset of three live and two new elements.
    fn orders(n: usize) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new()];
        let mut grown = vec![Vec::new()];
        for _ in 0..n {
            let mut next = Vec::new();
            for o in &grown {
                for k in 0..n {
                    if !o.contains(&k) {
                        let mut o = o.clone();
                        o.push(k);
                        next.push(o);
                    }
                }
            }
            out.extend(next.iter().cloned());
            grown = next;
        }
        out
    }

    #[test]
    fn finish_puts_the_elements_in_the_order_given() {
        let all = ["a", "b", "c", "d", "e"];
        for order in orders(all.len()) {
            let mut list: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
            let store = Store::new(&mut list);
            let mut handles = store.live();
            handles.push(store.read(&json!("d")).unwrap());
            handles.push(store.read(&json!("e")).unwrap());
            let at: Vec<usize> = handles.iter().map(Handle::at).collect();
            assert_eq!(at, [0, 1, 2, 3, 4]);
            store.finish(&order).unwrap();
            let want: Vec<&str> = order.iter().map(|&k| all[k]).collect();
            assert_eq!(list, want, "order {order:?}");
        }
    }

    #[test]
    fn handles_lend_the_elements_where_they_lie() {
        let mut list: Vec<String> = vec!["a".into()];
        let store = Store::new(&mut list);
        let mut live = store.live();
        assert!(store.live().is_empty(), "the live elements are lent once");
        // New elements fill several chunks; the earlier handles stay valid.
        let mut new: Vec<Handle<'_>> = (0..40).map(|i| store.read(&json!(format!("n{i}"))).unwrap()).collect();
        live[0].get_mut().set_json(&json!("z"), None).unwrap();
        new[39].get_mut().set_json(&json!("y"), None).unwrap();
        assert_eq!(new[0].get().json().unwrap(), json!("n0"));
        let field =
            Field { key: "f", strategy: Default::default(), merge_key: None, parent: || crate::schema::Shape::Any };
        let replaced = store.read_list(&json!(["p", "q"]), &field).unwrap();
        let after = store.read(&json!("r")).unwrap();
        assert_eq!((replaced[1].at(), after.at()), (42, 43));
        let order = [after.at(), new[39].at(), live[0].at(), replaced[0].at()];
        store.finish(&order).unwrap();
        assert_eq!(list, ["r", "y", "z", "p"]);
    }

    #[test]
    fn a_bad_order_is_an_error_not_a_panic() {
        for order in [&[0, 0][..], &[5], &[1, 0, 1]] {
            let mut list: Vec<String> = vec!["a".into(), "b".into()];
            let store = Store::new(&mut list);
            assert!(store.finish(order).is_err(), "{order:?}");
        }
    }

    #[test]
    fn a_read_that_fails_adds_nothing() {
        let mut list: Vec<u8> = vec![1];
        let store = Store::new(&mut list);
        assert!(store.read(&json!("x")).is_err());
        let two = store.read(&json!(2)).unwrap();
        assert_eq!(two.at(), 1);
        let order = [two.at(), 0];
        store.finish(&order).unwrap();
        assert_eq!(list, [2, 1]);
    }
}
