//! Patching through kube's [`Api`], with the route each kind accepts
//! (feature `kube`).
//!
//! The API server takes strategic merge patches for its built-in kinds
//! only; for a custom resource it answers `415 Unsupported Media Type` and
//! accepts JSON merge patches (`application/merge-patch+json`), JSON
//! patches (`application/json-patch+json`) and server-side apply.
//! [`PatchFrom::patch_from`] picks the route from the kind:
//!
//! | kind | without lock | with [`Lock::ResourceVersion`] |
//! |---|---|---|
//! | built-in (in k8s-openapi) | strategic merge patch | the same, carrying `metadata.resourceVersion` |
//! | custom resource | JSON merge patch | JSON patch starting with a `test` of `/metadata/resourceVersion` |
//!
//! For a custom resource the strategic merge is still done, client side:
//! the strategic diff of live and desired is applied to the live object
//! (lists merged by key as `#[patch(...)]` says), and the JSON merge patch
//! (or guarded JSON patch) from the live object to that result is sent. A
//! merge patch replaces lists whole, so without the lock a concurrent
//! change to a list by another writer is overwritten; with the lock the
//! server refuses the patch (409 Conflict, or 422 for a failed JSON patch
//! `test`) once the object moved on, and the caller reads it again. A
//! conflict is returned, never retried: the decision made on stale data
//! must be made again. A `415` to a strategic patch (a kind the server
//! does not serve strategically) is retried once on the custom-resource
//! route.
//!
//! A list the type keys by several fields (`#[patch(merge_key =
//! "port,protocol")]`, a derived type's composite key) is merged by all of
//! them wherever smp merges, which on the custom-resource route is
//! everywhere: the server gets the result as a merge or JSON patch. An API
//! server merges a strategic merge patch by one field, so
//! [`Route::Strategic`] refuses a patch of such a list
//! ([`Error::CompositeKey`]) rather than let the server merge two elements
//! that share the first field into one.
//!
//! [`PatchFrom::apply_from`] takes the fourth route, server-side apply, for
//! any kind: the fields the typed object sets, merged by the server by its
//! list types, owned by the field manager
//! ([`server_side`](crate::server_side)).
//!
//! `params.field_manager` names the writer in `metadata.managedFields`
//! (for server-side apply it is required; for these patches, optional, and
//! the server records `kubectl-*`-like defaults without it).

use crate::kubectl::to_json;
pub use crate::patch::Route;
use crate::patch::{Patch, set_resource_version};
use kube_client::Api;
use kube_client::api::{PatchParams, PostParams};
use kube_core::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use smp_core::directive::ListDirective;
use smp_core::schema::{MergeKey, Shape};
use smp_core::{StrategicMerge, json_patch, merge_patch};
use std::fmt::Debug;
use std::future::Future;

/// Whether a patch carries an optimistic lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lock {
    /// No lock: the patch applies to whatever the object is now.
    #[default]
    None,
    /// The patch applies only while `metadata.resourceVersion` is still the
    /// live object's (controller-runtime's `MergeFromWithOptimisticLock`).
    ResourceVersion,
}

/// What [`PatchFrom::create_or_patch`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The object did not exist and was created.
    Created,
    /// The object existed and the mutation changed it (the patch was sent).
    Patched,
    /// The object existed and the mutation changed nothing; the (empty)
    /// patch was sent anyway, for the mutating webhooks that rely on it.
    Unchanged,
}

/// Why a patch through the [`Api`] failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The patch could not be computed.
    #[error(transparent)]
    Patch(#[from] smp_core::Error),
    /// The lock was asked for, but the live object has no
    /// `metadata.resourceVersion` (it was not read from the server).
    #[error("cannot lock the patch: the live object has no metadata.resourceVersion")]
    NoResourceVersion,
    /// A server-side apply of an object without `metadata.name`.
    #[error("cannot apply: the object has no metadata.name")]
    NoName,
    /// A strategic merge patch (forced with [`Route::Strategic`]) of a list
    /// the type keys by several fields (`#[patch(merge_key =
    /// "port,protocol")]`): the API server would merge its elements by the
    /// first field alone, and two elements sharing it would become one. Such
    /// a type takes the custom-resource route.
    #[error(
        "{path}: the merge key `{}` has several fields, and an API server merges a strategic merge patch by `{}` \
         alone: send it on the custom-resource route (Route::CustomResource), or compute a patch with \
         `$patchMergeKey` (smp_core::WithOptions::diff_with) for a server that reads it",
        fields.join(","),
        fields[0]
    )]
    CompositeKey {
        /// The list, e.g. `spec.ports`.
        path: String,
        /// The fields of its merge key.
        fields: &'static [&'static str],
    },
    /// The API server refused the request, or could not be reached. A stale
    /// lock is `409 Conflict` (merge and strategic patches) or `422` (the
    /// `test` of a JSON patch).
    #[error(transparent)]
    Api(#[from] kube_client::Error),
}

impl Error {
    /// Whether the server refused the patch because the object changed
    /// since it was read (the lock did its job): read it again, decide
    /// again.
    pub fn is_conflict(&self) -> bool {
        // 422: the failed `test` names the path it tested.
        matches!(self, Error::Api(kube_client::Error::Api(s))
            if s.code == 409 || (s.code == 422 && s.message.contains("/metadata/resourceVersion")))
    }
}

/// The body of each patch [`PatchFrom`] sends, by route. The
/// `metadata.resourceVersion` of `desired` is ignored: the patch carries
/// the live one when `lock` asks for it, and none otherwise.
pub fn patch_for<K>(route: Route, lock: Lock, live: &K, desired: &K) -> Result<Patch<Value>, Error>
where
    K: StrategicMerge + Resource,
{
    // Copied below: refused first when too deep.
    smp_core::typed::check_depth(live)?;
    smp_core::typed::check_depth(desired)?;
    let version = || live.meta().resource_version.clone().filter(|v| !v.is_empty()).ok_or(Error::NoResourceVersion);
    // The lock is the caller's choice, never a stale version left in the
    // desired object.
    let mut desired = desired.clone();
    desired.meta_mut().resource_version = live.meta().resource_version.clone();
    let desired = &desired;
    let strategic = || -> Result<Value, Error> {
        let patch = live.diff(desired)?;
        match composite_list(&patch, K::shape(), 0) {
            Some((path, fields)) => Err(Error::CompositeKey { path: path.join("."), fields }),
            None => Ok(patch),
        }
    };
    match (route, lock) {
        (Route::Strategic, Lock::None) => Ok(Patch::Strategic(strategic()?)),
        (Route::Strategic, Lock::ResourceVersion) => {
            let version = version()?;
            let mut patch = strategic()?;
            set_resource_version(&mut patch, &version);
            Ok(Patch::Strategic(patch))
        }
        (Route::CustomResource, lock) => {
            // The strategic merge, done here since the server will not.
            let merged = live.apply(&live.diff(desired)?)?;
            let (live, merged) = (to_json(live)?, to_json(&merged)?);
            match lock {
                Lock::None => Ok(Patch::Merge(merge_patch::create(&live, &merged)?)),
                Lock::ResourceVersion => {
                    version()?;
                    Ok(Patch::Json(json_patch::guarded(&live, &merged)?))
                }
            }
        }
    }
}

/// The first list in a strategic merge patch whose merge key is composite
/// ([`MergeKey::Composite`]), with its path.
fn composite_list(patch: &Value, shape: Shape, depth: usize) -> Option<(Vec<String>, &'static [&'static str])> {
    // Deeper than a typed value's schema goes: a recursive type.
    if depth > 64 {
        return None;
    }
    let within = |name: &str, found: Option<(Vec<String>, &'static [&'static str])>| {
        found.map(|(mut path, fields)| {
            path.insert(0, name.to_string());
            (path, fields)
        })
    };
    match (patch, shape) {
        (Value::Object(m), Shape::Struct(s)) => m.iter().find_map(|(key, value)| {
            let name = ListDirective::parse(key).map_or(key.as_str(), |(_, field)| field);
            let field = s.field(name)?;
            if let Some(MergeKey::Composite(fields)) = field.merge_key {
                return Some((vec![name.to_string()], fields));
            }
            within(name, composite_list(value, (field.shape)(), depth + 1))
        }),
        (Value::Object(m), Shape::Map(values)) => {
            m.iter().find_map(|(key, value)| within(key, composite_list(value, values(), depth + 1)))
        }
        (Value::Array(items), Shape::List(elem)) => {
            items.iter().find_map(|item| composite_list(item, elem(), depth + 1))
        }
        _ => None,
    }
}

/// Patches computed from typed objects and sent through kube's [`Api`] on
/// the route the kind accepts (see the [module docs](self)).
pub trait PatchFrom<K> {
    /// Brings the object `name` from `live` (as read) to `desired`, without
    /// lock; returns the object the server answered with.
    fn patch_from(
        &self,
        name: &str,
        live: &K,
        desired: &K,
        params: &PatchParams,
    ) -> impl Future<Output = Result<K, Error>> + Send;

    /// [`patch_from`](Self::patch_from) with an optimistic lock: the server
    /// refuses it once the object changed since `live` was read
    /// ([`Error::is_conflict`]).
    fn patch_from_with_lock(
        &self,
        name: &str,
        live: &K,
        desired: &K,
        params: &PatchParams,
    ) -> impl Future<Output = Result<K, Error>> + Send;

    /// [`patch_from`](Self::patch_from) on a given route and lock.
    fn patch_from_via(
        &self,
        route: Route,
        lock: Lock,
        name: &str,
        live: &K,
        desired: &K,
        params: &PatchParams,
    ) -> impl Future<Output = Result<K, Error>> + Send;

    /// Server-side apply of `desired` by the field manager of `params`
    /// (`PatchParams::apply("manager")`, with `.force()` to take over
    /// fields other managers own): the body is
    /// [`apply_configuration`](crate::server_side::apply_configuration), the
    /// fields `desired` sets and not the defaults of the fields it leaves
    /// alone; the name is `desired`'s `metadata.name`. Returns the server's
    /// object; a refusal for conflicts is a `409` ([`Error::is_conflict`]).
    /// [`preview_apply`](crate::server_side::preview_apply) tells what it
    /// would do before it is sent.
    fn apply_from(&self, desired: &K, params: &PatchParams) -> impl Future<Output = Result<K, Error>> + Send;

    /// Gets `name`; creates it from `new()` passed through `mutate` if it
    /// does not exist; else applies `mutate` to a copy of the live object
    /// and patches the difference, **always sending the patch**, even an
    /// empty one (mutating webhooks rely on the request). Returns the
    /// server's object and what happened.
    fn create_or_patch<N, M>(
        &self,
        name: &str,
        params: &PatchParams,
        lock: Lock,
        new: N,
        mutate: M,
    ) -> impl Future<Output = Result<(K, Change), Error>> + Send
    where
        N: FnOnce() -> K + Send,
        M: FnOnce(&mut K) + Send;
}

impl<K> PatchFrom<K> for Api<K>
where
    K: StrategicMerge + Resource<DynamicType = ()> + Serialize + DeserializeOwned + Debug + Clone + Send + Sync,
{
    async fn patch_from(&self, name: &str, live: &K, desired: &K, params: &PatchParams) -> Result<K, Error> {
        self.patch_from_via(Route::of::<K>(), Lock::None, name, live, desired, params).await
    }

    async fn patch_from_with_lock(&self, name: &str, live: &K, desired: &K, params: &PatchParams) -> Result<K, Error> {
        self.patch_from_via(Route::of::<K>(), Lock::ResourceVersion, name, live, desired, params).await
    }

    async fn patch_from_via(
        &self,
        route: Route,
        lock: Lock,
        name: &str,
        live: &K,
        desired: &K,
        params: &PatchParams,
    ) -> Result<K, Error> {
        let patch = patch_for(route, lock, live, desired)?;
        match self.patch(name, params, &patch).await {
            Err(kube_client::Error::Api(status)) if status.code == 415 && route == Route::Strategic => {
                let patch = patch_for(Route::CustomResource, lock, live, desired)?;
                Ok(self.patch(name, params, &patch).await?)
            }
            result => Ok(result?),
        }
    }

    async fn apply_from(&self, desired: &K, params: &PatchParams) -> Result<K, Error> {
        let name = desired.meta().name.clone().filter(|n| !n.is_empty()).ok_or(Error::NoName)?;
        let patch = crate::server_side::apply_patch(desired)?;
        Ok(self.patch(&name, params, &patch).await?)
    }

    async fn create_or_patch<N, M>(
        &self,
        name: &str,
        params: &PatchParams,
        lock: Lock,
        new: N,
        mutate: M,
    ) -> Result<(K, Change), Error>
    where
        N: FnOnce() -> K + Send,
        M: FnOnce(&mut K) + Send,
    {
        match self.get_opt(name).await? {
            None => {
                let mut object = new();
                mutate(&mut object);
                let post = PostParams { dry_run: params.dry_run, field_manager: params.field_manager.clone() };
                Ok((self.create(&post, &object).await?, Change::Created))
            }
            Some(live) => {
                let mut desired = live.clone();
                mutate(&mut desired);
                let change = if desired == live { Change::Unchanged } else { Change::Patched };
                let route = Route::of::<K>();
                Ok((self.patch_from_via(route, lock, name, &live, &desired, params).await?, change))
            }
        }
    }
}
