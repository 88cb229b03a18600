//! The documents a patch is applied to: what the engine asks of the live
//! side of an apply, implemented by `serde_json::Value` (the public API)
//! and by the [`compact`] document of the bytes entry points.
//!
//! A patch is a document of the same kind as the one it is applied to,
//! borrowed: the engine reads it in place and clones only what the result
//! keeps of it. On the bytes path both are compact documents, so a large
//! patch (kubectl's `$setElementOrder` lists every element of a list)
//! costs what the live object costs, not a tree of `serde_json::Value`s.

// Without the `bytes` feature only the reader behind `decode` is used:
// the compact document's other steps and its writer serve the entry
// points on text.
#[cfg_attr(not(feature = "bytes"), allow(dead_code))]
pub mod compact;
pub(crate) mod member;
#[cfg_attr(not(feature = "bytes"), allow(dead_code))]
pub(crate) mod parse;
#[cfg_attr(not(feature = "bytes"), allow(dead_code))]
pub(crate) mod print;

use crate::directive::PATCH;
use crate::value::{GoKind, deep_eq};
use member::{Field, KeyValue, json_field};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A live JSON value the engine merges a patch into.
pub(crate) trait Document: Sized + Default + Clone {
    /// An object of such values.
    type Object: Object<Self>;

    /// The type the reference sees for the value.
    fn kind(&self) -> GoKind;

    /// Whether the value is `null`.
    fn is_null(&self) -> bool {
        self.kind() == GoKind::Null
    }

    /// The value of a patch taken into the document.
    fn from_json(v: Value) -> Self;

    /// The value as JSON (for messages, and for the steps that work on
    /// lists of scalars).
    fn to_json(&self) -> Value;

    /// [`Self::to_json`], giving the value away.
    fn into_json(self) -> Value;

    /// The object, or the value back when it is not one.
    fn into_object(self) -> Result<Self::Object, Self>;

    /// [`Self::into_object`] of an object that `patch` is merged into
    /// next: a document that keeps parts as text decodes only what the
    /// patch reaches.
    fn into_object_for(self, _patch: &Self::Object) -> Result<Self::Object, Self> {
        self.into_object()
    }

    /// The list, or the value back when it is not one.
    fn into_array(self) -> Result<Vec<Self>, Self>;

    /// An object value.
    fn object(m: Self::Object) -> Self;

    /// A list value.
    fn array(a: Vec<Self>) -> Self;

    /// The field `name`, as a merge key reads it.
    fn field<'e>(&'e self, name: &str) -> Field<KeyValue<'e>>;

    /// The value as a set member (lists of scalars).
    fn as_member(&self) -> KeyValue<'_>;

    /// The object, if the value is one.
    fn as_object(&self) -> Option<&Self::Object>;

    /// The list, if the value is one.
    fn as_array(&self) -> Option<&[Self]>;

    /// The string, if the value is one.
    fn as_str(&self) -> Option<&str>;

    /// `reflect.DeepEqual`: structural, with int64 ≠ float64.
    fn deep_eq(&self, other: &Self) -> bool;

    /// Equal at a glance: `true` only when [`Document::deep_eq`] is and
    /// that takes no walk (two values kept as the same text); `false`
    /// says nothing.
    fn same_at_a_glance(&self, _other: &Self) -> bool {
        false
    }

    /// The members named in `keys` of the value, an object
    /// ([`Object::pick`]); an empty object for anything else.
    fn pick(&self, keys: &[&str]) -> Self::Object {
        self.as_object().map(|o| o.pick(keys)).unwrap_or_default()
    }

    /// A list as JSON values, for the steps written on them (lists of
    /// scalars): borrowed where the list already is JSON.
    fn json_list(list: &[Self]) -> Cow<'_, [Value]> {
        let mut json = Vec::with_capacity(list.len());
        for v in list {
            json.push(v.to_json());
        }
        Cow::Owned(json)
    }
}

/// An object of a [`Document`].
pub(crate) trait Object<D>: Default + Clone {
    /// The member `key`.
    fn get(&self, key: &str) -> Option<&D>;

    /// The member `key`, to change in place.
    fn get_mut(&mut self, key: &str) -> Option<&mut D>;

    /// Sets the member `key`.
    fn insert(&mut self, key: &str, v: D);

    /// Removes the member `key`.
    fn remove(&mut self, key: &str) -> Option<D>;

    /// Keeps the members whose key `keep` accepts.
    fn retain_keys(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.retain_members(|k, _| keep(k));
    }

    /// Keeps the members `keep` accepts, which may change their values.
    fn retain_members(&mut self, keep: impl FnMut(&str, &mut D) -> bool);

    /// The member `key`, with the object's own copy of the key.
    fn get_key_value(&self, key: &str) -> Option<(&str, &D)>;

    /// The members, in key order.
    fn members<'s>(&'s self) -> impl Iterator<Item = (&'s str, &'s D)>
    where
        D: 's;

    /// The object of `entries`, in any order, the last of equal keys
    /// winning (as inserting them one by one would leave it).
    fn from_entries(entries: Vec<(String, D)>) -> Self;

    /// Whether the object has no members.
    fn is_empty(&self) -> bool {
        self.members().next().is_none()
    }

    /// A new object of the members `f` keeps, with the values it gives.
    fn filter_map_members(&self, f: impl FnMut(&str, &D) -> Option<D>) -> Self;

    /// A new object of copies of the members named in `keys` (an
    /// element's merge key, as `$setElementOrder` and deletions name it).
    fn pick(&self, keys: &[&str]) -> Self
    where
        D: Clone,
    {
        self.filter_map_members(|k, v| keys.contains(&k).then(|| v.clone()))
    }

    /// The object as a JSON object.
    fn to_json_map(&self) -> Map<String, Value>;

    /// [`Self::to_json_map`], borrowed where the object already is JSON.
    fn as_json_map(&self) -> Cow<'_, Map<String, Value>> {
        Cow::Owned(self.to_json_map())
    }
}

/// A copy of a patch value as it is taken whole into the result: without
/// objects carrying `$patch` (`removeDirectives`) and, when `drop_nulls`,
/// without null object members (`discardNullValuesFromPatch`, which runs
/// first: a null `$patch` member is dropped, not obeyed). `None` when `v`
/// itself is dropped. ([`take_patch_value`] of a clone: what it drops is
/// rare, and copying it first costs nothing measurable.)
pub(crate) fn copy_patch_value<D: Document>(v: &D, drop_nulls: bool) -> Option<D> {
    take_patch_value(v.clone(), drop_nulls)
}

/// A patch value as it is taken whole into the result, from a value the
/// caller gives away: what is kept is moved (see [`copy_patch_value`];
/// without `drop_nulls`, `removeDirectives`).
pub(crate) fn take_patch_value<D: Document>(v: D, drop_nulls: bool) -> Option<D> {
    match v.into_object() {
        Ok(mut m) => {
            if m.get(PATCH).is_some_and(|d| !(drop_nulls && d.is_null())) {
                return None;
            }
            m.retain_members(|_, v| {
                if drop_nulls && v.is_null() {
                    return false;
                }
                take_patch_value(std::mem::take(v), drop_nulls).map(|kept| *v = kept).is_some()
            });
            Some(D::object(m))
        }
        Err(v) => match v.into_array() {
            Ok(a) => {
                let mut kept = Vec::with_capacity(a.len());
                for v in a {
                    if let Some(v) = take_patch_value(v, drop_nulls) {
                        kept.push(v);
                    }
                }
                Some(D::array(kept))
            }
            Err(v) => Some(v),
        },
    }
}

/// Go's `==` on two values; `None` where Go panics (two maps, two lists).
pub(crate) fn go_eq<D: Document>(a: &D, b: &D) -> Option<bool> {
    a.as_member().go_eq(b.as_member())
}

/// Whether two texts of the same length are equal: up to sixteen bytes as
/// two overlapping words (or halves), without a call to `memcmp`.
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let word = |s: &[u8], at: usize| s.get(at..at + 8).map(|w| u64::from_ne_bytes(w.try_into().expect("eight bytes")));
    let half = |s: &[u8], at: usize| s.get(at..at + 4).map(|w| u32::from_ne_bytes(w.try_into().expect("four bytes")));
    match a.len() {
        n @ 8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        n @ 4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

/// The order of two keys (their bytes'), the first eight bytes compared as
/// one number: keys of an object mostly differ there, and sorting them
/// then calls no `memcmp`.
pub(super) fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match (a.first_chunk::<8>(), b.first_chunk::<8>()) {
        (Some(x), Some(y)) => u64::from_be_bytes(*x).cmp(&u64::from_be_bytes(*y)).then_with(|| a[8..].cmp(&b[8..])),
        _ => {
            let n = a.len().min(b.len());
            for i in 0..n {
                if a[i] != b[i] {
                    return a[i].cmp(&b[i]);
                }
            }
            a.len().cmp(&b.len())
        }
    }
}

/// Whether two texts are equal ([`same_bytes`] once their lengths agree).
#[inline]
pub(super) fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && same_bytes(a.as_bytes(), b.as_bytes())
}

/// `reflect.DeepEqual` of two objects: the same keys, in key order, with
/// deeply equal values.
pub(crate) fn objects_deep_eq<D: Document>(a: &D::Object, b: &D::Object) -> bool {
    let (mut a, mut b) = (a.members(), b.members());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some((k, v)), Some((l, w))) if same_text(k, l) && v.deep_eq(w) => {}
            _ => return false,
        }
    }
}

/// The JSON object of `entries`, in any order, the last of equal keys
/// winning: every object the crate collects is built here, so that the
/// map's construction (a sort of the entries) is compiled once.
pub(crate) fn json_map(entries: Vec<(String, Value)>) -> Map<String, Value> {
    entries.into_iter().collect()
}

/// Converts a list both ways, for the steps written on JSON values (lists
/// of scalars, the opt-in `$patchMergeKey` lists).
pub(crate) fn list_to_json<D: Document>(list: Vec<D>) -> Vec<Value> {
    list.into_iter().map(D::into_json).collect()
}

/// [`list_to_json`] back.
pub(crate) fn list_from_json<D: Document>(list: Vec<Value>) -> Vec<D> {
    list.into_iter().map(D::from_json).collect()
}

impl Document for Value {
    type Object = Map<String, Value>;

    fn kind(&self) -> GoKind {
        GoKind::of(self)
    }

    fn from_json(v: Value) -> Self {
        v
    }

    fn to_json(&self) -> Value {
        self.clone()
    }

    fn into_json(self) -> Value {
        self
    }

    fn into_object(self) -> Result<Map<String, Value>, Self> {
        match self {
            Value::Object(m) => Ok(m),
            other => Err(other),
        }
    }

    fn into_array(self) -> Result<Vec<Self>, Self> {
        match self {
            Value::Array(a) => Ok(a),
            other => Err(other),
        }
    }

    fn object(m: Map<String, Value>) -> Self {
        Value::Object(m)
    }

    fn array(a: Vec<Self>) -> Self {
        Value::Array(a)
    }

    fn field<'e>(&'e self, name: &str) -> Field<KeyValue<'e>> {
        json_field(self, name)
    }

    fn as_member(&self) -> KeyValue<'_> {
        KeyValue::Json(self)
    }

    fn as_object(&self) -> Option<&Map<String, Value>> {
        Value::as_object(self)
    }

    fn as_array(&self) -> Option<&[Value]> {
        Value::as_array(self).map(Vec::as_slice)
    }

    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }

    fn deep_eq(&self, other: &Self) -> bool {
        deep_eq(self, other)
    }

    fn json_list(list: &[Self]) -> Cow<'_, [Value]> {
        Cow::Borrowed(list)
    }
}

impl Object<Value> for Map<String, Value> {
    fn get(&self, key: &str) -> Option<&Value> {
        Map::get(self, key)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        Map::get_mut(self, key)
    }

    fn insert(&mut self, key: &str, v: Value) {
        match Map::get_mut(self, key) {
            Some(slot) => *slot = v,
            None => {
                Map::insert(self, key.to_string(), v);
            }
        }
    }

    fn remove(&mut self, key: &str) -> Option<Value> {
        Map::remove(self, key)
    }

    fn retain_members(&mut self, mut keep: impl FnMut(&str, &mut Value) -> bool) {
        self.retain(|k, v| keep(k, v));
    }

    fn from_entries(entries: Vec<(String, Value)>) -> Self {
        json_map(entries)
    }

    fn get_key_value(&self, key: &str) -> Option<(&str, &Value)> {
        Map::get_key_value(self, key).map(|(k, v)| (k.as_str(), v))
    }

    fn members<'s>(&'s self) -> impl Iterator<Item = (&'s str, &'s Value)>
    where
        Value: 's,
    {
        self.iter().map(|(k, v)| (k.as_str(), v))
    }

    fn filter_map_members(&self, mut f: impl FnMut(&str, &Value) -> Option<Value>) -> Self {
        let mut kept = Vec::new();
        for (k, v) in self {
            if let Some(v) = f(k, v) {
                kept.push((k.clone(), v));
            }
        }
        json_map(kept)
    }

    fn to_json_map(&self) -> Map<String, Value> {
        self.clone()
    }

    fn as_json_map(&self) -> Cow<'_, Map<String, Value>> {
        Cow::Borrowed(self)
    }
}
