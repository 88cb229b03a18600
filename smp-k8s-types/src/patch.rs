//! Typed strategic merge patches ready for kube (feature `kube`): what
//! controller-runtime's `client.StrategicMergeFrom` gives Go operators.
//!
//! [`StrategicPatch`] is implemented for every [`StrategicMerge`] type (all
//! of k8s-openapi's, and your derived ones); its methods return a
//! [`Patch::Strategic`], the type `kube::api::Patch` re-exports, to pass
//! as is to `Api::patch(name, &PatchParams::default(), &patch)`.

use crate::kubectl;
use kube_core::Resource;
use serde_json::{Map, Value};
use smp_core::StrategicMerge;

pub use kube_core::params::Patch;

/// Why a patch with an optimistic lock could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The diff itself failed.
    #[error(transparent)]
    Patch(#[from] smp_core::Error),
    /// There is no version to lock on: the live object was not read from
    /// the API server (or its `metadata.resourceVersion` was cleared).
    #[error("cannot lock the patch of {object}: the live object has no metadata.resourceVersion")]
    NoResourceVersion {
        /// `namespace/name` of the live object, as far as it has them.
        object: String,
    },
}

/// The kinds the API server takes strategic merge patches for: those built
/// into Kubernetes (k8s-openapi's resources). A custom resource is not one:
/// the server answers a strategic merge patch with `415 Unsupported Media
/// Type`, so [`StrategicPatch`]'s strategic methods do not exist for it (a
/// compile error with this note); [`PatchFrom`](crate::api::PatchFrom) and
/// [`kubectl_apply_patch`](StrategicPatch::kubectl_apply_patch) take its
/// route.
///
/// ```compile_fail,E0277
/// use kube::CustomResource;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use smp_k8s_types::{StrategicMerge, StrategicPatch};
///
/// #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
/// #[kube(group = "example.com", version = "v1", kind = "Backend", namespaced)]
/// #[kube(derive = "PartialEq", derive = "StrategicMerge")]
/// pub struct BackendSpec {
///     replicas: i32,
/// }
///
/// let live = Backend::new("web", BackendSpec { replicas: 1 });
/// // `Backend` is not a kind the API server takes strategic merge patches for.
/// let patch = live.strategic_patch(&live.clone());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kind the API server takes strategic merge patches for",
    label = "not a kind built into Kubernetes",
    note = "the API server answers a strategic merge patch of a custom resource with 415 Unsupported Media Type",
    note = "patch it with `smp_k8s_types::api::PatchFrom::patch_from` (merged client side, sent as a JSON merge patch) or `api::patch_for(Route::of::<K>(), ..)`; `kubectl_apply_patch` takes that route by itself"
)]
pub trait ServedStrategically {}

impl<T: k8s_openapi::Resource> ServedStrategically for T {}

/// Strategic merge patches from a live object to the desired one, as
/// [`Patch::Strategic`] values for `kube::Api::patch`.
///
/// The strategic methods are for the kinds built into Kubernetes
/// ([`ServedStrategically`]); a custom resource takes the route of
/// [`PatchFrom`](crate::api::PatchFrom).
///
/// ```
/// use serde_json::json;
/// use smp_k8s_types::StrategicPatch;
/// use smp_k8s_types::k8s_openapi::api::core::v1::Service;
/// use smp_k8s_types::patch::Patch;
///
/// let service = |ports: serde_json::Value| -> Service {
///     serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": {"ports": ports}})).unwrap()
/// };
/// let live = service(json!([{"name": "http", "port": 80}]));
/// let desired = service(json!([{"name": "http", "port": 80}, {"name": "https", "port": 443}]));
///
/// let patch = live.strategic_patch(&desired).unwrap();
/// // api.patch("web", &PatchParams::default(), &patch).await?;
/// let Patch::Strategic(body) = patch else { unreachable!() };
/// assert_eq!(
///     body,
///     json!({"spec": {
///         "$setElementOrder/ports": [{"port": 80}, {"port": 443}],
///         "ports": [{"name": "https", "port": 443}]
///     }})
/// );
/// ```
pub trait StrategicPatch: StrategicMerge {
    /// The two-way patch from `self` (live) to `desired`; `{}` when nothing
    /// changed, which is still a valid request.
    fn strategic_patch(&self, desired: &Self) -> smp_core::Result<Patch<Value>>
    where
        Self: ServedStrategically,
    {
        self.diff(desired).map(Patch::Strategic)
    }

    /// [`strategic_patch`](Self::strategic_patch), or `None` when the patch
    /// would change nothing (`desired` equals `self`, or the patch is `{}`),
    /// so that an idle reconcile sends no request.
    ///
    /// ```
    /// use smp_k8s_types::StrategicPatch;
    /// use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
    ///
    /// let live = ConfigMap { data: Some([("a".into(), "1".into())].into()), ..Default::default() };
    /// assert!(live.strategic_patch_if_changed(&live.clone()).unwrap().is_none());
    ///
    /// let desired = ConfigMap { data: Some([("a".into(), "2".into())].into()), ..Default::default() };
    /// let patch = live.strategic_patch_if_changed(&desired).unwrap();
    /// assert!(patch.is_some(), "to send with api.patch(name, &PatchParams::default(), &patch)");
    /// ```
    fn strategic_patch_if_changed(&self, desired: &Self) -> smp_core::Result<Option<Patch<Value>>>
    where
        Self: ServedStrategically,
    {
        Ok(self.diff_if_changed(desired)?.map(Patch::Strategic))
    }

    /// [`strategic_patch`](Self::strategic_patch) that also carries the
    /// live object's `metadata.resourceVersion`, so that the API server
    /// refuses it (409 Conflict) if the object changed since it was read:
    /// controller-runtime's `MergeFromWithOptimisticLock`. Fails when the
    /// live object has no resourceVersion, as controller-runtime does.
    ///
    /// ```
    /// use smp_k8s_types::StrategicPatch;
    /// use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
    /// use smp_k8s_types::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    /// use smp_k8s_types::patch::Patch;
    ///
    /// let meta = ObjectMeta { name: Some("c".into()), resource_version: Some("41".into()), ..Default::default() };
    /// let live = ConfigMap { metadata: meta, ..Default::default() };
    /// let Patch::Strategic(body) = live.strategic_patch_with_lock(&live.clone()).unwrap() else { unreachable!() };
    /// assert_eq!(body, serde_json::json!({"metadata": {"resourceVersion": "41"}}));
    ///
    /// let unread = ConfigMap::default();
    /// assert!(unread.strategic_patch_with_lock(&unread).is_err());
    /// ```
    fn strategic_patch_with_lock(&self, desired: &Self) -> Result<Patch<Value>, LockError>
    where
        Self: Resource + ServedStrategically,
    {
        let meta = self.meta();
        let version = meta.resource_version.as_deref().filter(|v| !v.is_empty()).ok_or_else(|| {
            let object = [meta.namespace.as_deref(), meta.name.as_deref()].into_iter().flatten().collect::<Vec<_>>();
            let object = if object.is_empty() { "an unnamed object".to_string() } else { object.join("/") };
            LockError::NoResourceVersion { object }
        })?;
        let mut patch = self.diff(desired)?;
        set_resource_version(&mut patch, version);
        Ok(Patch::Strategic(patch))
    }

    /// [`strategic_patch_with_lock`](Self::strategic_patch_with_lock), or
    /// `None` when the patch would change nothing but check the version:
    /// `desired` equals `self` apart from `metadata.resourceVersion` (which
    /// the server manages), so that an idle reconcile sends no request. The
    /// lock helper itself never gives `{}`, hence this variant.
    ///
    /// ```
    /// use smp_k8s_types::StrategicPatch;
    /// use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
    /// use smp_k8s_types::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    /// use smp_k8s_types::patch::Patch;
    ///
    /// let meta = ObjectMeta { name: Some("c".into()), resource_version: Some("41".into()), ..Default::default() };
    /// let live = ConfigMap { metadata: meta, ..Default::default() };
    /// assert!(live.strategic_patch_with_lock_if_changed(&live.clone()).unwrap().is_none());
    ///
    /// let mut desired = live.clone();
    /// desired.data = Some([("a".into(), "1".into())].into());
    /// let Some(Patch::Strategic(body)) = live.strategic_patch_with_lock_if_changed(&desired).unwrap() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(body, serde_json::json!({"data": {"a": "1"}, "metadata": {"resourceVersion": "41"}}));
    /// ```
    fn strategic_patch_with_lock_if_changed(&self, desired: &Self) -> Result<Option<Patch<Value>>, LockError>
    where
        Self: Resource + ServedStrategically,
    {
        let patch = self.strategic_patch_with_lock(desired)?;
        let Patch::Strategic(body) = &patch else { return Ok(Some(patch)) };
        if self == desired || is_only_resource_version(body) {
            return Ok(None);
        }
        if self.meta().resource_version != desired.meta().resource_version {
            // Equal but for the version (a patch that only re-sends an
            // unsorted set's order, say): nothing to change either.
            let mut aligned = desired.clone();
            aligned.meta_mut().resource_version.clone_from(&self.meta().resource_version);
            if *self == aligned {
                return Ok(None);
            }
        }
        Ok(Some(patch))
    }

    /// The patch `kubectl apply` sends to bring the live object `self` to
    /// `desired`: a three-way patch from the
    /// `kubectl.kubernetes.io/last-applied-configuration` annotation of
    /// `self`, which also records `desired` in that annotation (see
    /// [`kubectl::typed_apply_patch`]). `overwrite` is kubectl's
    /// `--overwrite` (on unless `--overwrite=false`); without it, changes
    /// made to the live object since the last apply are a conflict error.
    ///
    /// As kubectl does, a kind that is not built into Kubernetes (a custom
    /// resource: no strategic patch metadata on the server) gets the JSON
    /// merge patch three-way instead, as a [`Patch::Merge`] (see
    /// [`kubectl::merge_apply_patch`]; `overwrite` plays no part there).
    ///
    /// ```
    /// use smp_k8s_types::StrategicPatch;
    /// use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
    /// use smp_k8s_types::kubectl::LAST_APPLIED;
    /// use smp_k8s_types::patch::Patch;
    ///
    /// let live = ConfigMap::default();
    /// let desired = ConfigMap { data: Some([("a".into(), "1".into())].into()), ..Default::default() };
    /// let Patch::Strategic(body) = live.kubectl_apply_patch(&desired, true).unwrap() else { unreachable!() };
    /// assert_eq!(body["data"], serde_json::json!({"a": "1"}));
    /// let recorded = body["metadata"]["annotations"][LAST_APPLIED].as_str().unwrap();
    /// assert_eq!(recorded, "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{}}}\n");
    /// ```
    fn kubectl_apply_patch(&self, desired: &Self, overwrite: bool) -> smp_core::Result<Patch<Value>>
    where
        Self: Resource<DynamicType = ()>,
    {
        // Serialised below: refused first when too deep.
        smp_core::typed::check_depth(self)?;
        smp_core::typed::check_depth(desired)?;
        match Route::of::<Self>() {
            Route::Strategic => kubectl::typed_apply_patch(self, desired, overwrite).map(Patch::Strategic),
            Route::CustomResource => {
                let (live, desired) = (kubectl::to_json(self)?, kubectl::to_json(desired)?);
                kubectl::merge_apply_patch(&live, &desired).map(Patch::Merge)
            }
        }
    }
}

impl<T: StrategicMerge> StrategicPatch for T {}

/// Puts `version` at `metadata.resourceVersion` of `patch`. Same result as
/// controller-runtime's diff of the live object without a resourceVersion
/// against the desired one with the live version, since resourceVersion is
/// a plain string field of `metadata`.
pub(crate) fn set_resource_version(patch: &mut Value, version: &str) {
    let Value::Object(root) = patch else { return };
    let metadata = root.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    if let Value::Object(metadata) = metadata {
        metadata.insert("resourceVersion".into(), Value::String(version.into()));
    }
}

/// `{"metadata": {"resourceVersion": ...}}` and nothing else: the lock alone.
fn is_only_resource_version(patch: &Value) -> bool {
    let Some(root) = patch.as_object() else { return false };
    let metadata = root.get("metadata").and_then(Value::as_object);
    root.len() == 1 && metadata.is_some_and(|m| m.len() == 1 && m.contains_key("resourceVersion"))
}

/// How a patch is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `application/strategic-merge-patch+json`: built-in kinds.
    Strategic,
    /// `application/merge-patch+json` without lock, guarded
    /// `application/json-patch+json` with it: custom resources.
    CustomResource,
}

impl Route {
    /// The route for `K`: strategic for the kinds built into Kubernetes
    /// (those of k8s-openapi), the custom-resource route for any other.
    pub fn of<K: Resource<DynamicType = ()>>() -> Route {
        let builtin = smp_core::k8s::is_built_in(&K::api_version(&()), &K::kind(&()));
        if builtin { Route::Strategic } else { Route::CustomResource }
    }
}
