//! Comparing smp's results with kubectl's output, which prints numbers by
//! value (`1.0` comes out as `1`, integers beyond int64 as rounded floats).

use serde_json::{Number, Value};

/// The first place where `a` and `b` differ, numbers compared by value, as
/// `path: a vs b`; `None` when they are equal.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    diff_at(a, b, &mut String::from("$"))
}

/// Equality with numbers compared by value.
pub fn same_value(a: &Value, b: &Value) -> bool {
    first_difference(a, b).is_none()
}

fn same_number(a: &Number, b: &Number) -> bool {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => x == y,
        // Go holds anything but an int64 as a float64.
        _ => a.as_f64() == b.as_f64(),
    }
}

fn diff_at(a: &Value, b: &Value, path: &mut String) -> Option<String> {
    let here = |path: &str| Some(format!("{path}: {a} vs {b}"));
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => (!same_number(x, y)).then(|| here(path)).flatten(),
        (Value::Array(xs), Value::Array(ys)) => {
            if xs.len() != ys.len() {
                return Some(format!("{path}: {} vs {} elements: {a} vs {b}", xs.len(), ys.len()));
            }
            for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let d = diff_at(x, y, path);
                path.truncate(len);
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        (Value::Object(xs), Value::Object(ys)) => {
            for k in xs.keys().chain(ys.keys()) {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                let d = match (xs.get(k), ys.get(k)) {
                    (Some(x), Some(y)) => diff_at(x, y, path),
                    (Some(x), None) => Some(format!("{path}: {x} vs (absent)")),
                    (None, Some(y)) => Some(format!("{path}: (absent) vs {y}")),
                    (None, None) => None,
                };
                path.truncate(len);
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        _ => (a != b).then(|| here(path)).flatten(),
    }
}
