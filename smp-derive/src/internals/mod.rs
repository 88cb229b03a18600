//! The attribute model: what a type's patch behaviour is, read from
//! `#[patch(...)]` and serde's attributes. No code generation here.

pub mod attr;
pub mod model;
