//! The typed layer (`#[derive(StrategicMerge)]` and the k8s-openapi
//! walkers) against the JSON engine, in one test binary.
//!
//! One oracle ([`oracle`]): every typed operation (`diff`, `apply`,
//! `apply_in_place`, `three_way`, errors included) equals serialising the
//! values, running the JSON engine with the type's schema, and reading the
//! result back; patches are compared as the bytes a server receives.
//!
//! - [`equivalence`]: a resource-like family of types with generated
//!   values and edited patches;
//! - [`zoo_serde`]: serde's attributes and shapes, one type each;
//! - [`zoo_spec_shapes`]: what an operator author writes in a custom
//!   resource's spec (enums holding lists, `flatten`, containers written
//!   as another type, deep keyed lists);
//! - [`zoo_names_and_defaults`]: names serde writes and reads differently,
//!   defaults, odd field names and keys, recursion through maps and enums.

mod equivalence;
mod oracle;
mod zoo_names_and_defaults;
mod zoo_serde;
mod zoo_spec_shapes;
