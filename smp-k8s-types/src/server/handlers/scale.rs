//! The `scale` subresource: get, update and patch of a `Scale`, each a
//! read or a write of the object it scales.

use super::write::{Managed, commit, reply};
use super::{Ctx, Reply};
use crate::server::patch::{self, PatchType};
use crate::server::scale;
use crate::server::scale_paths::ScalePaths;
use crate::server::status::ApiError;
use serde_json::Value;

fn paths<'a>(ctx: &'a Ctx<'_>) -> Result<&'a ScalePaths, ApiError> {
    ctx.resource.scale.as_ref().ok_or_else(ApiError::no_route)
}

pub fn get(ctx: &Ctx<'_>, name: &str) -> Result<Reply, ApiError> {
    let paths = paths(ctx)?;
    let state = ctx.state();
    let object = state.store.get(&ctx.key(name)).ok_or_else(|| ApiError::not_found(&ctx.resource, name))?;
    Ok(Reply::json(200, scale::read(paths, object)))
}

pub fn update(ctx: &Ctx<'_>, name: &str, given: Value) -> Result<Reply, ApiError> {
    write(ctx, name, |_| Ok(given))
}

/// A patch of the `Scale` (JSON, merge, or strategic with the Scale's
/// schema for built-in kinds), written as an update of it.
pub fn patch(ctx: &Ctx<'_>, name: &str, content_type: &str, body: &[u8]) -> Result<Reply, ApiError> {
    let patch_type = PatchType::of(&ctx.resource, content_type)?;
    if patch_type == PatchType::Apply {
        let accepted: Vec<&str> = patch::accepted(&ctx.resource).into_iter().filter(|t| !t.contains("apply")).collect();
        return Err(ApiError::unsupported_media_type(&accepted));
    }
    write(ctx, name, |current| patch::apply(&scale::patch_type(), patch_type, current, body))
}

/// The `Scale` `change` makes of the current one, written to the object
/// (its resourceVersion a precondition); the answer is the new `Scale`.
fn write(ctx: &Ctx<'_>, name: &str, change: impl FnOnce(&Value) -> Result<Value, ApiError>) -> Result<Reply, ApiError> {
    let paths = paths(ctx)?;
    let mut state = ctx.state();
    let live = state.store.get(&ctx.key(name)).cloned().ok_or_else(|| ApiError::not_found(&ctx.resource, name))?;
    let wanted = change(&scale::read(paths, &live))?;
    let new = scale::write(paths, &live, name, &wanted)?;
    let (code, object, warnings) = commit(ctx, &mut state, name, &live, new, None, Managed::Update)?;
    Ok(reply(code, scale::read(paths, &object), warnings))
}
