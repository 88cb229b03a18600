//! The slice of the Kubernetes types the generator knows: field names, value
//! pools and the patch strategies of the Go struct tags (see
//! `k8s/patch-fields.tsv`; every field used here has the same metadata in the
//! OpenAPI v3 documents). Value pools are small on purpose, so that merge
//! keys and map keys of the object and of the patch collide often.

/// The type of a field, as far as strategic merge patch cares.
pub enum Ty {
    Str(&'static [&'static str]),
    Int(&'static [i64]),
    Bool,
    /// `intstr.IntOrString`.
    IntOrStr(&'static [i64], &'static [&'static str]),
    /// A string of free text: a word of the pool, sometimes a long string
    /// with escapes.
    Text(&'static [&'static str]),
    /// `map[string]string` (labels, selectors, resource lists): its keys
    /// and the type of its values.
    Map(&'static [&'static str], &'static Ty),
    Struct(&'static St),
    /// A list of objects with `patchStrategy:"merge"` and this merge key.
    Keyed(&'static str, &'static St),
    /// A list of strings with `patchStrategy:"merge"` (finalizers).
    Set(&'static [&'static str]),
    /// A list without patch strategy: replaced whole.
    Atomic(&'static Ty),
}

/// An object type.
pub struct St {
    pub fields: &'static [F],
    /// Fields every generated value has.
    pub required: &'static [&'static str],
    /// Members of a union: a generated value has at most one of them
    /// (exactly one when `union_required`).
    pub one_of: &'static [&'static str],
    pub union_required: bool,
    /// The field holding this type has the `retainKeys` strategy.
    pub retain_keys: bool,
}

pub struct F {
    pub name: &'static str,
    pub ty: Ty,
}

impl St {
    pub fn field(&self, name: &str) -> Option<&'static F> {
        let fields: &'static [F] = self.fields;
        fields.iter().find(|f| f.name == name)
    }
}

const fn f(name: &'static str, ty: Ty) -> F {
    F { name, ty }
}

const fn st(fields: &'static [F], required: &'static [&'static str]) -> St {
    St { fields, required, one_of: &[], union_required: false, retain_keys: false }
}

use Ty::*;

const NAMES: &[&str] = &["a", "b", "c", "d"];
const WORDS: &[&str] = &["x", "y", "z", ""];
const LABEL_KEYS: &[&str] = &["app", "tier", "env", "team"];
const PATHS: &[&str] = &["/a", "/b", "/c", "/d"];
const PORTS: &[i64] = &[80, 443, 8080, 9090];
const PORT_NAMES: &[&str] = &["http", "https", "metrics"];
const PROTOCOLS: &[&str] = &["TCP", "UDP"];
const COND_STATUS: &[&str] = &["True", "False", "Unknown"];
const REASONS: &[&str] = &["r1", "r2"];
const QUANTITY_KEYS: &[&str] = &["cpu", "memory"];
const QUANTITIES: &[&str] = &["100m", "1", "128Mi"];

// ---- metadata ----

static OWNER_REF: St = st(
    &[
        f("apiVersion", Str(&["v1", "apps/v1"])),
        f("kind", Str(&["ReplicaSet", "Node"])),
        f("name", Str(NAMES)),
        f("uid", Str(&["u1", "u2", "u3", "u4"])),
        f("controller", Bool),
    ],
    &["apiVersion", "kind", "name", "uid"],
);

pub static OBJECT_META: St = st(
    &[
        f("name", Str(&["obj"])),
        f("namespace", Str(&["default", "ns1"])),
        f("labels", Map(LABEL_KEYS, &Str(WORDS))),
        f("annotations", Map(&["a.io/x", "a.io/y", "note", "b"], &Text(WORDS))),
        f("finalizers", Set(&["f/a", "f/b", "f/c", "f/d"])),
        f("ownerReferences", Keyed("uid", &OWNER_REF)),
        f("generation", Int(&[1, 2, 3])),
    ],
    &["name"],
);

static TEMPLATE_META: St = st(
    &[f("labels", Map(LABEL_KEYS, &Str(WORDS))), f("annotations", Map(&["a.io/x", "a.io/y", "note"], &Text(WORDS)))],
    &[],
);

// ---- containers ----

static FIELD_REF: St =
    st(&[f("fieldPath", Str(&["metadata.name", "spec.nodeName"])), f("apiVersion", Str(&["v1"]))], &["fieldPath"]);
static ENV_SOURCE: St = st(&[f("fieldRef", Struct(&FIELD_REF))], &[]);
static ENV_VAR: St = st(
    &[f("name", Str(&["A", "B", "C", "D"])), f("value", Text(WORDS)), f("valueFrom", Struct(&ENV_SOURCE))],
    &["name"],
);
static CONTAINER_PORT: St = st(
    &[
        f("containerPort", Int(PORTS)),
        f("name", Str(PORT_NAMES)),
        f("protocol", Str(PROTOCOLS)),
        f("hostPort", Int(&[8000, 8001])),
    ],
    &["containerPort"],
);
static VOLUME_MOUNT: St = st(
    &[f("mountPath", Str(PATHS)), f("name", Str(NAMES)), f("readOnly", Bool), f("subPath", Str(&["s", "t"]))],
    &["mountPath", "name"],
);
static RESOURCES: St =
    st(&[f("limits", Map(QUANTITY_KEYS, &Str(QUANTITIES))), f("requests", Map(QUANTITY_KEYS, &Str(QUANTITIES)))], &[]);
static CONTAINER: St = st(
    &[
        f("name", Str(NAMES)),
        f("image", Str(&["nginx", "nginx:1.25", "busybox", "redis"])),
        f("imagePullPolicy", Str(&["Always", "IfNotPresent", "Never"])),
        f("command", Atomic(&Text(&["sh", "-c", "/bin/app"]))),
        f("args", Atomic(&Text(&["-v", "--x", "--y", "run"]))),
        f("env", Keyed("name", &ENV_VAR)),
        f("ports", Keyed("containerPort", &CONTAINER_PORT)),
        f("volumeMounts", Keyed("mountPath", &VOLUME_MOUNT)),
        f("resources", Struct(&RESOURCES)),
        f("workingDir", Str(PATHS)),
    ],
    &["name", "image"],
);

// ---- pod spec ----

static TOLERATION: St = st(
    &[
        f("key", Str(&["k1", "k2", "k3"])),
        f("operator", Str(&["Exists", "Equal"])),
        f("value", Str(WORDS)),
        f("effect", Str(&["NoSchedule", "NoExecute"])),
    ],
    &[],
);
static LOCAL_REF: St = st(&[f("name", Str(&["s1", "s2", "s3", "s4"]))], &["name"]);
static EMPTY_DIR: St = st(&[f("medium", Str(&["", "Memory"])), f("sizeLimit", Str(&["1Gi", "2Gi"]))], &[]);
static CONFIG_MAP_VOLUME: St =
    st(&[f("name", Str(&["cm1", "cm2"])), f("defaultMode", Int(&[420, 384])), f("optional", Bool)], &["name"]);
static SECRET_VOLUME: St =
    st(&[f("secretName", Str(&["s1", "s2"])), f("defaultMode", Int(&[420, 384]))], &["secretName"]);
static HOST_PATH: St = st(&[f("path", Str(PATHS)), f("type", Str(&["Directory", "File", ""]))], &["path"]);
static VOLUME: St = St {
    fields: &[
        f("name", Str(NAMES)),
        f("emptyDir", Struct(&EMPTY_DIR)),
        f("configMap", Struct(&CONFIG_MAP_VOLUME)),
        f("secret", Struct(&SECRET_VOLUME)),
        f("hostPath", Struct(&HOST_PATH)),
    ],
    required: &["name"],
    one_of: &["emptyDir", "configMap", "secret", "hostPath"],
    union_required: true,
    retain_keys: true,
};
static POD_SPEC: St = st(
    &[
        f("containers", Keyed("name", &CONTAINER)),
        f("initContainers", Keyed("name", &CONTAINER)),
        f("volumes", Keyed("name", &VOLUME)),
        f("tolerations", Atomic(&Struct(&TOLERATION))),
        f("imagePullSecrets", Keyed("name", &LOCAL_REF)),
        f("nodeSelector", Map(LABEL_KEYS, &Str(WORDS))),
        f("restartPolicy", Str(&["Always", "OnFailure", "Never"])),
        f("serviceAccountName", Str(&["default", "sa1"])),
        f("hostname", Str(&["h1", "h2"])),
        f("terminationGracePeriodSeconds", Int(&[0, 30, 60])),
        f("dnsPolicy", Str(&["ClusterFirst", "Default"])),
        f("priority", Int(&[0, 100])),
    ],
    &["containers"],
);

// ---- Pod ----

static POD_CONDITION: St = st(
    &[
        f("type", Str(&["Ready", "Initialized", "PodScheduled", "ContainersReady"])),
        f("status", Str(COND_STATUS)),
        f("reason", Str(REASONS)),
        f("message", Text(WORDS)),
    ],
    &["type", "status"],
);
static POD_STATUS: St = st(
    &[
        f("phase", Str(&["Pending", "Running", "Succeeded"])),
        f("hostIP", Str(&["10.0.0.1", "10.0.0.2"])),
        f("podIP", Str(&["10.1.0.1", "10.1.0.2"])),
        f("conditions", Keyed("type", &POD_CONDITION)),
    ],
    &[],
);
pub static POD: St = st(
    &[
        f("apiVersion", Str(&["v1"])),
        f("kind", Str(&["Pod"])),
        f("metadata", Struct(&OBJECT_META)),
        f("spec", Struct(&POD_SPEC)),
        f("status", Struct(&POD_STATUS)),
    ],
    &["apiVersion", "kind", "metadata", "spec"],
);

// ---- Deployment ----

static LABEL_SELECTOR: St = st(&[f("matchLabels", Map(LABEL_KEYS, &Str(WORDS)))], &[]);
static ROLLING_UPDATE: St =
    st(&[f("maxSurge", IntOrStr(&[0, 1, 2], &["25%", "50%"])), f("maxUnavailable", IntOrStr(&[0, 1], &["25%"]))], &[]);
static STRATEGY: St = St {
    fields: &[f("type", Str(&["RollingUpdate", "Recreate"])), f("rollingUpdate", Struct(&ROLLING_UPDATE))],
    required: &[],
    one_of: &[],
    union_required: false,
    retain_keys: true,
};
static POD_TEMPLATE: St = st(&[f("metadata", Struct(&TEMPLATE_META)), f("spec", Struct(&POD_SPEC))], &["spec"]);
static DEPLOYMENT_SPEC: St = st(
    &[
        f("replicas", Int(&[0, 1, 2, 3])),
        f("selector", Struct(&LABEL_SELECTOR)),
        f("template", Struct(&POD_TEMPLATE)),
        f("strategy", Struct(&STRATEGY)),
        f("minReadySeconds", Int(&[0, 5])),
        f("paused", Bool),
        f("revisionHistoryLimit", Int(&[1, 10])),
    ],
    &["template"],
);
static DEPLOYMENT_CONDITION: St = st(
    &[
        f("type", Str(&["Available", "Progressing", "ReplicaFailure"])),
        f("status", Str(COND_STATUS)),
        f("reason", Str(REASONS)),
    ],
    &["type", "status"],
);
static DEPLOYMENT_STATUS: St = st(
    &[
        f("replicas", Int(&[0, 1, 2])),
        f("readyReplicas", Int(&[0, 1])),
        f("observedGeneration", Int(&[1, 2])),
        f("conditions", Keyed("type", &DEPLOYMENT_CONDITION)),
    ],
    &[],
);
pub static DEPLOYMENT: St = st(
    &[
        f("apiVersion", Str(&["apps/v1"])),
        f("kind", Str(&["Deployment"])),
        f("metadata", Struct(&OBJECT_META)),
        f("spec", Struct(&DEPLOYMENT_SPEC)),
        f("status", Struct(&DEPLOYMENT_STATUS)),
    ],
    &["apiVersion", "kind", "metadata", "spec"],
);

// ---- Service ----

static SERVICE_PORT: St = st(
    &[
        f("port", Int(PORTS)),
        f("name", Str(PORT_NAMES)),
        f("protocol", Str(PROTOCOLS)),
        f("targetPort", IntOrStr(&[80, 8080], &["http", "web"])),
        f("nodePort", Int(&[30000, 30001])),
    ],
    &["port"],
);
static SERVICE_SPEC: St = st(
    &[
        f("ports", Keyed("port", &SERVICE_PORT)),
        f("selector", Map(LABEL_KEYS, &Str(WORDS))),
        f("type", Str(&["ClusterIP", "NodePort", "LoadBalancer"])),
        f("clusterIP", Str(&["10.0.0.10", "None"])),
        f("sessionAffinity", Str(&["None", "ClientIP"])),
        f("externalIPs", Atomic(&Str(&["1.2.3.4", "5.6.7.8", "9.9.9.9"]))),
    ],
    &[],
);
static CONDITION: St = st(
    &[
        f("type", Str(&["Ready", "Degraded", "X"])),
        f("status", Str(COND_STATUS)),
        f("reason", Str(REASONS)),
        f("message", Text(WORDS)),
        f("lastTransitionTime", Str(&["2024-01-01T00:00:00Z"])),
    ],
    &["type", "status"],
);
static LB_INGRESS: St = st(&[f("ip", Str(&["1.1.1.1", "2.2.2.2"])), f("hostname", Str(&["lb1"]))], &[]);
static LB_STATUS: St = st(&[f("ingress", Atomic(&Struct(&LB_INGRESS)))], &[]);
static SERVICE_STATUS: St =
    st(&[f("conditions", Keyed("type", &CONDITION)), f("loadBalancer", Struct(&LB_STATUS))], &[]);
pub static SERVICE: St = st(
    &[
        f("apiVersion", Str(&["v1"])),
        f("kind", Str(&["Service"])),
        f("metadata", Struct(&OBJECT_META)),
        f("spec", Struct(&SERVICE_SPEC)),
        f("status", Struct(&SERVICE_STATUS)),
    ],
    &["apiVersion", "kind", "metadata", "spec"],
);
