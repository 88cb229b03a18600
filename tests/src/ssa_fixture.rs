//! Reading the server-side apply fixtures (`tests/fixtures/ssa`) and
//! judging an answer against the reference's: objects by value,
//! `metadata.managedFields` entry by entry, conflicts as sets, errors by
//! kind.

use crate::json_cmp::first_difference;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The fixtures folder.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("ssa")
}

/// The lines of a fixture file.
pub fn load(file: &str) -> Vec<Value> {
    let path = dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

/// The conflicts of an answer, as (manager, field) pairs.
fn conflicts(answer: &Value) -> Option<BTreeSet<(String, String)>> {
    let list = answer.get("conflicts")?.as_array()?;
    let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Some(list.iter().map(|c| (text(c, "manager"), text(c, "field"))).collect())
}

fn without_managed_fields(object: &Value) -> (Value, Value) {
    let mut rest = object.clone();
    let mf = rest
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
        .and_then(|m| m.remove("managedFields"))
        .unwrap_or(Value::Null);
    (rest, mf)
}

/// Why `got` is not the reference's `expected` answer (both in the output
/// form of the batch contract), or `None` when it is.
pub fn mismatch(expected: &Value, got: &Value) -> Option<String> {
    match (expected.get("result"), got.get("result")) {
        (Some(want), Some(have)) => {
            let (want_obj, want_mf) = without_managed_fields(want);
            let (have_obj, have_mf) = without_managed_fields(have);
            if let Some(d) = first_difference(&have_obj, &want_obj) {
                return Some(format!("object differs at {d} (ours vs the reference's)"));
            }
            (have_mf != want_mf).then(|| format!("managedFields differ:\n  ours: {have_mf}\n  want: {want_mf}"))
        }
        (Some(_), None) => Some(format!("the reference succeeds, we fail: {got}")),
        (None, Some(_)) => Some(format!("the reference fails ({expected}), we succeed")),
        (None, None) => {
            let (want, have) = (conflicts(expected), conflicts(got));
            (want != have).then(|| format!("conflicts differ: ours {have:?}, the reference's {want:?} ({expected})"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mismatch;
    use serde_json::json;

    #[test]
    fn a_mismatch_is_seen_where_it_is() {
        let obj = |t: &str, replicas: f64| json!({"result": {"metadata": {"managedFields": [{"manager": "a", "time": t}]}, "spec": {"replicas": replicas}}});
        assert_eq!(mismatch(&obj("t1", 1.0), &obj("t1", 1.0)), None);
        assert!(mismatch(&obj("t1", 1.0), &obj("t2", 1.0)).unwrap().contains("managedFields differ"));
        assert!(mismatch(&obj("t1", 1.0), &obj("t1", 2.0)).unwrap().contains("$.spec.replicas"));
        let conflict = |m: &str| json!({"error": "x", "conflicts": [{"manager": m, "field": ".a"}, {"manager": "z", "field": ".b"}]});
        assert_eq!(mismatch(&conflict("a"), &conflict("a")), None);
        assert!(mismatch(&conflict("a"), &conflict("b")).is_some());
        assert!(mismatch(&conflict("a"), &obj("t1", 1.0)).is_some());
        assert_eq!(mismatch(&json!({"error": "ours"}), &json!({"error": "theirs"})), None);
    }
}
