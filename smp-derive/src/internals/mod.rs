//! The attribute model: what a type's patch behaviour is, read from
//! `#[patch(...)]` and serde's attributes, and checked. No code generation
//! here.

pub mod attr;
pub mod check;
pub mod directives;
pub mod model;
pub mod strategy;
