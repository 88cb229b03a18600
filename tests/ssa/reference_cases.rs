//! structured-merge-diff's own `merge` test cases (`fixtures/ssa/smd_merge.jsonl`,
//! recorded from the reference by `scripts/smd-cases/record.sh`) through
//! smp's updater (`smp_core::ssa::Updater`): every operation of every case
//! must end as the reference's did (the same conflicts or a failure where
//! it failed, else the same object and the same managers with the same
//! field sets), and a case's own expectations (its object, its managers'
//! sets, the conflicts it names) must hold.
//!
//! Cases that need what the updater does not model are counted and named,
//! not run: objects converted between versions by a test converter, and
//! fields the updater is told to ignore. `SSA_REFERENCE_CASES=N` runs only
//! the first N runnable cases.

use serde_json::{Value, json};
use smp_core::ssa::{self, ManagedFields, Schema, TypeRef, Updater, VersionedSet};
use smp_tests::harness::{env_number, loud};
use smp_tests::json_cmp::first_difference;
use smp_tests::ssa_fixture::load;
use std::collections::{BTreeMap, BTreeSet};

/// Why a case is not run, or `None`.
fn not_run(case: &Value) -> Option<String> {
    if case["ignoreFilter"] == true || case.get("ignoredFields").is_some_and(|f| !f.is_null()) {
        return Some("fields the updater ignores (the server's reset fields): not modelled".into());
    }
    let converter = case["converter"].as_str().unwrap_or("");
    if converter != "fixture.identityConverter" {
        let versions: BTreeSet<&str> =
            case["ops"].as_array().into_iter().flatten().filter_map(|op| op["apiVersion"].as_str()).collect();
        if versions.len() > 1 {
            return Some(format!("objects converted between versions by {converter}: not modelled"));
        }
    }
    None
}

struct Types {
    schema: Schema,
    root: TypeRef,
}

fn types(doc: &Value) -> Types {
    let schema = Schema::from_structured_merge_diff(&doc["schema"]).expect("the case's schema");
    let name = doc["type"]["namedType"].as_str().expect("a named root type");
    let root = schema.root(name).unwrap_or_else(|| panic!("no type {name}"));
    Types { schema, root }
}

/// The managers as the fixtures write them.
fn managers_json(m: &ManagedFields) -> Value {
    let mut out = serde_json::Map::new();
    for (name, vs) in m {
        out.insert(
            name.clone(),
            json!({"apiVersion": vs.api_version, "applied": vs.applied, "fields": ssa::fieldsv1::encode(&vs.set)}),
        );
    }
    Value::Object(out)
}

/// The reference's managers, for comparing sets whatever their encoding.
fn managers_of(v: &Value) -> BTreeMap<String, (String, bool, ssa::Set)> {
    let mut out = BTreeMap::new();
    for (name, m) in v.as_object().into_iter().flatten() {
        let set = ssa::fieldsv1::decode(&m["fields"]).expect("FieldsV1");
        out.insert(name.clone(), (m["apiVersion"].as_str().unwrap_or("").into(), m["applied"] == true, set));
    }
    out
}

fn conflict_set(v: &Value) -> BTreeSet<(String, String)> {
    let text = |c: &Value, k: &str| c[k].as_str().unwrap_or("").to_string();
    v.as_array().into_iter().flatten().map(|c| (text(c, "manager"), text(c, "path"))).collect()
}

/// One operation's outcome: the error (with its conflicts), if any.
struct Outcome {
    error: Option<String>,
    conflicts: BTreeSet<(String, String)>,
}

struct State {
    live: Value,
    managers: ManagedFields,
}

fn fail(e: impl ToString) -> Outcome {
    Outcome { error: Some(e.to_string()), conflicts: BTreeSet::new() }
}

fn outcome_of(r: Result<(), ssa::Error>) -> Outcome {
    match r {
        Ok(()) => Outcome { error: None, conflicts: BTreeSet::new() },
        Err(e) => {
            let conflicts = e
                .conflicts()
                .map(|c| c.0.iter().map(|c| (c.identifier().to_string(), c.field.clone())).collect())
                .unwrap_or_default();
            Outcome { error: Some(e.to_string()), conflicts }
        }
    }
}

fn apply(u: &Updater, st: &mut State, config: &Value, version: &str, manager: &str, force: bool) -> Outcome {
    if let Err(e) = u.validate(config, false) {
        return fail(e);
    }
    let mut managers = st.managers.clone();
    outcome_of(u.apply(&st.live, config, version, &mut managers, manager, force).map(|new| {
        if let Some(new) = new {
            st.live = new;
        }
        st.managers = managers;
    }))
}

fn run_op(t: &Types, st: &mut State, op: &Value) -> Outcome {
    let u = Updater::new(&t.schema, t.root);
    let version = op["apiVersion"].as_str().unwrap_or("");
    let manager = op["manager"].as_str().unwrap_or("");
    let object = op.get("object").cloned().unwrap_or(Value::Null);
    match op["op"].as_str().unwrap_or("") {
        "apply" => apply(&u, st, &object, version, manager, false),
        "force-apply" => apply(&u, st, &object, version, manager, true),
        "update" => {
            if let Err(e) = u.validate(&object, true) {
                return fail(e);
            }
            let mut managers = st.managers.clone();
            outcome_of(u.update(&st.live, &object, version, &mut managers, manager).map(|()| {
                st.live = object;
                st.managers = managers;
            }))
        }
        "extract-apply" => {
            if let Err(e) = u.validate(&object, false) {
                return fail(e);
            }
            if st.live.is_null() {
                return apply(&u, st, &object, version, manager, true);
            }
            let owned = match st.managers.get(manager) {
                Some(VersionedSet { api_version, .. }) if api_version != version => {
                    return fail(format!("{manager} owns its fields in {api_version}"));
                }
                Some(vs) => vs.set.leaves(),
                None => ssa::Set::new(),
            };
            let extracted = u.extract(&st.live, &owned);
            match u.merge(&extracted, &object) {
                Ok(config) => apply(&u, st, &config, version, manager, true),
                Err(e) => fail(e),
            }
        }
        "change-schema" => match u.validate(&st.live, false) {
            Ok(()) => Outcome { error: None, conflicts: BTreeSet::new() },
            Err(e) => fail(e),
        },
        other => fail(format!("unknown operation {other}")),
    }
}

/// Why the case ends otherwise than the reference's run, or `None`.
fn check(case: &Value) -> Option<String> {
    let schemas: Vec<Types> = case["schemas"].as_array().expect("schemas").iter().map(types).collect();
    let mut st = State { live: Value::Null, managers: ManagedFields::new() };
    for (i, op) in case["ops"].as_array().expect("ops").iter().enumerate() {
        let t = &schemas[op["schema"].as_u64().expect("schema index") as usize];
        let got = run_op(t, &mut st, op);
        let want = &op["outcome"];
        let at = format!("operation {i} ({} by {})", op["op"], op["manager"]);
        let want_error = want.get("error").and_then(Value::as_str);
        match (&got.error, want_error) {
            (Some(e), None) => return Some(format!("{at}: we fail, the reference does not: {e}")),
            (None, Some(e)) => return Some(format!("{at}: the reference fails, we do not: {e}")),
            _ => {}
        }
        let want_conflicts = conflict_set(&want["conflicts"]);
        if got.conflicts != want_conflicts {
            return Some(format!("{at}: conflicts {:?}, the reference's {want_conflicts:?}", got.conflicts));
        }
        if op["checksConflicts"] == true && conflict_set(&op["expectedConflicts"]) != got.conflicts {
            return Some(format!("{at}: conflicts {:?}, the case expects {}", got.conflicts, op["expectedConflicts"]));
        }
        if let Some(d) = first_difference(&st.live, &want["live"]) {
            return Some(format!(
                "{at}: the object differs at {d}: ours {}, the reference's {}",
                st.live, want["live"]
            ));
        }
        let ours = managers_of(&managers_json(&st.managers));
        if ours != managers_of(&want["managers"]) {
            return Some(format!(
                "{at}: managers differ:\n  ours {}\n  want {}",
                managers_json(&st.managers),
                want["managers"]
            ));
        }
    }
    // The case's own expectations (the reference's run met them too); an
    // object expected at another version than the operations' is the
    // test converter's output, not checked.
    let converted = case["converter"] != "fixture.identityConverter"
        && case["ops"].as_array().into_iter().flatten().any(|op| op["apiVersion"] != case["apiVersion"]);
    if let Some(obj) = case.get("object").filter(|o| !o.is_null() && !converted)
        && let Some(d) = first_difference(&st.live, obj)
    {
        return Some(format!("the object differs from the case's at {d}"));
    }
    if let Some(managed) = case.get("managed").filter(|m| !m.is_null()) {
        let sets = |m: BTreeMap<String, (String, bool, ssa::Set)>| -> BTreeMap<String, (String, ssa::Set)> {
            m.into_iter().map(|(k, (v, _, s))| (k, (v, s))).collect()
        };
        if sets(managers_of(&managers_json(&st.managers))) != sets(managers_of(managed)) {
            return Some(format!("managers differ from the case's: {managed}"));
        }
    }
    None
}

#[test]
fn structured_merge_diffs_own_cases() {
    let limit: usize = env_number("SSA_REFERENCE_CASES").unwrap_or(usize::MAX);
    let (mut passed, mut ran) = (0, 0);
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in load("smd_merge.jsonl") {
        let name = case["case"].as_str().unwrap_or("?").to_string();
        if let Some(why) = not_run(&case) {
            skipped.entry(why).or_default().push(name);
            continue;
        }
        if ran == limit {
            break;
        }
        ran += 1;
        match check(&case) {
            None => passed += 1,
            Some(why) => failures.push(format!("{name}: {why}")),
        }
    }
    loud(&format!("structured-merge-diff's merge cases: {passed}/{ran} give the reference's outcomes"));
    for (why, names) in &skipped {
        loud(&format!("  not run ({}): {why}", names.len()));
    }
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
}

/// Why a field manager history is not run, or `None`.
fn history_not_run(h: &Value) -> Option<String> {
    if h["subresource"].as_str().is_some_and(|s| !s.is_empty()) {
        return Some("a subresource's field manager: not modelled".into());
    }
    if h["chained"] == true {
        return Some(
            "a test's own manager chain (a cap of three, no tracking before the first apply, a failing manager; \
             TestLargeLastApplied's second last-applied updater, left out for its megabytes of annotations)"
                .into(),
        );
    }
    let (api_version, kind) = (h["apiVersion"].as_str().unwrap_or(""), h["kind"].as_str().unwrap_or(""));
    if smp_k8s_types::ssa_schemas::resource(api_version, kind).is_none() {
        return Some(format!("kinds without a built-in schema ({api_version} {kind})"));
    }
    None
}

/// The conflicting fields of a reference error (its status causes).
fn cause_fields(op: &Value) -> BTreeSet<String> {
    op["causes"].as_array().into_iter().flatten().filter_map(|c| c["field"].as_str().map(String::from)).collect()
}

/// Why the history ends otherwise than the reference's run, or `None`.
fn check_history(h: &Value) -> Option<String> {
    let (api_version, kind) = (h["apiVersion"].as_str().unwrap_or(""), h["kind"].as_str().unwrap_or(""));
    let res = smp_k8s_types::ssa_schemas::resource(api_version, kind).expect("a built-in kind");
    let empty = json!({"apiVersion": api_version, "kind": kind});
    let mut live = empty.clone();
    for (i, op) in h["ops"].as_array().expect("ops").iter().enumerate() {
        let at = format!("operation {i} ({} by {})", op["op"], op["manager"]);
        let object = &op["object"];
        let manager = op["manager"].as_str().unwrap_or("");
        let now = op["now"].as_str().unwrap_or("");
        let got = match op["op"].as_str().unwrap_or("") {
            "reset" => Ok(empty.clone()),
            "apply" => ssa::apply(&res, Some(&live), object, manager, op["force"] == true, now),
            "update" | "update-no-errors" => ssa::update(&res, Some(&live), object, manager, now),
            other => return Some(format!("{at}: unknown operation {other}")),
        };
        match (got, op.get("error").and_then(Value::as_str)) {
            (Ok(obj), None) => live = obj,
            (Ok(_), Some(e)) => return Some(format!("{at}: the reference fails, we do not: {e}")),
            (Err(e), None) => return Some(format!("{at}: we fail, the reference does not: {e}")),
            (Err(e), Some(want)) => {
                if let Some(c) = e.conflicts() {
                    let ours: BTreeSet<String> = c.0.iter().map(|c| c.field.clone()).collect();
                    if ours != cause_fields(op) || !want.contains(&e.to_string()) {
                        return Some(format!("{at}: conflicts {e}, the reference's {want}"));
                    }
                }
            }
        }
        let (ours, mf) = split_managed_fields(&live);
        let (theirs, want_mf) = split_managed_fields(&op["live"]);
        if let Some(d) = first_difference(&ours, &theirs) {
            return Some(format!("{at}: the object differs at {d}: ours {ours}, the reference's {theirs}"));
        }
        if mf != want_mf {
            return Some(format!("{at}: managedFields differ:\n  ours {mf}\n  want {want_mf}"));
        }
    }
    None
}

fn split_managed_fields(obj: &Value) -> (Value, Value) {
    let mut rest = obj.clone();
    let mf = rest.get_mut("metadata").and_then(Value::as_object_mut).and_then(|m| m.remove("managedFields"));
    if rest.get("metadata").and_then(Value::as_object).is_some_and(|m| m.is_empty()) {
        rest.as_object_mut().map(|o| o.remove("metadata"));
    }
    (rest, mf.unwrap_or(Value::Null))
}

#[test]
fn the_field_managers_own_cases() {
    let (mut passed, mut ran) = (0, 0);
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    for h in load("managedfields.jsonl") {
        let name = h["case"].as_str().unwrap_or("?").to_string();
        if let Some(why) = history_not_run(&h) {
            skipped.entry(why).or_default().push(name);
            continue;
        }
        ran += 1;
        match check_history(&h) {
            None => passed += 1,
            Some(why) => failures.push(format!("{name}: {why}")),
        }
    }
    loud(&format!(
        "the field manager's cases (apimachinery managedfields): {passed}/{ran} histories as the reference's"
    ));
    for (why, names) in &skipped {
        loud(&format!("  not run ({}): {why}: {}", names.len(), names.join(", ")));
    }
    assert!(failures.is_empty(), "{} histories differ:\n{}", failures.len(), failures.join("\n"));
}
