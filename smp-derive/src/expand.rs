//! Code generation from the model.

use crate::assertions;
use crate::engine_path::Engine;
use crate::internals;
use crate::internals::model::{Body, Container, Field, Missing, Reader};
use crate::internals::strategy::Strategy;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident};

pub fn derive(input: &DeriveInput, engine: Engine) -> TokenStream {
    let (container, result) = internals::from_input(input, engine);
    match result {
        Ok(()) => implementation(&container),
        // Report our attribute errors, and still implement the trait so that
        // uses of the type do not add errors of their own (nor the check of
        // the field types, which a packed struct fails again).
        Err(e) => {
            let errors = e.to_compile_error();
            let imp = implementation_with(&container, false);
            quote!(#errors #imp)
        }
    }
}

pub fn implementation(c: &Container) -> TokenStream {
    implementation_with(c, true)
}

/// [`implementation`]; `check_fields`: with the compile-time check of the
/// field types that the table's offsets rely on.
fn implementation_with(c: &Container, check_fields: bool) -> TokenStream {
    let krate = &c.krate;
    let p = quote!(#krate::typed::__private);
    let self_ty = c.self_ty();
    let mut generics = c.generics.clone();
    for tp in generics.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(#p::StrategicMerge));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    let shape = shape_fn(c, &p);
    let methods = match &c.body {
        Body::Fields(fields) => field_methods(c, fields, check_fields, &p),
        Body::JsonStruct(_) => struct_field_methods(),
        Body::Scalar => scalar_methods(),
        _ => quote!(),
    };
    let facts = assertions::facts(c, &p);
    let checks = match &c.body {
        Body::Fields(fields) | Body::JsonStruct(fields) => assertions::checks(c, fields, &p),
        _ => quote!(),
    };
    let methods = quote!(#shape #methods);
    let methods = if c.foreign.is_some() {
        // k8s-openapi's readers take JSON text and `Value`s alike.
        let methods = inline_methods(methods);
        quote!(const __JSON_TEXT: bool = false; #methods)
    } else {
        methods
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Walk for #self_ty #where_clause {
            #methods
        }
        #facts
        #checks
    }
}

/// The methods with `#[inline]` on each (`fn` at the top level of the
/// tokens). A foreign type's walker (one of k8s-openapi's hundreds) is so
/// compiled where a program uses the type, as a generic would be, and not
/// for every type in the crate that holds the impls: no method is compiled
/// there, nor anything it reaches, unless something there calls it. The
/// schema function is the exception, `#[inline(never)]`: it holds the
/// type's schema, which a program should hold once, not in every unit of
/// code that names the type (it compiles to a few instructions).
fn inline_methods(methods: TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = methods.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        if matches!(&tt, proc_macro2::TokenTree::Ident(i) if i == "fn") {
            let schema = matches!(tokens.peek(), Some(proc_macro2::TokenTree::Ident(i)) if i == "__shape");
            out.extend(if schema { quote!(#[inline(never)]) } else { quote!(#[inline]) });
        }
        out.extend([tt]);
    }
    out
}

fn shape_fn(c: &Container, p: &TokenStream) -> TokenStream {
    let name = &c.name;
    let body = match &c.body {
        Body::Fields(_) | Body::JsonStruct(_) => {
            let schema = struct_schema(c, p);
            quote!(#p::Shape::Struct(const { &#schema }))
        }
        Body::Transparent(ty) => quote!(<#ty as #p::Walk>::__shape()),
        // Spanned at the `into` attribute: the type there needs the walker.
        Body::Into(ty) => quote_spanned!(ty.span()=> <#ty as #p::Walk>::__shape()),
        Body::Scalar => quote!(#p::Shape::Scalar),
        Body::Any => quote!(#p::Shape::Any),
        Body::Union(variants) => {
            let entries = variants.iter().map(|v| {
                let json = &v.json;
                let shape = match &v.newtype {
                    Some(ty) => quote!(<#ty as #p::Walk>::__shape),
                    None => quote!(|| #p::Shape::Any),
                };
                quote!(#p::FieldSchema::new(#json, #p::Strategy::NONE, ::core::option::Option::None, #shape))
            });
            quote!(#p::Shape::Struct(const { &#p::StructSchema { name: #name, fields: &[#(#entries),*] } }))
        }
    };
    quote! {
        fn __shape() -> #p::Shape {
            #body
        }
    }
}

/// A struct's schema: its name, its constant keys, its fields.
fn struct_schema(c: &Container, p: &TokenStream) -> TokenStream {
    let name = &c.name;
    let constants = c.constants.iter().map(|(json, _)| {
        quote!(#p::FieldSchema::new(#json, #p::Strategy::NONE, ::core::option::Option::None, || #p::Shape::Scalar))
    });
    let fields = match &c.body {
        Body::Fields(fields) | Body::JsonStruct(fields) => fields.as_slice(),
        _ => &[],
    };
    let entries = constants.chain(fields.iter().map(|f| field_schema(f, p)));
    quote!(#p::StructSchema { name: #name, fields: &[#(#entries),*] })
}

fn field_schema(f: &Field, p: &TokenStream) -> TokenStream {
    let ty = &f.ty;
    let json = &f.json;
    let strategy = strategy_const(f, p);
    let merge_key = merge_key_const(f, p);
    let flatten = f.flatten;
    let (shape, pointer, key_eq) = match &f.with {
        Some(with) => (quote!(#with::shape), quote!(false), quote!(false)),
        None => (
            quote!(<#ty as #p::Walk>::__SHAPE),
            quote!(<#ty as #p::Walk>::__POINTER),
            quote!(<#ty as #p::Walk>::__KEY_EQ),
        ),
    };
    quote! {
        #p::FieldSchema {
            name: #json, strategy: #strategy, merge_key: #merge_key,
            pointer: #pointer, flatten: #flatten, shape: #shape, key_eq: #key_eq,
        }
    }
}

/// The field's strategy as a constant, from the attribute model's. A
/// field without a strategy whose type is a set of scalars merges.
fn strategy_const(f: &Field, p: &TokenStream) -> TokenStream {
    let strategy = f.strategy.map(|s| s.value);
    if strategy.is_none() && f.with.is_none() {
        let ty = &f.ty;
        let merge = quote!(<#ty as #p::Walk>::__MERGED_SET);
        return quote!(#p::Strategy { merge: #merge, replace: false, retain_keys: false });
    }
    let merge = strategy.is_some_and(Strategy::merges);
    let replace = strategy == Some(Strategy::Replace);
    let retain_keys = strategy.is_some_and(Strategy::retains_keys);
    quote!(#p::Strategy { merge: #merge, replace: #replace, retain_keys: #retain_keys })
}

/// The field's merge key as a constant.
fn merge_key_const(f: &Field, p: &TokenStream) -> TokenStream {
    let text = f.merge_key();
    let fields: Vec<&str> = text.split(',').filter(|w| !w.is_empty()).collect();
    match fields.as_slice() {
        [] => quote!(::core::option::Option::None),
        [one] => quote!(::core::option::Option::Some(#p::MergeKey::One(#one))),
        // A built-in type's several fields are recommended keys; a type's
        // own, its composite key.
        several if f.built_in => quote!(::core::option::Option::Some(#p::MergeKey::Several(&[#(#several),*]))),
        several => quote!(::core::option::Option::Some(#p::MergeKey::Composite(&[#(#several),*]))),
    }
}

fn scalar_methods() -> TokenStream {
    quote!(
        const __SCALAR: bool = true;
    )
}

fn struct_field_methods() -> TokenStream {
    quote!(
        const __OBJECT: bool = true;
    )
}

/// A struct's walker: the constant table of its fields, each with the
/// small functions that reach it; one routine in smp-core walks every
/// table.
fn field_methods(c: &Container, fields: &[Field], check_fields: bool, p: &TokenStream) -> TokenStream {
    let ops = fields.iter().map(|f| field_ops(f, p));
    // The fields a patch may set, as indices in the order of their JSON
    // names, for a binary search; the first field of a name wins.
    if fields.len() > usize::from(u16::MAX) {
        return quote!(::core::compile_error!("`StrategicMerge` takes structs of at most 65,535 fields"););
    }
    let mut sorted: Vec<(&String, usize)> =
        fields.iter().enumerate().filter(|(_, f)| f.deserialized).map(|(i, f)| (&f.json, i)).collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted.dedup_by(|b, a| a.0 == b.0);
    let names = sorted.iter().map(|(_, i)| {
        let i = u16::try_from(*i).unwrap_or(u16::MAX);
        quote!(#i)
    });
    let access = table_access(fields, p);
    let field_types = if check_fields { field_types_check(fields) } else { quote!() };
    let constants = c.constants.iter().map(|(json, value)| quote!((#json, #value)));
    let json_methods = match &c.reader {
        Reader::LikeK8sOpenApi => json_by_table(p),
        Reader::LikeSerdeDerive(expecting) => serde_reader(fields, expecting, p),
        Reader::Serde => quote!(),
    };
    quote! {
        const __TABLE: ::core::option::Option<&'static #p::FieldTable> = {
            #field_types
            ::core::option::Option::Some(&#p::FieldTable {
                fields: &[#(#ops),*],
                by_name: &[#(#names),*],
                shape: <Self as #p::Walk>::__shape,
                constants: &[#(#constants),*],
                type_id: ::core::any::TypeId::of::<Self>(),
                #access
            })
        };
        #json_methods
    }
}

/// A struct's JSON read through its table, by code in smp-core, instead
/// of by its serde code for `serde_json::Value` (every struct with a table
/// is written so), in place: each field is read where it is, into the
/// struct's default value when there is none yet.
fn json_by_table(p: &TokenStream) -> TokenStream {
    quote! {
        const __NEW: #p::New<Self> = ::core::option::Option::Some(<Self as ::core::default::Default>::default);
        const __READ_BY_TABLE: bool = true;
    }
}

/// The check that ties each field's offset in the table to its declared
/// type: a branch, never taken, that borrows each field as that type.
/// (A packed struct, whose fields may be unaligned, fails it too.) A
/// branch in the table's constant, not a closure: no body of its own to
/// check, for each of k8s-openapi's hundreds of structs.
fn field_types_check(fields: &[Field]) -> TokenStream {
    let borrows = fields.iter().map(|f| {
        let (member, ty) = (&f.member, &f.ty);
        quote!(let _: &#ty = &s.#member;)
    });
    quote!(if let ::core::option::Option::Some(s) = ::core::option::Option::None::<&Self> { #(#borrows)* })
}

/// A derived struct's reader from JSON, as serde_derive's reads it from a
/// `serde_json::Value` (object or list, the same errors), with each field
/// read by its type's walker: no serde code for `Value` is compiled for
/// the struct or what it holds.
fn serde_reader(fields: &[Field], expecting: &str, p: &TokenStream) -> TokenStream {
    let n = fields.len();
    let in_list = if n == 1 { format!("{expecting} with 1 element") } else { format!("{expecting} with {n} elements") };
    let vars: Vec<Ident> = (0..n).map(|i| format_ident!("__field{}", i)).collect();
    let none = quote!(::core::option::Option::None);
    let some = quote!(::core::option::Option::Some);
    let slots = fields.iter().zip(&vars).map(|(f, var)| {
        let ty = &f.ty;
        quote!(let mut #var: ::core::option::Option<#ty> = #none;)
    });
    let reads = fields.iter().zip(&vars).enumerate().map(|(i, (f, var))| {
        let ty = &f.ty;
        quote!(#i => match <#ty as #p::Walk>::__from_json(value) {
            ::core::result::Result::Ok(v) => #var = #some(v),
            ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
        },)
    });
    // serde's container default, made before the fields are read.
    let default = fields.iter().find_map(|f| match &f.missing {
        Missing::ContainerDefault => Some(quote!(let __default: Self = ::core::default::Default::default();)),
        Missing::ContainerPath(path) => Some(quote!(let __default: Self = #path();)),
        _ => None,
    });
    let values = fields.iter().zip(&vars).enumerate().map(|(i, (f, var))| {
        let (member, ty, key) = (&f.member, &f.ty, &f.json);
        let missing = match &f.missing {
            Missing::Default => quote!(::core::default::Default::default()),
            Missing::Path(path) => quote!(#path()),
            Missing::ContainerDefault | Missing::ContainerPath(_) => quote!(__default.#member),
            Missing::Type => quote!(if __read.is_list() {
                return ::core::result::Result::Err(__read.too_short(#i, #in_list));
            } else {
                match <#ty as #p::Walk>::__missing(#key) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
                }
            }),
        };
        quote!(#member: match #var { #some(v) => v, #none => #missing },)
    });
    quote! {
        fn __from_json(v: &#p::Value) -> #p::Result<Self> {
            let __read = #p::by_table::serde_fields(#p::table_of::<Self>(), v, #expecting)?;
            #default
            #(#slots)*
            for &(index, value) in __read.values() {
                match index {
                    #(#reads)*
                    _ => {}
                }
            }
            let __value = Self { #(#values)* };
            __read.finish()?;
            ::core::result::Result::Ok(__value)
        }
    }
}

/// The table's two functions of the struct, each one `match` on a
/// field's index, when some field needs them: its
/// `skip_serializing_if`, and its serde default of its own.
fn table_access(fields: &[Field], p: &TokenStream) -> TokenStream {
    let none = quote!(::core::option::Option::None);
    let some = quote!(::core::option::Option::Some);
    let skips: Vec<_> = fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match &f.skip_if {
            Some(path) if !skips_null(f, path) => {
                let member = &f.member;
                Some(quote!(#i => #path(&s.#member)))
            }
            _ => None,
        })
        .collect();
    let defaults: Vec<_> = fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let member = &f.member;
            own_missing_value(f).map(|value| quote!(#i => s.#member = #value))
        })
        .collect();
    let skip_if = if skips.is_empty() {
        quote!(#p::no_skip_if)
    } else {
        quote!(|s, index| match #p::this::<Self>(s) {
            #some(s) => match index { #(#skips,)* _ => false },
            #none => false,
        })
    };
    let set_default = if defaults.is_empty() {
        quote!(#p::no_own_default)
    } else {
        quote!(|s, index| {
            if let #some(s) = #p::this_mut::<Self>(s) {
                match index { #(#defaults,)* _ => {} }
            }
        })
    };
    quote!(skip_if: #skip_if, set_default: #set_default,)
}

/// Whether serde leaves the field out exactly when it is null.
fn skips_null(f: &Field, path: &syn::ExprPath) -> bool {
    f.with.is_none() && is_option_is_none(path)
}

/// One entry of the field table: when serde leaves the field out and what
/// it is when missing; the steps themselves are compiled once per field
/// type.
fn field_ops(f: &Field, p: &TokenStream) -> TokenStream {
    let skip = match &f.skip_if {
        None => quote!(#p::Skip::Never),
        Some(path) if skips_null(f, path) => quote!(#p::Skip::Null),
        Some(_) => quote!(#p::Skip::If),
    };
    let ty = &f.ty;
    let missing = match (&f.missing, own_missing_value(f)) {
        // An option (`Option::is_none` takes it): its default is its type's
        // missing value, `None`.
        (Missing::Default, None) if f.skip_if.as_ref().is_some_and(|path| skips_null(f, path)) => {
            quote!(#p::Missing::Type)
        }
        (Missing::Default, None) => quote!(#p::Missing::Default(#p::default_of::<#ty>)),
        (_, None) => quote!(#p::Missing::Type),
        (_, Some(_)) => quote!(#p::Missing::Set),
    };
    let applied = f.deserialized;
    let member = &f.member;
    // Spanned at the type, so that a type without the walker is one error
    // there (the schema's), not one more at the derive.
    let access = match &f.with {
        Some(_) => quote!(#p::Json::<#ty>::ACCESS),
        None => quote_spanned!(ty.span()=> <#ty as #p::Walk>::__ACCESS),
    };
    quote! {
        #p::FieldOps {
            skip: #skip,
            missing: #missing,
            applied: #applied,
            offset: ::core::mem::offset_of!(Self, #member),
            access: #access,
        }
    }
}

/// `Option::is_none` (however the path is written): the field is left
/// out exactly when it is null.
fn is_option_is_none(path: &syn::ExprPath) -> bool {
    let segments: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let tail: Vec<&str> = segments.iter().map(String::as_str).collect();
    matches!(tail.as_slice(), ["Option", "is_none"] | ["std" | "core", "option", "Option", "is_none"])
        && path.qself.is_none()
        && path.path.segments.iter().all(|s| s.arguments.is_none())
}

/// The value a field takes when a patch removes it, when serde's
/// attributes give one other than its type's default (`None`: its type's
/// rule, or its `Default`, which a field read through its serde form
/// takes here).
fn own_missing_value(f: &Field) -> Option<TokenStream> {
    let member = &f.member;
    Some(match &f.missing {
        Missing::Default if f.with.is_some() => quote!(::core::default::Default::default()),
        Missing::Default | Missing::Type => return None,
        Missing::Path(path) => quote!(#path()),
        Missing::ContainerDefault => quote!(<Self as ::core::default::Default>::default().#member),
        Missing::ContainerPath(path) => quote!(#path().#member),
    })
}
