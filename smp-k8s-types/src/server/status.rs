//! Errors as kube-apiserver answers them: a `Status` object with the
//! reason, message, details and code its `k8s.io/apimachinery` errors
//! package writes.

use super::catalog::ResourceType;
use serde_json::{Map, Value, json};

/// The message of a stale `resourceVersion` (the registry's
/// `OptimisticLockErrorMsg`).
pub const OPTIMISTIC_LOCK: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// A failed request: its HTTP code and `Status` body.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// HTTP status code (also `code` in the body).
    pub code: u16,
    /// `reason`, e.g. `NotFound`; empty for none.
    pub reason: &'static str,
    /// `message`.
    pub message: String,
    /// `details`, if any.
    pub details: Option<Value>,
    /// Seconds for the `Retry-After` header (429).
    pub retry_after: Option<u32>,
}

/// `details` naming an object of a resource: `name`, `group`, `kind`
/// (the resource's plural, as the server puts it).
fn details(resource: &ResourceType, name: &str) -> Value {
    let mut d = Map::new();
    if !name.is_empty() {
        d.insert("name".into(), name.into());
    }
    if !resource.group.is_empty() {
        d.insert("group".into(), resource.group.clone().into());
    }
    d.insert("kind".into(), resource.plural.clone().into());
    Value::Object(d)
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>, details: Option<Value>) -> Self {
        ApiError { code, reason, message: message.into(), details, retry_after: None }
    }

    /// 404: `configmaps "web" not found`.
    pub fn not_found(resource: &ResourceType, name: &str) -> Self {
        let message = format!("{} \"{name}\" not found", resource.qualified());
        Self::new(404, "NotFound", message, Some(details(resource, name)))
    }

    /// 409 on create: `configmaps "web" already exists`.
    pub fn already_exists(resource: &ResourceType, name: &str) -> Self {
        let message = format!("{} \"{name}\" already exists", resource.qualified());
        Self::new(409, "AlreadyExists", message, Some(details(resource, name)))
    }

    /// 409: `Operation cannot be fulfilled on configmaps "web": {why}`.
    pub fn conflict(resource: &ResourceType, name: &str, why: &str) -> Self {
        let message = format!("Operation cannot be fulfilled on {} \"{name}\": {why}", resource.qualified());
        Self::new(409, "Conflict", message, Some(details(resource, name)))
    }

    /// 409 for a stale `resourceVersion`.
    pub fn stale(resource: &ResourceType, name: &str) -> Self {
        Self::conflict(resource, name, OPTIMISTIC_LOCK)
    }

    /// 400 `BadRequest`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message, None)
    }

    /// 422 `Invalid`, one cause per `(field, type, message)`, as
    /// `NewInvalid` writes it.
    pub fn invalid(resource: &ResourceType, name: &str, causes: &[(&str, &str, String)]) -> Self {
        let listed: Vec<String> = causes.iter().map(|(field, _, message)| format!("{field}: {message}")).collect();
        let joined = match listed.len() {
            1 => listed[0].clone(),
            _ => format!("[{}]", listed.join(", ")),
        };
        let message = format!("{} \"{name}\" is invalid: {joined}", resource.qualified_kind());
        let mut d = Map::new();
        if !name.is_empty() {
            d.insert("name".into(), name.into());
        }
        if !resource.group.is_empty() {
            d.insert("group".into(), resource.group.clone().into());
        }
        d.insert("kind".into(), resource.kind.clone().into());
        let causes = causes
            .iter()
            .map(|(field, reason, message)| json!({"reason": reason, "message": message, "field": field}))
            .collect();
        d.insert("causes".into(), Value::Array(causes));
        Self::new(422, "Invalid", message, Some(Value::Object(d)))
    }

    /// 422 as `NewGenericServerResponse` writes it for an error inside a
    /// JSON patch: the reason of the failure is not in the answer.
    pub fn unprocessable() -> Self {
        Self::new(422, "Invalid", "the server rejected our request due to an error in our request", Some(json!({})))
    }

    /// 415: the patch type is not one the resource accepts.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        let message = format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        );
        Self::new(415, "UnsupportedMediaType", message, None)
    }

    /// 404 for a path that names no resource (no `details`).
    pub fn no_route() -> Self {
        Self::new(404, "NotFound", "the server could not find the requested resource", Some(json!({})))
    }

    /// 405 for a verb the resource does not serve.
    pub fn method_not_allowed(resource: &ResourceType, verb: &str) -> Self {
        let message = format!(
            "the server does not allow this method on the requested resource ({verb} {})",
            resource.qualified()
        );
        Self::new(405, "MethodNotAllowed", message, Some(details(resource, "")))
    }

    /// 429 with `Retry-After`.
    pub fn too_many_requests(retry_after: u32) -> Self {
        let mut e = Self::new(
            429,
            "TooManyRequests",
            "Too many requests, please try again later.",
            Some(json!({"retryAfterSeconds": retry_after})),
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 500: `Internal error occurred: {why}`.
    pub fn internal(why: impl std::fmt::Display) -> Self {
        let why = why.to_string();
        Self::new(
            500,
            "InternalError",
            format!("Internal error occurred: {why}"),
            Some(json!({"causes": [{"message": why}]})),
        )
    }

    /// 500 as the server answers an error it has no type for (a strategic
    /// merge patch it cannot apply): the error's text, no reason.
    pub fn untyped(message: impl Into<String>) -> Self {
        Self::new(500, "", message, None)
    }

    /// 410 for a watch or list from a resourceVersion the server no
    /// longer has.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message, None)
    }

    /// The `Status` body.
    pub fn to_status(&self) -> Value {
        let mut s = Map::new();
        s.insert("kind".into(), "Status".into());
        s.insert("apiVersion".into(), "v1".into());
        s.insert("metadata".into(), json!({}));
        s.insert("status".into(), "Failure".into());
        s.insert("message".into(), self.message.clone().into());
        if !self.reason.is_empty() {
            s.insert("reason".into(), self.reason.into());
        }
        if let Some(d) = &self.details {
            s.insert("details".into(), d.clone());
        }
        s.insert("code".into(), self.code.into());
        Value::Object(s)
    }
}

/// The `Status` a delete answers with for kinds that do not return the
/// deleted object.
pub fn deleted(resource: &ResourceType, name: &str, uid: &Value) -> Value {
    let mut d = details(resource, name);
    if let (Value::Object(d), Value::String(uid)) = (&mut d, uid) {
        d.insert("uid".into(), uid.clone().into());
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": d})
}
