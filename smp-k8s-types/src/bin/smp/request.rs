//! What one run reads and how it answers, as the command line asked:
//! run by `single.rs`, or by `compact_route.rs` when its fast path can.

use crate::args::{Format, PatchType, Source};
use crate::documents::Objects;
use crate::op::{Extensions, Op};

/// What to read and how to answer.
pub struct Request<'a> {
    pub op: Op,
    /// The files, in the order of [`Op::inputs`] (with `from_annotation`,
    /// without the first).
    pub inputs: Vec<&'a Source>,
    /// apply's `-p` text.
    pub inline_patch: Option<&'a str>,
    pub overwrite: bool,
    pub from_annotation: bool,
    pub recursive: bool,
    pub explain: bool,
    pub diff: bool,
    pub format: Format,
    pub exit_code: bool,
    /// `--type`.
    pub patch_type: PatchType,
    /// `--patch-merge-key`, `--strict`, `--checked`.
    pub ext: Extensions,
    /// Kubernetes objects, or any documents (`--untyped`, `--openapi`).
    pub objects: Objects,
}
