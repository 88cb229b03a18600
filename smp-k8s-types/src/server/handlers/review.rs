//! The create-only reviews of authentication and authorization, answered
//! as kube-apiserver answers them with anonymous authentication and the
//! `AlwaysAllow` authorizer (this server checks no one): every access is
//! allowed, the requester is `system:anonymous`. Nothing is stored.

use super::{Ctx, Reply};
use crate::server::status::ApiError;
use serde_json::{Value, json};

/// What a review resource answers, if `resource` is one.
fn status_of(group: &str, plural: &str) -> Option<Value> {
    Some(match (group, plural) {
        ("authorization.k8s.io", "selfsubjectaccessreviews" | "subjectaccessreviews" | "localsubjectaccessreviews") => {
            json!({"allowed": true})
        }
        ("authorization.k8s.io", "selfsubjectrulesreviews") => json!({
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": false,
        }),
        ("authentication.k8s.io", "selfsubjectreviews") => {
            json!({"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}})
        }
        _ => return None,
    })
}

/// Whether a resource is a review: it serves `create` only.
pub fn is_review(group: &str, plural: &str) -> bool {
    status_of(group, plural).is_some()
}

/// The review, answered (201, as a create).
pub fn answer(ctx: &Ctx<'_>, mut review: Value) -> Result<Reply, ApiError> {
    let status = status_of(&ctx.resource.group, &ctx.resource.plural).ok_or_else(ApiError::no_route)?;
    if !review.is_object() {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {})",
            ctx.resource.kind
        )));
    }
    review["status"] = status;
    let meta = crate::server::object::meta_mut(&mut review);
    meta.entry("creationTimestamp").or_insert(Value::Null);
    Ok(Reply::json(201, ctx.show(&review)))
}
