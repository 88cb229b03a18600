//! Numbers written as the reference's JSON encoder writes them: a float
//! with an integral value has no fraction (`1`, not `1.0`), exponents are
//! used below 1e-6 and from 1e21 on, with a sign (`1e+21`, `1e-7`).

use serde_json::Number;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::io::{self, Write};

/// `f` as Go's `encoding/json` writes a float64.
pub fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        return match exponent.strip_prefix('-') {
            Some(negative) => format!("{mantissa}e-{negative}"),
            None => format!("{mantissa}e+{exponent}"),
        };
    }
    // Shortest digits that read back as `f`, without an exponent.
    format!("{f}")
}

/// A JSON number as the reference writes it.
pub fn write_go_number(out: &mut String, n: &Number) {
    match n.as_f64().filter(|_| n.is_f64()) {
        Some(f) => out.push_str(&go_float(f)),
        None => out.push_str(&n.to_string()),
    }
}

/// serde_json's formatter, with floats as the reference writes them.
pub struct GoFloats<F>(pub F);

/// Indented JSON.
pub fn pretty() -> GoFloats<PrettyFormatter<'static>> {
    GoFloats(PrettyFormatter::new())
}

/// JSON on one line.
pub fn compact() -> GoFloats<CompactFormatter> {
    GoFloats(CompactFormatter)
}

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
    fn the_formatter_writes_go_floats() {
        let value = serde_json::json!({"a": [1.0, 2, 1e21, "1.0"]});
        let mut out = Vec::new();
        serde::Serialize::serialize(&value, &mut serde_json::Serializer::with_formatter(&mut out, compact())).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":[1,2,1e+21,"1.0"]}"#);
    }
}
