//! get and list.

use super::{Ctx, Reply};
use crate::server::selector::Selector;
use crate::server::status::ApiError;
use crate::server::store::version_string;
use serde_json::{Map, Value, json};

pub fn get(ctx: &Ctx<'_>, name: &str) -> Result<Reply, ApiError> {
    let state = ctx.state();
    let object = state.store.get(&ctx.key(name)).ok_or_else(|| ApiError::not_found(&ctx.resource, name))?;
    Ok(Reply::json(200, ctx.show(object)))
}

/// The selectors of a list or watch.
pub fn selectors(ctx: &Ctx<'_>) -> Result<(Selector, Selector), ApiError> {
    let labels = Selector::labels(ctx.query.get("labelSelector").map_or("", String::as_str))?;
    let fields = Selector::fields(ctx.query.get("fieldSelector").map_or("", String::as_str))?;
    Ok((labels, fields))
}

/// A `continue` token: where the next page starts (after this namespace
/// and name), opaque to clients.
fn continue_token(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}").bytes().map(|b| format!("{b:02x}")).collect()
}

fn read_continue(token: &str) -> Result<(String, String), ApiError> {
    let bad = || {
        ApiError::bad_request(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        )
    };
    if !token.len().is_multiple_of(2) || !token.is_ascii() {
        return Err(bad());
    }
    let bytes: Result<Vec<u8>, _> =
        (0..token.len()).step_by(2).map(|i| u8::from_str_radix(&token[i..i + 2], 16)).collect();
    let text = String::from_utf8(bytes.map_err(|_| bad())?).map_err(|_| bad())?;
    let (ns, name) = text.split_once('/').ok_or_else(bad)?;
    Ok((ns.to_string(), name.to_string()))
}

pub fn list(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (labels, fields) = selectors(ctx)?;
    let limit: usize = match ctx.query.get("limit") {
        Some(l) if !l.is_empty() => l.parse().map_err(|_| ApiError::bad_request(format!("invalid limit: {l}")))?,
        _ => 0,
    };
    let after = ctx.query.get("continue").filter(|c| !c.is_empty()).map(|c| read_continue(c)).transpose()?;
    let namespace = (!ctx.namespace.is_empty()).then_some(ctx.namespace.as_str());
    let state = ctx.state();
    let r = &ctx.resource;
    let after_ref = after.as_ref().map(|(ns, name)| (ns.as_str(), name.as_str()));
    let mut matching = state
        .store
        .list(&r.group, &r.plural, namespace, after_ref)
        .filter(|(_, o)| labels.matches_labels(o) && fields.matches_fields(o));
    let mut items = Vec::new();
    let mut last = None;
    let page = if limit > 0 { limit } else { usize::MAX };
    for (key, object) in matching.by_ref().take(page) {
        // Built-in kinds' items carry no apiVersion and kind, as the
        // server's typed lists have none; custom resources' do.
        let item = if r.is_custom() {
            ctx.show(object)
        } else {
            let mut item = (**object).clone();
            if let Value::Object(map) = &mut item {
                map.remove("apiVersion");
                map.remove("kind");
            }
            item
        };
        items.push(item);
        last = Some(key);
    }
    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), version_string(state.store.revision()).into());
    let remaining = if limit > 0 && items.len() == limit { matching.count() } else { 0 };
    if remaining > 0 {
        if let Some(key) = last {
            meta.insert("continue".into(), continue_token(&key.namespace, &key.name).into());
        }
        meta.insert("remainingItemCount".into(), remaining.into());
    }
    let body = json!({
        "kind": format!("{}List", r.kind),
        "apiVersion": r.api_version(),
        "metadata": meta,
        "items": items,
    });
    Ok(Reply::json(200, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_read_back() {
        let token = continue_token("default", "web-1");
        assert_eq!(read_continue(&token).unwrap(), ("default".to_string(), "web-1".to_string()));
        assert_eq!(read_continue("zz").unwrap_err().code, 400);
    }
}
