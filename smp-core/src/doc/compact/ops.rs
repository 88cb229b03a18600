//! The compact document's operations for the entry points on text: the
//! engine's [`Document`] and its objects on it, and serde's `Serialize`
//! (the command line's output formats). Compiled with the `bytes` feature
//! only: without it, the document serves the reader behind
//! [`decode`](crate::decode) alone.

use super::{Lazy, Member, MergeRuns, Node, Object, number, sort_members};
use crate::doc::member::{Field, KeyValue};
use crate::doc::{Document, Object as _, objects_deep_eq, same_text};
use crate::value::GoKind;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

impl<'a> crate::doc::Object<Node<'a>> for Object<'a> {
    fn get(&self, key: &str) -> Option<&Node<'a>> {
        Object::get(self, key)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Node<'a>> {
        self.position(key).and_then(|i| self.members[i].1.as_mut())
    }

    fn insert(&mut self, key: &str, v: Node<'a>) {
        if let Some(i) = self.position(key) {
            self.members[i].1 = Some(v);
            return;
        }
        let tail_ends_before = |o: &Self| o.members[o.sorted..].last().is_none_or(|(k, _)| k.as_ref() < key);
        if !tail_ends_before(self) {
            self.merge_runs();
        }
        self.members.push((Cow::Owned(key.to_string()), Some(v)));
    }

    fn remove(&mut self, key: &str) -> Option<Node<'a>> {
        let i = self.position(key)?;
        self.members[i].1.take()
    }

    fn retain_members(&mut self, mut keep: impl FnMut(&str, &mut Node<'a>) -> bool) {
        for (k, slot) in &mut self.members {
            if let Some(v) = slot
                && !keep(k, v)
            {
                *slot = None;
            }
        }
    }

    fn from_entries(entries: Vec<(String, Node<'a>)>) -> Self {
        Object::from_members(entries.into_iter().map(|(k, v)| (Cow::Owned(k), Some(v))).collect())
    }

    fn get_key_value(&self, key: &str) -> Option<(&str, &Node<'a>)> {
        let (k, v) = self.position(key).map(|i| &self.members[i])?;
        Some((k, v.as_ref()?))
    }

    fn filter_map_members(&self, mut f: impl FnMut(&str, &Node<'a>) -> Option<Node<'a>>) -> Self {
        // The kept members, in key order: one sorted run, keys shared. (Room
        // for all: collecting a filter would start at four members, while
        // most objects kept have one or two.)
        let (head, tail) = self.members.split_at(self.sorted);
        let mut members: Vec<Member<'a>> = Vec::with_capacity(self.members.len());
        members.extend(MergeRuns { head, tail }.filter_map(|(k, v)| Some((k.clone(), Some(f(k, v.as_ref()?)?)))));
        Object { sorted: members.len(), members }
    }

    fn pick(&self, keys: &[&str]) -> Self {
        // An object the size of its keys: the diff of a long list keeps one
        // such object per element.
        let mut members: Vec<Member<'a>> = Vec::with_capacity(keys.len());
        for &key in keys {
            if let Some(i) = self.position(key)
                && let (k, Some(v)) = &self.members[i]
                && !members.iter().any(|(kept, _)| kept == k)
            {
                members.push((k.clone(), Some(v.clone())));
            }
        }
        sort_members(&mut members);
        Object { sorted: members.len(), members }
    }

    fn members<'s>(&'s self) -> impl Iterator<Item = (&'s str, &'s Node<'a>)>
    where
        Node<'a>: 's,
    {
        self.iter()
    }

    fn to_json_map(&self) -> Map<String, Value> {
        self.json_map()
    }
}

impl<'a> Document for Node<'a> {
    type Object = Object<'a>;

    fn kind(&self) -> GoKind {
        match self {
            Node::Raw(lazy) => match lazy.text.as_bytes()[0] {
                b'[' => GoKind::Array,
                b'"' => GoKind::String,
                _ => GoKind::Object,
            },
            Node::Null => GoKind::Null,
            Node::Bool(_) => GoKind::Bool,
            Node::Int(_) => GoKind::Int,
            Node::Float(_) => GoKind::Float,
            Node::Str(_) => GoKind::String,
            Node::Array(_) => GoKind::Array,
            Node::Object(_) => GoKind::Object,
        }
    }

    fn from_json(v: Value) -> Self {
        match v {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(b),
            Value::Number(n) => number(&n),
            Value::String(s) => Node::Str(Cow::Owned(s)),
            Value::Array(a) => Node::Array(a.into_iter().map(Node::from_json).collect()),
            Value::Object(m) => {
                // A `Map` iterates in key order: the members are one sorted run.
                let members: Vec<_> = m.into_iter().map(|(k, v)| (Cow::Owned(k), Some(Node::from_json(v)))).collect();
                Node::Object(Object { sorted: members.len(), members })
            }
        }
    }

    fn to_json(&self) -> Value {
        self.json()
    }

    fn into_json(self) -> Value {
        match self {
            Node::Str(s) => Value::String(s.into_owned()),
            Node::Raw(lazy) => lazy.into_decoded().into_json(),
            Node::Array(a) => Value::Array(a.into_iter().map(Node::into_json).collect()),
            other => other.to_json(),
        }
    }

    fn into_object(self) -> Result<Object<'a>, Self> {
        match self {
            Node::Object(o) => Ok(o),
            Node::Raw(lazy) => match lazy.into_decoded() {
                Node::Object(o) => Ok(o),
                other => Err(other),
            },
            other => Err(other),
        }
    }

    fn into_object_for(self, patch: &Object<'a>) -> Result<Object<'a>, Self> {
        match self {
            Node::Raw(lazy) if lazy.text.starts_with('{') => Ok(lazy.into_decoded_for(patch)),
            other => other.into_object(),
        }
    }

    fn into_array(self) -> Result<Vec<Self>, Self> {
        match self {
            Node::Array(a) => Ok(a),
            Node::Raw(lazy) => match lazy.into_decoded() {
                Node::Array(a) => Ok(a),
                other => Err(other),
            },
            other => Err(other),
        }
    }

    fn object(m: Object<'a>) -> Self {
        Node::Object(m)
    }

    fn array(a: Vec<Self>) -> Self {
        Node::Array(a)
    }

    fn field<'e>(&'e self, name: &str) -> Field<KeyValue<'e>> {
        match self {
            Node::Object(o) => o.get(name).map_or(Field::Missing, |v| Field::Value(v.as_member())),
            Node::Raw(lazy) => lazy.field(name),
            _ => Field::NotObject,
        }
    }

    fn as_member(&self) -> KeyValue<'_> {
        self.member()
    }

    fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(o) => Some(o),
            Node::Raw(lazy) => match lazy.decoded() {
                Node::Object(o) => Some(o),
                _ => None,
            },
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Self]> {
        match self {
            Node::Array(a) => Some(a),
            Node::Raw(lazy) => match lazy.decoded() {
                Node::Array(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        Node::as_str(self)
    }

    fn deep_eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Node::Object(a), Node::Object(b)) => objects_deep_eq::<Self>(a, b),
            (Node::Array(a), Node::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(v, w)| v.deep_eq(w)),
            // The common scalars, as Go's `==` compares them, without
            // building their keys.
            (Node::Str(a), Node::Str(b)) => same_text(a, b),
            (Node::Int(a), Node::Int(b)) => a == b,
            (Node::Bool(a), Node::Bool(b)) => a == b,
            (Node::Null, Node::Null) => true,
            _ => self.deep_eq_other(other),
        }
    }

    fn same_at_a_glance(&self, other: &Self) -> bool {
        match (self, other) {
            // The same text is the same value, canonical or not.
            (Node::Raw(a), Node::Raw(b)) => a.text == b.text,
            _ => false,
        }
    }

    fn pick(&self, keys: &[&str]) -> Object<'a> {
        match self {
            Node::Raw(lazy) if lazy.node().is_null() && lazy.is_canonical() && lazy.text.starts_with('{') => {
                lazy.pick(keys)
            }
            _ => self.as_object().map(|o| o.pick(keys)).unwrap_or_default(),
        }
    }
}

impl Node<'_> {
    /// [`Document::deep_eq`] of the pairs that are neither of the same
    /// common kind nor the same list or object.
    #[inline(never)]
    fn deep_eq_other(&self, other: &Self) -> bool {
        match (self, other) {
            (Node::Raw(a), Node::Raw(b)) => a.same_value(b),
            (Node::Raw(_), _) | (_, Node::Raw(_)) => self.decoded().deep_eq(other.decoded()),
            (Node::Object(_) | Node::Array(_), _) | (_, Node::Object(_) | Node::Array(_)) => false,
            // Scalars compare as Go's `==` on what the reference decoded.
            (a, b) => a.as_member().go_eq(b.as_member()) == Some(true),
        }
    }
}

impl Lazy<'_> {
    /// Whether the two values are equal: at once when their texts are the
    /// same, or are both canonical.
    fn same_value(&self, other: &Lazy<'_>) -> bool {
        if self.text == other.text {
            return true;
        }
        !(self.is_canonical() && other.is_canonical()) && self.decoded().deep_eq(other.decoded())
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Int(i) => s.serialize_i64(*i),
            Node::Float(f) => s.serialize_f64(*f),
            Node::Str(x) => s.serialize_str(x),
            Node::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Node::Object(o) => o.serialize(s),
            Node::Raw(lazy) => lazy.serialize(s),
        }
    }
}

impl Serialize for Lazy<'_> {
    /// Decoded for the writer only, unless it was decoded before: writing
    /// out a large document kept as text holds one value of it at a time.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let cached = self.node();
        if cached.is_null() {
            self.decode().serialize(s)
        } else {
            // SAFETY: a box this value owns (see `decoded`).
            unsafe { &*cached }.serialize(s)
        }
    }
}

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}
