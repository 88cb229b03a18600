//! Strict apply: a patch naming a field the schema does not have is an
//! error at that field's path, as the API server's `fieldValidation=Strict`
//! refuses it (where a typo such as `containres` would otherwise be merged
//! in as data).

use super::check_depth;
use crate::directive::{ListDirective, PATCH, PATCH_MERGE_KEY, RETAIN_KEYS};
use crate::error::{ErrorKind, Result};
use crate::schema::Schema;
use serde_json::{Map, Value};

/// Checks every key of `patch` (and below it) against the schema. Where the
/// schema cannot tell (untyped values, maps), everything is accepted.
pub(crate) fn check_known_fields(patch: &Map<String, Value>, schema: Schema<'_>, patch_merge_key: bool) -> Result<()> {
    check_map(patch, schema, patch_merge_key, 0)
}

fn check_map(patch: &Map<String, Value>, schema: Schema<'_>, pmk: bool, depth: usize) -> Result<()> {
    check_depth(depth)?;
    for (key, value) in patch {
        if key == PATCH || key == RETAIN_KEYS || (pmk && key == PATCH_MERGE_KEY) {
            continue;
        }
        // `$setElementOrder/f` and `$deleteFromPrimitiveList/f` name field `f`.
        let field = ListDirective::parse(key).map_or(key.as_str(), |(_, field)| field);
        if schema.knows_field(field) == Some(false) {
            return Err(crate::Error::from(ErrorKind::StrictUnknownField(field.to_string())).at_key(field));
        }
        if field != key {
            continue;
        }
        let checked = match value {
            Value::Object(m) => match schema.lookup_struct(key) {
                Ok((sub, _)) => check_map(m, sub, pmk, depth + 1),
                // The engine reports the lookup where it needs it.
                Err(_) => Ok(()),
            },
            Value::Array(list) => match schema.lookup_slice(key) {
                Ok((elem, _)) => list.iter().enumerate().try_for_each(|(i, e)| match e {
                    Value::Object(m) => {
                        check_map(m, elem, pmk, depth + 1).map_err(|err| err.within(crate::error::Segment::Index(i)))
                    }
                    _ => Ok(()),
                }),
                Err(_) => Ok(()),
            },
            _ => Ok(()),
        };
        checked.map_err(|e| e.at_key(key))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::schema::{FieldSchema, MergeKey, Shape, Strategy, StructSchema};
    use crate::{ApplyOptions, OpenApi, Schema, apply, apply_with};
    use serde_json::json;

    static CONTAINER: StructSchema = StructSchema {
        name: "Container",
        fields: &[
            FieldSchema::new("name", Strategy::NONE, None, || Shape::Scalar),
            FieldSchema::new("image", Strategy::NONE, None, || Shape::Scalar),
            FieldSchema::new("env", Strategy::MERGE, Some(MergeKey::One("name")), || {
                Shape::List(|| Shape::Struct(&ENV))
            }),
            FieldSchema::new("labels", Strategy::NONE, None, || Shape::Map(|| Shape::Scalar)),
        ],
    };
    static ENV: StructSchema = StructSchema {
        name: "EnvVar",
        fields: &[
            FieldSchema::new("name", Strategy::NONE, None, || Shape::Scalar),
            FieldSchema::new("value", Strategy::NONE, None, || Shape::Scalar),
        ],
    };
    static SPEC: StructSchema = StructSchema {
        name: "PodSpec",
        fields: &[FieldSchema::new("containers", Strategy::MERGE, Some(MergeKey::One("name")), || {
            Shape::List(|| Shape::Struct(&CONTAINER))
        })],
    };

    const STRICT: ApplyOptions = ApplyOptions { strict: true, patch_merge_key: false };

    #[test]
    fn strict_apply_refuses_unknown_fields_with_their_path() {
        let live = json!({"containers": [{"name": "app", "image": "a"}]});
        let schema = Schema::of_struct(&SPEC);
        let typo = json!({"containres": [{"name": "app", "image": "b"}]});
        // Without the option the typo is merged in as data, as the reference does.
        assert_eq!(apply(&live, &typo, schema).unwrap()["containres"], typo["containres"]);
        let e = apply_with(&live, &typo, schema, STRICT).unwrap_err();
        assert_eq!(e.to_string(), r#"containres: unknown field "containres""#);

        let deep = json!({"containers": [{"name": "app", "env": [{"name": "A", "valeu": "1"}]}]});
        let e = apply_with(&live, &deep, schema, STRICT).unwrap_err();
        assert_eq!(e.to_string(), r#"containers[0].env[0].valeu: unknown field "valeu""#);

        let order = json!({"$setElementOrder/containerz": [{"name": "app"}]});
        let e = apply_with(&live, &order, schema, STRICT).unwrap_err();
        assert_eq!(e.to_string(), r#"containerz: unknown field "containerz""#);

        // Directives, maps and known fields pass, and the result is apply's.
        let fine = json!({"containers": [{"name": "app", "image": "b", "labels": {"any": "x"}}],
            "$setElementOrder/containers": [{"name": "app"}]});
        assert_eq!(apply_with(&live, &fine, schema, STRICT).unwrap(), apply(&live, &fine, schema).unwrap());
        assert_eq!(apply_with(&json!({}), &json!({"x": 1}), Schema::Untyped, STRICT).unwrap(), json!({"x": 1}));
    }

    #[test]
    fn strict_apply_reads_openapi_documents() {
        let v3 = OpenApi::from_value(json!({"openapi": "3.0.0", "components": {"schemas": {
            "spec": {"properties": {"replicas": {"type": "integer"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}
        }}}))
        .unwrap();
        let schema = v3.definition("spec").unwrap();
        let live = json!({"replicas": 1});
        let ok = json!({"replicas": 2, "labels": {"a": "b"}});
        assert_eq!(apply_with(&live, &ok, schema, STRICT).unwrap(), json!({"replicas": 2, "labels": {"a": "b"}}));
        let e = apply_with(&live, &json!({"replicsa": 2}), schema, STRICT).unwrap_err();
        assert_eq!(e.to_string(), r#"replicsa: unknown field "replicsa""#);
    }
}
