//! Server-side apply (`smp_core::ssa`) against the reference, in one test
//! binary.
//!
//! - [`fixtures`]: the Go field manager's answers to recorded histories of
//!   built-in kinds and a custom resource;
//! - [`reference_cases`]: structured-merge-diff's and apimachinery's own
//!   test cases, recorded from the Go code;
//! - [`differential`]: random histories against `smpgo`, live (skipped
//!   loudly without it).

mod differential;
mod fixtures;
mod reference_cases;
