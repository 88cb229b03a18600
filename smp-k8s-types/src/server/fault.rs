//! Failures a test asks for, and the log of the requests the server saw.

use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// What a fault does to a request it matches.
#[derive(Clone)]
pub enum Action {
    /// Answer with this HTTP status and the `Status` body the server
    /// writes for it (409: the optimistic-lock conflict; 429: too many
    /// requests, `Retry-After: 1`; 500: an internal error; others: the
    /// generic answer of that code).
    Status(u16),
    /// Answer 429 with this `Retry-After`, in seconds.
    TooManyRequests(u32),
    /// Wait this long, then serve the request.
    Latency(Duration),
    /// Before the request, another writer changes the object it names:
    /// the function edits the stored object, which is written with a new
    /// resourceVersion (a MODIFIED event); then the request runs.
    Interleave(Arc<dyn Fn(&mut Value) + Send + Sync>),
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Status(code) => write!(f, "Status({code})"),
            Action::TooManyRequests(secs) => write!(f, "TooManyRequests({secs})"),
            Action::Latency(d) => write!(f, "Latency({d:?})"),
            Action::Interleave(_) => write!(f, "Interleave(..)"),
        }
    }
}

/// A failure for the next requests that match: by verb (`get`, `list`,
/// `watch`, `create`, `update`, `patch`, `delete`), resource (plural) and
/// object name, each optional; `times` requests (1 unless set).
///
/// ```
/// use smp_k8s_types::server::Fault;
/// // The next two patches of any ConfigMap are refused with 409 Conflict.
/// let fault = Fault::status(409).verb("patch").resource("configmaps").times(2);
/// # let _ = fault;
/// ```
#[derive(Clone, Debug)]
pub struct Fault {
    pub(crate) verb: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) remaining: usize,
    pub(crate) action: Action,
}

impl Fault {
    fn new(action: Action) -> Self {
        Fault { verb: None, resource: None, name: None, remaining: 1, action }
    }

    /// Answers with an HTTP status (see [`Action::Status`]).
    pub fn status(code: u16) -> Self {
        Self::new(Action::Status(code))
    }

    /// Answers 429 Too Many Requests with `Retry-After: seconds`.
    pub fn too_many_requests(seconds: u32) -> Self {
        Self::new(Action::TooManyRequests(seconds))
    }

    /// Delays the request.
    pub fn latency(delay: Duration) -> Self {
        Self::new(Action::Latency(delay))
    }

    /// Another writer changes the object first (see [`Action::Interleave`]).
    pub fn interleaved_write(edit: impl Fn(&mut Value) + Send + Sync + 'static) -> Self {
        Self::new(Action::Interleave(Arc::new(edit)))
    }

    /// Only requests of this verb.
    pub fn verb(mut self, verb: &str) -> Self {
        self.verb = Some(verb.to_string());
        self
    }

    /// Only requests to this resource (plural, e.g. `configmaps`).
    pub fn resource(mut self, resource: &str) -> Self {
        self.resource = Some(resource.to_string());
        self
    }

    /// Only requests naming this object.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The next `n` matching requests (instead of one).
    pub fn times(mut self, n: usize) -> Self {
        self.remaining = n;
        self
    }

    pub(crate) fn matches(&self, verb: &str, resource: &str, name: Option<&str>) -> bool {
        self.remaining > 0
            && self.verb.as_deref().is_none_or(|v| v == verb)
            && self.resource.as_deref().is_none_or(|r| r == resource)
            && self.name.as_deref().is_none_or(|n| Some(n) == name)
    }
}

/// One request the server answered.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedRequest {
    /// `GET`, `PATCH`, ...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The raw query string.
    pub query: String,
    /// The API verb (`get`, `list`, `watch`, `create`, `update`, `patch`,
    /// `delete`, `deletecollection`), `""` for discovery and the like.
    pub verb: String,
    /// The resource (plural), `""` for discovery and the like.
    pub resource: String,
    /// The subresource (`status`), if any.
    pub subresource: Option<String>,
    /// The namespace in the path, if any.
    pub namespace: Option<String>,
    /// The object name in the path, if any.
    pub name: Option<String>,
    /// The request's `Content-Type` (the patch type of a patch).
    pub content_type: String,
    /// The request body, as text.
    pub body: String,
    /// The HTTP status of the answer.
    pub code: u16,
}
