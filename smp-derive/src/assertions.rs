//! Generated compile-time checks of `#[patch(...)]` that need the field
//! types: each is an assertion on a type, spanned at the attribute, whose
//! error message (`#[diagnostic::on_unimplemented]`) says what is wrong
//! with the attribute. The token-level checks are in `internals::check`.

use crate::internals::model::{Body, Container, Field};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, LitStr};

/// Type-level facts the checks of other types need about this one: its
/// JSON fields (a struct), or that it is a scalar (an enum of unit
/// variants, which may key a map too, or a transparent wrapper of a
/// scalar).
pub fn facts(c: &Container, p: &TokenStream) -> TokenStream {
    match &c.body {
        Body::Fields(fields) | Body::JsonStruct(fields) => witness(c, fields, p),
        Body::Scalar => {
            let scalar = scalar_impl(c, p, None);
            let self_ty = c.self_ty();
            let (impl_generics, _, where_clause) = c.generics.split_for_impl();
            // serde_json writes a unit variant as a map key too.
            quote! {
                #scalar
                #[automatically_derived]
                impl #impl_generics #p::ScalarMapKey for #self_ty #where_clause {}
            }
        }
        Body::Transparent(inner) => scalar_impl(c, p, Some(inner)),
        Body::Into(into) => {
            let scalar = scalar_impl(c, p, Some(into));
            let fields = fields_of(c, into, p);
            quote!(#scalar #fields)
        }
        Body::Union(_) | Body::Any => quote!(),
    }
}

/// The JSON fields of the type serde writes the value as (when it is a
/// struct deriving `StrategicMerge`), for a merge key.
fn fields_of(c: &Container, into: &syn::Type, p: &TokenStream) -> TokenStream {
    let self_ty = c.self_ty();
    let mut bounded = c.generics.clone();
    for tp in bounded.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(#p::StrategicMerge));
    }
    let (impl_generics, _, where_clause) = bounded.split_for_impl();
    let mut predicates: Vec<TokenStream> =
        where_clause.map(|w| w.predicates.iter().map(|p| quote!(#p)).collect()).unwrap_or_default();
    // The binder keeps the bound from being a trivially false where clause
    // when the other type is no such struct.
    predicates.push(quote!(for<'__smp> #into: #p::StructFields));
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::StructFields for #self_ty where #(#predicates,)* {
            type Fields = <#into as #p::StructFields>::Fields;
        }

        #[automatically_derived]
        impl #impl_generics #p::SerializedOf for #self_ty where #(#predicates,)* {
            type Serialized = #p::Serialized<Self>;
        }
    }
}

/// `Scalar` for the type (for a transparent wrapper: when what it wraps
/// is one).
fn scalar_impl(c: &Container, p: &TokenStream, inner: Option<&syn::Type>) -> TokenStream {
    let self_ty = c.self_ty();
    let (impl_generics, _, where_clause) = c.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> =
        where_clause.map(|w| w.predicates.iter().map(|p| quote!(#p)).collect()).unwrap_or_default();
    // The binder keeps a bound on a concrete type from being a trivially
    // false where clause when the wrapped type is no scalar.
    if let Some(inner) = inner {
        predicates.push(quote!(for<'__smp> #inner: #p::Scalar));
    }
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Scalar for #self_ty where #(#predicates,)* {}
    }
}

/// One field per JSON field name, typed by what serde does with it:
/// `Always<T>` (always written, a `T`), `MaybeAbsent` (left out for some
/// values), `SkippedBySerde` (never written, or never read) or
/// `Unchecked`. A merge key
/// is looked up in it. It lives in an anonymous block, out of the user's
/// namespace.
fn witness(c: &Container, fields: &[Field], p: &TokenStream) -> TokenStream {
    let self_ty = c.self_ty();
    let vis = &c.vis;
    let witness = format_ident!("{}Fields", c.ident);
    let mut seen = std::collections::HashSet::new();
    let serialized = fields.iter().filter(|f| !f.flatten).map(|f| {
        let ty = &f.ty;
        let member = if !f.deserialized {
            // Written but never read: serde gives every element read back
            // the same default key.
            quote!(SkippedBySerde)
        } else if f.with.is_some() || mentions_generic(c, ty) {
            quote!(#p::Unchecked)
        } else if f.undefaulted_option() {
            quote!(#p::Undefaulted)
        } else if f.skip_if.is_some() {
            quote!(#p::MaybeAbsent)
        } else {
            quote!(#p::Always<#ty>)
        };
        (&f.json, member)
    });
    let skipped = c.skipped.iter().map(|json| (json, quote!(SkippedBySerde)));
    let members = serialized.chain(skipped).filter(|(json, _)| seen.insert(*json)).map(|(json, ty)| {
        let name = field_ident(json, Span::call_site());
        quote!(pub #name: #ty)
    });
    let mut bounded = c.generics.clone();
    for tp in bounded.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(#p::StrategicMerge));
    }
    let (impl_generics_b, _, where_b) = bounded.split_for_impl();
    let skipped_marker = (!c.skipped.is_empty() || fields.iter().any(|f| !f.deserialized)).then(|| {
        quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            #vis struct SkippedBySerde;
        }
    });
    quote! {
        const _: () = {
            #[doc(hidden)]
            #[allow(non_camel_case_types, non_snake_case, dead_code, private_interfaces)]
            #vis struct #witness {
                #(#members,)*
            }

            #skipped_marker

            impl #impl_generics_b #p::StructFields for #self_ty #where_b {
                type Fields = #witness;
            }

            impl #impl_generics_b #p::SerializedOf for #self_ty #where_b {
                type Serialized = #p::Serialized<Self>;
            }
        };
    }
}

/// The type names a generic parameter of the container.
fn mentions_generic(c: &Container, ty: &syn::Type) -> bool {
    let names: Vec<String> = c
        .generics
        .params
        .iter()
        .map(|g| match g {
            syn::GenericParam::Type(t) => t.ident.to_string(),
            syn::GenericParam::Const(k) => k.ident.to_string(),
            syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
        })
        .collect();
    let text = quote!(#ty).to_string();
    text.split(|ch: char| !ch.is_alphanumeric() && ch != '_').any(|w| names.iter().any(|g| g == w))
}

/// The checks of every field, each spanned at its attribute. Each fails
/// with one error: a chain of requirements stops at the first unmet one.
/// Foreign types are not checked: their patch metadata is the API
/// server's, whatever their Rust types make of it (k8s-openapi makes some
/// merge keys optional).
pub fn checks(c: &Container, fields: &[Field], p: &TokenStream) -> TokenStream {
    if c.foreign.is_some() {
        return quote!();
    }
    let mut out = Vec::new();
    for f in fields.iter().filter(|f| !f.refused && !mentions_generic(c, &f.ty) && f.with.is_none()) {
        let retain_keys = f.strategy.filter(|s| s.value.retains_keys());
        if let Some(key) = &f.merge_key {
            // A list of structs, which `retainKeys` accepts too. The first
            // field is the default key; the others (recommended keys) may
            // be absent from an element.
            let text = key.value();
            let fields = crate::internals::attr::merge_key_fields(&text).unwrap_or_default();
            for (i, field) in fields.into_iter().enumerate() {
                out.push(merge_key_check(key, field, i == 0, &f.ty, p));
            }
        } else {
            if let Some(s) = f.strategy.filter(|s| s.value.merges()) {
                out.push(set_check(s.span, &f.ty, p));
            }
            if let Some(s) = retain_keys {
                out.push(retain_keys_check(s.span, &f.ty, p));
            }
        }
    }
    if out.is_empty() {
        return quote!();
    }
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __smp_attribute_checks() {
                #(#out)*
            }
        };
    }
}

/// The field is a list of structs that always write a scalar field named
/// by the merge key. The element's fields are reached through inferred
/// type parameters, so that a field type that is no list (or a list of
/// scalars) gives that one error and no follow-up.
fn merge_key_check(lit: &LitStr, key: &str, default_key: bool, ty: &syn::Type, p: &TokenStream) -> TokenStream {
    // Spanned at the literal, so that rustc names the field a misspelt key
    // is close to.
    let name = field_ident(key, lit.span());
    let key = key.replace('{', "{{").replace('}', "}}");
    let skipped = format!("`{key}` is skipped by serde in the list's elements, so it cannot be a merge key");
    let absent =
        format!("`{key}` may be left out of the list's elements (`skip_serializing_if`), so it cannot be a merge key");
    let scalar = format!("`{key}` is `{{Self}}` in the list's elements, not a scalar, so it cannot be a merge key");
    let undefaulted = format!(
        "`{key}` is an `Option` without a default in the list's elements, so it cannot be a merge key: \
         the API server requires every field of `x-kubernetes-list-map-keys` to be required or defaulted"
    );
    // A composite key's fields after the first may be left out of an element.
    let written = if default_key {
        quote_spanned!(lit.span()=> scalar(always_written(defaulted(serialized(&fields.#name))));)
    } else {
        let not_scalar = format!("`{key}` is not a scalar in the list's elements, so it cannot be a merge key");
        quote_spanned! {lit.span()=>
            #[diagnostic::on_unimplemented(message = #not_scalar, label = "a merge key is a string, a number or a boolean")]
            trait MaybeWritten {}
            impl<T: ScalarKey + ?Sized> MaybeWritten for #p::Always<T> {}
            impl MaybeWritten for #p::MaybeAbsent {}
            fn maybe_written<F: MaybeWritten>(_: ::core::marker::PhantomData<F>) {}
            maybe_written(defaulted(serialized(&fields.#name)));
        }
    };
    quote_spanned! {lit.span()=>
        {
            fn merge_key_list<L, E>(_: ::core::marker::PhantomData<L>) -> <E as #p::SerializedOf>::Serialized
            where
                L: #p::ListField<Elem = E> + ?Sized,
                E: #p::SerializedOf,
            {
                ::core::unreachable!()
            }
            #[diagnostic::on_unimplemented(message = #skipped, label = "skipped by serde")]
            trait SerializedField {
                type Field;
            }
            impl<T: ?Sized> SerializedField for #p::Always<T> {
                type Field = #p::Always<T>;
            }
            impl SerializedField for #p::MaybeAbsent {
                type Field = #p::MaybeAbsent;
            }
            impl SerializedField for #p::Unchecked {
                type Field = #p::Always<#p::Unchecked>;
            }
            impl SerializedField for #p::Undefaulted {
                type Field = #p::Undefaulted;
            }
            #[diagnostic::on_unimplemented(
                message = #undefaulted,
                label = "make the field required, or give it `#[serde(default = \"path\")]`, or `#[serde(default)]` with a schema default (`#[schemars(extend(\"default\" = ...))]`)"
            )]
            trait MergeKeyDefault {
                type Field;
            }
            impl<T: ?Sized> MergeKeyDefault for #p::Always<T> {
                type Field = #p::Always<T>;
            }
            impl MergeKeyDefault for #p::MaybeAbsent {
                type Field = #p::MaybeAbsent;
            }
            fn defaulted<F: MergeKeyDefault>(_: ::core::marker::PhantomData<F>) -> ::core::marker::PhantomData<F::Field> {
                ::core::marker::PhantomData
            }
            #[diagnostic::on_unimplemented(message = #absent, label = "every element needs its merge key")]
            trait AlwaysWritten {
                type Value: ?Sized;
            }
            impl<T: ?Sized> AlwaysWritten for #p::Always<T> {
                type Value = T;
            }
            #[diagnostic::on_unimplemented(message = #scalar, label = "a merge key is a string, a number or a boolean")]
            trait ScalarKey {}
            #[diagnostic::do_not_recommend]
            impl<T: #p::Scalar + ?Sized> ScalarKey for T {}
            fn serialized<F: SerializedField>(_: &F) -> ::core::marker::PhantomData<F::Field> {
                ::core::marker::PhantomData
            }
            fn always_written<F: AlwaysWritten>(_: ::core::marker::PhantomData<F>) -> ::core::marker::PhantomData<F::Value> {
                ::core::marker::PhantomData
            }
            fn scalar<V: ScalarKey + ?Sized>(_: ::core::marker::PhantomData<V>) {}
            let fields = merge_key_list(::core::marker::PhantomData::<#ty>);
            #written
        }
    }
}

/// `strategy = "merge"` without a merge key: a list of scalars (a set).
fn set_check(span: Span, ty: &syn::Type, p: &TokenStream) -> TokenStream {
    quote_spanned! {span=>
        {
            fn merge_list<L: #p::MergeList + ?Sized>(_: ::core::marker::PhantomData<L>) -> ::core::marker::PhantomData<L::Elem> {
                ::core::marker::PhantomData
            }
            fn set_element<E: #p::SetElement>(_: ::core::marker::PhantomData<E>) {}
            set_element(merge_list(::core::marker::PhantomData::<#ty>));
        }
    }
}

fn retain_keys_check(span: Span, ty: &syn::Type, p: &TokenStream) -> TokenStream {
    quote_spanned! {span=>
        {
            fn retain_keys_field<T: #p::RetainKeysField + ?Sized>(_: ::core::marker::PhantomData<T>) {}
            let field = ::core::marker::PhantomData::<#ty>;
            retain_keys_field(field);
        }
    }
}

/// The JSON name as an identifier (mangled when it is not one).
fn field_ident(json: &str, span: Span) -> Ident {
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
