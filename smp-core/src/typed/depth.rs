//! The engine's depth limit on typed values: a value whose JSON form nests
//! deeper than the JSON engine accepts is refused before any recursive step
//! (`PartialEq`, the typed walk, serialisation) touches it.
//!
//! Types whose schema bounds their depth below the limit need no look. The
//! others (recursive types, arbitrary JSON) are measured by a serde
//! serializer that builds nothing and stops at the limit, so the stack it
//! uses is bounded too.

use super::StrategicMerge;
use crate::engine::MAX_DEPTH;
use crate::error::{ErrorKind, Result};
use crate::schema::{Shape, StructSchema};
use serde::Serialize;
use serde::ser;
use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// Refuses `value` if its JSON form is nested deeper than the JSON engine
/// accepts, with the engine's error.
pub fn check_depth<T: StrategicMerge>(value: &T) -> Result<()> {
    if bounded(T::shape()) {
        return Ok(());
    }
    match value.serialize(Probe { depth: 0 }) {
        Err(ProbeError::TooDeep) => Err(ErrorKind::TooDeep(MAX_DEPTH).into()),
        // Other serialisation failures are reported where the value is used.
        Ok(()) | Err(ProbeError::Custom) => Ok(()),
    }
}

/// Whether every value of this schema nests at most [`MAX_DEPTH`] deep.
fn bounded(shape: Shape) -> bool {
    static CACHE: OnceLock<RwLock<HashMap<usize, bool>>> = OnceLock::new();
    let Shape::Struct(root) = shape else {
        return static_depth(shape, &mut Vec::new()).is_some_and(|d| d <= MAX_DEPTH);
    };
    let addr = root as *const StructSchema as usize;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(&known) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&addr) {
        return known;
    }
    let answer = static_depth(shape, &mut Vec::new()).is_some_and(|d| d <= MAX_DEPTH);
    cache.write().unwrap_or_else(|e| e.into_inner()).insert(addr, answer);
    answer
}

/// The deepest nesting a value of this schema can have (`None`: unbounded,
/// for recursive schemas and arbitrary JSON). `open` holds the structs being
/// measured.
fn static_depth(shape: Shape, open: &mut Vec<usize>) -> Option<usize> {
    match shape {
        Shape::Scalar => Some(0),
        Shape::Any => None,
        Shape::List(elem) | Shape::Map(elem) => Some(1 + static_depth(elem(), open)?),
        Shape::Struct(s) => {
            let addr = s as *const StructSchema as usize;
            if open.contains(&addr) || open.len() > MAX_DEPTH {
                return None;
            }
            open.push(addr);
            let mut deepest = 0;
            for f in s.fields {
                let d = static_depth((f.shape)(), open);
                // A flattened field's keys sit in this object.
                let d = if f.flatten { d.map(|d| d.saturating_sub(1)) } else { d };
                match d {
                    Some(d) => deepest = deepest.max(d),
                    None => {
                        open.pop();
                        return None;
                    }
                }
            }
            open.pop();
            Some(1 + deepest)
        }
    }
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
