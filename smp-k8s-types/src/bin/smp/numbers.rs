//! Numbers written as the reference's JSON encoder writes them (the
//! writer of smp-core's text entry points): a float with an integral
//! value has no fraction (`1`, not `1.0`), exponents are used below 1e-6
//! and from 1e21 on, with a sign (`1e+21`, `1e-7`).

use serde_json::ser::PrettyFormatter;
use serde_json::{Number, Value};
use smp_core::unstable::GoFloats;
pub use smp_core::unstable::go_float;

/// Indented JSON as `kubectl -o json` writes it: four spaces, Go's floats.
pub fn pretty() -> GoFloats<PrettyFormatter<'static>> {
    GoFloats(PrettyFormatter::with_indent(b"    "))
}

/// A JSON number as the reference writes it.
pub fn write_go_number(out: &mut String, n: &Number) {
    match n.as_f64().filter(|_| n.is_f64()) {
        Some(f) => out.push_str(&go_float(f)),
        None => out.push_str(&n.to_string()),
    }
}

/// `value` as kubectl reads it back from the JSON Go's encoder wrote for
/// it: a float whose text has no fraction and no exponent (`-0` for
/// `-0.0`, `1152921504606847000` for 2^60) is read back as that integer
/// where it fits `int64`. kubectl does so with every object it reads from
/// a file before a patch library sees it, and with the strategic patch
/// library's output.
pub fn read_back(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(i) = n.as_f64().and_then(integer_of) {
                *n = Number::from(i);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(read_back),
        Value::Object(map) => map.values_mut().for_each(read_back),
        _ => {}
    }
}

/// The `int64` Go's decoder reads from the text Go writes for `f`, if any
/// (kubectl's objects hold `int64`s: beyond them a number stays a float).
pub fn integer_of(f: f64) -> Option<i64> {
    smp_core::unstable::go_integer(f).and_then(|n| n.as_i64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formatter_writes_go_floats() {
        let value = serde_json::json!({"a": [1.0, 2, 1e21, "1.0"]});
        let mut out = Vec::new();
        serde::Serialize::serialize(
            &value,
            &mut serde_json::Serializer::with_formatter(&mut out, GoFloats(serde_json::ser::CompactFormatter)),
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":[1,2,1e+21,"1.0"]}"#);
        let mut text = String::new();
        write_go_number(&mut text, &Number::from_f64(1e-7).unwrap());
        assert_eq!(text, "1e-7");
    }

    #[test]
    fn integral_floats_are_read_back_as_integers() {
        let two_to_60 = 1_152_921_504_606_846_976.0;
        let mut value =
            serde_json::json!({"a": [-0.0, 1.0, 1.5, two_to_60, -9.223_372_036_854_776e18, 1e20, 1e21], "b": 2});
        read_back(&mut value);
        let kinds: Vec<bool> = value["a"].as_array().unwrap().iter().map(Value::is_i64).collect();
        assert_eq!(kinds, [true, true, false, true, false, false, false], "{value}");
        assert_eq!(value["a"][0], serde_json::json!(0));
        // The integer of Go's text, not the float's exact value.
        assert_eq!(value["a"][3], serde_json::json!(1_152_921_504_606_847_000_i64));
    }
}
