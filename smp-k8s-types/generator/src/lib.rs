//! Generates smp-core's `StrategicMerge` implementations for the types of
//! k8s-openapi (`smp-core/src/k8s/generated.rs`, one file for every
//! Kubernetes version, gated by k8s-openapi's version macros), from
//! k8s-openapi's sources and the patch metadata table `patch_metadata.txt`.
//!
//! - [`locate`] finds the workspace, k8s-openapi's sources and the output;
//! - [`parse`] reads every public type of a version directory;
//! - [`metadata`] reads the patch metadata table;
//! - [`emit`] writes the file;
//! - [`ssa_schemas`] cuts the built-in kinds' server-side apply schemas
//!   out of the API server's OpenAPI v3 documents.
//!
//! The few types that are not plain structs are implemented by hand in
//! `smp-core/src/k8s/mod.rs` ([`HAND_WRITTEN`]) or not at all
//! ([`NOT_IMPLEMENTED`]); any other one stops the generator.

pub mod emit;
pub mod locate;
pub mod metadata;
pub mod parse;
pub mod ssa_schemas;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub type Result<T, E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

/// Types of the version directories implemented by hand in
/// `smp-core/src/k8s/mod.rs` (the same in every version).
pub const HAND_WRITTEN: &[&str] = &[
    "k8s_openapi::List",
    "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON",
    "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray",
    "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrBool",
    "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrStringArray",
    "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
    "k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime",
    "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
    "k8s_openapi::apimachinery::pkg::runtime::RawExtension",
    "k8s_openapi::apimachinery::pkg::util::intstr::IntOrString",
];

/// Types left without an implementation: a watch stream's events and the
/// body of a PATCH request (which cannot be deserialised) are never
/// patched.
pub const NOT_IMPLEMENTED: &[&str] = &[
    "k8s_openapi::apimachinery::pkg::apis::meta::v1::Patch",
    "k8s_openapi::apimachinery::pkg::apis::meta::v1::WatchEvent",
];

/// The generated files and what the generator has to say about them.
pub struct Output {
    /// `(path, contents)` of each generated file.
    pub files: Vec<(PathBuf, String)>,
    /// The Kubernetes minor versions, oldest first.
    pub versions: Vec<u32>,
    /// For each patch metadata row (`definition field`), the versions in
    /// which it has a field; rows that map in no version are errors.
    pub mapped: BTreeMap<String, Vec<u32>>,
}

/// Generates the file.
pub fn generate(workspace_root: &Path) -> Result<Output> {
    let rows = metadata::parse(&std::fs::read_to_string(locate::metadata_file())?)?;
    let by_definition = metadata::index(&rows);
    let src = locate::k8s_openapi_src(workspace_root)?;
    let out_dir = locate::output_dir(workspace_root);
    let hand_module = std::fs::read_to_string(out_dir.join("mod.rs")).unwrap_or_default();

    let mut output = Output { files: Vec::new(), versions: Vec::new(), mapped: BTreeMap::new() };
    for row in &rows {
        output.mapped.insert(row_name(&row.definition, &row.field), Vec::new());
    }
    check_hand_module(&hand_module)?;
    let version_dirs = locate::version_dirs(&src)?;
    let mut file = emit::File::new(version_dirs.iter().map(|(minor, _)| *minor).collect());
    let mut seen_definitions = BTreeSet::new();
    for (minor, dir) in version_dirs {
        let types = parse::version(&dir)?;
        let mut described = Vec::new();
        let mut hand_written = BTreeSet::new();
        let mut definitions = BTreeSet::new();
        for def in &types {
            if !definitions.insert(def.definition.as_str()) {
                return Err(format!("1.{minor}: two types from definition {}", def.definition).into());
            }
            if HAND_WRITTEN.contains(&def.path.as_str()) {
                hand_written.insert(def.path.as_str());
                continue;
            }
            if NOT_IMPLEMENTED.contains(&def.path.as_str()) {
                continue;
            }
            let meta = match &def.kind {
                parse::Kind::Struct { fields, .. } => {
                    let rows = by_definition.get(def.definition.as_str());
                    fields
                        .iter()
                        .map(|f| match rows.and_then(|r| r.get(f.json.as_str())) {
                            Some(row) => {
                                output.mapped.get_mut(&row_name(&row.definition, &row.field)).unwrap().push(minor);
                                (row.strategy.as_str(), row.merge_key.as_str())
                            }
                            None => ("", ""),
                        })
                        .collect()
                }
                parse::Kind::Json => Vec::new(),
                parse::Kind::Other(what) => {
                    return Err(format!(
                        "1.{minor}: {} is a {what}: implement it by hand in smp-core/src/k8s/mod.rs and list it \
                         in HAND_WRITTEN, or list it in NOT_IMPLEMENTED",
                        def.path
                    )
                    .into());
                }
            };
            described.push(emit::Described { def, meta });
        }
        for path in HAND_WRITTEN {
            if !hand_written.contains(path) {
                return Err(format!("1.{minor}: the hand-written {path} is no longer in k8s-openapi").into());
            }
        }

        // Rows whose type is in this version but whose field is not.
        let unmapped: Vec<String> = rows
            .iter()
            .filter(|r| definitions.contains(r.definition.as_str()))
            .map(|r| row_name(&r.definition, &r.field))
            .filter(|name| !output.mapped[name].contains(&minor))
            .collect();
        file.add_version(minor, &described, unmapped);
        output.versions.push(minor);
        seen_definitions.extend(definitions.into_iter().map(str::to_string));
    }

    // A row whose type k8s-openapi has, but never with that field, is a
    // mistake in the table. (A type in no version is a group version that
    // Kubernetes no longer serves, or not yet.)
    for row in &rows {
        if seen_definitions.contains(&row.definition)
            && output.mapped[&row_name(&row.definition, &row.field)].is_empty()
        {
            return Err(format!(
                "patch_metadata.txt:{}: {} has no field {:?} in any version",
                row.line, row.definition, row.field
            )
            .into());
        }
    }
    output.files.push((out_dir.join("generated.rs"), file.text()));
    Ok(output)
}

fn row_name(definition: &str, field: &str) -> String {
    format!("{definition} {field}")
}

/// The hand-written module implements [`HAND_WRITTEN`] and includes the
/// generated file.
fn check_hand_module(text: &str) -> Result<()> {
    for path in HAND_WRITTEN {
        if !text.contains(path) {
            return Err(format!("smp-core/src/k8s/mod.rs does not implement {path}").into());
        }
    }
    if !text.contains("#[rustfmt::skip]\nmod generated;") {
        return Err("smp-core/src/k8s/mod.rs does not include generated.rs (`#[rustfmt::skip] mod generated;`)".into());
    }
    Ok(())
}
