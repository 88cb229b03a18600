//! kubectl against `smp serve`: client-side apply (create, unchanged,
//! changed), `patch --type strategic|merge|json`, `get -o json`, `diff`,
//! `edit` with a scripted editor, `delete`, a CRD and its custom
//! resources, and the answers to what the server refuses. Every patch
//! kubectl sends is read back from the server's log; the object the server
//! stores is compared with `kubectl patch --local` of that patch on the
//! object before it (the Go reference), and kubectl's own patches with
//! what smp's engines compute for the same inputs.
//!
//! Without kubectl on the PATH the test says so and passes.

use serde_json::{Value, json};
use smp_k8s_types::kubectl::apply_patch;
use smp_k8s_types::{Schema, shape_of_kind};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

fn kubectl_missing() -> bool {
    let found = Command::new("kubectl").arg("version").arg("--client").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: kubectl is not on the PATH; the kubectl end-to-end scenarios did not run");
    }
    !found
}

/// `smp serve --log` in a scratch directory, killed on drop.
struct Served {
    child: Child,
    dir: PathBuf,
    kubeconfig: String,
    log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Served {
    fn start(name: &str) -> Served {
        let dir = std::env::temp_dir().join(format!("smp-kubectl-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("requests.log");
        let kubeconfig = dir.join("kubeconfig");
        let mut child = Command::new(env!("CARGO_BIN_EXE_smp"))
            .args(["serve", "--log", "--listen", "127.0.0.1:0", "--kubeconfig"])
            .arg(&kubeconfig)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let words: Vec<&str> = first.split_whitespace().collect();
        assert_eq!((words[0], words[2]), ("serving", "kubeconfig"), "{first}");
        assert!(words[1].starts_with("http://127.0.0.1:"), "{first}");
        assert_eq!(words[3], kubeconfig.to_str().unwrap());
        Served { child, dir, kubeconfig: words[3].to_string(), log }
    }

    fn run(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
        let mut command = Command::new("kubectl");
        command
            .args(args)
            .arg("--cache-dir")
            .arg(self.dir.join("cache"))
            .env("KUBECONFIG", &self.kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.unwrap_or_default().as_bytes()).unwrap();
        drop(input);
        child.wait_with_output().unwrap()
    }

    /// kubectl, which must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        self.ok_with(args, None, &[])
    }

    fn ok_with(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> String {
        let out = self.run(args, stdin, env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "kubectl {args:?}: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// kubectl, which must fail; its stderr.
    fn fails(&self, args: &[&str], stdin: Option<&str>) -> String {
        let out = self.run(args, stdin, &[]);
        assert!(!out.status.success(), "kubectl {args:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    }

    fn get(&self, what: &str) -> Value {
        serde_json::from_str(&self.ok(&["get", what, "-o", "json", "--show-managed-fields"])).unwrap()
    }

    /// The writes the server answered so far: (method, code, content type,
    /// body).
    fn writes(&self) -> Vec<(String, u16, String, String)> {
        // The log is written every 100 ms.
        std::thread::sleep(std::time::Duration::from_millis(250));
        let text = std::fs::read_to_string(&self.log).unwrap();
        text.lines()
            .filter(|l| !l.starts_with("GET "))
            .map(|l| {
                let mut parts = l.splitn(5, ' ');
                let method = parts.next().unwrap().to_string();
                let _path = parts.next();
                let code = parts.next().unwrap().parse().unwrap();
                let content_type = parts.next().unwrap_or_default().to_string();
                let body: Value = serde_json::from_str(parts.next().unwrap_or("\"\"")).unwrap();
                (method, code, content_type, body.as_str().unwrap().to_string())
            })
            .collect()
    }

    /// The last patch the server accepted: its type and body.
    fn last_patch(&self) -> (String, Value) {
        let writes = self.writes();
        let (_, _, content_type, body) = writes.iter().rev().find(|(m, c, _, _)| m == "PATCH" && *c == 200).unwrap();
        (content_type.clone(), serde_json::from_str(body).unwrap())
    }

    /// `kubectl patch --local` of `patch` on `object`: the reference.
    fn local_patch(&self, object: &Value, patch_type: &str, patch: &Value) -> Value {
        let file = self.dir.join("local.json");
        std::fs::write(&file, object.to_string()).unwrap();
        let args = [
            "patch",
            "--local",
            "-f",
            file.to_str().unwrap(),
            "--type",
            patch_type,
            "-p",
            &patch.to_string(),
            "-o",
            "json",
        ];
        serde_json::from_str(&self.ok(&args)).unwrap()
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }
}

/// What a write changes that no patch computes: the server's metadata.
fn content(object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(meta) = o["metadata"].as_object_mut() {
        for field in ["resourceVersion", "generation", "managedFields", "uid", "creationTimestamp"] {
            meta.remove(field);
        }
    }
    o
}

fn patch_type_flag(content_type: &str) -> &'static str {
    match content_type {
        "application/strategic-merge-patch+json" => "strategic",
        "application/merge-patch+json" => "merge",
        "application/json-patch+json" => "json",
        other => panic!("unexpected patch type {other}"),
    }
}

/// The stored object after a patch is `kubectl patch --local` of the patch
/// kubectl sent, on the object before.
fn assert_reference(served: &Served, before: &Value, after: &Value) -> (String, Value) {
    let (content_type, patch) = served.last_patch();
    let reference = served.local_patch(before, patch_type_flag(&content_type), &patch);
    assert_eq!(content(after), content(&reference), "patch {patch}");
    (content_type, patch)
}

fn deployment_yaml(replicas: u32, image: &str, env: &[(&str, &str)], sidecar: bool) -> String {
    let env: Vec<String> = env.iter().map(|(n, v)| format!("        - {{name: {n}, value: \"{v}\"}}\n")).collect();
    let sidecar = if sidecar { "      - {name: proxy, image: envoy}\n" } else { "" };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {{app: web}}\nspec:\n  \
         replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    \
         spec:\n      containers:\n      - name: app\n        image: {image}\n        env:\n{}{sidecar}",
        env.concat()
    )
}

fn yaml_to_json(text: &str) -> Value {
    serde_yaml_ng::from_str(text).unwrap()
}

#[test]
fn kubectl_apply_patch_diff_edit_delete() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("builtin");
    let deploy = Schema::Static(shape_of_kind("apps/v1", "Deployment").unwrap());

    // apply: create, then the same manifest (nothing written), then a
    // changed one: the three-way patch kubectl computes is smp's.
    let v1 = deployment_yaml(1, "app:1", &[("A", "1"), ("B", "2")], true);
    let file = served.write("v1.yaml", &v1);
    assert!(served.ok(&["apply", "-f", &file]).contains("deployment.apps/web created"));
    let created = served.get("deployment/web");
    assert!(served.ok(&["apply", "-f", &file]).contains("deployment.apps/web unchanged"));
    assert_eq!(served.get("deployment/web")["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
    let v2 = deployment_yaml(3, "app:2", &[("B", "two"), ("C", "3")], false);
    let file = served.write("v2.yaml", &v2);
    assert!(served.ok(&["apply", "-f", &file]).contains("deployment.apps/web configured"));
    let applied = served.get("deployment/web");
    let (content_type, sent) = assert_reference(&served, &created, &applied);
    assert_eq!(content_type, "application/strategic-merge-patch+json");
    let mut desired = yaml_to_json(&v2);
    desired["metadata"]["namespace"] = json!("default");
    let ours = apply_patch(&created, &desired, deploy, true).unwrap();
    assert_eq!(ours, sent, "smp's kubectl apply patch is the one kubectl sent");
    let ours_applied = smp_k8s_types::apply(&created, &ours, deploy).unwrap();
    assert_eq!(content(&applied)["spec"], content(&ours_applied)["spec"]);
    assert_eq!(applied["metadata"]["generation"], 2);
    let containers = &applied["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers.as_array().unwrap().len(), 1, "the sidecar left the manifest: removed");

    // patch, each type, compared with kubectl patch --local.
    let patches = [
        (
            "strategic",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [{"name": "D", "value": "4"}]}]}}}}),
        ),
        ("merge", json!({"metadata": {"labels": {"tier": "front"}}, "spec": {"replicas": 2}})),
        (
            "json",
            json!([{"op": "test", "path": "/spec/replicas", "value": 2}, {"op": "add", "path": "/metadata/labels/x", "value": "y"}]),
        ),
    ];
    for (patch_type, patch) in patches {
        let before = served.get("deployment/web");
        served.ok(&["patch", "deployment/web", "--type", patch_type, "-p", &patch.to_string()]);
        let after = served.get("deployment/web");
        let (_, sent) = assert_reference(&served, &before, &after);
        assert_eq!(sent, patch);
    }
    // A failed test: the server's 422, nothing written.
    let before = served.get("deployment/web");
    let failing = json!([{"op": "test", "path": "/spec/replicas", "value": 9}]).to_string();
    let err = served.fails(&["patch", "deployment/web", "--type", "json", "-p", &failing], None);
    assert!(err.contains("the server rejected our request due to an error in our request"), "{err}");
    assert_eq!(served.get("deployment/web"), before);

    // diff: a dry run on the server, nothing written.
    let v3 = deployment_yaml(5, "app:2", &[("B", "two"), ("C", "3")], false);
    let file = served.write("v3.yaml", &v3);
    let out = served.run(&["diff", "-f", &file], None, &[]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert!(shown.contains("-  replicas: 2") && shown.contains("+  replicas: 5"), "{shown}");
    assert_eq!(served.get("deployment/web"), before);
    assert!(served.writes().iter().any(|(m, c, _, _)| m == "PATCH" && *c == 200), "diff patched");

    // edit, with an editor that changes the replicas.
    let editor = served.write("editor.sh", "#!/bin/sh\nsed -i 's/replicas: 2/replicas: 6/' \"$1\"\n");
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    served.ok_with(&["edit", "deployment/web"], None, &[("EDITOR", &editor), ("KUBE_EDITOR", &editor)]);
    let edited = served.get("deployment/web");
    assert_eq!(edited["spec"]["replicas"], 6);
    assert_reference(&served, &before, &edited);

    // The status subresource, through kubectl.
    served.ok(&[
        "patch",
        "deployment/web",
        "--subresource",
        "status",
        "--type",
        "merge",
        "-p",
        r#"{"status":{"replicas":6}}"#,
    ]);
    assert_eq!(served.get("deployment/web")["status"]["replicas"], 6);

    // kubectl scale: a merge patch of the Scale, then (with
    // --current-replicas) a get and an update of it with its
    // resourceVersion.
    let generation = served.get("deployment/web")["metadata"]["generation"].as_i64().unwrap();
    assert!(served.ok(&["scale", "deployment/web", "--replicas=3"]).contains("deployment.apps/web scaled"));
    let scaled = served.get("deployment/web");
    assert_eq!(
        (scaled["spec"]["replicas"].as_i64(), scaled["metadata"]["generation"].as_i64()),
        (Some(3), Some(generation + 1))
    );
    let (method, code, content_type, body) = served.writes().pop().unwrap();
    assert_eq!((method.as_str(), code, content_type.as_str()), ("PATCH", 200, "application/merge-patch+json"));
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!({"spec": {"replicas": 3}}));
    served.ok(&["scale", "deployment/web", "--current-replicas=3", "--replicas=2"]);
    assert_eq!(served.writes().pop().unwrap().0, "PUT");
    let err = served.fails(&["scale", "deployment/web", "--current-replicas=3", "--replicas=1"], None);
    assert!(err.contains("Expected replicas to be 3, was 2"), "{err}");
    let scale: Value =
        serde_json::from_str(&served.ok(&["get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"]))
            .unwrap();
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"], json!({"replicas": 6, "selector": "app=web"}));
    assert_eq!(scale["metadata"]["resourceVersion"], served.get("deployment/web")["metadata"]["resourceVersion"]);

    // Server-side apply by two managers, on an object of its own: the
    // conflict in the server's words, then forced; each object is the
    // engine's for the same inputs.
    let ssa =
        |replicas: u32| deployment_yaml(replicas, "app:1", &[("A", "1")], false).replace("name: web\n", "name: ssa\n");
    let alice = served.write("alice.yaml", &ssa(1));
    served.ok(&["apply", "--server-side", "--field-manager", "alice", "-f", &alice]);
    let created = served.get("deployment/ssa");
    let bob = served.write("bob.yaml", &ssa(4));
    let err = served.fails(&["apply", "--server-side", "--field-manager", "bob", "-f", &bob], None);
    assert!(err.contains(r#"Apply failed with 1 conflict: conflict with "alice": .spec.replicas"#), "{err}");
    served.ok(&["apply", "--server-side", "--field-manager", "bob", "--force-conflicts", "-f", &bob]);
    let forced = served.get("deployment/ssa");
    let (_, sent) = served.last_patch();
    let res = smp_k8s_types::ssa_schemas::resource("apps/v1", "Deployment").unwrap();
    let entries = forced["metadata"]["managedFields"].as_array().unwrap();
    let bobs = entries.iter().find(|m| m["manager"] == "bob").unwrap_or_else(|| panic!("{entries:?}"));
    let time = bobs["time"].as_str().unwrap().to_string();
    let engine = smp_k8s_types::smp_core::ssa::apply(&res, Some(&created), &sent, "bob", true, &time).unwrap();
    assert_eq!(forced["spec"], engine["spec"]);
    assert_eq!(forced["spec"]["replicas"], 4);
    let managers: Vec<&str> = forced["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["alice", "bob"]);
    served.ok(&["delete", "deployment/ssa"]);

    // `kubectl get all` (discovery's category `all`).
    let all = served.ok(&["get", "all", "-o", "name"]);
    assert!(all.lines().any(|l| l == "deployment.apps/web"), "{all}");

    // delete.
    assert!(served.ok(&["delete", "deployment/web"]).contains("deleted"));
    let err = served.fails(&["get", "deployment/web"], None);
    assert!(err.contains(r#"deployments.apps "web" not found"#), "{err}");
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backends.example.com
spec:
  group: example.com
  names: {kind: Backend, plural: backends, singular: backend, shortNames: [be]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              ports:
                type: array
                items: {type: object, properties: {name: {type: string}, port: {type: integer}}}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

fn backend(replicas: u32, ports: &[(&str, u16)]) -> String {
    let ports: Vec<String> = ports.iter().map(|(n, p)| format!("{{name: {n}, port: {p}}}")).collect();
    format!(
        "apiVersion: example.com/v1\nkind: Backend\nmetadata: {{name: b}}\nspec:\n  replicas: {replicas}\n  ports: [{}]\n",
        ports.join(", ")
    )
}

#[test]
fn kubectl_with_a_custom_resource() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("crd");
    served.ok(&["apply", "-f", &served.write("crd.yaml", CRD)]);
    served.ok(&["wait", "--for", "condition=Established", "crd/backends.example.com"]);
    let v1 = backend(1, &[("http", 80)]);
    served.ok(&["apply", "-f", &served.write("b1.yaml", &v1)]);
    let created = served.get("be/b");
    let v2 = backend(2, &[("http", 80), ("https", 443)]);
    assert!(served.ok(&["apply", "-f", &served.write("b2.yaml", &v2)]).contains("configured"));
    let applied = served.get("backends/b");
    // kubectl sends a JSON merge patch for a kind it has no patch metadata for.
    let (content_type, sent) = assert_reference(&served, &created, &applied);
    assert_eq!(content_type, "application/merge-patch+json");
    let mut desired = yaml_to_json(&v2);
    desired["metadata"]["namespace"] = json!("default");
    let ours = smp_k8s_types::kubectl::merge_apply_patch(&created, &desired).unwrap();
    assert_eq!(ours, sent);
    assert_eq!(applied["spec"]["ports"][1]["port"], 443);

    // Strategic merge patches of custom resources: the server's 415.
    let err = served.fails(&["patch", "backend/b", "--type", "strategic", "-p", r#"{"spec":{"replicas":3}}"#], None);
    assert!(
        err.contains("accepted media types include: application/json-patch+json, application/merge-patch+json"),
        "{err}"
    );
    served.ok(&["patch", "backend/b", "--type", "merge", "-p", r#"{"spec":{"replicas":3,"unknown":1}}"#]);
    let after = served.get("backend/b");
    assert_eq!(after["spec"]["replicas"], 3);
    assert_eq!(after["spec"].get("unknown"), None, "pruned by the schema");
    assert_eq!(after["metadata"]["generation"], 3);
    // kubectl scale, through the scale the CRD declares.
    assert!(served.ok(&["scale", "backend/b", "--replicas=5"]).contains("backend.example.com/b scaled"));
    assert_eq!(served.get("backend/b")["spec"]["replicas"], 5);
    served.ok(&["delete", "-f", &served.write("crd2.yaml", CRD)]);
    let err = served.fails(&["get", "backends"], None);
    // (kubectl's discovery cache still names the resource: the list is 404.)
    assert!(err.contains("the server could not find the requested resource"), "{err}");
}

/// kubectl's typed `create` commands send protobuf: each object the server
/// stores is the JSON kubectl itself prints for the same command
/// (`--dry-run=client -o json`, Go's encoding of the object it sent), less
/// the server's metadata and the status a create resets.
#[test]
fn kubectl_create_sends_protobuf() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("protobuf");
    let commands: &[&[&str]] = &[
        &["configmap", "cm", "--from-literal=a=1", "--from-literal=b=2"],
        &["secret", "generic", "pw", "--from-literal=password=s3cret"],
        &["deployment", "web", "--image=nginx", "--replicas=0", "--port=80"],
        &["service", "clusterip", "svc", "--tcp=80:8080"],
        &["namespace", "team"],
        &["serviceaccount", "robot"],
        &["role", "reader", "--verb=get,list", "--resource=pods"],
        &["rolebinding", "reads", "--role=reader", "--user=ann"],
        &["quota", "q", "--hard=cpu=1500m,memory=1Gi,pods=4"],
        &["priorityclass", "high", "--value=1000", "--description=urgent"],
        &["poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=50%"],
        &["ingress", "ing", "--rule=example.com/api*=svc:80"],
        &["cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"],
    ];
    let without_server_fields = |mut object: Value| {
        let meta = object["metadata"].as_object_mut().unwrap();
        for field in ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "namespace"] {
            meta.remove(field);
        }
        object.as_object_mut().unwrap().remove("status");
        object
    };
    for command in commands {
        let create: Vec<&str> = [&["create"][..], command].concat();
        let printed: Value =
            serde_json::from_str(&served.ok(&[&create[..], &["--dry-run=client", "-o", "json"]].concat())).unwrap();
        served.ok(&create);
        let (method, code, content_type, _) = served.writes().pop().unwrap();
        assert_eq!(
            (method.as_str(), code, content_type.as_str()),
            ("POST", 201, "application/vnd.kubernetes.protobuf")
        );
        let kind = printed["kind"].as_str().unwrap().to_ascii_lowercase();
        let name = printed["metadata"]["name"].as_str().unwrap();
        let stored = served.get(&format!("{kind}/{name}"));
        assert_eq!(without_server_fields(stored), without_server_fields(printed), "kubectl create {command:?}");
    }
    // Zero replicas (a pointer in Go) are kept, not omitted.
    assert_eq!(served.get("deployment/web")["spec"]["replicas"], 0);
    // kubectl scale on the created deployment.
    served.ok(&["scale", "deployment/web", "--replicas=2"]);
    assert_eq!(served.get("deployment/web")["spec"]["replicas"], 2);
}

/// The words of `kubectl get`'s table: its header and rows, split on runs
/// of spaces.
fn table_lines(out: &str) -> Vec<Vec<String>> {
    out.lines().map(|l| l.split("   ").map(str::trim).filter(|w| !w.is_empty()).map(str::to_string).collect()).collect()
}

/// `kubectl get` prints the columns kube-apiserver's printers give each
/// kind (the server answers the Table kubectl asks for), `-o wide` the
/// priority-1 columns too, a custom resource its CRD's
/// `additionalPrinterColumns`, and `--watch` one row per change.
#[test]
fn kubectl_get_prints_the_servers_tables() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("tables");
    served.ok(&["apply", "-f", &served.write("d.yaml", &deployment_yaml(2, "app:1", &[], true))]);
    served.ok(&["create", "configmap", "cm", "--from-literal=a=1", "--from-literal=b=2"]);
    served.ok(&["create", "service", "nodeport", "svc", "--tcp=80:8080", "--node-port=30080"]);
    served.ok(&["create", "role", "reader", "--verb=get", "--resource=pods"]);
    served.ok(&["create", "rolebinding", "reads", "--role=reader", "--user=ann", "--serviceaccount=default:robot"]);
    served.ok(&["create", "job", "once", "--image=busybox"]);

    let deploy = table_lines(&served.ok(&["get", "deployments"]));
    assert_eq!(deploy[0], ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    assert_eq!(deploy[1][..4], ["web", "0/2", "0", "0"]);
    let wide = table_lines(&served.ok(&["get", "deployment", "web", "-o", "wide"]));
    assert_eq!(wide[0], ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]);
    assert_eq!(wide[1][5..], ["app,proxy", "app:1,envoy", "app=web"]);
    let cm = table_lines(&served.ok(&["get", "configmap", "cm"]));
    assert_eq!(
        (cm[0].clone(), cm[1][..2].to_vec()),
        (vec!["NAME".into(), "DATA".into(), "AGE".into()], vec!["cm".into(), "2".into()])
    );
    let svc = table_lines(&served.ok(&["get", "service", "svc", "-o", "wide"]));
    assert_eq!(svc[0], ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]);
    assert_eq!(svc[1][..5], ["svc", "NodePort", "<none>", "<none>", "80:30080/TCP"]);
    assert_eq!(svc[1][6], "app=svc");
    let roles = table_lines(&served.ok(&["get", "roles"]));
    assert_eq!(roles[0], ["NAME", "CREATED AT"]);
    let created = served.get("role/reader")["metadata"]["creationTimestamp"].as_str().unwrap().to_string();
    assert_eq!(roles[1], ["reader", &created]);
    let bindings = table_lines(&served.ok(&["get", "rolebinding", "-o", "wide"]));
    assert_eq!(bindings[0], ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
    assert_eq!(bindings[1][..2], ["reads", "Role/reader"]);
    assert_eq!(bindings[1][3..], ["ann", "default/robot"]);
    let jobs = table_lines(&served.ok(&["get", "jobs"]));
    assert_eq!(jobs[0], ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    assert_eq!(jobs[1][..3], ["once", "Running", "0/1"]);
    // (One page per namespace: the tables of a list's pages, one header.)
    let namespaces = table_lines(&served.ok(&["get", "namespaces", "--chunk-size=1"]));
    assert_eq!(namespaces[0], ["NAME", "STATUS", "AGE"]);
    let names: Vec<&str> = namespaces[1..].iter().map(|row| row[0].as_str()).collect();
    assert_eq!(names, ["default", "kube-public", "kube-system"]);
    assert!(namespaces[1..].iter().all(|row| row[1] == "Active"), "{namespaces:?}");
    served.ok(&["autoscale", "deployment", "web", "--min=1", "--max=3", "--cpu-percent=50"]);
    let hpa = table_lines(&served.ok(&["get", "hpa"]));
    assert_eq!(hpa[0], ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]);
    assert_eq!(hpa[1][..6], ["web", "Deployment/web", "cpu: <unknown>/50%", "1", "3", "0"]);
    let event = "apiVersion: v1\nkind: Event\nmetadata: {name: web.1}\ninvolvedObject: {kind: Deployment, name: web}\n\
                 reason: ScalingReplicaSet\nmessage: 'Scaled up '\ntype: Normal\nsource: {component: deployment-controller}\ncount: 3\n";
    served.ok(&["create", "-f", &served.write("event.yaml", event)]);
    let events = table_lines(&served.ok(&["get", "events", "-o", "wide"]));
    assert_eq!(
        events[0],
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
    );
    // (No timestamps: the ages are unknown; no field path: an empty cell.)
    assert_eq!(
        events[1],
        [
            "<unknown>",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "deployment-controller",
            "Scaled up",
            "<unknown>",
            "3",
            "web.1"
        ]
    );
    // A kind without a printer of its own: its name and age.
    served.ok(&[
        "create",
        "-f",
        &served.write("lr.yaml", "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec: {limits: []}\n"),
    ]);
    assert_eq!(table_lines(&served.ok(&["get", "limitranges"]))[0], ["NAME", "AGE"]);
    // --show-labels and -A read the rows' object metadata.
    let labelled = table_lines(&served.ok(&["get", "deployments", "-A", "--show-labels"]));
    assert_eq!(labelled[0], ["NAMESPACE", "NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "LABELS"]);
    assert_eq!((labelled[1][0].as_str(), labelled[1][6].as_str()), ("default", "app=web"));

    // Discovery lists the resources, not meta/v1's documents.
    let core = served.ok(&["api-resources", "--api-group=", "-o", "name"]);
    assert!(core.lines().any(|l| l == "configmaps"), "{core}");
    assert!(!core.lines().any(|l| matches!(l, "statuses" | "apigroups" | "apiversionses")), "{core}");

    // A custom resource: the CRD's printer columns.
    let crd = CRD.replace(
        "    subresources:",
        "    additionalPrinterColumns:\n    - {name: Replicas, type: integer, jsonPath: .spec.replicas}\n    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}\n    subresources:",
    );
    served.ok(&["apply", "-f", &served.write("crd.yaml", &crd)]);
    served.ok(&["wait", "--for", "condition=Established", "crd/backends.example.com"]);
    served.ok(&["apply", "-f", &served.write("b.yaml", &backend(3, &[("http", 80)]))]);
    let backends = table_lines(&served.ok(&["get", "backends"]));
    assert_eq!(backends[0], ["NAME", "REPLICAS", "AGE"]);
    assert_eq!(backends[1][..2], ["b", "3"]);

    // --watch: a row for each change, under the one header.
    let mut watch = Command::new("kubectl")
        .args(["get", "configmaps", "--watch", "--request-timeout=20s", "--cache-dir"])
        .arg(served.dir.join("cache"))
        .env("KUBECONFIG", &served.kubeconfig)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let mut next = || table_lines(&lines.next().unwrap().unwrap()).remove(0);
    assert_eq!(next(), ["NAME", "DATA", "AGE"]);
    assert_eq!(next()[..2], ["cm", "2"]);
    served.ok(&["create", "configmap", "more", "--from-literal=x=1"]);
    assert_eq!(next()[..2], ["more", "1"]);
    let _ = watch.kill();
    let _ = watch.wait();
}

/// A description as `kubectl explain` wraps it, as one line of words.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `kubectl explain` reads the server's OpenAPI v3 documents: Kubernetes'
/// schemas for built-in kinds, a CRD's own schema for its custom resources.
#[test]
fn kubectl_explain_reads_the_servers_schemas() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("explain");
    let doc: Value = serde_json::from_str(&served.ok(&["get", "--raw", "/openapi/v3/apis/apps/v1"])).unwrap();
    let replicas = &doc["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["replicas"];
    let explained = served.ok(&["explain", "deployment.spec.replicas"]);
    assert!(explained.contains("FIELD: replicas <integer>"), "{explained}");
    assert!(words(&explained).contains(&words(replicas["description"].as_str().unwrap())), "{explained}");
    let recursive = served.ok(&["explain", "pods.spec.containers", "--recursive"]);
    assert!(
        recursive.contains("livenessProbe\t<Probe>") && recursive.contains("name\t<string> -required-"),
        "{recursive}"
    );

    let crd = CRD.replace(
        "        type: object\n        properties:\n          spec:",
        "        type: object\n        description: A backend of the example.\n        properties:\n          spec:",
    );
    let crd = crd.replace("replicas: {type: integer}", "replicas: {type: integer, description: How many copies run.}");
    served.ok(&["apply", "-f", &served.write("crd.yaml", &crd)]);
    served.ok(&["wait", "--for", "condition=Established", "crd/backends.example.com"]);
    let kind = served.ok(&["explain", "backends"]);
    assert!(kind.contains("GROUP:      example.com") && words(&kind).contains("A backend of the example."), "{kind}");
    let field = served.ok(&["explain", "backend.spec.replicas"]);
    assert!(field.contains("FIELD: replicas <integer>") && field.contains("How many copies run."), "{field}");
    // metadata is the built-in ObjectMeta, as in every kind.
    assert!(served.ok(&["explain", "backend.metadata.labels"]).contains("FIELD: labels <map[string]string>"));
}

/// `kubectl auth`: the reviews are answered as by a server with anonymous
/// authentication and the `AlwaysAllow` authorizer, and nothing is stored.
#[test]
fn kubectl_auth_is_answered_as_always_allow() {
    if kubectl_missing() {
        return;
    }
    let served = Served::start("auth");
    assert_eq!(served.ok(&["auth", "can-i", "delete", "deployments"]).trim(), "yes");
    let rules = table_lines(&served.ok(&["auth", "can-i", "--list"]));
    assert_eq!(rules[1], ["*.*", "[]", "[]", "[*]"]);
    let whoami = table_lines(&served.ok(&["auth", "whoami"]));
    assert_eq!(whoami[1], ["Username", "system:anonymous"]);
    let (method, code, _, _) = served.writes().pop().unwrap();
    assert_eq!((method.as_str(), code), ("POST", 201));
    let err = served.fails(&["get", "selfsubjectaccessreviews"], None);
    assert!(
        err.contains("(MethodNotAllowed): the server does not allow this method on the requested resource"),
        "{err}"
    );
}
