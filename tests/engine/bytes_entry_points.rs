//! The bytes entry points (`apply_slice`, `diff_slice`, `three_way_slice`)
//! give, byte for byte, what the `Value` entry points give on the decoded
//! documents, written with the same writer, errors included: on random
//! cases of the project's generator (all three kinds, every directive, some
//! invalid patches, conflicting three-way cases, long strings with escapes,
//! in every other case some written with escapes serde_json never writes)
//! and on the shipped bench cases.
//!
//! `SMP_BYTES_CASES` sets the number of random cases per operation
//! (default 2,000; `scripts/same-output.sh` runs 20,000 through the binary).

use serde_json::Value;
use smp_core::unstable::to_json_vec;
use smp_core::{Schema, ThreeWayOptions, apply, apply_slice, decode, diff, diff_slice, three_way, three_way_slice};
use smp_tests::harness::{env_number, loud};
use smp_tests::k8s_kinds::kind_of;
use smp_tests::long_text::write_escaped;
use smp_tests::rng::Rng;
use smp_tests::scale::{OPS, inputs, lengthen_lists, random_lines};

/// The answer of the `Value` entry points, written as the bytes ones write it.
fn old(op: &str, texts: &[Vec<u8>], schema: Schema<'_>, overwrite: bool) -> smp_core::Result<Vec<u8>> {
    let docs = texts.iter().map(|t| decode(t)).collect::<smp_core::Result<Vec<Value>>>()?;
    let out = match op {
        "apply" => apply(&docs[0], &docs[1], schema)?,
        "twoway" => diff(&docs[0], &docs[1], schema)?,
        _ => three_way(&docs[0], &docs[1], &docs[2], schema, ThreeWayOptions { overwrite, ..Default::default() })?,
    };
    to_json_vec(&out)
}

fn new(op: &str, t: &[Vec<u8>], schema: Schema<'_>, overwrite: bool) -> smp_core::Result<Vec<u8>> {
    match op {
        "apply" => apply_slice(&t[0], &t[1], schema),
        "twoway" => diff_slice(&t[0], &t[1], schema),
        _ => three_way_slice(&t[0], &t[1], &t[2], schema, ThreeWayOptions { overwrite, ..Default::default() }),
    }
}

/// Runs one case line both ways: whether it failed (both ways alike), or
/// the difference. Odd-numbered cases have each of their long strings
/// written with the writer's escapes (the reader keeps it as text) or
/// others (it decodes it).
fn compare(op: &str, line: &str, i: usize) -> Result<bool, String> {
    let case: Value = serde_json::from_str(line).expect("a generated line");
    let mut rng = Rng::new(i as u64);
    let texts: Vec<Vec<u8>> = inputs(op)
        .iter()
        .map(|k| {
            if i.is_multiple_of(2) { case[*k].to_string() } else { write_escaped(&case[*k], &mut rng) }.into_bytes()
        })
        .collect();
    compare_texts(op, &case, &texts, line)
}

/// [`compare`] on the documents' texts given.
fn compare_texts(op: &str, case: &Value, texts: &[Vec<u8>], line: &str) -> Result<bool, String> {
    let overwrite = case["overwrite"].as_bool().unwrap_or(false);
    let schema = kind_of(&case["original"]).map_or(Schema::Untyped, |k| k.static_schema());
    let (a, b) = (old(op, texts, schema, overwrite), new(op, texts, schema, overwrite));
    let show = |r: &smp_core::Result<Vec<u8>>| match r {
        Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Err(e) => format!("error: {e}"),
    };
    if show(&a) == show(&b) {
        Ok(a.is_err())
    } else {
        Err(format!("{op}: {line}\n  old {}\n  new {}", show(&a), show(&b)))
    }
}

#[test]
fn bytes_entry_points_agree_with_the_value_ones_on_random_cases() {
    let count = env_number("SMP_BYTES_CASES").unwrap_or(2_000);
    for (op, _) in OPS {
        let lines = random_lines(op, count, 7);
        let mut errors = 0;
        for (i, line) in lines.iter().enumerate() {
            match compare(op, line, i) {
                Ok(failed) => errors += usize::from(failed),
                Err(difference) => panic!("{difference}"),
            }
        }
        loud(&format!("bytes entry points: {count} random {op} cases agree ({errors} of them errors)"));
        assert_eq!(lines.len(), count);
    }
}

/// Every string value of `v` of even length made long, with escapes: the
/// same string everywhere (merge keys still pair up), so that the bytes
/// entry points meet strings they keep as text.
fn lengthen(v: &mut Value) {
    match v {
        Value::String(s) if s.len() % 2 == 0 => *s = format!("{s}\n\"{}\t{s}", "~".repeat(60)),
        Value::Array(a) => a.iter_mut().for_each(lengthen),
        Value::Object(m) => m.values_mut().for_each(lengthen),
        _ => {}
    }
}

#[test]
fn bytes_entry_points_agree_with_the_value_ones_on_long_strings_with_escapes() {
    let count = env_number("SMP_BYTES_CASES").unwrap_or(2_000) / 2;
    for (op, _) in OPS {
        let mut errors = 0;
        for (i, line) in random_lines(op, count, 8).iter().enumerate() {
            let mut case: Value = serde_json::from_str(line).expect("a generated line");
            lengthen(&mut case);
            let texts: Vec<Vec<u8>> = inputs(op)
                .iter()
                .map(|k| {
                    let text = serde_json::to_string(&case[*k]).unwrap();
                    // Every third case: the line breaks escaped otherwise
                    // (the same strings, read at once rather than kept).
                    if i % 3 == 0 { text.replace("\\n", "\\u000a") } else { text }.into_bytes()
                })
                .collect();
            match compare_texts(op, &case, &texts, line) {
                Ok(failed) => errors += usize::from(failed),
                Err(difference) => panic!("{difference}"),
            }
        }
        loud(&format!(
            "bytes entry points: {count} random {op} cases with long escaped strings agree ({errors} of them errors)"
        ));
    }
}

#[test]
fn bytes_entry_points_agree_with_the_value_ones_on_long_lists() {
    let count = env_number("SMP_BYTES_CASES").unwrap_or(2_000) / 20;
    for (op, _) in OPS {
        let (mut errors, mut long) = (0, 0);
        for (i, line) in random_lines(op, count, 9).iter().enumerate() {
            let mut case: Value = serde_json::from_str(line).expect("a generated line");
            for k in inputs(op) {
                lengthen_lists(&mut case[*k]);
            }
            let mut rng = Rng::new(i as u64);
            let texts: Vec<Vec<u8>> = inputs(op)
                .iter()
                .map(|k| {
                    // Every other case in other text: elements not canonical.
                    if i.is_multiple_of(2) { case[*k].to_string() } else { write_escaped(&case[*k], &mut rng) }
                        .into_bytes()
                })
                .collect();
            long += usize::from(texts.iter().any(|t| t.len() > 4096));
            match compare_texts(op, &case, &texts, line) {
                Ok(failed) => errors += usize::from(failed),
                Err(difference) => panic!("{difference}"),
            }
        }
        assert!(long > count / 4, "{op}: only {long} of {count} cases have long lists");
        loud(&format!("bytes entry points: {count} random {op} cases with long lists agree ({errors} of them errors)"));
    }
}
