//! The model the code generator reads: one entry per JSON field, with its
//! name, presence rule and patch metadata.

use super::attr::{self, Attr, Errors};
use super::strategy::Strategy;
use proc_macro2::TokenStream;
use quote::quote;
use serde_derive_internals::{Ctxt, Derive, ast, attr as serde_attr};
use syn::{DeriveInput, ExprPath, Generics, Ident, LitStr, Member, Path, Type, Visibility};

#[derive(Clone)]
pub struct Container {
    pub ident: Ident,
    /// The implementing type when it is not the derive input itself (a
    /// foreign type, named by its path).
    pub foreign: Option<Path>,
    /// The type's name in schemas and error messages.
    pub name: String,
    /// JSON keys that always hold the same string (a resource's
    /// `apiVersion` and `kind`), with that string: in the schema as
    /// scalars, never patched field by field.
    pub constants: Vec<(String, ExprPath)>,
    pub vis: Visibility,
    pub generics: Generics,
    /// Path of `smp_core` as the generated code names it.
    pub krate: Path,
    pub body: Body,
    /// JSON names of the struct fields that serde skips when serialising:
    /// they can never be a merge key.
    pub skipped: Vec<String>,
    /// What reads the struct from JSON.
    pub reader: Reader,
}

/// What reads a struct with a field table from JSON: each front end (the
/// derive, the impls of k8s-openapi's types) says which reader its serde
/// code is read exactly as.
#[derive(Clone)]
pub enum Reader {
    /// serde's own, through `serde_json::Value`.
    Serde,
    /// The table's reader as serde_derive reads (`by_table::serde_fields`),
    /// with what serde expects in its errors (`struct Name`).
    LikeSerdeDerive(String),
    /// The table's reader as k8s-openapi's serde code reads
    /// (`by_table::read_json`: a null is a missing key, constant keys are
    /// checked, the value starts from `Default`).
    LikeK8sOpenApi,
}

/// How values of the type are diffed and patched.
#[derive(Clone)]
pub enum Body {
    /// A struct with named fields, walked field by field.
    Fields(Vec<Field>),
    /// A struct whose serde form the walk cannot follow (flatten, custom
    /// (de)serialisers, `from`/`into`...): whole values go through the JSON
    /// engine; `fields` only describe the schema.
    JsonStruct(Vec<Field>),
    /// A transparent struct: the schema of its one field's type.
    Transparent(Box<Type>),
    /// A type serde writes as another (`into`): that type's schema.
    Into(Box<Type>),
    /// An enum of unit variants: serialised as a string.
    Scalar,
    /// An externally tagged enum with data: an object with one key.
    Union(Vec<Variant>),
    /// Anything else serde can express: arbitrary JSON.
    Any,
}

#[derive(Clone)]
pub struct Field {
    pub member: Member,
    pub ty: Type,
    /// The JSON name.
    pub json: String,
    pub strategy: Option<Attr<Strategy>>,
    pub merge_key: Option<LitStr>,
    pub with: Option<Path>,
    /// Some `#[patch]` attribute of the field was refused: the checks
    /// that build on the others are skipped.
    pub refused: bool,
    pub skip_if: Option<ExprPath>,
    /// A patch may set this field directly (serde reads it back).
    pub deserialized: bool,
    pub flatten: bool,
    pub missing: Missing,
    /// A `#[schemars(...)]` attribute of the field sets a default (the
    /// schema's `default`, which the API server fills in).
    pub schema_default: bool,
    /// A field of a Kubernetes built-in type: several merge key fields are
    /// recommended keys (the API server merges by the first), not a
    /// composite key.
    pub built_in: bool,
}

impl Container {
    /// The implementing type as written in `impl ... for <type>`.
    pub fn self_ty(&self) -> TokenStream {
        match &self.foreign {
            Some(path) => quote!(#path),
            None => {
                let ident = &self.ident;
                let (_, ty_generics, _) = self.generics.split_for_impl();
                quote!(#ident #ty_generics)
            }
        }
    }
}

impl Field {
    /// The field is an `Option` with no default: `None` is its value when
    /// it is absent, and the schema gives no other. Declared defaults are
    /// serde's `default = "path"` (which schemars writes as the schema's
    /// default) or serde's `default` with a `#[schemars(...)]` default.
    pub fn undefaulted_option(&self) -> bool {
        let option = match &self.ty {
            Type::Path(p) => p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"),
            _ => false,
        };
        let declared = match self.missing {
            Missing::Path(_) | Missing::ContainerPath(_) => true,
            Missing::Default | Missing::ContainerDefault => self.schema_default,
            Missing::Type => false,
        };
        option && !declared
    }
}

/// The value of a field whose key is absent from the JSON.
#[derive(Clone)]
pub enum Missing {
    Default,
    Path(ExprPath),
    ContainerDefault,
    ContainerPath(ExprPath),
    /// What the type itself gives (`None` for `Option`), else an error.
    Type,
}

#[derive(Clone)]
pub struct Variant {
    pub json: String,
    /// The newtype variant's type; `None` for other variant forms.
    pub newtype: Option<Type>,
}

impl Field {
    pub fn merge_key(&self) -> String {
        self.merge_key.as_ref().map(LitStr::value).unwrap_or_default()
    }
}

/// Builds the model. Its errors are those of our own attributes; serde's
/// own attribute errors, which `cx` collects, are left for serde's derive
/// to report.
pub fn build<'a>(
    input: &'a DeriveInput,
    cx: &Ctxt,
    engine: crate::engine_path::Engine,
    errors: &mut Errors,
) -> (Container, Option<ast::Container<'a>>) {
    let cattrs = attr::container_attrs(&input.attrs, errors);
    let krate = cattrs.krate.unwrap_or_else(|| engine.default_path());
    let private = Ident::new("__private", proc_macro2::Span::call_site());
    let parsed = ast::Container::from_ast(cx, input, Derive::Serialize, &private);
    let mut skipped = Vec::new();
    let body = parsed.as_ref().map_or(Body::Any, |parsed| body(parsed, &krate, &mut skipped, errors));
    let reader = parsed.as_ref().and_then(|parsed| like_serde_derive(parsed, &body, &skipped));
    let container = Container {
        ident: input.ident.clone(),
        foreign: None,
        name: input.ident.to_string(),
        constants: Vec::new(),
        vis: input.vis.clone(),
        generics: input.generics.clone(),
        krate,
        body,
        skipped,
        reader: reader.map_or(Reader::Serde, Reader::LikeSerdeDerive),
    };
    (container, parsed)
}

fn body(parsed: &ast::Container<'_>, krate: &Path, skipped: &mut Vec<String>, errors: &mut Errors) -> Body {
    match (&parsed.data, parsed.attrs.type_into()) {
        // Its JSON is the other type's, whatever its own fields.
        (_, Some(into)) => Body::Into(Box::new(into.clone())),
        // Named fields too: serde writes the one field alone.
        (ast::Data::Struct(_, fields), None) if parsed.attrs.transparent() => {
            match fields.iter().find(|f| transparent_field(f)) {
                Some(f) => Body::Transparent(Box::new(f.ty.clone())),
                None => Body::Any,
            }
        }
        (ast::Data::Struct(ast::Style::Struct, fields), None) => struct_body(parsed, fields, krate, skipped, errors),
        (ast::Data::Enum(variants), None) => enum_body(parsed, variants),
        (ast::Data::Struct(..), None) => Body::Any,
    }
}

/// The field a transparent struct serialises as (serde's rule): the one
/// neither skipped nor a `PhantomData`.
fn transparent_field(f: &ast::Field<'_>) -> bool {
    let phantom = match f.ty {
        Type::Path(ty) => ty.path.segments.last().is_some_and(|s| s.ident == "PhantomData"),
        _ => false,
    };
    !phantom && !f.attrs.skip_serializing()
}

fn struct_body(
    parsed: &ast::Container<'_>,
    fields: &[ast::Field<'_>],
    krate: &Path,
    skipped: &mut Vec<String>,
    errors: &mut Errors,
) -> Body {
    let mut out = Vec::new();
    let mut json_mode = parsed.attrs.type_from().is_some()
        || parsed.attrs.type_try_from().is_some()
        || parsed.attrs.remote().is_some()
        || !matches!(parsed.attrs.tag(), serde_attr::TagType::External);
    for f in fields {
        let pattrs = attr::field_attrs(&f.original.attrs, errors);
        if f.attrs.skip_serializing() {
            skipped.push(f.attrs.name().serialize_name().value.clone());
            continue;
        }
        // A name serde writes but reads as another is never read back: the
        // JSON route resets the field, which only the JSON route can do.
        let names = f.attrs.name();
        if f.attrs.serialize_with().is_some()
            || f.attrs.deserialize_with().is_some()
            || f.attrs.getter().is_some()
            || names.serialize_name().value != names.deserialize_name().value
        {
            json_mode = true;
        }
        if f.attrs.flatten() {
            json_mode = true;
        }
        let missing = match (f.attrs.default(), parsed.attrs.default()) {
            (serde_attr::Default::Default, _) => Missing::Default,
            (serde_attr::Default::Path(p), _) => Missing::Path(p.clone()),
            (serde_attr::Default::None, serde_attr::Default::Default) => Missing::ContainerDefault,
            (serde_attr::Default::None, serde_attr::Default::Path(p)) => Missing::ContainerPath(p.clone()),
            (serde_attr::Default::None, serde_attr::Default::None) => Missing::Type,
        };
        out.push(Field {
            member: f.member.clone(),
            ty: f.ty.clone(),
            json: f.attrs.name().serialize_name().value.clone(),
            strategy: pattrs.strategy,
            merge_key: pattrs.merge_key,
            with: pattrs.with.or_else(|| pattrs.shape.map(|shape| syn::parse_quote!(#krate::typed::shapes::#shape))),
            refused: pattrs.refused,
            skip_if: f.attrs.skip_serializing_if().cloned(),
            deserialized: !f.attrs.skip_deserializing(),
            flatten: f.attrs.flatten(),
            missing,
            schema_default: f.original.attrs.iter().any(|a| {
                a.path().is_ident("schemars")
                    && quote::ToTokens::to_token_stream(&a.meta).to_string().contains("default")
            }),
            built_in: false,
        });
    }
    if json_mode { Body::JsonStruct(out) } else { Body::Fields(out) }
}

/// Whether the table's reader reads the struct exactly as serde_derive's
/// does: every field read under its one name, none skipped, unknown keys
/// ignored, no field of a serde form of its own, and serde's own words
/// in its errors (`struct Name`).
fn like_serde_derive(parsed: &ast::Container<'_>, body: &Body, skipped: &[String]) -> Option<String> {
    let (Body::Fields(fields), ast::Data::Struct(_, serde_fields)) = (body, &parsed.data) else { return None };
    let plain = skipped.is_empty()
        && !parsed.attrs.deny_unknown_fields()
        && parsed.attrs.expecting().is_none()
        && fields.iter().all(|f| f.deserialized && f.with.is_none())
        && serde_fields.iter().all(|f| f.attrs.aliases().len() == 1);
    plain.then(|| format!("struct {}", parsed.ident))
}

fn enum_body(parsed: &ast::Container<'_>, variants: &[ast::Variant<'_>]) -> Body {
    if !matches!(parsed.attrs.tag(), serde_attr::TagType::External) {
        return Body::Any;
    }
    let serialized = variants.iter().filter(|v| !v.attrs.skip_serializing());
    if serialized.clone().all(|v| matches!(v.style, ast::Style::Unit)) {
        return Body::Scalar;
    }
    Body::Union(
        serialized
            .filter(|v| !matches!(v.style, ast::Style::Unit))
            .map(|v| Variant {
                json: v.attrs.name().serialize_name().value.clone(),
                newtype: match v.style {
                    ast::Style::Newtype => Some(v.fields[0].ty.clone()),
                    _ => None,
                },
            })
            .collect(),
    )
}
