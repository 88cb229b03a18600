//! Seeded histories of server-side apply: several managers applying
//! (forced or not, dropping fields, with the empty configuration), updates
//! by controllers, objects created by apply or by update, objects with a
//! client-side apply past (`kubectl-client-side-apply` and the last-applied
//! annotation, then `kubectl --server-side`), more update managers than the
//! server keeps, and deliberate errors; for built-in kinds (objects from
//! [`crate::openapi_gen`]) and for a custom resource ([`widget`]).
//!
//! A history is generated step by step: the live object of a step is what
//! the reference made of the step before (the caller runs each step and
//! hands back the reference's answer).
//!
//! ```no_run
//! use smp_tests::k8s_schema::openapi_dir;
//! use smp_tests::openapi_gen::Defs;
//! use smp_tests::ssa_gen::{Subject, history};
//!
//! let defs = Defs::load(&openapi_dir().unwrap()).unwrap();
//! let subject = Subject::built_in(&defs, "apps/v1", "Deployment").unwrap();
//! let steps = history(&subject, 7, &mut |step| {
//!     // run step.line() through the reference, return its output line
//!     serde_json::json!({"error": "not run"})
//! });
//! ```

mod shape;
pub mod widget;

pub use shape::{Shape, cut, fixup, perturb, shape, spoil};

use crate::openapi_gen::{Defs, Gen};
use crate::rng::Rng;
use serde_json::{Value, json};

/// The manager kubectl's client-side apply writes updates as.
pub const CSA_MANAGER: &str = "kubectl-client-side-apply";
/// The annotation kubectl's client-side apply keeps its configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the cases are about: a built-in kind or the custom resource.
pub struct Subject<'d> {
    defs: &'d Defs,
    def: &'d str,
    api_version: String,
    kind: String,
    custom: bool,
}

impl<'d> Subject<'d> {
    /// A built-in kind of the shared OpenAPI documents (`defs`).
    pub fn built_in(defs: &'d Defs, api_version: &str, kind: &str) -> Result<Self, String> {
        let def = defs.kind_definition(api_version, kind)?;
        Ok(Subject { defs, def, api_version: api_version.into(), kind: kind.into(), custom: false })
    }

    /// The custom resource, with `defs` loaded from `fixtures/ssa` (its
    /// `widget_openapi.json`).
    pub fn widget(defs: &'d Defs) -> Result<Self, String> {
        let (def, _) = defs
            .definition(widget::DEFINITION)
            .map(|d| (widget::DEFINITION, d))
            .ok_or_else(|| format!("no definition {}", widget::DEFINITION))?;
        Ok(Subject { defs, def, api_version: widget::API_VERSION.into(), kind: widget::KIND.into(), custom: true })
    }

    /// How a fixture line names the schema: `apps/v1/Deployment`, or
    /// `widget_openapi.json#com.example.v1.Widget`.
    pub fn schema_name(&self) -> String {
        if self.custom {
            format!("widget_openapi.json#{}", widget::DEFINITION)
        } else {
            format!("{}/{}", self.api_version, self.kind)
        }
    }

    pub fn is_custom(&self) -> bool {
        self.custom
    }

    pub fn kind(&self) -> &str {
        &self.kind
    }

    fn fix(&self, object: &Value) -> Value {
        let mut v = fixup(self.defs, &json!({"$ref": format!("#/components/schemas/{}", self.def)}), object);
        if let Some(o) = v.as_object_mut() {
            o.remove("status");
            if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
                m.remove("managedFields");
            }
        }
        v
    }

    /// Pods, Deployments and Services come from [`crate::Gen`], whose
    /// objects are fuller (containers with images, env, ports, probes).
    fn rich_kind(&self) -> Option<crate::Kind> {
        crate::Kind::ALL.into_iter().find(|k| k.name() == self.kind && k.api_version() == self.api_version)
    }

    /// A whole new object.
    fn object(&self, rng: &mut Rng) -> Value {
        if self.custom {
            return self.fix(&widget::object(rng));
        }
        if let Some(kind) = self.rich_kind() {
            return self.fix(&crate::Gen::new(rng.next_u64()).object(kind));
        }
        // Objects with a `spec` (when the kind has one) and something in it.
        let has_spec = shape::field_schema(self.defs, self.def, "spec").is_some();
        let mut v = Value::Null;
        for _ in 0..8 {
            v = Gen::new(self.defs, rng.next_u64()).object(&self.api_version, &self.kind);
            if !has_spec || v.get("spec").and_then(Value::as_object).is_some_and(|s| s.len() > 1) {
                break;
            }
        }
        self.fix(&v)
    }

    /// A modified copy of `object` (managedFields left out).
    fn mutate(&self, rng: &mut Rng, object: &Value) -> Value {
        let mut plain = object.clone();
        if let Some(m) = plain.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("managedFields");
        }
        let v = if self.custom {
            widget::mutate(rng, &plain)
        } else if self.rich_kind().is_some() && plain.get("spec").is_some() {
            crate::Gen::new(rng.next_u64()).mutate(&plain)
        } else {
            Gen::new(self.defs, rng.next_u64()).mutate(&plain)
        };
        self.fix(&v)
    }

    fn cut(&self, rng: &mut Rng, object: &Value, keep: f64) -> Value {
        cut(self.defs, self.def, object, keep, rng)
    }

    fn spoil(&self, rng: &mut Rng, object: &mut Value) -> &'static str {
        spoil(self.defs, self.def, object, rng)
    }
}

/// An operation of the field manager.
#[derive(Clone, Debug)]
pub enum Op {
    Apply { applied: Value, force: bool },
    Update { new: Value },
}

/// One step of a history: an input line of the batch contract.
#[derive(Clone, Debug)]
pub struct Step {
    pub live: Option<Value>,
    pub op: Op,
    pub manager: String,
    pub now: String,
    /// What the step was generated to exercise (`apply-drop`, `csa-apply`...).
    pub category: &'static str,
}

impl Step {
    /// `apply` or `update`.
    pub fn op_name(&self) -> &'static str {
        match self.op {
            Op::Apply { .. } => "apply",
            Op::Update { .. } => "update",
        }
    }

    /// The input line of `smp apply|update --server-side --jsonl` (and of
    /// smpgo's `ssaapply` / `ssaupdate`).
    pub fn line(&self) -> Value {
        let live = self.live.clone().unwrap_or(Value::Null);
        match &self.op {
            Op::Apply { applied, force } => json!({
                "live": live, "applied": applied, "manager": self.manager, "force": force, "now": self.now
            }),
            Op::Update { new } => json!({"live": live, "new": new, "manager": self.manager, "now": self.now}),
        }
    }
}

/// A step and the reference's answer to it.
pub struct Record {
    pub step: Step,
    pub outcome: Value,
}

const APPLIERS: &[&str] = &["alice", "bob", "carol"];
const UPDATERS: &[&str] = &["kube-controller-manager", "hpa-controller"];
/// One more than the number of update managers the server keeps (10).
const CAP_RUN: usize = 11;

/// RFC 3339 text of a time in seconds since 2024-01-01T00:00:00Z.
pub fn time_text(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 2024-01-01 to a civil date (years of 365/366 days).
    let (mut year, mut day) = (2024u64, days);
    loop {
        let len =
            if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) { 366 } else { 365 };
        if day < len {
            break;
        }
        day -= len;
        year += 1;
    }
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let months = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 0;
    while day >= months[month] {
        day -= months[month];
        month += 1;
    }
    format!("{year:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", month + 1, day + 1, rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The object of a `{"result": OBJ}` answer.
fn result_of(outcome: &Value) -> Option<&Value> {
    outcome.get("result").filter(|r| r.is_object())
}

/// A history of 4 to 8 steps (a run of eleven updates makes it longer).
/// `run` answers each step as the reference does (`{"result"}`,
/// `{"error", "conflicts"}` or `{"error"}`).
pub fn history(subject: &Subject, seed: u64, run: &mut dyn FnMut(&Step) -> Value) -> Vec<Record> {
    History::new(subject, seed).play(run)
}

struct History<'s, 'd> {
    subject: &'s Subject<'d>,
    rng: Rng,
    base: Value,
    live: Option<Value>,
    clock: u64,
    /// The last configuration each applier applied.
    configs: Vec<(String, Value)>,
    /// Whether the object has a client-side apply past.
    csa: bool,
    records: Vec<Record>,
}

impl<'s, 'd> History<'s, 'd> {
    fn new(subject: &'s Subject<'d>, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let base = subject.object(&mut rng);
        let clock = rng.below(30) as u64 * 86_400;
        History { subject, rng, base, live: None, clock, configs: Vec::new(), csa: false, records: Vec::new() }
    }

    fn play(mut self, run: &mut dyn FnMut(&Step) -> Value) -> Vec<Record> {
        if self.rng.chance(0.25) {
            self.csa_create(run);
        }
        let steps = 4 + self.rng.below(5);
        while self.records.len() < steps {
            match self.rng.below(20) {
                0..=11 => self.apply(run),
                12..=16 => self.update(run),
                17 if self.csa => self.csa_update(run),
                18 if self.rng.chance(0.15) => self.cap_run(run),
                _ => self.apply(run),
            }
        }
        self.records
    }

    fn now(&mut self) -> String {
        let t = time_text(self.clock);
        self.clock += *self.rng.pick(&[0, 1, 60, 3600, 86_400]);
        t
    }

    fn step(&mut self, run: &mut dyn FnMut(&Step) -> Value, op: Op, manager: &str, category: &'static str) -> Value {
        let step = Step { live: self.live.clone(), op, manager: manager.to_string(), now: self.now(), category };
        let outcome = run(&step);
        if let Some(r) = result_of(&outcome) {
            self.live = Some(r.clone());
        }
        self.records.push(Record { step, outcome: outcome.clone() });
        outcome
    }

    /// A client-side apply created the object: an update by
    /// `kubectl-client-side-apply` with the last-applied annotation.
    fn csa_create(&mut self, run: &mut dyn FnMut(&Step) -> Value) {
        let config = self.subject.cut(&mut self.rng, &self.base, 0.7);
        let new = with_last_applied(&config, &config);
        self.csa = true;
        self.configs.push(("kubectl".into(), config));
        self.step(run, Op::Update { new }, CSA_MANAGER, "csa-create");
    }

    /// kubectl's client-side apply again: a changed configuration, the
    /// annotation with it.
    fn csa_update(&mut self, run: &mut dyn FnMut(&Step) -> Value) {
        let Some(live) = self.live.clone() else { return self.csa_create(run) };
        let changed = self.subject.mutate(&mut self.rng, &self.base);
        let config = self.subject.cut(&mut self.rng, &changed, 0.7);
        let mut new = self.subject.mutate(&mut self.rng, &live);
        merge_into(&mut new, &config);
        let new = with_last_applied(&new, &config);
        let new = keep_managed_fields(new, &live);
        self.step(run, Op::Update { new }, CSA_MANAGER, "csa-update");
    }

    fn apply(&mut self, run: &mut dyn FnMut(&Step) -> Value) {
        let rng = &mut self.rng;
        let manager = if self.csa && rng.chance(0.4) { "kubectl".to_string() } else { rng.pick(APPLIERS).to_string() };
        let previous = self.configs.iter().find(|(m, _)| *m == manager).map(|(_, c)| c.clone());
        let others: Vec<Value> = self.configs.iter().filter(|(m, _)| *m != manager).map(|(_, c)| c.clone()).collect();
        let (mut applied, mut category) = match (previous, rng.below(12)) {
            (_, 10..=11) if !others.is_empty() => {
                // Another applier's fields with other values: conflicts with it.
                let other = rng.pick(&others).clone();
                (perturb(self.subject.defs, self.subject.def, &other, 0.5, rng), "apply-contested")
            }
            (Some(p), 0..=2) => (self.subject.cut(rng, &p, 0.7), "apply-drop"),
            (Some(p), 3) => (p, "apply-same"),
            (Some(p), 4..=5) => {
                let changed = self.subject.mutate(rng, &p);
                (self.subject.cut(rng, &changed, 0.9), "apply-changed")
            }
            (_, 6) => (self.subject.cut(rng, &self.base, 0.0), "apply-empty"),
            (_, 7..=9) => {
                // Values that differ from the live ones: conflicts with their owners.
                let changed = self.subject.mutate(rng, self.live.as_ref().unwrap_or(&self.base));
                (self.subject.cut(rng, &changed, 0.6), "apply-other-values")
            }
            _ => (self.subject.cut(rng, &self.base, 0.5), "apply"),
        };
        if manager == "kubectl" {
            category = "csa-apply";
        }
        if self.live.is_none() {
            category = "create";
        }
        let mut force = rng.chance(0.15);
        if rng.chance(0.05) {
            self.subject.spoil(rng, &mut applied);
            category = "invalid";
        } else {
            self.configs.retain(|(m, _)| *m != manager);
            self.configs.push((manager.clone(), applied.clone()));
        }
        if force && category != "invalid" {
            category = "apply-force";
        }
        let outcome = self.step(run, Op::Apply { applied: applied.clone(), force }, &manager, category);
        if outcome.get("conflicts").is_some_and(|c| c.as_array().is_some_and(|c| !c.is_empty())) && !force {
            // Most appliers then force, as kubectl's message suggests.
            force = self.rng.chance(0.6);
            if force {
                self.step(run, Op::Apply { applied, force }, &manager, "apply-force-after-conflict");
            }
        }
    }

    fn update(&mut self, run: &mut dyn FnMut(&Step) -> Value) {
        let manager = self.rng.pick(UPDATERS).to_string();
        let Some(live) = self.live.clone() else {
            let new = self.subject.cut(&mut self.rng, &self.base, 0.8);
            self.step(run, Op::Update { new }, &manager, "create-update");
            return;
        };
        let mut new = self.subject.mutate(&mut self.rng, &live);
        let mut category = "update";
        if self.rng.chance(0.7) {
            new = keep_managed_fields(new, &live);
        } else {
            category = "update-no-managed-fields";
        }
        if self.rng.chance(0.04) {
            self.subject.spoil(&mut self.rng, &mut new);
            category = "invalid-update";
        }
        self.step(run, Op::Update { new }, &manager, category);
    }

    /// More update managers than the server keeps, each setting a label.
    fn cap_run(&mut self, run: &mut dyn FnMut(&Step) -> Value) {
        for i in 0..CAP_RUN {
            let Some(live) = self.live.clone() else { return self.update(run) };
            let mut new = live.clone();
            let labels =
                new["metadata"].as_object_mut().expect("metadata").entry("labels").or_insert_with(|| json!({}));
            labels[format!("controller-{i}")] = json!("on");
            self.step(run, Op::Update { new }, &format!("controller-{i}"), "update-cap");
        }
    }
}

/// `object` with `metadata.managedFields` as in `live` (what a client that
/// read the object sends back).
fn keep_managed_fields(mut object: Value, live: &Value) -> Value {
    if let Some(mf) = live.pointer("/metadata/managedFields")
        && let Some(m) = object.get_mut("metadata").and_then(Value::as_object_mut)
    {
        m.insert("managedFields".into(), mf.clone());
    }
    object
}

/// `object` with the last-applied annotation holding `config` (as kubectl
/// writes it: JSON of the configuration, without the annotation, and a newline).
fn with_last_applied(object: &Value, config: &Value) -> Value {
    let mut out = object.clone();
    let meta = out.as_object_mut().expect("an object").entry("metadata").or_insert_with(|| json!({}));
    let annotations = meta.as_object_mut().expect("metadata").entry("annotations").or_insert_with(|| json!({}));
    annotations[LAST_APPLIED] = json!(format!("{config}\n"));
    out
}

/// Fields of `patch` set into `target` (objects merged, anything else replaced).
fn merge_into(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                merge_into(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (t, p) => *t = p.clone(),
    }
}
