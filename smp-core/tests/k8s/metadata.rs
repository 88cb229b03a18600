//! The patch metadata of the k8s-openapi implementations (`smp_core::k8s`)
//! is the project's table, `smp-k8s-types/generator/patch_metadata.txt`:
//! every row whose field exists in this Kubernetes version is in the
//! static schema, and no other field has patch metadata.
//!
//! The table lies beside smp-core in the workspace, not in its package:
//! from the package alone the tests that read it say so and skip.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, NodeStatus, PodSpec, ServiceSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use smp_core::{FieldSchema, Shape, StrategicMerge, StructSchema};
use std::collections::BTreeMap;
use std::path::Path;

/// The table's text; `None` (said loudly) outside the workspace.
fn table() -> Option<String> {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = package.join("../smp-k8s-types/generator/patch_metadata.txt");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        // In the workspace the table must be there: a move breaks the test.
        Err(e) if package.join("../Cargo.toml").exists() => panic!("{}: {e}", path.display()),
        Err(e) => {
            eprintln!("SKIPPED: {}: {e} (smp-core outside its workspace); the table was not compared", path.display());
            None
        }
    }
}

/// One row of the table: definition, field, strategy, merge key.
type Row<'t> = (&'t str, &'t str, &'t str, &'t str);

/// The table's rows (see its header for the layout).
fn rows(table: &str) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    let mut definition = "";
    for line in table.lines().map(|l| l.split('#').next().unwrap()) {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            definition = line.trim();
            continue;
        }
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            [field, strategy] => rows.push((definition, field, strategy, "")),
            [field, strategy, key] => rows.push((definition, field, strategy, key)),
            _ => panic!("bad row: {line:?}"),
        }
    }
    rows
}

fn fields(shape: Shape) -> &'static StructSchema {
    match shape {
        Shape::Struct(s) => s,
        other => panic!("not a struct: {other:?}"),
    }
}

/// The field with exactly this JSON name.
fn field(schema: &'static StructSchema, name: &str) -> Option<&'static FieldSchema> {
    schema.fields.iter().find(|f| f.name == name)
}

/// `(strategy, merge key)` of a field, written as the Go struct tags write them.
fn tags(f: &FieldSchema) -> (&'static str, &'static str) {
    let s = f.strategy;
    let strategy = match (s.merge, s.replace, s.retain_keys) {
        (false, false, false) => "",
        (true, false, false) => "merge",
        (false, true, false) => "replace",
        (false, false, true) => "retainKeys",
        (true, false, true) => "merge,retainKeys",
        other => panic!("{}: impossible strategy {other:?}", f.name),
    };
    (strategy, f.merge_key.map_or("", |k| k.primary()))
}

/// The merge key the API server uses: the first of the table's fields
/// (the others are the recommended merge keys).
fn primary(key: &str) -> &str {
    key.split(',').next().unwrap_or_default()
}

/// All the merge key fields of a field, comma-separated as in the table.
fn key_fields(f: &FieldSchema) -> String {
    match f.merge_key {
        None => String::new(),
        Some(k) => k.fields().join(","),
    }
}

/// `(strategy, merge key)` of a field of `T`.
fn meta<T: StrategicMerge>(name: &str) -> (&'static str, &'static str) {
    let schema = fields(T::shape());
    let f = field(schema, name).unwrap_or_else(|| panic!("{} has no field {name}", schema.name));
    tags(f)
}

#[test]
fn every_row_of_the_table_is_in_the_schemas() {
    let Some(text) = table() else { return };
    let rows = rows(&text);
    assert_eq!(rows.len(), 116, "the table has the 116 tagged fields");
    let (mut checked, mut newer_field, mut absent_type) = (0, Vec::new(), 0);
    for (definition, name, strategy, merge_key) in rows {
        let Some(shape) = smp_core::k8s::shape_of_definition(definition) else {
            // A group version this Kubernetes version does not serve.
            absent_type += 1;
            continue;
        };
        match field(fields(shape), name) {
            Some(f) => {
                assert_eq!(tags(f), (strategy, primary(merge_key)), "{definition}.{name}");
                assert_eq!(key_fields(f), merge_key, "{definition}.{name}: the recommended merge keys");
                checked += 1;
            }
            // A field added in a later version (the generator checks that
            // each row's field exists in some version).
            None => newer_field.push(format!("{definition}.{name}")),
        }
    }
    println!("checked {checked} rows; {absent_type} types not in this version; fields not yet in it: {newer_field:?}");
    assert_eq!(checked, ROWS_IN_THIS_VERSION);
}

// The rows of each version, as the generator maps them (the other types
// are served from later versions on, or no longer).
k8s_openapi::k8s_if_1_33! { const ROWS_IN_THIS_VERSION: usize = 60; }
k8s_openapi::k8s_if_1_34! { const ROWS_IN_THIS_VERSION: usize = 60; }
k8s_openapi::k8s_if_1_35! { const ROWS_IN_THIS_VERSION: usize = 63; }
k8s_openapi::k8s_if_1_36! { const ROWS_IN_THIS_VERSION: usize = 67; }
k8s_openapi::k8s_if_1_37! { const ROWS_IN_THIS_VERSION: usize = 90; }

#[test]
fn no_other_field_has_patch_metadata() {
    let Some(text) = table() else { return };
    let mut table: BTreeMap<(&str, &str), (&str, &str)> = BTreeMap::new();
    for (definition, name, strategy, merge_key) in rows(&text) {
        table.insert((definition, name), (strategy, primary(merge_key)));
    }
    let mut count = 0;
    for (definition, shape) in smp_core::k8s::definitions() {
        let Shape::Struct(schema) = shape else { continue };
        count += 1;
        for f in schema.fields {
            if tags(f) != ("", "") {
                assert_eq!(table.get(&(definition, f.name)), Some(&tags(f)), "{definition}.{}", f.name);
            }
        }
    }
    assert!(count > 500, "only {count} struct types");
}

#[test]
fn well_known_fields() {
    assert_eq!(meta::<PodSpec>("containers"), ("merge", "name"));
    assert_eq!(meta::<PodSpec>("initContainers"), ("merge", "name"));
    assert_eq!(meta::<PodSpec>("volumes"), ("merge,retainKeys", "name"));
    assert_eq!(meta::<PodSpec>("nodeSelector"), ("", ""));
    assert_eq!(meta::<Container>("env"), ("merge", "name"));
    assert_eq!(meta::<Container>("ports"), ("merge", "containerPort"));
    assert_eq!(meta::<Container>("volumeMounts"), ("merge", "mountPath"));
    assert_eq!(meta::<Container>("args"), ("", ""));
    assert_eq!(meta::<DeploymentSpec>("strategy"), ("retainKeys", ""));
    assert_eq!(meta::<ObjectMeta>("finalizers"), ("merge", ""));
    assert_eq!(meta::<ObjectMeta>("ownerReferences"), ("merge", "uid"));
    assert_eq!(meta::<ServiceSpec>("ports"), ("merge", "port"));
    assert_eq!(key_fields(field(fields(ServiceSpec::shape()), "ports").unwrap()), "port,protocol");
    assert_eq!(meta::<NodeStatus>("conditions"), ("merge", "type"));
}

#[test]
fn resources_have_constant_api_version_and_kind() {
    let schema = fields(Deployment::shape());
    assert_eq!(schema.name, "Deployment");
    let names: Vec<&str> = schema.fields.iter().map(|f| f.name).collect();
    assert_eq!(names, ["apiVersion", "kind", "metadata", "spec", "status"]);
    assert!(matches!((field(schema, "kind").unwrap().shape)(), Shape::Scalar));

    let by_kind = smp_core::k8s::shape_of_kind("apps/v1", "Deployment").map(fields);
    assert!(by_kind.is_some_and(|s| std::ptr::eq(s, schema)));
    let by_definition = smp_core::k8s::shape_of_definition("io.k8s.api.apps.v1.Deployment").map(fields);
    assert!(by_definition.is_some_and(|s| std::ptr::eq(s, schema)));
    assert!(smp_core::k8s::shape_of_kind("apps/v1", "Nothing").is_none());
}

#[test]
fn built_in_kinds_are_the_resources_with_schemas() {
    let resources: Vec<(&str, &str)> = smp_core::k8s::resources().map(|(a, k, _)| (a, k)).collect();
    assert!(resources.len() > 50, "{} resources", resources.len());
    for (api_version, kind) in &resources {
        assert!(smp_core::k8s::is_built_in(api_version, kind), "{api_version} {kind}");
        // A near miss of each is not.
        assert!(!smp_core::k8s::is_built_in(api_version, &format!("{kind}s")), "{api_version} {kind}s");
        assert!(!smp_core::k8s::is_built_in(&format!("x{api_version}"), kind), "x{api_version} {kind}");
    }
    // Each kind's schema is its own type's: the kinds and the schemas are
    // two tables read side by side.
    for (api_version, kind, shape) in smp_core::k8s::resources() {
        assert_eq!(fields(shape).name, kind, "{api_version} {kind}");
    }
    // Kinds of alpha and beta versions too, whose impls are a feature.
    assert!(resources.iter().any(|(a, _)| a.contains("beta") || a.contains("alpha")));
    assert!(!smp_core::k8s::is_built_in("stable.example.com/v1", "CronTab"));
}

#[test]
fn special_types() {
    assert!(matches!(Quantity::shape(), Shape::Scalar));
    assert!(matches!(Time::shape(), Shape::Scalar));
    assert!(matches!(MicroTime::shape(), Shape::Scalar));
    assert!(matches!(IntOrString::shape(), Shape::Scalar));
    assert!(matches!(k8s_openapi::ByteString::shape(), Shape::Scalar));
    // Go structs without JSON fields of their own.
    assert!(matches!(RawExtension::shape(), Shape::Struct(s) if s.name == "RawExtension" && s.fields.is_empty()));
    let json = k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON::shape();
    assert!(matches!(json, Shape::Struct(s) if s.name == "JSON" && s.fields.is_empty()));
    assert!(matches!(
        smp_core::k8s::shape_of_definition("io.k8s.apimachinery.pkg.api.resource.Quantity"),
        Some(Shape::Scalar)
    ));
    // A pod list: `items` has no patch metadata.
    let list = fields(k8s_openapi::List::<k8s_openapi::api::core::v1::Pod>::shape());
    assert_eq!(list.fields.iter().map(|f| f.name).collect::<Vec<_>>(), ["apiVersion", "kind", "items", "metadata"]);
}
