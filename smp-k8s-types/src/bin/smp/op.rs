//! The three operations, shared by the single-case and batch modes.

use serde_json::Value;
use smp_core::{Schema, ThreeWayOptions};

/// What a command computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Apply,
    Diff,
    ThreeWay,
}

impl Op {
    /// The names of the documents the operation takes, in command-line
    /// order; they are also the field names of a batch line.
    pub fn inputs(self) -> &'static [&'static str] {
        match self {
            Op::Apply => &["original", "patch"],
            Op::Diff => &["original", "modified"],
            Op::ThreeWay => &["original", "modified", "current"],
        }
    }

    /// The field that holds the answer in a batch output line.
    pub fn output_key(self) -> &'static str {
        match self {
            Op::Apply => "result",
            Op::Diff | Op::ThreeWay => "patch",
        }
    }

    /// Runs the operation on `docs`, given in the order of [`Op::inputs`].
    pub fn run(self, docs: &[Value], overwrite: bool, schema: Schema<'_>) -> smp_core::Result<Value> {
        match (self, docs) {
            (Op::Apply, [original, patch]) => smp_core::apply(original, patch, schema),
            (Op::Diff, [original, modified]) => smp_core::diff(original, modified, schema),
            (Op::ThreeWay, [original, modified, current]) => {
                let options = ThreeWayOptions { overwrite, preconditions: &[] };
                smp_core::three_way(original, modified, current, schema, options)
            }
            _ => unreachable!("{self:?} takes {} documents, got {}", self.inputs().len(), docs.len()),
        }
    }
}
