//! Flags that would change nothing where they are given are refused, so
//! that none is ignored in silence. What each flag does, by command and
//! patch type (`-` a flag the command does not have; clap refuses the
//! pairs its own rules forbid, such as `--kind` with `--crd`):
//!
//! | flag | apply | diff | three-way | check |
//! |---|---|---|---|---|
//! | `--type merge, json` | yes | yes | merge only | no: check reads merge keys |
//! | `--kind`, `--definition`, `--version` | strategic, or `--strict` | strategic | strategic | yes |
//! | `--openapi`, `--untyped`, `--crd` | yes (they also say which documents are read) | yes | yes | yes |
//! | `--patch-merge-key` | strategic | strategic | strategic | - |
//! | `--strict` | every type, not with `--untyped` | - | - | - |
//! | `--checked` | - | strategic | - | - |
//! | `--overwrite` | - | - | strategic (merge has no conflict check) | - |
//! | `--exit-code` | - | without `--jsonl` | without `--jsonl` | - |
//! | `-R`, `--explain` | without `--jsonl` | without `--jsonl` | without `--jsonl` | `-R` without `--jsonl` |
//! | `-o` | without `--jsonl`, `--diff` | without `--jsonl`, `--diff` | without `--jsonl`, `--diff` | no: findings are lines |
//! | `--max-line-bytes`, `--jobs` | with `--jsonl` | with `--jsonl` | with `--jsonl` | with `--jsonl` |

use crate::args::PatchType;
use crate::invocation::Invocation;
use crate::op::Op;
use smp_core::directive::PATCH_MERGE_KEY;

/// Fails naming the first flag given that does not apply, and why.
pub fn refuse_what_does_not_apply(run: &Invocation) -> Result<(), String> {
    let schema = &run.common.schema;
    let patch_type = schema.effective_type();
    let type_name = match patch_type {
        PatchType::Strategic => "strategic",
        PatchType::Merge => "merge",
        PatchType::Json => "json",
    };
    let strategic = patch_type == PatchType::Strategic;
    let jsonl = run.common.jsonl.is_some();
    let schema_used = strategic || run.op == Op::Check || run.ext.strict;
    let rules: [(bool, &str, String); 16] = [
        (
            run.op == Op::Check && schema.requested_type.is_some_and(|t| t != PatchType::Strategic),
            "--type",
            "check finds the lists whose elements share their merge key, which only strategic merge patches have"
                .into(),
        ),
        (
            run.op == Op::ThreeWay && patch_type == PatchType::Json,
            "--type json",
            "three-way: a JSON patch has no three-way form; kubectl apply sends --type merge for kinds without \
             patch metadata"
                .into(),
        ),
        (
            !schema_used && schema.kind.is_some(),
            "--kind",
            format!("a {type_name} patch takes no schema (--strict reads one)"),
        ),
        (
            !schema_used && schema.definition.is_some(),
            "--definition",
            format!("a {type_name} patch takes no schema (--strict reads one)"),
        ),
        (
            !schema_used && schema.crd_version.is_some(),
            "--version",
            format!("a {type_name} patch takes no schema (--strict reads one)"),
        ),
        (
            run.ext.patch_merge_key && !strategic,
            "--patch-merge-key",
            format!("{PATCH_MERGE_KEY} is a strategic merge patch directive, not of a {type_name} patch"),
        ),
        (run.ext.strict && schema.untyped, "--strict", "with --untyped no field is known to be unknown".into()),
        (
            run.ext.checked && !strategic,
            "--checked",
            format!("a {type_name} patch always turns the original into the modified object"),
        ),
        (
            run.overwrite && patch_type == PatchType::Merge,
            "--overwrite",
            "three-way --type merge has no conflict check (as kubectl apply on this route)".into(),
        ),
        (
            jsonl && run.op != Op::Check && run.exit_code,
            "--exit-code",
            "with --jsonl each answer line holds its patch, and the exit status says whether the batch ran".into(),
        ),
        (jsonl && run.files.recursive, "-R", "--jsonl reads its documents from the case lines".into()),
        (jsonl && run.files.explain, "--explain", "--jsonl answers with results only".into()),
        (jsonl && run.common.output.is_some(), "-o", "--jsonl answers in JSON lines".into()),
        (
            !jsonl && run.common.output.is_some() && (run.op == Op::Check || run.files.diff),
            "-o",
            if run.files.diff { "--diff prints a unified diff" } else { "check prints its findings as lines" }.into(),
        ),
        (!jsonl && run.common.max_line_bytes.is_some(), "--max-line-bytes", "it sizes --jsonl's lines".into()),
        (!jsonl && run.common.jobs.is_some(), "--jobs", "it runs --jsonl's cases at once".into()),
    ];
    match rules.into_iter().find(|(applies, ..)| *applies) {
        Some((_, flag, why)) => Err(format!("{flag} does not apply here: {why}")),
        None => Ok(()),
    }
}
