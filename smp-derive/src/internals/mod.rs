//! The attribute model: what a type's patch behaviour is, read from
//! `#[patch(...)]` and serde's attributes, and checked. No code generation
//! here.

pub mod attr;
pub mod check;
pub mod directives;
pub mod model;
pub mod strategy;

use attr::Errors;
use model::Container;
use serde_derive_internals::Ctxt;
use syn::DeriveInput;

/// Builds the model, and checks it: the errors of our own attributes.
pub fn from_input(input: &DeriveInput, engine: crate::engine_path::Engine) -> (Container, Result<(), syn::Error>) {
    let mut errors = Errors::default();
    let cx = Ctxt::new();
    let (container, parsed) = model::build(input, &cx, engine, &mut errors);
    check::check(input, parsed.as_ref(), &container, &mut errors);
    // serde reports its own attribute errors; ours are independent.
    let _ = cx.check();
    (container, errors.check())
}
