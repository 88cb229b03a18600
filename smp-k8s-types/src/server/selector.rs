//! Label and field selectors of list and watch requests, as
//! `k8s.io/apimachinery/pkg/labels` and `fields` read them.

use super::status::ApiError;
use serde_json::Value;

/// One requirement of a selector.
#[derive(Clone, Debug, PartialEq)]
enum Requirement {
    /// `key=value`, `key==value`, `key in (a,b)`.
    In(String, Vec<String>),
    /// `key!=value`, `key notin (a,b)`: also true when the key is absent.
    NotIn(String, Vec<String>),
    /// `key`.
    Exists(String),
    /// `!key`.
    Absent(String),
}

impl Requirement {
    fn matches(&self, get: &dyn Fn(&str) -> Option<String>) -> bool {
        match self {
            Requirement::In(k, values) => get(k).is_some_and(|v| values.contains(&v)),
            Requirement::NotIn(k, values) => get(k).is_none_or(|v| !values.contains(&v)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::Absent(k) => get(k).is_none(),
        }
    }
}

/// A label or field selector: all its requirements hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selector(Vec<Requirement>);

/// Splits at commas outside parentheses.
fn terms(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter().map(str::trim).filter(|t| !t.is_empty()).collect()
}

fn set_of(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.split(',').map(|v| v.trim().to_string()).collect())
}

impl Selector {
    /// A `labelSelector` parameter.
    pub fn labels(text: &str) -> Result<Selector, ApiError> {
        let bad = |why: &str| ApiError::bad_request(format!("unable to parse requirement: {why}"));
        let mut out = Vec::new();
        for term in terms(text) {
            let requirement = if let Some(key) = term.strip_prefix('!') {
                Requirement::Absent(key.trim().to_string())
            } else if let Some((k, v)) = term.split_once("!=") {
                Requirement::NotIn(k.trim().to_string(), vec![v.trim().to_string()])
            } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                Requirement::In(k.trim().to_string(), vec![v.trim().to_string()])
            } else if let Some((k, set)) = term.split_once(" notin ") {
                Requirement::NotIn(k.trim().to_string(), set_of(set).ok_or_else(|| bad(term))?)
            } else if let Some((k, set)) = term.split_once(" in ") {
                Requirement::In(k.trim().to_string(), set_of(set).ok_or_else(|| bad(term))?)
            } else if term.contains([' ', '(', ')']) {
                return Err(bad(term));
            } else {
                Requirement::Exists(term.to_string())
            };
            out.push(requirement);
        }
        Ok(Selector(out))
    }

    /// A `fieldSelector` parameter: `=`, `==`, `!=` on `metadata.name` and
    /// `metadata.namespace`, the fields every resource supports.
    pub fn fields(text: &str) -> Result<Selector, ApiError> {
        let mut out = Vec::new();
        for term in terms(text) {
            let (key, requirement) = if let Some((k, v)) = term.split_once("!=") {
                (k.trim(), Requirement::NotIn(k.trim().to_string(), vec![v.trim().to_string()]))
            } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                (k.trim(), Requirement::In(k.trim().to_string(), vec![v.trim().to_string()]))
            } else {
                return Err(ApiError::bad_request(format!("invalid selector: '{text}'; can't understand '{term}'")));
            };
            if key != "metadata.name" && key != "metadata.namespace" {
                return Err(ApiError::bad_request(format!(
                    "\"{key}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
                )));
            }
            out.push(requirement);
        }
        Ok(Selector(out))
    }

    /// Whether an object's labels satisfy the selector.
    pub fn matches_labels(&self, object: &Value) -> bool {
        let labels = &object["metadata"]["labels"];
        let get = |k: &str| labels.get(k).and_then(Value::as_str).map(str::to_string);
        self.0.iter().all(|r| r.matches(&get))
    }

    /// Whether an object's name and namespace satisfy the selector.
    pub fn matches_fields(&self, object: &Value) -> bool {
        let get = |k: &str| {
            let field = k.strip_prefix("metadata.")?;
            Some(object["metadata"].get(field).and_then(Value::as_str).unwrap_or_default().to_string())
        };
        self.0.iter().all(|r| r.matches(&get))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_selectors_match_as_kubernetes_matches() {
        let obj = json!({"metadata": {"labels": {"app": "web", "tier": "front"}}});
        let yes = [
            "app=web",
            "app==web",
            "app",
            "!env",
            "tier in (front, back)",
            "env notin (prod)",
            "app!=db",
            "app=web,tier",
        ];
        for s in yes {
            assert!(Selector::labels(s).unwrap().matches_labels(&obj), "{s}");
        }
        let no = ["app=db", "env", "!app", "tier notin (front)", "tier in (back)", "app=web,env=prod"];
        for s in no {
            assert!(!Selector::labels(s).unwrap().matches_labels(&obj), "{s}");
        }
        assert!(Selector::labels("").unwrap().matches_labels(&json!({})));
    }

    #[test]
    fn field_selectors_know_name_and_namespace_only() {
        let obj = json!({"metadata": {"name": "web", "namespace": "default"}});
        assert!(Selector::fields("metadata.name=web").unwrap().matches_fields(&obj));
        assert!(Selector::fields("metadata.namespace!=kube-system").unwrap().matches_fields(&obj));
        assert!(!Selector::fields("metadata.name==db").unwrap().matches_fields(&obj));
        let err = Selector::fields("spec.nodeName=a").unwrap_err();
        assert_eq!(err.code, 400);
        assert!(err.message.contains("is not a known field selector"), "{}", err.message);
    }
}
