//! Conflict checks: whether two patches change the same things differently.

use super::{dedup_scalars_in_place, slice_element_type};
use crate::directive::{PATCH, PATCH_MERGE_KEY, RETAIN_KEYS};
use crate::error::{ErrorKind, Result};
use crate::lists::order::{permute, stable_order_by};
use crate::lists::patch_merge_key;
use crate::schema::{MergeKey, Schema, Strategy};
use crate::value::{GoKind, deep_eq, fmt_s, fmt_v, fmt_v_list, fmt_v_map};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Whether two strategic merge patches conflict, by the rules of the
/// reference's `MergingMapsHaveConflicts`: only keys present in both are
/// compared, keyed lists are compared element by element by merge key, and
/// sets of scalars never conflict. The arguments are left as they are.
pub fn merging_maps_have_conflicts(left: &Value, right: &Value, schema: Schema<'_>) -> Result<bool> {
    super::check_nesting(left)?;
    super::check_nesting(right)?;
    conflicts_in_place(&mut left.clone(), &mut right.clone(), schema)
}

/// `MergingMapsHaveConflicts` with the reference's side effect: the lists of
/// scalars it compares outside the merge strategy are de-duplicated and
/// sorted in place, in the memory of the documents themselves. The Go slices
/// keep their length, so such a list becomes its de-duplicated values in
/// `%v` order followed by the stale tail that `deduplicateScalars` leaves
/// (`["y","x","x"]` becomes `["x","y","x"]`). The three-way patch is the
/// left side, so it is sent that way.
pub(crate) fn conflicts_in_place(left: &mut Value, right: &mut Value, schema: Schema<'_>) -> Result<bool> {
    conflicts_in_place_with(left, right, schema, false)
}

/// [`conflicts_in_place`] where `$patchMergeKey` may be a directive: then
/// it is not compared as a field, and elements carrying it pair by all
/// their key fields.
pub(crate) fn conflicts_in_place_with(
    left: &mut Value,
    right: &mut Value,
    schema: Schema<'_>,
    patch_merge_key: bool,
) -> Result<bool> {
    super::check_nesting(left)?;
    super::check_nesting(right)?;
    field_conflicts(left, right, schema, Field::PLAIN, Pmk(patch_merge_key), 0)
}

/// Whether `$patchMergeKey` is a directive.
#[derive(Clone, Copy)]
struct Pmk(bool);

/// The patch metadata of the field whose values are compared.
#[derive(Clone, Copy)]
struct Field<'a> {
    strategy: Strategy,
    merge_key: Option<&'a str>,
    /// The fields of a composite key ([`MergeKey::Composite`]), by which
    /// elements pair.
    composite: Option<&'a [&'a str]>,
}

impl Field<'_> {
    /// A value outside any field with metadata: the document, or a list's
    /// element.
    const PLAIN: Field<'static> = Field { strategy: Strategy::NONE, merge_key: None, composite: None };
}

/// `mergingMapFieldsHaveConflicts`.
fn field_conflicts(
    left: &mut Value,
    right: &mut Value,
    schema: Schema<'_>,
    field: Field<'_>,
    pmk: Pmk,
    depth: usize,
) -> Result<bool> {
    super::check_depth(depth)?;
    match left {
        Value::Object(l) => {
            let Value::Object(r) = right else {
                return Ok(true);
            };
            match (l.get(PATCH), r.get(PATCH)) {
                (None, None) => {}
                (Some(a), Some(b)) if deep_eq(a, b) => {}
                _ => return Ok(true),
            }
            if field.strategy.replace {
                return Ok(false);
            }
            maps_conflict(l, r, schema, pmk, depth)
        }
        Value::Array(l) => {
            let Value::Array(r) = right else {
                return Ok(true);
            };
            slices_conflict(l, r, schema, field, pmk, depth)
        }
        _ => Ok(!deep_eq(left, right)),
    }
}

/// `mapsHaveConflicts`: keys present on both sides.
fn maps_conflict(
    l: &mut Map<String, Value>,
    r: &mut Map<String, Value>,
    schema: Schema<'_>,
    pmk: Pmk,
    depth: usize,
) -> Result<bool> {
    for (key, lv) in l.iter_mut() {
        if key == PATCH || key == RETAIN_KEYS || (pmk.0 && key == PATCH_MERGE_KEY) {
            continue;
        }
        let Some(rv) = r.get_mut(key) else { continue };
        let (sub, meta) = match lv {
            Value::Array(_) => schema.lookup_slice(key).map_err(|e| e.at_key(key))?,
            Value::Object(_) => schema.lookup_struct(key).map_err(|e| e.at_key(key))?,
            _ => (Schema::Untyped, Default::default()),
        };
        let composite = match meta.merge_key {
            Some(MergeKey::Composite(fields)) => Some(fields),
            _ => None,
        };
        let field = Field { strategy: meta.strategy()?, merge_key: meta.key_name(), composite };
        if field_conflicts(lv, rv, sub, field, pmk, depth + 1).map_err(|e| e.at_key(key))? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `slicesHaveConflicts`.
fn slices_conflict(
    l: &mut [Value],
    r: &mut [Value],
    schema: Schema<'_>,
    field: Field<'_>,
    pmk: Pmk,
    depth: usize,
) -> Result<bool> {
    let kind = slice_element_type(&[l, r])?;
    if field.strategy.merge {
        if kind != GoKind::Object {
            return Ok(false);
        }
        let lm = by_merge_key_text(l, field, pmk)?;
        let rm = by_merge_key_text(r, field, pmk)?;
        for (k, &i) in &lm {
            if let Some(&j) = rm.get(k)
                && field_conflicts(&mut l[i], &mut r[j], schema, Field::PLAIN, pmk, depth + 1)?
            {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if l.len() != r.len() {
        return Ok(true);
    }
    let (nl, nr) = if kind != GoKind::Object { (dedup_and_sort(l)?, dedup_and_sort(r)?) } else { (l.len(), r.len()) };
    for i in 0..nl {
        if i >= nr {
            // The reference indexes the shorter de-duplicated list out of range.
            return Err(ErrorKind::UncomparableLists {
                left: fmt_v_list(&l[..nl]),
                right: fmt_v_list(&r[..nr]),
                left_count: nl,
                right_count: nr,
            }
            .into());
        }
        if field_conflicts(&mut l[i], &mut r[i], schema, Field::PLAIN, pmk, depth + 1)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `sliceOfMapsToMapOfMaps`: positions by the `%s` text of the merge key;
/// the last duplicate wins. Without a merge key the reference looks up the
/// empty key name, which an element may have.
/// A composite key pairs by all its fields (absent and `null` alike).
fn by_merge_key_text(list: &[Value], field: Field<'_>, pmk: Pmk) -> Result<BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    for (i, e) in list.iter().enumerate() {
        let m = e.as_object().ok_or_else(|| ErrorKind::BadMergingListElement(fmt_v_list(list)))?;
        // Elements carrying the directive pair by all their key fields.
        if pmk.0
            && let Some(key) = patch_merge_key::conflict_key(e)
        {
            out.insert(key, i);
            continue;
        }
        if let Some(fields) = field.composite {
            if fields.iter().all(|f| !m.contains_key(*f)) {
                let key = fields.first().copied().unwrap_or_default().to_string();
                return Err(ErrorKind::NoMergeKeyInElement { key, element: fmt_v_map(m) }.into());
            }
            // Each part with its kind, so that `null` and `"null"` differ.
            let mut text = String::new();
            for f in fields {
                match m.get(*f).filter(|v| !v.is_null()) {
                    Some(v) => {
                        text.push('+');
                        text.push_str(&v.to_string());
                    }
                    None => text.push('-'),
                }
            }
            out.insert(text, i);
            continue;
        }
        let mk = field.merge_key.unwrap_or_default();
        let kv =
            m.get(mk).ok_or_else(|| ErrorKind::NoMergeKeyInElement { key: mk.to_string(), element: fmt_v_map(m) })?;
        out.insert(fmt_s(kv), i);
    }
    Ok(out)
}

/// `deduplicateAndSortScalars` in place: the distinct values come first,
/// sorted by `%v` text (distinct scalars of one type have distinct texts,
/// so any sort agrees with Go's); returns their number.
fn dedup_and_sort(list: &mut [Value]) -> Result<usize> {
    let n = dedup_scalars_in_place(list)?;
    let mut texts = Vec::with_capacity(n);
    for v in &list[..n] {
        texts.push(fmt_v(v));
    }
    permute(&mut list[..n], &stable_order_by(n, &|a, b| texts[a].cmp(&texts[b])));
    Ok(n)
}

/// The plain JSON-merge-patch conflict test (`mergepatch.HasConflicts`):
/// common keys of objects are compared, lists position by position.
///
/// Values nested deeper than the engine's limit are refused.
pub fn has_conflicts(left: &Value, right: &Value) -> Result<bool> {
    super::check_nesting(left)?;
    super::check_nesting(right)?;
    Ok(plain_conflicts(left, right))
}

fn plain_conflicts(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            l.iter().any(|(k, lv)| r.get(k).is_some_and(|rv| plain_conflicts(lv, rv)))
        }
        (Value::Array(l), Value::Array(r)) => l.len() != r.len() || l.iter().zip(r).any(|(a, b)| plain_conflicts(a, b)),
        (Value::Object(_) | Value::Array(_), _) => true,
        _ => !deep_eq(left, right),
    }
}
