//! Code generation from the model.

use crate::assertions;
use crate::internals::model::{self, Body, Container, Field, Missing};
use crate::internals::strategy::Strategy;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{DeriveInput, Ident};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let (container, result) = model::from_input(input);
    let imp = implementation(&container);
    match result {
        Ok(()) => imp,
        // Report our attribute errors, and still implement the trait so that
        // uses of the type do not add errors of their own.
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#errors #imp)
        }
    }
}

/// The implementing type as written in `impl ... for <type>`.
pub fn self_ty(c: &Container) -> TokenStream {
    match &c.foreign {
        Some(path) => quote!(#path),
        None => {
            let ident = &c.ident;
            let (_, ty_generics, _) = c.generics.split_for_impl();
            quote!(#ident #ty_generics)
        }
    }
}

pub fn implementation(c: &Container) -> TokenStream {
    let krate = &c.krate;
    let p = quote!(#krate::typed::__private);
    let self_ty = self_ty(c);
    let mut generics = c.generics.clone();
    for tp in generics.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(#p::StrategicMerge));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    let shape = shape_fn(c, &p);
    let methods = match &c.body {
        Body::Fields(fields) => field_methods(fields, &p),
        Body::JsonStruct(_) => struct_field_methods(&p),
        Body::Scalar => scalar_methods(&p),
        _ => quote!(),
    };
    let facts = assertions::facts(c, &p);
    let checks = match &c.body {
        Body::Fields(fields) | Body::JsonStruct(fields) => assertions::checks(c, fields, &p),
        _ => quote!(),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::StrategicMerge for #self_ty #where_clause {
            #shape
            #methods
        }
        #facts
        #checks
    }
}

fn shape_fn(c: &Container, p: &TokenStream) -> TokenStream {
    let name = &c.name;
    let body = match &c.body {
        Body::Fields(fields) | Body::JsonStruct(fields) => {
            let constants = c.constants.iter().map(|json| {
                quote!(#p::FieldSchema::new(#json, #p::Strategy::NONE, ::core::option::Option::None, || #p::Shape::Scalar))
            });
            let entries = constants.chain(fields.iter().map(|f| field_schema(f, p)));
            quote!(#p::Shape::Struct(const { &#p::StructSchema { name: #name, fields: &[#(#entries),*] } }))
        }
        Body::Transparent(ty) => quote!(<#ty as #p::StrategicMerge>::shape()),
        Body::Scalar => quote!(#p::Shape::Scalar),
        Body::Any => quote!(#p::Shape::Any),
        Body::Union(variants) => {
            let entries = variants.iter().map(|v| {
                let json = &v.json;
                let shape = match &v.newtype {
                    Some(ty) => quote!(<#ty as #p::StrategicMerge>::shape),
                    None => quote!(|| #p::Shape::Any),
                };
                quote!(#p::FieldSchema::new(#json, #p::Strategy::NONE, ::core::option::Option::None, #shape))
            });
            quote!(#p::Shape::Struct(const { &#p::StructSchema { name: #name, fields: &[#(#entries),*] } }))
        }
    };
    quote! {
        fn shape() -> #p::Shape {
            #body
        }
    }
}

fn field_schema(f: &Field, p: &TokenStream) -> TokenStream {
    let ty = &f.ty;
    let json = &f.json;
    let strategy = strategy_const(f, p);
    let merge_key = merge_key_const(f, p);
    let flatten = f.flatten;
    let (shape, pointer) = match &f.with {
        Some(with) => (quote!(#with::shape), quote!(false)),
        None => (quote!(<#ty as #p::StrategicMerge>::shape), quote!(<#ty as #p::StrategicMerge>::__POINTER)),
    };
    quote! {
        #p::FieldSchema {
            name: #json, strategy: #strategy, merge_key: #merge_key,
            pointer: #pointer, flatten: #flatten, shape: #shape,
        }
    }
}

/// The field descriptor the runtime helpers take.
fn field_desc(f: &Field, p: &TokenStream) -> TokenStream {
    let json = &f.json;
    let strategy = strategy_const(f, p);
    let merge_key = merge_key_const(f, p);
    quote! {
        #p::Field {
            key: #json,
            strategy: #strategy,
            merge_key: #merge_key,
            parent: <Self as #p::StrategicMerge>::shape,
        }
    }
}

/// The field's strategy as a constant, from the attribute model's. A
/// field without a strategy whose type is a set of scalars merges.
fn strategy_const(f: &Field, p: &TokenStream) -> TokenStream {
    let strategy = f.strategy.map(|s| s.value);
    if strategy.is_none() && f.with.is_none() {
        let ty = &f.ty;
        let merge = quote!(<#ty as #p::StrategicMerge>::__MERGED_SET);
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
        several => quote!(::core::option::Option::Some(#p::MergeKey::Several(&[#(#several),*]))),
    }
}

/// `Some(&value)` when serde writes the field, `None` when it skips it.
fn presence(f: &Field, value: TokenStream) -> TokenStream {
    match &f.skip_if {
        Some(skip) => {
            quote!(if #skip(&#value) { ::core::option::Option::None } else { ::core::option::Option::Some(&#value) })
        }
        None => quote!(::core::option::Option::Some(&#value)),
    }
}

fn scalar_methods(p: &TokenStream) -> TokenStream {
    quote! {
        const __SCALAR: bool = true;

        fn __diff_field(
            old: ::core::option::Option<&Self>,
            new: ::core::option::Option<&Self>,
            field: &#p::Field,
            patch: &mut #p::Map<::std::string::String, #p::Value>,
            opts: #p::Opts,
        ) -> #p::Result<()> {
            #p::diff_scalar(old, new, field, patch, opts)
        }

        fn __apply_field(
            slot: ::core::option::Option<&mut Self>,
            patch: #p::FieldPatch<'_>,
            field: &#p::Field,
        ) -> #p::Result<#p::Outcome<Self>> {
            #p::apply_scalar(slot, patch, field)
        }
    }
}

fn struct_field_methods(p: &TokenStream) -> TokenStream {
    quote! {
        fn __diff_field(
            old: ::core::option::Option<&Self>,
            new: ::core::option::Option<&Self>,
            field: &#p::Field,
            patch: &mut #p::Map<::std::string::String, #p::Value>,
            opts: #p::Opts,
        ) -> #p::Result<()> {
            #p::diff_struct_field(old, new, field, patch, opts)
        }

        fn __apply_field(
            slot: ::core::option::Option<&mut Self>,
            patch: #p::FieldPatch<'_>,
            field: &#p::Field,
        ) -> #p::Result<#p::Outcome<Self>> {
            #p::apply_struct_field(slot, patch, field)
        }
    }
}

fn field_methods(fields: &[Field], p: &TokenStream) -> TokenStream {
    let key_arms = fields.iter().map(|f| {
        let json = &f.json;
        let member = &f.member;
        let ty = &f.ty;
        let value = presence(f, quote!(self.#member));
        match &f.with {
            // Only the serialised form of a `with` field shows its value.
            Some(_) => quote!(#json => #p::FieldKey::of((#value).map(|_| ::core::option::Option::None))),
            None => quote!(#json => #p::FieldKey::of((#value).map(|v| <#ty as #p::StrategicMerge>::__as_key(v)))),
        }
    });

    let diffs = fields.iter().map(|f| {
        let member = &f.member;
        let ty = &f.ty;
        let json = &f.json;
        let desc = field_desc(f, p);
        let old = presence(f, quote!(self.#member));
        let new = presence(f, quote!(desired.#member));
        let call = match &f.with {
            Some(_) => quote!(#p::diff_field_json::<#ty>(old, new, &field, &mut patch, opts)?),
            None => quote!(<#ty as #p::StrategicMerge>::__diff_field(old, new, &field, &mut patch, opts)?),
        };
        let is_null = match &f.with {
            Some(_) => quote!(|v: &#ty| #p::to_value(v).is_ok_and(|v| v.is_null())),
            None => quote!(|v: &#ty| <#ty as #p::StrategicMerge>::__is_null(v)),
        };
        quote! {
            {
                let field = #desc;
                let old = #old;
                let new = #new;
                let is_null = #is_null;
                if opts.retain_keys() && new.is_some_and(|v| !is_null(v)) {
                    retain.push(#json);
                }
                removed |= old.is_some_and(|v| !is_null(v)) && new.is_none();
                #call;
            }
        }
    });

    let applied: Vec<&Field> = fields.iter().filter(|f| f.deserialized).collect();
    // The JSON names sorted, each with its arm, for a binary search; the
    // first field of a name wins.
    let mut sorted: Vec<(&String, usize)> = applied.iter().enumerate().map(|(i, f)| (&f.json, i)).collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted.dedup_by(|b, a| a.0 == b.0);
    let names = sorted.iter().map(|(json, i)| quote!((#json, #i)));
    let arms = applied.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        let ty = &f.ty;
        let desc = field_desc(f, p);
        let present = match &f.skip_if {
            Some(skip) => quote!(!#skip(&self.#member)),
            None => quote!(true),
        };
        let missing = missing_value(f, p);
        let call = match &f.with {
            Some(_) => quote!(#p::apply_field_json::<#ty>(slot, fp, &field)?),
            None => quote!(<#ty as #p::StrategicMerge>::__apply_field(slot, fp, &field)?),
        };
        quote! {
            #i => {
                let field = #desc;
                let slot = if #present { ::core::option::Option::Some(&mut self.#member) } else { ::core::option::Option::None };
                match #call {
                    #p::Outcome::Kept => {}
                    #p::Outcome::Set(v) => self.#member = v,
                    #p::Outcome::Absent => self.#member = #missing,
                }
            }
        }
    });

    quote! {
        fn __field_key(&self, json_name: &str) -> #p::FieldKey<'_> {
            match json_name {
                #(#key_arms,)*
                _ => #p::FieldKey::Absent,
            }
        }

        fn __diff_object(
            &self,
            desired: &Self,
            opts: #p::Opts,
        ) -> #p::Result<#p::Map<::std::string::String, #p::Value>> {
            let mut patch = #p::Map::new();
            let mut retain: ::std::vec::Vec<&'static str> = ::std::vec::Vec::new();
            let mut removed = false;
            #(#diffs)*
            #p::finish_diff(&mut patch, retain, removed);
            ::core::result::Result::Ok(patch)
        }

        fn __apply_object(&mut self, patch: &#p::Map<::std::string::String, #p::Value>) -> #p::Result<()> {
            const FIELDS: &[(&str, usize)] = &[#(#names),*];
            match #p::group_patch(patch, FIELDS) {
                #p::Grouped::Whole => #p::apply_object_fallback(self, patch),
                #p::Grouped::Fields(fields) => {
                    for (index, fp) in fields {
                        match index {
                            #(#arms)*
                            _ => unreachable!("group_patch yields known fields"),
                        }
                    }
                    ::core::result::Result::Ok(())
                }
            }
        }

        #[allow(unused_variables)]
        fn __diff_field(
            old: ::core::option::Option<&Self>,
            new: ::core::option::Option<&Self>,
            field: &#p::Field,
            patch: &mut #p::Map<::std::string::String, #p::Value>,
            opts: #p::Opts,
        ) -> #p::Result<()> {
            #p::diff_struct_field(old, new, field, patch, opts)
        }

        fn __apply_field(
            slot: ::core::option::Option<&mut Self>,
            patch: #p::FieldPatch<'_>,
            field: &#p::Field,
        ) -> #p::Result<#p::Outcome<Self>> {
            #p::apply_struct_field(slot, patch, field)
        }
    }
}

fn missing_value(f: &Field, p: &TokenStream) -> TokenStream {
    let member = &f.member;
    let ty = &f.ty;
    let json = &f.json;
    match &f.missing {
        Missing::Default => quote!(::core::default::Default::default()),
        Missing::Path(path) => quote!(#path()),
        Missing::ContainerDefault => quote!(<Self as ::core::default::Default>::default().#member),
        Missing::ContainerPath(path) => quote!(#path().#member),
        Missing::Type if f.with.is_some() => quote!(#p::missing_json::<#ty>(#json)?),
        Missing::Type => quote!(<#ty as #p::StrategicMerge>::__missing(#json)?),
    }
}

/// The JSON name as an identifier (mangled when it is not one).
pub fn field_ident(json: &str, span: Span) -> Ident {
    let valid = !json.is_empty()
        && json.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && json.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid && syn::parse_str::<Ident>(json).is_ok() {
        return Ident::new(json, span);
    }
    if valid && !matches!(json, "self" | "Self" | "super" | "crate" | "_") {
        return Ident::new_raw(json, span);
    }
    let hex: String = json.bytes().map(|b| format!("{b:02x}")).collect();
    format_ident!("__smp_field_{}", hex, span = span)
}
