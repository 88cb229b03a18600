//! create, update (and the `status` subresource), patch, delete: every
//! write goes through [`commit`], under the lock, so a write is checked
//! against the object it replaces.

use super::{Ctx, Reply, Validation};
use crate::server::catalog::ResourceType;
use crate::server::object::{has_finalizers, meta_mut, meta_str, spec_changed, with_type};
use crate::server::route::Target;
use crate::server::status::{self, ApiError};
use crate::server::store::{EventType, Key};
use crate::server::{Shared, State, apply, crd, lock, patch, prune};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The metadata the server owns: a write cannot change it.
const SYSTEM_FIELDS: &[&str] =
    &["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "managedFields"];

/// Where a write's `managedFields` come from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Managed {
    /// A create, update or non-apply patch: the field manager records
    /// what the request's manager changed.
    Update,
    /// A server-side apply: the engine computed them with the object.
    Applied,
}

/// The object's managedFields after a write by `ctx.manager` (kinds the
/// field manager has no schema for keep none).
fn track(
    ctx: &Ctx<'_>,
    live: Option<&Value>,
    new: Value,
    managed: Managed,
    given: Option<Value>,
) -> Result<Value, ApiError> {
    let Some(res) = apply::resource_of(&ctx.resource) else { return Ok(new) };
    let now = ctx.shared.clock.timestamp();
    match managed {
        Managed::Applied => {
            let mut new = new;
            if let Some(fields) = given {
                meta_mut(&mut new).insert("managedFields".into(), fields);
            }
            Ok(new)
        }
        Managed::Update => {
            // managedFields the client wrote replace the server's.
            let mut base = live.cloned();
            if let (Some(base), Some(fields)) = (base.as_mut(), given)
                && live.and_then(|l| l["metadata"].get("managedFields")) != Some(&fields)
            {
                meta_mut(base).insert("managedFields".into(), fields);
            }
            apply::update(&res, base.as_ref(), &new, &ctx.manager, &now)
        }
    }
}

/// Unknown fields dropped; their paths as warnings, or the error of
/// `fieldValidation=Strict`.
fn check_fields(ctx: &Ctx<'_>, object: &mut Value) -> Result<Vec<String>, ApiError> {
    let validation = ctx.validation()?;
    let unknown = prune::prune(object, &ctx.resource.schema);
    let named: Vec<String> = unknown.iter().map(|path| format!("unknown field \"{path}\"")).collect();
    match validation {
        Validation::Strict if !named.is_empty() => {
            Err(ApiError::bad_request(format!("strict decoding error: {}", named.join(", "))))
        }
        Validation::Warn => Ok(named),
        _ => Ok(Vec::new()),
    }
}

pub(super) fn reply(code: u16, body: Value, warnings: Vec<String>) -> Reply {
    Reply::Json { code, body, warnings, retry_after: None }
}

/// The object must be a JSON object of this resource's apiVersion.
fn check_type(resource: &ResourceType, object: &Value) -> Result<(), ApiError> {
    if !object.is_object() {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {})",
            resource.kind
        )));
    }
    if let Some(api_version) = object.get("apiVersion").and_then(Value::as_str)
        && api_version != resource.api_version()
    {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            resource.api_version()
        )));
    }
    Ok(())
}

/// The namespace of the body must be the one of the path.
fn check_namespace(ctx: &Ctx<'_>, object: &mut Value) -> Result<(), ApiError> {
    let meta = meta_mut(object);
    if ctx.resource.namespaced {
        match meta.get("namespace").and_then(Value::as_str) {
            Some(ns) if !ns.is_empty() && ns != ctx.namespace => {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            _ => {
                meta.insert("namespace".into(), ctx.namespace.clone().into());
            }
        }
    } else {
        meta.remove("namespace");
    }
    Ok(())
}

/// `generateName` plus five characters, as the server's name generator
/// picks them (no vowels, no look-alike digits).
fn generate_name(shared: &Shared, state: &mut State, prefix: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let uid = shared.uids.next(state.uids_given);
    state.uids_given += 1;
    let seed = uid.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let suffix: String = (0..5).map(|i| ALPHABET[((seed >> (i * 8)) % 27) as usize] as char).collect();
    format!("{prefix}{suffix}")
}

pub fn create(ctx: &Ctx<'_>, object: Value) -> Result<Reply, ApiError> {
    let mut state = ctx.state();
    let (object, warnings) = create_in(ctx.shared, &mut state, ctx, object, Managed::Update)?;
    Ok(reply(201, ctx.show(&object), warnings))
}

fn create_in(
    shared: &Shared,
    state: &mut State,
    ctx: &Ctx<'_>,
    mut object: Value,
    managed: Managed,
) -> Result<(Value, Vec<String>), ApiError> {
    let resource = &ctx.resource;
    let given = object["metadata"].get("managedFields").cloned();
    check_type(resource, &object)?;
    check_namespace(ctx, &mut object)?;
    let name = meta_str(&object, "name").unwrap_or_default().to_string();
    let name = if name.is_empty() {
        match meta_str(&object, "generateName").filter(|g| !g.is_empty()).map(str::to_string) {
            Some(prefix) => generate_name(shared, state, &prefix),
            None => {
                let cause = (
                    "metadata.name",
                    "FieldValueRequired",
                    "Required value: name or generateName is required".to_string(),
                );
                return Err(ApiError::invalid(resource, "", &[cause]));
            }
        }
    } else {
        name
    };
    if meta_str(&object, "resourceVersion").is_some_and(|rv| !rv.is_empty()) {
        return Err(ApiError::internal("resourceVersion should not be set on objects to be created"));
    }
    let key = ctx.key(&name);
    if state.store.get(&key).is_some() {
        return Err(ApiError::already_exists(resource, &name));
    }
    if resource.namespaced {
        let ns_key = Key {
            group: String::new(),
            resource: "namespaces".into(),
            namespace: String::new(),
            name: ctx.namespace.clone(),
        };
        if state.store.get(&ns_key).is_none() {
            let namespaces = state.catalog.get("", "v1", "namespaces").expect("namespaces are built in");
            return Err(ApiError::not_found(&namespaces, &ctx.namespace));
        }
    }
    let warnings = check_fields(ctx, &mut object)?;
    let uid = shared.uids.next(state.uids_given);
    state.uids_given += 1;
    let meta = meta_mut(&mut object);
    meta.insert("name".into(), name.clone().into());
    for field in SYSTEM_FIELDS.iter().chain(&["resourceVersion"]) {
        meta.remove(*field);
    }
    meta.insert("uid".into(), uid.into());
    meta.insert("creationTimestamp".into(), shared.clock.timestamp().into());
    if resource.tracks_generation() {
        meta.insert("generation".into(), 1.into());
    }
    if resource.status_subresource
        && let Value::Object(map) = &mut object
    {
        map.remove("status");
    }
    if resource.group.is_empty() && resource.plural == "namespaces" {
        // The namespace registry starts every namespace Active.
        object["status"] = json!({"phase": "Active"});
    }
    let mut object = with_type(&object, &resource.api_version(), &resource.kind);
    if crd::is_crd(resource) {
        let types = crd::resource_types(&object)?;
        crd::accept(&mut object, &shared.clock.timestamp());
        if !ctx.dry_run() {
            for t in types {
                state.catalog.insert(t);
            }
        }
    }
    let object = track(ctx, None, object, managed, given)?;
    if ctx.dry_run() {
        return Ok((object, warnings));
    }
    let stored = state.store.put(key, object, EventType::Added);
    Ok(((*stored).clone(), warnings))
}

/// `Server::insert`: a create of the object's own apiVersion and kind.
pub fn insert(shared: &Shared, object: Value) -> Result<Value, ApiError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    let (group, version) = (crate::names::group_of(api_version), crate::names::version_of(api_version));
    let resource = {
        let state = lock(&shared.state);
        state.catalog.all().find(|r| r.group == group && r.version == version && r.kind == kind).cloned()
    };
    let resource = resource.ok_or_else(|| {
        ApiError::bad_request(format!("no kind \"{kind}\" is registered for version \"{api_version}\""))
    })?;
    let namespace = if resource.namespaced {
        meta_str(&object, "namespace").filter(|ns| !ns.is_empty()).unwrap_or("default").to_string()
    } else {
        String::new()
    };
    let query = HashMap::new();
    let ctx = Ctx { shared, resource, namespace, query: &query, manager: "unknown".into() };
    let mut state = lock(&shared.state);
    create_in(shared, &mut state, &ctx, object, Managed::Update).map(|(o, _)| o)
}

/// The name and namespace in the body must be those of the URL.
fn check_identity(ctx: &Ctx<'_>, name: &str, object: &mut Value) -> Result<(), ApiError> {
    check_type(&ctx.resource, object)?;
    match meta_str(object, "name") {
        Some(n) if !n.is_empty() && n != name => {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({n}) does not match the name on the URL ({name})"
            )));
        }
        _ => {}
    }
    check_namespace(ctx, object)
}

pub fn update(ctx: &Ctx<'_>, name: &str, mut object: Value, sub: Option<&str>) -> Result<Reply, ApiError> {
    check_identity(ctx, name, &mut object)?;
    let mut state = ctx.state();
    let live = state.store.get(&ctx.key(name)).cloned().ok_or_else(|| ApiError::not_found(&ctx.resource, name))?;
    let (code, object, warnings) = commit(ctx, &mut state, name, &live, object, sub, Managed::Update)?;
    Ok(reply(code, ctx.show(&object), warnings))
}

pub fn patch(ctx: &Ctx<'_>, name: &str, content_type: &str, body: &[u8], sub: Option<&str>) -> Result<Reply, ApiError> {
    let patch_type = patch::PatchType::of(&ctx.resource, content_type)?;
    if patch_type == patch::PatchType::Apply {
        return apply_patch(ctx, name, body, sub);
    }
    let mut state = ctx.state();
    let live = state.store.get(&ctx.key(name)).cloned().ok_or_else(|| ApiError::not_found(&ctx.resource, name))?;
    let mut object = patch::apply(&ctx.resource, patch_type, &live, body)?;
    check_identity(ctx, name, &mut object)?;
    let (code, object, warnings) = commit(ctx, &mut state, name, &live, object, sub, Managed::Update)?;
    Ok(reply(code, ctx.show(&object), warnings))
}

/// Server-side apply: the object is created if missing.
fn apply_patch(ctx: &Ctx<'_>, name: &str, body: &[u8], sub: Option<&str>) -> Result<Reply, ApiError> {
    if ctx.query.get("fieldManager").is_none_or(|m| m.is_empty()) {
        return Err(ApiError::bad_request("fieldManager is required for apply requests"));
    }
    let mut applied = apply::read_applied(body)?;
    check_identity(ctx, name, &mut applied)?;
    let force = ctx.query.get("force").is_some_and(|f| f == "true");
    let res = apply::resource_of(&ctx.resource)
        .ok_or_else(|| ApiError::unsupported_media_type(&patch::accepted(&ctx.resource)))?;
    let mut state = ctx.state();
    let live = state.store.get(&ctx.key(name)).cloned();
    let now = ctx.shared.clock.timestamp();
    let result = apply::apply(&res, live.as_deref(), &applied, &ctx.manager, force, &now)?;
    let (code, object, warnings) = match live {
        None => {
            let (object, warnings) = create_in(ctx.shared, &mut state, ctx, result, Managed::Applied)?;
            (201, object, warnings)
        }
        Some(live) => commit(ctx, &mut state, name, &live, result, sub, Managed::Applied)?,
    };
    Ok(reply(code, ctx.show(&object), warnings))
}

/// Writes `new` over `live`: the resourceVersion precondition, unknown
/// fields, what the subresource may change, the metadata the server owns,
/// the generation, and the end of a deletion waiting on finalizers. A
/// write that changes nothing is not written (the resourceVersion stays).
pub(super) fn commit(
    ctx: &Ctx<'_>,
    state: &mut State,
    name: &str,
    live: &Arc<Value>,
    mut new: Value,
    sub: Option<&str>,
    managed: Managed,
) -> Result<(u16, Value, Vec<String>), ApiError> {
    let resource = &ctx.resource;
    let given = new["metadata"].get("managedFields").cloned();
    let live_rv = meta_str(live, "resourceVersion").unwrap_or_default().to_string();
    match meta_str(&new, "resourceVersion") {
        Some(rv) if !rv.is_empty() && rv != live_rv => return Err(ApiError::stale(resource, name)),
        _ => {}
    }
    let warnings = check_fields(ctx, &mut new)?;
    let mut new = if sub == Some("status") {
        // The status subresource changes the status only.
        let mut kept = (**live).clone();
        if let Value::Object(map) = &mut kept {
            match new.get("status") {
                Some(status) => map.insert("status".into(), status.clone()),
                None => map.remove("status"),
            };
        }
        kept
    } else {
        if resource.status_subresource
            && let Value::Object(map) = &mut new
        {
            match live.get("status") {
                Some(status) => map.insert("status".into(), status.clone()),
                None => map.remove("status"),
            };
        }
        new
    };
    let meta = meta_mut(&mut new);
    for field in SYSTEM_FIELDS {
        match live["metadata"].get(*field) {
            Some(value) => meta.insert(field.to_string(), value.clone()),
            None => meta.remove(*field),
        };
    }
    meta.insert("resourceVersion".into(), live_rv.into());
    if resource.tracks_generation() && spec_changed(live, &new) {
        let generation = live["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
        meta_mut(&mut new).insert("generation".into(), generation.into());
    }
    let new = with_type(&new, live["apiVersion"].as_str().unwrap_or_default(), &resource.kind);
    let new = track(ctx, Some(live), new, managed, given)?;
    let key = ctx.key(name);
    if new["metadata"].get("deletionTimestamp").is_some() && !has_finalizers(&new) {
        // The last finalizer is gone: the deletion completes.
        if !ctx.dry_run() {
            state.store.remove(&key);
            crd::forget(state, resource, &new);
        }
        return Ok((200, new, warnings));
    }
    if new == **live || ctx.dry_run() {
        return Ok((200, new, warnings));
    }
    if crd::is_crd(resource) {
        let types = crd::resource_types(&new)?;
        let old = crd::resource_types(live).unwrap_or_default();
        for t in old {
            state.catalog.remove(&t.group, &t.plural);
        }
        for t in types {
            state.catalog.insert(t);
        }
    }
    let stored = state.store.put(key, new, EventType::Modified);
    Ok((200, (*stored).clone(), warnings))
}

/// `DeleteOptions.preconditions`: uid and resourceVersion.
fn check_preconditions(resource: &ResourceType, name: &str, live: &Value, options: &Value) -> Result<(), ApiError> {
    let pre = &options["preconditions"];
    for (field, label) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
        if let Some(wanted) = pre.get(field).and_then(Value::as_str) {
            let actual = meta_str(live, field).unwrap_or_default();
            if wanted != actual {
                let why =
                    format!("Precondition failed: {label} in precondition: {wanted}, {label} in object meta: {actual}");
                return Err(ApiError::conflict(resource, name, &why));
            }
        }
    }
    Ok(())
}

/// A delete, with its `DeleteOptions` (`{}` when the request had none).
pub fn delete(ctx: &Ctx<'_>, name: &str, options: Value) -> Result<Reply, ApiError> {
    let mut state = ctx.state();
    let (code, body) = delete_in(ctx, &mut state, name, &options)?;
    Ok(Reply::json(code, body))
}

fn delete_in(ctx: &Ctx<'_>, state: &mut State, name: &str, options: &Value) -> Result<(u16, Value), ApiError> {
    let resource = &ctx.resource;
    let key = ctx.key(name);
    let live = state.store.get(&key).cloned().ok_or_else(|| ApiError::not_found(resource, name))?;
    check_preconditions(resource, name, &live, options)?;
    if has_finalizers(&live) {
        // Marked for deletion; gone when the finalizers are.
        if live["metadata"].get("deletionTimestamp").is_some() {
            return Ok((200, ctx.show(&live)));
        }
        let mut marked = (*live).clone();
        let meta = meta_mut(&mut marked);
        meta.insert("deletionTimestamp".into(), ctx.shared.clock.timestamp().into());
        meta.insert("deletionGracePeriodSeconds".into(), 0.into());
        if let Some(generation) = meta.get("generation").and_then(Value::as_i64).filter(|g| *g > 0) {
            meta.insert("generation".into(), (generation + 1).into());
        }
        if ctx.dry_run() {
            return Ok((200, ctx.show(&marked)));
        }
        let stored = state.store.put(key, marked, EventType::Modified);
        return Ok((200, ctx.show(&stored)));
    }
    if !ctx.dry_run() {
        state.store.remove(&key);
        crd::forget(state, resource, &live);
        if resource.group.is_empty() && resource.plural == "namespaces" {
            remove_namespace_contents(state, name);
        }
    }
    // Custom resources answer with the object, built-in kinds with a
    // `Status` of success.
    if resource.is_custom() {
        Ok((200, ctx.show(&live)))
    } else {
        Ok((200, status::deleted(resource, name, &live["metadata"]["uid"])))
    }
}

/// A deleted namespace takes its objects with it.
fn remove_namespace_contents(state: &mut State, namespace: &str) {
    let resources: Vec<(String, String)> =
        state.catalog.all().filter(|r| r.namespaced).map(|r| (r.group.clone(), r.plural.clone())).collect();
    for (group, plural) in resources {
        let keys: Vec<Key> = state.store.list(&group, &plural, Some(namespace), None).map(|(k, _)| k.clone()).collect();
        for key in keys {
            state.store.remove(&key);
        }
    }
}

pub fn delete_collection(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let (labels, fields) = super::read::selectors(ctx)?;
    let namespace = (!ctx.namespace.is_empty()).then_some(ctx.namespace.clone());
    let mut state = ctx.state();
    let r = &ctx.resource;
    let names: Vec<(String, String)> = state
        .store
        .list(&r.group, &r.plural, namespace.as_deref(), None)
        .filter(|(_, o)| labels.matches_labels(o) && fields.matches_fields(o))
        .map(|(k, _)| (k.namespace.clone(), k.name.clone()))
        .collect();
    let mut items = Vec::new();
    for (ns, name) in names {
        let ctx = Ctx {
            shared: ctx.shared,
            resource: ctx.resource.clone(),
            namespace: ns,
            query: ctx.query,
            manager: ctx.manager.clone(),
        };
        let key = ctx.key(&name);
        let object = state.store.get(&key).cloned();
        delete_in(&ctx, &mut state, &name, &json!({}))?;
        if let Some(object) = object {
            items.push(ctx.show(&object));
        }
    }
    let body =
        json!({"kind": format!("{}List", r.kind), "apiVersion": r.api_version(), "metadata": {}, "items": items});
    Ok(Reply::json(200, body))
}

/// An injected write by another client: the object the request names is
/// edited and written first.
pub fn interleave(shared: &Shared, target: &Target, edit: &(dyn Fn(&mut Value) + Send + Sync)) {
    let Some(name) = &target.name else { return };
    let mut state = lock(&shared.state);
    let key = Key {
        group: target.group.clone(),
        resource: target.resource.clone(),
        namespace: target.namespace.clone().unwrap_or_default(),
        name: name.clone(),
    };
    if let Some(live) = state.store.get(&key).cloned() {
        let mut changed = (*live).clone();
        edit(&mut changed);
        state.store.put(key, changed, EventType::Modified);
    }
}
