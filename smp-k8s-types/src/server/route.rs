//! What a request's path and query name: a discovery document, an OpenAPI
//! document, or a resource (collection, object, subresource).

use std::collections::HashMap;

/// The target of a request, read from its path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `/version`.
    Version,
    /// `/healthz`, `/livez`, `/readyz`.
    Health,
    /// `/api`.
    CoreVersions,
    /// `/apis`.
    Groups,
    /// `/apis/{group}`.
    Group(String),
    /// `/api/v1`, `/apis/{group}/{version}`.
    Resources { group: String, version: String },
    /// `/openapi/v3`.
    OpenApiRoot,
    /// `/openapi/v3/api/v1`, `/openapi/v3/apis/{group}/{version}`.
    OpenApi { group: String, version: String },
    /// A collection, an object or a subresource.
    Object(Target),
    /// Anything else.
    Unknown,
}

/// A resource path: `/apis/{group}/{version}[/namespaces/{ns}]/{plural}[/{name}[/{sub}]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// API group (`""` for the core group).
    pub group: String,
    /// Version.
    pub version: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace from the path.
    pub namespace: Option<String>,
    /// Object name.
    pub name: Option<String>,
    /// Subresource (`status`).
    pub subresource: Option<String>,
}

impl Route {
    /// Reads a path (without the query).
    pub fn parse(path: &str) -> Route {
        let parts: Vec<&str> = path.trim_matches('/').split('/').filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            ["version"] => Route::Version,
            ["healthz" | "livez" | "readyz", ..] => Route::Health,
            ["api"] => Route::CoreVersions,
            ["apis"] => Route::Groups,
            ["apis", group] => Route::Group(group.to_string()),
            ["api", version] => Route::Resources { group: String::new(), version: version.to_string() },
            ["apis", group, version] => Route::Resources { group: group.to_string(), version: version.to_string() },
            ["openapi", "v3"] => Route::OpenApiRoot,
            ["openapi", "v3", "api", version] => Route::OpenApi { group: String::new(), version: version.to_string() },
            ["openapi", "v3", "apis", group, version] => {
                Route::OpenApi { group: group.to_string(), version: version.to_string() }
            }
            ["api", version, rest @ ..] => Self::target("", version, rest),
            ["apis", group, version, rest @ ..] => Self::target(group, version, rest),
            _ => Route::Unknown,
        }
    }

    fn target(group: &str, version: &str, rest: &[&str]) -> Route {
        // `namespaces/{ns}/{resource}...`, unless it is the namespace
        // itself (`namespaces/{name}` or `namespaces/{name}/status`).
        let (namespace, rest) = match rest {
            ["namespaces", ns, resource, tail @ ..] if !(tail.is_empty() && is_subresource(resource)) => {
                (Some(ns.to_string()), [&[*resource][..], tail].concat())
            }
            _ => (None, rest.to_vec()),
        };
        let (resource, name, subresource) = match rest.as_slice() {
            [resource] => (resource, None, None),
            [resource, name] => (resource, Some(name.to_string()), None),
            [resource, name, sub] => (resource, Some(name.to_string()), Some(sub.to_string())),
            _ => return Route::Unknown,
        };
        Route::Object(Target {
            group: group.to_string(),
            version: version.to_string(),
            resource: resource.to_string(),
            namespace,
            name,
            subresource,
        })
    }
}

fn is_subresource(part: &str) -> bool {
    matches!(part, "status" | "finalize")
}

/// The query parameters (the last of a repeated one wins), decoded.
pub fn query(raw: Option<&str>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in raw.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k), decode(v));
    }
    out
}

/// Percent-decoding (`+` is a space, as in forms).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(group: &str, resource: &str, ns: Option<&str>, name: Option<&str>, sub: Option<&str>) -> Route {
        Route::Object(Target {
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            namespace: ns.map(Into::into),
            name: name.map(Into::into),
            subresource: sub.map(Into::into),
        })
    }

    #[test]
    fn paths_name_their_targets() {
        assert_eq!(
            Route::parse("/api/v1/namespaces/default/configmaps"),
            object("", "configmaps", Some("default"), None, None)
        );
        assert_eq!(
            Route::parse("/apis/apps/v1/namespaces/ns/deployments/web/status"),
            object("apps", "deployments", Some("ns"), Some("web"), Some("status"))
        );
        assert_eq!(Route::parse("/api/v1/namespaces/ns"), object("", "namespaces", None, Some("ns"), None));
        assert_eq!(
            Route::parse("/api/v1/namespaces/ns/status"),
            object("", "namespaces", None, Some("ns"), Some("status"))
        );
        assert_eq!(Route::parse("/api/v1/namespaces"), object("", "namespaces", None, None, None));
        assert_eq!(Route::parse("/apis/apps/v1/deployments"), object("apps", "deployments", None, None, None));
        assert_eq!(Route::parse("/apis/apps/v1"), Route::Resources { group: "apps".into(), version: "v1".into() });
        assert_eq!(
            Route::parse("/openapi/v3/apis/apps/v1"),
            Route::OpenApi { group: "apps".into(), version: "v1".into() }
        );
        assert_eq!(Route::parse("/api/v1/a/b/c/d"), Route::Unknown);
    }

    #[test]
    fn queries_are_decoded() {
        let q = query(Some("labelSelector=app%3Dweb%2Ctier+in+(a)&watch=1&bad=%zz%4"));
        assert_eq!(q["labelSelector"], "app=web,tier in (a)");
        assert_eq!(q["watch"], "1");
        assert_eq!(q["bad"], "%zz%4");
    }
}
