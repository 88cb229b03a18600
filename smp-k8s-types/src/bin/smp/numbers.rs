//! Numbers written as the reference's JSON encoder writes them (the
//! writer of `smp_core::bytes`): a float with an integral value has no
//! fraction (`1`, not `1.0`), exponents are used below 1e-6 and from 1e21
//! on, with a sign (`1e+21`, `1e-7`).

use serde_json::Number;
use serde_json::ser::PrettyFormatter;
use smp_core::bytes::GoFloats;
pub use smp_core::bytes::go_float;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formatter_writes_go_floats() {
        let value = serde_json::json!({"a": [1.0, 2, 1e21, "1.0"]});
        let mut out = Vec::new();
        serde::Serialize::serialize(
            &value,
            &mut serde_json::Serializer::with_formatter(&mut out, smp_core::bytes::compact()),
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":[1,2,1e+21,"1.0"]}"#);
        let mut text = String::new();
        write_go_number(&mut text, &Number::from_f64(1e-7).unwrap());
        assert_eq!(text, "1e-7");
    }
}
