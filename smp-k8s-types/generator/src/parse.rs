//! Reading one version directory of k8s-openapi: its public types, and
//! for each struct its fields with their Rust types, JSON names and
//! presence rules.
//!
//! k8s-openapi writes its serde impls by hand, in a few fixed forms that
//! are matched here exactly; anything else is an error, so that a new form
//! is noticed rather than misread:
//!
//! - `Serialize`: `serialize_field(&mut state, "json", &self.x)` (always
//!   written), the same inside `if let Some(value) = &self.x { .. }`
//!   (written when `Some`), or with `<Self as crate::Resource>::API_VERSION`
//!   / `KIND` (a resource's constant `apiVersion` and `kind`);
//! - `Deserialize`: the struct literal at the end gives each field's value
//!   when its key is missing: `value_x` (an `Option`: `None`),
//!   `value_x.unwrap_or_default()` (the default) or
//!   `value_x.ok_or_else(|| missing_field(..))?` (an error).

use crate::Result;
use std::collections::BTreeMap;
use std::path::Path;
use syn::visit::Visit;
use syn::{Expr, Fields, GenericArgument, ImplItem, Item, ItemImpl, Member, Pat, PathArguments, Stmt, Type, UseTree};

/// One public type of k8s-openapi.
#[derive(Debug)]
pub struct TypeDef {
    /// The path from smp-core, e.g. `k8s_openapi::api::core::v1::Pod`.
    pub path: String,
    /// The Rust type name, e.g. `Pod`.
    pub name: String,
    /// The OpenAPI definition it is generated from, e.g.
    /// `io.k8s.api.core.v1.Pod`.
    pub definition: String,
    pub kind: Kind,
}

#[derive(Debug)]
pub enum Kind {
    /// A struct with named fields.
    Struct {
        /// JSON keys written with a constant value (`apiVersion`, `kind`),
        /// each with the `Resource` constant it holds (`API_VERSION`, `KIND`).
        constants: Vec<(String, String)>,
        /// In serialisation order.
        fields: Vec<FieldDef>,
    },
    /// A newtype around `serde_json::Value`: arbitrary JSON.
    Json,
    /// Something else (an enum, a generic type, another newtype): these
    /// need an implementation written by hand, or none.
    Other(&'static str),
}

#[derive(Debug)]
pub struct FieldDef {
    /// The Rust field name.
    pub member: String,
    /// The Rust type, with `crate::` paths written as `k8s_openapi::`.
    pub ty: String,
    pub json: String,
    pub presence: Presence,
}

/// When a field is in the JSON, and what it is when its key is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// An `Option`: written when `Some`, `None` when missing.
    Optional,
    /// Always written; the default value when missing.
    Defaulted,
    /// Always written; missing is a deserialisation error.
    Required,
}

/// Every public type of one version directory (`src/v1_NN`), sorted by
/// path.
pub fn version(dir: &Path) -> Result<Vec<TypeDef>> {
    let mut out = Vec::new();
    module(dir, &dir.join("mod.rs"), "k8s_openapi", &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// A module file: `pub mod x;` are submodules (`x/mod.rs`), `mod y;` plus
/// `pub use self::y::Name;` are type files (`y.rs`) and the names they
/// export.
fn module(dir: &Path, file: &Path, rust_path: &str, out: &mut Vec<TypeDef>) -> Result<()> {
    let ast = parse_file(file)?;
    let mut exports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for item in &ast.items {
        match item {
            Item::Mod(m) if m.content.is_none() => {
                let name = m.ident.to_string();
                if matches!(m.vis, syn::Visibility::Public(_)) {
                    let sub = dir.join(&name);
                    module(&sub, &sub.join("mod.rs"), &format!("{rust_path}::{name}"), out)?;
                } else {
                    exports.entry(name).or_default();
                }
            }
            Item::Use(u) if matches!(u.vis, syn::Visibility::Public(_)) => {
                for (file_mod, name) in self_uses(&u.tree) {
                    exports.entry(file_mod).or_default().push(name);
                }
            }
            _ => {}
        }
    }
    for (file_mod, names) in exports {
        let path = dir.join(format!("{file_mod}.rs"));
        for name in names {
            out.push(type_file(&path, rust_path, &name)?);
        }
    }
    Ok(())
}

/// `self::file::Name` and `self::file::{A, B}` as `(file, name)` pairs.
fn self_uses(tree: &UseTree) -> Vec<(String, String)> {
    let UseTree::Path(root) = tree else { return Vec::new() };
    let UseTree::Path(file) = &*root.tree else { return Vec::new() };
    if root.ident != "self" {
        return Vec::new();
    }
    let names = match &*file.tree {
        UseTree::Name(n) => vec![n.ident.to_string()],
        UseTree::Group(g) => g
            .items
            .iter()
            .filter_map(|t| match t {
                UseTree::Name(n) => Some(n.ident.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    names.into_iter().map(|n| (file.ident.to_string(), n)).collect()
}

fn parse_file(path: &Path) -> Result<syn::File> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// The exported type `name` of a type file.
fn type_file(path: &Path, module_path: &str, name: &str) -> Result<TypeDef> {
    let here = |msg: String| format!("{} ({name}): {msg}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| here(e.to_string()))?;
    let definition = text
        .lines()
        .find_map(|l| l.strip_prefix("// Generated from definition "))
        .ok_or_else(|| here("no `// Generated from definition` line".into()))?
        .trim()
        .to_string();
    let ast = syn::parse_file(&text).map_err(|e| here(e.to_string()))?;
    let kind = type_kind(&ast, name).map_err(|e| here(e.to_string()))?;
    Ok(TypeDef { path: format!("{module_path}::{name}"), name: name.to_string(), definition, kind })
}

fn type_kind(ast: &syn::File, name: &str) -> Result<Kind> {
    let item = ast.items.iter().find(|item| match item {
        Item::Struct(s) => s.ident == name,
        Item::Enum(e) => e.ident == name,
        _ => false,
    });
    let strukt = match item {
        Some(Item::Struct(s)) => s,
        Some(_) => return Ok(Kind::Other("enum")),
        None => return Err("the exported type is not defined in its file".into()),
    };
    if !strukt.generics.params.is_empty() {
        return Ok(Kind::Other("generic struct"));
    }
    let named = match &strukt.fields {
        Fields::Named(named) => named,
        Fields::Unnamed(unnamed) => {
            let json_newtype = unnamed.unnamed.len() == 1
                && type_string(&unnamed.unnamed[0].ty).is_ok_and(|t| t == "k8s_openapi::serde_json::Value");
            return Ok(if json_newtype { Kind::Json } else { Kind::Other("newtype") });
        }
        Fields::Unit => return Ok(Kind::Other("unit struct")),
    };
    let mut types = BTreeMap::new();
    for f in &named.named {
        let member = f.ident.as_ref().expect("named field").to_string();
        types.insert(member, type_string(&f.ty)?);
    }

    let written = serialized_fields(trait_impl(ast, "Serialize", name)?)?;
    let missing = missing_values(trait_impl(ast, "Deserialize", name)?, name)?;

    let mut constants = Vec::new();
    let mut fields = Vec::new();
    for entry in written {
        let (member, json, optional) = match entry {
            Written::Constant(json, constant) => {
                constants.push((json, constant));
                continue;
            }
            Written::Always { member, json } => (member, json, false),
            Written::WhenSome { member, json } => (member, json, true),
        };
        let ty = types.remove(&member).ok_or_else(|| format!("`{member}` is serialised but is no field (or twice)"))?;
        let presence = *missing.get(&member).ok_or_else(|| format!("`{member}` is not deserialised"))?;
        if optional != (presence == Presence::Optional) || (optional && !ty.starts_with("Option<")) {
            return Err(format!("`{member}`: serialised and deserialised as differently optional").into());
        }
        fields.push(FieldDef { member, ty, json, presence });
    }
    if let Some(member) = types.keys().next() {
        return Err(format!("field `{member}` is never serialised").into());
    }
    Ok(Kind::Struct { constants, fields })
}

/// `impl ... <trait_name> for <name>`.
fn trait_impl<'a>(ast: &'a syn::File, trait_name: &str, name: &str) -> Result<&'a ItemImpl> {
    ast.items
        .iter()
        .find_map(|item| match item {
            Item::Impl(imp) => {
                let (path, _) = imp.trait_.as_ref()?;
                let is_trait = path.segments.last().is_some_and(|s| s.ident == trait_name);
                let is_self = matches!(&*imp.self_ty, Type::Path(p) if p.path.is_ident(name));
                (is_trait && is_self).then_some(imp)
            }
            _ => None,
        })
        .ok_or_else(|| format!("no `impl {trait_name} for {name}`").into())
}

/// What one `serialize_field` call writes.
enum Written {
    Constant(String, String),
    Always { member: String, json: String },
    WhenSome { member: String, json: String },
}

/// The `serialize_field` calls of `fn serialize`, in order.
fn serialized_fields(imp: &ItemImpl) -> Result<Vec<Written>> {
    let body = imp
        .items
        .iter()
        .find_map(|item| match item {
            ImplItem::Fn(f) if f.sig.ident == "serialize" => Some(&f.block),
            _ => None,
        })
        .ok_or("no `fn serialize`")?;
    let mut out = Vec::new();
    for stmt in &body.stmts {
        match stmt {
            // `let mut state = serializer.serialize_struct(..)?;`
            Stmt::Local(_) => {}
            Stmt::Expr(Expr::Try(t), _) => {
                let (json, value) = serialize_field_call(&t.expr)?;
                out.push(match (self_field(value), resource_const(value)) {
                    (Some(member), _) => Written::Always { member, json },
                    (None, Some(constant)) => Written::Constant(json, constant),
                    (None, None) => return Err(format!("unexpected value serialised as {json:?}").into()),
                });
            }
            Stmt::Expr(Expr::If(i), _) => {
                let Expr::Let(cond) = &*i.cond else { return Err("unexpected `if` in fn serialize".into()) };
                let is_some_value = matches!(&*cond.pat, Pat::TupleStruct(p) if p.path.is_ident("Some"));
                let member = self_field(&cond.expr).filter(|_| is_some_value && i.else_branch.is_none());
                // `if let Some(value) = &self.member { serialize_field(..)?; }`
                let (member, call) = match (member, &i.then_branch.stmts[..]) {
                    (Some(member), [Stmt::Expr(Expr::Try(t), _)]) => (member, &t.expr),
                    _ => return Err("unexpected `if let` in fn serialize".into()),
                };
                let (json, value) = serialize_field_call(call)?;
                if !matches!(value, Expr::Path(p) if p.path.is_ident("value")) {
                    return Err(format!("`if let Some(value)` does not serialise `value` as {json:?}").into());
                }
                out.push(Written::WhenSome { member, json });
            }
            // `SerializeStruct::end(state)`
            Stmt::Expr(Expr::Call(c), None) if last_segment_is(&c.func, "end") => {}
            _ => return Err("unexpected statement in fn serialize".into()),
        }
    }
    Ok(out)
}

/// `SerializeStruct::serialize_field(&mut state, "json", value)`.
fn serialize_field_call(expr: &Expr) -> Result<(String, &Expr)> {
    let Expr::Call(call) = expr else { return Err("expected a serialize_field call".into()) };
    if !last_segment_is(&call.func, "serialize_field") || call.args.len() != 3 {
        return Err("expected a serialize_field call".into());
    }
    let json = match &call.args[1] {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
        _ => return Err("serialize_field with a JSON name that is not a string literal".into()),
    };
    Ok((json, &call.args[2]))
}

fn last_segment_is(expr: &Expr, ident: &str) -> bool {
    matches!(expr, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == ident))
}

/// `&self.member`.
fn self_field(expr: &Expr) -> Option<String> {
    let Expr::Reference(r) = expr else { return None };
    let Expr::Field(f) = &*r.expr else { return None };
    let is_self = matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"));
    match &f.member {
        Member::Named(ident) if is_self => Some(ident.to_string()),
        _ => None,
    }
}

/// `<Self as crate::Resource>::API_VERSION` or `::KIND`: the constant's
/// name.
fn resource_const(expr: &Expr) -> Option<String> {
    let Expr::Path(p) = expr else { return None };
    let qself = p.qself.as_ref()?;
    let last = p.path.segments.last().map(|s| s.ident.to_string());
    let resource = matches!(&*qself.ty, Type::Path(t) if t.path.is_ident("Self"))
        && p.path.segments.iter().any(|s| s.ident == "Resource");
    last.filter(|l| resource && matches!(l.as_str(), "API_VERSION" | "KIND"))
}

/// Each field's value when its key is missing, from the struct literal
/// `Name { .. }` that `Deserialize` builds.
fn missing_values(imp: &ItemImpl, name: &str) -> Result<BTreeMap<String, Presence>> {
    struct Find<'a> {
        name: &'a str,
        found: Vec<&'a syn::ExprStruct>,
    }
    impl<'a> Visit<'a> for Find<'a> {
        fn visit_expr_struct(&mut self, e: &'a syn::ExprStruct) {
            if e.path.is_ident(self.name) {
                self.found.push(e);
            }
            syn::visit::visit_expr_struct(self, e);
        }
    }
    let mut find = Find { name, found: Vec::new() };
    find.visit_item_impl(imp);
    let [literal] = find.found[..] else { return Err(format!("expected one `{name} {{ .. }}` in Deserialize").into()) };
    let mut out = BTreeMap::new();
    for fv in &literal.fields {
        let Member::Named(member) = &fv.member else { return Err("unnamed member in Deserialize".into()) };
        let presence = match &fv.expr {
            Expr::Path(_) => Presence::Optional,
            Expr::MethodCall(m) if m.method == "unwrap_or_default" => Presence::Defaulted,
            Expr::Try(t) if matches!(&*t.expr, Expr::MethodCall(m) if m.method == "ok_or_else") => Presence::Required,
            _ => return Err(format!("`{member}`: unexpected value in Deserialize").into()),
        };
        out.insert(member.to_string(), presence);
    }
    Ok(out)
}

/// A field type as source text, with `crate::` paths written as
/// `k8s_openapi::`. k8s-openapi's field types are all paths.
fn type_string(ty: &Type) -> Result<String> {
    let Type::Path(tp) = ty else { return Err("a field type that is not a path".into()) };
    if tp.qself.is_some() || tp.path.leading_colon.is_some() {
        return Err("a field type with a qualified or global path".into());
    }
    let mut out = Vec::new();
    for (i, segment) in tp.path.segments.iter().enumerate() {
        let ident = segment.ident.to_string();
        let mut text = if i == 0 && ident == "crate" { "k8s_openapi".to_string() } else { ident };
        match &segment.arguments {
            PathArguments::None => {}
            PathArguments::AngleBracketed(args) => {
                let args = args
                    .args
                    .iter()
                    .map(|a| match a {
                        GenericArgument::Type(t) => type_string(t),
                        _ => Err("a generic argument that is not a type".into()),
                    })
                    .collect::<Result<Vec<_>>>()?;
                text = format!("{text}<{}>", args.join(", "));
            }
            PathArguments::Parenthesized(_) => return Err("a function type".into()),
        }
        out.push(text);
    }
    Ok(out.join("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(src: &str) -> Kind {
        type_kind(&syn::parse_file(src).unwrap(), "T").unwrap()
    }

    const SERDE: &str = r#"
        impl<'de> crate::serde::Deserialize<'de> for T {
            fn deserialize<D>(d: D) -> Result<Self, D::Error> {
                Ok(T {
                    a: value_a.unwrap_or_default(),
                    b: value_b,
                    c: value_c.ok_or_else(|| crate::serde::de::Error::missing_field("c"))?,
                })
            }
        }
        impl crate::serde::Serialize for T {
            fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut state = serializer.serialize_struct("T", 2)?;
                crate::serde::ser::SerializeStruct::serialize_field(&mut state, "apiVersion", <Self as crate::Resource>::API_VERSION)?;
                crate::serde::ser::SerializeStruct::serialize_field(&mut state, "a", &self.a)?;
                if let Some(value) = &self.b {
                    crate::serde::ser::SerializeStruct::serialize_field(&mut state, "$b", value)?;
                }
                crate::serde::ser::SerializeStruct::serialize_field(&mut state, "c", &self.c)?;
                crate::serde::ser::SerializeStruct::end(state)
            }
        }
    "#;

    #[test]
    fn reads_fields_presence_and_constants() {
        let src = format!(
            "pub struct T {{ pub a: std::vec::Vec<crate::x::Y>, pub b: Option<i32>, pub c: crate::Time }} {SERDE}"
        );
        let Kind::Struct { constants, fields } = kind(&src) else { panic!("a struct") };
        assert_eq!(constants, [("apiVersion".to_owned(), "API_VERSION".to_owned())]);
        let summary: Vec<_> =
            fields.iter().map(|f| (f.member.as_str(), f.ty.as_str(), f.json.as_str(), f.presence)).collect();
        assert_eq!(
            summary,
            [
                ("a", "std::vec::Vec<k8s_openapi::x::Y>", "a", Presence::Defaulted),
                ("b", "Option<i32>", "$b", Presence::Optional),
                ("c", "k8s_openapi::Time", "c", Presence::Required),
            ]
        );
    }

    #[test]
    fn rejects_an_unserialised_field() {
        let src = format!("pub struct T {{ pub a: i32, pub b: Option<i32>, pub c: i32, pub d: i32 }} {SERDE}");
        assert!(type_kind(&syn::parse_file(&src).unwrap(), "T").is_err());
    }

    #[test]
    fn classifies_other_types() {
        assert!(matches!(kind("pub struct T(pub crate::serde_json::Value);"), Kind::Json));
        assert!(matches!(kind("pub struct T(pub std::string::String);"), Kind::Other(_)));
        assert!(matches!(kind("pub enum T { A(i32) }"), Kind::Other(_)));
        assert!(matches!(kind("pub struct T<U> { pub u: U }"), Kind::Other(_)));
    }
}
