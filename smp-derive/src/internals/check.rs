//! The validation pass: attributes that parse, but that together would
//! fail or be ignored at run time. Each mistake is reported at its token.
//! [`check`] runs every check; each is a function named for the rule it
//! holds.
//!
//! What needs the field types (is this a list? is the merge key a scalar
//! that every element has?) cannot be known from tokens: those checks are
//! generated assertions (`crate::assertions`), checked by the compiler.

use super::attr::Errors;
use super::model::{Body, Container, Field};
use serde_derive_internals::ast;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr};

/// A struct walked field by field is reached at its fields' places, which
/// must be aligned: not a packed struct.
fn fields_are_aligned(input: &DeriveInput, errors: &mut Errors) {
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("packed") {
                errors.at(
                    &meta.path,
                    "`StrategicMerge` reaches the fields of a struct in place, so it cannot be derived for a packed \
                     struct; remove `packed`, or mark the fields that hold this struct `#[patch(json)]`",
                );
            }
            // `packed(N)`, `align(N)`: the value is not read.
            if meta.input.peek(syn::token::Paren) {
                let _ = meta.input.parse::<proc_macro2::Group>();
            }
            Ok(())
        });
    }
}

/// Every check of the derive input, its serde reading (`None` where serde
/// could not read it) and the model built from them.
pub fn check(input: &DeriveInput, serde: Option<&ast::Container<'_>>, container: &Container, errors: &mut Errors) {
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
    if matches!(container.body, Body::Fields(_)) {
        fields_are_aligned(input, errors);
    }
    let serde_fields = match serde.map(|s| &s.data) {
        Some(ast::Data::Struct(ast::Style::Struct, fields)) => &fields[..],
        _ => &[],
    };
    // The struct's fields, patched one by one or through the JSON engine.
    let (Body::Fields(fields) | Body::JsonStruct(fields)) = &container.body else { return };
    skipped_fields_are_never_patched(serde_fields, errors);
    for field in fields {
        flattened_fields_take_no_strategy(field, errors);
    }
    names_are_written_once(serde_fields, errors);
    names_are_not_directives(serde_fields, errors);
    for field in fields.iter().filter(|f| !f.refused) {
        merge_key_needs_merge(field, errors);
    }
}

/// A field serde skips is never in a patch: `#[patch]` on it is never read.
fn skipped_fields_are_never_patched(fields: &[ast::Field<'_>], errors: &mut Errors) {
    for f in fields.iter().filter(|f| f.attrs.skip_serializing()) {
        if let Some(patch) = f.original.attrs.iter().map(|a| a.path()).find(|p| p.is_ident("patch")) {
            errors.at(patch, "this field is skipped by serde, so it is never in a patch");
        }
    }
}

/// A flattened field's keys sit in the struct's own object: its strategy
/// and merge key are never read (its schema, `with`, `scalar`, `json`, is:
/// the engine looks its keys up there).
fn flattened_fields_take_no_strategy(field: &Field, errors: &mut Errors) {
    if !field.flatten {
        return;
    }
    let unread = field.strategy.map(|s| s.span).or_else(|| field.merge_key.as_ref().map(LitStr::span));
    if let Some(span) = unread {
        errors.push(syn::Error::new(
            span,
            "a flattened field's strategy and merge key are never read: its keys sit in this struct's object; put \
             them on the flattened type's fields",
        ));
    }
}

/// Two fields written under one name: serde writes the key twice, and
/// cannot read the value back.
fn names_are_written_once(fields: &[ast::Field<'_>], errors: &mut Errors) {
    let mut written: Vec<&str> = Vec::new();
    for f in fields.iter().filter(|f| !f.attrs.skip_serializing()) {
        let name = f.attrs.name().serialize_name();
        if !f.attrs.flatten() && written.contains(&name.value.as_str()) {
            errors.push(syn::Error::new(
                name.span,
                format!(
                    "another field is written as `{}` too: serde writes the key twice, and cannot read the value \
                     back",
                    name.value
                ),
            ));
        }
        written.push(&name.value);
    }
}

/// A field cannot take the name of a directive
/// ([`is_reserved`](super::directives::is_reserved)).
fn names_are_not_directives(fields: &[ast::Field<'_>], errors: &mut Errors) {
    for f in fields.iter().filter(|f| !f.attrs.skip_serializing()) {
        let name = f.attrs.name().serialize_name();
        if super::directives::is_reserved(&name.value) {
            errors.push(syn::Error::new(
                name.span,
                format!(
                    "`{}` is a directive of strategic merge patch, not a field a patch can set: give the field \
                     another JSON name",
                    name.value
                ),
            ));
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
