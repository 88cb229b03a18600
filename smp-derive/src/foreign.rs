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
//!     const "apiVersion";
//!     const "kind";
//!     spec: Option<k8s_openapi::api::core::v1::PodSpec> = "spec" optional;
//! }
//! k8s_openapi::apimachinery::pkg::api::resource::Quantity as "Quantity" = scalar;
//! ```
//!
//! Field options: `optional` (absent when `None`; otherwise always
//! written, and `Default::default()` when missing), `required` (always
//! written, and an error when missing), `strategy = "..."`,
//! `merge_key = "..."`.

use crate::internals::attr::Attr;
use crate::internals::model::{Body, Container, Field, Missing};
use crate::internals::strategy::Strategy;
use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Member, Path, Token, Type, braced};

pub struct ForeignImpls {
    containers: Vec<Container>,
}

impl ForeignImpls {
    pub fn expand(&self) -> TokenStream {
        self.containers.iter().map(crate::expand::implementation).collect()
    }
}

mod kw {
    syn::custom_keyword!(krate);
    syn::custom_keyword!(optional);
    syn::custom_keyword!(required);
    syn::custom_keyword!(strategy);
    syn::custom_keyword!(merge_key);
    syn::custom_keyword!(scalar);
    syn::custom_keyword!(any);
}

impl Parse for ForeignImpls {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        input.parse::<kw::krate>()?;
        input.parse::<Token![=]>()?;
        let krate: Path = input.parse()?;
        input.parse::<Token![;]>()?;
        let mut containers = Vec::new();
        while !input.is_empty() {
            containers.push(parse_container(input, &krate)?);
        }
        Ok(ForeignImpls { containers })
    }
}

fn parse_container(input: ParseStream<'_>, krate: &Path) -> syn::Result<Container> {
    let path: Path = input.parse()?;
    input.parse::<Token![as]>()?;
    let name: LitStr = input.parse()?;
    let ident = path.segments.last().map(|s| s.ident.clone()).expect("a path has a last segment");
    let mut constants = Vec::new();
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
                constants.push(content.parse::<LitStr>()?.value());
                content.parse::<Token![;]>()?;
            } else {
                fields.push(parse_field(&content)?);
            }
        }
        Body::Fields(fields)
    };
    Ok(Container {
        ident,
        foreign: Some(path),
        name: name.value(),
        constants,
        vis: syn::parse_quote!(pub),
        generics: Default::default(),
        krate: krate.clone(),
        body,
        skipped: Vec::new(),
    })
}

fn parse_field(input: ParseStream<'_>) -> syn::Result<Field> {
    let member: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
    let ty: Type = input.parse()?;
    input.parse::<Token![=]>()?;
    let json: LitStr = input.parse()?;
    let (mut optional, mut required, mut strategy, mut merge_key) = (false, false, None, None);
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
        } else {
            return Err(look.error());
        }
    }
    input.parse::<Token![;]>()?;
    Ok(Field {
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
    })
}
