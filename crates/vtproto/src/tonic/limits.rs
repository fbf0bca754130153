//! Decode limits per service: [`with_decode_limits`].

use core::cell::Cell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use http_body::Frame;
use tonic::codegen::http::Response;
use tonic::codegen::{Body, Service};
use tonic::server::NamedService;

use crate::DecodeLimits;

std::thread_local! {
    /// The limits of the service being polled on this thread, if it named any.
    static CURRENT: Cell<Option<DecodeLimits>> = const { Cell::new(None) };
}

/// The limits [`VtCodec`](super::VtCodec) decodes under here: the polled service's, or the
/// defaults.
pub(crate) fn current() -> DecodeLimits {
    CURRENT.with(Cell::get).unwrap_or(DecodeLimits::DEFAULT)
}

/// Runs `f` with `limits` named for the codec, restoring what was named before (also on
/// unwinding).
fn scoped<R>(limits: DecodeLimits, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<DecodeLimits>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(limits))));
    f()
}

/// `service` decoding its requests under `limits`: wraps a tonic server so that
/// [`VtCodec`](super::VtCodec) decodes its requests under the given [`DecodeLimits`] instead
/// of the defaults, beside tonic's own `max_decoding_message_size`:
///
/// ```ignore
/// use vtproto::{tonic::with_decode_limits, DecodeLimits};
///
/// let limits = DecodeLimits { memory_budget: 8 << 20, ..DecodeLimits::default() };
/// tonic::transport::Server::builder()
///     .add_service(with_decode_limits(
///         EchoServer::new(service).max_decoding_message_size(1 << 20),
///         limits,
///     ))
///     .serve(addr)
///     .await?;
/// ```
///
/// tonic makes a codec per call with `Default::default()`, so the limits cannot ride on the
/// codec: the wrapper names them for the code it polls (the service's future, which reads a
/// unary or client-streaming request, and the response body, which drives a handler's
/// stream), and the codec reads them there. A request stream read anywhere else (a task the
/// handler spawns) is decoded under the defaults.
pub fn with_decode_limits<S>(service: S, limits: DecodeLimits) -> WithDecodeLimits<S> {
    WithDecodeLimits {
        inner: service,
        limits,
    }
}

/// A tonic server whose requests [`VtCodec`](super::VtCodec) decodes under its own limits;
/// made by [`with_decode_limits`].
#[derive(Clone, Debug)]
pub struct WithDecodeLimits<S> {
    inner: S,
    limits: DecodeLimits,
}

impl<S: NamedService> NamedService for WithDecodeLimits<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, Request, B> Service<Request> for WithDecodeLimits<S>
where
    S: Service<Request, Response = Response<B>>,
{
    type Response = Response<LimitsBody<B>>;
    type Error = S::Error;
    type Future = LimitsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let limits = self.limits;
        LimitsFuture {
            inner: scoped(limits, || self.inner.call(request)),
            limits,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`WithDecodeLimits`].
    pub struct LimitsFuture<F> {
        #[pin]
        inner: F,
        limits: DecodeLimits,
    }
}

impl<F, B, E> Future for LimitsFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<LimitsBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let limits = *this.limits;
        match scoped(limits, || this.inner.poll(cx)) {
            Poll::Ready(Ok(response)) => {
                Poll::Ready(Ok(response.map(|inner| LimitsBody { inner, limits })))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

pin_project_lite::pin_project! {
    /// A response body polled under its service's limits (a streaming handler reads its
    /// request stream from there).
    pub struct LimitsBody<B> {
        #[pin]
        inner: B,
        limits: DecodeLimits,
    }
}

impl<B: Body> Body for LimitsBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        let limits = *this.limits;
        scoped(limits, || this.inner.poll_frame(cx))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_named_while_polled_and_restored_after() {
        assert_eq!(current(), DecodeLimits::DEFAULT);
        let small = DecodeLimits {
            memory_budget: 1024,
            ..DecodeLimits::default()
        };
        let inner = DecodeLimits {
            recursion_limit: 5,
            ..small
        };
        scoped(small, || {
            assert_eq!(current(), small);
            scoped(inner, || assert_eq!(current(), inner));
            assert_eq!(current(), small);
        });
        assert_eq!(current(), DecodeLimits::DEFAULT);
        let unwound = std::panic::catch_unwind(|| scoped(small, || panic!("in a handler")));
        assert!(unwound.is_err());
        assert_eq!(current(), DecodeLimits::DEFAULT);
    }
}
