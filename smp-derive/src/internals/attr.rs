//! Parsing `#[patch(...)]` attributes, with every error at its token.

use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Path};

/// The patch strategies a field may declare.
const STRATEGIES: &[&str] = &["merge", "replace", "retainKeys", "merge,retainKeys", "retainKeys,merge"];

/// `#[patch(...)]` on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub strategy: Option<LitStr>,
    pub merge_key: Option<LitStr>,
    pub with: Option<Path>,
    /// `scalar` or `json`: the shorthand for a `with` of smp-core's own
    /// schemas (`typed::shapes::scalar`, `typed::shapes::json`).
    pub shape: Option<syn::Ident>,
}

/// `#[patch(...)]` on a struct or enum.
#[derive(Default)]
pub struct ContainerAttrs {
    pub krate: Option<Path>,
}

/// Collects errors so that each mistake is reported once, at its token.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub fn at(&mut self, span: impl Spanned, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span.span(), msg));
    }

    pub fn into_result(self) -> Result<(), syn::Error> {
        self.0.map_or(Ok(()), Err)
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
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("patch")) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            if meta.path.is_ident("strategy") {
                let lit = string_value(&meta)?;
                if STRATEGIES.contains(&lit.value().as_str()) {
                    set_once(&mut out.strategy, lit, "strategy", span, errors);
                } else {
                    errors.at(
                        &lit,
                        format!(
                            "unknown strategy \"{}\"; expected \"merge\", \"replace\", \"retainKeys\" or \"merge,retainKeys\"",
                            lit.value()
                        ),
                    );
                }
            } else if meta.path.is_ident("merge_key") {
                let lit = string_value(&meta)?;
                if lit.value().is_empty() {
                    errors.at(&lit, "`merge_key` must name a field of the list's elements");
                } else if lit.value().contains(',') {
                    errors.at(&lit, "multi-field merge keys are not supported; name one field");
                } else {
                    set_once(&mut out.merge_key, lit, "merge_key", span, errors);
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
                    format!("unknown patch attribute `{name}`; expected `strategy`, `merge_key`, `with`, `scalar` or `json`"),
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
    out
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
        let _: syn::Expr = meta.value()?.parse()?;
    }
    Ok(())
}
