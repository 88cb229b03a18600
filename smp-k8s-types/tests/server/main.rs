//! The test API server (`server` module, feature `server`) end to end, in
//! one test binary.
//!
//! - [`kube_client`]: in process, with kube's client: every verb, the
//!   patch types, watches, a controller, injected faults, concurrent
//!   writers;
//! - [`kubectl`] (with the `cli` feature too): kubectl against `smp serve`
//!   on a loopback port, its patches compared with the Go reference's and
//!   smp's; without kubectl it says so and skips.

mod kube_client;
#[cfg(feature = "cli")]
mod kubectl;
