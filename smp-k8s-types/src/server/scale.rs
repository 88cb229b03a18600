//! The `scale` subresource: an autoscaling/v1 `Scale` read from and
//! written to the replicas of a workload (deployments, replicasets,
//! statefulsets, replicationcontrollers) or of a custom resource whose CRD
//! declares `subresources.scale`, as kube-apiserver's scale registries do.

use super::catalog::ResourceType;
use super::scale_paths::{ScalePaths, SelectorSource};
use super::status::ApiError;
use serde_json::{Map, Value, json};

fn at<'a>(object: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(object, |v, k| v.get(k))
}

/// `labels.Selector.String()` of a `LabelSelector`: requirements sorted by
/// key, values of set requirements sorted.
pub(crate) fn label_selector_string(selector: &Value) -> String {
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector["matchLabels"].as_object() {
        for (k, v) in labels {
            requirements.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())));
        }
    }
    for expression in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = expression["key"].as_str().unwrap_or_default().to_string();
        let mut values: Vec<&str> =
            expression["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        let text = match expression["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.clone(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        requirements.push((key, text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(",")
}

fn selector_of(paths: &ScalePaths, object: &Value) -> Option<String> {
    let spec_selector = || object["spec"].get("selector").filter(|s| !s.is_null());
    let text = match &paths.selector {
        SelectorSource::LabelSelector => label_selector_string(spec_selector()?),
        SelectorSource::Labels => label_selector_string(&json!({"matchLabels": spec_selector()?})),
        SelectorSource::Path(path) => at(object, path.as_ref()?)?.as_str()?.to_string(),
    };
    (!text.is_empty()).then_some(text)
}

/// The `Scale` of `object`.
pub fn read(paths: &ScalePaths, object: &Value) -> Value {
    let mut meta = Map::new();
    for field in ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] {
        if let Some(value) = object["metadata"].get(field).filter(|v| !v.is_null() && *v != "") {
            meta.insert(field.into(), value.clone());
        }
    }
    let replicas = |path: &[String]| at(object, path).and_then(Value::as_i64).unwrap_or(0);
    let mut spec = Map::new();
    // `spec.replicas` is `omitempty` in autoscaling/v1, `status.replicas` is not.
    let desired = replicas(&paths.spec_replicas);
    if desired != 0 {
        spec.insert("replicas".into(), desired.into());
    }
    let mut status = Map::new();
    status.insert("replicas".into(), replicas(&paths.status_replicas).into());
    if let Some(selector) = selector_of(paths, object) {
        status.insert("selector".into(), selector.into());
    }
    json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": meta, "spec": spec, "status": status})
}

/// The `Scale` kind in errors (`Scale.autoscaling "web" is invalid`).
fn scale_type() -> ResourceType {
    ResourceType {
        group: "autoscaling".into(),
        version: "v1".into(),
        kind: "Scale".into(),
        plural: "scales".into(),
        singular: "scale".into(),
        namespaced: true,
        short_names: Vec::new(),
        schema: super::catalog::KindSchema::BuiltIn(
            crate::shape_of_kind("autoscaling/v1", "Scale").expect("Scale is a built-in kind"),
        ),
        status_subresource: false,
        scale: None,
        printer_columns: Vec::new(),
        storage: true,
        ssa: None,
    }
}

/// The resource a patch of a `Scale` is applied as (its schema for
/// strategic merge patches).
pub fn patch_type() -> ResourceType {
    scale_type()
}

/// `object` with the desired replicas of `scale` and its resourceVersion
/// (a precondition), or the server's 400/422 for a `Scale` it refuses.
pub fn write(paths: &ScalePaths, object: &Value, name: &str, scale: &Value) -> Result<Value, ApiError> {
    if !scale.is_object() || scale.get("spec").is_some_and(|s| !s.is_object() && !s.is_null()) {
        return Err(ApiError::bad_request("the object provided is unrecognized (must be of type Scale)"));
    }
    if let Some(given) = scale["metadata"]["name"].as_str().filter(|n| !n.is_empty())
        && given != name
    {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        )));
    }
    let replicas = match scale["spec"].get("replicas") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_i64().filter(|r| i32::try_from(*r).is_ok()).ok_or_else(|| {
            ApiError::bad_request(format!(
                "json: cannot unmarshal {v} into Go struct field ScaleSpec.spec.replicas of type int32"
            ))
        })?,
    };
    if replicas < 0 {
        let cause = (
            "spec.replicas",
            "FieldValueInvalid",
            format!("Invalid value: {replicas}: must be greater than or equal to 0"),
        );
        return Err(ApiError::invalid(&scale_type(), name, &[cause]));
    }
    let mut new = object.clone();
    let Some((last, parents)) = paths.spec_replicas.split_last() else {
        return Err(ApiError::internal("the scale subresource has no spec replicas path"));
    };
    let mut at = &mut new;
    for key in parents {
        if !at[key.as_str()].is_object() {
            at[key.as_str()] = json!({});
        }
        at = &mut at[key.as_str()];
    }
    at[last.as_str()] = replicas.into();
    let meta = super::object::meta_mut(&mut new);
    match scale["metadata"]["resourceVersion"].as_str().filter(|rv| !rv.is_empty()) {
        Some(rv) => meta.insert("resourceVersion".into(), rv.into()),
        None => meta.remove("resourceVersion"),
    };
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::scale_paths::{built_in, of_crd_version};

    #[test]
    fn selectors_print_as_labels_selector_strings() {
        let selector = json!({
            "matchLabels": {"tier": "front", "app": "web"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                {"key": "zone", "operator": "DoesNotExist"},
                {"key": "canary", "operator": "Exists"},
                {"key": "b", "operator": "NotIn", "values": ["y", "x"]},
            ],
        });
        assert_eq!(label_selector_string(&selector), "app=web,b notin (x,y),canary,env in (dev,prod),tier=front,!zone");
    }

    #[test]
    fn a_deployments_scale() {
        let paths = built_in("apps", "deployments").unwrap();
        let object = json!({
            "metadata": {"name": "web", "namespace": "default", "uid": "u", "resourceVersion": "7", "generation": 2},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 2},
        });
        let scale = read(&paths, &object);
        assert_eq!(scale["spec"], json!({"replicas": 3}));
        assert_eq!(scale["status"], json!({"replicas": 2, "selector": "app=web"}));
        assert_eq!(
            scale["metadata"],
            json!({"name": "web", "namespace": "default", "uid": "u", "resourceVersion": "7"})
        );
        let written = write(&paths, &object, "web", &json!({"spec": {"replicas": 0}})).unwrap();
        assert_eq!(written["spec"]["replicas"], 0);
        assert_eq!(written["metadata"].get("resourceVersion"), None);
        assert_eq!(read(&paths, &written)["spec"], json!({}), "zero replicas are omitted");
        let e = write(&paths, &object, "web", &json!({"spec": {"replicas": -1}})).unwrap_err();
        assert_eq!(e.code, 422);
        assert_eq!(
            e.message,
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
    }

    #[test]
    fn a_custom_resources_scale_follows_its_crd_paths() {
        let version = json!({"subresources": {"scale": {
            "specReplicasPath": ".spec.size", "statusReplicasPath": ".status.ready", "labelSelectorPath": ".status.selector"}}});
        let paths = of_crd_version(&version).unwrap();
        let object = json!({"metadata": {"name": "b"}, "spec": {"size": 4}, "status": {"selector": "app=b"}});
        let scale = read(&paths, &object);
        assert_eq!(scale["spec"]["replicas"], 4);
        assert_eq!(scale["status"], json!({"replicas": 0, "selector": "app=b"}));
        let written =
            write(&paths, &json!({"metadata": {"name": "b"}}), "b", &json!({"spec": {"replicas": 2}})).unwrap();
        assert_eq!(written["spec"]["size"], 2);
        assert_eq!(of_crd_version(&json!({"subresources": {"status": {}}})), None);
    }
}
