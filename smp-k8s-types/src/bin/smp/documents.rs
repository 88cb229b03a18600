//! Inputs of several objects: YAML streams (`---`), JSON streams, lists
//! (`kind: List`, or any `...List` kind with `items`), and directories.

use crate::args::Source;
use crate::input::{self, describe};
use crate::numbers;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One document of the input, with where it came from.
pub struct Document {
    /// For messages: `original file "a.yaml", document 2`.
    pub origin: String,
    pub body: Body,
}

/// A document: one object, or a list whose items are objects of their
/// own kinds.
pub enum Body {
    Object(Value),
    List { header: Map<String, Value>, items: Vec<Value> },
}

impl Document {
    /// The objects of the document, in order.
    pub fn objects(&self) -> &[Value] {
        match &self.body {
            Body::Object(object) => std::slice::from_ref(object),
            Body::List { items, .. } => items,
        }
    }
}

/// Every object of `documents`, each with the origin of its document.
pub fn objects(documents: &[Document]) -> Vec<(&str, &Value)> {
    documents.iter().flat_map(|d| d.objects().iter().map(move |o| (d.origin.as_str(), o))).collect()
}

/// `documents` with their objects replaced, in order, by `results`: a list
/// stays a list.
pub fn reassemble(documents: &[Document], results: Vec<Value>) -> Vec<Value> {
    let mut results = results.into_iter();
    documents
        .iter()
        .map(|document| match &document.body {
            Body::Object(_) => results.next().unwrap_or_default(),
            Body::List { header, items } => {
                let mut list = header.clone();
                list.insert("items".into(), Value::Array(results.by_ref().take(items.len()).collect()));
                Value::Object(list)
            }
        })
        .collect()
}

/// What the objects of the files are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objects {
    /// Kubernetes objects, of built-in kinds or custom resources: read as
    /// kubectl reads them from its files ([`check_read`]), a patch aside.
    Kubernetes,
    /// Documents of a schema of the user's (`--openapi`) or of none
    /// (`--untyped`): any object.
    Any,
}

/// Reads every document of `source` (`what` names it in messages): a
/// file, stdin, or the `.json`, `.yaml` and `.yml` files of a directory,
/// in name order (and of its subdirectories when `recursive`). An empty
/// file is one empty object, as the reference decodes it.
pub fn read(source: &Source, what: &str, recursive: bool, objects: Objects) -> Result<Vec<Document>, String> {
    let files = match source {
        Source::File(path) if path.is_dir() => {
            let mut files = Vec::new();
            list_dir(path, recursive, &mut files)?;
            if files.is_empty() {
                return Err(format!("{}: no .json, .yaml or .yml files in it", describe(source, what)));
            }
            files.into_iter().map(Source::File).collect()
        }
        other => vec![other.clone()],
    };
    let mut documents = Vec::new();
    for file in &files {
        let bytes = input::read(file, what)?;
        // kubectl reads the objects of -f files with invalid UTF-8 replaced
        // before parsing; a patch is JSON text given to -p.
        let bytes = if what == "patch" { bytes.into() } else { smp_core::text::file_as_kubectl_reads(&bytes) };
        let mut values = input::parse_stream(&bytes).map_err(|e| format!("{}: {e}", describe(file, what)))?;
        if what != "patch" {
            // kubectl hands each object it read to the patch library as
            // the JSON Go writes for it, which the library reads back.
            values.iter_mut().for_each(numbers::read_back);
        }
        let several = values.len() > 1;
        for (n, value) in values.into_iter().enumerate() {
            let origin =
                if several { format!("{}, document {}", describe(file, what), n + 1) } else { describe(file, what) };
            let as_kubectl_reads = objects == Objects::Kubernetes && what != "patch";
            let body = body(value, as_kubectl_reads).map_err(|e| format!("{origin}: {e}"))?;
            documents.push(Document { origin, body });
        }
    }
    Ok(documents)
}

/// The files of `dir` as kubectl's `-R` walks it (Go's `filepath.Walk`):
/// in name order, into subdirectories, never through a link to a
/// directory (a link is taken as a file: one named `.json`, `.yaml` or
/// `.yml` is read, and fails if it leads to a directory).
fn list_dir(dir: &Path, recursive: bool, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read directory {:?}: {e}", dir.display().to_string()))?;
    let mut paths: Vec<(PathBuf, bool)> =
        entries.filter_map(|e| e.ok().map(|e| (e.path(), e.file_type().is_ok_and(|t| t.is_dir())))).collect();
    paths.sort();
    for (path, is_dir) in paths {
        if is_dir {
            if recursive {
                list_dir(&path, recursive, files)?;
            }
        } else if path.extension().is_some_and(|x| x == "json" || x == "yaml" || x == "yml") {
            files.push(path);
        }
    }
    Ok(())
}

/// A document as an object or a list of objects; `as_kubectl_reads`: an
/// object read as kubectl reads the objects of its files ([`check_read`]).
fn body(value: Value, as_kubectl_reads: bool) -> Result<Body, String> {
    let Value::Object(mut map) = value else {
        return Err(format!("the document must be an object, not {}", input::type_name(&value)));
    };
    if as_kubectl_reads {
        check_read(&map)?;
    }
    let is_list = map.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List"))
        && map.get("items").is_some_and(Value::is_array);
    if !is_list {
        return Ok(Body::Object(Value::Object(map)));
    }
    let Some(Value::Array(items)) = map.remove("items") else { unreachable!("checked above") };
    for (i, item) in items.iter().enumerate() {
        let Some(item) = item.as_object() else {
            return Err(format!("items[{i}] must be an object, not {}", input::type_name(item)));
        };
        if as_kubectl_reads {
            // kubectl takes each item's type from its own fields.
            for name in ["apiVersion", "kind"] {
                if item.get(name).and_then(Value::as_str).is_none_or(str::is_empty) {
                    return Err(format!("items[{i}]: {name} is missing (kubectl reads a list's items by their own)"));
                }
            }
        }
    }
    Ok(Body::List { header: map, items })
}

/// What kubectl refuses in an object of its files: it reads `apiVersion`,
/// `kind` and `metadata` into Go structs first, so the first two must be
/// strings and `metadata` an ObjectMeta: its text fields strings, `labels`
/// and `annotations` maps of strings, and so on. Keys match fields in
/// their case only (Kubernetes decodes so), and `null` is any type.
pub fn check_read(object: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in object {
        match go_field(key, &["apiVersion", "kind", "metadata"]) {
            Some("metadata") => match value {
                Value::Null => {}
                Value::Object(metadata) => check_object_meta(metadata).map_err(|e| format!("metadata.{e}"))?,
                other => return Err(format!("metadata must be an object, not {}", input::type_name(other))),
            },
            Some(name) => expect(value, Type::String).map_err(|e| format!("{name} {e}"))?,
            None => {}
        }
    }
    Ok(())
}

/// The JSON types of ObjectMeta's fields, as Go's decoder takes them.
#[derive(Clone, Copy)]
enum Type {
    String,
    Integer,
    StringMap,
    StringList,
    ObjectList,
}

fn check_object_meta(metadata: &Map<String, Value>) -> Result<(), String> {
    const FIELDS: [(&str, Type); 15] = [
        ("name", Type::String),
        ("generateName", Type::String),
        ("namespace", Type::String),
        ("selfLink", Type::String),
        ("uid", Type::String),
        ("resourceVersion", Type::String),
        ("creationTimestamp", Type::String),
        ("deletionTimestamp", Type::String),
        ("generation", Type::Integer),
        ("deletionGracePeriodSeconds", Type::Integer),
        ("labels", Type::StringMap),
        ("annotations", Type::StringMap),
        ("finalizers", Type::StringList),
        ("ownerReferences", Type::ObjectList),
        ("managedFields", Type::ObjectList),
    ];
    let names = FIELDS.map(|(name, _)| name);
    for (key, value) in metadata {
        if let Some(name) = go_field(key, &names) {
            let (_, ty) = FIELDS.iter().find(|(n, _)| *n == name).expect("a field of the table");
            expect(value, *ty).map_err(|e| format!("{name} {e}"))?;
        }
    }
    Ok(())
}

/// The field a JSON key fills in a Go struct with these fields.
fn go_field(key: &str, fields: &[&'static str]) -> Option<&'static str> {
    fields.iter().find(|f| **f == key).copied()
}

/// Whether Go's decoder reads `value` into a field of the type.
fn expect(value: &Value, ty: Type) -> Result<(), String> {
    let fits = |value: &Value, ty: Type| match (ty, value) {
        (_, Value::Null) | (Type::String, Value::String(_)) => true,
        (Type::Integer, Value::Number(n)) => n.is_i64(),
        (Type::StringMap, Value::Object(map)) => map.values().all(|v| v.is_null() || v.is_string()),
        (Type::StringList, Value::Array(items)) => items.iter().all(|v| v.is_null() || v.is_string()),
        (Type::ObjectList, Value::Array(items)) => items.iter().all(|v| v.is_null() || v.is_object()),
        _ => false,
    };
    if fits(value, ty) {
        return Ok(());
    }
    let what = match ty {
        Type::String => "a string",
        Type::Integer => "an integer",
        Type::StringMap => "a map of strings",
        Type::StringList => "a list of strings",
        Type::ObjectList => "a list of objects",
    };
    Err(format!("must be {what}, as kubectl reads it"))
}

/// `kind.group/name` of an object, as `kubectl -o name` writes it.
pub fn name_of(object: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let kind = text(object.get("kind")).to_ascii_lowercase();
    let api_version = text(object.get("apiVersion"));
    let name = text(object.get("metadata").and_then(|m| m.get("name")));
    match api_version.rsplit_once('/') {
        Some((group, _)) => format!("{kind}.{group}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_are_flattened_and_put_back() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [{"kind": "A"}, {"kind": "B"}]});
        let documents = vec![
            Document { origin: "a".into(), body: body(json!({"kind": "C"}), false).unwrap() },
            Document { origin: "b".into(), body: body(list, false).unwrap() },
        ];
        let found: Vec<_> = objects(&documents).into_iter().map(|(o, v)| (o.to_string(), v["kind"].clone())).collect();
        assert_eq!(found, [("a".into(), json!("C")), ("b".into(), json!("A")), ("b".into(), json!("B"))]);
        let back = reassemble(&documents, vec![json!(1), json!(2), json!(3)]);
        assert_eq!(back, [json!(1), json!({"apiVersion": "v1", "kind": "List", "items": [2, 3]})]);
        assert!(body(json!({"kind": "List", "items": [1]}), false).is_err());
    }

    /// As `kubectl patch --local -f` reads its file.
    #[test]
    fn type_and_object_metadata_are_read_as_kubectl_reads_them() {
        let read = |object: serde_json::Value| body(object, true).map(drop);
        let meta = json!({"name": "a", "labels": {"x": "y"}, "generation": 2, "creationTimestamp": null});
        assert!(read(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})).is_ok());
        assert!(read(json!({"kind": "ConfigMap", "metadata": null})).is_ok());
        // null is any type; unknown fields are not looked at.
        let nulls =
            json!({"labels": {"a": null}, "finalizers": [null], "name": null, "NAME": 5, "ownerReferences": [{}]});
        assert!(read(json!({"apiVersion": null, "kind": "ConfigMap", "metadata": nulls})).is_ok());
        for bad in [
            json!({"apiVersion": {"a": 1}, "kind": "ConfigMap"}),
            json!({"apiVersion": "v1", "kind": 5}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": []}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 5}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": {"x": {"y": 1}}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generation": 1.5}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"ownerReferences": [1]}}),
            json!({"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap"}]}),
            json!({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": ""}]}),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        // A list's items are not read into ObjectMeta.
        let item = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 5}});
        assert!(read(json!({"apiVersion": "v1", "kind": "List", "items": [item]})).is_ok());
    }

    #[test]
    fn names_as_kubectl_writes_them() {
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
        assert_eq!(name_of(&deploy), "deployment.apps/web");
        assert_eq!(
            name_of(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})),
            "configmap/a"
        );
    }
}
