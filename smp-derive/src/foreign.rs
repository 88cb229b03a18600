//! The second front end: implementations for types defined elsewhere
//! (k8s-openapi's), described field by field by a generator, and expanded
//! by the same code generation as the derive.
//!
//! ```text
//! krate = crate;
//! k8s_openapi::api::core::v1::ContainerPort as "ContainerPort" {
//!     container_port: i32 = "containerPort";
//!     host_ip: Option<String> = "hostIP" optional;
//! }
//! k8s_openapi::api::core::v1::Pod as "Pod" {
//!     const "apiVersion" = <Self as k8s_openapi::Resource>::API_VERSION;
//!     const "kind" = <Self as k8s_openapi::Resource>::KIND;
//!     spec: Option<k8s_openapi::api::core::v1::PodSpec> = "spec" optional;
//! }
//! k8s_openapi::apimachinery::pkg::api::resource::Quantity as "Quantity" = scalar;
//! ```
//!
//! A constant key holds the same string in every value (`Self` is the
//! type). Field options: `optional` (absent when `None`; otherwise always
//! written, and `Default::default()` when missing), `required` (always
//! written, and an error when missing), `strategy = "..."`,
//! `merge_key = "..."`, and `from 1.NN` / `until 1.NN`: the field exists
//! from or until that Kubernetes version. A type with such fields is
//! implemented once per run of versions with the same fields, each under
//! the version gates (`k8s_if_ge_1_NN!`, `k8s_if_le_1_NN!`) of the crate
//! named by `gates = path;`.

use crate::internals::attr::Attr;
use crate::internals::model::{Body, Container, Field, Missing, Reader};
use crate::internals::strategy::Strategy;
use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Member, Path, Token, Type, braced};

pub struct ForeignImpls {
    /// The crate whose `k8s_if_ge_1_NN!` and `k8s_if_le_1_NN!` gate fields.
    gates: Option<Path>,
    containers: Vec<(Container, Vec<Since>)>,
}

/// The Kubernetes minor versions that have a field: `first..=last`, open
/// where `None`.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Since {
    first: Option<u32>,
    last: Option<u32>,
}

impl Since {
    fn has(&self, minor: u32) -> bool {
        self.first.is_none_or(|f| minor >= f) && self.last.is_none_or(|l| minor <= l)
    }
}

impl ForeignImpls {
    pub fn expand(&self) -> TokenStream {
        self.containers.iter().map(|(c, since)| self.expand_one(c, since)).collect()
    }

    /// The implementation of one type, once per run of versions in which
    /// its fields are the same.
    fn expand_one(&self, c: &Container, since: &[Since]) -> TokenStream {
        if since.iter().all(|s| *s == Since::default()) {
            return crate::expand::implementation(c);
        }
        let Some(gates) = &self.gates else {
            return syn::Error::new(proc_macro2::Span::call_site(), "`from`/`until` need `gates = path;`")
                .to_compile_error();
        };
        // Runs start at version 0 and at each version where a field
        // appears or disappears.
        let mut starts: Vec<u32> = since.iter().flat_map(|s| [s.first, s.last.map(|l| l + 1)]).flatten().collect();
        starts.push(0);
        starts.sort_unstable();
        starts.dedup();
        let mut out = TokenStream::new();
        for (i, &first) in starts.iter().enumerate() {
            let last = starts.get(i + 1).map(|next| next - 1);
            let mut run = c.clone();
            if let Body::Fields(fields) = &mut run.body {
                let mut kept = since.iter();
                fields.retain(|_| kept.next().is_some_and(|s| s.has(first)));
            }
            let mut imp = crate::expand::implementation(&with_reader(run));
            if let Some(last) = last {
                let le = quote::format_ident!("k8s_if_le_1_{}", last);
                imp = quote::quote!(#gates::#le! { #imp });
            }
            if first > 0 {
                let ge = quote::format_ident!("k8s_if_ge_1_{}", first);
                imp = quote::quote!(#gates::#ge! { #imp });
            }
            out.extend(imp);
        }
        out
    }
}

/// The reader of a k8s-openapi struct: k8s-openapi's serde code, read
/// through the table, when the struct has `Default` (no required field);
/// else serde's own.
fn with_reader(mut c: Container) -> Container {
    let required = |f: &Field| matches!(f.missing, Missing::Type) && f.skip_if.is_none();
    c.reader = match &c.body {
        Body::Fields(fields) if !fields.iter().any(required) => Reader::LikeK8sOpenApi,
        _ => Reader::Serde,
    };
    c
}

mod kw {
    syn::custom_keyword!(krate);
    syn::custom_keyword!(optional);
    syn::custom_keyword!(required);
    syn::custom_keyword!(strategy);
    syn::custom_keyword!(merge_key);
    syn::custom_keyword!(scalar);
    syn::custom_keyword!(any);
    syn::custom_keyword!(gates);
    syn::custom_keyword!(from);
    syn::custom_keyword!(until);
}

impl Parse for ForeignImpls {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        input.parse::<kw::krate>()?;
        input.parse::<Token![=]>()?;
        let krate: Path = input.parse()?;
        input.parse::<Token![;]>()?;
        let mut gates = None;
        if input.peek(kw::gates) {
            input.parse::<kw::gates>()?;
            input.parse::<Token![=]>()?;
            gates = Some(input.parse::<Path>()?);
            input.parse::<Token![;]>()?;
        }
        let mut containers = Vec::new();
        while !input.is_empty() {
            containers.push(parse_container(input, &krate)?);
        }
        Ok(ForeignImpls { gates, containers })
    }
}

fn parse_container(input: ParseStream<'_>, krate: &Path) -> syn::Result<(Container, Vec<Since>)> {
    let path: Path = input.parse()?;
    input.parse::<Token![as]>()?;
    let name: LitStr = input.parse()?;
    let ident = path.segments.last().map(|s| s.ident.clone()).expect("a path has a last segment");
    let mut constants = Vec::new();
    let mut since = Vec::new();
    let body = if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        let look = input.lookahead1();
        let body = if look.peek(kw::scalar) {
            input.parse::<kw::scalar>()?;
            Body::Scalar
        } else if look.peek(kw::any) {
            input.parse::<kw::any>()?;
            Body::Any
        } else {
            return Err(look.error());
        };
        input.parse::<Token![;]>()?;
        body
    } else {
        let content;
        braced!(content in input);
        let mut fields = Vec::new();
        while !content.is_empty() {
            if content.peek(Token![const]) {
                content.parse::<Token![const]>()?;
                let json = content.parse::<LitStr>()?.value();
                content.parse::<Token![=]>()?;
                constants.push((json, content.parse::<syn::ExprPath>()?));
                content.parse::<Token![;]>()?;
            } else {
                let (field, s) = parse_field(&content)?;
                fields.push(field);
                since.push(s);
            }
        }
        Body::Fields(fields)
    };
    let container = Container {
        ident,
        foreign: Some(path),
        name: name.value(),
        constants,
        vis: syn::parse_quote!(pub),
        generics: Default::default(),
        krate: krate.clone(),
        body,
        skipped: Vec::new(),
        reader: Reader::Serde,
    };
    Ok((with_reader(container), since))
}

fn parse_field(input: ParseStream<'_>) -> syn::Result<(Field, Since)> {
    let member: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty: Type = input.parse()?;
    input.parse::<Token![=]>()?;
    let json: LitStr = input.parse()?;
    let (mut optional, mut required, mut strategy, mut merge_key) = (false, false, None, None);
    let mut since = Since::default();
    while !input.peek(Token![;]) {
        let look = input.lookahead1();
        if look.peek(kw::optional) {
            input.parse::<kw::optional>()?;
            optional = true;
        } else if look.peek(kw::required) {
            input.parse::<kw::required>()?;
            required = true;
        } else if look.peek(kw::strategy) {
            input.parse::<kw::strategy>()?;
            input.parse::<Token![=]>()?;
            let lit = input.parse::<LitStr>()?;
            let value = Strategy::parse(&lit.value()).map_err(|message| syn::Error::new(lit.span(), message))?;
            strategy = Some(Attr { value, span: lit.span() });
        } else if look.peek(kw::merge_key) {
            input.parse::<kw::merge_key>()?;
            input.parse::<Token![=]>()?;
            merge_key = Some(input.parse::<LitStr>()?);
        } else if look.peek(kw::from) {
            input.parse::<kw::from>()?;
            since.first = Some(minor(input)?);
        } else if look.peek(kw::until) {
            input.parse::<kw::until>()?;
            since.last = Some(minor(input)?);
        } else {
            return Err(look.error());
        }
    }
    input.parse::<Token![;]>()?;
    let field = Field {
        member: Member::Named(member),
        ty,
        json: json.value(),
        strategy,
        merge_key,
        with: None,
        refused: false,
        skip_if: optional.then(|| syn::parse_quote!(::core::option::Option::is_none)),
        deserialized: true,
        flatten: false,
        // Optional fields are `Option`s (missing: `None`); k8s-openapi
        // defaults the others when they are missing, unless required (an
        // error, as the type's `__missing` gives).
        missing: if optional || required { Missing::Type } else { Missing::Default },
        schema_default: false,
        built_in: true,
    };
    Ok((field, since))
}

/// A Kubernetes version `1.NN`, as its minor number.
fn minor(input: ParseStream<'_>) -> syn::Result<u32> {
    let lit: syn::LitFloat = input.parse()?;
    match lit.base10_digits().strip_prefix("1.").and_then(|m| m.parse().ok()) {
        Some(minor) => Ok(minor),
        None => Err(syn::Error::new(lit.span(), "expected a Kubernetes version 1.NN")),
    }
}
