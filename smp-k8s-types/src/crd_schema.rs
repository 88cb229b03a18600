//! A CustomResourceDefinition as the schema of strategic merge patches.
//!
//! The API server refuses strategic merge patches on custom resources; a
//! client that computes one anyway (to merge on its side, then send a JSON
//! merge patch) needs patch metadata the CRD does not spell the way
//! kubectl reads it. [`openapi`] turns the CRDs' `openAPIV3Schema`s into
//! an OpenAPI v3 document that the engine reads like any other:
//!
//! - `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` are
//!   kept where a schema has them;
//! - where a list has neither, the server-side apply markers say how it
//!   merges: `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`
//!   becomes a merge by the first key (all the keys are also written as
//!   `x-smp-recommended-patch-merge-key`, and such lists are named in
//!   [`CrdSchemas::composite_keys`]), `set` a merge of scalars,
//!   `atomic` (or nothing) a replace;
//! - an object without `properties` (a map, or
//!   `x-kubernetes-preserve-unknown-fields`) merges without metadata below
//!   it, as `metadata` would without the next rule;
//! - `metadata` is the API server's `ObjectMeta` (finalizers merge as a
//!   set, owner references by `uid`), whatever the CRD says of it.
//!
//! Each version of a CRD is one definition, found by its group, version
//! and kind (`x-kubernetes-group-version-kind`); versions that share one
//! schema (a v1beta1 CRD's `validation`) share one definition. With a
//! version chosen, that version's schema serves every version of the kind.

use serde_json::{Map, Value, json};
use smp_core::OpenApi;
use smp_core::schema::RECOMMENDED_MERGE_KEY_EXT;

/// The name of the definition that stands for "no metadata below here".
const UNTYPED: &str = "smp.untyped";
/// The name of the `ObjectMeta` definition.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
/// Nesting deeper than this is refused rather than walked.
const MAX_DEPTH: usize = 128;

/// The CRDs' schemas as one OpenAPI document, and what a reader should
/// know about it.
#[derive(Debug)]
pub struct CrdSchemas {
    /// The OpenAPI v3 document.
    pub api: OpenApi,
    /// The definition of the version chosen (`version`, else the storage
    /// version) when there is one CRD: the schema of documents that say no
    /// `apiVersion` and `kind`.
    pub default_definition: Option<String>,
    /// Lists whose markers the strategic merge cannot follow (a map list
    /// without keys: replaced whole), with their paths.
    pub warnings: Vec<String>,
    /// Lists keyed by several fields: the strategic merge pairs their
    /// elements by the first field, and with `$patchMergeKey` by all of
    /// them. A client that merges without it would merge elements that
    /// differ only in the other fields (ports 53/TCP and 53/UDP).
    pub composite_keys: Vec<CompositeKey>,
}

/// A list keyed by several fields (`x-kubernetes-list-map-keys`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompositeKey {
    /// The list, as `Kind version.spec.ports`.
    pub path: String,
    /// Its key fields, in order.
    pub keys: Vec<String>,
}

/// What the translation found to tell.
#[derive(Default)]
struct Notes {
    warnings: Vec<String>,
    composite_keys: Vec<CompositeKey>,
}

/// Reads `crds` (parsed CustomResourceDefinition manifests,
/// `apiextensions.k8s.io/v1` or `v1beta1`) as patch metadata. With
/// `version`, every CRD must have that version, whose schema then serves
/// all the kind's versions.
///
/// ```
/// use serde_json::json;
/// use smp_k8s_types::crd_schema;
///
/// let crd = json!({
///     "apiVersion": "apiextensions.k8s.io/v1",
///     "kind": "CustomResourceDefinition",
///     "spec": {
///         "group": "example.com",
///         "names": {"kind": "Backend", "plural": "backends"},
///         "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
///             "type": "object",
///             "properties": {"spec": {"type": "object", "properties": {"ports": {
///                 "type": "array",
///                 "x-kubernetes-list-type": "map",
///                 "x-kubernetes-list-map-keys": ["name"],
///                 "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}
///             }}}}
///         }}}]
///     }
/// });
/// let schemas = crd_schema::openapi(&[crd], None).unwrap();
/// let schema = schemas.api.definition(schemas.default_definition.as_deref().unwrap()).unwrap();
/// let live = json!({"spec": {"ports": [{"name": "http", "port": 80}, {"name": "admin", "port": 9000}]}});
/// let patch = json!({"spec": {"ports": [{"name": "http", "port": 8080}]}});
/// let merged = smp_core::apply(&live, &patch, schema).unwrap();
/// assert_eq!(merged["spec"]["ports"], json!([{"name": "http", "port": 8080}, {"name": "admin", "port": 9000}]));
/// ```
pub fn openapi(crds: &[Value], version: Option<&str>) -> Result<CrdSchemas, String> {
    // Read below by recursive steps: refused first when too deep.
    crds.iter().try_for_each(smp_core::check_nesting).map_err(|e| e.to_string())?;
    let mut defs = Map::new();
    defs.insert(UNTYPED.into(), Value::Null);
    defs.insert(OBJECT_META.into(), object_meta());
    let mut notes = Notes::default();
    let mut chosen = Vec::new();
    for crd in crds {
        let found = Crd::read(crd)?;
        let wanted = found.wanted(version)?;
        // Versions that share one schema (a v1beta1 CRD's `validation`)
        // share one definition, translated once, named after the first of
        // them.
        let mut groups: Vec<(&Value, &str, Vec<&str>)> = Vec::new();
        for (name, schema, _) in &found.versions {
            if version.is_some_and(|v| v != name) {
                continue;
            }
            let Some(schema) = schema else { continue };
            match groups.iter_mut().find(|(shared, ..)| std::ptr::eq(*shared, *schema)) {
                Some((.., names)) => names.push(name.as_str()),
                None => groups.push((*schema, name.as_str(), vec![name.as_str()])),
            }
        }
        let mut wanted_definition = definition_name(&found, &wanted.0);
        for (schema, first, names) in groups {
            let path = match names.len() {
                1 => format!("{} {first}", found.kind),
                n => format!("{} {first} (and {} more versions)", found.kind, n - 1),
            };
            let mut def = translate(schema, &path, &mut notes, 0)?;
            if let Some(Value::Object(props)) = def.get_mut("properties") {
                props.insert("metadata".into(), reference(OBJECT_META));
            }
            let versions: Vec<&str> = match version {
                Some(_) => found.versions.iter().map(|(n, ..)| n.as_str()).collect(),
                None => names.clone(),
            };
            let gvks: Vec<Value> =
                versions.iter().map(|v| json!({"group": found.group, "version": v, "kind": found.kind})).collect();
            if let Value::Object(map) = &mut def {
                map.insert("x-kubernetes-group-version-kind".into(), Value::Array(gvks));
            }
            if names.contains(&wanted.0.as_str()) {
                wanted_definition = definition_name(&found, first);
            }
            defs.insert(definition_name(&found, first), def);
        }
        chosen.push(wanted_definition);
    }
    let default_definition = match chosen.as_slice() {
        [one] if defs.contains_key(one) => Some(one.clone()),
        _ => None,
    };
    let document = json!({"openapi": "3.0.0", "info": {"title": "CustomResourceDefinitions", "version": ""},
        "components": {"schemas": defs}});
    let api = OpenApi::from_value(document).map_err(|e| e.to_string())?;
    Ok(CrdSchemas { api, default_definition, warnings: notes.warnings, composite_keys: notes.composite_keys })
}

/// Checks what [`openapi`] checks of `crds` (each names its group, kind
/// and versions, and has `version` when given) without translating their
/// schemas: for patch types that take no metadata.
pub fn check(crds: &[Value], version: Option<&str>) -> Result<(), String> {
    crds.iter().try_for_each(smp_core::check_nesting).map_err(|e| e.to_string())?;
    crds.iter().try_for_each(|crd| Crd::read(crd)?.wanted(version).map(|_| ()))
}

/// What a CRD manifest says about its kind and versions.
struct Crd<'a> {
    name: String,
    group: &'a str,
    kind: &'a str,
    /// Each version: its name, its schema, and whether it is the storage
    /// version.
    versions: Vec<(String, Option<&'a Value>, bool)>,
}

impl<'a> Crd<'a> {
    fn read(crd: &'a Value) -> Result<Self, String> {
        let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("(unnamed)").to_string();
        if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            return Err(format!("{name}: not a CustomResourceDefinition"));
        }
        let text = |pointer: &str| crd.pointer(pointer).and_then(Value::as_str).filter(|s| !s.is_empty());
        let missing = |what: &str| format!("CRD {name}: no {what}");
        let group = text("/spec/group").ok_or_else(|| missing("spec.group"))?;
        let kind = text("/spec/names/kind").ok_or_else(|| missing("spec.names.kind"))?;
        // v1beta1: one schema for every version, which a version may override.
        let shared = crd.pointer("/spec/validation/openAPIV3Schema");
        let mut versions: Vec<(String, Option<&Value>, bool)> = match crd.pointer("/spec/versions") {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|v| {
                    let name = v.get("name")?.as_str()?.to_string();
                    let schema = v.pointer("/schema/openAPIV3Schema").or(shared);
                    Some((name, schema, v.get("storage").and_then(Value::as_bool) == Some(true)))
                })
                .collect(),
            _ => Vec::new(),
        };
        if versions.is_empty()
            && let Some(version) = text("/spec/version")
        {
            versions.push((version.to_string(), shared, true));
        }
        if versions.is_empty() {
            return Err(missing("versions"));
        }
        Ok(Crd { name, group, kind, versions })
    }

    /// `version`, which the CRD must have; without it, the storage
    /// version, else the first.
    fn wanted(&self, version: Option<&str>) -> Result<&(String, Option<&'a Value>, bool), String> {
        match version {
            Some(v) => self.versions.iter().find(|(name, ..)| name == v).ok_or_else(|| {
                let names: Vec<&str> = self.versions.iter().map(|(n, ..)| n.as_str()).collect();
                format!("CRD {}: no version {v:?} (it has {})", self.name, names.join(", "))
            }),
            None => Ok(self.versions.iter().find(|(.., storage)| *storage).unwrap_or(&self.versions[0])),
        }
    }
}

fn definition_name(crd: &Crd<'_>, version: &str) -> String {
    format!("{}.{version}.{}", crd.group, crd.kind)
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A schema node with the patch extensions the markers call for, and
/// objects without properties made untyped.
fn translate(node: &Value, path: &str, notes: &mut Notes, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path}: the schema is nested deeper than {MAX_DEPTH} levels"));
    }
    let Value::Object(node) = node else { return Ok(node.clone()) };
    if !node.get("properties").is_some_and(Value::is_object) && is_object(node) {
        return Ok(keep_extensions(node, reference(UNTYPED)));
    }
    let mut out = Map::new();
    for (key, value) in node {
        let value = match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                let mut translated = Map::new();
                for (name, prop) in props {
                    translated.insert(name.clone(), translate(prop, &format!("{path}.{name}"), notes, depth + 1)?);
                }
                Value::Object(translated)
            }
            ("items", items @ Value::Object(_)) => translate(items, &format!("{path}[]"), notes, depth + 1)?,
            // Only properties and items are looked up: the rest is copied.
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    add_list_strategy(&mut out, path, notes);
    Ok(Value::Object(out))
}

/// An object schema: typed `object`, or preserving unknown fields.
fn is_object(node: &Map<String, Value>) -> bool {
    node.get("type").and_then(Value::as_str) == Some("object")
        || node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

/// `replacement` with the patch extensions of `node`.
fn keep_extensions(node: &Map<String, Value>, mut replacement: Value) -> Value {
    for (key, value) in node {
        if key.starts_with("x-kubernetes-patch-")
            && let Value::Object(map) = &mut replacement
        {
            map.insert(key.clone(), value.clone());
        }
    }
    replacement
}

/// The strategy (and merge key) the list markers give, where the schema
/// names no strategy of its own.
fn add_list_strategy(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    if node.contains_key("x-kubernetes-patch-strategy") {
        return;
    }
    match node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => {
            node.insert("x-kubernetes-patch-strategy".into(), "merge".into());
        }
        Some("map") => {
            let keys: Vec<String> = match node.get("x-kubernetes-list-map-keys") {
                Some(Value::Array(keys)) => keys.iter().filter_map(Value::as_str).map(String::from).collect(),
                _ => Vec::new(),
            };
            let Some(first) = keys.first() else {
                notes.warnings.push(format!(
                    "{path}: x-kubernetes-list-type map without x-kubernetes-list-map-keys: replaced whole"
                ));
                return;
            };
            node.insert("x-kubernetes-patch-strategy".into(), "merge".into());
            if !node.contains_key("x-kubernetes-patch-merge-key") {
                node.insert("x-kubernetes-patch-merge-key".into(), first.clone().into());
            }
            if keys.len() > 1 {
                node.insert(RECOMMENDED_MERGE_KEY_EXT.into(), keys.join(",").into());
                notes.composite_keys.push(CompositeKey { path: path.to_string(), keys });
            }
        }
        _ => {}
    }
}

/// The API server's `ObjectMeta`, with its patch metadata; maps and the
/// other lists below it merge without metadata.
fn object_meta() -> Value {
    let untyped = reference(UNTYPED);
    let scalar = json!({"type": "string"});
    let mut props = Map::new();
    for key in ["annotations", "labels", "managedFields"] {
        props.insert(key.into(), untyped.clone());
    }
    for key in [
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "generateName",
        "generation",
        "name",
        "namespace",
        "resourceVersion",
        "selfLink",
        "uid",
    ] {
        props.insert(key.into(), scalar.clone());
    }
    props.insert(
        "finalizers".into(),
        json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"}),
    );
    props.insert(
        "ownerReferences".into(),
        json!({"type": "array", "items": untyped, "x-kubernetes-patch-strategy": "merge",
            "x-kubernetes-patch-merge-key": "uid"}),
    );
    json!({"type": "object", "properties": props})
}

#[cfg(test)]
mod tests {
    use super::*;
    use smp_core::Schema;
    use smp_core::schema::Strategy;

    fn crd(versions: Value) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget"}, "versions": versions}})
    }

    fn version(name: &str, storage: bool, spec: Value) -> Value {
        json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"metadata": {"type": "object"}, "spec": spec}}}})
    }

    fn spec_schema() -> Value {
        json!({"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "atomic": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}},
            "own": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-strategy": "replace", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "l": {"type": "array", "items": {"type": "string"}}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }})
    }

    fn meta(schema: Schema<'_>, key: &str) -> (Strategy, String) {
        let (_, meta) = schema.lookup_slice(key).unwrap();
        (meta.strategy().unwrap(), meta.key_name().unwrap_or_default().to_string())
    }

    #[test]
    fn markers_become_patch_metadata() {
        let schemas = openapi(&[crd(json!([version("v1", true, spec_schema())]))], None).unwrap();
        assert_eq!(schemas.default_definition.as_deref(), Some("example.com.v1.Widget"));
        assert!(schemas.warnings.is_empty(), "{:?}", schemas.warnings);
        let ports = CompositeKey { path: "Widget v1.spec.ports".into(), keys: vec!["port".into(), "protocol".into()] };
        assert_eq!(schemas.composite_keys, [ports]);
        let root = schemas.api.definition("example.com.v1.Widget").unwrap();
        let (spec, _) = root.lookup_struct("spec").unwrap();
        let merge = |key: &str| meta(spec, key);
        assert_eq!(merge("ports"), (Strategy::MERGE, "port".into()));
        assert_eq!(merge("tags"), (Strategy::MERGE, String::new()));
        assert_eq!(merge("atomic"), (Strategy::NONE, String::new()));
        assert_eq!(merge("own"), (Strategy::REPLACE, String::new()), "the schema's own strategy wins");
        // Maps and objects with unknown fields merge without metadata.
        let live = json!({"spec": {"labels": {"a": {"l": ["x"]}}, "free": {"deep": {"l": [1]}}}});
        let patch = json!({"spec": {"labels": {"a": {"l": ["y"]}}, "free": {"deep": {"m": 2}}}});
        let merged = smp_core::apply(&live, &patch, root).unwrap();
        assert_eq!(merged["spec"], json!({"labels": {"a": {"l": ["y"]}}, "free": {"deep": {"l": [1], "m": 2}}}));
        // metadata is ObjectMeta, whatever the CRD says.
        let live = json!({"metadata": {"finalizers": ["a"], "labels": {"x": "1"}}});
        let patch = json!({"metadata": {"finalizers": ["b"], "labels": {"y": "2"}}});
        let merged = smp_core::apply(&live, &patch, root).unwrap();
        assert_eq!(merged["metadata"], json!({"finalizers": ["b", "a"], "labels": {"x": "1", "y": "2"}}));
    }

    #[test]
    fn versions_that_share_a_schema_share_one_definition_translated_once() {
        // A v1beta1 CRD: one `validation` schema for its 2,000 versions.
        let versions: Vec<Value> =
            (0..2000).map(|i| json!({"name": format!("v{i}"), "served": true, "storage": i == 1500})).collect();
        let mut crd = crd(json!(versions));
        crd["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
        crd["spec"]["validation"] =
            json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema()}}});
        let schemas = openapi(&[crd], None).unwrap();
        // Named once, not once per version.
        let paths: Vec<&str> = schemas.composite_keys.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["Widget v0 (and 1999 more versions).spec.ports"]);
        for version in ["v0", "v1500", "v1999"] {
            assert_eq!(schemas.api.find_kind("example.com", version, "Widget"), Some("example.com.v0.Widget"));
        }
        assert_eq!(schemas.default_definition.as_deref(), Some("example.com.v0.Widget"));
        let root = schemas.api.definition("example.com.v0.Widget").unwrap();
        let (spec, _) = root.lookup_struct("spec").unwrap();
        assert_eq!(meta(spec, "ports"), (Strategy::MERGE, "port".into()));
    }

    #[test]
    fn versions_are_found_by_kind_or_chosen() {
        let plain = json!({"type": "object", "properties": {"ports": {"type": "array", "items": {"type": "string"}}}});
        let versions = json!([version("v1alpha1", false, plain), version("v1", true, spec_schema())]);
        let schemas = openapi(&[crd(versions.clone())], None).unwrap();
        assert_eq!(schemas.api.find_kind("example.com", "v1alpha1", "Widget"), Some("example.com.v1alpha1.Widget"));
        assert_eq!(schemas.default_definition.as_deref(), Some("example.com.v1.Widget"));
        let chosen = openapi(&[crd(versions.clone())], Some("v1alpha1")).unwrap();
        assert_eq!(chosen.api.find_kind("example.com", "v1", "Widget"), Some("example.com.v1alpha1.Widget"));
        assert!(chosen.composite_keys.is_empty());
        let err = openapi(&[crd(versions)], Some("v2")).unwrap_err();
        assert_eq!(err, "CRD widgets.example.com: no version \"v2\" (it has v1alpha1, v1)");
        let err = openapi(&[json!({"kind": "Deployment", "metadata": {"name": "web"}})], None).unwrap_err();
        assert_eq!(err, "web: not a CustomResourceDefinition");
    }
}
