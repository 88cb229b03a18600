//! Patch metadata from OpenAPI documents (v2 `definitions`, v3
//! `components.schemas`), read the way kubectl reads them.
//!
//! The two flavours are read by different code in the reference and do not
//! agree on the edge cases, so each has its own lookups here:
//! - v2 goes through `kube-openapi/pkg/util/proto`, which sorts every schema
//!   into Kind / Map / Array / Primitive / Arbitrary / Reference before the
//!   `strategicpatch` visitors look at it;
//! - v3 (`PatchMetaFromOpenAPIV3`) reads `properties`, `items`, `allOf` and
//!   `$ref` directly, and fails on anything without properties.
//!
//! The document is kept as JSON and walked at lookup time: a lookup is a
//! couple of map lookups, and the metadata borrows from the document.

use super::{PatchMeta, Schema, wrong_kind};
use crate::error::{ErrorKind, Result, SchemaError, bad_arg};
use crate::value::GoKind;
use crate::value::go_quote;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;

const STRATEGY_EXT: &str = "x-kubernetes-patch-strategy";
const MERGE_KEY_EXT: &str = "x-kubernetes-patch-merge-key";
/// smp's extension: the recommended merge keys, comma-separated, the
/// default key first (read only when `$patchMergeKey` is turned on).
pub const RECOMMENDED_MERGE_KEY_EXT: &str = "x-smp-recommended-patch-merge-key";
const GVK_EXT: &str = "x-kubernetes-group-version-kind";
const V2_REF_PREFIX: &str = "#/definitions/";
const V3_REF_PREFIX: &str = "#/components/schemas/";
const ARBITRARY_NAME: &str = "Arbitrary value (primitive, object or array)";
/// Bound on the steps of one lookup, so that a reference cycle (which the
/// reference recurses on forever) ends in an error.
const MAX_STEPS: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavour {
    V2,
    V3,
}

/// An OpenAPI document that schemas can be looked up in.
pub struct OpenApi {
    flavour: Flavour,
    /// `definitions` (v2) or `components.schemas` (v3); the rest of the
    /// document plays no part in patching.
    defs: Map<String, Value>,
    /// kind -> (group, version, definition name), from
    /// `x-kubernetes-group-version-kind`.
    kinds: HashMap<String, Vec<(String, String, String)>>,
}

impl fmt::Debug for OpenApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenApi").field("flavour", &self.flavour).field("definitions", &self.defs.len()).finish()
    }
}

/// A document that is not an OpenAPI v2 or v3 document, or a definition it lacks.
#[derive(Debug)]
pub struct OpenApiError(String);

impl fmt::Display for OpenApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for OpenApiError {}

impl OpenApi {
    /// Reads a parsed document: v2 when it has `definitions`, v3 when it
    /// has `components.schemas` (the `swagger` / `openapi` key decides if
    /// it has both).
    ///
    /// A document nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) is
    /// refused (and dropped without recursion).
    pub fn from_value(doc: Value) -> std::result::Result<Self, OpenApiError> {
        if let Err(too_deep) = crate::nesting::check_nesting(&doc) {
            crate::nesting::discard(doc);
            return Err(OpenApiError(too_deep.to_string()));
        }
        let Value::Object(mut doc) = doc else {
            return Err(OpenApiError("an OpenAPI document must be a JSON object".into()));
        };
        let has_v2 = doc.get("definitions").is_some_and(Value::is_object);
        let has_v3 = doc.get("components").and_then(|c| c.get("schemas")).is_some_and(Value::is_object);
        let flavour = match (has_v2, has_v3) {
            (true, true) if doc.contains_key("swagger") && !doc.contains_key("openapi") => Flavour::V2,
            (_, true) => Flavour::V3,
            (true, false) => Flavour::V2,
            (false, false) => {
                return Err(OpenApiError(
                    "not an OpenAPI document: it has neither `definitions` (v2) nor `components.schemas` (v3)".into(),
                ));
            }
        };
        let defs = match flavour {
            Flavour::V2 => doc.remove("definitions"),
            Flavour::V3 => doc.get_mut("components").and_then(|c| c.as_object_mut()?.remove("schemas")),
        };
        let Some(Value::Object(defs)) = defs else { unreachable!("checked above") };

        let mut kinds: HashMap<String, Vec<(String, String, String)>> = HashMap::new();
        for (name, def) in &defs {
            let Some(gvks) = def.get(GVK_EXT).and_then(Value::as_array) else { continue };
            for gvk in gvks {
                let field = |k: &str| gvk.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                kinds.entry(field("kind")).or_default().push((field("group"), field("version"), name.clone()));
            }
        }
        Ok(OpenApi { flavour, defs, kinds })
    }

    /// Parses JSON bytes. Trailing commas before `}` or `]` are accepted,
    /// as the reference's YAML-based parser accepts them (its own testdata
    /// `swagger-merge-item.json` has one).
    pub fn from_json_slice(bytes: &[u8]) -> std::result::Result<Self, OpenApiError> {
        let doc = match serde_json::from_slice(bytes) {
            Ok(doc) => doc,
            Err(strict) => serde_json::from_slice(&strip_trailing_commas(bytes))
                .map_err(|_| OpenApiError(format!("invalid JSON: {strict}")))?,
        };
        Self::from_value(doc)
    }

    /// The schema of a named definition (v2 `definitions/NAME`, v3
    /// `components/schemas/NAME`).
    pub fn definition(&self, name: &str) -> std::result::Result<Schema<'_>, OpenApiError> {
        match self.defs.get_key_value(name) {
            Some((_, Value::Null)) => Ok(Schema::Untyped),
            Some((def, schema)) => Ok(Schema::OpenApi(OpenApiNode { api: self, def, schema })),
            None => Err(OpenApiError(self.unknown_definition(name))),
        }
    }

    /// The names of all definitions.
    pub fn definition_names(&self) -> impl Iterator<Item = &str> {
        self.defs.keys().map(String::as_str)
    }

    /// The definition whose `x-kubernetes-group-version-kind` lists this
    /// group, version and kind (group `""` for the core group).
    pub fn find_kind(&self, group: &str, version: &str, kind: &str) -> Option<&str> {
        self.kinds.get(kind)?.iter().find(|(g, v, _)| g == group && v == version).map(|(_, _, name)| name.as_str())
    }

    fn unknown_definition(&self, name: &str) -> String {
        // Suggest definitions that differ only in case, or whose last
        // dotted segment matches (`PodSpec` -> `io.k8s.api.core.v1.PodSpec`).
        let short = |n: &str| n.rsplit('.').next().unwrap_or(n).to_ascii_lowercase();
        let wanted = short(name);
        let close: Vec<String> = self
            .definition_names()
            .filter(|n| n.eq_ignore_ascii_case(name) || short(n) == wanted)
            .take(5)
            .map(|n| format!("{n:?}"))
            .collect();
        if close.is_empty() {
            format!("no definition {name:?} in the OpenAPI document")
        } else {
            format!("no definition {name:?} in the OpenAPI document; did you mean {}?", close.join(" or "))
        }
    }

    fn flavour_name(&self) -> &'static str {
        match self.flavour {
            Flavour::V2 => "v2",
            Flavour::V3 => "v3",
        }
    }
}

/// A schema node inside an [`OpenApi`] document.
#[derive(Clone, Copy)]
pub struct OpenApiNode<'a> {
    api: &'a OpenApi,
    /// The definition the node lies in; v2 error messages name it.
    def: &'a str,
    schema: &'a Value,
}

impl fmt::Debug for OpenApiNode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OpenApiNode({} {})", self.api.flavour_name(), self.def)
    }
}

impl<'a> OpenApiNode<'a> {
    pub(crate) fn lookup_struct(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        match self.api.flavour {
            Flavour::V2 => self.v2_struct(key),
            Flavour::V3 => self.v3_struct(key),
        }
    }

    pub(crate) fn lookup_slice(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        match self.api.flavour {
            Flavour::V2 => self.v2_slice(key),
            Flavour::V3 => self.v3_slice(key),
        }
    }

    pub(crate) fn name(self) -> String {
        match self.api.flavour {
            Flavour::V2 => v2_name(self.schema),
            Flavour::V3 => v3_name(self.schema),
        }
    }

    /// Whether the object here has property `key` (`None`: a map, or
    /// anything without properties).
    pub(crate) fn knows_field(self, key: &str) -> Option<bool> {
        let mut node = self;
        for _ in 0..MAX_STEPS {
            let schema = node.schema;
            let schema = schema.get("allOf").and_then(Value::as_array).and_then(|all| all.first()).unwrap_or(schema);
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                return Some(props.contains_key(key));
            }
            let r = schema.get("$ref").and_then(Value::as_str).filter(|r| !r.is_empty())?;
            let name = r.strip_prefix(V2_REF_PREFIX).or_else(|| r.strip_prefix(V3_REF_PREFIX))?;
            let (def, schema) = self.api.defs.get_key_value(name)?;
            node = OpenApiNode { api: self.api, def, schema };
        }
        None
    }

    /// The extensions of property `key` of this node; a Kubernetes list
    /// whose document gives no recommended merge keys gets those of the
    /// built-in table (`schema::recommended`).
    fn patch_meta(self, prop: &'a Value, key: &str) -> Result<PatchMeta<'a>> {
        let meta = patch_meta(prop)?;
        if prop.get(RECOMMENDED_MERGE_KEY_EXT).is_some() {
            return Ok(meta);
        }
        match super::recommended::kubernetes(self.def, key) {
            Some(keys) if Some(keys[0]) == meta.merge_key.map(|k| k.primary()) => {
                Ok(meta.with_recommended_fields(keys))
            }
            _ => match super::recommended::replaced_kubernetes(self.def, key) {
                Some(keys) if meta.merge_key.is_none() => Ok(meta.with_recommended_fields(keys)),
                _ => Ok(meta),
            },
        }
    }

    /// Another node in the same definition.
    fn at(self, schema: &'a Value) -> Self {
        OpenApiNode { schema, ..self }
    }

    fn schema_of(self, found: Option<(&'a String, &'a Value)>) -> Option<Schema<'a>> {
        found.map(|(def, schema)| match schema {
            Value::Null => Schema::Untyped,
            _ => Schema::OpenApi(OpenApiNode { api: self.api, def, schema }),
        })
    }

    // ---- v2: kube-openapi proto, visited by kindItem / sliceItem ----

    /// `kindItem`: references are followed to a Kind, whose property is
    /// returned as is (unresolved).
    fn v2_struct(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        let mut node = self;
        for _ in 0..MAX_STEPS {
            match V2Kind::of(node.schema) {
                V2Kind::Ref(r) => node = node.v2_follow(r)?,
                V2Kind::Kind(props) => {
                    let prop = node.v2_property(props, key)?;
                    return Ok((Schema::OpenApi(node.at(prop)), node.patch_meta(prop, key)?));
                }
                V2Kind::Primitive(..) => return Err(wrong_kind("expected kind, but got primitive".into())),
                V2Kind::Array(_) => return Err(wrong_kind("expected kind, but got slice".into())),
                V2Kind::Map(_) => return Err(wrong_kind("expected kind, but got map".into())),
                V2Kind::Arbitrary => return Ok((Schema::Untyped, PatchMeta::default())),
            }
        }
        Err(self.cycle())
    }

    /// `sliceItem`: references are followed to a Kind; the property found
    /// there gives the metadata and is then visited itself: an array gives
    /// its items, a reference its target (so a `$ref` property works as a
    /// list of that type), an inline object is searched for the same key
    /// again, as the reference's visitor does.
    fn v2_slice(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        let mut node = self;
        // Set once a Kind has been visited (the reference's `hasVisitKind`).
        let mut meta: Option<PatchMeta<'a>> = None;
        for _ in 0..MAX_STEPS {
            match V2Kind::of(node.schema) {
                V2Kind::Ref(r) => {
                    node = node.v2_follow(r)?;
                    if let Some(meta) = meta {
                        return Ok((Schema::OpenApi(node), meta));
                    }
                }
                V2Kind::Kind(props) => {
                    let prop = node.v2_property(props, key)?;
                    meta = Some(node.patch_meta(prop, key)?);
                    node = node.at(prop);
                }
                V2Kind::Array(items) => {
                    let Some(meta) = meta else {
                        return Err(wrong_kind("expected visit kind first, then visit array".into()));
                    };
                    return Ok((items.map_or(Schema::Untyped, |i| Schema::OpenApi(node.at(i))), meta));
                }
                V2Kind::Primitive(..) => return Err(wrong_kind("expected slice, but got primitive".into())),
                V2Kind::Map(_) => return Err(wrong_kind("expected slice, but got map".into())),
                V2Kind::Arbitrary => return Ok((Schema::Untyped, meta.unwrap_or_default())),
            }
        }
        Err(self.cycle())
    }

    fn v2_property(self, props: &'a Map<String, Value>, key: &str) -> Result<&'a Value> {
        props.get(key).ok_or_else(|| {
            let message = format!("unable to find api field {} in {}", go_quote(key), self.v2_path());
            ErrorKind::UnknownField { field: key.to_string(), message }.into()
        })
    }

    /// The definition a `$ref` names. The reference rejects dangling
    /// references when it loads the document; here they fail on use.
    fn v2_follow(self, r: &str) -> Result<Self> {
        let Some(name) = r.strip_prefix(V2_REF_PREFIX) else {
            return Err(unresolved(r, format!("unallowed reference to non-definition {}", go_quote(r))));
        };
        match self.api.defs.get_key_value(name) {
            Some((def, schema)) => Ok(OpenApiNode { api: self.api, def, schema }),
            None => Err(unresolved(name, format!("unknown model in reference: {}", go_quote(name)))),
        }
    }

    /// The proto path of this node: the definition name, then `.field` for
    /// each property below it (items and map values add nothing). Only
    /// built for error messages.
    fn v2_path(self) -> String {
        fn find(s: &Value, target: &Value, path: &mut String) -> bool {
            if std::ptr::eq(s, target) {
                return true;
            }
            if s.get("$ref").is_some() {
                return false;
            }
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    let len = path.len();
                    path.push('.');
                    path.push_str(k);
                    if find(v, target, path) {
                        return true;
                    }
                    path.truncate(len);
                }
            }
            let items = s.get("items").and_then(|i| if i.is_array() { i.get(0) } else { Some(i) });
            [items, s.get("additionalProperties")].into_iter().flatten().any(|sub| find(sub, target, path))
        }
        let mut path = self.def.to_string();
        if let Some(root) = self.api.defs.get(self.def) {
            find(root, self.schema, &mut path);
        }
        path
    }

    fn cycle(self) -> crate::error::Error {
        ErrorKind::Schema(SchemaError::ReferenceCycle(self.def.to_string())).into()
    }

    // ---- v3: PatchMetaFromOpenAPIV3 ----

    fn v3_struct(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        let prop = self.v3_property(key)?;
        let meta = self.patch_meta(prop, key)?;
        Ok((self.v3_resolve(prop)?, meta))
    }

    /// Like the struct lookup, but takes `items` (when there is one)
    /// before resolving: a property without items is its own element
    /// schema, which is how `mergeItemPtr` works as a list.
    fn v3_slice(self, key: &str) -> Result<(Schema<'a>, PatchMeta<'a>)> {
        let prop = self.v3_property(key)?;
        let meta = self.patch_meta(prop, key)?;
        let elem = match prop.get("items") {
            None | Some(Value::Null) => prop,
            Some(items @ Value::Object(_)) => items,
            // A list of item schemas: the reference finds no element schema.
            Some(_) => return Ok((Schema::Untyped, meta)),
        };
        Ok((self.v3_resolve(elem)?, meta))
    }

    /// A schema without properties, or without this one, fails.
    fn v3_property(self, key: &str) -> Result<&'a Value> {
        self.schema.get("properties").and_then(Value::as_object).and_then(|props| props.get(key)).ok_or_else(|| {
            let message = format!("unable to find api field \"{key}\"");
            ErrorKind::UnknownField { field: key.to_string(), message }.into()
        })
    }

    /// The first `allOf` entry if there is one, then one `$ref` followed.
    fn v3_resolve(self, schema: &'a Value) -> Result<Schema<'a>> {
        let schema = schema.get("allOf").and_then(Value::as_array).and_then(|all| all.first()).unwrap_or(schema);
        match schema.get("$ref").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            None => Ok(Schema::OpenApi(self.at(schema))),
            Some(r) => {
                let name = r.strip_prefix(V3_REF_PREFIX).unwrap_or(r);
                self.schema_of(self.api.defs.get_key_value(name))
                    .ok_or_else(|| unresolved(r, format!("unable to resolve {r} in OpenAPI V3")))
            }
        }
    }
}

/// The shape kube-openapi's proto package gives a v2 schema
/// (`Definitions.ParseSchema`).
enum V2Kind<'a> {
    Ref(&'a str),
    /// An object with `properties`, typed `object` or untyped.
    Kind(&'a Map<String, Value>),
    /// `type: object` without properties; holds `additionalProperties`.
    Map(Option<&'a Value>),
    /// Holds the item schema.
    Array(Option<&'a Value>),
    /// Type and format.
    Primitive(&'a str, &'a str),
    /// No type and no properties (or several types): anything goes.
    Arbitrary,
}

impl<'a> V2Kind<'a> {
    fn of(s: &'a Value) -> Self {
        if let Some(r) = s.get("$ref").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            return V2Kind::Ref(r);
        }
        let props = s.get("properties").and_then(Value::as_object);
        let single_type = match s.get("type") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.as_str()),
            Some(Value::Array(ts)) if ts.is_empty() => None,
            Some(Value::Array(ts)) if ts.len() == 1 => ts[0].as_str(),
            Some(_) => return V2Kind::Arbitrary,
        };
        match (single_type, props) {
            (None | Some("object"), Some(props)) => V2Kind::Kind(props),
            (None, None) => V2Kind::Arbitrary,
            (Some("object"), None) => V2Kind::Map(s.get("additionalProperties").filter(|a| a.is_object())),
            (Some("array"), _) => {
                let items = s.get("items").and_then(|i| if i.is_array() { i.get(0) } else { Some(i) });
                V2Kind::Array(items.filter(|i| i.is_object()))
            }
            (Some(t), _) => V2Kind::Primitive(t, s.get("format").and_then(Value::as_str).unwrap_or("")),
        }
    }
}

/// The proto schema's `GetName()`.
fn v2_name(s: &Value) -> String {
    let sub_name = |sub: Option<&Value>| sub.map_or_else(|| ARBITRARY_NAME.to_string(), v2_name);
    match V2Kind::of(s) {
        V2Kind::Ref(r) => format!("Reference to {}", go_quote(r.strip_prefix(V2_REF_PREFIX).unwrap_or(r))),
        // Go prints the fields in map order, which is random; any order will do.
        V2Kind::Kind(props) => {
            let mut names = String::new();
            for (i, name) in props.keys().enumerate() {
                if i > 0 {
                    names.push(' ');
                }
                names.push_str(name);
            }
            format!("Kind([{names}])")
        }
        V2Kind::Map(sub) => format!("Map of {}", sub_name(sub)),
        V2Kind::Array(items) => format!("Array of {}", sub_name(items)),
        V2Kind::Primitive(t, "") => t.to_string(),
        V2Kind::Primitive(t, format) => format!("{t} ({format})"),
        V2Kind::Arbitrary => ARBITRARY_NAME.to_string(),
    }
}

/// `PatchMetaFromOpenAPIV3.Name()`: the type list joined, or `Struct`.
fn v3_name(s: &Value) -> String {
    match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => ts.iter().filter_map(Value::as_str).collect(),
        _ => "Struct".to_string(),
    }
}

/// The `x-kubernetes-patch-*` extensions of a property, read before any
/// reference is followed.
fn patch_meta(prop: &Value) -> Result<PatchMeta<'_>> {
    let ext = |name: &str| match prop.get(name) {
        None => Ok(""),
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(other) => Err(bad_arg(GoKind::String, other)),
    };
    let meta = PatchMeta::parse(ext(STRATEGY_EXT)?, ext(MERGE_KEY_EXT)?);
    // The reference never reads smp's extension: a value that is not a
    // string is reported only when the recommended keys are read.
    Ok(match prop.get(RECOMMENDED_MERGE_KEY_EXT) {
        None => meta,
        Some(Value::String(s)) => meta.with_recommended(s),
        Some(_) => meta.with_recommended(""),
    })
}

/// A `$ref` that names no definition, with the reference's message.
fn unresolved(reference: &str, message: String) -> crate::error::Error {
    ErrorKind::Schema(SchemaError::UnresolvedReference { reference: reference.to_string(), message }).into()
}

/// Removes commas that directly precede (up to whitespace) a `}` or `]`,
/// leaving string contents alone.
fn strip_trailing_commas(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = bytes[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
            if matches!(next, Some(b'}' | b']')) {
                continue;
            }
        }
        out.push(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Strategy;
    use std::path::PathBuf;

    /// A document from the shared reference folder, or `None` (with a
    /// loud notice) when the folder is not there.
    fn load(rel: &str) -> Option<OpenApi> {
        let dir = std::env::var_os("SMP_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        let path = dir.join(rel);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("SKIPPED: {} is missing; OpenAPI test did not run", path.display());
            return None;
        };
        Some(OpenApi::from_json_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
    }

    const V2: &str = "conformance/openapi/swagger-merge-item.json";
    const V3: &str = "conformance/openapi/swagger-merge-item-v3.json";
    const CORE_V1: &str = "k8s/openapi-v3/api__v1_openapi.json";

    fn merge_items() -> Vec<(&'static str, OpenApi)> {
        [V2, V3].into_iter().filter_map(|f| Some((f, load(f)?))).collect()
    }

    fn meta(strategy: &'static str, merge_key: &'static str) -> PatchMeta<'static> {
        PatchMeta::parse(strategy, merge_key)
    }

    fn err_text(r: Result<(Schema<'_>, PatchMeta<'_>)>) -> String {
        match r {
            Ok((s, m)) => panic!("expected an error, got {s:?} {m:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn openapi_flavours_are_detected() {
        for (file, api) in merge_items() {
            let want = if file == V2 { Flavour::V2 } else { Flavour::V3 };
            assert_eq!(api.flavour, want, "{file}");
            assert!(api.definition_names().any(|n| n == "mergeItem"));
            assert_eq!(api.find_kind("fake-group", "some-version", "mergeItem"), Some("mergeItem"));
            assert_eq!(api.find_kind("fake-group", "other", "mergeItem"), None);
        }
        assert!(OpenApi::from_value(serde_json::json!({"swagger": "2.0"})).is_err());
        assert!(OpenApi::from_value(serde_json::json!([])).is_err());
    }

    #[test]
    fn openapi_trailing_commas_outside_strings_are_dropped() {
        let out = strip_trailing_commas(br#"{"a": [1, 2 , ], "b": ",}", "c": "\",]",}"#);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a": [1, 2  ], "b": ",}", "c": "\",]"}"#);
    }

    #[test]
    fn openapi_merging_lists() {
        for (file, api) in merge_items() {
            let root = api.definition("mergeItem").unwrap();
            let (elem, m) = root.lookup_slice("mergingList").unwrap();
            assert_eq!(m, meta("merge", "name"), "{file}");
            // The element schema is mergeItem again.
            let (_, inner) = elem.lookup_slice("mergingList").unwrap();
            assert_eq!(inner, meta("merge", "name"), "{file}");
            assert_eq!(elem.lookup_struct("name").unwrap().1, meta("", ""), "{file}");

            let (_, m) = root.lookup_slice("retainKeysMergingList").unwrap();
            assert_eq!(m, meta("merge,retainKeys", "name"), "{file}");
            let (_, m) = root.lookup_slice("mergingIntList").unwrap();
            assert_eq!(m, meta("merge", ""), "{file}");

            // A single reference used as a list of mergeItem.
            let (elem, m) = root.lookup_slice("mergeItemPtr").unwrap();
            assert_eq!(m, meta("merge", "name"), "{file}");
            assert_eq!(elem.lookup_slice("mergingList").unwrap().1, meta("merge", "name"), "{file}");
            let (ptr, m) = root.lookup_struct("mergeItemPtr").unwrap();
            assert_eq!(m, meta("merge", "name"), "{file}");
            assert_eq!(ptr.lookup_slice("mergingList").unwrap().1, meta("merge", "name"), "{file}");

            let (retain, m) = root.lookup_struct("retainKeysMap").unwrap();
            assert_eq!(m, meta("retainKeys", ""), "{file}");
            assert_eq!(retain.lookup_slice("mergingList").unwrap().1, meta("merge", "name"), "{file}");
            assert_eq!(root.lookup_struct("replacingItem").unwrap().1, meta("replace", ""), "{file}");
        }
    }

    #[test]
    fn openapi_unknown_fields() {
        let Some(v2) = load(V2) else { return };
        let root = v2.definition("mergeItem").unwrap();
        assert_eq!(err_text(root.lookup_struct("nope")), r#"unable to find api field "nope" in mergeItem"#);
        assert_eq!(err_text(root.lookup_slice("nope")), r#"unable to find api field "nope" in mergeItem"#);
        let (elem, _) = root.lookup_slice("mergingList").unwrap();
        assert_eq!(err_text(elem.lookup_struct("x\"y")), r#"unable to find api field "x\"y" in mergeItem"#);
        let (map, _) = root.lookup_struct("simpleMap").unwrap();
        assert_eq!(err_text(map.lookup_struct("k")), "expected kind, but got map");
        assert_eq!(err_text(map.lookup_slice("k")), "expected slice, but got map");
        let (name, _) = root.lookup_struct("name").unwrap();
        assert_eq!(err_text(name.lookup_struct("k")), "expected kind, but got primitive");
        assert_eq!(err_text(root.lookup_slice("name")), "expected slice, but got primitive");
        let (list, _) = root.lookup_struct("mergingList").unwrap();
        assert_eq!(err_text(list.lookup_struct("k")), "expected kind, but got slice");
        assert_eq!(err_text(list.lookup_slice("k")), "expected visit kind first, then visit array");
        assert!(matches!(list.lookup_slice("k").unwrap_err().kind, ErrorKind::Schema(SchemaError::WrongKind(_))));
        assert!(matches!(root.lookup_struct("nope").unwrap_err().kind, ErrorKind::UnknownField { .. }));

        let Some(v3) = load(V3) else { return };
        let root = v3.definition("mergeItem").unwrap();
        assert_eq!(err_text(root.lookup_struct("nope")), r#"unable to find api field "nope""#);
        assert_eq!(err_text(root.lookup_slice("nope")), r#"unable to find api field "nope""#);
        let (map, _) = root.lookup_struct("simpleMap").unwrap();
        assert_eq!(err_text(map.lookup_struct("k")), r#"unable to find api field "k""#);
        assert!(matches!(root.lookup_slice("nope").unwrap_err().kind, ErrorKind::UnknownField { .. }));
    }

    #[test]
    fn openapi_untyped_json_item() {
        // v2: an Arbitrary schema, everything below merges without metadata.
        if let Some(v2) = load(V2) {
            let (json, m) = v2.definition("mergeItem").unwrap().lookup_struct("jsonItem").unwrap();
            assert_eq!(m, meta("", ""));
            let (below, m) = json.lookup_struct("anything").unwrap();
            assert!(matches!(below, Schema::Untyped));
            assert_eq!(m, meta("", ""));
            assert!(matches!(json.lookup_slice("anything").unwrap().0, Schema::Untyped));
            assert_eq!(json.name(), ARBITRARY_NAME);
        }
        // v3: no properties, so lookups fail.
        if let Some(v3) = load(V3) {
            let (json, _) = v3.definition("mergeItem").unwrap().lookup_struct("jsonItem").unwrap();
            assert_eq!(err_text(json.lookup_struct("anything")), r#"unable to find api field "anything""#);
            assert_eq!(err_text(json.lookup_slice("anything")), r#"unable to find api field "anything""#);
        }
    }

    #[test]
    fn openapi_names() {
        if let Some(v2) = load(V2) {
            let root = v2.definition("mergeItem").unwrap();
            assert_eq!(root.lookup_slice("mergingList").unwrap().0.name(), r#"Reference to "mergeItem""#);
            assert_eq!(root.lookup_slice("mergingIntList").unwrap().0.name(), "integer (int32)");
            assert_eq!(root.lookup_struct("simpleMap").unwrap().0.name(), "Map of string");
        }
        if let Some(v3) = load(V3) {
            let root = v3.definition("mergeItem").unwrap();
            assert_eq!(root.lookup_slice("mergingList").unwrap().0.name(), "Struct");
            assert_eq!(root.lookup_slice("mergingIntList").unwrap().0.name(), "integer");
        }
    }

    #[test]
    fn openapi_bad_extensions_and_refs() {
        let v2 = OpenApi::from_value(serde_json::json!({"swagger": "2.0", "definitions": {"a": {"properties": {
            "n": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": 1},
            "r": {"$ref": "#/definitions/missing"},
        }}}}))
        .unwrap();
        let a = v2.definition("a").unwrap();
        assert_eq!(err_text(a.lookup_slice("n")), "expected a string, but received a int64");
        let (r, _) = a.lookup_struct("r").unwrap();
        assert_eq!(err_text(r.lookup_struct("x")), r#"unknown model in reference: "missing""#);
        let kind = r.lookup_struct("x").unwrap_err().kind;
        assert!(
            matches!(&kind, ErrorKind::Schema(SchemaError::UnresolvedReference { reference, .. }) if reference == "missing")
        );
        // References that lead back to themselves.
        let looped = OpenApi::from_value(serde_json::json!({"swagger": "2.0", "definitions": {
            "a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}}))
        .unwrap();
        let kind = looped.definition("a").unwrap().lookup_struct("x").unwrap_err().kind;
        assert_eq!(kind, ErrorKind::Schema(SchemaError::ReferenceCycle("a".into())));
        assert_eq!(kind.to_string(), "reference cycle in OpenAPI definition a");

        let v3 = OpenApi::from_value(serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {"a": {
            "properties": {"r": {"allOf": [{"$ref": "#/components/schemas/missing"}]}}
        }}}}))
        .unwrap();
        let a = v3.definition("a").unwrap();
        assert_eq!(err_text(a.lookup_struct("r")), "unable to resolve #/components/schemas/missing in OpenAPI V3");
        let kind = a.lookup_struct("r").unwrap_err().kind;
        let ErrorKind::Schema(SchemaError::UnresolvedReference { reference, .. }) = kind else { panic!("{kind:?}") };
        assert_eq!(reference, "#/components/schemas/missing");
    }

    #[test]
    fn openapi_recommended_merge_keys() {
        let ports = serde_json::json!({"type": "array", "items": {"$ref": "#/definitions/port"},
            "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "port",
            "x-smp-recommended-patch-merge-key": "port,protocol"});
        let v2 = OpenApi::from_value(serde_json::json!({"swagger": "2.0", "definitions": {
            "spec": {"properties": {"ports": ports, "bad": {"type": "array", "x-smp-recommended-patch-merge-key": 1},
                "plain": {"type": "array", "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}},
            "port": {"properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}}},
        }}))
        .unwrap();
        let spec = v2.definition("spec").unwrap();
        let (_, m) = spec.lookup_slice("ports").unwrap();
        assert_eq!(m.key_name(), Some("port"));
        assert_eq!(m.recommended().unwrap().unwrap().to_vec(), ["port", "protocol"]);
        // Lookups that do not read the extension still work.
        let (_, m) = spec.lookup_slice("bad").unwrap();
        let kind = m.recommended().unwrap_err().kind;
        assert!(matches!(kind, ErrorKind::Schema(SchemaError::BadRecommendedMergeKey { .. })), "{kind:?}");
        assert_eq!(spec.lookup_slice("plain").unwrap().1.recommended().unwrap(), None);
    }

    #[test]
    fn openapi_kubernetes_lists_get_the_built_in_recommended_keys() {
        let Some(api) = load(CORE_V1) else { return };
        let spec = api.definition("io.k8s.api.core.v1.ServiceSpec").unwrap();
        let (_, m) = spec.lookup_slice("ports").unwrap();
        assert_eq!(m.key_name(), Some("port"));
        assert_eq!(m.recommended().unwrap().unwrap().to_vec(), ["port", "protocol"]);
        let pod = api.definition("io.k8s.api.core.v1.PodSpec").unwrap();
        let (container, _) = pod.lookup_slice("containers").unwrap();
        let (_, m) = container.lookup_slice("ports").unwrap();
        assert_eq!(m.recommended().unwrap().unwrap().to_vec(), ["containerPort", "protocol"]);
        assert_eq!(container.lookup_slice("env").unwrap().1.recommended().unwrap(), None);
    }

    #[test]
    fn openapi_v2_inline_objects_name_their_path() {
        let v2 = OpenApi::from_value(serde_json::json!({"swagger": "2.0", "definitions": {"a": {"properties": {
            "in": {"type": "object", "properties": {"deep": {"properties": {"x": {"type": "string"}}}}},
        }}}}))
        .unwrap();
        let (inner, _) = v2.definition("a").unwrap().lookup_struct("in").unwrap();
        let (deep, _) = inner.lookup_struct("deep").unwrap();
        assert_eq!(err_text(deep.lookup_struct("y")), r#"unable to find api field "y" in a.in.deep"#);
    }

    #[test]
    fn openapi_kubernetes_core_v1() {
        let Some(api) = load(CORE_V1) else { return };
        assert_eq!(api.find_kind("", "v1", "Pod"), Some("io.k8s.api.core.v1.Pod"));
        assert_eq!(api.find_kind("apps", "v1", "Pod"), None);

        let pod = api.definition("io.k8s.api.core.v1.Pod").unwrap();
        let (spec, _) = pod.lookup_struct("spec").unwrap();
        let (container, m) = spec.lookup_slice("containers").unwrap();
        assert_eq!(m, meta("merge", "name"));
        assert_eq!(container.lookup_slice("env").unwrap().1, meta("merge", "name"));
        let ports = container.lookup_slice("ports").unwrap().1;
        assert_eq!((ports.strategy().unwrap(), ports.key_name()), (Strategy::MERGE, Some("containerPort")));

        let spec = api.definition("io.k8s.api.core.v1.PodSpec").unwrap();
        let (container, m) = spec.lookup_slice("containers").unwrap();
        assert_eq!(m, meta("merge", "name"));
        let (env, m) = container.lookup_slice("env").unwrap();
        assert_eq!(m, meta("merge", "name"));
        assert_eq!(env.lookup_struct("valueFrom").unwrap().1, meta("", ""));

        let err = api.definition("PodSpec").unwrap_err().to_string();
        assert!(err.contains("io.k8s.api.core.v1.PodSpec"), "{err}");
    }
}
