//! Duplicate merge keys, reported: [`check`] walks a document with its
//! schema and names every list whose elements the reference cannot tell
//! apart, and [`diff_checked`] refuses a patch that would not turn the live
//! object into the desired one.
//!
//! The reference merges list elements by one field. Two elements with the
//! same value there (a Service's ports 53/TCP and 53/UDP, two env vars
//! named `A`) are merged, diffed and deleted as one, which silently
//! corrupts objects; nothing in the reference warns about it.

use crate::engine::apply::ApplyOptions;
use crate::engine::diff::{DiffOptions, diff_with};
use crate::engine::{check_depth, check_nesting, discard_nulls, document};
use crate::error::{Error, ErrorKind, Path, Result, Segment};
use crate::lists::key::KeyMap;
use crate::lists::patch_merge_key;
use crate::schema::Schema;
use crate::value::{deep_eq, fmt_v};
use serde_json::{Map, Value};
use std::fmt;

/// A list whose elements share what should identify them.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The list, e.g. `spec.ports`.
    pub path: Path,
    /// What they share.
    pub problem: Problem,
}

/// What a [`Finding`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Elements with the same merge key value: the reference merges,
    /// diffs and deletes them as one.
    DuplicateMergeKey {
        /// The merge key and its value, e.g. `port=53`.
        key: String,
        /// The elements' positions in the list.
        positions: Vec<usize>,
        /// The recommended merge keys tell them apart: with
        /// `$patchMergeKey` on, smp patches them safely.
        told_apart_by: Option<Vec<String>>,
    },
    /// Elements with the same values of every recommended merge key: not
    /// even `$patchMergeKey` tells them apart.
    DuplicateRecommendedKeys {
        /// The key fields and values, e.g. `port=53,protocol=TCP`.
        key: String,
        /// The elements' positions in the list.
        positions: Vec<usize>,
    },
    /// A value repeated in a list merged as a set of scalars.
    DuplicateSetValue {
        /// The value, as Go's `%v` prints it.
        value: String,
        /// Its positions in the list.
        positions: Vec<usize>,
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |p: &[usize]| p.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        write!(f, "{}: ", self.path)?;
        match &self.problem {
            Problem::DuplicateMergeKey { key, positions, told_apart_by: None } => write!(
                f,
                "elements {} have the same merge key {key}; strategic merge patch treats them as one element",
                at(positions)
            ),
            Problem::DuplicateMergeKey { key, positions, told_apart_by: Some(keys) } => write!(
                f,
                "elements {} have the same merge key {key}; strategic merge patch treats them as one element \
                 (the recommended merge keys {} tell them apart: use $patchMergeKey)",
                at(positions),
                keys.join(",")
            ),
            Problem::DuplicateRecommendedKeys { key, positions } => {
                write!(f, "elements {} have the same recommended merge keys {key}", at(positions))
            }
            Problem::DuplicateSetValue { value, positions } => {
                write!(f, "the value {value} appears {} times in a set (at {})", positions.len(), at(positions))
            }
        }
    }
}

/// Every list in `doc` whose elements share their merge key (or their
/// recommended merge keys), and every set of scalars with a repeated
/// value, in document order. Parts the schema cannot describe are skipped.
///
/// ```
/// use serde_json::json;
/// use smp_core::{check, OpenApi};
///
/// let api = OpenApi::from_value(json!({"openapi": "3.0.0", "components": {"schemas": {
///     "spec": {"properties": {"env": {"type": "array", "items": {"type": "object"},
///         "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}}
/// }}})).unwrap();
/// let doc = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]});
/// let findings = check(&doc, api.definition("spec").unwrap()).unwrap();
/// assert_eq!(findings[0].to_string(),
///     "env: elements 0, 1 have the same merge key name=A; strategic merge patch treats them as one element");
/// ```
///
/// A document nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) is
/// refused, as on every entry point.
pub fn check(doc: &Value, schema: Schema<'_>) -> Result<Vec<Finding>> {
    check_nesting(doc)?;
    let mut out = Vec::new();
    if let Value::Object(m) = doc {
        let mut path = Vec::new();
        check_map(m, schema, &mut path, &mut out);
    }
    Ok(out)
}

fn check_map(m: &Map<String, Value>, schema: Schema<'_>, path: &mut Vec<Segment>, out: &mut Vec<Finding>) {
    if check_depth(path.len()).is_err() {
        return;
    }
    for (key, v) in m {
        path.push(Segment::Key(key.clone()));
        match v {
            Value::Object(sub) => {
                if let Ok((s, _)) = schema.lookup_struct(key) {
                    check_map(sub, s, path, out);
                }
            }
            Value::Array(list) => {
                if let Ok((elem, meta)) = schema.lookup_slice(key) {
                    check_list(list, elem, meta, path, out);
                }
            }
            _ => {}
        }
        path.pop();
    }
}

fn check_list(
    list: &[Value],
    elem: Schema<'_>,
    meta: crate::schema::PatchMeta<'_>,
    path: &mut Vec<Segment>,
    out: &mut Vec<Finding>,
) {
    let merged = meta.strategy().is_ok_and(|s| s.merge);
    let mk = meta.key_name();
    let recommended: Option<Vec<String>> =
        meta.recommended().ok().flatten().map(|k| k.to_vec().into_iter().map(str::to_string).collect());
    let here = || Path::from_segments(path.clone());
    // A composite key is the identity itself: only its repeats matter.
    let composite = matches!(meta.merge_key, Some(crate::schema::MergeKey::Composite(_)));
    if merged
        && !composite
        && let Some(mk) = mk
    {
        for (value, positions) in repeated(list, &|e| e.get(mk).map(fmt_v)) {
            let told_apart_by = recommended.clone().filter(|keys| {
                let ids: Vec<Option<String>> = positions.iter().map(|&i| identity(&list[i], keys)).collect();
                ids.iter().enumerate().all(|(i, id)| id.is_some() && !ids[..i].contains(id))
            });
            let problem = Problem::DuplicateMergeKey { key: format!("{mk}={value}"), positions, told_apart_by };
            out.push(Finding { path: here(), problem });
        }
    }
    if let Some(keys) = &recommended
        && keys.len() > 1
    {
        for (key, positions) in repeated(list, &|e| identity(e, keys)) {
            out.push(Finding { path: here(), problem: Problem::DuplicateRecommendedKeys { key, positions } });
        }
    }
    if merged && mk.is_none() && recommended.is_none() {
        let scalar = |e: &Value| (!e.is_object() && !e.is_array()).then(|| e.to_string());
        for (_, positions) in repeated(list, &scalar) {
            let value = fmt_v(&list[positions[0]]);
            out.push(Finding { path: here(), problem: Problem::DuplicateSetValue { value, positions } });
        }
    }
    for (i, e) in list.iter().enumerate() {
        if let Value::Object(m) = e {
            let seg = match mk.and_then(|mk| Some((mk, m.get(mk)?))) {
                Some((mk, v)) => Segment::Keyed { key: mk.to_string(), value: fmt_v(v) },
                None => Segment::Index(i),
            };
            path.push(seg);
            check_map(m, elem, path, out);
            path.pop();
        }
    }
}

/// `port=53,protocol=TCP` for an object, `None` for anything else.
fn identity(e: &Value, keys: &[String]) -> Option<String> {
    Some(patch_merge_key::describe(e.as_object()?, keys))
}

/// The keys (by `key_of`) that several elements share, with their
/// positions, in the order of their first element.
fn repeated(list: &[Value], key_of: &dyn Fn(&Value) -> Option<String>) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut at: KeyMap<String, usize> = KeyMap::default();
    for (i, e) in list.iter().enumerate() {
        let Some(k) = key_of(e) else { continue };
        match at.get(&k) {
            Some(&g) => groups[g].1.push(i),
            None => {
                at.insert(k.clone(), groups.len());
                groups.push((k, vec![i]));
            }
        }
    }
    groups.retain(|(_, positions)| positions.len() > 1);
    groups
}

/// [`diff_with`], verified: the patch is applied to `original` (by smp,
/// with the same `$patchMergeKey` setting) and must give `modified` (whose
/// null fields count as absent). When it does not, the error names the
/// lists that cause it ([`check`]) and where the result differs, instead
/// of returning a patch that corrupts the object.
pub fn diff_checked(original: &Value, modified: &Value, schema: Schema<'_>, options: DiffOptions) -> Result<Value> {
    check_nesting(original)?;
    check_nesting(modified)?;
    let patch = diff_with(original, modified, schema, options)?;
    let apply_options = ApplyOptions { patch_merge_key: options.patch_merge_key, ..Default::default() };
    let result = crate::engine::apply::apply_with(original, &patch, schema, apply_options)?;
    let mut desired = Value::Object(document(modified)?.clone());
    discard_nulls(&mut desired);
    if deep_eq(&result, &desired) {
        return Ok(patch);
    }
    let mut why: Vec<String> =
        check(original, schema)?.into_iter().chain(check(modified, schema)?).map(|f| f.to_string()).collect();
    why.dedup();
    let mut at = Vec::new();
    first_difference(&result, &desired, &mut at);
    let place = Path::from_segments(at);
    let mut message = format!("the result differs at {place}");
    for reason in why {
        message.push_str("; ");
        message.push_str(&reason);
    }
    Err(Error::new(ErrorKind::UncheckedPatch(message)))
}

/// Appends to `at` the path of the first place where `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, at: &mut Vec<Segment>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) if deep_eq(v, w) => continue,
                    (Some(v), Some(w)) => {
                        at.push(Segment::Key(k.clone()));
                        first_difference(v, w, at);
                    }
                    _ => at.push(Segment::Key(k.clone())),
                }
                return;
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if let Some(i) = (0..x.len().min(y.len())).find(|&i| !deep_eq(&x[i], &y[i])) {
                at.push(Segment::Index(i));
                first_difference(&x[i], &y[i], at);
            } else if x.len() != y.len() {
                at.push(Segment::Index(x.len().min(y.len())));
            }
        }
        _ => {}
    }
}
