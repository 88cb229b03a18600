//! The reference's own test vectors (`../shared/conformance`), run through
//! smp. Every check must pass; the counts are printed per file.

use serde_json::Value;
use smp_core::value::to_go_json;
use smp_core::{apply, decode, merge_patches};
use smp_tests::conformance::{Tally, expect, load_cases};
use smp_tests::merge_item::by_name;

fn schema_of(case: &Value) -> smp_core::Schema<'static> {
    by_name(case["schema"].as_str().unwrap_or("mergeItem"))
}

fn text_or_doc(case: &Value, field: &str) -> smp_core::Result<Value> {
    match case.get(&format!("{field}Text")) {
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
        let got = text_or_doc(c, "original").and_then(|o| text_or_doc(c, "patch").and_then(|p| apply(&o, &p, schema_of(c))));
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
            let got = apply(&c["original"], &c["patch"], schema_of(c));
            let err = c.get("referenceError").and_then(Value::as_str);
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
            let Some(Value::String(p)) = c.get(patch) else { continue };
            let outcome = (|| {
                let base = decode(c[base].as_str().unwrap().as_bytes()).map_err(|e| e.to_string())?;
                let p = decode(p.as_bytes()).map_err(|e| e.to_string())?;
                match apply(&base, &p, schema_of(c)) {
                    Ok(got) => exact(&got, &c[result]),
                    // Schema-dependent cases accept the error the struct schema gives.
                    Err(e) if c[allowed_err].as_str().is_some_and(|s| e.to_string().contains(s)) => Ok(()),
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

#[test]
fn conformance_vectors() {
    let Some(apply_failures) = apply_checks() else {
        eprintln!("SKIPPED: ../shared/conformance is missing; the reference's vectors did not run");
        return;
    };
    assert_eq!(apply_failures, 0, "conformance failures (see FAIL lines above)");
}
