//! A member of a document as the patch algorithms read it: a scalar,
//! borrowed from a typed value or from JSON, or a nested value, with Go's
//! `==` and `%v` on it; and the field of an element, or why there is none.

use crate::value::{ScalarKey, fmt_float_g, fmt_v};
use serde_json::Value;
use std::borrow::Cow;

/// One merge-key field's value, borrowed from a typed element or a JSON
/// value. Typed elements give the scalar they hold; JSON gives itself.
#[derive(Clone, Copy, Debug)]
pub enum KeyValue<'a> {
    /// JSON `null` (an `Option` that is `None`).
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (beyond `i64::MAX` Go decodes it as a float).
    Uint(u64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'a str),
    /// A JSON value as it is (the JSON engine, or a `serde_json::Value` field).
    Json(&'a Value),
    /// An object or a list of the compact document (its scalars are given
    /// as the variants above).
    Compact(&'a crate::doc::compact::Node<'a>),
}

/// What Go's `==` says of a key: a hashable scalar, or a map or a list,
/// which it cannot compare (the reference panics where it tries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Identity<'a> {
    Scalar(ScalarKey<'a>),
    Object,
    Array,
}

impl<'a> KeyValue<'a> {
    /// Whether the value is `null`, however it is held.
    pub fn is_null(self) -> bool {
        matches!(self.identity(), Identity::Scalar(ScalarKey::Null))
    }

    pub(crate) fn identity(self) -> Identity<'a> {
        let float = |f: f64| ScalarKey::Float(if f == 0.0 { 0 } else { f.to_bits() });
        Identity::Scalar(match self {
            KeyValue::Null => ScalarKey::Null,
            KeyValue::Bool(b) => ScalarKey::Bool(b),
            KeyValue::Int(i) => ScalarKey::Int(i),
            KeyValue::Uint(u) => i64::try_from(u).map_or_else(|_| float(u as f64), ScalarKey::Int),
            KeyValue::Float(f) => float(f),
            KeyValue::Str(s) => ScalarKey::Str(s),
            KeyValue::Json(v) => match ScalarKey::of(v) {
                Some(k) => k,
                None if v.is_object() => return Identity::Object,
                None => return Identity::Array,
            },
            KeyValue::Compact(v) => match v.member() {
                KeyValue::Compact(crate::doc::compact::Node::Object(_)) => return Identity::Object,
                KeyValue::Compact(_) => return Identity::Array,
                scalar => return scalar.identity(),
            },
        })
    }

    /// The key Go's `==` and hashing see, for a scalar; `None` for a map
    /// or a list.
    pub fn scalar(self) -> Option<ScalarKey<'a>> {
        match self.identity() {
            Identity::Scalar(s) => Some(s),
            Identity::Object | Identity::Array => None,
        }
    }

    /// The string, if the value is one.
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            KeyValue::Str(s) => Some(s),
            KeyValue::Json(v) => v.as_str(),
            _ => None,
        }
    }

    /// Go's `%v` text, by which the reference's diff pairs elements.
    pub fn text(self) -> Cow<'a, str> {
        match self {
            KeyValue::Str(s) => Cow::Borrowed(s),
            KeyValue::Json(Value::String(s)) => Cow::Borrowed(s),
            KeyValue::Json(v) => Cow::Owned(fmt_v(v)),
            KeyValue::Compact(v) => Cow::Owned(fmt_v(&v.json())),
            KeyValue::Null => Cow::Borrowed("<nil>"),
            KeyValue::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
            KeyValue::Int(i) => Cow::Owned(i.to_string()),
            KeyValue::Uint(u) => Cow::Owned(i64::try_from(u).map_or_else(|_| fmt_float_g(u as f64), |i| i.to_string())),
            KeyValue::Float(f) => Cow::Owned(fmt_float_g(f)),
        }
    }

    /// Go's `==` on two members; `None` where Go panics (two maps, two
    /// lists).
    pub fn go_eq(self, other: KeyValue<'_>) -> Option<bool> {
        if let (Some(a), Some(b)) = (self.as_str(), other.as_str()) {
            return Some(a == b);
        }
        match (self.identity(), other.identity()) {
            (Identity::Scalar(a), Identity::Scalar(b)) => Some(a == b),
            (Identity::Object, Identity::Object) | (Identity::Array, Identity::Array) => None,
            _ => Some(false),
        }
    }

    /// The JSON the key is written as in a patch.
    pub fn to_value(self) -> Value {
        match self {
            KeyValue::Null => Value::Null,
            KeyValue::Bool(b) => Value::Bool(b),
            KeyValue::Int(i) => i.into(),
            KeyValue::Uint(u) => u.into(),
            KeyValue::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            KeyValue::Str(s) => Value::String(s.to_string()),
            KeyValue::Json(v) => v.clone(),
            KeyValue::Compact(v) => v.json(),
        }
    }
}

/// A field of an element: its value, or why there is none.
#[derive(Clone, Debug)]
pub enum Field<V> {
    /// The element is not an object (only JSON elements can be that).
    NotObject,
    /// The object lacks the field.
    Missing,
    /// The field's value.
    Value(V),
}

impl<V> Field<V> {
    pub fn map<W>(self, f: impl FnOnce(V) -> W) -> Field<W> {
        match self {
            Field::Value(v) => Field::Value(f(v)),
            Field::Missing => Field::Missing,
            Field::NotObject => Field::NotObject,
        }
    }

    /// The value, if there is one.
    pub fn value(self) -> Option<V> {
        match self {
            Field::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// The field `name` of a JSON value.
pub fn json_field<'v>(v: &'v Value, name: &str) -> Field<KeyValue<'v>> {
    match v.as_object() {
        None => Field::NotObject,
        Some(m) => m.get(name).map_or(Field::Missing, |k| Field::Value(KeyValue::Json(k))),
    }
}
