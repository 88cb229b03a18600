//! Server-side apply, offline: structured-merge-diff's semantics as the
//! API server runs them (`k8s.io/apimachinery/pkg/util/managedfields`).
//!
//! - [`Schema`]: the SSA schema model, read from an OpenAPI v3 document
//!   ([`Schema::from_openapi_v3`]) as the server's type converter reads it;
//! - [`Resource`]: a schema's root type with the group, version and kind the
//!   server's field manager serves;
//! - [`apply`]: an apply by a field manager (merge, removal of what it no
//!   longer applies, conflicts, `force`), [`update`]: a write by a
//!   non-apply manager (it owns what it changed); both return the object
//!   with its `metadata.managedFields` as the server writes them;
//! - [`DerivedSchema`]: the schema of a custom resource whose `spec` is a
//!   `#[derive(StrategicMerge)]` type, from its `#[patch]` attributes, and
//!   [`apply_typed`], an apply of a typed object under it;
//! - [`preview`]: what an apply would do (the object, the fields the
//!   applier would own, what other managers would lose, the conflicts)
//!   without writing anything;
//! - [`Updater`]: structured-merge-diff's updater on its own, on field
//!   sets kept apart from the object; [`Schema::from_structured_merge_diff`]
//!   reads that library's own schema format;
//! - [`fieldpath`]: field paths and sets, [`fieldsv1`]: their `FieldsV1`
//!   encoding.
//!
//! The server's chain is followed step by step: the `before-first-apply`
//! owner of an object that has no managed fields yet, the metadata fields
//! no manager owns (`name`, `uid`, `managedFields`, ...), the cap of ten
//! `Update` managers (the oldest merged into `ancient-changes`), `kubectl`
//! taking over the fields of its last-applied annotation from client-side
//! apply and keeping that annotation up to date, and time stamps: the
//! entries an operation changes get `now`, the others keep theirs, a no-op
//! apply changes none. Not simulated, as in the reference's own test field
//! manager: subresources, version conversion, defaulting, validation
//! beyond the schema, the status reset of some resources.
//!
//! ```
//! use serde_json::json;
//! use smp_core::ssa::{self, Resource, Schema};
//!
//! let doc = json!({"components": {"schemas": {"T": {
//!     "type": "object",
//!     "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "T"}],
//!     "properties": {
//!         "apiVersion": {"type": "string"}, "kind": {"type": "string"},
//!         "metadata": {"type": "object"},
//!         "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
//!     }
//! }}}});
//! let schema = Schema::from_openapi_v3(&doc).unwrap();
//! let res = Resource::for_kind(&schema, "example.com/v1", "T").unwrap();
//! let cfg = json!({"apiVersion": "example.com/v1", "kind": "T",
//!                  "metadata": {"name": "a"}, "spec": {"replicas": 2}});
//! let live = ssa::apply(&res, None, &cfg, "alice", false, "2026-01-01T00:00:00Z").unwrap();
//! let other = json!({"apiVersion": "example.com/v1", "kind": "T",
//!                    "metadata": {"name": "a"}, "spec": {"replicas": 3}});
//! let err = ssa::apply(&res, Some(&live), &other, "bob", false, "2026-01-01T00:01:00Z").unwrap_err();
//! assert_eq!(err.to_string(), "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas");
//! ```

mod compare;
mod conflicts;
mod derived;
pub mod fieldpath;
pub mod fieldsv1;
mod managed;
mod manager;
mod merge;
mod preview;
mod schema;
mod time;
mod typed;
mod updater;
mod value;

pub use conflicts::{Conflict, Conflicts};
pub use derived::{DerivedSchema, apply_typed, openapi_v3};
pub use fieldpath::{Path, PathElement, Set};
pub use preview::{ManagerFields, Preview, preview};
pub use schema::{Relationship, Scalar, Schema, SchemaError, TypeRef};
pub use time::Time;
pub use typed::{ValidationError, ValidationErrors};
pub use updater::{ManagedFields, Updater, VersionedSet};

use serde_json::{Map, Value};

/// Why an apply or update failed; nothing is half-applied.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The apply would change fields other managers own (and `force` was
    /// not given); the message is the server's.
    Conflicts(Conflicts),
    /// Any other failure, with the server's message (paths included).
    Invalid(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Conflicts(c) => write!(f, "{c}"),
            Error::Invalid(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The conflicts, if that is the failure.
    pub fn conflicts(&self) -> Option<&Conflicts> {
        match self {
            Error::Conflicts(c) => Some(c),
            Error::Invalid(_) => None,
        }
    }
}

/// What a field manager serves: a schema, the root type of its objects,
/// and their `apiVersion` and `kind`.
#[derive(Clone, Debug)]
pub struct Resource<'s> {
    /// The schema.
    pub schema: &'s Schema,
    /// The objects' type.
    pub root: TypeRef,
    /// `group/version`, or `version` for the core group.
    pub api_version: String,
    /// The kind.
    pub kind: String,
}

impl<'s> Resource<'s> {
    /// A resource from its parts.
    pub fn new(schema: &'s Schema, root: TypeRef, api_version: &str, kind: &str) -> Self {
        Resource { schema, root, api_version: api_version.to_string(), kind: kind.to_string() }
    }

    /// The type marked with `x-kubernetes-group-version-kind` for this
    /// `apiVersion` and `kind`.
    pub fn for_kind(schema: &'s Schema, api_version: &str, kind: &str) -> Option<Self> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let def = schema.kind_definition(group, version, kind)?;
        Some(Resource::new(schema, schema.root(def)?, api_version, kind))
    }

    /// A named definition; its group, version and kind are those it is
    /// marked with (the one matching `object_api_version_kind` if given,
    /// else the first), or `object_api_version_kind` when it has none.
    pub fn for_definition(
        schema: &'s Schema,
        definition: &str,
        object_api_version_kind: Option<(&str, &str)>,
    ) -> Option<Self> {
        let root = schema.root(definition)?;
        let marked = schema.kinds_of(definition);
        let gv = |g: &str, v: &str| if g.is_empty() { v.to_string() } else { format!("{g}/{v}") };
        let chosen = object_api_version_kind
            .and_then(|(av, k)| marked.iter().find(|(g, v, mk)| gv(g, v) == av && mk == k))
            .or(marked.first())
            .map(|(g, v, k)| (gv(g, v), k.clone()));
        let (api_version, kind) = match chosen {
            Some(c) => c,
            None => {
                let (av, k) = object_api_version_kind?;
                (av.to_string(), k.to_string())
            }
        };
        Some(Resource { schema, root, api_version, kind })
    }

    fn gvk_text(&self) -> String {
        let (group, version) = self.api_version.split_once('/').unwrap_or(("", &self.api_version));
        format!("{group}/{version}, Kind={}", self.kind)
    }

    /// The object the server starts a create from.
    fn empty_object(&self) -> Value {
        let mut m = Map::new();
        m.insert("apiVersion".into(), Value::String(self.api_version.clone()));
        m.insert("kind".into(), Value::String(self.kind.clone()));
        Value::Object(m)
    }
}

fn prepare<'v>(
    res: &Resource,
    live: Option<&'v Value>,
    obj: &Value,
    now: &str,
) -> Result<(std::borrow::Cow<'v, Value>, Time), Error> {
    let now = Time::parse(now).ok_or_else(|| Error::Invalid(format!("\"now\" is not an RFC 3339 time: {now}")))?;
    for v in live.into_iter().chain([obj]) {
        crate::nesting::check_nesting(v).map_err(|e| Error::Invalid(e.to_string()))?;
        if !v.is_object() {
            return Err(Error::Invalid("an object must be a JSON object".into()));
        }
    }
    let live = match live {
        Some(l) => std::borrow::Cow::Borrowed(l),
        None => std::borrow::Cow::Owned(res.empty_object()),
    };
    Ok((live, now))
}

/// A server-side apply of `applied` by `manager` to `live` (`None`: a
/// create); `now` (RFC 3339) stamps the entries the apply touches. Returns
/// the object with its `metadata.managedFields`, or the conflicts with
/// other managers' fields (unless `force`), or the server's error.
pub fn apply(
    res: &Resource,
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Value, Error> {
    let (live, now) = prepare(res, live, applied, now)?;
    let mut out = manager::Op { res, now, clock: Time::wall_clock() }.apply(&live, applied, manager, force)?;
    value::integral_floats_as_integers(&mut out);
    Ok(out)
}

/// A write (a PUT or a non-apply patch) of `new` by `manager` over `live`
/// (`None`: a create): the manager owns what changed, the others lose it.
pub fn update(res: &Resource, live: Option<&Value>, new: &Value, manager: &str, now: &str) -> Result<Value, Error> {
    let (live, now) = prepare(res, live, new, now)?;
    let mut out = manager::Op { res, now, clock: Time::wall_clock() }.update(&live, new, manager)?;
    value::integral_floats_as_integers(&mut out);
    Ok(out)
}
