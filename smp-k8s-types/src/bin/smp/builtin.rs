//! The built-in kinds of Kubernetes, with the static schemas compiled into
//! smp for the Kubernetes version k8s-openapi is built for.

use smp_core::Schema;
use smp_k8s_types::names::{group_of, plural, short_names};
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

/// The names a kind answers to, lower case: kind, plural, short names.
fn names_of(kind: &str) -> Vec<String> {
    let mut names = vec![kind.to_ascii_lowercase(), plural(kind)];
    names.extend(short_names(kind).iter().map(|s| s.to_string()));
    names
}

/// How recent an API version is, for choosing among the versions of one
/// group: GA before beta before alpha, then by number.
fn version_rank(api_version: &str) -> (u8, u32, u32) {
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    let number = |s: &str| s.parse::<u32>().unwrap_or(0);
    let rest = version.strip_prefix('v').unwrap_or(version);
    let (major, level, minor) = match rest.find(|c: char| !c.is_ascii_digit()) {
        None => (rest, 2, ""),
        Some(at) => {
            let (major, tail) = rest.split_at(at);
            match (tail.strip_prefix("beta"), tail.strip_prefix("alpha")) {
                (Some(minor), _) => (major, 1, minor),
                (_, Some(minor)) => (major, 0, minor),
                _ => (major, 0, ""),
            }
        }
    };
    (level, number(major), number(minor))
}

/// The schema of a kind named on the command line, as kubectl accepts
/// names: `apps/v1/Deployment`, `Deployment`, `deployments`, `deploy`,
/// `Deployment.apps`, `deployments.v1.apps`, in any case. Among the
/// versions of one group, the most recent wins; a name in several groups
/// is ambiguous.
pub fn by_name(name: &str) -> Result<Schema<'static>, String> {
    let (api_version, kind) = type_meta_by_name(name)?;
    by_type_meta(api_version, kind).ok_or_else(|| unknown(name))
}

/// The `apiVersion` and `kind` of a kind named on the command line (the
/// names [`by_name`] accepts).
pub fn type_meta_by_name(name: &str) -> Result<(&'static str, &'static str), String> {
    if let Some((api_version, kind)) = name.rsplit_once('/') {
        return resources()
            .find(|(v, k, _)| *v == api_version && k.eq_ignore_ascii_case(kind))
            .map(|(v, k, _)| (v, k))
            .ok_or_else(|| unknown(name));
    }
    let (resource, group) = match name.split_once('.') {
        Some((resource, qualifier)) => {
            let group = match qualifier.split_once('.') {
                Some((version, group)) if version_rank(version) != (0, 0, 0) => group,
                _ => qualifier,
            };
            (resource, Some(group))
        }
        None => (name, None),
    };
    let resource = resource.to_ascii_lowercase();
    let mut matches: Vec<_> = resources()
        .filter(|(api_version, kind, _)| {
            group.is_none_or(|g| {
                group_of(api_version).eq_ignore_ascii_case(g) || (g == "core" && group_of(api_version).is_empty())
            }) && names_of(kind).contains(&resource)
        })
        .collect();
    // Only exact kind names when they tell groups apart (`Event` is in two).
    let groups = |m: &[(&str, &str, _)]| {
        let mut groups: Vec<&str> = m.iter().map(|(v, _, _)| group_of(v)).collect();
        groups.dedup();
        groups.len()
    };
    matches.sort_by_key(|(api_version, _, _)| (group_of(api_version), std::cmp::Reverse(version_rank(api_version))));
    match matches.as_slice() {
        [] => Err(unknown(name)),
        several if groups(several) > 1 => {
            let names: Vec<String> =
                several.iter().map(|(api_version, kind, _)| format!("{api_version}/{kind}")).collect();
            Err(format!("kind {name:?} is ambiguous: pass one of {} to --kind", names.join(", ")))
        }
        [(api_version, kind, _), ..] => Ok((api_version, kind)),
    }
}

/// Why `name` is no kind: with the names it is closest to, if any.
fn unknown(name: &str) -> String {
    let wanted = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut scored: Vec<(f64, String)> = resources()
        .flat_map(|(api_version, kind, _)| {
            let full = format!("{api_version}/{kind}");
            let wanted = &wanted;
            names_of(kind).into_iter().map(move |candidate| (strsim::jaro_winkler(wanted, &candidate), full.clone()))
        })
        .filter(|(score, _)| *score >= 0.85)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    // The closest names only: those about as close as the best.
    let best = scored.first().map_or(1.0, |(score, _)| *score);
    let mut similar: Vec<String> = Vec::new();
    for (_, full) in scored.into_iter().filter(|(score, _)| best - score < 0.02) {
        if !similar.contains(&full) && similar.len() < 3 {
            similar.push(full);
        }
    }
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
         for a custom resource pass its CRD with --crd FILE or its schema with --openapi DOC, or merge without one with --untyped"
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
    fn kind_names_as_kubectl_accepts_them() {
        for (name, want) in [
            ("svc", "Service"),
            ("deploy", "Deployment"),
            ("cm", "ConfigMap"),
            ("sts", "StatefulSet"),
            ("deployments", "Deployment"),
            ("Deployment.apps", "Deployment"),
            ("deployments.apps", "Deployment"),
            ("deploy.v1.apps", "Deployment"),
            ("DEPLOYMENT", "Deployment"),
            ("ingresses", "Ingress"),
            ("networkpolicies", "NetworkPolicy"),
            ("endpoints", "Endpoints"),
            ("pods.core", "Pod"),
            ("events.events.k8s.io", "Event"),
        ] {
            assert_eq!(struct_name(by_name(name).unwrap_or_else(|e| panic!("{name}: {e}"))), want, "{name}");
        }
    }

    #[test]
    fn the_most_recent_version_of_a_group_wins() {
        let hpa = by_name("hpa").unwrap();
        assert_eq!(struct_name(hpa), "HorizontalPodAutoscaler");
        let v2 = by_name("autoscaling/v2/HorizontalPodAutoscaler").unwrap();
        assert_eq!(format!("{hpa:?}"), format!("{v2:?}"));
        assert!(version_rank("v2") > version_rank("v1") && version_rank("v1") > version_rank("v1beta2"));
        assert!(
            version_rank("v1beta2") > version_rank("v1beta1") && version_rank("v1beta1") > version_rank("v1alpha1")
        );
    }

    #[test]
    fn an_ambiguous_kind_lists_its_api_versions() {
        let err = by_name("Event").unwrap_err();
        assert!(err.contains("ambiguous"), "{err}");
        assert!(err.contains("v1/Event") && err.contains("events.k8s.io/v1/Event"), "{err}");
    }

    #[test]
    fn an_unknown_kind_suggests_similar_ones_or_openapi() {
        let err = by_name("Deploymnet").unwrap_err();
        assert!(err.contains("did you mean apps/v1/Deployment?"), "{err}");
        let err = by_name("statefulsest").unwrap_err();
        assert!(err.contains("did you mean apps/v1/StatefulSet?"), "{err}");
        let err = by_name("example.com/v1/Widget").unwrap_err();
        assert!(err.contains("not a built-in kind") && err.contains("--openapi"), "{err}");
        assert!(by_name("apps/v2/Deployment").unwrap_err().contains("did you mean apps/v1/Deployment?"));
    }
}
