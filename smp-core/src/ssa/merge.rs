//! The merge of an applied configuration into a live object
//! (`TypedValue.Merge`): granular maps and structs merge key by key,
//! associative lists element by element in the reference's order, and
//! atomic values, scalars and empty values are replaced whole by the
//! configuration's.

use super::fieldpath::PathElement;
use super::fieldpath::{PeMap, PeSet};
use super::schema::{ListType, MapType, Relationship, Schema, TypeRef};
use super::typed::{ValidationError, ValidationErrors, invalid_atom, list_item_element, no_type, validate_scalar};
use serde_json::{Map, Value};

/// The merge of `rhs` (the configuration) into `lhs` (the live object).
pub(crate) fn merge(
    schema: &Schema,
    tr: TypeRef,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
) -> Result<Option<Value>, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let out = merge_at(schema, tr, lhs, rhs, &mut errs);
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

fn merge_at(
    schema: &Schema,
    tr: TypeRef,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errs: &mut ValidationErrors,
) -> Option<Value> {
    if lhs.is_none() && rhs.is_none() {
        errs.extend(ValidationErrors::one("at least one of lhs and rhs must be provided"));
        return None;
    }
    let r = match schema.resolve(tr) {
        Ok(r) => r,
        Err(n) => {
            errs.extend(no_type(&n));
            return None;
        }
    };
    let (al, ar) = (r.deduce(lhs), r.deduce(rhs));
    let atom = if rhs.is_none() {
        al
    } else if lhs.is_none() || al.same(&ar) {
        ar
    } else {
        // The live value's kind differs from the configuration's: the
        // reference walks both, and only the configuration's result counts.
        let mut discarded = ValidationErrors::default();
        handle(schema, tr, al, lhs, rhs, &mut discarded);
        errs.extend(discarded);
        ar
    };
    handle(schema, tr, atom, lhs, rhs, errs)
}

fn handle(
    schema: &Schema,
    tr: TypeRef,
    atom: super::schema::Resolved,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errs: &mut ValidationErrors,
) -> Option<Value> {
    if let Some((m, rel)) = atom.map {
        return merge_map(schema, m, rel, lhs, rhs, errs);
    }
    if let Some(s) = atom.scalar {
        let l = validate_scalar(s, lhs, "lhs: ");
        let r = validate_scalar(s, rhs, "rhs: ");
        if let (Some(l), Some(r)) = (l, r) {
            errs.0.push(ValidationError { path: String::new(), message: l });
            errs.0.push(ValidationError { path: String::new(), message: r });
            return None;
        }
        return leaf(lhs, rhs);
    }
    if let Some((l, rel)) = atom.list {
        return merge_list(schema, l, rel, lhs, rhs, errs);
    }
    errs.extend(invalid_atom(schema, tr));
    None
}

/// The configuration's value if it has one, else the live one.
fn leaf(lhs: Option<&Value>, rhs: Option<&Value>) -> Option<Value> {
    rhs.or(lhs).cloned()
}

fn merge_map(
    schema: &Schema,
    t: &MapType,
    rel: Relationship,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errs: &mut ValidationErrors,
) -> Option<Value> {
    let l = lhs.and_then(Value::as_object);
    let r = rhs.and_then(Value::as_object);
    let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
    if rel == Relationship::Atomic || empty {
        return leaf(lhs, rhs);
    }
    let mut out = Map::new();
    let mut visit = |key: &String, lv: Option<&Value>, rv: Option<&Value>, errs: &mut ValidationErrors| {
        let ctr = t.fields.get(key.as_str()).map(|f| f.ty).or(t.element);
        let mut sub = ValidationErrors::default();
        let v = match ctr {
            Some(ctr) => merge_at(schema, ctr, lv, rv, &mut sub),
            None => {
                sub.extend(ValidationErrors::one("schema error: invalid atom: inlined"));
                None
            }
        };
        errs.extend(sub.prefixed(&PathElement::Field(key.clone())));
        if let Some(v) = v {
            out.insert(key.clone(), v);
        }
    };
    match (l, r) {
        (Some(l), Some(r)) => {
            for (k, lv) in l {
                visit(k, Some(lv), r.get(k), errs);
            }
            for (k, rv) in r {
                if !l.contains_key(k) {
                    visit(k, None, Some(rv), errs);
                }
            }
        }
        (Some(l), None) => l.iter().for_each(|(k, v)| visit(k, Some(v), None, errs)),
        (None, Some(r)) => r.iter().for_each(|(k, v)| visit(k, None, Some(v), errs)),
        (None, None) => {}
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The path elements of a list's items, and the first item of each
/// (for the live list, `null` for an element that appears twice).
type Indexed<'v> = (Vec<PathElement>, PeMap<PathElement, Option<&'v Value>>);

fn index<'v>(
    schema: &Schema,
    t: &ListType,
    rel: Relationship,
    list: &'v [Value],
    allow_dups: bool,
) -> Result<Indexed<'v>, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let mut pes = Vec::with_capacity(list.len());
    let mut observed: PeMap<PathElement, Option<&Value>> =
        PeMap::with_capacity_and_hasher(list.len(), Default::default());
    for (i, child) in list.iter().enumerate() {
        let pe = match list_item_element(schema, t, rel, child) {
            Ok(pe) => pe,
            Err(e) => {
                errs.0.push(ValidationError { path: String::new(), message: format!("element {i}: {e}") });
                continue;
            }
        };
        if let Some(slot) = observed.get_mut(&pe) {
            if !allow_dups {
                errs.0
                    .push(ValidationError { path: String::new(), message: format!("duplicate entries for key {pe}") });
                continue;
            }
            *slot = None;
        } else {
            observed.insert(pe.clone(), Some(child));
        }
        pes.push(pe);
    }
    if errs.is_empty() { Ok((pes, observed)) } else { Err(errs) }
}

static NULL: Value = Value::Null;

fn merge_list(
    schema: &Schema,
    t: &ListType,
    rel: Relationship,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errs: &mut ValidationErrors,
) -> Option<Value> {
    let l = lhs.and_then(Value::as_array);
    let r = rhs.and_then(Value::as_array);
    let empty = l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty);
    if rel == Relationship::Atomic || empty {
        return leaf(lhs, rhs);
    }
    let l: &[Value] = l.map(Vec::as_slice).unwrap_or(&[]);
    let r: &[Value] = r.map(Vec::as_slice).unwrap_or(&[]);
    let mut out = Vec::with_capacity(l.len().max(r.len()));
    let rhs_ix = index(schema, t, rel, r, false);
    let lhs_ix = index(schema, t, rel, l, true);
    let ((rpes, robs), (lpes, lobs)) = match (rhs_ix, lhs_ix) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            if let Err(e) = a {
                errs.extend(e);
            }
            if let Err(e) = b {
                errs.extend(e);
            }
            return None;
        }
    };
    // A live element that appears twice merges as `null`.
    let live = |pe: &PathElement| lobs.get(pe).map(|v| v.unwrap_or(&NULL));
    let cfg = |pe: &PathElement| robs.get(pe).map(|v| v.unwrap_or(&NULL));
    // Errors inside list elements are dropped, as the reference drops them.
    let item = |_pe: &PathElement, lv: Option<&Value>, rv: Option<&Value>, out: &mut Vec<Value>| {
        let mut ignored = ValidationErrors::default();
        if let Some(v) = merge_at(schema, t.element, lv, rv, &mut ignored) {
            out.push(v);
        }
    };
    let mut shared = rpes.iter().filter(|pe| lobs.contains_key(*pe));
    let mut next_shared = shared.next();
    let mut merged_rhs: PeSet<&PathElement> = PeSet::with_capacity_and_hasher(rpes.len(), Default::default());
    let (mut li, mut ri) = (0, 0);
    while li < lpes.len() || ri < rpes.len() {
        if li < lpes.len() && ri < rpes.len() {
            let pe = &lpes[li];
            if *pe == rpes[ri] {
                merged_rhs.insert(pe);
                item(pe, live(pe), cfg(pe), &mut out);
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if robs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < lpes.len() {
            let pe = &lpes[li];
            if !robs.contains_key(pe) {
                item(pe, Some(&l[li]), None, &mut out);
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
            }
        }
        if ri < rpes.len() {
            let pe = &rpes[ri];
            merged_rhs.insert(pe);
            item(pe, live(pe), cfg(pe), &mut out);
            ri += 1;
            if next_shared == Some(pe) {
                next_shared = shared.next();
            }
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}
