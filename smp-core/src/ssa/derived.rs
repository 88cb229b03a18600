//! The server-side-apply schema of derived types: the `#[patch(...)]`
//! attributes of a [`StrategicMerge`] type, read from its [`Shape`], as the
//! OpenAPI v3 markers the API server merges by, the same ones the CRD
//! transform `smp_k8s_types::crd::list_markers` writes:
//!
//! | field | schema |
//! |---|---|
//! | list, `strategy = "merge"` with a merge key | `x-kubernetes-list-type: map`, every key field in `x-kubernetes-list-map-keys` |
//! | list of scalars, `strategy = "merge"` | `x-kubernetes-list-type: set` |
//! | any other list | `x-kubernetes-list-type: atomic` |
//! | struct or map, `strategy = "replace"` | `x-kubernetes-map-type: atomic` |
//! | struct or map | granular, field by field or key by key |
//! | [`Shape::Any`] | untyped: maps granular, lists atomic |
//!
//! The document is read back by [`Schema::from_openapi_v3`], so a derived
//! type and a published schema go through one reader.

use super::{Error, Resource, Schema, SchemaError};
use crate::StrategicMerge;
use crate::schema::{FieldSchema, MergeKey, Shape};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Deeper than any Rust type's schema; what lies below is untyped.
const MAX_DEPTH: usize = 64;

/// The name of the object metadata's definition.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The OpenAPI v3 document (`components.schemas`) of a custom resource
/// whose `spec` is `Spec` and whose `status`, if any, is `Status`: one
/// definition per struct, the root marked with the `apiVersion` and `kind`
/// (`x-kubernetes-group-version-kind`), and `metadata` with the markers of
/// the API server's `ObjectMeta` (`finalizers` a set, `ownerReferences`
/// keyed by `uid`, `labels` and `annotations` granular).
pub fn openapi_v3<Spec: StrategicMerge, Status: StrategicMerge>(
    api_version: &str,
    kind: &str,
    with_status: bool,
) -> Value {
    let mut w = Writer::default();
    let mut root_props = Map::new();
    root_props.insert("apiVersion".into(), json!({"type": "string"}));
    root_props.insert("kind".into(), json!({"type": "string"}));
    root_props.insert("metadata".into(), reference(OBJECT_META));
    root_props.insert("spec".into(), w.shape(Spec::shape(), 0));
    if with_status {
        root_props.insert("status".into(), w.shape(Status::shape(), 0));
    }
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let root_name = root_name(api_version, kind);
    w.defs.insert(
        root_name,
        json!({
            "type": "object",
            "properties": root_props,
            "x-kubernetes-group-version-kind": [{"group": group, "version": version, "kind": kind}],
        }),
    );
    w.defs.insert(OBJECT_META.into(), object_meta());
    json!({"components": {"schemas": w.defs}})
}

/// The name of a custom resource's root definition: dotted, so that no
/// Rust struct name takes it.
fn root_name(api_version: &str, kind: &str) -> String {
    format!("{}.{kind}", api_version.replace('/', "."))
}

/// The server-side-apply schema of a custom resource whose `spec` is
/// `Spec` (and `status` is `Status` when `with_status`), read from
/// [`openapi_v3`]. [`DerivedSchema::resource`] serves it to
/// [`apply`](super::apply), [`update`](super::update) and [`apply_typed`].
#[derive(Clone, Debug)]
pub struct DerivedSchema {
    schema: Schema,
    api_version: String,
    kind: String,
}

impl DerivedSchema {
    /// The schema of objects of this `apiVersion` and `kind` with a `spec`
    /// of type `Spec` and no typed `status`.
    pub fn of_spec<Spec: StrategicMerge>(api_version: &str, kind: &str) -> Result<Self, SchemaError> {
        Self::read(openapi_v3::<Spec, Spec>(api_version, kind, false), api_version, kind)
    }

    /// The schema of objects with a `spec` of type `Spec` and a `status` of
    /// type `Status`.
    pub fn of_spec_and_status<Spec: StrategicMerge, Status: StrategicMerge>(
        api_version: &str,
        kind: &str,
    ) -> Result<Self, SchemaError> {
        Self::read(openapi_v3::<Spec, Status>(api_version, kind, true), api_version, kind)
    }

    fn read(doc: Value, api_version: &str, kind: &str) -> Result<Self, SchemaError> {
        let schema = Schema::from_openapi_v3(&doc)?;
        Ok(DerivedSchema { schema, api_version: api_version.into(), kind: kind.into() })
    }

    /// The schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The resource the engine's operations take.
    pub fn resource(&self) -> Resource<'_> {
        let root = self.schema.root(&root_name(&self.api_version, &self.kind)).expect("the root is always defined");
        Resource::new(&self.schema, root, &self.api_version, &self.kind)
    }
}

/// A server-side apply of a typed object (a kube custom resource, or any
/// value serialised with `apiVersion`, `kind`, `metadata` and `spec`) by
/// `manager`: [`apply`](super::apply) of its JSON form under `schema`.
/// Only the fields the value serialises are applied: leave out what the
/// manager does not mean to own (`Option` with `skip_serializing_if`).
pub fn apply_typed<T: Serialize>(
    schema: &DerivedSchema,
    live: Option<&Value>,
    applied: &T,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Value, Error> {
    let applied = serde_json::to_value(applied).map_err(|e| Error::Invalid(e.to_string()))?;
    super::apply(&schema.resource(), live, &applied, manager, force, now)
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The markers of `ObjectMeta` in the API server's own documents.
fn object_meta() -> Value {
    let s = json!({"type": "string"});
    let i = json!({"type": "integer"});
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {
            "name": s, "generateName": s, "namespace": s, "selfLink": s, "uid": s, "resourceVersion": s,
            "generation": i, "deletionGracePeriodSeconds": i,
            "creationTimestamp": {"type": "string", "format": "date-time"},
            "deletionTimestamp": {"type": "string", "format": "date-time"},
            "labels": string_map, "annotations": string_map,
            "finalizers": {"type": "array", "items": s, "x-kubernetes-list-type": "set"},
            "ownerReferences": {"type": "array", "items": {"type": "object"},
                                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"]},
            "managedFields": {"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "atomic"},
        },
    })
}

/// Writes one definition per struct; a struct met again (or a recursive
/// one) is a `$ref`.
#[derive(Default)]
struct Writer {
    defs: Map<String, Value>,
    /// Struct schemas already named, by address (two structs may share a
    /// Rust name).
    named: HashMap<usize, String>,
}

impl Writer {
    fn shape(&mut self, shape: Shape, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return untyped();
        }
        match shape {
            // A string, number or boolean: kube-openapi reads a string with
            // a format other than `byte` as a scalar of any kind.
            Shape::Scalar => json!({"type": "string", "format": "scalar"}),
            Shape::Any => untyped(),
            Shape::Map(values) => json!({"type": "object", "additionalProperties": self.shape(values(), depth + 1)}),
            Shape::List(items) => json!({"type": "array", "items": self.shape(items(), depth + 1)}),
            Shape::Struct(s) => {
                let addr = s as *const _ as usize;
                if let Some(name) = self.named.get(&addr) {
                    return reference(name);
                }
                let mut name = s.name.to_string();
                let mut n = 1;
                while self.defs.contains_key(&name) || self.named.values().any(|v| *v == name) {
                    n += 1;
                    name = format!("{}_{n}", s.name);
                }
                self.named.insert(addr, name.clone());
                // A placeholder, so that a nested struct of the same name
                // picks another.
                self.defs.insert(name.clone(), Value::Null);
                let mut props = Map::new();
                let mut rest = None;
                self.fields(s.fields, &mut props, &mut rest, depth);
                let mut def = Map::new();
                def.insert("type".into(), json!("object"));
                def.insert("properties".into(), Value::Object(props));
                if let Some(rest) = rest {
                    def.insert("additionalProperties".into(), rest);
                }
                self.defs.insert(name.clone(), Value::Object(def));
                reference(&name)
            }
        }
    }

    /// The properties of a struct's fields; a flattened struct adds its
    /// own, a flattened map takes every other key.
    fn fields(
        &mut self,
        fields: &[FieldSchema],
        props: &mut Map<String, Value>,
        rest: &mut Option<Value>,
        depth: usize,
    ) {
        for field in fields {
            let shape = (field.shape)();
            if field.flatten {
                match shape {
                    Shape::Struct(inner) if depth < MAX_DEPTH => self.fields(inner.fields, props, rest, depth + 1),
                    Shape::Map(values) => *rest = Some(self.shape(values(), depth + 1)),
                    _ => *rest = Some(untyped()),
                }
                continue;
            }
            let mut node = self.shape(shape, depth + 1);
            let Value::Object(m) = &mut node else { continue };
            match shape {
                Shape::List(items) => {
                    let list_type = match (field.strategy.merge, field.merge_key) {
                        (true, Some(key)) => {
                            m.insert("x-kubernetes-list-map-keys".into(), json!(key_fields(key)));
                            "map"
                        }
                        (true, None) if matches!(items(), Shape::Scalar) => "set",
                        _ => "atomic",
                    };
                    m.insert("x-kubernetes-list-type".into(), json!(list_type));
                }
                Shape::Struct(_) | Shape::Map(_) if field.strategy.replace => {
                    m.insert("x-kubernetes-map-type".into(), json!("atomic"));
                }
                _ => {}
            }
            props.insert(field.name.to_string(), node);
        }
    }
}

fn untyped() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true})
}

fn key_fields(key: MergeKey<'_>) -> Vec<&str> {
    match key {
        MergeKey::One(f) => vec![f],
        MergeKey::Several(fs) | MergeKey::Composite(fs) => fs.to_vec(),
    }
}
