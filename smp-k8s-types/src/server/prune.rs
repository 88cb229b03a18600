//! Unknown fields dropped as the server drops them: a built-in kind keeps
//! the fields its Go type has; a custom resource keeps what its structural
//! schema allows (`properties`, `additionalProperties`,
//! `x-kubernetes-preserve-unknown-fields`). The paths of the dropped
//! fields become warnings or, with `fieldValidation=Strict`, the error.

use super::catalog::KindSchema;
use serde_json::{Map, Value};
use smp_core::Shape;

/// Drops the fields of `object` its schema does not know; returns their
/// paths, as the server's `unknown field "spec.foo"` names them.
pub fn prune(object: &mut Value, schema: &KindSchema) -> Vec<String> {
    let mut unknown = Vec::new();
    let Value::Object(map) = object else { return unknown };
    map.retain(|key, value| match key.as_str() {
        "apiVersion" | "kind" => true,
        "metadata" => {
            let meta =
                <k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta as smp_core::StrategicMerge>::shape();
            builtin(value, meta, "metadata", &mut unknown);
            true
        }
        _ => match schema {
            KindSchema::BuiltIn(Shape::Struct(s)) => match field_shape(s, key) {
                Some(Some(shape)) => {
                    builtin(value, shape, key, &mut unknown);
                    true
                }
                Some(None) => true,
                None => {
                    unknown.push(key.clone());
                    false
                }
            },
            KindSchema::BuiltIn(_) => true,
            KindSchema::Custom(root) => custom_field(root, key, value, key, &mut unknown),
        },
    });
    unknown.sort();
    unknown
}

/// The shape of a struct's field by exact JSON name, looking into
/// flattened fields: `Some(None)` when a flattened map takes any key.
fn field_shape(s: &smp_core::StructSchema, key: &str) -> Option<Option<Shape>> {
    if let Some(f) = s.fields.iter().find(|f| !f.flatten && f.name == key) {
        return Some(Some((f.shape)()));
    }
    for f in s.fields.iter().filter(|f| f.flatten) {
        match (f.shape)() {
            Shape::Struct(inner) => {
                if let Some(found) = field_shape(inner, key) {
                    return Some(found);
                }
            }
            _ => return Some(None),
        }
    }
    None
}

/// A type that holds arbitrary JSON (`RawExtension`, `JSON`) or reads
/// itself from JSON of several shapes (`JSONSchemaPropsOrArray`): no
/// fields, or Go fields without a JSON name.
fn opaque(s: &smp_core::StructSchema) -> bool {
    s.fields.is_empty() || s.fields.iter().any(|f| f.name.starts_with(|c: char| c.is_ascii_uppercase()))
}

fn builtin(value: &mut Value, shape: Shape, path: &str, unknown: &mut Vec<String>) {
    match (shape, value) {
        (Shape::Struct(s), _) if opaque(s) => {}
        (Shape::Struct(s), Value::Object(map)) => map.retain(|key, value| match field_shape(s, key) {
            Some(Some(shape)) => {
                builtin(value, shape, &format!("{path}.{key}"), unknown);
                true
            }
            Some(None) => true,
            None => {
                unknown.push(format!("{path}.{key}"));
                false
            }
        }),
        (Shape::Map(inner), Value::Object(map)) => {
            for (key, value) in map.iter_mut() {
                builtin(value, inner(), &format!("{path}.{key}"), unknown);
            }
        }
        (Shape::List(inner), Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                builtin(item, inner(), &format!("{path}[{i}]"), unknown);
            }
        }
        _ => {}
    }
}

/// Prunes `value` under the property `key` of a schema node; false when
/// the node has no such property and keeps no unknown fields.
fn custom_field(node: &Value, key: &str, value: &mut Value, path: &str, unknown: &mut Vec<String>) -> bool {
    if let Some(child) = node.get("properties").and_then(|p| p.get(key)) {
        custom(child, value, path, unknown);
        return true;
    }
    if let Some(additional) = node.get("additionalProperties") {
        if additional.is_object() {
            custom(additional, value, path, unknown);
        }
        return additional != &Value::Bool(false);
    }
    if preserves(node) {
        return true;
    }
    unknown.push(path.to_string());
    false
}

fn preserves(node: &Value) -> bool {
    node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        || node.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

/// Prunes `value` by the schema node `node`.
fn custom(node: &Value, value: &mut Value, path: &str, unknown: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let typed_object = node.get("type").is_none_or(|t| t == "object");
            if !typed_object {
                return;
            }
            if node.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true)) {
                embedded(node, map, path, unknown);
                return;
            }
            if node.get("properties").is_none() && node.get("additionalProperties").is_none() && preserves(node) {
                return;
            }
            map.retain(|key, value| custom_field(node, key, value, &format!("{path}.{key}"), unknown));
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                for (i, element) in items.iter_mut().enumerate() {
                    custom(item, element, &format!("{path}[{i}]"), unknown);
                }
            }
        }
        _ => {}
    }
}

/// An embedded object keeps `apiVersion`, `kind` and its metadata.
fn embedded(node: &Value, map: &mut Map<String, Value>, path: &str, unknown: &mut Vec<String>) {
    map.retain(|key, value| {
        matches!(key.as_str(), "apiVersion" | "kind" | "metadata")
            || custom_field(node, key, value, &format!("{path}.{key}"), unknown)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn built_in_kinds_keep_the_fields_of_their_types() {
        let shape = crate::shape_of_kind("apps/v1", "Deployment").unwrap();
        let mut d = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "colour": "red", "labels": {"any": "thing"}},
            "spec": {"replicas": 1, "extra": 1, "template": {"spec": {"containers": [{"name": "a", "bogus": true}]}}},
            "top": 1
        });
        let unknown = prune(&mut d, &KindSchema::BuiltIn(shape));
        assert_eq!(unknown, ["metadata.colour", "spec.extra", "spec.template.spec.containers[0].bogus", "top"]);
        assert_eq!(d["spec"]["template"]["spec"]["containers"][0], json!({"name": "a"}));
        assert_eq!(d["metadata"]["labels"]["any"], "thing");
    }

    #[test]
    fn values_of_several_shapes_and_raw_json_are_kept_whole() {
        let shape = crate::shape_of_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").unwrap();
        let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}},
            "additionalProperties": false});
        let mut crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}});
        let before = crd.clone();
        assert_eq!(prune(&mut crd, &KindSchema::BuiltIn(shape)), Vec::<String>::new());
        assert_eq!(crd, before);
    }

    #[test]
    fn custom_resources_keep_what_the_structural_schema_allows() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}
            }},
            "status": {"type": "object"}
        }});
        let mut cr = json!({
            "apiVersion": "example.com/v1", "kind": "Backend", "metadata": {"name": "b"},
            "spec": {"replicas": 1, "labels": {"a": "b"}, "free": {"x": {"y": 1}}, "ports": [{"name": "http", "port": 80}], "gone": 1},
            "status": {"ready": true},
            "extra": {}
        });
        let unknown = prune(&mut cr, &KindSchema::Custom(Arc::new(schema)));
        assert_eq!(unknown, ["extra", "spec.gone", "spec.ports[0].port", "status.ready"]);
        assert_eq!(cr["spec"]["free"], json!({"x": {"y": 1}}));
        assert_eq!(cr["status"], json!({}));
    }
}
