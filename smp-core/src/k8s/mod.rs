//! [`StrategicMerge`] for the types of [`k8s_openapi`] (feature
//! `k8s-openapi`), with the patch metadata that the API server uses (the
//! `patchStrategy` and `patchMergeKey` tags of the Go types).
//!
//! The structs of k8s-openapi are described in one generated file
//! (`generated.rs`, written by `cargo run -p smp-k8s-gen` from
//! k8s-openapi's sources and `smp-k8s-types/generator/patch_metadata.txt`),
//! each under the gates of the Kubernetes versions that have it; the types
//! that are not plain structs are implemented here by hand. The types of
//! alpha and beta API versions (`v1beta2`, `v1alpha3`...) are under the
//! feature `k8s-prerelease` too, except those a stable type holds.
//! [`is_built_in`] tells the kinds apart from custom resources without
//! compiling a schema.
//!
//! Each type is described by constants (its field table, the facts the
//! walk needs) and one schema function; the steps that walk it are
//! compiled once for every type, in the program that uses them. Building
//! the `k8s-openapi` feature compiles the schema functions only; a crate
//! that diffs a `Deployment` compiles the few per-type steps of
//! `Deployment` and what it holds (`==`, the option and list steps of its
//! fields), and holds one copy of each table and schema.
//!
//! ```
//! use k8s_openapi::api::core::v1::{Container, PodSpec};
//! use smp_core::StrategicMerge;
//!
//! let live = PodSpec {
//!     containers: vec![Container { name: "app".into(), image: Some("app:1".into()), ..Default::default() }],
//!     ..Default::default()
//! };
//! let mut desired = live.clone();
//! desired.containers[0].image = Some("app:2".into());
//!
//! let patch = live.diff(&desired).unwrap();
//! assert_eq!(patch["containers"], serde_json::json!([{"name": "app", "image": "app:2"}]));
//! assert_eq!(live.apply(&patch).unwrap(), desired);
//! ```

use crate::schema::{FieldSchema, Shape, Strategy, StructSchema};
use crate::typed::{StrategicMerge, Walk};

pub use k8s_openapi;

// Written by the generator as it is, not by rustfmt.
#[rustfmt::skip]
mod generated;

// Strings, numbers or either in JSON, and arbitrary JSON.
smp_derive::__foreign_impls! {
    krate = crate;
    k8s_openapi::apimachinery::pkg::api::resource::Quantity as "Quantity" = scalar;
    k8s_openapi::apimachinery::pkg::apis::meta::v1::Time as "Time" = scalar;
    k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime as "MicroTime" = scalar;
    k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as "IntOrString" = scalar;
    k8s_openapi::ByteString as "ByteString" = scalar;
}

/// Types whose JSON is arbitrary (an embedded object, any JSON value, a
/// schema or a list of them...) but whose Go types, which the reference's
/// struct metadata reads, have no JSON fields (`json:"-"`) or only untagged
/// Go fields. Below them the reference finds no field: merging or diffing
/// objects or lists under such a value fails with `unable to find api field
/// in struct RawExtension for the json field "a"` (kubectl answers exactly
/// that for a `ControllerRevision`'s `data`), while scalars, additions and
/// removals go through. The OpenAPI v3 documents describe them as objects
/// without properties, on which lookups fail too.
mod arbitrary_json {
    use crate::schema::{FieldSchema, Shape, Strategy, StructSchema};
    use crate::typed::{StrategicMerge, Walk};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;

    /// A Go field without a json tag: named as in Go.
    const fn go_field(name: &'static str, pointer: bool, shape: fn() -> Shape) -> FieldSchema {
        FieldSchema { pointer, ..FieldSchema::new(name, Strategy::NONE, None, shape) }
    }

    fn schema_props() -> Shape {
        <apiextensions::JSONSchemaProps as StrategicMerge>::shape()
    }

    macro_rules! go_struct {
        ($($ty:ty as $name:literal { $($field:expr),* $(,)? })*) => {$(
            impl Walk for $ty {
                fn __shape() -> Shape {
                    Shape::Struct(const { &StructSchema { name: $name, fields: &[$($field),*] } })
                }
            }
        )*};
    }

    go_struct! {
        k8s_openapi::apimachinery::pkg::runtime::RawExtension as "RawExtension" {}
        apiextensions::JSON as "JSON" {}
        apiextensions::JSONSchemaPropsOrArray as "JSONSchemaPropsOrArray" {
            go_field("Schema", true, schema_props),
            go_field("JSONSchemas", false, || Shape::List(schema_props)),
        }
        apiextensions::JSONSchemaPropsOrBool as "JSONSchemaPropsOrBool" {
            go_field("Allows", false, || Shape::Scalar),
            go_field("Schema", true, schema_props),
        }
        apiextensions::JSONSchemaPropsOrStringArray as "JSONSchemaPropsOrStringArray" {
            go_field("Schema", true, schema_props),
            go_field("Property", false, || Shape::List(|| Shape::Scalar)),
        }
    }
}

#[cfg(feature = "k8s-kinds")]
/// An OpenAPI definition name and the schema of its type.
type Definition = (&'static str, fn() -> Shape);

/// A resource type's `apiVersion` and `kind`.
type Kind = (&'static str, &'static str);

#[cfg(feature = "k8s-kinds")]
/// A resource type's schema, beside its [`Kind`] in the same place of the
/// other table.
type ResourceShape = fn() -> Shape;

#[cfg(feature = "k8s-kinds")]
/// The definitions of the hand-written types, sorted by name.
static HAND_WRITTEN: &[Definition] = &[
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        <k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON as StrategicMerge>::shape,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        <k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray as StrategicMerge>::shape,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        <k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrBool as StrategicMerge>::shape,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
        <k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrStringArray as StrategicMerge>::shape,
    ),
    (
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        <k8s_openapi::apimachinery::pkg::api::resource::Quantity as StrategicMerge>::shape,
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        <k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime as StrategicMerge>::shape,
    ),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", <k8s_openapi::apimachinery::pkg::apis::meta::v1::Time as StrategicMerge>::shape),
    ("io.k8s.apimachinery.pkg.runtime.RawExtension", <k8s_openapi::apimachinery::pkg::runtime::RawExtension as StrategicMerge>::shape),
    (
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        <k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as StrategicMerge>::shape,
    ),
];

/// A list of resources (`kind: PodList`...): `items` is replaced whole, as
/// it has no patch metadata.
impl<T> Walk for k8s_openapi::List<T>
where
    T: k8s_openapi::ListableResource + StrategicMerge,
{
    fn __shape() -> Shape {
        Shape::Struct(
            const {
                &StructSchema {
                    name: "List",
                    fields: &[
                        constant_field("apiVersion"),
                        constant_field("kind"),
                        FieldSchema::new("items", Strategy::NONE, None, <Vec<T> as StrategicMerge>::shape),
                        FieldSchema::new(
                            "metadata",
                            Strategy::NONE,
                            None,
                            <k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta as StrategicMerge>::shape,
                        ),
                    ],
                }
            },
        )
    }
}

/// A field that always holds the same string (`apiVersion`, `kind`).
const fn constant_field(name: &'static str) -> FieldSchema {
    FieldSchema::new(name, Strategy::NONE, None, || Shape::Scalar)
}

#[cfg(feature = "k8s-kinds")]
#[cfg_attr(docsrs, doc(cfg(feature = "k8s-kinds")))]
/// The schema of the type generated from an OpenAPI definition, e.g.
/// `io.k8s.api.core.v1.PodSpec`, in the Kubernetes version k8s-openapi is
/// built for.
pub fn shape_of_definition(name: &str) -> Option<Shape> {
    generated::DEFINITIONS
        .iter()
        .copied()
        .chain([HAND_WRITTEN])
        .find_map(|table| table.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| (table[i].1)()))
}

/// Whether a resource type is built into Kubernetes (one of k8s-openapi's,
/// of a stable version or not), by `apiVersion` and `kind`, in the
/// Kubernetes version k8s-openapi is built for: the API server takes
/// strategic merge patches for these, merge patches for custom resources.
/// Unlike [`shape_of_kind`] (feature `k8s-kinds`), it compiles no schema.
///
/// ```
/// assert!(smp_core::k8s::is_built_in("apps/v1", "Deployment"));
/// assert!(!smp_core::k8s::is_built_in("example.com/v1", "Widget"));
/// ```
pub fn is_built_in(api_version: &str, kind: &str) -> bool {
    generated::KINDS.iter().copied().flatten().any(|(a, k)| *a == api_version && *k == kind)
}

#[cfg(feature = "k8s-kinds")]
#[cfg_attr(docsrs, doc(cfg(feature = "k8s-kinds")))]
/// The schema of a built-in resource type by `apiVersion` and `kind`
/// (e.g. `apps/v1`, `Deployment`), in the Kubernetes version k8s-openapi is
/// built for.
pub fn shape_of_kind(api_version: &str, kind: &str) -> Option<Shape> {
    kinds_with_shapes().find(|((a, k), _)| *a == api_version && *k == kind).map(|(_, shape)| shape())
}

#[cfg(feature = "k8s-kinds")]
#[cfg_attr(docsrs, doc(cfg(feature = "k8s-kinds")))]
/// Every built-in resource type, as `(apiVersion, kind, schema)`, in the
/// Kubernetes version k8s-openapi is built for.
pub fn resources() -> impl Iterator<Item = (&'static str, &'static str, Shape)> {
    kinds_with_shapes().map(|((api_version, kind), shape)| (api_version, kind, shape()))
}

#[cfg(feature = "k8s-kinds")]
/// Each resource type's kind with its schema: the generator writes both
/// tables from the same types, in the same order.
fn kinds_with_shapes() -> impl Iterator<Item = (Kind, ResourceShape)> {
    let kinds = generated::KINDS.iter().copied().flatten().copied();
    kinds.zip(generated::RESOURCE_SHAPES.iter().copied().flatten().copied())
}

#[cfg(feature = "k8s-kinds")]
#[cfg_attr(docsrs, doc(cfg(feature = "k8s-kinds")))]
/// Every type with an OpenAPI definition, by definition name, in the
/// Kubernetes version k8s-openapi is built for.
pub fn definitions() -> impl Iterator<Item = (&'static str, Shape)> {
    generated::DEFINITIONS.iter().copied().flatten().chain(HAND_WRITTEN).map(|(name, shape)| (*name, shape()))
}
