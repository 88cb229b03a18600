//! structured-merge-diff's own schema format (its `schema.Schema`, as the
//! YAML of `typed.NewParser` and the reference's tests write it, read here
//! as JSON): `types`, each a `name` with a `scalar`, a `list` and/or a
//! `map`; a type reference is a `namedType` or an inlined atom, with an
//! optional `elementRelationship` override.

use super::{Atom, Def, Field, ListType, MapType, Relationship, Scalar, Schema, SchemaError, TypeRef};
use serde_json::{Map, Value};
use std::collections::HashMap;

impl Schema {
    /// Reads a schema in structured-merge-diff's own format
    /// (`{"types": [{"name": ..., "map": {"fields": [...]}}]}`); its types
    /// are then found by name ([`Schema::root`]). The reference's two
    /// untyped types are added unless the document defines them.
    pub fn from_structured_merge_diff(doc: &Value) -> Result<Schema, SchemaError> {
        crate::check_nesting(doc).map_err(|e| SchemaError(e.to_string()))?;
        let types = match doc.get("types") {
            None | Some(Value::Null) => &Vec::new(),
            Some(Value::Array(t)) => t,
            Some(_) => return Err(SchemaError("types: not a list".into())),
        };
        let mut r = Reader { schema: Schema::default() };
        for t in types {
            let name =
                t.get("name").and_then(Value::as_str).ok_or_else(|| SchemaError("a type without a name".into()))?;
            r.schema.name_id(name);
        }
        r.schema.add_common_types();
        for t in types {
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            let atom = r.atom(t).map_err(|e| SchemaError(format!("type {name}: {e}")))?;
            r.schema.define(name, atom);
        }
        Ok(r.schema)
    }
}

struct Reader {
    schema: Schema,
}

fn relationship(v: Option<&Value>, default: Relationship) -> Result<Relationship, String> {
    match v.and_then(Value::as_str) {
        None | Some("") => Ok(default),
        Some("atomic") => Ok(Relationship::Atomic),
        Some("associative") => Ok(Relationship::Associative),
        Some("separable") => Ok(Relationship::Separable),
        Some(other) => Err(format!("unknown element relationship {other:?}")),
    }
}

impl Reader {
    fn atom(&mut self, v: &Value) -> Result<Atom, String> {
        let scalar = match v.get("scalar").and_then(Value::as_str) {
            None => None,
            Some("numeric") => Some(Scalar::Numeric),
            Some("string") => Some(Scalar::String),
            Some("boolean") => Some(Scalar::Boolean),
            Some("untyped") => Some(Scalar::Untyped),
            Some(other) => return Err(format!("unknown scalar {other:?}")),
        };
        let list = match v.get("list") {
            Some(l @ Value::Object(_)) => Some(self.list(l)?),
            _ => None,
        };
        let map = match v.get("map") {
            Some(Value::Object(m)) => Some(self.map(m)?),
            _ => None,
        };
        Ok(Atom { scalar, list, map })
    }

    fn list(&mut self, l: &Value) -> Result<ListType, String> {
        let element = self.type_ref(l.get("elementType"))?.ok_or("a list without an element type")?;
        // The reference treats a list as atomic only when it says so, and
        // as associative (by keys or by value) only when it says so.
        let relationship = relationship(l.get("elementRelationship"), Relationship::Separable)?;
        let keys = match l.get("keys") {
            Some(Value::Array(k)) => k.iter().filter_map(Value::as_str).map(String::from).collect(),
            _ => Vec::new(),
        };
        Ok(ListType { element, relationship, keys })
    }

    fn map(&mut self, m: &Map<String, Value>) -> Result<MapType, String> {
        let mut fields = HashMap::new();
        if let Some(Value::Array(list)) = m.get("fields") {
            for f in list {
                let name = f.get("name").and_then(Value::as_str).ok_or("a field without a name")?;
                let ty = self.type_ref(f.get("type"))?.ok_or_else(|| format!("field {name}: no type"))?;
                fields.insert(name.to_string(), Field { ty, default: f.get("default").cloned() });
            }
        }
        let element = self.type_ref(m.get("elementType"))?;
        // Only `atomic` changes how a map's fields are owned.
        let relationship = match relationship(m.get("elementRelationship"), Relationship::Separable)? {
            Relationship::Atomic => Relationship::Atomic,
            _ => Relationship::Separable,
        };
        Ok(MapType { fields, element, relationship })
    }

    /// A reference: `None` for an empty one (a map's missing element type).
    fn type_ref(&mut self, v: Option<&Value>) -> Result<Option<TypeRef>, String> {
        let Some(v @ Value::Object(o)) = v else { return Ok(None) };
        let relationship = match o.get("elementRelationship") {
            None => None,
            r => Some(relationship(r, Relationship::Separable)?),
        };
        if let Some(name) = o.get("namedType").and_then(Value::as_str) {
            return Ok(Some(TypeRef { id: self.schema.name_id(name), relationship }));
        }
        let atom = self.atom(v)?;
        if atom.scalar.is_none() && atom.list.is_none() && atom.map.is_none() {
            return Ok(None);
        }
        let id = self.schema.push(Def::Atom(atom));
        Ok(Some(TypeRef { id, relationship }))
    }
}
