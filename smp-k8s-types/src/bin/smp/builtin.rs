//! The built-in kinds of Kubernetes, with the static schemas compiled into
//! smp for the Kubernetes version k8s-openapi is built for.

use smp_core::Schema;
use smp_k8s_types::resources;

k8s_openapi::k8s_if_1_33! { const KUBERNETES: &str = "1.33"; }
k8s_openapi::k8s_if_1_34! { const KUBERNETES: &str = "1.34"; }
k8s_openapi::k8s_if_1_35! { const KUBERNETES: &str = "1.35"; }
k8s_openapi::k8s_if_1_36! { const KUBERNETES: &str = "1.36"; }
k8s_openapi::k8s_if_1_37! { const KUBERNETES: &str = "1.37"; }

/// The schema of the built-in kind with this `apiVersion` and `kind`.
pub fn by_type_meta(api_version: &str, kind: &str) -> Option<Schema<'static>> {
    smp_k8s_types::shape_of_kind(api_version, kind).map(Schema::Static)
}

/// The schema of a kind named on the command line: `apps/v1/Deployment`,
/// `v1/Pod`, or just `Deployment` when one API group has it.
pub fn by_name(name: &str) -> Result<Schema<'static>, String> {
    if let Some((api_version, kind)) = name.rsplit_once('/') {
        return by_type_meta(api_version, kind).ok_or_else(|| unknown(name));
    }
    let exact: Vec<_> = resources().filter(|(_, kind, _)| *kind == name).collect();
    let matches = if exact.is_empty() {
        resources().filter(|(_, kind, _)| kind.eq_ignore_ascii_case(name)).collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [(_, _, shape)] => Ok(Schema::Static(*shape)),
        [] => Err(unknown(name)),
        several => {
            let names: Vec<String> =
                several.iter().map(|(api_version, kind, _)| format!("{api_version}/{kind}")).collect();
            Err(format!("kind {name:?} is ambiguous: pass one of {} to --kind", names.join(", ")))
        }
    }
}

/// Why `name` is no kind: with the built-in kinds whose name contains it
/// (ignoring case), if any.
fn unknown(name: &str) -> String {
    let kind = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let similar: Vec<String> = resources()
        .filter(|(_, k, _)| !kind.is_empty() && k.to_ascii_lowercase().contains(&kind))
        .map(|(api_version, k, _)| format!("{api_version}/{k}"))
        .collect();
    let hint = if similar.is_empty() {
        "for a custom resource, pass its schema with --openapi DOC".to_string()
    } else {
        format!("did you mean {}?", similar.join(", "))
    };
    format!("{name:?} is not a built-in kind of Kubernetes {KUBERNETES}: {hint}")
}

/// Why a document's kind has no built-in schema, and what to do instead.
pub fn not_built_in(api_version: &str, kind: &str) -> String {
    format!(
        "kind {kind:?} of apiVersion {api_version:?} is not a built-in kind of Kubernetes {KUBERNETES}; \
         for a custom resource pass its schema with --openapi DOC, or merge without one with --untyped"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn struct_name(schema: Schema<'static>) -> &'static str {
        match schema {
            Schema::Static(smp_core::Shape::Struct(s)) => s.name,
            other => panic!("not a struct schema: {other:?}"),
        }
    }

    #[test]
    fn a_kind_by_group_version_and_kind_or_alone() {
        assert_eq!(struct_name(by_name("apps/v1/Deployment").unwrap()), "Deployment");
        assert_eq!(struct_name(by_name("v1/Service").unwrap()), "Service");
        assert_eq!(struct_name(by_name("Deployment").unwrap()), "Deployment");
        assert_eq!(struct_name(by_name("configmap").unwrap()), "ConfigMap");
    }

    #[test]
    fn an_ambiguous_kind_lists_its_api_versions() {
        let err = by_name("Event").unwrap_err();
        assert!(err.contains("ambiguous"), "{err}");
        assert!(err.contains("v1/Event") && err.contains("events.k8s.io/v1/Event"), "{err}");
    }

    #[test]
    fn an_unknown_kind_suggests_similar_ones_or_openapi() {
        let err = by_name("Deploy").unwrap_err();
        assert!(err.contains("did you mean apps/v1/Deployment?"), "{err}");
        let err = by_name("example.com/v1/Widget").unwrap_err();
        assert!(err.contains("not a built-in kind") && err.contains("--openapi"), "{err}");
        assert!(by_name("apps/v2/Deployment").unwrap_err().contains("did you mean apps/v1/Deployment?"));
    }
}
