//! The built-in kinds of the kinds differential, with their static smp
//! schemas and the typed layer on their k8s-openapi types.

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Node, Pod, Secret, Service, ServiceAccount};
use serde_json::Value;
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};

/// A failure of the typed layer: the JSON did not fit the k8s-openapi
/// type, or smp failed.
#[derive(Debug)]
pub enum TypedError {
    Decode(String),
    Smp(String),
}

pub type TypedOutcome = Result<Value, TypedError>;

/// A built-in kind: its `apiVersion`, `kind`, and the typed layer on its
/// k8s-openapi type, on JSON values.
pub struct Kind {
    pub api_version: &'static str,
    pub name: &'static str,
    /// The value through the k8s-openapi type and back.
    pub round_trip: fn(&Value) -> TypedOutcome,
    /// `StrategicMerge::apply(object, patch)`.
    pub apply: fn(&Value, &Value) -> TypedOutcome,
    /// `StrategicMerge::diff(original, modified)`.
    pub diff: fn(&Value, &Value) -> TypedOutcome,
    /// `current.three_way(original, modified)`, overwriting conflicts:
    /// arguments in the JSON engine's order (original, modified, current).
    pub three_way: fn(&Value, &Value, &Value) -> TypedOutcome,
}

impl Kind {
    /// The static schema of the kind (`smp_core::k8s`), from the Go struct tags.
    pub fn static_schema(&self) -> Schema<'static> {
        let shape = smp_core::k8s::shape_of_kind(self.api_version, self.name)
            .unwrap_or_else(|| panic!("no static schema for {}/{}", self.api_version, self.name));
        Schema::Static(shape)
    }
}

const fn kind<T: StrategicMerge>(api_version: &'static str, name: &'static str) -> Kind {
    Kind {
        api_version,
        name,
        round_trip: round_trip::<T>,
        apply: apply::<T>,
        diff: diff::<T>,
        three_way: three_way::<T>,
    }
}

pub const KINDS: &[Kind] = &[
    kind::<Pod>("v1", "Pod"),
    kind::<Deployment>("apps/v1", "Deployment"),
    kind::<StatefulSet>("apps/v1", "StatefulSet"),
    kind::<DaemonSet>("apps/v1", "DaemonSet"),
    kind::<Job>("batch/v1", "Job"),
    kind::<CronJob>("batch/v1", "CronJob"),
    kind::<Service>("v1", "Service"),
    kind::<ConfigMap>("v1", "ConfigMap"),
    kind::<Secret>("v1", "Secret"),
    kind::<ServiceAccount>("v1", "ServiceAccount"),
    kind::<Node>("v1", "Node"),
    kind::<Namespace>("v1", "Namespace"),
];

/// The kind of an object, from its `apiVersion` and `kind`.
pub fn kind_of(object: &Value) -> Option<&'static Kind> {
    let text = |k: &str| object.get(k).and_then(Value::as_str);
    KINDS.iter().find(|k| text("apiVersion") == Some(k.api_version) && text("kind") == Some(k.name))
}

fn decode<T: StrategicMerge>(v: &Value) -> Result<T, TypedError> {
    serde_json::from_value(v.clone()).map_err(|e| TypedError::Decode(e.to_string()))
}

fn encode<T: StrategicMerge>(t: &T) -> TypedOutcome {
    serde_json::to_value(t).map_err(|e| TypedError::Decode(e.to_string()))
}

fn smp<T>(r: smp_core::Result<T>) -> Result<T, TypedError> {
    r.map_err(|e| TypedError::Smp(e.to_string()))
}

fn round_trip<T: StrategicMerge>(v: &Value) -> TypedOutcome {
    encode(&decode::<T>(v)?)
}

fn apply<T: StrategicMerge>(object: &Value, patch: &Value) -> TypedOutcome {
    encode(&smp(decode::<T>(object)?.apply(patch))?)
}

fn diff<T: StrategicMerge>(original: &Value, modified: &Value) -> TypedOutcome {
    smp(decode::<T>(original)?.diff(&decode::<T>(modified)?))
}

fn three_way<T: StrategicMerge>(original: &Value, modified: &Value, current: &Value) -> TypedOutcome {
    let (original, modified, current) = (decode::<T>(original)?, decode::<T>(modified)?, decode::<T>(current)?);
    smp(current.three_way(&original, &modified, ThreeWayOptions { overwrite: true, ..Default::default() }))
}
