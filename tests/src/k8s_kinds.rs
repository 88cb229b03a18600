//! The built-in kinds of the kinds differential, with their static smp
//! schemas and the typed layer on their k8s-openapi types.

use crate::kubectl::Kubectl;
use crate::openapi_gen::{Defs, FieldId, probe_tree};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Node, Pod, Secret, Service, ServiceAccount};
use serde_json::{Value, json};
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};
use std::collections::BTreeSet;

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

/// More rounds than kubectl can have unknown fields in these kinds.
const MAX_PROBE_ROUNDS: usize = 60;
/// Parallel kubectl runs of the probe.
const PROBE_THREADS: usize = 2;

/// The fields of the generated kinds that kubectl's Go types lack: probes
/// every kind, drops the field kubectl names in its error, and again until
/// kubectl knows every field left.
pub fn fields_unknown_to_kubectl(kubectl: &Kubectl, defs: &mut Defs) -> BTreeSet<FieldId> {
    let mut pending: Vec<&Kind> = KINDS.iter().collect();
    let mut unknown = BTreeSet::new();
    for _ in 0..MAX_PROBE_ROUNDS {
        let probes: Vec<Value> = pending
            .iter()
            .map(|k| {
                let def = defs.kind_definition(k.api_version, k.name).unwrap_or_else(|e| panic!("{e}"));
                let mut probe = probe_tree(defs, def);
                probe["apiVersion"] = json!(k.api_version);
                probe["kind"] = json!(k.name);
                probe["metadata"]["name"] = json!("probe");
                probe
            })
            .collect();
        let pairs: Vec<(&Value, &Value)> = probes.iter().map(|p| (p, p)).collect();
        let mut still = Vec::new();
        let mut found = Vec::new();
        for (kind, outcome) in pending.iter().zip(kubectl.patch_all(&pairs, PROBE_THREADS)) {
            let Err(e) = outcome else { continue };
            let field = unknown_field(&e).unwrap_or_else(|| panic!("probing {} with kubectl: {e}", kind.name));
            found.push(field);
            still.push(*kind);
        }
        if still.is_empty() {
            return unknown;
        }
        unknown.extend(found.iter().cloned());
        defs.exclude(found);
        pending = still;
    }
    panic!("kubectl still refuses fields after {MAX_PROBE_ROUNDS} probes: {unknown:?}");
}

/// (`Container`, `restartPolicyRules`) from kubectl's
/// `unable to find api field in struct Container for the json field "restartPolicyRules"`.
fn unknown_field(error: &str) -> Option<FieldId> {
    let rest = error.split_once("unable to find api field in struct ")?.1;
    let (name, rest) = rest.split_once(' ')?;
    let field = rest.strip_prefix("for the json field \"")?.split('"').next()?;
    Some((name.to_string(), field.to_string()))
}
