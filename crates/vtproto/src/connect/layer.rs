//! The server-wide part: what no service answers. tonic's router answers a request for a
//! service it does not have in gRPC's form, at once, without reading the request. Over
//! HTTP/1.1 the connection is then closed while the client may still be writing (`EPIPE`);
//! over HTTP/2 the bytes left unread keep the connection's flow-control window, and after a
//! few such calls the connection stalls. [`ConnectLayer`] gives Connect clients Connect's
//! answer and reads what is left of every request before its answer goes.

use core::task::{Context, Poll};

use bytes::Bytes;
use tonic::body::Body;
use tonic::Status;
use tower_service::Service;

use super::body::{drain_body, Reclaim, DRAIN_LIMIT};
use super::protocol::{self, Protocol};

/// A tower layer for the whole server (`tonic::transport::Server::builder().layer(..)`):
/// Connect clients calling a service the server does not have get Connect's `unimplemented`
/// (HTTP 404 and the error JSON) instead of a gRPC answer, and a request left partly unread
/// by its answer is read to its end (up to 16 MiB) first, so the connection stays open (and,
/// over HTTP/2, keeps its flow-control window) and the client gets the answer.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnectLayer;

impl<S> tower_layer::Layer<S> for ConnectLayer {
    type Service = ConnectFallback<S>;

    fn layer(&self, inner: S) -> ConnectFallback<S> {
        ConnectFallback(inner)
    }
}

/// The service [`ConnectLayer`] wraps around a server's router.
#[derive(Clone, Debug)]
pub struct ConnectFallback<S>(S);

impl<S, B> Service<http::Request<Body>> for ConnectFallback<S>
where
    S: Service<http::Request<Body>, Response = http::Response<B>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = FallbackFuture<S::Future, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let protocol = Protocol::of(request.method(), request.headers());
        let (parts, body) = request.into_parts();
        // Read before answering when the client is known to send it all: over HTTP/1.1, and a
        // Connect unary call. A streaming client on HTTP/2 may wait with its stream open.
        let drains = parts.version < http::Version::HTTP_2
            || matches!(protocol, Protocol::Unary(_) | Protocol::Get);
        let (body, back) = if drains {
            Reclaim::unless_ended(body)
        } else {
            (body, None)
        };
        let future = self.0.call(http::Request::from_parts(parts, body));
        let grpc = matches!(protocol, Protocol::Grpc { .. });
        if grpc && back.is_none() {
            // Nothing to rewrite or to read after the answer: no box, no await.
            return FallbackFuture {
                answer: Fallback::Pass { future },
            };
        }
        let future = Box::pin(async move {
            let response = future.await?;
            let answered_by_grpc = response.headers().contains_key("grpc-status");
            let response = if !grpc && answered_by_grpc {
                let status = Status::from_header_map(response.headers())
                    .unwrap_or_else(|| Status::unknown("no Connect service answered"));
                let mut answer = connect_answer(&status);
                // The headers layers inside this one added (CORS, say) stay.
                for (name, value) in response.headers() {
                    let own = name.as_str().starts_with("grpc-")
                        || name == http::header::CONTENT_TYPE
                        || name == http::header::CONTENT_LENGTH;
                    if !own && !answer.headers().contains_key(name) {
                        answer.headers_mut().append(name, value.clone());
                    }
                }
                answer
            } else {
                response.map(Body::new)
            };
            if let Some(mut left) = back.and_then(|mut b| b.try_recv().ok()) {
                drain_body(&mut left, DRAIN_LIMIT).await;
            }
            Ok(response)
        });
        FallbackFuture {
            answer: Fallback::Other { future },
        }
    }
}

/// A status as a Connect client expects it (a stream's client reads a failed call's HTTP
/// status too): `unimplemented` as HTTP 404.
fn connect_answer(status: &Status) -> http::Response<Body> {
    let mut response = protocol::unary_error(status);
    if status.code() == tonic::Code::Unimplemented {
        *response.status_mut() = http::StatusCode::NOT_FOUND;
    }
    response
}

pin_project_lite::pin_project! {
    /// The response future of [`ConnectFallback`].
    pub struct FallbackFuture<F, E> {
        #[pin]
        answer: Fallback<F, E>,
    }
}

pin_project_lite::pin_project! {
    #[project = FallbackProjection]
    enum Fallback<F, E> {
        // A gRPC call: the inner answer as it is.
        Pass {
            #[pin]
            future: F,
        },
        // Everything else: the answer rewritten for Connect clients, the request drained.
        Other {
            future: core::pin::Pin<
                Box<dyn core::future::Future<Output = Result<http::Response<Body>, E>> + Send>,
            >,
        },
    }
}

impl<F, E> core::fmt::Debug for FallbackFuture<F, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FallbackFuture").finish_non_exhaustive()
    }
}

impl<F, B, E> core::future::Future for FallbackFuture<F, E>
where
    F: core::future::Future<Output = Result<http::Response<B>, E>>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Output = Result<http::Response<Body>, E>;

    fn poll(self: core::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().answer.project() {
            FallbackProjection::Pass { future } => future
                .poll(cx)
                .map(|answer| answer.map(|response| response.map(Body::new))),
            FallbackProjection::Other { future } => future.as_mut().poll(cx),
        }
    }
}
