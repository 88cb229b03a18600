//! Every input a fixture gives when each node in it is changed in each
//! of the ways in [`MUTATIONS`] (a null, a whole float, a value of another
//! type, a key removed or added...), and the comparison of the walker's
//! JSON reader and writer with serde's on each: the same value and JSON,
//! or the same error. Shared by the test binaries that include it.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use smp_core::typed::__private::Walk;
use smp_core::{ErrorKind, StrategicMerge};
use std::fmt::Debug;

/// What a mutation puts at a node (`None`: removes it from its object).
pub const MUTATIONS: &[fn() -> Option<Value>] = &[
    || None,
    || Some(Value::Null),
    || Some(json!(5.0)),
    || Some(json!(2.5)),
    || Some(json!(-3)),
    || Some(json!(1e30)),
    || Some(json!("x")),
    || Some(json!(true)),
    || Some(json!([])),
    || Some(json!([{"name": "n"}])),
    || Some(json!({})),
    || Some(json!({"name": "n", "unknown": 1})),
    || Some(json!(["n", 1, true])),
];

/// Every node of `v`, as the keys and indices that lead to it.
fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Step::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Step::Index(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// `v` with the node at `path` replaced by `new` (or removed).
fn mutated(v: &Value, path: &[Step], new: Option<Value>) -> Value {
    let mut out = v.clone();
    let Some((last, parents)) = path.split_last() else { return new.unwrap_or(Value::Null) };
    let mut node = &mut out;
    for step in parents {
        node = match step {
            Step::Key(k) => &mut node[k.as_str()],
            Step::Index(i) => &mut node[*i],
        };
    }
    match (last, node, new) {
        (Step::Key(k), Value::Object(m), Some(new)) => {
            m.insert(k.clone(), new);
        }
        (Step::Key(k), Value::Object(m), None) => {
            m.remove(k);
        }
        (Step::Index(i), Value::Array(a), Some(new)) => a[*i] = new,
        (Step::Index(i), Value::Array(a), None) => {
            a.remove(*i);
        }
        _ => unreachable!("paths lead to nodes"),
    }
    out
}

/// The two readers on one input: the same value and JSON, or the same
/// error; true when both read a value.
pub fn compare<T>(v: &Value) -> Result<bool, String>
where
    T: StrategicMerge + DeserializeOwned + Serialize + PartialEq + Debug,
{
    let ours = <T as Walk>::__from_json(v);
    let serde = T::deserialize(v);
    match (ours, serde) {
        (Ok(a), Ok(b)) => {
            if a != b {
                return Err(format!("read {a:?}, serde read {b:?}"));
            }
            let (ours, serde) = (a.__json().map_err(|e| e.to_string())?, serde_json::to_value(&b).unwrap());
            if ours != serde {
                return Err(format!("wrote {ours}, serde wrote {serde}"));
            }
            Ok(true)
        }
        (Err(a), Err(b)) => match &a.kind {
            ErrorKind::Deserialize(m) if *m == b.to_string() && a.path.segments().is_empty() => Ok(false),
            _ => Err(format!("error {a:?}, serde's: {b}")),
        },
        (Ok(a), Err(b)) => Err(format!("read {a:?}, serde refused: {b}")),
        (Err(a), Ok(_)) => Err(format!("refused ({a}), serde read it")),
    }
}

/// Compares the readers on `fixture` and every mutation of it; returns how
/// many inputs both read, and how many both refused.
pub fn compare_all<T>(fixture: Value) -> [usize; 2]
where
    T: StrategicMerge + DeserializeOwned + Serialize + PartialEq + Debug,
{
    compare::<T>(&fixture).unwrap_or_else(|e| panic!("the fixture itself: {e}"));
    let mut all = Vec::new();
    paths(&fixture, &mut Vec::new(), &mut all);
    let mut failures = Vec::new();
    let mut counts = [1, 0];
    for path in &all {
        for mutation in MUTATIONS {
            let v = mutated(&fixture, path, mutation());
            match compare::<T>(&v) {
                Ok(read) => counts[usize::from(!read)] += 1,
                Err(e) => failures
                    .push(format!("{path:?} -> {}: {e}", mutation().map_or("removed".into(), |m| m.to_string()))),
            }
        }
    }
    assert!(failures.is_empty(), "{} inputs differ:\n{}", failures.len(), failures.join("\n"));
    counts
}
