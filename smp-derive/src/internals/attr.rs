//! Parsing `#[patch(...)]` attributes, with every error at its token.

use super::strategy::Strategy;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Path};

/// A value read from an attribute, with the span of the token that gave it.
#[derive(Clone, Copy)]
pub struct Attr<T> {
    pub value: T,
    pub span: Span,
}

/// `#[patch(...)]` on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub strategy: Option<Attr<Strategy>>,
    pub merge_key: Option<LitStr>,
    pub with: Option<Path>,
    /// `scalar` or `json`: the shorthand for a `with` of smp-core's own
    /// schemas (`typed::shapes::scalar`, `typed::shapes::json`).
    pub shape: Option<syn::Ident>,
    /// Some of them were refused: checks that build on them are skipped.
    pub refused: bool,
}

/// `#[patch(...)]` on a struct or enum.
#[derive(Default)]
pub struct ContainerAttrs {
    pub krate: Option<Path>,
}

/// Collects errors so that each mistake is reported once, at its token.
/// It must be consumed by [`Errors::check`]: dropping it unchecked is a
/// bug of the derive (errors would be lost), and panics.
#[derive(Default)]
pub struct Errors {
    errors: Option<syn::Error>,
    count: usize,
    checked: bool,
}

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        self.count += 1;
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    pub fn at(&mut self, span: impl Spanned, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span.span(), msg));
    }

    /// The errors collected, all combined.
    pub fn check(mut self) -> Result<(), syn::Error> {
        self.checked = true;
        self.errors.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.checked && !std::thread::panicking() {
            panic!("the derive dropped its errors without checking them");
        }
    }
}

fn set_once<T>(slot: &mut Option<T>, value: T, name: &str, span: proc_macro2::Span, errors: &mut Errors) {
    if slot.is_some() {
        errors.push(syn::Error::new(span, format!("duplicate `{name}` attribute")));
    } else {
        *slot = Some(value);
    }
}

pub fn container_attrs(attrs: &[Attribute], errors: &mut Errors) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("patch")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit = string_value(&meta)?;
                match lit.parse::<Path>() {
                    Ok(path) => set_once(&mut out.krate, path, "crate", meta.path.span(), errors),
                    Err(_) => errors.at(&lit, "`crate` must be a path, like \"::my::reexport::smp_core\""),
                }
                Ok(())
            } else {
                let name = meta.path.get_ident().map_or_else(|| "?".to_string(), |i| i.to_string());
                errors.at(&meta.path, format!("unknown container attribute `{name}`; expected `crate`"));
                skip_value(&meta)
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

pub fn field_attrs(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
    let before = errors.count;
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("patch")) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            if meta.path.is_ident("strategy") {
                let lit = string_value(&meta)?;
                match Strategy::parse(&lit.value()) {
                    Ok(value) => {
                        set_once(&mut out.strategy, Attr { value, span: lit.span() }, "strategy", span, errors)
                    }
                    Err(message) => errors.at(&lit, message),
                }
            } else if meta.path.is_ident("merge_key") {
                let lit = string_value(&meta)?;
                match merge_key_fields(&lit.value()) {
                    Ok(_) => set_once(&mut out.merge_key, lit, "merge_key", span, errors),
                    Err(message) => errors.at(&lit, message),
                }
            } else if meta.path.is_ident("with") {
                let lit = string_value(&meta)?;
                match lit.parse::<Path>() {
                    Ok(path) => set_once(&mut out.with, path, "with", span, errors),
                    Err(_) => errors.at(&lit, "`with` must be a path to a module or type providing `shape()`"),
                }
            } else if meta.path.is_ident("scalar") || meta.path.is_ident("json") {
                let ident = meta.path.get_ident().cloned().expect("checked above");
                if meta.input.peek(syn::Token![=]) {
                    errors.at(&meta.path, format!("`{ident}` takes no value: `#[patch({ident})]`"));
                    skip_value(&meta)?;
                }
                set_once(&mut out.shape, ident, "scalar` or `json", span, errors);
            } else {
                let name = meta.path.get_ident().map_or_else(|| "?".to_string(), |i| i.to_string());
                errors.at(
                    &meta.path,
                    format!(
                        "unknown patch attribute `{name}`; expected `strategy`, `merge_key`, `with`, `scalar` or `json`"
                    ),
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    if let (Some(_), Some(shape)) = (&out.with, &out.shape) {
        errors.at(shape, format!("`{shape}` and `with` both give the field's schema; keep one"));
    }
    out.refused = errors.count > before;
    out
}

/// The fields of a `merge_key`: one field, or several separated by commas
/// (the recommended merge keys, the first being the default key the
/// reference merges by).
pub fn merge_key_fields(text: &str) -> Result<Vec<&str>, String> {
    if text.is_empty() {
        return Err("`merge_key` must name a field of the list's elements".into());
    }
    let fields: Vec<&str> = text.split(',').collect();
    if fields.iter().any(|f| f.is_empty() || f.trim() != *f) {
        return Err("`merge_key` names fields separated by commas, without spaces: \"port,protocol\"".into());
    }
    if let Some(f) = fields.iter().enumerate().find_map(|(i, f)| fields[..i].contains(f).then_some(f)) {
        return Err(format!("`merge_key` names `{f}` twice"));
    }
    Ok(fields)
}

/// The string after `key =`; a key without a value is reported at the key.
fn string_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    if !meta.input.peek(syn::Token![=]) {
        let name = meta.path.get_ident().map_or_else(|| "?".to_string(), |i| i.to_string());
        return Err(meta.error(format!("expected a value: `{name} = \"...\"`")));
    }
    meta.value()?.parse()
}

/// Consumes `= value` after an unknown key so parsing goes on.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let value = meta.value()?;
        while !value.is_empty() && !value.peek(syn::Token![,]) {
            value.parse::<proc_macro2::TokenTree>()?;
        }
    }
    Ok(())
}
