//! The JSON engine against the reference's own cases and its invariants,
//! in one test binary.
//!
//! - [`conformance`]: the reference's test vectors (`../shared/conformance`);
//! - [`fixtures`]: the project's recorded cases;
//! - [`properties`]: invariants such as `apply(a, diff(a, b)) == b`;
//! - [`bytes_entry_points`]: the byte-slice entry points against the
//!   `Value` ones;
//! - [`bench_cases`]: the benchmark inputs' results against the reference's.

mod bench_cases;
mod bytes_entry_points;
mod conformance;
mod fixtures;
mod properties;
