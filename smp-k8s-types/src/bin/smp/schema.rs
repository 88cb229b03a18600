//! Choosing the schema (patch metadata) of each case.
//!
//! Sources, in order of precedence:
//! 1. `--untyped`: [`Schema::Untyped`] (maps merge, lists are replaced);
//! 2. `--kind KIND`: the static schema of a built-in kind, for every case;
//! 3. `--openapi DOC --definition NAME`: one definition for every case;
//! 4. otherwise, each case's `apiVersion` and `kind`: its definition in the
//!    `--crd` manifests or the `--openapi` documents if any has it, else
//!    the static schema of the built-in kind (cached per kind); an unknown
//!    kind is an error. A case without `apiVersion` and `kind` takes the
//!    chosen version of the one CRD given, if there is one.

use crate::args::{SchemaArgs, Source};
use crate::builtin;
use crate::documents;
use crate::input;
use serde_json::Value;
use smp_core::{OpenApi, Schema};
use std::collections::HashMap;
use std::path::Path;

/// An OpenAPI document and the file it came from.
pub struct Document {
    /// The file name, for messages.
    pub name: String,
    pub api: OpenApi,
    /// The definition of documents that name no kind (a CRD's chosen
    /// version).
    pub default: Option<String>,
}

/// What the schema serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Nothing: a merge or JSON patch (a CRD is only checked).
    Nothing,
    /// Which fields exist: `--strict` on a merge or JSON patch.
    Fields,
    /// A strategic merge; `all_keys`: lists keyed by several fields are
    /// merged by all of them (`--patch-merge-key`) or only read (check).
    Merge { all_keys: bool },
}

/// Loads every `--crd` manifest, then every `--openapi` document. A CRD is
/// translated only where its schema is used, and its warnings printed
/// only for a strategic merge (the only one its markers serve).
pub fn load_documents(args: &SchemaArgs, serves: Use) -> Result<Vec<Document>, String> {
    let mut docs = Vec::new();
    for path in &args.crd {
        if let Some(doc) = load_crd(path, args.crd_version.as_deref(), serves)? {
            docs.push(doc);
        }
    }
    for path in &args.openapi {
        docs.push(load_document(path)?);
    }
    Ok(docs)
}

/// The CRDs of a manifest file as an OpenAPI document, where it serves;
/// else only checked. A strategic merge that would pair the elements of a
/// list keyed by several fields by the first only is refused.
fn load_crd(path: &Path, version: Option<&str>, serves: Use) -> Result<Option<Document>, String> {
    let source = Source::File(path.to_path_buf());
    let what = "CRD";
    let files = documents::read(&source, what, false, documents::Objects::Any)?;
    let crds: Vec<Value> = documents::objects(&files)
        .into_iter()
        .filter(|(_, object)| object.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .map(|(_, object)| object.clone())
        .collect();
    let name = input::describe(&source, what);
    if crds.is_empty() {
        return Err(format!("{name}: no CustomResourceDefinition in it"));
    }
    if serves == Use::Nothing {
        return smp_k8s_types::crd_schema::check(&crds, version).map(|()| None).map_err(|e| format!("{name}: {e}"));
    }
    let schemas = smp_k8s_types::crd_schema::openapi(&crds, version).map_err(|e| format!("{name}: {e}"))?;
    if let Use::Merge { all_keys } = serves {
        if let (false, Some(list)) = (all_keys, schemas.composite_keys.first()) {
            return Err(format!(
                "{name}: {}: x-kubernetes-list-map-keys names several fields ({}), and a strategic merge \
                 pairs elements by the first, {:?}: elements that differ only in the others would be merged \
                 into one. Pass --patch-merge-key to pair them by all of them, or use --type merge",
                list.path,
                list.keys.join(", "),
                list.keys[0]
            ));
        }
        for warning in &schemas.warnings {
            crate::output::stderr_line(format_args!("smp: warning: {warning}"))?;
        }
    }
    Ok(Some(Document { name: path.display().to_string(), api: schemas.api, default: schemas.default_definition }))
}

fn load_document(path: &Path) -> Result<Document, String> {
    let source = Source::File(path.to_path_buf());
    let what = "OpenAPI document";
    let bytes = input::read(&source, what)?;
    let api = parse_openapi(&bytes).map_err(|e| format!("{}: {e}", input::describe(&source, what)))?;
    Ok(Document { name: path.display().to_string(), api, default: None })
}

fn parse_openapi(bytes: &[u8]) -> Result<OpenApi, String> {
    let looks_json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if looks_json && let Ok(api) = OpenApi::from_json_slice(bytes) {
        return Ok(api);
    }
    OpenApi::from_value(input::parse_any(bytes)?).map_err(|e| e.to_string())
}

/// Gives the schema of each case, resolving kinds once.
pub enum Resolver<'a> {
    /// No metadata.
    Untyped,
    /// The same schema for every case.
    Fixed(Schema<'a>),
    /// The schema of the case's kind, from the documents or built in.
    ByKind(KindLookup<'a>),
}

impl<'a> Resolver<'a> {
    /// The resolver the options ask for; `docs` are the loaded `--openapi`
    /// documents. Fails on an unknown `--kind` or `--definition`.
    pub fn new(args: &SchemaArgs, docs: &'a [Document]) -> Result<Self, String> {
        if args.untyped {
            return Ok(Resolver::Untyped);
        }
        if let Some(kind) = &args.kind {
            return builtin::by_name(kind).map(Resolver::Fixed);
        }
        if let Some(name) = &args.definition {
            return definition(docs, name).map(Resolver::Fixed);
        }
        let defaults: Vec<(&Document, &str)> =
            docs.iter().filter_map(|doc| Some((doc, doc.default.as_deref()?))).collect();
        let fallback = match defaults.as_slice() {
            [(doc, name)] => Some(doc.api.definition(name).map_err(|e| format!("{}: {e}", doc.name))?),
            _ => None,
        };
        Ok(Resolver::ByKind(KindLookup { docs, cache: HashMap::new(), fallback }))
    }

    /// The schema of one case. `docs` are its documents, original first;
    /// `names` name them in messages.
    pub fn schema_for(&mut self, docs: &[Value], names: &[&str]) -> Result<Schema<'a>, String> {
        let field = |doc: &'_ Value, name| doc.get(name).and_then(Value::as_str).map(str::to_owned);
        self.schema_by(docs.iter().map(|doc| (field(doc, "apiVersion"), field(doc, "kind"))), names)
    }

    /// [`Self::schema_for`] given each document's `apiVersion` and `kind`
    /// (when they are strings), read only when the schema depends on them.
    pub fn schema_by(
        &mut self,
        docs: impl IntoIterator<Item = (Option<String>, Option<String>)>,
        names: &[&str],
    ) -> Result<Schema<'a>, String> {
        match self {
            Resolver::Untyped => Ok(Schema::Untyped),
            Resolver::Fixed(schema) => Ok(*schema),
            Resolver::ByKind(lookup) => match (type_meta(docs, names), lookup.fallback) {
                (Ok((api_version, kind)), _) => lookup.get(&api_version, &kind),
                (Err(_), Some(schema)) => Ok(schema),
                (Err(e), None) => Err(e),
            },
        }
    }
}

/// The definition `name`, from the first document that has it; else why
/// each document has not.
fn definition<'a>(docs: &'a [Document], name: &str) -> Result<Schema<'a>, String> {
    let mut reasons = Vec::new();
    for doc in docs {
        match doc.api.definition(name) {
            Ok(schema) => return Ok(schema),
            Err(e) => reasons.push(format!("{}: {e}", doc.name)),
        }
    }
    Err(reasons.join("; "))
}

/// The `apiVersion` and `kind` of the first document that has both.
fn type_meta(
    docs: impl IntoIterator<Item = (Option<String>, Option<String>)>,
    names: &[&str],
) -> Result<(String, String), String> {
    docs.into_iter()
        .find_map(|(api_version, kind)| {
            let given = |s: Option<String>| s.filter(|s| !s.is_empty());
            Some((given(api_version)?, given(kind)?))
        })
        .ok_or_else(|| {
            format!(
                "no apiVersion and kind in the {} document to choose a schema by; \
                 pass --kind KIND, --openapi DOC --definition NAME, or --untyped",
                names.join(" or ")
            )
        })
}

/// Kind lookups in the documents, then in the built-in kinds, each done
/// once.
pub struct KindLookup<'a> {
    docs: &'a [Document],
    /// apiVersion → kind → the schema, or why there is none.
    cache: HashMap<String, HashMap<String, Result<Schema<'a>, String>>>,
    /// The schema of cases that name no kind.
    fallback: Option<Schema<'a>>,
}

impl<'a> KindLookup<'a> {
    fn get(&mut self, api_version: &str, kind: &str) -> Result<Schema<'a>, String> {
        if let Some(found) = self.cache.get(api_version).and_then(|kinds| kinds.get(kind)) {
            return found.clone();
        }
        let found = self.find(api_version, kind);
        let kinds = self.cache.entry(api_version.to_string()).or_default();
        kinds.insert(kind.to_string(), found.clone());
        found
    }

    fn find(&self, api_version: &str, kind: &str) -> Result<Schema<'a>, String> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let docs: &'a [Document] = self.docs;
        for doc in docs {
            if let Some(name) = doc.api.find_kind(group, version, kind) {
                return doc.api.definition(name).map_err(|e| format!("{}: {e}", doc.name));
            }
        }
        if let Some(schema) = builtin::by_type_meta(api_version, kind) {
            return Ok(schema);
        }
        if docs.is_empty() {
            return Err(builtin::not_built_in(api_version, kind));
        }
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        Err(format!(
            "kind {kind:?} of apiVersion {api_version:?} is neither built in nor in the OpenAPI documents ({}); \
             pass the CRD with --crd or the document that defines it with --openapi, or --definition NAME",
            names.join(", ")
        ))
    }
}
