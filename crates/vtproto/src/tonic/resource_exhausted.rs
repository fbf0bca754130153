//! gRPC's status code for a message over the size limit, on a tonic server.
//!
//! gRPC says a message larger than the receiver's limit fails with `RESOURCE_EXHAUSTED`, as the
//! C++, Java, Go and Python implementations answer; tonic 0.14 refuses it before any codec runs
//! and answers `OUT_OF_RANGE`. [`ResourceExhaustedLayer`] rewrites exactly that status (code
//! `OUT_OF_RANGE` with tonic's "decoded message length too large" message), wherever the server
//! writes it: in the headers of a trailers-only answer or in the trailers after a stream. Every
//! other status, and every byte of every message, passes through untouched.
//!
//! ```ignore
//! tonic::transport::Server::builder()
//!     .layer(vtproto::tonic::ResourceExhaustedLayer)
//!     .add_service(EchoServer::new(service).max_decoding_message_size(64 * 1024))
//!     .serve(addr)
//!     .await?;
//! ```

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use http_body::Frame;
use tonic::codegen::http::{HeaderMap, HeaderName, HeaderValue, Response};
use tonic::codegen::{Body, Service};
use tonic::{Code, Status};

/// The start of tonic's message for a message over the limit (`tonic::codec::decode`).
const TOO_LARGE: &str = "Error, decoded message length too large";

/// A tower layer giving over-limit messages gRPC's `RESOURCE_EXHAUSTED` (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct ResourceExhaustedLayer;

impl<S> tower_layer::Layer<S> for ResourceExhaustedLayer {
    type Service = ResourceExhausted<S>;

    fn layer(&self, inner: S) -> ResourceExhausted<S> {
        ResourceExhausted(inner)
    }
}

/// The service [`ResourceExhaustedLayer`] wraps around a server.
#[derive(Clone, Debug)]
pub struct ResourceExhausted<S>(S);

impl<S, Request, B> Service<Request> for ResourceExhausted<S>
where
    S: Service<Request, Response = Response<B>>,
{
    type Response = Response<StatusBody<B>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        ResponseFuture {
            inner: self.0.call(request),
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`ResourceExhausted`].
    pub struct ResponseFuture<F> {
        #[pin]
        inner: F,
    }
}

impl<F, B, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<StatusBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let response = match self.project().inner.poll(cx) {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        };
        Poll::Ready(Ok(watch(response)))
    }
}

/// `response` with tonic's over-limit status rewritten in its headers and, later, in its
/// trailers.
pub(crate) fn watch<B>(response: Response<B>) -> Response<StatusBody<B>> {
    let (mut parts, body) = response.into_parts();
    rewrite(&mut parts.headers);
    Response::from_parts(parts, StatusBody { inner: body })
}

pin_project_lite::pin_project! {
    /// A response body whose trailers go through the same rewrite as the headers.
    pub struct StatusBody<B> {
        #[pin]
        inner: B,
    }
}

impl<B: Body> Body for StatusBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let frame = self.project().inner.poll_frame(cx);
        match frame {
            Poll::Ready(Some(Ok(frame))) => Poll::Ready(Some(Ok(match frame.into_trailers() {
                Ok(mut trailers) => {
                    rewrite(&mut trailers);
                    Frame::trailers(trailers)
                }
                Err(frame) => frame,
            }))),
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Gives tonic's over-limit status gRPC's code; any other status is returned as it is.
#[cfg(feature = "connect")]
pub(crate) fn over_limit(status: tonic::Status) -> tonic::Status {
    if status.code() == Code::OutOfRange && status.message().starts_with(TOO_LARGE) {
        Status::with_details_and_metadata(
            Code::ResourceExhausted,
            status.message(),
            status.details().to_vec().into(),
            status.metadata().clone(),
        )
    } else {
        status
    }
}

/// `grpc-status`, made once (a name given as text is parsed at each lookup).
const GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");

/// Gives tonic's over-limit status (in `headers`, or trailers) gRPC's code.
pub(crate) fn rewrite(headers: &mut HeaderMap) {
    // Most answers are not `OUT_OF_RANGE` (11): no status to parse.
    if headers
        .get(GRPC_STATUS)
        .is_none_or(|v| v.as_bytes() != b"11")
    {
        return;
    }
    let over_limit = Status::from_header_map(headers)
        .is_some_and(|s| s.code() == Code::OutOfRange && s.message().starts_with(TOO_LARGE));
    if over_limit {
        let code = (Code::ResourceExhausted as i32).to_string();
        headers.insert(
            GRPC_STATUS,
            HeaderValue::from_str(&code).expect("digits are a header value"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_headers(status: &Status) -> HeaderMap {
        let mut headers = HeaderMap::new();
        status.add_header(&mut headers).unwrap();
        headers
    }

    #[test]
    fn only_the_over_limit_status_changes() {
        let too_large =
            Status::out_of_range(format!("{TOO_LARGE}: found 9 bytes, the limit is: 4 bytes"));
        let mut headers = status_headers(&too_large);
        rewrite(&mut headers);
        let status = Status::from_header_map(&headers).unwrap();
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(status.message(), too_large.message());

        for other in [
            Status::out_of_range("index 7 is past the end"),
            Status::internal(TOO_LARGE),
            Status::ok(""),
        ] {
            let mut headers = status_headers(&other);
            rewrite(&mut headers);
            assert_eq!(
                Status::from_header_map(&headers).unwrap().code(),
                other.code()
            );
        }
        let mut none = HeaderMap::new();
        rewrite(&mut none);
        assert!(none.is_empty());
    }
}
