//! The writer of the text entry points' output, for values and documents
//! of every kind: compact JSON, keys sorted, strings escaped as
//! serde_json escapes them, numbers as Go's `encoding/json` writes them.

use crate::error::{ErrorKind, Result};
use crate::value::go_float;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};
use std::io::{self, Write};

/// `value` (a `serde_json::Value` or a compact document) as compact
/// JSON text, as the functions of this module write it.
pub fn to_json_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value).map_err(|e| ErrorKind::Serialize(e.to_string()))?;
    Ok(out)
}

/// Writes `value` as compact JSON: keys sorted, strings escaped as
/// serde_json escapes them, floats as Go writes them.
pub fn write_json<W: ?Sized + Write, T: ?Sized + Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    Ok(value.serialize(&mut serde_json::Serializer::with_formatter(out, GoFloats(CompactFormatter)))?)
}

/// A serde_json formatter with floats as Go writes them ([`go_float`]):
/// `GoFloats(CompactFormatter)` on one line, `GoFloats(PrettyFormatter::new())`
/// indented.
pub struct GoFloats<F>(pub F);

macro_rules! delegate {
    ($($name:ident $(($arg:ident: $ty:ty))?;)*) => {$(
        fn $name<W: ?Sized + Write>(&mut self, writer: &mut W $(, $arg: $ty)?) -> io::Result<()> {
            self.0.$name(writer $(, $arg)?)
        }
    )*};
}

impl<F: Formatter> Formatter for GoFloats<F> {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(go_float(value).as_bytes())
    }

    delegate! {
        begin_array;
        end_array;
        begin_array_value(first: bool);
        end_array_value;
        begin_object;
        end_object;
        begin_object_key(first: bool);
        end_object_key;
        begin_object_value;
        end_object_value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_as_go_writes_them() {
        let cases = [
            (1.0, "1"),
            (-0.0, "-0"),
            (1.5, "1.5"),
            (1e3, "1000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1e300, "1e+300"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (-2.5e-7, "-2.5e-7"),
            (123456.789, "123456.789"),
        ];
        for (f, want) in cases {
            assert_eq!(go_float(f), want, "{f:e}");
        }
    }

    #[test]
    fn the_writer_sorts_keys_and_writes_go_floats() {
        let value = json!({"b": [1.0, 2, 1e21, "1.0"], "a": "<&>"});
        assert_eq!(String::from_utf8(to_json_vec(&value).unwrap()).unwrap(), r#"{"a":"<&>","b":[1,2,1e+21,"1.0"]}"#);
    }
}
