//! The three operations, shared by the single-case and batch modes.

use crate::args::PatchType;
use serde_json::Value;
use smp_core::{ApplyOptions, DiffOptions, ErrorKind, Schema, ThreeWayOptions, json_patch, merge_patch};

/// What a command computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Apply,
    Diff,
    ThreeWay,
    /// Duplicate merge keys in one object.
    Check,
}

/// smp's opt-in extensions, all off by default (the reference).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// `--patch-merge-key`: the `$patchMergeKey` directive.
    pub patch_merge_key: bool,
    /// `--strict` (apply): unknown fields are errors.
    pub strict: bool,
    /// `--checked` (diff): the patch is verified.
    pub checked: bool,
}

impl Extensions {
    /// The options of a strategic apply.
    pub fn apply(self) -> ApplyOptions {
        ApplyOptions { patch_merge_key: self.patch_merge_key, strict: self.strict }
    }
}

impl Op {
    /// The names of the documents the operation takes, in command-line
    /// order; they are also the field names of a batch line.
    pub fn inputs(self) -> &'static [&'static str] {
        match self {
            Op::Apply => &["original", "patch"],
            Op::Diff => &["original", "modified"],
            Op::ThreeWay => &["original", "modified", "current"],
            Op::Check => &["object"],
        }
    }

    /// The field that holds the answer in a batch output line.
    pub fn output_key(self) -> &'static str {
        match self {
            Op::Apply => "result",
            Op::Diff | Op::ThreeWay => "patch",
            Op::Check => "findings",
        }
    }

    /// Runs the operation on `docs`, given in the order of [`Op::inputs`],
    /// with patches of the given type (the schema serves `strategic` only).
    pub fn run(
        self,
        docs: &[Value],
        overwrite: bool,
        schema: Schema<'_>,
        patch_type: PatchType,
        ext: Extensions,
    ) -> smp_core::Result<Value> {
        match (self, docs, patch_type) {
            (Op::Apply, [original, patch], _) => {
                let decorated;
                let patch = if patch_type == PatchType::Strategic && ext.patch_merge_key {
                    decorated = crate::key_directives::add(patch, schema);
                    &decorated
                } else {
                    patch
                };
                let result = apply_as(patch_type, original, patch, schema, ext.apply())?;
                if ext.strict && patch_type != PatchType::Strategic {
                    crate::added_fields::check(original, &result, schema)?;
                }
                kind_kept(has_kind(original), &result)?;
                Ok(result)
            }
            (Op::Diff, [original, modified], PatchType::Strategic) => {
                let options =
                    DiffOptions { set_element_order: true, patch_merge_key: ext.patch_merge_key, ..Default::default() };
                if ext.checked {
                    smp_core::diff_checked(original, modified, schema, options)
                } else {
                    smp_core::diff_with(original, modified, schema, options)
                }
            }
            (Op::Diff, [original, modified], PatchType::Merge) => merge_patch::create(original, modified),
            (Op::Diff, [original, modified], PatchType::Json) => {
                smp_core::unstable::to_value(&json_patch::diff(original, modified)?)
            }
            (Op::ThreeWay, [original, modified, current], PatchType::Strategic) => {
                let options = ThreeWayOptions { overwrite, preconditions: &[], patch_merge_key: ext.patch_merge_key };
                smp_core::three_way(original, modified, current, schema, options)
            }
            (Op::ThreeWay, [original, modified, current], PatchType::Merge) => {
                // kubectl apply's preconditions on this route: apiVersion,
                // kind and metadata.name unchanged.
                merge_patch::three_way(original, modified, current, &smp_core::Precondition::KUBECTL)
            }
            (Op::ThreeWay, _, PatchType::Json) => Err(ErrorKind::Unsupported(
                "a JSON patch (--type json) has no three-way form; kubectl apply sends --type merge for kinds without patch metadata".into(),
            )
            .into()),
            (Op::Check, [object], _) => {
                let findings = smp_core::check(object, schema)?;
                let entry = |f: &smp_core::Finding| {
                    serde_json::json!({"path": f.path.to_string(), "message": f.to_string()})
                };
                Ok(Value::Array(findings.iter().map(entry).collect()))
            }
            _ => unreachable!("{self:?} takes {} documents, got {}", self.inputs().len(), docs.len()),
        }
    }
}

impl Op {
    /// [`Op::run`] on documents given away: an apply takes the original
    /// over as its result instead of copying it.
    pub fn run_owned(
        self,
        mut docs: Vec<Value>,
        overwrite: bool,
        schema: Schema<'_>,
        patch_type: PatchType,
        ext: Extensions,
    ) -> smp_core::Result<Value> {
        match (self, patch_type, docs.len()) {
            (Op::Apply, PatchType::Strategic, 2) if !ext.patch_merge_key => {
                let patch = docs.pop().expect("two documents");
                let original = docs.pop().expect("two documents");
                let had_kind = has_kind(&original);
                let result = smp_core::apply_owned(original, &patch, schema, ext.apply())?;
                kind_kept(had_kind, &result)?;
                Ok(result)
            }
            _ => self.run(&docs, overwrite, schema, patch_type, ext),
        }
    }
}

/// `patch` applied to `original` as a patch of the given type.
pub fn apply_as(
    patch_type: PatchType,
    original: &Value,
    patch: &Value,
    schema: Schema<'_>,
    options: ApplyOptions,
) -> smp_core::Result<Value> {
    match patch_type {
        PatchType::Strategic => smp_core::apply_with(original, patch, schema, options),
        PatchType::Merge => merge_patch::apply(original, patch),
        PatchType::Json => json_patch::apply_ops(original, patch),
    }
}

/// Whether an object has a kind, as kubectl reads objects: a non-empty string.
pub fn has_kind(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str).is_some_and(|kind| !kind.is_empty())
}

/// kubectl reads the result of a patch back as an object, which needs a
/// kind: a patch that removes the original's kind (`{"kind": null}`,
/// `{"$patch": "replace"}`, a `$retainKeys` without it) fails there, with
/// this message. A document without a kind to begin with, which smp reads
/// and kubectl refuses, is left alone.
pub fn kind_kept(had_kind: bool, result: &Value) -> smp_core::Result<()> {
    if !had_kind || has_kind(result) {
        return Ok(());
    }
    let text = smp_core::unstable::to_json_vec(result)?;
    let message = format!("Object 'Kind' is missing in '{}'", String::from_utf8_lossy(&text));
    Err(ErrorKind::Unsupported(message).into())
}
