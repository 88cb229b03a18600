//! Watches: the changes of a resource as lines of
//! `{"type": "ADDED", "object": {...}}`, from a resourceVersion, with
//! bookmarks when asked.

use super::Ctx;
use crate::server::selector::Selector;
use crate::server::status::ApiError;
use crate::server::store::{Change, EventType, version_string};
use bytes::Bytes;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often a watch that allows bookmarks gets one.
const BOOKMARK_EVERY: Duration = Duration::from_secs(5);

/// How long a watch lasts without `timeoutSeconds` (the server's
/// `--min-request-timeout`).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// An open watch, read by the response body.
pub struct WatchStream {
    ready: VecDeque<Bytes>,
    changes: Option<mpsc::UnboundedReceiver<Change>>,
    labels: Selector,
    fields: Selector,
    api_version: String,
    kind: String,
    revision: u64,
    deadline: Pin<Box<tokio::time::Sleep>>,
    bookmarks: Option<tokio::time::Interval>,
    /// Each object as a Table (`kubectl get --watch`).
    tables: Option<crate::server::table::WatchTables>,
}

fn line(kind: &str, object: &Value) -> Bytes {
    let mut text = serde_json::to_vec(&json!({"type": kind, "object": object})).unwrap_or_default();
    text.push(b'\n');
    Bytes::from(text)
}

/// Opens a watch. Without a resourceVersion (or with `0`), or with
/// `sendInitialEvents=true`, it starts with an ADDED event for each object
/// there is; with one, it replays the changes since. A resourceVersion the
/// server no longer remembers gets one ERROR event (410 Expired).
pub fn open(ctx: &Ctx<'_>, as_table: bool) -> Result<WatchStream, ApiError> {
    let tables = as_table
        .then(|| crate::server::table::WatchTables::new(ctx.resource.clone(), ctx.query, &ctx.shared.clock))
        .transpose()?;
    let (labels, fields) = super::selectors(ctx)?;
    let flag = |name: &str| ctx.query.get(name).is_some_and(|v| v == "true" || v == "1");
    let timeout =
        ctx.query.get("timeoutSeconds").and_then(|t| t.parse().ok()).map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    let requested = ctx.query.get("resourceVersion").map(String::as_str).unwrap_or_default();
    let initial = flag("sendInitialEvents") || requested.is_empty() || requested == "0";
    let r = &ctx.resource;
    let namespace = (!ctx.namespace.is_empty()).then_some(ctx.namespace.as_str());
    let mut state = ctx.state();
    let current = state.store.revision();
    let from = if initial {
        current
    } else {
        requested.parse::<u64>().map_err(|_| ApiError::bad_request(format!("invalid resource version: {requested}")))?
    };
    let mut stream = WatchStream {
        ready: VecDeque::new(),
        changes: None,
        labels,
        fields,
        api_version: r.api_version(),
        kind: r.kind.clone(),
        revision: from,
        deadline: Box::pin(tokio::time::sleep(timeout)),
        bookmarks: flag("allowWatchBookmarks")
            .then(|| tokio::time::interval_at(tokio::time::Instant::now() + BOOKMARK_EVERY, BOOKMARK_EVERY)),
        tables,
    };
    if initial {
        let objects: Vec<Arc<Value>> =
            state.store.list(&r.group, &r.plural, namespace, None).map(|(_, o)| o.clone()).collect();
        for object in objects {
            if stream.selected(&object) {
                let shown = stream.show(&object);
                stream.ready.push_back(line(EventType::Added.as_str(), &shown));
            }
        }
        if flag("sendInitialEvents") {
            let mut mark = stream.bookmark();
            mark["metadata"]["annotations"] = json!({"k8s.io/initial-events-end": "true"});
            stream.ready.push_back(line("BOOKMARK", &mark));
        }
    }
    match state.store.watch(&r.group, &r.plural, namespace, from) {
        Some((past, receiver)) => {
            for change in past {
                stream.push(&change);
            }
            stream.changes = Some(receiver);
        }
        None => {
            let status = ApiError::expired(format!("too old resource version: {from} ({current})")).to_status();
            stream.ready.push_back(line("ERROR", &status));
        }
    }
    Ok(stream)
}

impl WatchStream {
    fn selected(&self, object: &Value) -> bool {
        self.labels.matches_labels(object) && self.fields.matches_fields(object)
    }

    fn show(&self, object: &Value) -> Value {
        let shown = crate::server::object::with_type(object, &self.api_version, &self.kind);
        match &self.tables {
            Some(tables) => tables.of(&shown),
            None => shown,
        }
    }

    fn bookmark(&self) -> Value {
        json!({"apiVersion": self.api_version, "kind": self.kind, "metadata": {"resourceVersion": version_string(self.revision)}})
    }

    fn push(&mut self, change: &Change) {
        self.revision = self.revision.max(change.revision);
        if self.selected(&change.object) {
            let shown = self.show(&change.object);
            self.ready.push_back(line(change.event.as_str(), &shown));
        }
    }

    /// The next line, or the end of the watch.
    pub fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        loop {
            if let Some(ready) = self.ready.pop_front() {
                return Poll::Ready(Some(ready));
            }
            let Some(changes) = self.changes.as_mut() else { return Poll::Ready(None) };
            match changes.poll_recv(cx) {
                Poll::Ready(Some(change)) => {
                    self.push(&change);
                    continue;
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => {}
            }
            if self.deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            if let Some(bookmarks) = self.bookmarks.as_mut()
                && bookmarks.poll_tick(cx).is_ready()
            {
                let mark = self.bookmark();
                return Poll::Ready(Some(line("BOOKMARK", &mark)));
            }
            return Poll::Pending;
        }
    }
}
