//! Helpers shared by the workspace-level tests.

pub mod conformance;
pub mod custom_resource_gen;
pub mod guide;
// `gen` is a reserved word in edition 2024; the generator is also exported
// at the crate root.
pub mod r#gen;
pub mod harness;
pub mod json_cmp;
pub mod k8s_kinds;
pub mod k8s_schema;
pub mod kubectl;
pub mod long_text;
pub mod merge_item;
pub mod odd_shapes;
pub mod openapi_gen;
pub mod patch_oracle;
pub mod pod_env;
pub mod rng;
pub mod scale;
pub mod schema_tables;
pub mod smpgo;
pub mod ssa_fixture;
pub mod ssa_gen;

pub use r#gen::{Gen, Kind};
