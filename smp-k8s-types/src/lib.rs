//! Kubernetes entry point of smp.
//!
//! With the `cli` feature the crate also builds `smp`, the command-line
//! tool: `smp apply|diff|three-way`, with schemas from OpenAPI documents
//! and a `--jsonl` batch mode.

pub mod kubectl;
