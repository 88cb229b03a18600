//! The comparison of two values of one type (`TypedValue.Compare`): the
//! fields removed, modified and added from the first to the second, as
//! ownership sees them (atomic values and scalars as a whole).

use super::fieldpath::PeMap;
use super::fieldpath::{PathElement, Set};
use super::schema::{ListType, MapType, Relationship, Resolved, Schema, TypeRef};
use super::typed::{ValidationError, ValidationErrors, invalid_atom, list_item_element, no_type, validate_scalar};
use super::value::equals;
use serde_json::{Map, Value};

/// What changed from one value to another.
#[derive(Clone, Debug, Default)]
pub(crate) struct Comparison {
    pub(crate) removed: Set,
    pub(crate) modified: Set,
    pub(crate) added: Set,
}

pub(crate) fn compare(schema: &Schema, tr: TypeRef, lhs: &Value, rhs: &Value) -> Result<Comparison, ValidationErrors> {
    let mut w = Walker { schema, path: Vec::new(), cmp: Comparison::default() };
    let errs = w.compare(tr, Some(lhs), Some(rhs));
    if errs.is_empty() { Ok(w.cmp) } else { Err(errs) }
}

struct Walker<'s> {
    schema: &'s Schema,
    path: Vec<PathElement>,
    cmp: Comparison,
}

impl Walker<'_> {
    fn compare(&mut self, tr: TypeRef, lhs: Option<&Value>, rhs: Option<&Value>) -> ValidationErrors {
        if lhs.is_none() && rhs.is_none() {
            return ValidationErrors::one("at least one of lhs and rhs must be provided");
        }
        let r = match self.schema.resolve(tr) {
            Ok(r) => r,
            Err(n) => return no_type(&n),
        };
        let (al, ar) = (r.deduce(lhs), r.deduce(rhs));
        let mut errs = ValidationErrors::default();
        let mut in_leaf = false;
        if rhs.is_none() {
            errs.extend(self.handle(tr, al, lhs, rhs, &mut in_leaf));
        } else if lhs.is_none() || al.same(&ar) {
            errs.extend(self.handle(tr, ar, lhs, rhs, &mut in_leaf));
        } else {
            let mut other_leaf = false;
            errs.extend(self.handle(tr, al, lhs, rhs, &mut other_leaf));
            errs.extend(self.handle(tr, ar, lhs, rhs, &mut in_leaf));
        }
        if !in_leaf {
            if lhs.is_none() {
                self.cmp.added.insert(&self.path);
            } else if rhs.is_none() {
                self.cmp.removed.insert(&self.path);
            }
        }
        errs
    }

    fn leaf(&mut self, lhs: Option<&Value>, rhs: Option<&Value>, in_leaf: &mut bool) {
        if *in_leaf {
            return;
        }
        *in_leaf = true;
        match (lhs, rhs) {
            (None, _) => self.cmp.added.insert(&self.path),
            (_, None) => self.cmp.removed.insert(&self.path),
            (Some(l), Some(r)) => {
                if !equals(l, r) {
                    self.cmp.modified.insert(&self.path);
                }
            }
        }
    }

    fn handle(
        &mut self,
        tr: TypeRef,
        atom: Resolved,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        if let Some((m, rel)) = atom.map {
            return self.map(m, rel, lhs, rhs, in_leaf);
        }
        if let Some(s) = atom.scalar {
            let l = validate_scalar(s, lhs, "lhs: ");
            let r = validate_scalar(s, rhs, "rhs: ");
            if let (Some(l), Some(r)) = (l, r) {
                return ValidationErrors(vec![
                    ValidationError { path: String::new(), message: l },
                    ValidationError { path: String::new(), message: r },
                ]);
            }
            self.leaf(lhs, rhs, in_leaf);
            return ValidationErrors::default();
        }
        if let Some((l, rel)) = atom.list {
            return self.list(l, rel, lhs, rhs, in_leaf);
        }
        invalid_atom(self.schema, tr)
    }

    fn child(&mut self, pe: PathElement, tr: TypeRef, lhs: Option<&Value>, rhs: Option<&Value>) -> ValidationErrors {
        self.path.push(pe);
        let errs = self.compare(tr, lhs, rhs);
        let pe = self.path.pop().expect("pushed above");
        errs.prefixed(&pe)
    }

    fn map(
        &mut self,
        t: &MapType,
        rel: Relationship,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        let l = lhs.and_then(Value::as_object);
        let r = rhs.and_then(Value::as_object);
        if rel == Relationship::Atomic || (l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty)) {
            self.leaf(lhs, rhs, in_leaf);
            return ValidationErrors::default();
        }
        let mut errs = ValidationErrors::default();
        let empty = Map::new();
        let (l, r) = (l.unwrap_or(&empty), r.unwrap_or(&empty));
        let keys: Vec<&String> = l.keys().chain(r.keys().filter(|k| !l.contains_key(*k))).collect();
        for k in keys {
            let Some(ctr) = t.type_of(k) else {
                errs.extend(
                    ValidationErrors::one("schema error: invalid atom: inlined")
                        .prefixed(&PathElement::Field(k.clone())),
                );
                continue;
            };
            errs.extend(self.child(PathElement::Field(k.clone()), ctr, l.get(k), r.get(k)));
        }
        errs
    }

    fn list(
        &mut self,
        t: &ListType,
        rel: Relationship,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> ValidationErrors {
        let l = lhs.and_then(Value::as_array);
        let r = rhs.and_then(Value::as_array);
        if rel == Relationship::Atomic || (l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty)) {
            self.leaf(lhs, rhs, in_leaf);
            return ValidationErrors::default();
        }
        let mut errs = ValidationErrors::default();
        // Each element once, in the order first seen (left, then right),
        // with its values on either side.
        let mut slots: Vec<(PathElement, Vec<&Value>, Vec<&Value>)> = Vec::new();
        let mut index: PeMap<PathElement, usize> = PeMap::default();
        for (side, items) in [l, r].into_iter().enumerate() {
            for (i, c) in items.map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
                match list_item_element(self.schema, t, rel, c) {
                    Ok(pe) => {
                        let at = match index.get(&pe) {
                            Some(&at) => at,
                            None => {
                                index.insert(pe.clone(), slots.len());
                                slots.push((pe, Vec::new(), Vec::new()));
                                slots.len() - 1
                            }
                        };
                        if side == 0 { slots[at].1.push(c) } else { slots[at].2.push(c) }
                    }
                    Err(e) => {
                        errs.0.push(ValidationError { path: String::new(), message: format!("element {i}: {e}") })
                    }
                }
            }
        }
        drop(index);
        for (pe, ll, rl) in slots {
            let (ll, rl) = (ll.as_slice(), rl.as_slice());
            match (ll.len(), rl.len()) {
                (0, 0) => return errs,
                (a, b) if a <= 1 && b <= 1 => {
                    errs.extend(self.child(pe, t.element, ll.first().copied(), rl.first().copied()));
                }
                (a, b) if a >= 2 && b >= 2 => {
                    let same = a == b && ll.iter().zip(rl).all(|(x, y)| equals(x, y));
                    if !same {
                        self.path.push(pe);
                        self.cmp.modified.insert(&self.path);
                        self.path.pop();
                    }
                }
                (a, _) if a >= 2 => {
                    if let Some(rv) = rl.first() {
                        errs.extend(self.child(pe.clone(), t.element, None, Some(rv)));
                    }
                    self.path.push(pe);
                    self.cmp.removed.insert(&self.path);
                    self.path.pop();
                }
                _ => {
                    if let Some(lv) = ll.first() {
                        errs.extend(self.child(pe.clone(), t.element, Some(lv), None));
                    }
                    self.path.push(pe);
                    self.cmp.added.insert(&self.path);
                    self.path.pop();
                }
            }
        }
        errs
    }
}
