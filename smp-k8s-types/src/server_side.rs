//! Server-side apply from typed objects (feature `kube`): the body of a
//! [`Patch::Apply`] from the same typed value the strategic and merge
//! routes take, and what the apply would do, computed before it is sent.
//!
//! An applied configuration holds the fields a manager means to own, and
//! the manager owns every field it sends. A typed value holds more: the
//! required fields of every struct are there even when the code never set
//! them (k8s-openapi gives them their `Default`: an empty `selector`, an
//! empty pod `template`, a port `0`), and an object read from the server
//! carries what the server wrote. [`apply_configuration`] leaves out:
//!
//! - what the server writes in `metadata` (`managedFields`, which an apply
//!   may not carry; `resourceVersion`, which would make it conditional;
//!   `uid`, `creationTimestamp`, `generation`, `selfLink`, the deletion
//!   fields), and `status`, which an apply of the main resource ignores;
//! - every field the typed value reads back without: a field whose value
//!   is what the type gives a missing field (a required field left at its
//!   `Default`, a `#[serde(default)]` field at its default). An `Option`
//!   set to `Some` of an empty value (`emptyDir: Some(..default())`,
//!   `replicas: Some(0)`) stays, as without it the value reads back `None`;
//!   so do map entries and list elements, whatever their value.
//!
//! `apiVersion` and `kind` are always there. The body goes to
//! `Api::patch(name, &PatchParams::apply("manager"), &patch)`, or through
//! [`PatchFrom::apply_from`](crate::api::PatchFrom::apply_from).
//!
//! ```
//! use serde_json::json;
//! use smp_k8s_types::k8s_openapi::api::apps::v1::Deployment;
//! use smp_k8s_types::server_side::apply_configuration;
//!
//! let desired: Deployment =
//!     serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": {"replicas": 3}})).unwrap();
//! // The typed value holds the required `selector` and `template`, empty.
//! let typed = serde_json::to_value(&desired).unwrap();
//! assert_eq!(typed["spec"]["selector"], json!({}));
//! // The applied configuration leaves them out: the manager does not own them.
//! assert_eq!(
//!     apply_configuration(&desired).unwrap(),
//!     json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!            "metadata": {"name": "web"}, "spec": {"replicas": 3}})
//! );
//! ```

use crate::patch::Patch;
use kube_core::Resource;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use smp_core::schema::Shape;
use smp_core::ssa::{self, Preview};
use smp_core::unstable::to_value;
use smp_core::{ErrorKind, StrategicMerge};
use std::collections::HashMap;

/// What the server writes in `metadata`; an apply never carries it.
const SERVER_METADATA: &[&str] = &[
    "managedFields",
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "selfLink",
];

/// One step of a path into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn at_mut<'v>(v: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// A value a missing field may read back as.
fn looks_default(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// A struct field below the object whose value may be a default: its path,
/// and where it sits in the type (list indices and map keys as `*`), which
/// with its value decides whether the type reads it back without it.
struct Candidate {
    path: Vec<Step>,
    place: String,
}

/// The struct fields below `v` (of shape `shape`) whose values may be
/// defaults, deepest first (a struct emptied by its fields' removal is
/// tried after them). Map entries and list elements are never candidates:
/// a map or list without one of them reads back as another value.
fn candidates(v: &Value, shape: Shape, path: &mut Vec<Step>, place: &str, out: &mut Vec<Candidate>, depth: usize) {
    if depth > smp_core::MAX_DEPTH {
        return;
    }
    match (v, shape) {
        (Value::Object(o), Shape::Struct(s)) => {
            for (k, child) in o {
                let child_shape = s.field(k).map_or(Shape::Any, |f| (f.shape)());
                let child_place = format!("{place}.{k}");
                path.push(Step::Key(k.clone()));
                candidates(child, child_shape, path, &child_place, out, depth + 1);
                if matches!(child, Value::Object(_)) || looks_default(child) {
                    out.push(Candidate { path: path.clone(), place: child_place });
                }
                path.pop();
            }
        }
        (Value::Object(o), Shape::Map(elem)) => {
            let child_place = format!("{place}.*");
            for (k, child) in o {
                path.push(Step::Key(k.clone()));
                candidates(child, elem(), path, &child_place, out, depth + 1);
                path.pop();
            }
        }
        (Value::Array(a), Shape::List(elem)) => {
            let child_place = format!("{place}[*]");
            for (i, child) in a.iter().enumerate() {
                path.push(Step::Index(i));
                candidates(child, elem(), path, &child_place, out, depth + 1);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The applied configuration of `desired` (see the [module docs](self)).
pub fn apply_configuration<K>(desired: &K) -> Result<Value, smp_core::Error>
where
    K: StrategicMerge + Resource<DynamicType = ()>,
{
    // Before serde recurses into it.
    smp_core::typed::check_depth(desired)?;
    let mut body = to_value(desired)?;
    let Value::Object(top) = &mut body else {
        return Err(ErrorKind::Serialize("the object does not serialize as a JSON object".into()).into());
    };
    top.remove("status");
    if let Some(Value::Object(meta)) = top.get_mut("metadata") {
        for k in SERVER_METADATA {
            meta.remove(*k);
        }
    }
    without_defaults::<K>(&mut body)?;
    finish::<K>(body)
}

/// Removes from `body` the struct fields the type reads back without
/// (see the module docs); returns how many times it read the body back.
/// Whether a field's value may go depends on the field's type and the
/// value alone, so each place in the type is tried once per value, and
/// the cost is that of the type, not of the object's size.
fn without_defaults<K: StrategicMerge>(body: &mut Value) -> Result<usize, smp_core::Error> {
    // What the body must read back as.
    let Ok(target) = serde_json::from_value::<K>(body.clone()) else { return Ok(0) };
    let mut found = Vec::new();
    candidates(body, K::shape(), &mut Vec::new(), "", &mut found, 0);
    let mut decided: HashMap<(String, String), bool> = HashMap::new();
    let mut read_backs = 1;
    for Candidate { path, place } in found {
        let (last, parent) = path.split_last().expect("a path is never empty");
        let Step::Key(key) = last else { continue };
        let Some(Value::Object(obj)) = at_mut(body, parent) else { continue };
        let Some(value) = obj.get(key).filter(|v| looks_default(v)) else { continue };
        let decision = (place, value.to_string());
        let removable = match decided.get(&decision) {
            Some(&removable) => removable,
            None => {
                let value = obj.remove(key).expect("just read");
                read_backs += 1;
                let removable = serde_json::from_value::<K>(body.clone()).ok().as_ref() == Some(&target);
                let Some(Value::Object(obj)) = at_mut(body, parent) else { continue };
                obj.insert(key.clone(), value);
                decided.insert(decision, removable);
                removable
            }
        };
        if removable && let Some(Value::Object(obj)) = at_mut(body, parent) {
            obj.remove(key);
        }
    }
    Ok(read_backs)
}

/// `apiVersion` and `kind` first, as the type names them.
fn finish<K: Resource<DynamicType = ()>>(body: Value) -> Result<Value, smp_core::Error> {
    let Value::Object(rest) = body else { unreachable!("checked to be an object") };
    let mut out = Map::new();
    out.insert("apiVersion".into(), Value::String(K::api_version(&()).into_owned()));
    out.insert("kind".into(), Value::String(K::kind(&()).into_owned()));
    for (k, v) in rest {
        if k != "apiVersion" && k != "kind" {
            out.insert(k, v);
        }
    }
    Ok(Value::Object(out))
}

/// [`apply_configuration`] as a [`Patch::Apply`], for
/// `Api::patch(name, &PatchParams::apply("manager"), &patch)`.
pub fn apply_patch<K>(desired: &K) -> Result<Patch<Value>, smp_core::Error>
where
    K: StrategicMerge + Resource<DynamicType = ()>,
{
    Ok(Patch::Apply(apply_configuration(desired)?))
}

/// Why an apply could not be previewed.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// No built-in schema for the kind: a custom resource takes
    /// [`preview_apply_with`] and its schema
    /// ([`smp_core::ssa::DerivedSchema`], or one read from its CRD).
    #[error("no built-in server-side apply schema for {0}: pass the kind's schema (preview_apply_with)")]
    NoSchema(String),
    /// The objects could not be turned into JSON.
    #[error(transparent)]
    Json(#[from] smp_core::Error),
    /// The apply would be refused for another reason than conflicts.
    #[error(transparent)]
    Apply(#[from] ssa::Error),
}

/// What an apply of `desired` by `manager` would do to `live` (`None`: the
/// object does not exist yet), for a built-in kind: the object it would
/// leave, the fields `manager` would own, the fields other managers would
/// lose, the conflicts (see [`smp_core::ssa::preview`]). `now` (RFC 3339)
/// stamps the entries the apply would touch.
///
/// ```
/// use serde_json::json;
/// use smp_k8s_types::k8s_openapi::api::apps::v1::Deployment;
/// use smp_k8s_types::server_side::preview_apply;
///
/// let deployment = |replicas: i32| -> Deployment {
///     serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": {"replicas": replicas}})).unwrap()
/// };
/// let t = "2026-01-01T00:00:00Z";
/// // The helm release created it with 2 replicas.
/// let created = preview_apply(None, &deployment(2), "helm", false, t).unwrap();
/// let live: Deployment = created.object_as().unwrap().unwrap();
///
/// // What would the autoscaler's apply of 5 replicas do?
/// let p = preview_apply(Some(&live), &deployment(5), "autoscaler", false, t).unwrap();
/// assert!(p.object.is_none(), "refused: helm owns the field");
/// let c = &p.conflicts[0];
/// assert_eq!((c.manager.as_str(), c.field.as_str()), ("helm", ".spec.replicas"));
///
/// // Forced, the autoscaler takes the field over from helm.
/// let p = preview_apply(Some(&live), &deployment(5), "autoscaler", true, t).unwrap();
/// assert!(p.changed);
/// assert_eq!(p.lost[0].manager, "helm");
/// let lost: Vec<String> = p.lost[0].fields.iter_paths().iter().map(|f| f.to_string()).collect();
/// assert_eq!(lost, [".spec.replicas"]);
/// ```
pub fn preview_apply<K>(
    live: Option<&K>,
    desired: &K,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<PreviewOf<K>, PreviewError>
where
    K: StrategicMerge + Resource<DynamicType = ()>,
{
    let (api_version, kind) = (K::api_version(&()), K::kind(&()));
    let res = crate::ssa_schemas::resource(&api_version, &kind)
        .ok_or_else(|| PreviewError::NoSchema(format!("{api_version} {kind}")))?;
    preview_apply_with(&res, live, desired, manager, force, now)
}

/// [`preview_apply`] under a given schema (a custom resource's).
pub fn preview_apply_with<K>(
    res: &ssa::Resource,
    live: Option<&K>,
    desired: &K,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<PreviewOf<K>, PreviewError>
where
    K: StrategicMerge + Resource<DynamicType = ()>,
{
    if let Some(live) = live {
        smp_core::typed::check_depth(live)?;
    }
    let live = live.map(to_value).transpose()?;
    let applied = apply_configuration(desired)?;
    let preview = ssa::preview(res, live.as_ref(), &applied, manager, force, now)?;
    Ok(PreviewOf { preview, _kind: std::marker::PhantomData })
}

/// A [`Preview`] of an apply of a `K`.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewOf<K> {
    preview: Preview,
    _kind: std::marker::PhantomData<fn() -> K>,
}

impl<K> std::ops::Deref for PreviewOf<K> {
    type Target = Preview;
    fn deref(&self) -> &Preview {
        &self.preview
    }
}

impl<K: DeserializeOwned> PreviewOf<K> {
    /// The object the apply would leave, as a `K` (`None` when refused).
    pub fn object_as(&self) -> Option<Result<K, smp_core::Error>> {
        let obj = self.preview.object.as_ref()?;
        Some(serde_json::from_value(obj.clone()).map_err(|e| ErrorKind::Deserialize(e.to_string()).into()))
    }

    /// The preview itself.
    pub fn into_inner(self) -> Preview {
        self.preview
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Pod;
    use serde_json::json;

    #[test]
    fn set_values_stay_defaults_and_server_fields_go() {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "annotations": {"empty": ""}, "resourceVersion": "7", "uid": "u",
                         "generation": 2, "creationTimestamp": "2026-01-01T00:00:00Z",
                         "managedFields": [{"manager": "m", "operation": "Apply", "apiVersion": "v1"}]},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}],
                     "volumes": [{"name": "v", "emptyDir": {}}]},
            "status": {"phase": "Running"}
        }))
        .unwrap();
        let body = apply_configuration(&pod).unwrap();
        assert_eq!(
            body,
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "p", "annotations": {"empty": ""}},
                   "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}],
                            "volumes": [{"name": "v", "emptyDir": {}}]}})
        );
        // Read back, the body is the object without what the server writes.
        let mut expected = pod.clone();
        expected.status = None;
        let meta = &mut expected.metadata;
        (meta.resource_version, meta.uid, meta.generation, meta.creation_timestamp, meta.managed_fields) =
            (None, None, None, None, None);
        assert_eq!(serde_json::from_value::<Pod>(body).unwrap(), expected);

        // Zero replicas are set, not a default.
        let d: Deployment =
            serde_json::from_value(json!({"metadata": {"name": "d"}, "spec": {"replicas": 0}})).unwrap();
        assert_eq!(apply_configuration(&d).unwrap()["spec"], json!({"replicas": 0}));
    }

    /// A pod with `n` containers, each with `n` variables set to `""` and
    /// an empty `resources`, and a config map entry `""` per container.
    fn wide_pod(n: usize) -> Value {
        let env: Vec<Value> = (0..n).map(|i| json!({"name": format!("V{i}"), "value": ""})).collect();
        let containers: Vec<Value> =
            (0..n).map(|i| json!({"name": format!("c{i}"), "image": "i", "env": env, "resources": {}})).collect();
        let labels: Map<String, Value> = (0..n).map(|i| (format!("l{i}"), json!(""))).collect();
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": labels},
               "spec": {"containers": containers}})
    }

    /// Each place in the type is read back once per value, however many
    /// elements hold it: the cost does not grow with the square of the size.
    #[test]
    fn read_backs_depend_on_the_type_not_the_size() {
        let count = |n| {
            let mut body = wide_pod(n);
            let read_backs = without_defaults::<Pod>(&mut body).unwrap();
            // Nothing set is lost: every variable keeps its empty value.
            assert_eq!(
                serde_json::from_value::<Pod>(body).unwrap(),
                serde_json::from_value::<Pod>(wide_pod(n)).unwrap()
            );
            read_backs
        };
        assert_eq!(count(3), count(60));
        assert!(count(60) < 10, "{} read-backs", count(60));
    }
}
