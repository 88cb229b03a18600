//! The Go reference's view of JSON values.
//!
//! The reference decodes integral literals to `int64` and everything else to
//! `float64`, and it compares values in three different ways (`==`, `fmt %v`
//! strings and `reflect.DeepEqual`). Each of those is reproduced here once.

use serde_json::{Map, Number, Value};
use std::fmt::Write as _;

/// The dynamic type the reference sees for a decoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoKind {
    Object,
    Array,
    String,
    Int,
    Float,
    Bool,
    Null,
}

impl GoKind {
    pub fn of(v: &Value) -> GoKind {
        match v {
            Value::Object(_) => GoKind::Object,
            Value::Array(_) => GoKind::Array,
            Value::String(_) => GoKind::String,
            Value::Number(n) if n.is_i64() => GoKind::Int,
            Value::Number(_) => GoKind::Float,
            Value::Bool(_) => GoKind::Bool,
            Value::Null => GoKind::Null,
        }
    }

    /// The Go type name, as printed by `reflect.TypeOf(x)` with `%s`.
    pub fn go_type_name(self) -> &'static str {
        match self {
            GoKind::Object => "map[string]interface {}",
            GoKind::Array => "[]interface {}",
            GoKind::String => "string",
            GoKind::Int => "int64",
            GoKind::Float => "float64",
            GoKind::Bool => "bool",
            GoKind::Null => "%!s(<nil>)",
        }
    }
}

/// A scalar as a hashable key with the identity of Go's `==`: `1`, `1.0`
/// and `"1"` are three different keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKey<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// Bits of the float, with `-0.0` folded into `0.0` as `==` does.
    Float(u64),
    Str(&'a str),
}

impl<'a> ScalarKey<'a> {
    /// The key of a scalar; `None` for objects and arrays, which Go cannot
    /// compare or hash (the reference panics where it tries).
    pub fn of(v: &'a Value) -> Option<ScalarKey<'a>> {
        Some(match v {
            Value::Null => ScalarKey::Null,
            Value::Bool(b) => ScalarKey::Bool(*b),
            Value::Number(n) => number_key(n),
            Value::String(s) => ScalarKey::Str(s),
            Value::Object(_) | Value::Array(_) => return None,
        })
    }
}

fn number_key(n: &Number) -> ScalarKey<'static> {
    match n.as_i64() {
        Some(i) => ScalarKey::Int(i),
        None => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            ScalarKey::Float(if f == 0.0 { 0 } else { f.to_bits() })
        }
    }
}

/// Go's `==` on two decoded values. `None` where Go panics: both sides are
/// objects, or both are arrays. The tests' oracle: the engine compares
/// members as `doc::member::KeyValue::go_eq` does.
#[cfg(test)]
pub fn go_eq(a: &Value, b: &Value) -> Option<bool> {
    match (ScalarKey::of(a), ScalarKey::of(b)) {
        (Some(x), Some(y)) => Some(x == y),
        _ if GoKind::of(a) == GoKind::of(b) => None,
        _ => Some(false),
    }
}

/// `reflect.DeepEqual` on decoded values: structural, with int64 ≠ float64.
pub fn deep_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| deep_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| deep_eq(v, w)),
        _ => match (ScalarKey::of(a), ScalarKey::of(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// The value as Go's `fmt` prints it with `%v`.
pub fn fmt_v(v: &Value) -> String {
    let mut s = String::new();
    write_v(&mut s, v);
    s
}

/// A list of values as Go prints a `[]interface{}` with `%v`.
pub fn fmt_v_list(items: &[Value]) -> String {
    let mut s = String::from("[");
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        write_v(&mut s, v);
    }
    s.push(']');
    s
}

/// A map as Go prints a `map[string]interface{}` with `%v`.
pub fn fmt_v_map(m: &Map<String, Value>) -> String {
    let mut s = String::new();
    write_map(&mut s, m);
    s
}

/// The keys of a map, sorted, as Go prints a map's (and encodes it).
fn sorted_keys(m: &Map<String, Value>) -> Vec<&str> {
    let mut keys: Vec<&str> = m.keys().map(String::as_str).collect();
    // Keys are distinct: any sort is the stable one.
    keys.sort_unstable();
    keys
}

fn write_map(s: &mut String, m: &Map<String, Value>) {
    let keys = sorted_keys(m);
    s.push_str("map[");
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(k);
        s.push(':');
        write_v(s, &m[k]);
    }
    s.push(']');
}

fn write_v(s: &mut String, v: &Value) {
    match v {
        Value::Null => s.push_str("<nil>"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::String(x) => s.push_str(x),
        Value::Number(n) => match n.as_i64() {
            Some(i) => {
                let _ = write!(s, "{i}");
            }
            None => s.push_str(&fmt_float_g(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::Array(a) => s.push_str(&fmt_v_list(a)),
        Value::Object(m) => write_map(s, m),
    }
}

/// The value as Go prints it with `%s`: strings raw, other scalars in Go's
/// "bad verb" form such as `%!s(int64=1)`, and maps and lists with `%s`
/// applied to their elements (`map[a:%!s(int64=1)]`).
pub fn fmt_s(v: &Value) -> String {
    let mut s = String::new();
    write_s(&mut s, v);
    s
}

fn write_s(s: &mut String, v: &Value) {
    match v {
        Value::String(x) => s.push_str(x),
        Value::Null => s.push_str("%!s(<nil>)"),
        Value::Array(a) => {
            s.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                write_s(s, x);
            }
            s.push(']');
        }
        Value::Object(m) => {
            let keys = sorted_keys(m);
            s.push_str("map[");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                s.push_str(k);
                s.push(':');
                write_s(s, &m[k]);
            }
            s.push(']');
        }
        _ => {
            let _ = write!(s, "%!s({}={})", GoKind::of(v).go_type_name(), fmt_v(v));
        }
    }
}

/// Shortest round-trip digits and decimal exponent of a finite float:
/// `1234.5` gives (`"12345"`, 3).
fn shortest_digits(f: f64) -> (String, i32) {
    let e = format!("{:e}", f.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    (mant.replace('.', ""), exp.parse().unwrap_or(0))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses.
pub fn fmt_float_g(f: f64) -> String {
    if !f.is_finite() {
        return format!("{f}");
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let (_, exp) = shortest_digits(f);
    if !(-4..21).contains(&exp) || exp >= 6 { fmt_float_e(f) } else { fmt_float_f(f) }
}

/// Go's `strconv.FormatFloat(f, 'e', -1, 64)`: `1.5e+06`, `1e-07`.
fn fmt_float_e(f: f64) -> String {
    let (digits, exp) = shortest_digits(f);
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    let _ = write!(s, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    s
}

/// Go's `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, no exponent.
fn fmt_float_f(f: f64) -> String {
    let (digits, exp) = shortest_digits(f);
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-point) as usize));
        s.push_str(&digits);
    } else if point as usize >= digits.len() {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// `f` as Go's `encoding/json` writes a float64: a float with an integral
/// value has no fraction (`1`, not `1.0`), exponents are used below 1e-6
/// and from 1e21 on, with a sign (`1e+21`, `1e-7`).
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

/// The integer Go's decoder reads back from the text its encoder writes
/// for the float64 `f`: `5.0` is written `5`, `-0.0` `-0` (read as 0), and
/// a large float with its shortest digits (2^60 as `1152921504606847000`,
/// not its exact value). `None` where that text is no integer (a fraction;
/// an exponent, from 1e21 on) or fits neither `int64` nor `uint64`.
///
/// The one statement of Go's whole-float rule: the typed layer reads a
/// patched float into an integer field with it, the CLI reads objects back
/// as kubectl does with it.
pub fn go_integer(f: f64) -> Option<serde_json::Number> {
    if f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    let text = go_float(f);
    match text.parse::<i64>() {
        Ok(i) => Some(i.into()),
        Err(_) => text.parse::<u64>().ok().map(Into::into),
    }
}

/// The value as Go's `encoding/json.Marshal` writes it: sorted keys, no
/// whitespace, `<`, `>` and `&` escaped, Go's float spelling.
pub fn to_go_json(v: &Value) -> String {
    let mut s = String::new();
    write_go_json(&mut s, v);
    s
}

fn write_go_json(s: &mut String, v: &Value) {
    match v {
        Value::Null => s.push_str("null"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(i) => {
                let _ = write!(s, "{i}");
            }
            None => s.push_str(&go_float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(x) => write_go_string(s, x),
        Value::Array(a) => {
            s.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write_go_json(s, x);
            }
            s.push(']');
        }
        Value::Object(m) => {
            let keys = sorted_keys(m);
            s.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write_go_string(s, k);
                s.push(':');
                write_go_json(s, &m[k]);
            }
            s.push('}');
        }
    }
}

/// Go's `encoding/json` text of a string: HTML characters escaped, as
/// the reference's JSON writer does (server-side apply's field sets).
#[cfg_attr(not(feature = "ssa"), allow(dead_code))]
pub(crate) fn go_json_string(x: &str) -> String {
    let mut s = String::with_capacity(x.len() + 2);
    write_go_string(&mut s, x);
    s
}

fn write_go_string(s: &mut String, x: &str) {
    s.push('"');
    for c in x.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            // Go's encoder writes these two short since Go 1.22, which
            // builds every kubectl here (1.27 to 1.33 alike).
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// Go's `%q` of a string (`strconv.Quote`): printable characters stay,
/// the others are escaped (`\x` below 0x80, `\u`, `\U` beyond 0xFFFF).
pub(crate) fn go_quote(x: &str) -> String {
    let mut s = String::with_capacity(x.len() + 2);
    s.push('"');
    for c in x.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\u{7}' => s.push_str("\\a"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '\u{b}' => s.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(s, "\\x{:02x}", c as u32);
            }
            c if !go_printable(c) && (c as u32) < 0x10000 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c if !go_printable(c) => {
                let _ = write!(s, "\\U{:08x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Go's `unicode.IsPrint` for the characters that occur in field names
/// and keys: controls, separators other than the ASCII space, and the
/// common format characters are not printable.
fn go_printable(c: char) -> bool {
    !(c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
}

/// Decodes a document as the reference does: integers that do not fit an
/// `int64` become floats.
pub fn normalize_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_f64() => {
            if let Some(f) = n.as_f64().and_then(Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalize_numbers),
        Value::Object(m) => m.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Go's `strconv.Quote` on controls, separators and printable text
    /// (as Go 1.27 prints them).
    #[test]
    fn go_quote_escapes_what_go_does_not_print() {
        assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(go_quote("\u{7}\u{8}\u{c}\n\r\t\u{b}"), r#""\a\b\f\n\r\t\v""#);
        assert_eq!(go_quote("\u{1}\u{7f}"), r#""\x01\x7f""#);
        assert_eq!(go_quote("a\u{a0}b\u{feff}\u{2028}"), r#""a\u00a0b\ufeff\u2028""#);
        assert_eq!(go_quote("é ü 😀 <>&"), r#""é ü 😀 <>&""#);
        assert_eq!(go_json_string("<é>\u{8}"), r#""\u003cé\u003e\b""#);
    }

    #[test]
    fn go_v_formatting_of_floats() {
        let cases = [
            (100000.0, "100000"),
            (999999.0, "999999"),
            (123456.5, "123456.5"),
            (1.5, "1.5"),
            (0.0001, "0.0001"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (1e20, "1e+20"),
            (1.234e-5, "1.234e-05"),
        ];
        for (f, want) in cases {
            assert_eq!(fmt_float_g(f), want, "{f}");
        }
    }

    #[test]
    fn go_json_formatting_of_floats() {
        assert_eq!(go_float(1.7976931348623157e308), "1.7976931348623157e+308");
        assert_eq!(go_float(1e-7), "1e-7");
        assert_eq!(go_float(1e20), "100000000000000000000");
        assert_eq!(go_float(3.4028234663852886e38), "3.4028234663852886e+38");
        assert_eq!(go_float(0.5), "0.5");
        // The sign of a zero is written, as `strconv.FormatFloat` writes it.
        assert_eq!(go_float(-0.0), "-0");
        assert_eq!(to_go_json(&json!([-0.0, 0.0, 1e21, -1e-7])), "[-0,0,1e+21,-1e-7]");
    }

    #[test]
    fn whole_floats_read_back_as_the_integers_go_writes() {
        let read = |f: f64| go_integer(f).map(|n| n.to_string());
        assert_eq!(read(5.0).as_deref(), Some("5"));
        assert_eq!(read(-0.0).as_deref(), Some("0"));
        // Go writes the shortest digits that read back as the float, so
        // large whole floats are not read back as their exact values.
        assert_eq!(read(2f64.powi(60)).as_deref(), Some("1152921504606847000"));
        assert_eq!(read(2f64.powi(63) - 1024.0).as_deref(), Some("9223372036854775000"));
        // 2^63 is written 9223372036854776000: a uint64, and no int64 when
        // negative.
        assert_eq!(read(2f64.powi(63)).as_deref(), Some("9223372036854776000"));
        for f in [0.5, 1e21, -(2f64.powi(63)), -1e19, 2e19, f64::NAN, f64::INFINITY] {
            assert_eq!(read(f), None, "{f}");
        }
    }

    #[test]
    fn go_json_escapes_strings_as_kubectl_writes_them() {
        // As `kubectl create configmap --dry-run=client -o json` writes
        // them (short escapes for backspace and form feed, HTML characters
        // and line separators as `\u`, other control characters in
        // lowercase hex), keys sorted.
        let v = json!({"k": "a\u{8}b\u{c}c\n\r\t\"\\<>&\u{2028}\u{2029}\u{1}\u{1f}\u{7f}é", "a": 1});
        let want = concat!(r#"{"a":1,"k":"a\bb\fc\n\r\t\"\\\u003c\u003e\u0026\u2028\u2029\u0001\u001f"#, "\u{7f}é\"}");
        assert_eq!(to_go_json(&v), want);
    }

    #[test]
    fn v_formatting_of_maps_sorts_keys() {
        let v = json!({"value": "b", "name": 1, "l": [1, "a", null]});
        assert_eq!(fmt_v(&v), "map[l:[1 a <nil>] name:1 value:b]");
        assert_eq!(fmt_s(&json!(1)), "%!s(int64=1)");
        assert_eq!(
            fmt_s(&json!({"b": [1, "x", null], "a": 1.5})),
            "map[a:%!s(float64=1.5) b:[%!s(int64=1) x %!s(<nil>)]]"
        );
    }

    #[test]
    fn go_equality_distinguishes_int_and_float() {
        assert_eq!(go_eq(&json!(1), &json!(1.0)), Some(false));
        assert_eq!(go_eq(&json!(1), &json!("1")), Some(false));
        assert_eq!(go_eq(&json!({}), &json!({})), None);
        assert_eq!(go_eq(&json!({}), &json!("a")), Some(false));
        assert!(!deep_eq(&json!([0]), &json!([0.0])));
    }
}
