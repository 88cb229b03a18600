//! JSON values as structured-merge-diff sees them: integers are `int64`,
//! every other number is a `float64`; ordering, equality and the text of a
//! value inside a printed path follow the reference's `value` package.

pub(crate) use crate::value::go_quote;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// A number as the reference holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    Int(i64),
    Float(f64),
}

pub(crate) fn num(n: &Number) -> Num {
    match n.as_i64() {
        Some(i) => Num::Int(i),
        None => Num::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

fn as_float(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// The reference's equality: an integer equals a float of the same value.
pub(crate) fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (num(x), num(y)) {
            (Num::Int(i), Num::Int(j)) => i == j,
            (p, q) => as_float(p) == as_float(q),
        },
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equals(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equals(v, w)))
        }
        _ => false,
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    }
}

fn float_cmp(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a == b {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

/// A hash consistent with [`equals`] and [`compare`].
pub(crate) fn hash<H: std::hash::Hasher>(v: &Value, h: &mut H) {
    h.write_u8(rank(v));
    match v {
        Value::Number(n) => {
            let f = as_float(num(n));
            h.write_u64(if f == 0.0 { 0 } else { f.to_bits() });
        }
        Value::String(s) => h.write(s.as_bytes()),
        Value::Bool(b) => h.write_u8(*b as u8),
        Value::Array(a) => {
            h.write_usize(a.len());
            a.iter().for_each(|e| hash(e, h));
        }
        Value::Object(m) => {
            h.write_usize(m.len());
            for (k, e) in m {
                h.write(k.as_bytes());
                hash(e, h);
            }
        }
        Value::Null => {}
    }
}

/// The reference's total order of values (numbers, strings, booleans,
/// lists, maps, null; floats and integers compare by value).
pub(crate) fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (num(x), num(y)) {
            (Num::Int(i), Num::Int(j)) => i.cmp(&j),
            (p, q) => float_cmp(as_float(p), as_float(q)),
        },
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                let c = compare(p, q);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            // Maps compare by their sorted entries, then by size.
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                let c = ka.as_bytes().cmp(kb.as_bytes()).then_with(|| compare(va, vb));
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Null, Value::Null) => Ordering::Equal,
        // Mixed kinds: an integer against a float was handled above.
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The server holds every number that is not an integer's text as a
/// float64 and writes an integral one without a fraction (`1.0` → `1`):
/// such floats become integers, so that the result reads as the server's.
pub(crate) fn integral_floats_as_integers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Num::Float(f) = num(n)
                && f.fract() == 0.0
                && f.abs() < 9.2e18
            {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(m) => m.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// `value.ToString`: how a key or set value appears in a printed path.
pub(crate) fn to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Number(n) => match num(n) {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => go_float(f),
        },
        Value::String(s) => go_quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(to_string).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Object(m) => m.iter().map(|(k, v)| format!("{k}={}", to_string(v))).collect(),
    }
}

/// Go's `%v` of a float64: the shortest digits, in exponent form when the
/// exponent is below -4 or at least 21.
pub(crate) fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde±x.
    let e = format!("{:e}", f);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..21).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let s = format!("{}", f);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ints_and_floats_compare_by_value() {
        assert!(equals(&json!(1), &json!(1.0)));
        assert_eq!(compare(&json!(1), &json!(1.5)), Ordering::Less);
        assert_eq!(compare(&json!(2), &json!("a")), Ordering::Less);
        assert_eq!(compare(&json!("a"), &json!(true)), Ordering::Less);
        assert_eq!(compare(&json!(null), &json!({})), Ordering::Greater);
    }

    #[test]
    fn floats_print_as_go_prints_them() {
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e20), "100000000000000000000");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_quote("a\"b\n"), "\"a\\\"b\\n\"");
    }
}
