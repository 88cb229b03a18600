//! The server as HTTP: a `tower::Service` (for `kube::Client::new` in
//! process) and the same service on a TCP listener (hyper).

use super::Shared;
use super::handlers::WatchStream;
use super::handlers::{self, Call, Reply};
use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The body of an answer: a whole document, or the lines of a watch.
pub struct ResponseBody(Inner);

enum Inner {
    Full(Option<Bytes>),
    Watch(Box<WatchStream>),
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResponseBody")
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.0 {
            Inner::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Inner::Watch(stream) => stream.poll_line(cx).map(|line| line.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.0, Inner::Full(None))
    }
}

/// The server as a `tower::Service`: clone it freely.
#[derive(Clone)]
pub struct ServerService {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ServerService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerService")
    }
}

impl ServerService {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        ServerService { shared }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<B> tower_service::Service<Request<B>> for ServerService
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ResponseBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let shared = self.shared.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => Bytes::new(),
            };
            let content_type =
                parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            let user_agent =
                parts.headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            let accept =
                parts.headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            let call = Call {
                user_agent,
                accept,
                method: parts.method.as_str().to_string(),
                path: parts.uri.path().to_string(),
                raw_query: parts.uri.query().unwrap_or_default().to_string(),
                content_type,
                body,
            };
            Ok(respond(handlers::handle(&shared, call).await))
        })
    }
}

fn respond(reply: Reply) -> Response<ResponseBody> {
    let json = HeaderValue::from_static("application/json");
    match reply {
        Reply::Json { code, body, warnings, retry_after } => {
            let text = serde_json::to_vec(&body).unwrap_or_default();
            let mut response = Response::new(ResponseBody(Inner::Full(Some(Bytes::from(text)))));
            *response.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, json);
            for warning in warnings {
                let text = format!("299 - \"{}\"", warning.replace('\\', "\\\\").replace('"', "\\\""));
                if let Ok(value) = HeaderValue::from_str(&text) {
                    headers.append("warning", value);
                }
            }
            if let Some(seconds) = retry_after {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            }
            response
        }
        Reply::Watch(stream) => {
            let mut response = Response::new(ResponseBody(Inner::Watch(stream)));
            response.headers_mut().insert(header::CONTENT_TYPE, json);
            response
        }
    }
}

/// Binds `addr` and serves HTTP/1.1 connections from a spawned task.
pub async fn listen(service: ServerService, addr: SocketAddr) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                // A connection that fails ends; the others go on.
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    Ok(bound)
}
