//! The key index: positions of merge-key values (or set members) in a
//! list, for the reference's Go `==` lookups in O(1).

use super::order;
use crate::error::{Error, ErrorKind, Result};
use crate::value::ScalarKey;
use serde_json::Value;
use std::collections::HashMap;

static NULL: Value = Value::Null;

/// What the reference's `index` compares for an element: the merge-key value
/// of an object (nil when missing or not an object), or the element itself.
pub(crate) fn order_key<'v>(item: &'v Value, merge_key: &str, objects: bool) -> &'v Value {
    if objects { item.get(merge_key).unwrap_or(&NULL) } else { item }
}

/// First positions of values in a list, for Go `==` lookups in O(1).
pub(crate) struct KeyIndex<'v> {
    first: HashMap<ScalarKey<'v>, usize>,
    /// Go panics comparing two objects (or two arrays) with `==`.
    pub(crate) has_object: bool,
    pub(crate) has_array: bool,
}

impl<'v> KeyIndex<'v> {
    pub(crate) fn new(keys: impl IntoIterator<Item = &'v Value>) -> Self {
        let mut idx = KeyIndex { first: HashMap::new(), has_object: false, has_array: false };
        for (i, k) in keys.into_iter().enumerate() {
            match ScalarKey::of(k) {
                Some(s) => {
                    idx.first.entry(s).or_insert(i);
                }
                None if k.is_object() => idx.has_object = true,
                None => idx.has_array = true,
            }
        }
        idx
    }

    /// Position of the first element `==` to `key`.
    pub(crate) fn position(&self, key: &Value) -> Result<Option<usize>> {
        match ScalarKey::of(key) {
            Some(s) => Ok(self.first.get(&s).copied()),
            None if (key.is_object() && self.has_object) || (key.is_array() && self.has_array) => Err(uncomparable()),
            None => Ok(None),
        }
    }

    /// [`Self::position`] for the order code, which fails only where it
    /// evaluates the lookup.
    pub(crate) fn lookup(&self, key: &Value) -> order::Lookup {
        self.position(key).map_err(|_| order::Uncomparable)
    }

    pub(crate) fn contains(&self, key: &Value) -> Result<bool> {
        Ok(self.position(key)?.is_some())
    }
}

pub(crate) fn uncomparable() -> Error {
    ErrorKind::Unsupported("objects and lists cannot be compared as merge keys or set members".into()).into()
}

/// Positions of objects in a list by merge-key value, kept up to date as
/// elements are appended. Answers as the reference's linear search
/// (`findMapInSliceBasedOnKeyValue`) does, which stops at the first element
/// that is not an object (an error), that has an equal key, or whose key is
/// a map (or a list) when a map (or a list) is looked up (`==` panics).
pub(crate) struct ListIndex {
    first: std::collections::HashMap<OwnedKey, usize>,
    first_non_object: Option<usize>,
    first_object_key: Option<usize>,
    first_array_key: Option<usize>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum OwnedKey {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl OwnedKey {
    /// `None` for objects and lists.
    pub(crate) fn of(v: &Value) -> Option<OwnedKey> {
        Some(match ScalarKey::of(v)? {
            ScalarKey::Null => OwnedKey::Null,
            ScalarKey::Bool(b) => OwnedKey::Bool(b),
            ScalarKey::Int(i) => OwnedKey::Int(i),
            ScalarKey::Float(f) => OwnedKey::Float(f),
            ScalarKey::Str(s) => OwnedKey::Str(s.to_string()),
        })
    }
}

impl ListIndex {
    pub(crate) fn new(list: &[Value], mk: &str) -> Self {
        let mut idx = ListIndex {
            first: Default::default(),
            first_non_object: None,
            first_object_key: None,
            first_array_key: None,
        };
        for (i, e) in list.iter().enumerate() {
            match e.as_object() {
                Some(m) => {
                    if let Some(kv) = m.get(mk) {
                        idx.push(kv, i);
                    }
                }
                None => {
                    idx.first_non_object.get_or_insert(i);
                }
            }
        }
        idx
    }

    pub(crate) fn find(&self, kv: &Value) -> Result<Option<usize>> {
        let (hit, panics_at) = match OwnedKey::of(kv) {
            Some(k) => (self.first.get(&k).copied(), None),
            None if kv.is_object() => (None, self.first_object_key),
            None => (None, self.first_array_key),
        };
        // The linear search stops at the first of these.
        match [self.first_non_object, panics_at, hit].into_iter().flatten().min() {
            None => Ok(None),
            Some(i) if Some(i) == self.first_non_object => Err(ErrorKind::NotAMap(i).into()),
            Some(i) if Some(i) == panics_at => Err(uncomparable()),
            found => Ok(found),
        }
    }

    pub(crate) fn push(&mut self, kv: &Value, pos: usize) {
        match OwnedKey::of(kv) {
            Some(k) => {
                self.first.entry(k).or_insert(pos);
            }
            None if kv.is_object() => {
                self.first_object_key.get_or_insert(pos);
            }
            None => {
                self.first_array_key.get_or_insert(pos);
            }
        }
    }
}
