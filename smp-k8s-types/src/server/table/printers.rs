//! The columns and cells kube-apiserver's printers give the common
//! built-in kinds (`pkg/printers/internalversion`), from the object as
//! stored (the server does no defaulting, so a field it would default
//! shows as its zero value). The server always computes the wide
//! (priority 1) cells; kubectl shows them with `-o wide`.

use super::{age, name};
use serde_json::Value;

/// A column: name, type, description, priority (`Name` and `Age` take
/// the metadata's own descriptions).
pub type Column = (&'static str, &'static str, &'static str, i64);

type Cells = fn(&Value, i64) -> Vec<Value>;

const CONTAINERS: Column = ("Containers", "string", "Names of each container in the template.", 1);
const IMAGES: Column = ("Images", "string", "Images referenced by each container in the template.", 1);
const NAME: Column = ("Name", "string", "", 0);
const AGE: Column = ("Age", "string", "", 0);

/// The printer of a resource, if kube-apiserver has one of its own.
pub fn of(group: &str, plural: &str) -> Option<(&'static [Column], Cells)> {
    let printer: (&'static [Column], Cells) = match (group, plural) {
        ("", "pods") => (
            &[
                NAME,
                ("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", 0),
                ("Status", "string", "The aggregate status of the containers in this pod.", 0),
                (
                    "Restarts",
                    "string",
                    "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
                    0,
                ),
                AGE,
                ("IP", "string", "", 1),
                ("Node", "string", "", 1),
                ("Nominated Node", "string", "", 1),
                ("Readiness Gates", "string", "", 1),
            ],
            pod,
        ),
        ("apps", "deployments") => (
            &[
                NAME,
                ("Ready", "string", "Number of the pod with ready state", 0),
                ("Up-to-date", "string", "", 0),
                ("Available", "string", "", 0),
                AGE,
                CONTAINERS,
                IMAGES,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let s = &o["status"];
                let ready = format!("{}/{}", int(s, "readyReplicas"), int(&o["spec"], "replicas"));
                let mut row = vec![
                    name(o),
                    ready.into(),
                    int(s, "updatedReplicas").into(),
                    int(s, "availableReplicas").into(),
                    age(o, now),
                ];
                row.extend(template_cells(o));
                row.push(label_selector(&o["spec"]["selector"]).into());
                row
            },
        ),
        ("apps", "replicasets") | ("", "replicationcontrollers") => (
            &[
                NAME,
                ("Desired", "integer", "", 0),
                ("Current", "integer", "", 0),
                ("Ready", "integer", "", 0),
                AGE,
                CONTAINERS,
                IMAGES,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let s = &o["status"];
                let mut row = vec![
                    name(o),
                    int(&o["spec"], "replicas").into(),
                    int(s, "replicas").into(),
                    int(s, "readyReplicas").into(),
                    age(o, now),
                ];
                row.extend(template_cells(o));
                let selector = &o["spec"]["selector"];
                // A ReplicaSet's is a LabelSelector, a controller's a map.
                let text = if selector.get("matchLabels").is_some() || selector.get("matchExpressions").is_some() {
                    label_selector(selector)
                } else {
                    format_labels(selector)
                };
                row.push(text.into());
                row
            },
        ),
        ("apps", "statefulsets") => (
            &[NAME, ("Ready", "string", "Number of the pod with ready state", 0), AGE, CONTAINERS, IMAGES],
            |o, now| {
                let ready = format!("{}/{}", int(&o["status"], "readyReplicas"), int(&o["spec"], "replicas"));
                let mut row = vec![name(o), ready.into(), age(o, now)];
                row.extend(template_cells(o));
                row
            },
        ),
        ("apps", "daemonsets") => (
            &[
                NAME,
                ("Desired", "integer", "", 0),
                ("Current", "integer", "", 0),
                ("Ready", "integer", "", 0),
                ("Up-to-date", "integer", "", 0),
                ("Available", "integer", "", 0),
                ("Node Selector", "string", "", 0),
                AGE,
                CONTAINERS,
                IMAGES,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let s = &o["status"];
                let mut row = vec![name(o)];
                for field in [
                    "desiredNumberScheduled",
                    "currentNumberScheduled",
                    "numberReady",
                    "updatedNumberScheduled",
                    "numberAvailable",
                ] {
                    row.push(int(s, field).into());
                }
                row.push(format_labels(&o["spec"]["template"]["spec"]["nodeSelector"]).into());
                row.push(age(o, now));
                row.extend(template_cells(o));
                row.push(label_selector(&o["spec"]["selector"]).into());
                row
            },
        ),
        ("batch", "jobs") => (
            &[
                NAME,
                ("Status", "string", "Status of the job.", 0),
                ("Completions", "string", "", 0),
                ("Duration", "string", "Time required to complete the job.", 0),
                AGE,
                CONTAINERS,
                IMAGES,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let mut row = vec![
                    name(o),
                    job_status(o).into(),
                    completions(o).into(),
                    job_duration(o, now).into(),
                    age(o, now),
                ];
                row.extend(template_cells(o));
                row.push(label_selector(&o["spec"]["selector"]).into());
                row
            },
        ),
        ("batch", "cronjobs") => (
            &[
                NAME,
                ("Schedule", "string", "", 0),
                ("Timezone", "string", "", 0),
                ("Suspend", "boolean", "", 0),
                ("Active", "integer", "", 0),
                ("Last Schedule", "string", "", 0),
                AGE,
                CONTAINERS,
                IMAGES,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let spec = &o["spec"];
                let last = match o["status"]["lastScheduleTime"].as_str().and_then(crate::server::clock::parse_rfc3339)
                {
                    Some(at) => super::human_duration(now - at),
                    None => "<none>".into(),
                };
                let mut row = vec![
                    name(o),
                    text(spec, "schedule").into(),
                    spec["timeZone"].as_str().unwrap_or("<none>").into(),
                    bool_ptr(&spec["suspend"]).into(),
                    count(&o["status"]["active"]).into(),
                    last.into(),
                    age(o, now),
                ];
                let template = &spec["jobTemplate"]["spec"]["template"]["spec"];
                row.extend(containers_of(template));
                row.push(label_selector(&spec["jobTemplate"]["spec"]["selector"]).into());
                row
            },
        ),
        ("", "services") => (
            &[
                NAME,
                ("Type", "string", "", 0),
                ("Cluster-IP", "string", "", 0),
                ("External-IP", "string", "", 0),
                ("Port(s)", "string", "", 0),
                AGE,
                ("Selector", "string", "", 1),
            ],
            |o, now| {
                let spec = &o["spec"];
                let cluster_ip = spec["clusterIPs"].get(0).and_then(Value::as_str).unwrap_or("<none>");
                vec![
                    name(o),
                    text(spec, "type").into(),
                    cluster_ip.into(),
                    external_ip(o).into(),
                    ports(&spec["ports"]).into(),
                    age(o, now),
                    format_labels(&spec["selector"]).into(),
                ]
            },
        ),
        ("", "configmaps") => (&[NAME, ("Data", "string", "", 0), AGE], |o, now| {
            vec![name(o), (count(&o["data"]) + count(&o["binaryData"])).into(), age(o, now)]
        }),
        ("", "secrets") => (&[NAME, ("Type", "string", "", 0), ("Data", "string", "", 0), AGE], |o, now| {
            vec![name(o), text(o, "type").into(), count(&o["data"]).into(), age(o, now)]
        }),
        ("", "namespaces") => (&[NAME, ("Status", "string", "The status of the namespace", 0), AGE], |o, now| {
            vec![name(o), text(&o["status"], "phase").into(), age(o, now)]
        }),
        ("", "serviceaccounts") => (&[NAME, ("Secrets", "string", "", 0), AGE], |o, now| {
            vec![name(o), count(&o["secrets"]).into(), age(o, now)]
        }),
        ("", "nodes") => (
            &[
                NAME,
                ("Status", "string", "The status of the node", 0),
                ("Roles", "string", "The roles of the node", 0),
                AGE,
                ("Version", "string", "", 0),
                ("Internal-IP", "string", "", 1),
                ("External-IP", "string", "", 1),
                ("OS-Image", "string", "", 1),
                ("Kernel-Version", "string", "", 1),
                ("Container-Runtime", "string", "", 1),
            ],
            node,
        ),
        ("networking.k8s.io", "ingresses") => (
            &[
                NAME,
                (
                    "Class",
                    "string",
                    "The name of the IngressClass resource that should be used for additional configuration",
                    0,
                ),
                ("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", 0),
                ("Address", "string", "Address is a list containing ingress points for the load-balancer", 0),
                ("Ports", "string", "Ports of TLS configurations that open", 0),
                AGE,
            ],
            ingress,
        ),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => (
            &[
                NAME,
                ("Role", "string", "", 0),
                AGE,
                ("Users", "string", "Users in the roleBinding", 1),
                ("Groups", "string", "Groups in the roleBinding", 1),
                ("ServiceAccounts", "string", "ServiceAccounts in the roleBinding", 1),
            ],
            |o, now| {
                let role = format!("{}/{}", text(&o["roleRef"], "kind"), text(&o["roleRef"], "name"));
                let mut row = vec![name(o), role.into(), age(o, now)];
                for kind in ["User", "Group", "ServiceAccount"] {
                    let names: Vec<String> = o["subjects"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|s| s["kind"] == kind)
                        .map(|s| match kind {
                            "ServiceAccount" => format!("{}/{}", text(s, "namespace"), text(s, "name")),
                            _ => text(s, "name").to_string(),
                        })
                        .collect();
                    row.push(names.join(", ").into());
                }
                row
            },
        ),
        ("scheduling.k8s.io", "priorityclasses") => (
            &[
                NAME,
                ("Value", "integer", "", 0),
                ("Global-Default", "boolean", "", 0),
                AGE,
                ("PreemptionPolicy", "string", "", 0),
            ],
            |o, now| {
                vec![
                    name(o),
                    int(o, "value").into(),
                    o["globalDefault"].as_bool().unwrap_or(false).into(),
                    age(o, now),
                    text(o, "preemptionPolicy").into(),
                ]
            },
        ),
        ("policy", "poddisruptionbudgets") => (
            &[
                NAME,
                ("Min Available", "string", "The minimum number of pods that must be available.", 0),
                ("Max Unavailable", "string", "The maximum number of pods that may be unavailable.", 0),
                ("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time.", 0),
                AGE,
            ],
            |o, now| {
                let int_or_string = |v: &Value| match v {
                    Value::Null => "N/A".to_string(),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                vec![
                    name(o),
                    int_or_string(&o["spec"]["minAvailable"]).into(),
                    int_or_string(&o["spec"]["maxUnavailable"]).into(),
                    int(&o["status"], "disruptionsAllowed").into(),
                    age(o, now),
                ]
            },
        ),
        ("autoscaling", "horizontalpodautoscalers") => (
            &[
                NAME,
                ("Reference", "string", "", 0),
                ("Targets", "string", "", 0),
                ("MinPods", "string", "", 0),
                ("MaxPods", "string", "", 0),
                ("Replicas", "string", "", 0),
                AGE,
            ],
            |o, now| {
                let spec = &o["spec"];
                let reference =
                    format!("{}/{}", text(&spec["scaleTargetRef"], "kind"), text(&spec["scaleTargetRef"], "name"));
                let min = spec["minReplicas"].as_i64().map_or("<unset>".to_string(), |m| m.to_string());
                vec![
                    name(o),
                    reference.into(),
                    hpa_metrics(o).into(),
                    min.into(),
                    int(spec, "maxReplicas").into(),
                    int(&o["status"], "currentReplicas").into(),
                    age(o, now),
                ]
            },
        ),
        ("", "events") => (
            &[
                ("Last Seen", "string", "", 0),
                ("Type", "string", "", 0),
                ("Reason", "string", "", 0),
                ("Object", "string", "", 0),
                ("Subobject", "string", "", 1),
                ("Source", "string", "", 1),
                ("Message", "string", "", 0),
                ("First Seen", "string", "", 1),
                ("Count", "string", "", 1),
                ("Name", "string", "", 1),
            ],
            event,
        ),
        ("networking.k8s.io", "networkpolicies") => (&[NAME, ("Pod-Selector", "string", "", 0), AGE], |o, now| {
            let selector = label_selector(&o["spec"]["podSelector"]);
            vec![name(o), if selector.is_empty() { "<none>".into() } else { selector }.into(), age(o, now)]
        }),
        ("storage.k8s.io", "storageclasses") => (
            &[
                NAME,
                ("Provisioner", "string", "", 0),
                ("ReclaimPolicy", "string", "", 0),
                ("VolumeBindingMode", "string", "", 0),
                ("AllowVolumeExpansion", "string", "", 0),
                AGE,
            ],
            |o, now| {
                let annotations = &o["metadata"]["annotations"];
                let default =
                    ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"]
                        .iter()
                        .any(|a| annotations[*a] == "true");
                let name = format!("{}{}", text(&o["metadata"], "name"), if default { " (default)" } else { "" });
                vec![
                    name.into(),
                    text(o, "provisioner").into(),
                    o["reclaimPolicy"].as_str().unwrap_or("Delete").into(),
                    o["volumeBindingMode"].as_str().unwrap_or("Immediate").into(),
                    o["allowVolumeExpansion"].as_bool().unwrap_or(false).into(),
                    age(o, now),
                ]
            },
        ),
        ("", "resourcequotas") => (
            &[
                NAME,
                AGE,
                (
                    "Request",
                    "string",
                    "Request represents a minimum amount of cpu/memory that a container may consume.",
                    0,
                ),
                (
                    "Limit",
                    "string",
                    "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
                    0,
                ),
            ],
            |o, now| {
                let (mut request, mut limit) = (Vec::new(), Vec::new());
                let hard = o["status"]["hard"].as_object().cloned().unwrap_or_default();
                let mut names: Vec<&String> = hard.keys().collect();
                names.sort();
                for resource in names {
                    let used = o["status"]["used"][resource.as_str()].as_str().unwrap_or("0");
                    let entry = format!("{resource}: {used}/{}", hard[resource].as_str().unwrap_or("0"));
                    if resource.split('.').next() == Some("limits") && resource.contains('.') {
                        limit.push(entry);
                    } else {
                        request.push(entry);
                    }
                }
                vec![name(o), age(o, now), request.join(", ").into(), limit.join(", ").into()]
            },
        ),
        ("coordination.k8s.io", "leases") => (&[NAME, ("Holder", "string", "", 0), AGE], |o, now| {
            vec![name(o), text(&o["spec"], "holderIdentity").into(), age(o, now)]
        }),
        _ => return None,
    };
    Some(printer)
}

fn int(object: &Value, field: &str) -> i64 {
    object[field].as_i64().unwrap_or(0)
}

fn text<'a>(object: &'a Value, field: &str) -> &'a str {
    object[field].as_str().unwrap_or_default()
}

/// The entries of a list or map.
fn count(value: &Value) -> i64 {
    match value {
        Value::Array(a) => a.len() as i64,
        Value::Object(m) => m.len() as i64,
        _ => 0,
    }
}

fn bool_ptr(value: &Value) -> &'static str {
    match value.as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    }
}

/// `labels.FormatLabels`: `k=v,...` sorted, `<none>` for none.
fn format_labels(map: &Value) -> String {
    let Some(map) = map.as_object().filter(|m| !m.is_empty()) else { return "<none>".into() };
    let mut pairs: Vec<String> = map.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
    pairs.sort();
    pairs.join(",")
}

fn label_selector(selector: &Value) -> String {
    crate::server::scale::label_selector_string(selector)
}

/// The Containers and Images cells of a pod template.
fn template_cells(o: &Value) -> Vec<Value> {
    containers_of(&o["spec"]["template"]["spec"])
}

fn containers_of(pod_spec: &Value) -> Vec<Value> {
    let containers = pod_spec["containers"].as_array().cloned().unwrap_or_default();
    let joined = |field: &str| containers.iter().map(|c| text(c, field).to_string()).collect::<Vec<_>>().join(",");
    vec![joined("name").into(), joined("image").into()]
}

fn pod(o: &Value, now: i64) -> Vec<Value> {
    let status = &o["status"];
    let total = count(&o["spec"]["containers"]);
    let statuses = status["containerStatuses"].as_array().cloned().unwrap_or_default();
    let ready = statuses.iter().filter(|c| c["ready"] == true).count();
    let restarts: i64 = statuses.iter().map(|c| int(c, "restartCount")).sum();
    let mut reason = text(status, "phase").to_string();
    if let Some(r) = status["reason"].as_str().filter(|r| !r.is_empty()) {
        reason = r.to_string();
    }
    for c in statuses.iter().rev() {
        if let Some(r) = c["state"]["waiting"]["reason"].as_str().filter(|r| !r.is_empty()) {
            reason = r.to_string();
            break;
        }
        if let Some(r) = c["state"]["terminated"]["reason"].as_str().filter(|r| !r.is_empty()) {
            reason = r.to_string();
            break;
        }
    }
    if o["metadata"].get("deletionTimestamp").is_some_and(|t| !t.is_null()) {
        reason = "Terminating".into();
    }
    let or_none = |v: &str| if v.is_empty() { "<none>".to_string() } else { v.to_string() };
    vec![
        name(o),
        format!("{ready}/{total}").into(),
        reason.into(),
        restarts.to_string().into(),
        age(o, now),
        or_none(text(status, "podIP")).into(),
        or_none(text(&o["spec"], "nodeName")).into(),
        or_none(text(status, "nominatedNodeName")).into(),
        "<none>".into(),
    ]
}

fn job_status(o: &Value) -> &'static str {
    let has = |kind: &str| {
        o["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
    };
    if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else if has("Failed") {
        "Failed"
    } else if has("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if has("Complete") {
        "Complete"
    } else if o["metadata"].get("deletionTimestamp").is_some_and(|t| !t.is_null()) {
        "Terminating"
    } else {
        "Running"
    }
}

fn completions(o: &Value) -> String {
    let succeeded = int(&o["status"], "succeeded");
    match o["spec"]["completions"].as_i64() {
        Some(completions) => format!("{succeeded}/{completions}"),
        None => match o["spec"]["parallelism"].as_i64() {
            Some(p) if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    }
}

fn job_duration(o: &Value, now: i64) -> String {
    let time = |f: &str| o["status"][f].as_str().and_then(crate::server::clock::parse_rfc3339);
    match (time("startTime"), time("completionTime")) {
        (None, _) => String::new(),
        (Some(start), None) => super::human_duration(now - start),
        (Some(start), Some(end)) => super::human_duration(end - start),
    }
}

fn ports(ports: &Value) -> String {
    let list: Vec<String> = ports
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let protocol = text(p, "protocol");
            match p["nodePort"].as_i64().filter(|n| *n > 0) {
                Some(node) => format!("{}:{node}/{protocol}", int(p, "port")),
                None => format!("{}/{protocol}", int(p, "port")),
            }
        })
        .collect();
    if list.is_empty() { "<none>".into() } else { list.join(",") }
}

fn external_ip(o: &Value) -> String {
    let spec = &o["spec"];
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    let external = strings(&spec["externalIPs"]);
    match text(spec, "type") {
        "ExternalName" => text(spec, "externalName").to_string(),
        "LoadBalancer" => {
            let mut ips: Vec<String> = o["status"]["loadBalancer"]["ingress"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| i["ip"].as_str().or(i["hostname"].as_str()))
                .map(str::to_string)
                .collect();
            ips.extend(external);
            if ips.is_empty() { "<pending>".into() } else { ips.join(",") }
        }
        _ if !external.is_empty() => external.join(","),
        _ => "<none>".into(),
    }
}

fn node(o: &Value, now: i64) -> Vec<Value> {
    let status = &o["status"];
    let mut states: Vec<&str> = Vec::new();
    let ready = status["conditions"].as_array().into_iter().flatten().find(|c| c["type"] == "Ready");
    states.push(match ready.map(|c| text(c, "status")) {
        Some("True") => "Ready",
        Some("False") => "NotReady",
        _ => "Unknown",
    });
    if o["spec"]["unschedulable"] == true {
        states.push("SchedulingDisabled");
    }
    let mut roles: Vec<String> = Vec::new();
    for (label, value) in o["metadata"]["labels"].as_object().into_iter().flatten() {
        if let Some(role) = label.strip_prefix("node-role.kubernetes.io/").filter(|r| !r.is_empty()) {
            roles.push(role.to_string());
        } else if label == "kubernetes.io/role" {
            roles.extend(value.as_str().filter(|v| !v.is_empty()).map(str::to_string));
        }
    }
    roles.sort();
    roles.dedup();
    let address = |kind: &str| {
        status["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["type"] == kind)
            .map_or("<none>".to_string(), |a| text(a, "address").to_string())
    };
    let info = &status["nodeInfo"];
    let or_unknown =
        |f: &str| if text(info, f).is_empty() { "<unknown>".to_string() } else { text(info, f).to_string() };
    vec![
        name(o),
        states.join(",").into(),
        if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }.into(),
        age(o, now),
        text(info, "kubeletVersion").into(),
        address("InternalIP").into(),
        address("ExternalIP").into(),
        or_unknown("osImage").into(),
        or_unknown("kernelVersion").into(),
        or_unknown("containerRuntimeVersion").into(),
    ]
}

fn ingress(o: &Value, now: i64) -> Vec<Value> {
    let spec = &o["spec"];
    let class = spec["ingressClassName"].as_str().unwrap_or("<none>");
    let rules = spec["rules"].as_array().cloned().unwrap_or_default();
    let hosts: Vec<&str> = rules.iter().map(|r| r["host"].as_str().filter(|h| !h.is_empty()).unwrap_or("*")).collect();
    let hosts = match hosts.len() {
        0 => "*".to_string(),
        n if n > 3 => format!("{} + {} more...", hosts[..3].join(","), n - 3),
        _ => hosts.join(","),
    };
    let address: Vec<&str> = o["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["ip"].as_str().or(i["hostname"].as_str()))
        .collect();
    let ports = if count(&spec["tls"]) > 0 { "80, 443" } else { "80" };
    vec![name(o), class.into(), hosts.into(), address.join(",").into(), ports.into(), age(o, now)]
}

/// The Targets cell of a HorizontalPodAutoscaler (`formatHPAMetrics`):
/// autoscaling/v2 metrics, or the CPU target of autoscaling/v1.
fn hpa_metrics(o: &Value) -> String {
    let spec = &o["spec"];
    let (specs, statuses) = match spec["targetCPUUtilizationPercentage"].as_i64() {
        Some(target) if spec.get("metrics").is_none() => {
            let mut status = serde_json::json!([{"type": "Resource", "resource": {"name": "cpu", "current": {}}}]);
            match o["status"]["currentCPUUtilizationPercentage"].as_i64() {
                Some(current) => status[0]["resource"]["current"]["averageUtilization"] = current.into(),
                None => status = serde_json::json!([]),
            }
            let metric = serde_json::json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}}});
            (vec![metric], status.as_array().cloned().unwrap_or_default())
        }
        _ => (
            spec["metrics"].as_array().cloned().unwrap_or_default(),
            o["status"]["currentMetrics"].as_array().cloned().unwrap_or_default(),
        ),
    };
    if specs.is_empty() {
        return "<none>".into();
    }
    let quantity = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "0".into(),
        other => other.to_string(),
    };
    let mut list = Vec::new();
    for (i, metric) in specs.iter().enumerate() {
        let status = statuses.get(i);
        let current_of =
            |source: &str, field: &str| status.and_then(|s| s[source]["current"].get(field)).filter(|v| !v.is_null());
        let entry = match text(metric, "type") {
            source @ ("External" | "Object") => {
                let key = if source == "External" { "external" } else { "object" };
                let target = &metric[key]["target"];
                if target.get("averageValue").is_some_and(|v| !v.is_null()) {
                    let current = current_of(key, "averageValue").map_or("<unknown>".into(), quantity);
                    format!("{current}/{} (avg)", quantity(&target["averageValue"]))
                } else {
                    let current = status
                        .filter(|s| !s[key].is_null())
                        .map_or("<unknown>".into(), |s| quantity(&s[key]["current"]["value"]));
                    format!("{current}/{}", quantity(&target["value"]))
                }
            }
            "Pods" => {
                let current = status
                    .filter(|s| !s["pods"].is_null())
                    .map_or("<unknown>".into(), |s| quantity(&s["pods"]["current"]["averageValue"]));
                format!("{current}/{}", quantity(&metric["pods"]["target"]["averageValue"]))
            }
            source @ ("Resource" | "ContainerResource") => {
                let key = if source == "Resource" { "resource" } else { "containerResource" };
                let target = &metric[key]["target"];
                let resource = text(&metric[key], "name");
                if target.get("averageValue").is_some_and(|v| !v.is_null()) {
                    let current = status
                        .filter(|s| !s[key].is_null())
                        .map_or("<unknown>".into(), |s| quantity(&s[key]["current"]["averageValue"]));
                    format!("{resource}: {current}/{}", quantity(&target["averageValue"]))
                } else {
                    let current = current_of(key, "averageUtilization").map_or("<unknown>".into(), |v| format!("{v}%"));
                    let goal = target["averageUtilization"].as_i64().map_or("<auto>".into(), |t| format!("{t}%"));
                    format!("{resource}: {current}/{goal}")
                }
            }
            _ => "<unknown type>".into(),
        };
        list.push(entry);
    }
    let count = list.len();
    if count > 2 {
        list.truncate(2);
        return format!("{} + {} more...", list.join(", "), count - 2);
    }
    list.join(", ")
}

/// A core/v1 Event's row (`printEvent`).
fn event(o: &Value, now: i64) -> Vec<Value> {
    let since = |t: Option<&str>| match t.and_then(crate::server::clock::parse_rfc3339) {
        Some(at) => super::human_duration(now - at),
        None => "<unknown>".into(),
    };
    let first = match o["firstTimestamp"].as_str() {
        Some(t) => since(Some(t)),
        None => since(o["eventTime"].as_str()),
    };
    let mut last = match o["lastTimestamp"].as_str() {
        Some(t) => since(Some(t)),
        None => first.clone(),
    };
    let mut count = int(o, "count");
    if o["series"].is_object() {
        last = since(o["series"]["lastObservedTime"].as_str());
        count = int(&o["series"], "count");
    } else if count == 0 {
        count = 1;
    }
    let involved = &o["involvedObject"];
    let kind = text(involved, "kind").to_ascii_lowercase();
    let target = match text(involved, "name") {
        "" => kind,
        name => format!("{kind}/{name}"),
    };
    let component = [text(&o["source"], "component"), text(o, "reportingComponent")]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    let host = [text(&o["source"], "host"), text(o, "reportingInstance")]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    let source = if host.is_empty() { component.to_string() } else { format!("{component}, {host}") };
    vec![
        last.into(),
        text(o, "type").into(),
        text(o, "reason").into(),
        target.into(),
        text(involved, "fieldPath").into(),
        source.into(),
        text(o, "message").trim().into(),
        first.into(),
        count.into(),
        name(o),
    ]
}
