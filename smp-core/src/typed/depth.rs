//! The engine's depth limit on typed values: a value whose JSON form nests
//! deeper than the JSON engine accepts is refused before any recursive step
//! (`PartialEq`, the typed walk, serialisation) touches it.
//!
//! The walk follows the value's structure and looks only where its type
//! does not bound the depth (`typed/facts.rs`): below a field of arbitrary
//! JSON or of a recursive type. Values of types the walk cannot see into
//! (arbitrary JSON, opaque serde forms) are measured by a serde serializer
//! that builds nothing and stops at the limit, so the stack it uses is
//! bounded too.

use super::StrategicMerge;
use super::walk::FieldValue;
use crate::engine::MAX_DEPTH;
use crate::error::{ErrorKind, Result};
use crate::schema::Shape;
use serde::Serialize;
use serde::ser;
use std::fmt;

/// Refuses `value` if its JSON form is nested deeper than the JSON engine
/// accepts, with the engine's error.
pub fn check_depth<T: StrategicMerge>(value: &T) -> Result<()> {
    if value.__depth_ok(0) { Ok(()) } else { Err(ErrorKind::TooDeep(MAX_DEPTH).into()) }
}

/// Whether the JSON form of `value`, written inside `open` levels of
/// objects and lists, stays within [`MAX_DEPTH`] (a failure of its
/// `Serialize` is reported where the value is used).
pub(crate) fn probe_ok<T: Serialize + ?Sized>(value: &T, open: usize) -> bool {
    !matches!(value.serialize(Probe { depth: open }), Err(ProbeError::TooDeep))
}

/// Whether the elements of a list (or the values of a map) of a type of
/// schema `shape`, inside `open` levels, stay within [`MAX_DEPTH`]: the
/// list opens one more.
pub(crate) fn elements_ok(shape: Shape, elements: &mut dyn Iterator<Item = &dyn FieldValue>, open: usize) -> bool {
    let inner = open + 1;
    if inner > MAX_DEPTH {
        return false;
    }
    if let Some(d) = super::facts::depth(shape)
        && inner + d <= MAX_DEPTH
    {
        return true;
    }
    for e in elements {
        if !e.depth_ok(inner) {
            return false;
        }
    }
    true
}

#[derive(Debug)]
enum ProbeError {
    TooDeep,
    Custom,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeError::TooDeep => "too deep",
            ProbeError::Custom => "cannot serialize",
        })
    }
}

impl std::error::Error for ProbeError {}

impl ser::Error for ProbeError {
    fn custom<M: fmt::Display>(_: M) -> Self {
        ProbeError::Custom
    }
}

/// A serializer that only follows the nesting of serde_json's output:
/// objects and arrays open a level (an enum variant with content is an
/// object around it).
#[derive(Clone, Copy)]
struct Probe {
    depth: usize,
}

impl Probe {
    fn open(self, levels: usize) -> Result<Probe, ProbeError> {
        let depth = self.depth + levels;
        if depth > MAX_DEPTH { Err(ProbeError::TooDeep) } else { Ok(Probe { depth }) }
    }
}

macro_rules! scalars {
    ($($method:ident: $t:ty),* $(,)?) => {$(
        fn $method(self, _: $t) -> Result<(), ProbeError> {
            Ok(())
        }
    )*};
}

impl ser::Serializer for Probe {
    type Ok = ();
    type Error = ProbeError;
    type SerializeSeq = Probe;
    type SerializeTuple = Probe;
    type SerializeTupleStruct = Probe;
    type SerializeTupleVariant = Probe;
    type SerializeMap = Probe;
    type SerializeStruct = Probe;
    type SerializeStructVariant = Probe;

    scalars!(
        serialize_bool: bool,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_char: char,
        serialize_str: &str,
        serialize_bytes: &[u8],
        serialize_unit_struct: &'static str,
    );

    fn serialize_none(self) -> Result<(), ProbeError> {
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), ProbeError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), ProbeError> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), ProbeError> {
        Ok(())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), ProbeError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), ProbeError> {
        value.serialize(self.open(1)?)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Probe, ProbeError> {
        self.open(1)
    }

    fn serialize_tuple(self, _: usize) -> Result<Probe, ProbeError> {
        self.open(1)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Probe, ProbeError> {
        self.open(1)
    }

    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Probe, ProbeError> {
        self.open(2)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Probe, ProbeError> {
        self.open(1)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Probe, ProbeError> {
        self.open(1)
    }

    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Probe, ProbeError> {
        self.open(2)
    }
}

impl ser::SerializeSeq for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeTuple for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeMap for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), ProbeError> {
        // serde_json keys are strings.
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeStruct for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &'static str, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Probe {
    type Ok = ();
    type Error = ProbeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &'static str, value: &T) -> Result<(), ProbeError> {
        value.serialize(*self)
    }
    fn end(self) -> Result<(), ProbeError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};

    fn nested(depth: usize) -> Value {
        let mut v = json!(1);
        for _ in 0..depth {
            let mut m = Map::new();
            m.insert("a".into(), v);
            v = Value::Object(m);
        }
        v
    }

    #[test]
    fn the_probe_agrees_with_the_engine_limit() {
        for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let v = nested(depth);
            let engine = crate::engine::check_nesting(&v).is_ok();
            assert_eq!(check_depth(&v).is_ok(), engine, "depth {depth}");
            assert_eq!(engine, depth <= MAX_DEPTH);
        }
    }
}
