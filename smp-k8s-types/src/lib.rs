//! Kubernetes entry point of smp.
