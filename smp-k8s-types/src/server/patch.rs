//! The patch types the server accepts, applied with smp's engines as the
//! API server applies them, with its answers to what it refuses.

use super::catalog::{KindSchema, ResourceType};
use super::status::ApiError;
use serde_json::Value;
use smp_core::{ErrorKind, Schema};

/// A patch's `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// `application/strategic-merge-patch+json` (built-in kinds only).
    Strategic,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/apply-patch+yaml`: server-side apply.
    Apply,
}

const JSON_PATCH: &str = "application/json-patch+json";
const MERGE_PATCH: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

impl PatchType {
    /// The patch type of a request's `Content-Type`, or the server's 415
    /// listing those this resource accepts. Server-side apply is among them
    /// where the field manager has a schema for the kind (see
    /// `server::apply`); elsewhere it is answered as a server without
    /// server-side apply answers it.
    pub fn of(resource: &ResourceType, content_type: &str) -> Result<PatchType, ApiError> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        match media {
            JSON_PATCH => Ok(PatchType::Json),
            MERGE_PATCH => Ok(PatchType::Merge),
            STRATEGIC if !resource.is_custom() => Ok(PatchType::Strategic),
            APPLY if super::apply::resource_of(resource).is_some() => Ok(PatchType::Apply),
            _ => Err(ApiError::unsupported_media_type(&accepted(resource))),
        }
    }
}

/// The patch types a resource accepts, as the 415 lists them.
pub fn accepted(resource: &ResourceType) -> Vec<&'static str> {
    let mut types = vec![JSON_PATCH, MERGE_PATCH];
    if !resource.is_custom() {
        types.push(STRATEGIC);
    }
    if super::apply::resource_of(resource).is_some() {
        types.push(APPLY);
    }
    types
}

fn decode(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// `live` with the patch applied, or the server's answer to it.
pub fn apply(resource: &ResourceType, patch_type: PatchType, live: &Value, body: &[u8]) -> Result<Value, ApiError> {
    match patch_type {
        PatchType::Strategic => {
            let KindSchema::BuiltIn(shape) = resource.schema else {
                return Err(ApiError::unsupported_media_type(&accepted(resource)));
            };
            let patch = decode(body)?;
            if !patch.is_object() {
                return Err(ApiError::bad_request(format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    go_type(&patch)
                )));
            }
            smp_core::apply(live, &patch, Schema::Static(shape)).map_err(|e| strategic_error(&e.kind))
        }
        PatchType::Merge => {
            let patch = decode(body)?;
            smp_core::merge_patch::apply(live, &patch).map_err(|e| ApiError::bad_request(e.kind.to_string()))
        }
        PatchType::Apply => Err(ApiError::internal("an apply patch is applied by the field manager")),
        PatchType::Json => {
            let ops = decode(body)?;
            if !ops.is_array() {
                return Err(ApiError::bad_request(format!(
                    "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                    go_type(&ops)
                )));
            }
            // An operation that does not apply (a failed `test` among
            // them) is 422, with the server's words that name no cause.
            smp_core::json_patch::apply_ops(live, &ops).map_err(|_| ApiError::unprocessable())
        }
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The server's answer to a strategic merge patch it cannot apply
/// (`interpretStrategicMergePatchError`): 400 for a malformed patch, 422
/// for lists of lists and retainKeys mismatches, otherwise the error's
/// text with 500.
fn strategic_error(kind: &ErrorKind) -> ApiError {
    let text = kind.to_string();
    match kind {
        ErrorKind::InvalidJsonDocument
        | ErrorKind::BadDeleteFromPrimitiveList
        | ErrorKind::BadRetainKeys
        | ErrorKind::BadSetElementOrder => ApiError::bad_request(text),
        ErrorKind::ListOfLists | ErrorKind::RetainKeysMismatch { .. } => ApiError::unprocessable(),
        _ => ApiError::untyped(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::catalog::Catalog;
    use serde_json::json;

    #[test]
    fn custom_resources_refuse_strategic_patches_with_the_servers_415() {
        let mut r = (*Catalog::built_in().get("", "v1", "configmaps").unwrap()).clone();
        r.schema = KindSchema::Custom(std::sync::Arc::new(json!({})));
        let e = PatchType::of(&r, STRATEGIC).unwrap_err();
        assert_eq!(e.code, 415);
        assert_eq!(
            e.message,
            "the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json"
        );
        assert_eq!(PatchType::of(&r, "application/merge-patch+json; charset=utf-8").unwrap(), PatchType::Merge);
        let apply = PatchType::of(&r, "application/apply-patch+yaml").unwrap_err();
        assert_eq!(apply.code, 415);
    }

    #[test]
    fn a_failed_test_is_422() {
        let r = Catalog::built_in().get("", "v1", "configmaps").unwrap();
        let live = json!({"data": {"a": "1"}});
        let ops = br#"[{"op": "test", "path": "/data/a", "value": "2"}]"#;
        let e = apply(&r, PatchType::Json, &live, ops).unwrap_err();
        assert_eq!((e.code, e.reason), (422, "Invalid"));
        let ok = apply(&r, PatchType::Json, &live, br#"[{"op": "test", "path": "/data/a", "value": "1"}]"#);
        assert_eq!(ok.unwrap(), live);
    }
}
