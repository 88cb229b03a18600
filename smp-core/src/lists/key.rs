//! Merge keys: the value (or values) that identify an element of a keyed
//! list, read from typed elements or from JSON, compared with the identity
//! of Go's `==`, printed as Go's `%v`, and written back into patches.
//!
//! Everything a keyed list does with keys goes through here: which fields
//! identify an element ([`KeyFields`]), the key of an element or of a patch
//! entry ([`Key`]), and the hashed lookups ([`Interner`], [`TagIndex`]).

use crate::doc::member::Identity;
pub(crate) use crate::doc::member::{Field, KeyValue};
use crate::error::{Error, ErrorKind, Segment};
use crate::schema::MergeKey;
use crate::value::ScalarKey;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The hasher of every key index: foldhash, several times faster than the
/// standard library's SipHash on short keys such as env var names. Its
/// seed is random per process and per map, so whoever writes a document
/// cannot choose keys that collide: lookups stay O(1) on hostile input.
pub(crate) type KeyHasher = foldhash::fast::RandomState;

/// A hash map of keys, with [`KeyHasher`].
pub(crate) type KeyMap<K, V> = HashMap<K, V, KeyHasher>;

/// A hash set of keys, with [`KeyHasher`].
pub(crate) type KeySet<K> = HashSet<K, KeyHasher>;

/// The fields whose values identify an element: the reference's one merge
/// key, or several fields (multi-field merge keys).
#[derive(Clone, Copy, Debug)]
pub struct KeyFields<'f> {
    names: &'f [&'f str],
    /// A composite key ([`MergeKey::Composite`]): a field an element lacks
    /// counts as `null`, and an element has no key only when it lacks them
    /// all.
    composite: bool,
}

impl<'f> KeyFields<'f> {
    /// The fields of a merge key that the reference-compatible operations
    /// use: its first (primary) field.
    pub fn primary(mk: &'f MergeKey<'f>) -> Self {
        match mk {
            MergeKey::One(name) => KeyFields { names: std::slice::from_ref(name), composite: false },
            MergeKey::Several(names) | MergeKey::Composite(names) => {
                KeyFields { names: &names[..names.len().min(1)], composite: false }
            }
        }
    }

    /// The fields a list's elements are identified by: the primary field,
    /// or every field of a composite key.
    pub fn of(mk: &'f MergeKey<'f>) -> Self {
        match mk {
            MergeKey::Composite(names) => KeyFields { names, composite: true },
            _ => Self::primary(mk),
        }
    }

    /// The fields' names.
    pub fn names(self) -> &'f [&'f str] {
        self.names
    }

    /// Whether several fields identify an element ([`MergeKey::Composite`]).
    pub fn is_composite(self) -> bool {
        self.composite
    }

    /// The field named in messages (the first).
    pub fn name(self) -> &'f str {
        self.names.first().copied().unwrap_or("")
    }

    /// The key of an element, reading each field with `get`.
    pub fn key_of<'e>(self, get: impl Fn(&str) -> Field<KeyValue<'e>>) -> Field<Key<'e>> {
        match self.names {
            [one] => get(one).map(Key::One),
            _ => self.several_key_of(&get),
        }
    }

    /// [`Self::key_of`] of several fields (or none), compiled once.
    fn several_key_of<'e>(self, get: &dyn Fn(&str) -> Field<KeyValue<'e>>) -> Field<Key<'e>> {
        let mut values = Vec::with_capacity(self.names.len());
        let mut present = false;
        for name in self.names {
            match get(name) {
                Field::Value(v) => {
                    present = true;
                    values.push(v);
                }
                Field::Missing if self.composite => values.push(KeyValue::Null),
                Field::Missing => return Field::Missing,
                Field::NotObject => return Field::NotObject,
            }
        }
        if !present {
            return Field::Missing;
        }
        Field::Value(Key::Several(values))
    }

    /// `{field: value, ...}`: an entry of `$setElementOrder`, the start of a
    /// changed element's patch, or of a `$patch: delete` entry. A composite
    /// key leaves out its `null` fields after the first (absent and `null`
    /// name the same elements), so that the entry sets no field to `null`.
    pub fn entry(self, key: &Key<'_>) -> Map<String, Value> {
        let mut m = Map::new();
        match key {
            Key::One(v) => {
                m.insert(self.name().to_string(), v.to_value());
            }
            Key::Several(vs) => {
                for (i, (name, v)) in self.names.iter().zip(vs).enumerate() {
                    if self.composite && i > 0 && v.is_null() {
                        continue;
                    }
                    m.insert(name.to_string(), v.to_value());
                }
            }
        }
        m
    }

    /// Whether two elements (or patch entries) name the same element:
    /// Go's `==` on their keys; an error for an element without its key,
    /// or a key Go cannot compare.
    pub fn same_key<P: crate::doc::Document>(self, left: &P, right: &P) -> crate::Result<bool> {
        fn key<'p, P: crate::doc::Document>(fields: KeyFields<'_>, item: &'p P) -> crate::Result<Key<'p>> {
            match fields.key_of(|n| item.field(n)) {
                Field::Value(k) => Ok(k),
                Field::NotObject => Err(crate::error::bad_arg(crate::value::GoKind::Object, &item.to_json())),
                Field::Missing => Err(crate::error::no_merge_key(
                    &item.as_object().map(crate::doc::Object::as_json_map).unwrap_or_default(),
                    fields.name(),
                )),
            }
        }
        key(self, left)?.go_eq(&key(self, right)?).ok_or_else(uncomparable)
    }

    /// An error under the element `index`, named by its key when it has one.
    pub fn at(self, err: Error, key: Option<&Key<'_>>, index: usize) -> Error {
        let seg = match key {
            Some(k) => Segment::Keyed { key: self.name().to_string(), value: k.text().into_owned() },
            None => Segment::Index(index),
        };
        err.within(seg)
    }
}

/// An element's merge key: the value of each key field.
#[derive(Clone, Debug)]
pub enum Key<'a> {
    /// One field (the reference's merge key).
    One(KeyValue<'a>),
    /// Several fields, in the order of the merge key.
    Several(Vec<KeyValue<'a>>),
}

impl<'a> Key<'a> {
    /// Go's `%v` text of the key (for several fields, each joined by `,`).
    pub fn text(&self) -> Cow<'a, str> {
        match self {
            Key::One(v) => v.text(),
            Key::Several(vs) => {
                let mut text = String::new();
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        text.push(',');
                    }
                    text.push_str(&v.text());
                }
                Cow::Owned(text)
            }
        }
    }

    fn identity(&self) -> Result<IdentityKey<'a>, Tag> {
        match self {
            Key::One(v) => match v.identity() {
                Identity::Scalar(s) => Ok(IdentityKey::One(s)),
                Identity::Object => Err(Tag::Object),
                Identity::Array => Err(Tag::Array),
            },
            Key::Several(vs) => {
                let mut ids = Vec::with_capacity(vs.len());
                for v in vs {
                    match v.identity() {
                        Identity::Scalar(s) => ids.push(s),
                        Identity::Object => return Err(Tag::Object),
                        Identity::Array => return Err(Tag::Array),
                    }
                }
                Ok(IdentityKey::Several(ids))
            }
        }
    }

    /// A hash of the key that keys `==` in Go share; `None` for a key Go
    /// cannot compare (a map, a list).
    pub fn identity_hash(&self, hasher: &KeyHasher) -> Option<u64> {
        self.identity().ok().map(|id| std::hash::BuildHasher::hash_one(hasher, id))
    }

    /// The key's string, when it is one string (nearly all merge keys).
    pub fn one_str(&self) -> Option<&'a str> {
        match self {
            Key::One(v) => v.as_str(),
            Key::Several(_) => None,
        }
    }

    /// Go's `==` on two keys; `None` where Go panics (two maps, two lists).
    pub fn go_eq(&self, other: &Key<'_>) -> Option<bool> {
        if let (Some(a), Some(b)) = (self.one_str(), other.one_str()) {
            return Some(a == b);
        }
        match (self.identity(), other.identity()) {
            (Ok(a), Ok(b)) => Some(a == b),
            (Err(a), Err(b)) if a == b => None,
            _ => Some(false),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum IdentityKey<'a> {
    One(ScalarKey<'a>),
    Several(Vec<ScalarKey<'a>>),
}

/// A key reduced to what lookups need: an interned scalar identity, or
/// the kind of a key Go cannot compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    /// A comparable key, numbered by an [`Interner`].
    Id(u32),
    /// A map.
    Object,
    /// A list.
    Array,
}

/// Numbers keys by identity, so that the steps after it compare numbers
/// and never borrow the elements again.
///
/// Keys that are one string (nearly all merge keys) have a map of their
/// own, keyed by the string alone: its entries are 24 bytes instead of 40,
/// which on a list of a million elements is tens of megabytes less table
/// to fill and to miss the cache in. A string is `==` to no other kind of
/// key, so the two maps never number the same key.
#[derive(Default)]
pub struct Interner<'a> {
    strings: KeyMap<&'a str, u32>,
    others: KeyMap<IdentityKey<'a>, u32>,
}

impl<'a> Interner<'a> {
    /// With room for `n` keys.
    pub fn with_capacity(n: usize) -> Self {
        Interner { strings: KeyMap::with_capacity_and_hasher(n, KeyHasher::default()), others: KeyMap::default() }
    }

    /// The tag of a key.
    pub fn tag(&mut self, key: &Key<'a>) -> Tag {
        let next = self.len() as u32;
        match key.identity() {
            Ok(IdentityKey::One(ScalarKey::Str(s))) => Tag::Id(*self.strings.entry(s).or_insert(next)),
            Ok(id) => Tag::Id(*self.others.entry(id).or_insert(next)),
            Err(tag) => tag,
        }
    }

    /// The tag of a key already numbered; `None` for a comparable key never seen.
    pub fn get(&self, key: &Key<'_>) -> Option<Tag> {
        match key.identity() {
            Ok(IdentityKey::One(ScalarKey::Str(s))) => self.strings.get(s).map(|&i| Tag::Id(i)),
            Ok(id) => self.others.get(&id).map(|&i| Tag::Id(i)),
            Err(tag) => Some(tag),
        }
    }

    /// How many distinct comparable keys were seen.
    pub fn len(&self) -> usize {
        self.strings.len() + self.others.len()
    }
}

/// Numbers the keys `key(0..n)` by identity all at once, as an
/// [`Interner`] fed them in turn would tell them apart: equal keys (Go's
/// `==`) share a tag; the ids are below `n`. `key(i)` may be asked again
/// (of keys whose hash another key shares).
///
/// A short sequence is numbered by an [`Interner`], whose table stays in
/// the cache. A long one is not: on a list of a million elements, a table
/// probed at random costs a cache miss or two on every key, about half the
/// time of an apply. Each key is hashed in turn instead, and the hashes
/// sorted with their positions ([`number_keys_sorted`]).
pub fn number_keys<'a>(n: usize, key: &dyn Fn(usize) -> Field<Key<'a>>) -> Vec<Field<Tag>> {
    if n < SORTED_FROM {
        let mut interner = Interner::with_capacity(n);
        let mut tags = Vec::with_capacity(n);
        for i in 0..n {
            tags.push(key(i).map(|k| interner.tag(&k)));
        }
        return tags;
    }
    let hasher = KeyHasher::default();
    number_keys_sorted(n, key, |id| std::hash::BuildHasher::hash_one(&hasher, id))
}

/// The length of a sequence of keys from which [`number_keys`] sorts
/// hashes rather than fill a table: about where the table outgrows a
/// core's own caches.
const SORTED_FROM: usize = 8192;

/// [`number_keys`] by sorted hashes, with the hash function given (the
/// tests give one that collides): equal keys become neighbours, which are
/// confirmed by `==`, and share the number of the first of them in the
/// sequence. Hashes that collide without `==` (unforeseeable: the seed is
/// random) are told apart by comparing each with the first key of every
/// distinct group of its run.
fn number_keys_sorted<'a>(
    n: usize,
    key: &dyn Fn(usize) -> Field<Key<'a>>,
    hash: impl Fn(&IdentityKey<'a>) -> u64,
) -> Vec<Field<Tag>> {
    let mut tags = Vec::with_capacity(n);
    // Each key as one number: the top half of its hash, then its position
    // (eight bytes a key: a million keys sort in a few milliseconds).
    let mut hashes: Vec<u64> = Vec::with_capacity(n);
    for i in 0..n {
        tags.push(key(i).map(|k| match k.identity() {
            Ok(id) => {
                hashes.push(hash(&id) & !u64::from(u32::MAX) | i as u64);
                Tag::Id(i as u32)
            }
            Err(tag) => tag,
        }));
    }
    hashes.sort_unstable();
    let position = |h: u64| h as u32;
    let identity = |i: u32| key(i as usize).value().and_then(|k| k.identity().ok());
    for run in hashes.chunk_by(|a, b| a >> 32 == b >> 32).filter(|run| run.len() > 1) {
        // Mostly one group of equal keys (a patch element and the live one
        // it names): the first item's identity, and a list of the first
        // item of every other group only when there are others.
        let first = position(run[0]);
        let first_id = identity(first);
        let mut others: Vec<(u32, Option<IdentityKey<'a>>)> = Vec::new();
        for i in run[1..].iter().map(|&h| position(h)) {
            let id = identity(i);
            let group = if id == first_id {
                first
            } else if let Some(&(other, _)) = others.iter().find(|(_, g)| *g == id) {
                other
            } else {
                others.push((i, id));
                i
            };
            tags[i as usize] = Field::Value(Tag::Id(group));
        }
    }
    tags
}

/// First positions of tags in a list: the reference's `index` (a linear
/// search with `==`) in O(1).
pub struct TagIndex {
    first: Vec<u32>,
    has_object: bool,
    has_array: bool,
}

const ABSENT: u32 = u32::MAX;

impl TagIndex {
    /// The index of a list of tags; `ids` bounds the interned ids.
    pub fn new(tags: &[Tag], ids: usize) -> Self {
        let mut idx = TagIndex { first: vec![ABSENT; ids], has_object: false, has_array: false };
        for (i, &t) in tags.iter().enumerate() {
            idx.push(t, i);
        }
        idx
    }

    /// Notes `tag` at position `pos` unless it was seen before.
    pub fn push(&mut self, tag: Tag, pos: usize) {
        match tag {
            Tag::Id(id) => {
                let slot = &mut self.first[id as usize];
                if *slot == ABSENT {
                    *slot = pos as u32;
                }
            }
            Tag::Object => self.has_object = true,
            Tag::Array => self.has_array = true,
        }
    }

    /// Position of the first tag `==` to `tag`; an error where Go's `==`
    /// would compare two maps or two lists.
    pub fn lookup(&self, tag: Tag) -> Lookup {
        match tag {
            Tag::Id(id) => {
                self.first.get(id as usize).copied().filter(|&p| p != ABSENT).map_or(Lookup::MISSING, Lookup::at)
            }
            Tag::Object if self.has_object => Lookup::UNCOMPARABLE,
            Tag::Array if self.has_array => Lookup::UNCOMPARABLE,
            _ => Lookup::MISSING,
        }
    }

    /// Whether a map or a list was indexed (Go cannot hash those).
    pub fn has_uncomparable(&self) -> bool {
        self.has_object || self.has_array
    }
}

/// First positions of JSON values (set members, `$retainKeys` names,
/// deletions) for Go `==` lookups, owning its interner.
pub struct ValueIndex<'v> {
    interner: Interner<'v>,
    index: TagIndex,
}

impl<'v> ValueIndex<'v> {
    /// The index of values given as set members (of any document).
    pub fn of_members(values: impl IntoIterator<Item = KeyValue<'v>>) -> Self {
        let mut interner = Interner::default();
        let mut tags = Vec::new();
        for v in values {
            tags.push(interner.tag(&Key::One(v)));
        }
        let index = TagIndex::new(&tags, interner.len());
        ValueIndex { interner, index }
    }

    /// Position of the first value `==` to `key`.
    pub fn position_of_key(&self, key: &Key<'_>) -> crate::Result<Option<usize>> {
        self.lookup(key).get().map_err(|Uncomparable| uncomparable())
    }

    /// [`Self::position_of_key`] for the order code, which fails only where
    /// it evaluates the lookup.
    pub fn lookup(&self, key: &Key<'_>) -> Lookup {
        self.interner.get(key).map_or(Lookup::MISSING, |tag| self.index.lookup(tag))
    }

    /// Whether a value `==` to `key` is indexed.
    pub fn contains_key(&self, key: &Key<'_>) -> crate::Result<bool> {
        Ok(self.position_of_key(key)?.is_some())
    }

    /// Whether a map or a list was indexed.
    pub fn has_uncomparable(&self) -> bool {
        self.index.has_uncomparable()
    }
}

/// The error for the places where Go's `==` panics.
pub fn uncomparable() -> Error {
    ErrorKind::Uncomparable.into()
}

/// The reference compared two maps (or two lists) with `==` while looking an
/// item up, which panics in Go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uncomparable;

/// Where the reference's `index` finds an item in an order list: at a
/// position, nowhere, or nowhere because looking it up panics. Four bytes
/// (the positions of a [`TagIndex`], which are
/// `u32`s): the ordering steps hold one per element of a list, for two or
/// three lists at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup(u32);

impl Lookup {
    /// Not in the order list.
    pub const MISSING: Lookup = Lookup(u32::MAX);
    /// Looking the item up panics in Go.
    pub const UNCOMPARABLE: Lookup = Lookup(u32::MAX - 1);

    /// Found at `pos`.
    pub fn at(pos: u32) -> Self {
        debug_assert!(pos < Self::UNCOMPARABLE.0, "a position of a u32 index");
        Lookup(pos)
    }

    /// The position, if the item was found.
    pub fn found(self) -> Option<usize> {
        (self.0 < Self::UNCOMPARABLE.0).then_some(self.0 as usize)
    }

    /// The position, nowhere, or the panic of Go's lookup.
    pub fn get(self) -> Result<Option<usize>, Uncomparable> {
        if self == Self::UNCOMPARABLE { Err(Uncomparable) } else { Ok(self.found()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys of every kind, several `==` to one another (`0` and `0.0` are
    /// not: int64 and float64; `0.0` and `-0.0` are).
    fn key_of<'v>(values: &'v [Value], pick: &[u8]) -> Field<Key<'v>> {
        let one = |p: u8| match p % 12 {
            0 => KeyValue::Null,
            1 => KeyValue::Bool(true),
            2 => KeyValue::Int(0),
            3 => KeyValue::Float(0.0),
            4 => KeyValue::Float(-0.0),
            5 => KeyValue::Str("a"),
            6 => KeyValue::Str("b"),
            7 => KeyValue::Str(""),
            8 => KeyValue::Uint(7),
            9 => KeyValue::Int(7),
            10 => KeyValue::Json(&values[0]),
            _ => KeyValue::Json(&values[1]),
        };
        match pick {
            [] => Field::Missing,
            [p] if p % 13 == 12 => Field::NotObject,
            [p] => Field::Value(Key::One(one(*p))),
            ps => Field::Value(Key::Several(ps.iter().map(|&p| one(p)).collect())),
        }
    }

    proptest! {
        /// Numbered by sorted hashes, good ones or ones where every key
        /// collides, keys get the tags an interner fed them in turn gives,
        /// up to the numbering: the same partition, each id the position
        /// of the first key of its group.
        #[test]
        fn numbering_at_once_tells_keys_apart_as_the_interner(
            picks in prop::collection::vec(prop::collection::vec(0u8..13, 0..3), 0..40),
            colliding: bool,
        ) {
            let values = [serde_json::json!({"a": 1}), serde_json::json!([1])];
            let keys: Vec<Field<Key<'_>>> = picks.iter().map(|p| key_of(&values, p)).collect();
            let key = |i: usize| keys[i].clone();
            let tags = if colliding {
                number_keys_sorted(keys.len(), &key, |_| 0)
            } else {
                let hasher = KeyHasher::default();
                number_keys_sorted(keys.len(), &key, |id| std::hash::BuildHasher::hash_one(&hasher, id))
            };
            let mut interner = Interner::default();
            let want: Vec<Field<Tag>> = keys.iter().map(|k| k.clone().map(|k| interner.tag(&k))).collect();
            prop_assert_eq!(tags.len(), want.len());
            for (i, (got, wanted)) in tags.iter().zip(&want).enumerate() {
                match (got, wanted) {
                    (Field::Value(Tag::Id(g)), Field::Value(Tag::Id(w))) => {
                        let first = want.iter().position(|x| matches!(x, Field::Value(Tag::Id(v)) if v == w));
                        prop_assert_eq!(Some(*g as usize), first, "key {}", i);
                    }
                    (Field::Value(g), Field::Value(w)) => prop_assert_eq!(g, w),
                    (Field::Missing, Field::Missing) | (Field::NotObject, Field::NotObject) => {}
                    _ => prop_assert!(false, "key {i}: {got:?} vs {wanted:?}"),
                }
            }
        }
    }
}
