//! Walks of a value along its schema (structured-merge-diff's `typed`
//! package): validation, the set of fields a value sets, list elements'
//! path elements, the removal of a set of fields, and the reconciliation
//! of a field set with atomic types.

use super::fieldpath::PeSet;
use super::fieldpath::{PathElement, Set};
use super::schema::{ListType, MapType, Relationship, Resolved, Scalar, Schema, TypeRef};
use serde_json::{Map, Value};
use std::fmt;

/// One validation error: where (the reference's path text) and why.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ValidationError {
    /// The path, e.g. `.spec.containers[name="web"].foo`; empty at the root.
    pub path: String,
    /// The reference's message.
    pub message: String,
}

/// The errors of one walk, printed as the reference prints them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one = |e: &ValidationError| {
            if e.path.is_empty() { e.message.clone() } else { format!("{}: {}", e.path, e.message) }
        };
        if self.0.len() == 1 {
            return f.write_str(&one(&self.0[0]));
        }
        f.write_str("errors:")?;
        for e in &self.0 {
            write!(f, "\n  {}", one(e))?;
        }
        Ok(())
    }
}

impl ValidationErrors {
    pub(crate) fn one(message: impl Into<String>) -> Self {
        ValidationErrors(vec![ValidationError { path: String::new(), message: message.into() }])
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn prefixed(mut self, prefix: &dyn fmt::Display) -> Self {
        if !self.0.is_empty() {
            let p = prefix.to_string();
            for e in &mut self.0 {
                e.path.insert_str(0, &p);
            }
        }
        self
    }

    pub(crate) fn extend(&mut self, other: ValidationErrors) {
        self.0.extend(other.0);
    }
}

/// `resolveSchema` / `handleAtom` failures.
pub(crate) fn no_type(name: &str) -> ValidationErrors {
    ValidationErrors::one(format!("schema error: no type found matching: {name}"))
}

pub(crate) fn invalid_atom(schema: &Schema, tr: TypeRef) -> ValidationErrors {
    let name = match schema.name_of(tr) {
        Some(n) => format!("named type: {n}"),
        None => "inlined".to_string(),
    };
    ValidationErrors::one(format!("schema error: invalid atom: {name}"))
}

/// A Go `%v`-like text of a value for messages.
pub(crate) fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect();
            format!("map[{}]", parts.join(" "))
        }
        Value::Null => "<nil>".into(),
        other => other.to_string(),
    }
}

/// Go's `%#v` of a decoded JSON value.
fn go_sharp(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => super::value::go_quote(s),
        Value::Number(n) => match super::value::num(n) {
            super::value::Num::Int(i) => i.to_string(),
            super::value::Num::Float(f) => super::value::go_float(f),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(a) => format!("[]interface {{}}{{{}}}", a.iter().map(go_sharp).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let parts: Vec<String> =
                m.iter().map(|(k, v)| format!("{}:{}", super::value::go_quote(k), go_sharp(v))).collect();
            format!("map[string]interface {{}}{{{}}}", parts.join(", "))
        }
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        Value::Null => "<nil>",
    }
}

/// `validateScalar`.
pub(crate) fn validate_scalar(t: Scalar, v: Option<&Value>, prefix: &str) -> Option<String> {
    let v = v?;
    let ok = matches!(
        (t, v),
        (_, Value::Null)
            | (Scalar::Numeric, Value::Number(_))
            | (Scalar::String, Value::String(_))
            | (Scalar::Boolean, Value::Bool(_))
            | (Scalar::Untyped, Value::Number(_) | Value::String(_) | Value::Bool(_))
    );
    if ok {
        return None;
    }
    Some(match t {
        Scalar::Numeric => format!("{prefix}expected numeric (int or float), got {}", go_type(v)),
        Scalar::String => format!("{prefix}expected string, got &value.valueUnstructured{{Value:{}}}", go_sharp(v)),
        Scalar::Boolean => format!("{prefix}expected boolean, got &{{{}}}", go_value(v)),
        Scalar::Untyped => format!("{prefix}expected any scalar, got &{{{}}}", go_value(v)),
    })
}

/// A list element's path element (`listItemToPathElement`): its key fields
/// (with their schema defaults) for a `map` list, its value for a `set`.
pub(crate) fn list_item_element(
    schema: &Schema,
    list: &ListType,
    rel: Relationship,
    child: &Value,
) -> Result<PathElement, String> {
    if rel != Relationship::Associative {
        return Err("invalid indexing of non-associative list".into());
    }
    if !list.keys.is_empty() {
        let m = match child {
            Value::Null => return Err("associative list with keys may not have a null element".into()),
            Value::Object(m) => m,
            _ => return Err("associative list with keys may not have non-map elements".into()),
        };
        let mut fields: Vec<(String, Value)> = Vec::with_capacity(list.keys.len());
        for k in &list.keys {
            if let Some(v) = m.get(k) {
                fields.push((k.clone(), v.clone()));
                continue;
            }
            let elem = schema
                .resolve(list.element)
                .map_err(|_| format!("couldn't find default value for {k}: invalid elementType for list"))?;
            let Some((em, _)) = elem.map else {
                return Err(format!(
                    "couldn't find default value for {k}: associative list may not have non-map types"
                ));
            };
            if let Some(d) = em.fields.get(k).and_then(|f| f.default.as_ref())
                && !d.is_null()
            {
                fields.push((k.clone(), d.clone()));
            }
        }
        if fields.is_empty() {
            let keys: Vec<String> = list.keys.iter().map(|k| super::value::go_quote(k)).collect();
            return Err(format!(
                "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                keys.join(" ")
            ));
        }
        fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        return Ok(PathElement::Key(fields));
    }
    match child {
        Value::Object(_) => Err("associative list without keys has an element that's a map type".into()),
        Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
        Value::Null => Err("associative list without keys has an element that's an explicit null".into()),
        v => Ok(PathElement::Value(v.clone())),
    }
}

/// Validation of a value against its type (`TypedValue.Validate`).
pub(crate) fn validate(schema: &Schema, tr: TypeRef, v: &Value, allow_duplicates: bool) -> ValidationErrors {
    let r = match schema.resolve(tr) {
        Ok(r) => r.deduce(Some(v)),
        Err(n) => return no_type(&n),
    };
    if let Some((m, _)) = r.map {
        return validate_map(schema, m, v, allow_duplicates);
    }
    if let Some(s) = r.scalar {
        return validate_scalar(s, Some(v), "").map(ValidationErrors::one).unwrap_or_default();
    }
    if let Some((l, rel)) = r.list {
        return validate_list(schema, l, rel, v, allow_duplicates);
    }
    invalid_atom(schema, tr)
}

fn validate_list(schema: &Schema, t: &ListType, rel: Relationship, v: &Value, dups: bool) -> ValidationErrors {
    let list = match v {
        Value::Null => return ValidationErrors::default(),
        Value::Array(a) => a,
        other => return ValidationErrors::one(format!("expected list, got &{{{}}}", go_value(other))),
    };
    let mut errs = ValidationErrors::default();
    let mut seen = PeSet::default();
    for (i, child) in list.iter().enumerate() {
        let pe = if rel != Relationship::Associative {
            PathElement::Index(i as i64)
        } else {
            match list_item_element(schema, t, rel, child) {
                Ok(pe) => pe,
                Err(e) => {
                    errs.0.push(ValidationError { path: String::new(), message: format!("element {i}: {e}") });
                    return errs;
                }
            }
        };
        if rel == Relationship::Associative {
            if seen.contains(&pe) && !dups {
                errs.0
                    .push(ValidationError { path: String::new(), message: format!("duplicate entries for key {pe}") });
            }
            seen.insert(pe.clone());
        }
        errs.extend(validate(schema, t.element, child, dups).prefixed(&pe));
    }
    errs
}

fn validate_map(schema: &Schema, t: &MapType, v: &Value, dups: bool) -> ValidationErrors {
    let m = match v {
        Value::Null => return ValidationErrors::default(),
        Value::Object(m) => m,
        other => return ValidationErrors::one(format!("expected map, got &{{{}}}", go_value(other))),
    };
    let mut errs = ValidationErrors::default();
    for (k, child) in m {
        let pe = PathElement::Field(k.clone());
        let Some(tr) = t.type_of(k) else {
            errs.extend(ValidationErrors::one("field not declared in schema").prefixed(&pe));
            return errs;
        };
        errs.extend(validate(schema, tr, child, dups).prefixed(&pe));
    }
    errs
}

/// The fields a value sets (`TypedValue.ToFieldSet`).
pub(crate) fn to_field_set(schema: &Schema, tr: TypeRef, v: &Value) -> Set {
    let mut set = Set::new();
    let mut path = Vec::new();
    field_set_walk(schema, tr, v, &mut path, &mut set);
    set
}

fn field_set_walk(schema: &Schema, tr: TypeRef, v: &Value, path: &mut Vec<PathElement>, set: &mut Set) {
    let Ok(r) = schema.resolve(tr) else { return };
    let r = r.deduce(Some(v));
    if let Some((m, rel)) = r.map {
        if rel == Relationship::Atomic {
            set.insert(path);
            return;
        }
        let Value::Object(obj) = v else { return };
        for (k, child) in obj {
            let field = m.fields.get(k);
            let Some(ctr) = field.map(|f| f.ty).or(m.element) else { continue };
            path.push(PathElement::Field(k.clone()));
            field_set_walk(schema, ctr, child, path, set);
            let empty_map = matches!(child, Value::Object(c) if c.is_empty());
            if child.is_null() || empty_map || field.is_none() {
                set.insert(path);
            }
            path.pop();
        }
    } else if r.scalar.is_some() {
        set.insert(path);
    } else if let Some((l, rel)) = r.list {
        if rel == Relationship::Atomic {
            set.insert(path);
            return;
        }
        let Value::Array(items) = v else { return };
        let pes: Vec<Option<PathElement>> = items.iter().map(|c| list_item_element(schema, l, rel, c).ok()).collect();
        let mut seen = PeSet::default();
        let mut duplicates = PeSet::default();
        for pe in pes.iter().flatten() {
            if !seen.insert(pe) && duplicates.insert(pe) {
                path.push(pe.clone());
                set.insert(path);
                path.pop();
            }
        }
        for (child, pe) in items.iter().zip(&pes) {
            let Some(pe) = pe else { continue };
            if duplicates.contains(pe) {
                continue;
            }
            path.push(pe.clone());
            field_set_walk(schema, l.element, child, path, set);
            set.insert(path);
            path.pop();
        }
    }
}

/// `EnsureNamedFieldsAreMembers`: a set where every node that is a struct
/// field is also a member.
pub(crate) fn ensure_named_fields_are_members(schema: &Schema, tr: Option<TypeRef>, s: &Set) -> Set {
    let r = tr.and_then(|t| schema.resolve(t).ok());
    let map = r.and_then(|r| r.map).map(|(m, _)| m);
    let list = r.and_then(|r| r.list).map(|(l, _)| l);
    let mut out = Set { members: s.members.clone(), children: Vec::with_capacity(s.children.len()) };
    for (pe, child) in &s.children {
        let mut ctr = None;
        match pe {
            PathElement::Field(name) => {
                if let Some(m) = map {
                    if m.fields.contains_key(name) {
                        out.insert_member(pe.clone());
                    }
                    ctr = m.type_of(name);
                }
            }
            PathElement::Key(_) => ctr = list.map(|l| l.element),
            _ => {}
        }
        out.children.push((pe.clone(), ensure_named_fields_are_members(schema, ctr, child)));
    }
    out
}

/// `RemoveItems`: the value without the fields of `to_remove`. Where the
/// reference leaves nothing (a map or list emptied below a removed path),
/// the value becomes `null`, as there.
pub(crate) fn remove_items(schema: &Schema, tr: TypeRef, v: &Value, to_remove: &Set) -> Value {
    let Ok(r) = schema.resolve(tr) else { return Value::Null };
    let r: Resolved = r.deduce(Some(v));
    if let Some((m, rel)) = r.map {
        let Value::Object(obj) = v else { return Value::Null };
        if obj.is_empty() || rel == Relationship::Atomic {
            return Value::Null;
        }
        let mut out = Map::new();
        for (k, child) in obj {
            let pe = PathElement::Field(k.clone());
            if to_remove.has_member(&pe) {
                continue;
            }
            let sub = to_remove.with_prefix(&pe);
            let val = if sub.is_empty() {
                child.clone()
            } else {
                match m.type_of(k) {
                    Some(ctr) => remove_items(schema, ctr, child, sub),
                    None => Value::Null,
                }
            };
            out.insert(k.clone(), val);
        }
        return if out.is_empty() { Value::Null } else { Value::Object(out) };
    }
    if r.scalar.is_some() {
        return v.clone();
    }
    if let Some((l, rel)) = r.list {
        let Value::Array(items) = v else { return Value::Null };
        if items.is_empty() || rel == Relationship::Atomic {
            return Value::Null;
        }
        let mut out = Vec::new();
        for item in items {
            let pe = list_item_element(schema, l, rel, item).ok();
            let (exact, sub) = match &pe {
                Some(pe) => (to_remove.has_member(pe), to_remove.with_prefix(pe)),
                None => (false, to_remove.with_prefix(&PathElement::Index(-1))),
            };
            if exact {
                continue;
            }
            out.push(if sub.is_empty() { item.clone() } else { remove_items(schema, l.element, item, sub) });
        }
        return if out.is_empty() { Value::Null } else { Value::Array(out) };
    }
    Value::Null
}

/// `ExtractItems`: only the fields of `to_extract` (and, under a path that
/// is a member, the whole value there; atomic values whole), `null` where
/// nothing is left.
pub(crate) fn extract_items(schema: &Schema, tr: TypeRef, v: &Value, to_extract: &Set) -> Value {
    let Ok(r) = schema.resolve(tr) else { return Value::Null };
    let r: Resolved = r.deduce(Some(v));
    if let Some((m, rel)) = r.map {
        let Value::Object(obj) = v else { return Value::Null };
        if obj.is_empty() || rel == Relationship::Atomic {
            return v.clone();
        }
        let mut out = Map::new();
        for (k, child) in obj {
            let pe = PathElement::Field(k.clone());
            let ctr = m.type_of(k);
            let val = if to_extract.has_member(&pe) {
                // The reference passes the whole set on here, not the
                // paths below the field.
                ctr.map_or(Value::Null, |t| extract_items(schema, t, child, to_extract))
            } else {
                let sub = to_extract.with_prefix(&pe);
                if sub.is_empty() {
                    continue;
                }
                ctr.map_or(Value::Null, |t| extract_items(schema, t, child, sub))
            };
            out.insert(k.clone(), val);
        }
        return if out.is_empty() { Value::Null } else { Value::Object(out) };
    }
    if r.scalar.is_some() {
        return v.clone();
    }
    if let Some((l, rel)) = r.list {
        let Value::Array(items) = v else { return Value::Null };
        if items.is_empty() || rel == Relationship::Atomic {
            return v.clone();
        }
        let mut out = Vec::new();
        for item in items {
            let pe = list_item_element(schema, l, rel, item).unwrap_or(PathElement::Index(-1));
            let sub = to_extract.with_prefix(&pe);
            if !sub.is_empty() {
                out.push(extract_items(schema, l.element, item, sub));
            } else if to_extract.has_member(&pe) {
                out.push(item.clone());
            }
        }
        return if out.is_empty() { Value::Null } else { Value::Array(out) };
    }
    Value::Null
}

/// `ReconcileFieldSetWithSchema`: a set that owns the root of every atomic
/// list or map it reaches into, in place of the fields below it (after a
/// schema change); `None` when nothing changes.
pub(crate) fn reconcile_with_schema(schema: &Schema, tr: TypeRef, set: &Set) -> Option<Set> {
    let mut to_fix = Set::new();
    let mut path = Vec::new();
    reconcile_walk(schema, tr, Some(set), false, &mut path, &mut to_fix);
    if to_fix.is_empty() {
        return None;
    }
    Some(set.recursive_difference(&to_fix).union(&to_fix))
}

fn reconcile_walk(
    schema: &Schema,
    tr: TypeRef,
    set: Option<&Set>,
    is_atomic: bool,
    path: &mut Vec<PathElement>,
    to_fix: &mut Set,
) {
    let Ok(r) = schema.resolve(tr) else { return };
    if let Some((m, rel)) = r.map {
        let deduced = m.fields.is_empty() && m.element.is_some_and(|e| schema.is_untyped_deduced(e));
        if deduced {
            return;
        }
        if !is_atomic && rel == Relationship::Atomic {
            if set.is_some_and(|s| !s.is_empty()) {
                to_fix.insert(path);
            }
            return;
        }
        if let Some(s) = set {
            visit_set(
                s,
                path,
                to_fix,
                &mut |pe| match pe {
                    PathElement::Field(n) => m.type_of(n),
                    _ => m.element,
                },
                schema,
            );
        }
    } else if r.scalar.is_some() {
    } else if let Some((l, rel)) = r.list {
        if !is_atomic && rel == Relationship::Atomic {
            to_fix.insert(path);
            return;
        }
        if let Some(s) = set {
            visit_set(s, path, to_fix, &mut |_| Some(l.element), schema);
        }
    }
}

fn visit_set(
    s: &Set,
    path: &mut Vec<PathElement>,
    to_fix: &mut Set,
    type_of: &mut dyn FnMut(&PathElement) -> Option<TypeRef>,
    schema: &Schema,
) {
    let mut handle = |pe: &PathElement, is_member: bool, path: &mut Vec<PathElement>, to_fix: &mut Set| {
        let Some(ctr) = type_of(pe) else { return };
        let child = s.child(pe);
        path.push(pe.clone());
        reconcile_walk(schema, ctr, child, is_member && child.is_none(), path, to_fix);
        path.pop();
    };
    for (pe, _) in &s.children {
        if !s.has_member(pe) {
            handle(pe, false, path, to_fix);
        }
    }
    for pe in &s.members {
        handle(pe, true, path, to_fix);
    }
}
