//! The schema model of server-side apply (structured-merge-diff's
//! `schema` package), apart from the strategic-merge [`crate::FieldSchema`]:
//! named types; maps and structs with fields, an element type and a
//! relationship (granular or atomic); lists that are `atomic`, `set` or
//! `map` with key fields; scalars; and the two untyped types the reference
//! adds (`__untyped_atomic_`, `__untyped_deduced_`).
//!
//! [`Schema::from_openapi_v3`] reads the `components.schemas` of an OpenAPI
//! v3 document as the API server's type converter reads them
//! (kube-openapi's `schemaconv`): `$ref` and a lone `allOf` `$ref` name a
//! type; a list without `x-kubernetes-list-type` is atomic unless
//! `x-kubernetes-patch-strategy: merge` makes it associative (keyed by the
//! patch merge key); an object without `properties` or with
//! `x-kubernetes-preserve-unknown-fields` takes any further field as
//! untyped; a schema without `type` is untyped (scalar, list or map), which
//! is how `x-kubernetes-int-or-string` and `IntOrString` come out.

use serde_json::{Map, Value};
use std::collections::HashMap;

mod smd;

/// Names of the types the reference adds to every schema.
pub(crate) const UNTYPED_ATOMIC: &str = "__untyped_atomic_";
pub(crate) const UNTYPED_DEDUCED: &str = "__untyped_deduced_";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const RAW_EXTENSION: &str = "io.k8s.apimachinery.pkg.runtime.RawExtension";

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// An integer or a float.
    Numeric,
    /// A string.
    String,
    /// A boolean.
    Boolean,
    /// Any scalar.
    Untyped,
}

/// How a map's or a list's elements are owned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relationship {
    /// Each element separately (`granular` maps, structs).
    Separable,
    /// The whole value at once (`atomic` maps and lists).
    Atomic,
    /// Each list element by its key fields or value (`map` and `set` lists).
    Associative,
}

/// A reference to a type: an index into the schema's table, and perhaps a
/// relationship that overrides the type's own (a `$ref` site's
/// `x-kubernetes-map-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeRef {
    pub(crate) id: u32,
    pub(crate) relationship: Option<Relationship>,
}

/// A field of a struct.
#[derive(Clone, Debug)]
pub struct Field {
    pub(crate) ty: TypeRef,
    /// The field's `default`, used for a missing key field of a list element.
    pub(crate) default: Option<Value>,
}

/// A map or a struct.
#[derive(Clone, Debug)]
pub struct MapType {
    pub(crate) fields: HashMap<String, Field>,
    /// The type of keys that are not fields; `None`: no other key is allowed.
    pub(crate) element: Option<TypeRef>,
    pub(crate) relationship: Relationship,
}

impl MapType {
    /// The type of a key's value: its field's type or the element type.
    pub(crate) fn type_of(&self, key: &str) -> Option<TypeRef> {
        self.fields.get(key).map(|f| f.ty).or(self.element)
    }
}

/// A list.
#[derive(Clone, Debug)]
pub struct ListType {
    pub(crate) element: TypeRef,
    pub(crate) relationship: Relationship,
    /// The key fields of a list of type `map`; empty for a `set`.
    pub(crate) keys: Vec<String>,
}

/// A type: what a value of it may be (several of these for untyped types).
#[derive(Clone, Debug, Default)]
pub struct Atom {
    pub(crate) scalar: Option<Scalar>,
    pub(crate) list: Option<ListType>,
    pub(crate) map: Option<MapType>,
}

#[derive(Clone, Debug)]
enum Def {
    Atom(Atom),
    /// A name that was referred to but never defined.
    Missing(String),
}

/// A schema: a table of types, named and inlined.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    defs: Vec<Def>,
    names: HashMap<String, u32>,
    /// `x-kubernetes-group-version-kind` of the named types:
    /// (group, version, kind) → type name.
    kinds: Vec<(String, String, String, String)>,
}

/// A type as an operation sees it: its atom, with the relationship
/// override of the reference applied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved<'s> {
    pub(crate) scalar: Option<Scalar>,
    pub(crate) list: Option<(&'s ListType, Relationship)>,
    pub(crate) map: Option<(&'s MapType, Relationship)>,
}

impl Resolved<'_> {
    /// `deduceAtom`: the one part of the type the value's kind matches,
    /// or the whole type when none does.
    pub(crate) fn deduce(self, v: Option<&Value>) -> Self {
        let none = Resolved { scalar: None, list: None, map: None };
        match v {
            Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if self.scalar.is_some() => {
                Resolved { scalar: self.scalar, ..none }
            }
            Some(Value::Array(_)) if self.list.is_some() => Resolved { list: self.list, ..none },
            Some(Value::Object(_)) if self.map.is_some() => Resolved { map: self.map, ..none },
            _ => self,
        }
    }

    /// Whether two deductions of one type are the same.
    pub(crate) fn same(&self, other: &Self) -> bool {
        self.scalar.is_some() == other.scalar.is_some()
            && self.list.is_some() == other.list.is_some()
            && self.map.is_some() == other.map.is_some()
    }
}

/// Why a schema could not be read.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SchemaError(pub String);

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for SchemaError {}

impl Schema {
    fn push(&mut self, d: Def) -> u32 {
        self.defs.push(d);
        (self.defs.len() - 1) as u32
    }

    /// The index of a name, allocating a placeholder for a name not yet seen.
    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.push(Def::Missing(name.to_string()));
        self.names.insert(name.to_string(), id);
        id
    }

    /// The type named `name`, if the schema defines it.
    pub fn root(&self, name: &str) -> Option<TypeRef> {
        let id = *self.names.get(name)?;
        matches!(self.defs[id as usize], Def::Atom(_)).then_some(TypeRef { id, relationship: None })
    }

    /// The name of the type marked with this group, version and kind
    /// (`x-kubernetes-group-version-kind`).
    pub fn kind_definition(&self, group: &str, version: &str, kind: &str) -> Option<&str> {
        self.kinds.iter().find(|(g, v, k, _)| g == group && v == version && k == kind).map(|(_, _, _, n)| n.as_str())
    }

    /// The groups, versions and kinds a type is marked with.
    pub fn kinds_of(&self, definition: &str) -> Vec<(String, String, String)> {
        self.kinds
            .iter()
            .filter(|(_, _, _, n)| n == definition)
            .map(|(g, v, k, _)| (g.clone(), v.clone(), k.clone()))
            .collect()
    }

    /// `Schema.Resolve`: `Err(name)` for a type that is not defined (or an
    /// override on a scalar, which the reference cannot resolve either).
    pub(crate) fn resolve(&self, tr: TypeRef) -> Result<Resolved<'_>, String> {
        let atom = match self.defs.get(tr.id as usize) {
            Some(Def::Atom(a)) => a,
            Some(Def::Missing(n)) => return Err(n.clone()),
            // A reference from another schema.
            None => return Err("inlined type".into()),
        };
        let mut r = Resolved {
            scalar: atom.scalar,
            list: atom.list.as_ref().map(|l| (l, l.relationship)),
            map: atom.map.as_ref().map(|m| (m, m.relationship)),
        };
        if let Some(rel) = tr.relationship {
            if let Some((m, _)) = r.map {
                r.map = Some((m, rel));
            } else if let Some((l, _)) = r.list {
                r.list = Some((l, rel));
            } else {
                return Err(self.name_of(tr).unwrap_or("inlined type").to_string());
            }
        }
        Ok(r)
    }

    pub(crate) fn name_of(&self, tr: TypeRef) -> Option<&str> {
        self.names.iter().find(|(_, id)| **id == tr.id).map(|(n, _)| n.as_str())
    }

    pub(crate) fn is_untyped_deduced(&self, tr: TypeRef) -> bool {
        self.names.get(UNTYPED_DEDUCED) == Some(&tr.id) && tr.relationship.is_none()
    }

    fn named(&mut self, name: &str) -> TypeRef {
        TypeRef { id: self.name_id(name), relationship: None }
    }

    fn define(&mut self, name: &str, atom: Atom) {
        let id = self.name_id(name);
        self.defs[id as usize] = Def::Atom(atom);
    }

    fn add_common_types(&mut self) {
        let atomic = self.named(UNTYPED_ATOMIC);
        let deduced = self.named(UNTYPED_DEDUCED);
        let untyped_atomic = Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(ListType { element: atomic, relationship: Relationship::Atomic, keys: vec![] }),
            map: Some(MapType { fields: HashMap::new(), element: Some(atomic), relationship: Relationship::Atomic }),
        };
        let untyped_deduced = Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(ListType { element: atomic, relationship: Relationship::Atomic, keys: vec![] }),
            map: Some(MapType {
                fields: HashMap::new(),
                element: Some(deduced),
                relationship: Relationship::Separable,
            }),
        };
        self.define(UNTYPED_ATOMIC, untyped_atomic);
        self.define(UNTYPED_DEDUCED, untyped_deduced);
    }

    /// A schema of one type that takes any value as untyped and deduced
    /// (`DeducedParseableType`): maps are granular, lists atomic.
    pub fn deduced() -> (Schema, TypeRef) {
        let mut s = Schema::default();
        s.add_common_types();
        let root = s.named(UNTYPED_DEDUCED);
        (s, root)
    }

    /// Reads the `components.schemas` of an OpenAPI v3 document (or, given
    /// an object without `components`, that object as the schemas map).
    pub fn from_openapi_v3(doc: &Value) -> Result<Schema, SchemaError> {
        crate::nesting::check_nesting(doc).map_err(|e| SchemaError(e.to_string()))?;
        let schemas = match doc.get("components") {
            Some(c) => c.get("schemas"),
            None => Some(doc),
        };
        let Some(Value::Object(models)) = schemas else {
            return Err(SchemaError("OpenAPI v3 document has no components.schemas".into()));
        };
        let mut c = Converter { schema: Schema::default(), errors: Vec::new() };
        // Names first, so that references find them.
        for name in models.keys() {
            c.schema.name_id(name);
        }
        for (name, spec) in models {
            if ref_of(spec).is_some_and(|r| !r.is_empty()) {
                continue;
            }
            let atom = if name == QUANTITY {
                Atom { scalar: Some(Scalar::Untyped), ..Atom::default() }
            } else if name == RAW_EXTENSION {
                let atomic = c.schema.named(UNTYPED_ATOMIC);
                Atom {
                    scalar: Some(Scalar::Untyped),
                    list: Some(ListType { element: atomic, relationship: Relationship::Atomic, keys: vec![] }),
                    map: Some(MapType {
                        fields: HashMap::new(),
                        element: Some(atomic),
                        relationship: Relationship::Atomic,
                    }),
                }
            } else {
                c.visit(spec, name, false)
            };
            if atom.scalar.is_some() || atom.list.is_some() || atom.map.is_some() {
                c.schema.define(name, atom);
            }
            for gvk in gvks(spec) {
                c.schema.kinds.push((gvk.0, gvk.1, gvk.2, name.clone()));
            }
        }
        if !c.errors.is_empty() {
            c.errors.sort();
            return Err(SchemaError(format!("failed to convert models to schema: {}", c.errors.join("\n"))));
        }
        c.schema.add_common_types();
        Ok(c.schema)
    }
}

fn ref_of(spec: &Value) -> Option<&str> {
    spec.get("$ref").and_then(Value::as_str)
}

fn gvks(spec: &Value) -> Vec<(String, String, String)> {
    let Some(Value::Array(list)) = spec.get("x-kubernetes-group-version-kind") else { return vec![] };
    list.iter()
        .filter_map(|e| {
            let g = e.get("group")?.as_str()?;
            let v = e.get("version")?.as_str()?;
            let k = e.get("kind")?.as_str()?;
            (!k.is_empty()).then(|| (g.to_string(), v.to_string(), k.to_string()))
        })
        .collect()
}

struct Converter {
    schema: Schema,
    errors: Vec<String>,
}

fn obj(v: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    v.as_object().unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

impl Converter {
    fn error(&mut self, at: &str, msg: String) {
        self.errors.push(format!("{at}: {msg}"));
    }

    /// `visitSpec`: a schema's atom; `x-kubernetes-preserve-unknown-fields`
    /// holds for everything inlined below it.
    fn visit(&mut self, spec: &Value, at: &str, preserve: bool) -> Atom {
        let preserve = preserve || spec.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let ty = match spec.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Array(a)) => a.first().and_then(Value::as_str).unwrap_or(""),
            _ => "",
        };
        match ty {
            "" => Atom {
                scalar: Some(Scalar::Untyped),
                list: Some(self.list(spec, at, preserve, false)),
                map: Some(self.object(spec, at, preserve)),
            },
            "object" => Atom { map: Some(self.object(spec, at, preserve)), ..Atom::default() },
            "array" => Atom { list: Some(self.list(spec, at, preserve, true)), ..Atom::default() },
            "integer" | "number" => Atom { scalar: Some(Scalar::Numeric), ..Atom::default() },
            "boolean" => Atom { scalar: Some(Scalar::Boolean), ..Atom::default() },
            "string" => {
                let format = spec.get("format").and_then(Value::as_str).unwrap_or("");
                let s = if format.is_empty() || format == "byte" { Scalar::String } else { Scalar::Untyped };
                Atom { scalar: Some(s), ..Atom::default() }
            }
            other => {
                self.error(at, format!("unrecognized type: '{other}'"));
                Atom { scalar: Some(Scalar::Untyped), ..Atom::default() }
            }
        }
    }

    /// `makeOpenAPIRef`: a named type, or an inlined one.
    fn type_ref(&mut self, spec: &Value, at: &str, preserve: bool) -> TypeRef {
        let mut r = ref_of(spec).unwrap_or("");
        if r.is_empty()
            && let Some(Value::Array(all)) = spec.get("allOf")
            && all.len() == 1
        {
            r = ref_of(&all[0]).unwrap_or("");
        }
        let name = r.rsplit('/').next().unwrap_or("");
        if !name.is_empty() {
            let relationship = self.map_relationship(obj(spec), at);
            let id = self.schema.name_id(name);
            return TypeRef { id, relationship };
        }
        let inner_at = format!("inlined in {at}");
        let atom = self.visit(spec, &inner_at, preserve);
        let id = self.schema.push(Def::Atom(atom));
        TypeRef { id, relationship: None }
    }

    fn map_relationship(&mut self, ext: &Map<String, Value>, at: &str) -> Option<Relationship> {
        match ext.get("x-kubernetes-map-type")? {
            Value::String(s) if s == "atomic" => Some(Relationship::Atomic),
            Value::String(s) if s == "granular" => Some(Relationship::Separable),
            other => {
                self.error(at, format!("unknown map type {}", go_text(other)));
                None
            }
        }
    }

    fn object(&mut self, spec: &Value, at: &str, preserve: bool) -> MapType {
        let mut fields = HashMap::new();
        let props = spec.get("properties").map(obj);
        if let Some(props) = props {
            for (name, member) in props {
                let ty = self.type_ref(member, at, preserve);
                fields.insert(name.clone(), Field { ty, default: member.get("default").cloned() });
            }
        }
        let element = match spec.get("additionalProperties") {
            None | Some(Value::Null) => {
                if preserve || props.is_none_or(|p| p.is_empty()) {
                    Some(self.schema.named(UNTYPED_DEDUCED))
                } else {
                    None
                }
            }
            Some(Value::Bool(true)) => Some(self.schema.named(UNTYPED_DEDUCED)),
            Some(Value::Bool(false)) => None,
            Some(s) => Some(self.type_ref(s, at, preserve)),
        };
        let relationship = self.map_relationship(obj(spec), at).unwrap_or(Relationship::Separable);
        MapType { fields, element, relationship }
    }

    fn list(&mut self, spec: &Value, at: &str, preserve: bool, typed: bool) -> ListType {
        let ext = obj(spec);
        let (relationship, keys) = self.list_relationship(ext, at);
        let element = match spec.get("items") {
            Some(items @ Value::Object(_)) => self.type_ref(items, at, preserve),
            Some(Value::Array(_)) => {
                self.error(at, "structural schema arrays must have exactly one member subtype".into());
                self.schema.named(UNTYPED_DEDUCED)
            }
            _ => {
                if typed {
                    self.error(at, "`items` must be specified on arrays".into());
                }
                self.schema.named(UNTYPED_ATOMIC)
            }
        };
        ListType { element, relationship, keys }
    }

    fn list_relationship(&mut self, ext: &Map<String, Value>, at: &str) -> (Relationship, Vec<String>) {
        if let Some(t) = ext.get("x-kubernetes-list-type") {
            return match t.as_str() {
                Some("atomic") => (Relationship::Atomic, vec![]),
                Some("set") => (Relationship::Associative, vec![]),
                Some("map") => match ext.get("x-kubernetes-list-map-keys") {
                    None => {
                        self.error(at, "missing map keys".into());
                        (Relationship::Associative, vec![])
                    }
                    Some(Value::Array(keys)) => {
                        (Relationship::Associative, keys.iter().filter_map(|k| k.as_str().map(String::from)).collect())
                    }
                    Some(other) => {
                        self.error(at, format!("uninterpreted map keys: {}", go_text(other)));
                        (Relationship::Associative, vec![])
                    }
                },
                _ => {
                    self.error(at, format!("unknown list type {}", go_text(t)));
                    (Relationship::Atomic, vec![])
                }
            };
        }
        if let Some(s) = ext.get("x-kubernetes-patch-strategy") {
            return match s.as_str() {
                Some("merge" | "merge,retainKeys") => match ext.get("x-kubernetes-patch-merge-key") {
                    Some(Value::String(k)) => (Relationship::Associative, vec![k.clone()]),
                    Some(other) => {
                        self.error(at, format!("uninterpreted merge key: {}", go_text(other)));
                        (Relationship::Associative, vec![])
                    }
                    None => (Relationship::Associative, vec![]),
                },
                Some("retainKeys") => (Relationship::Atomic, vec![]),
                _ => {
                    self.error(at, format!("unknown patch strategy {}", go_text(s)));
                    (Relationship::Atomic, vec![])
                }
            };
        }
        (Relationship::Atomic, vec![])
    }
}

fn go_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_markers_and_defaults_as_the_reference() {
        let doc = json!({"components": {"schemas": {
            "T": {"type": "object", "properties": {
                "m": {"type": "array", "items": {"$ref": "#/components/schemas/E"},
                      "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
                "s": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "plain": {"type": "array", "items": {"type": "string"}},
                "merged": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "sel": {"allOf": [{"$ref": "#/components/schemas/E"}], "x-kubernetes-map-type": "atomic"},
                "any": {"x-kubernetes-int-or-string": true}
            }},
            "E": {"type": "object", "properties": {"name": {"type": "string"}}}
        }}});
        let s = Schema::from_openapi_v3(&doc).unwrap();
        let t = s.resolve(s.root("T").unwrap()).unwrap();
        let (m, _) = t.map.unwrap();
        let list = |k: &str| s.resolve(m.fields[k].ty).unwrap().list.unwrap();
        assert_eq!(list("m").1, Relationship::Associative);
        assert_eq!(list("m").0.keys, vec!["name".to_string()]);
        assert_eq!(list("s").1, Relationship::Associative);
        assert!(list("s").0.keys.is_empty());
        assert_eq!(list("plain").1, Relationship::Atomic);
        assert_eq!(list("merged").1, Relationship::Associative);
        assert!(m.element.is_none());
        let sel = s.resolve(m.fields["sel"].ty).unwrap();
        assert_eq!(sel.map.unwrap().1, Relationship::Atomic);
        let any = s.resolve(m.fields["any"].ty).unwrap();
        assert!(any.scalar.is_some() && any.list.is_some() && any.map.is_some());
    }

    #[test]
    fn bad_markers_are_errors() {
        let doc = json!({"components": {"schemas": {
            "T": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "map"}
        }}});
        let e = Schema::from_openapi_v3(&doc).unwrap_err();
        assert_eq!(e.0, "failed to convert models to schema: T: missing map keys");
    }
}
