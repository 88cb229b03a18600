//! The validation pass: attributes that parse, but that together would
//! fail or be ignored at run time. Each mistake is reported at its token.
//!
//! What needs the field types (is this a list? is the merge key a scalar
//! that every element has?) cannot be known from tokens: those checks are
//! generated assertions (`crate::assertions`), checked by the compiler.

use super::attr::Errors;
use super::model::{Body, Container, Field};
use syn::{Attribute, Data, DeriveInput, Fields};

pub fn check(input: &DeriveInput, container: &Container, errors: &mut Errors) {
    if matches!(container.body, Body::Transparent(_))
        && let Data::Struct(s) = &input.data
        && matches!(s.fields, Fields::Named(_))
    {
        // serde writes the struct as its one field: no field is patched
        // one by one.
        for f in &s.fields {
            for attr in f.attrs.iter().filter(|a| a.path().is_ident("patch")) {
                errors.at(
                    attr.path(),
                    "`#[patch]` is never read on the fields of a transparent struct: it is patched as its one \
                     field's type; put the attribute on the field that holds this struct",
                );
            }
        }
        return;
    }
    if matches!(container.body, Body::Into(_))
        && let Data::Struct(s) = &input.data
    {
        // serde writes the struct as another type: that type's fields are
        // patched, with that type's attributes.
        for f in &s.fields {
            for attr in f.attrs.iter().filter(|a| a.path().is_ident("patch")) {
                errors.at(
                    attr.path(),
                    "`#[patch]` is never read on the fields of a struct that serde writes `into` another type: it is \
                     patched as that type; put the attribute on that type's field",
                );
            }
        }
        return;
    }
    unread_attributes(input, errors);
    if let Body::Fields(fields) | Body::JsonStruct(fields) = &container.body {
        for field in fields.iter().filter(|f| !f.refused) {
            merge_key_needs_merge(field, errors);
        }
    }
}

/// `#[patch]` is read on the named fields of structs only: anywhere else
/// it would be silently ignored.
fn unread_attributes(input: &DeriveInput, errors: &mut Errors) {
    let mut refuse = |attrs: &[Attribute], message: &str| {
        for attr in attrs.iter().filter(|a| a.path().is_ident("patch")) {
            errors.at(attr.path(), message);
        }
    };
    match &input.data {
        Data::Struct(s) if matches!(s.fields, Fields::Named(_)) => {}
        Data::Struct(s) => {
            for f in &s.fields {
                refuse(
                    &f.attrs,
                    "`#[patch]` is never read on the fields of a tuple struct: only named fields are patched one by one",
                );
            }
        }
        Data::Enum(e) => {
            let message = "`#[patch]` is never read on enum variants or their fields: only the named fields of a \
                           struct are patched one by one";
            for v in &e.variants {
                refuse(&v.attrs, message);
                for f in &v.fields {
                    refuse(&f.attrs, message);
                }
            }
        }
        Data::Union(u) => {
            for f in &u.fields.named {
                refuse(&f.attrs, "`#[patch]` is never read on the fields of a union");
            }
        }
    }
}

/// A merge key is only read when the list is merged.
fn merge_key_needs_merge(field: &Field, errors: &mut Errors) {
    let Some(key) = &field.merge_key else { return };
    match field.strategy {
        None => errors.at(
            key,
            "`merge_key` needs `strategy = \"merge\"`: without it the list is replaced whole and its merge key is \
             never read",
        ),
        Some(s) if !s.value.merges() => errors.at(
            key,
            format!(
                "`merge_key` needs `strategy = \"merge\"`: with `strategy = \"{}\"` the list is replaced whole and \
                 its merge key is never read",
                s.value.as_str()
            ),
        ),
        Some(_) => {}
    }
}
