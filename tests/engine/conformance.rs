//! The reference's own test vectors (`../shared/conformance`), run through
//! smp. Every check must pass; the counts are printed per file.

use serde_json::Value;
use smp_core::unstable::to_go_json;
use smp_core::{
    ErrorKind, Precondition, ThreeWayOptions, apply, check_preconditions, decode, diff, has_conflicts, merge_patches,
    merging_maps_have_conflicts, three_way,
};
use smp_tests::conformance::{Tally, error_matches, expect, load_cases, set_lenient_errors, shared_dir};
use smp_tests::merge_item::by_name;

/// Where the vectors' schemas come from: the Go struct tags (as static
/// tables) or the reference's OpenAPI v2 / v3 test documents.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Flavour {
    Struct,
    OpenApiV2,
    OpenApiV3,
}

thread_local! {
    static FLAVOUR: std::cell::Cell<Flavour> = const { std::cell::Cell::new(Flavour::Struct) };
}

fn openapi(file: &str) -> &'static smp_core::OpenApi {
    let path = shared_dir().expect("checked by the caller").join("conformance/openapi").join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = smp_core::OpenApi::from_json_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Box::leak(Box::new(doc))
}

fn schema_of(case: &Value) -> smp_core::Schema<'static> {
    static DOCS: std::sync::OnceLock<[&'static smp_core::OpenApi; 4]> = std::sync::OnceLock::new();
    let name = case["schema"].as_str().unwrap_or("mergeItem");
    let docs = || {
        DOCS.get_or_init(|| {
            [
                openapi("swagger-merge-item.json"),
                openapi("swagger-precision-item.json"),
                openapi("swagger-merge-item-v3.json"),
                openapi("swagger-precision-item-v3.json"),
            ]
        })
    };
    let precision = name == "precisionItem";
    let doc = match FLAVOUR.get() {
        Flavour::Struct => return by_name(name),
        Flavour::OpenApiV2 => docs()[usize::from(precision)],
        Flavour::OpenApiV3 => docs()[2 + usize::from(precision)],
    };
    doc.definition(name).unwrap_or_else(|e| panic!("{e}"))
}

/// Errors that only the Go struct schema raises: a Go map or a non-slice
/// field looked into as a list. OpenAPI schemas describe these fields
/// differently (v3 lookups below a property without `items` find nothing).
fn struct_schema_only(error: &str) -> bool {
    ["expected slice or array type", "data type is not struct", "unexpected slice of slice"]
        .iter()
        .any(|e| error.contains(e))
}

fn text_or_doc(case: &Value, field: &str) -> smp_core::Result<Value> {
    match case.get(format!("{field}Text")) {
        Some(Value::String(t)) => decode(t.as_bytes()),
        _ => Ok(case[field].clone()),
    }
}

/// Runs the apply-side checks of every vector file; returns the total failures.
fn apply_checks() -> Option<usize> {
    let mut failures = 0;
    let mut run = |file: &str, f: &dyn Fn(&Value, &mut Tally)| -> Option<()> {
        let cases = load_cases(file)?;
        let mut tally = Tally::default();
        for case in &cases {
            f(case, &mut tally);
        }
        tally.report(&format!("apply checks of {file}"));
        failures += tally.failed.len();
        Some(())
    };

    run("apply.json", &|c, t| {
        let got =
            text_or_doc(c, "original").and_then(|o| text_or_doc(c, "patch").and_then(|p| apply(&o, &p, schema_of(c))));
        t.check(id(c), "apply", expect(got, c.get("expectedResult"), c["expectedError"].as_str()));
    })?;
    run("two_way.json", &|c, t| {
        let got = apply(&c["original"], &c["expectedPatch"], schema_of(c));
        t.check(id(c), "apply(original, expectedPatch)", expect(got, Some(&c["expectedResult"]), None));
    })?;
    run("three_way.json", &|c, t| {
        let got = apply(&c["current"], &c["expectedPatch"], schema_of(c));
        t.check(id(c), "apply(current, expectedPatch)", expect(got, Some(&c["expectedResult"]), None));
    })?;
    run("supplementary.json", &|c, t| match c["op"].as_str() {
        Some("apply") => {
            let err = c.get("referenceError").and_then(Value::as_str);
            if FLAVOUR.get() != Flavour::Struct && err.is_some_and(struct_schema_only) {
                return; // The OpenAPI flavours have no such error.
            }
            let got = apply(&c["original"], &c["patch"], schema_of(c));
            t.check(id(c), "apply", expect(got, c.get("expectedResult"), err));
        }
        Some(op @ ("two" | "three")) if c.get("expectedPatch").is_some() => {
            let target = if op == "two" { &c["original"] } else { &c["current"] };
            let got = apply(target, &c["expectedPatch"], schema_of(c));
            t.check(id(c), "apply(.., expectedPatch)", expect(got, Some(&c["expectedResult"]), None));
        }
        Some("mergePatches") => {
            let patches = c["patches"].as_array().cloned().unwrap_or_default();
            let got = merge_patches(&patches, schema_of(c));
            let err = c.get("referenceError").and_then(Value::as_str);
            t.check(id(c), "merge patches", expect(got, c.get("expectedPatch"), err));
        }
        _ => {}
    })?;
    run("number_conversion.json", &|c, t| {
        let outcome = (|| {
            let original = decode(c["originalText"].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
            let patch = decode(c["expectedPatchText"].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
            let got = apply(&original, &patch, schema_of(c)).map_err(|e| e.to_string())?;
            exact(&got, &c["expectedResultText"])
        })();
        t.check(id(c), "apply, byte-exact", outcome);
    })?;
    run("unknown_field.json", &|c, t| {
        for (patch, base, result, allowed_err) in [
            ("expectedTwoWayText", "originalText", "expectedTwoWayResultText", "expectedTwoWayErrContains"),
            ("expectedThreeWayText", "currentText", "expectedThreeWayResultText", "expectedThreeWayErrContains"),
        ] {
            let Some(Value::String(p)) = c.get(patch) else {
                continue;
            };
            let outcome = (|| {
                let base = decode(c[base].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
                let p = decode(p.as_bytes()).map_err(|e| e.to_string())?;
                match apply(&base, &p, schema_of(c)) {
                    Ok(got) => exact(&got, &c[result]),
                    // Schema-dependent cases accept the error the struct schema gives.
                    Err(e) if c[allowed_err].as_str().is_some_and(|s| error_matches(&e.to_string(), s)) => Ok(()),
                    Err(e) => Err(e.to_string()),
                }
            })();
            t.check(id(c), patch, outcome);
        }
    })?;
    Some(failures)
}

fn id(c: &Value) -> &str {
    c["id"].as_str().unwrap_or("?")
}

fn exact(got: &Value, want: &Value) -> Result<(), String> {
    let got = to_go_json(got);
    let want = want.as_str().unwrap_or_default();
    if got == want { Ok(()) } else { Err(format!("\n   got  {got}\n   want {want}")) }
}

/// Runs the patch-computing checks (two-way, three-way, conflicts).
fn diff_checks() -> Option<usize> {
    let mut failures = 0;
    let mut run = |file: &str, f: &dyn Fn(&Value, &mut Tally)| -> Option<()> {
        let cases = load_cases(file)?;
        let mut tally = Tally::default();
        for case in &cases {
            f(case, &mut tally);
        }
        tally.report(&format!("diff checks of {file}"));
        failures += tally.failed.len();
        Some(())
    };
    run("two_way.json", &|c, t| {
        let got = diff(&c["original"], &c["modified"], schema_of(c));
        t.check(id(c), "two-way", expect(got, Some(&c["expectedPatch"]), None));
    })?;
    run("three_way.json", &|c, t| {
        let (o, m, cur) = (&c["original"], &c["modified"], &c["current"]);
        let conflict = c["expectConflict"].as_bool().unwrap_or(false);
        let plain = three_way(o, m, cur, schema_of(c), ThreeWayOptions::default());
        if conflict {
            let outcome = match plain {
                Err(e) if e.is_conflict() => Ok(()),
                other => Err(format!("expected a conflict, got {other:?}")),
            };
            t.check(id(c), "three-way conflict", outcome);
            let forced = three_way(o, m, cur, schema_of(c), ThreeWayOptions { overwrite: true, ..Default::default() });
            t.check(id(c), "three-way overwrite", expect(forced, Some(&c["expectedPatch"]), None));
        } else {
            t.check(id(c), "three-way", expect(plain, Some(&c["expectedPatch"]), None));
        }
    })?;
    run("has_conflicts.json", &|c, t| {
        let want = c["expected"].as_bool();
        for (a, b) in [(&c["a"], &c["b"]), (&c["b"], &c["a"])] {
            let outcome = match has_conflicts(a, b) {
                Ok(got) if Some(got) == want => Ok(()),
                Ok(got) => Err(format!("got {got}")),
                Err(e) => Err(e.to_string()),
            };
            t.check(id(c), "has conflicts", outcome);
        }
    })?;
    run("supplementary.json", &|c, t| {
        let preconditions: Vec<Precondition<'_>> = c["preconditions"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| match (p["kind"].as_str(), p["key"].as_str().unwrap_or_default()) {
                        (Some("RequireMetadataKeyUnchanged"), k) => Precondition::MetadataKeyUnchanged(k),
                        (_, k) => Precondition::KeyUnchanged(k),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let kind = c["expectedErrorKind"].as_str();
        let judge = |got: smp_core::Result<Value>| match (got, kind) {
            (Err(e), Some("conflict")) if e.is_conflict() => Ok(()),
            (Err(e), Some("precondition")) if matches!(e.kind, ErrorKind::PreconditionFailed { .. }) => Ok(()),
            (Err(e), Some("error")) if !e.is_conflict() => {
                let want = c["referenceError"].as_str().unwrap_or_default();
                if error_matches(&e.to_string(), want) {
                    Ok(())
                } else {
                    Err(format!("error {:?}, wanted {want:?}", e.to_string()))
                }
            }
            (got, None) => expect(got, c.get("expectedPatch"), None),
            (got, kind) => Err(format!("got {got:?}, wanted a {kind:?} error")),
        };
        match c["op"].as_str() {
            Some("two") => {
                let got = diff(&c["original"], &c["modified"], schema_of(c))
                    .and_then(|p| check_preconditions(&p, &preconditions).map(|()| p));
                t.check(id(c), "two-way", judge(got));
            }
            Some("three") => {
                let opts = ThreeWayOptions {
                    overwrite: c["overwrite"].as_bool().unwrap_or(false),
                    preconditions: &preconditions,
                    ..Default::default()
                };
                let got = three_way(&c["original"], &c["modified"], &c["current"], schema_of(c), opts);
                t.check(id(c), "three-way", judge(got));
            }
            Some("conflicts") => {
                let got = merging_maps_have_conflicts(&c["left"], &c["right"], schema_of(c));
                let outcome = match (got, kind) {
                    (Ok(b), None) if Some(b) == c["expected"].as_bool() => Ok(()),
                    (Err(e), Some(_))
                        if error_matches(&e.to_string(), c["referenceError"].as_str().unwrap_or_default()) =>
                    {
                        Ok(())
                    }
                    (got, _) => Err(format!("got {got:?}")),
                };
                t.check(id(c), "conflicts", outcome);
            }
            _ => {}
        }
    })?;
    run("number_conversion.json", &|c, t| {
        let outcome = (|| {
            let original = decode(c["originalText"].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
            let modified = decode(c["modifiedText"].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
            let got = diff(&original, &modified, schema_of(c)).map_err(|e| e.to_string())?;
            exact(&got, &c["expectedPatchText"])
        })();
        t.check(id(c), "two-way, byte-exact", outcome);
    })?;
    run("unknown_field.json", &|c, t| {
        let doc = |f: &str| decode(c[f].as_str().unwrap_or_default().as_bytes()).unwrap();
        let (o, m, cur) = (doc("originalText"), doc("modifiedText"), doc("currentText"));
        let cases = [
            ("two-way", diff(&o, &m, schema_of(c)), "expectedTwoWayText", "expectedTwoWayErrContains"),
            (
                "three-way",
                three_way(&o, &m, &cur, schema_of(c), ThreeWayOptions::default()),
                "expectedThreeWayText",
                "expectedThreeWayErrContains",
            ),
        ];
        for (what, got, text, err) in cases {
            let outcome = match got {
                Ok(p) => exact(&p, &c[text]),
                Err(e) if c[err].as_str().is_some_and(|s| error_matches(&e.to_string(), s)) => Ok(()),
                Err(e) => Err(e.to_string()),
            };
            t.check(id(c), what, outcome);
        }
    })?;
    Some(failures)
}

#[test]
fn conformance_vectors() {
    let (Some(apply_failures), Some(diff_failures)) = (apply_checks(), diff_checks()) else {
        eprintln!("SKIPPED: ../shared/conformance is missing; the reference's vectors did not run");
        return;
    };
    assert_eq!(apply_failures + diff_failures, 0, "conformance failures (see FAIL lines above)");
}

/// The same vectors with the schemas read from the reference's OpenAPI
/// test documents. Error texts name the schema flavour, so only the fact of
/// an error (and the flavour-independent part of lookup errors) is checked.
#[test]
fn conformance_vectors_with_openapi_schemas() {
    if shared_dir().is_none() {
        eprintln!("SKIPPED: ../shared/conformance is missing; the reference's vectors did not run");
        return;
    }
    for flavour in [Flavour::OpenApiV2, Flavour::OpenApiV3] {
        println!("== schemas from {flavour:?}");
        FLAVOUR.set(flavour);
        set_lenient_errors(true);
        let failures = apply_checks().unwrap_or(0) + diff_checks().unwrap_or(0);
        assert_eq!(failures, 0, "conformance failures with {flavour:?} (see FAIL lines above)");
    }
}
