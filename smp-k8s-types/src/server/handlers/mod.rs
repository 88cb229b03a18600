//! One request: faults first, then the route's handler, then the log.

mod discovery;
mod openapi;
mod read;
mod review;
mod scale;
mod watch;
mod write;

use super::catalog::ResourceType;
use super::fault::{Action, LoggedRequest};
use super::route::{self, Route, Target};
use super::status::ApiError;
use super::store::Key;
use super::{Shared, State, lock, protobuf, table};
use bytes::Bytes;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) use read::selectors;
pub(crate) use review::is_review;
pub(crate) use watch::WatchStream;
pub(crate) use write::insert;

/// A request, as the handlers read it.
pub struct Call {
    pub method: String,
    pub path: String,
    pub raw_query: String,
    pub content_type: String,
    pub user_agent: String,
    /// The `Accept` header (a Table, or JSON).
    pub accept: String,
    pub body: Bytes,
}

/// An answer.
pub enum Reply {
    /// A JSON document with its status code, `Warning` headers and
    /// `Retry-After`.
    Json { code: u16, body: Value, warnings: Vec<String>, retry_after: Option<u32> },
    /// The lines of a watch.
    Watch(Box<WatchStream>),
}

impl Reply {
    pub fn json(code: u16, body: Value) -> Self {
        Reply::Json { code, body, warnings: Vec::new(), retry_after: None }
    }

    fn code(&self) -> u16 {
        match self {
            Reply::Json { code, .. } => *code,
            Reply::Watch(_) => 200,
        }
    }
}

impl From<ApiError> for Reply {
    fn from(e: ApiError) -> Self {
        Reply::Json { code: e.code, body: e.to_status(), warnings: Vec::new(), retry_after: e.retry_after }
    }
}

/// A request for one resource, resolved: what every verb's handler gets.
pub struct Ctx<'a> {
    pub shared: &'a Shared,
    pub resource: Arc<ResourceType>,
    pub namespace: String,
    pub query: &'a HashMap<String, String>,
    /// The field manager of writes: `fieldManager`, else the client's
    /// name from its `User-Agent`, else `unknown`.
    pub manager: String,
}

/// How unknown fields are answered (`fieldValidation`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    Strict,
    Warn,
    Ignore,
}

impl Ctx<'_> {
    pub fn key(&self, name: &str) -> Key {
        Key {
            group: self.resource.group.clone(),
            resource: self.resource.plural.clone(),
            namespace: self.namespace.clone(),
            name: name.to_string(),
        }
    }

    pub fn dry_run(&self) -> bool {
        self.query.get("dryRun").is_some_and(|v| v == "All")
    }

    pub fn validation(&self) -> Result<Validation, ApiError> {
        match self.query.get("fieldValidation").map(String::as_str) {
            None | Some("" | "Warn") => Ok(Validation::Warn),
            Some("Strict") => Ok(Validation::Strict),
            Some("Ignore") => Ok(Validation::Ignore),
            Some(other) => Err(ApiError::bad_request(format!(
                "fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", not {other:?}"
            ))),
        }
    }

    /// The object as this request's version shows it.
    pub fn show(&self, object: &Value) -> Value {
        super::object::with_type(object, &self.resource.api_version(), &self.resource.kind)
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.shared.state)
    }
}

/// What the log and the faults know of a request.
struct Described {
    verb: &'static str,
    target: Option<Target>,
}

fn describe(method: &str, route: &Route, query: &HashMap<String, String>) -> Described {
    let Route::Object(target) = route else { return Described { verb: "", target: None } };
    let named = target.name.is_some();
    let watch = query.get("watch").is_some_and(|w| w == "true" || w == "1");
    let verb = match (method, named) {
        ("GET", true) => "get",
        ("GET", false) if watch => "watch",
        ("GET", false) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        _ => "",
    };
    Described { verb, target: Some(target.clone()) }
}

/// Serves one request.
pub async fn handle(shared: &Shared, call: Call) -> Reply {
    let route = Route::parse(&call.path);
    let query = route::query(Some(&call.raw_query));
    let described = describe(&call.method, &route, &query);
    let resource = described.target.as_ref().map_or("", |t| t.resource.as_str());
    let name = described.target.as_ref().and_then(|t| t.name.as_deref());
    let action = {
        let mut faults = lock(&shared.faults);
        let found = faults.iter_mut().find(|f| f.matches(described.verb, resource, name));
        found.map(|f| {
            f.remaining -= 1;
            f.action.clone()
        })
    };
    let reply = match action {
        Some(Action::Latency(delay)) => {
            tokio::time::sleep(delay).await;
            serve(shared, &call, &route, &query)
        }
        Some(Action::Status(code)) => injected(shared, code, described.target.as_ref()).into(),
        Some(Action::TooManyRequests(seconds)) => ApiError::too_many_requests(seconds).into(),
        Some(Action::Interleave(edit)) => {
            if let Some(target) = &described.target {
                write::interleave(shared, target, &*edit);
            }
            serve(shared, &call, &route, &query)
        }
        None => serve(shared, &call, &route, &query),
    };
    let target = described.target.as_ref();
    lock(&shared.log).push(LoggedRequest {
        method: call.method.clone(),
        path: call.path.clone(),
        query: call.raw_query.clone(),
        verb: described.verb.to_string(),
        resource: resource.to_string(),
        subresource: target.and_then(|t| t.subresource.clone()),
        namespace: target.and_then(|t| t.namespace.clone()),
        name: name.map(str::to_string),
        content_type: call.content_type.clone(),
        body: String::from_utf8_lossy(&call.body).into_owned(),
        code: reply.code(),
    });
    reply
}

/// The answer of an injected status.
fn injected(shared: &Shared, code: u16, target: Option<&Target>) -> ApiError {
    let resource = target.and_then(|t| lock(&shared.state).catalog.get(&t.group, &t.version, &t.resource));
    let name = target.and_then(|t| t.name.as_deref()).unwrap_or_default();
    match (code, resource) {
        (409, Some(resource)) => ApiError::stale(&resource, name),
        (404, Some(resource)) => ApiError::not_found(&resource, name),
        (429, _) => ApiError::too_many_requests(1),
        (500, _) => ApiError::internal("injected failure"),
        (503, _) => ApiError {
            code,
            reason: "ServiceUnavailable",
            message: "the server is currently unable to handle the request".into(),
            details: None,
            retry_after: None,
        },
        _ => ApiError { code, reason: "", message: "injected failure".into(), details: None, retry_after: None },
    }
}

fn serve(shared: &Shared, call: &Call, route: &Route, query: &HashMap<String, String>) -> Reply {
    let result = match route {
        Route::Version => Ok(Reply::json(200, discovery::version())),
        Route::Health => Ok(Reply::json(200, Value::String("ok".into()))),
        Route::CoreVersions => Ok(Reply::json(200, discovery::core_versions())),
        Route::Groups => Ok(Reply::json(200, discovery::groups(&lock(&shared.state).catalog))),
        Route::Group(group) => discovery::group(&lock(&shared.state).catalog, group).map(|d| Reply::json(200, d)),
        Route::Resources { group, version } => {
            discovery::resources(&lock(&shared.state).catalog, group, version).map(|d| Reply::json(200, d))
        }
        Route::OpenApiRoot => Ok(Reply::json(200, openapi::root(&lock(&shared.state).catalog))),
        Route::OpenApi { group, version } => {
            openapi::document(&lock(&shared.state).catalog, group, version).map(|d| Reply::json(200, d))
        }
        Route::Object(target) => object(shared, call, target, query),
        Route::Unknown => Err(ApiError::no_route()),
    };
    result.unwrap_or_else(Reply::from)
}

fn object(shared: &Shared, call: &Call, target: &Target, query: &HashMap<String, String>) -> Result<Reply, ApiError> {
    let resource = lock(&shared.state).catalog.get(&target.group, &target.version, &target.resource);
    let resource = resource.ok_or_else(ApiError::no_route)?;
    if target.namespace.is_some() && !resource.namespaced {
        return Err(ApiError::no_route());
    }
    let sub = target.subresource.as_deref();
    let served = match sub {
        None => true,
        Some("status") => resource.status_subresource,
        Some("scale") => resource.scale.is_some(),
        Some(_) => false,
    };
    if !served {
        return Err(ApiError::no_route());
    }
    let from_agent = call.user_agent.split('/').next().unwrap_or_default();
    let manager = query
        .get("fieldManager")
        .map(String::as_str)
        .filter(|m| !m.is_empty())
        .unwrap_or(if from_agent.is_empty() { "unknown" } else { from_agent })
        .to_string();
    let ctx = Ctx { shared, namespace: target.namespace.clone().unwrap_or_default(), resource, query, manager };
    // An object of a namespaced resource is named with its namespace.
    let needs_namespace = ctx.resource.namespaced && target.namespace.is_none();
    let body = || -> Result<Value, ApiError> { decode_body(&ctx.resource, &call.content_type, &call.body) };
    match (call.method.as_str(), target.name.as_deref()) {
        ("POST", None) if is_review(&ctx.resource.group, &ctx.resource.plural) => review::answer(&ctx, body()?),
        (method, _) if is_review(&ctx.resource.group, &ctx.resource.plural) => {
            Err(ApiError::method_not_allowed(&ctx.resource, &method.to_ascii_lowercase()))
        }
        ("GET", None) if query.get("watch").is_some_and(|w| w == "true" || w == "1") => {
            watch::open(&ctx, table::wanted(&call.accept)).map(|s| Reply::Watch(Box::new(s)))
        }
        ("GET", None) if table::wanted(&call.accept) => as_table(&ctx, read::list(&ctx)?, true),
        ("GET", None) => read::list(&ctx),
        (_, Some(_)) | ("POST", None) if needs_namespace => Err(ApiError::no_route()),
        (method, Some(name)) if sub == Some("scale") => match method {
            "GET" => scale::get(&ctx, name),
            "PUT" => scale::update(&ctx, name, body()?),
            "PATCH" => scale::patch(&ctx, name, &call.content_type, &call.body),
            _ => Err(ApiError::method_not_allowed(&ctx.resource, &method.to_ascii_lowercase())),
        },
        ("GET", Some(name)) if sub.is_none() && table::wanted(&call.accept) => {
            as_table(&ctx, read::get(&ctx, name)?, false)
        }
        ("GET", Some(name)) => read::get(&ctx, name),
        ("POST", None) => write::create(&ctx, body()?),
        ("PUT", Some(name)) => write::update(&ctx, name, body()?, sub),
        ("PATCH", Some(name)) => write::patch(&ctx, name, &call.content_type, &call.body, sub),
        ("DELETE", Some(name)) => write::delete(&ctx, name, delete_options(&call.content_type, &call.body)?),
        ("DELETE", None) => write::delete_collection(&ctx),
        (method, _) => Err(ApiError::method_not_allowed(&ctx.resource, &method.to_ascii_lowercase())),
    }
}

/// The media types of bodies (other than patches) a resource accepts, as
/// the 415 lists them: custom resources take no protobuf.
fn body_types(resource: &ResourceType) -> Vec<&'static str> {
    let mut types = vec!["application/json", "application/yaml"];
    if !resource.is_custom() {
        types.push(protobuf::MEDIA_TYPE);
    }
    types
}

/// A create's or update's body: JSON, or protobuf decoded into the JSON
/// the server's JSON shows for the same object.
fn decode_body(resource: &ResourceType, content_type: &str, body: &[u8]) -> Result<Value, ApiError> {
    if protobuf::is_protobuf(content_type) {
        if resource.is_custom() {
            return Err(ApiError::unsupported_media_type(&body_types(resource)));
        }
        return protobuf::decode(body).map_err(|e| match e {
            protobuf::Error::UnknownKind { .. } => ApiError::unsupported_media_type(&body_types(resource)),
            protobuf::Error::Malformed(e) => ApiError::bad_request(format!("error decoding the body: {e}")),
        });
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding the body: {e}")))
}

/// A list's or an object's answer as the Table `kubectl get` asks for.
fn as_table(ctx: &Ctx<'_>, reply: Reply, list: bool) -> Result<Reply, ApiError> {
    let Reply::Json { body, .. } = reply else { return Ok(reply) };
    let (objects, metadata) = if list {
        let items = body["items"].as_array().cloned().unwrap_or_default();
        (items, body["metadata"].clone())
    } else {
        (vec![body], serde_json::json!({}))
    };
    let now = table::seconds(ctx.shared.clock.now());
    table::table(&ctx.resource, &objects, metadata, ctx.query, now).map(|t| Reply::json(200, t))
}

/// A delete's `DeleteOptions`: JSON or protobuf, `{}` for an empty body.
fn delete_options(content_type: &str, body: &[u8]) -> Result<Value, ApiError> {
    if body.is_empty() {
        return Ok(serde_json::json!({}));
    }
    if protobuf::is_protobuf(content_type) {
        return protobuf::decode(body).map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))
}
