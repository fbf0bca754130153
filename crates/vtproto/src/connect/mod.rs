//! Connect and gRPC-Web beside gRPC (feature `connect`): one implementation of a generated
//! tonic server trait answers all three protocols on one port.
//!
//! Code generated with `features=..+services+connect` gives each service a module
//! `<service>_connect` with `server(impl)`, a [`Server`] to add to tonic's router in place of
//! the tonic server. It routes each request by its content type:
//! - `application/grpc...` (gRPC and gRPC-Web) to the tonic server tonic-build's stubs make,
//!   through `tonic_web`'s translation;
//! - the Connect protocol (connectrpc.com/docs/protocol) to the same trait's methods:
//!   unary calls as a POST of `application/proto` or `application/json` or, for methods whose
//!   `idempotency_level` is `NO_SIDE_EFFECTS`, a GET with the message in the query; streaming
//!   calls as `application/connect+proto` or `+json` envelopes, ended by the end-of-stream
//!   message. Errors are Connect's (code names, HTTP statuses, a JSON body with `details`),
//!   `Connect-Timeout-Ms` is the call's deadline, gzip is read and written, requests over
//!   [`Server::max_message_size`] are answered `resource_exhausted`.
//!
//! ```ignore
//! tonic::transport::Server::builder()
//!     .accept_http1(true) // Connect and gRPC-Web over HTTP/1.1, as browsers call
//!     .add_service(echo_connect::server(MyEcho))
//!     .serve(addr)
//!     .await?;
//! ```
//!
//! Over HTTP/1.1 a response sent before its request was read closes the connection, and a
//! client still writing sees `EPIPE`; over HTTP/2 the unread bytes keep the connection's
//! flow-control window until it stalls. So every answer that does not read the request (an
//! unknown method, a message over the limit, a gRPC call tonic fails early) first reads what
//! is left of it, up to [`Server::drain_limit`]. [`ConnectLayer`] does the same for services
//! the server does not have. A gRPC message over tonic's limit is answered
//! `RESOURCE_EXHAUSTED`, as gRPC's other implementations answer it
//! ([`ResourceExhaustedLayer`](crate::tonic::ResourceExhaustedLayer)).

mod body;
mod call;
mod client;
mod layer;
mod protocol;

use core::convert::Infallible;
use core::task::{Context, Poll};
use std::sync::Arc;

use http::header::HeaderValue;
use tonic::body::Body;
use tonic::server::NamedService;
use tower_service::Service;

pub use call::{Binary, BoxFuture, Call, Codec};
#[cfg(feature = "json")]
pub use call::{Json, JsonRequest};
pub use client::{Client, ConnectStream};
pub use layer::{ConnectFallback, ConnectLayer, FallbackFuture};
pub use protocol::{code_name, code_of_http_status, code_of_name, http_status, Format};

use protocol::Protocol;

/// A method's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One request, one response.
    Unary,
    /// One request, a stream of responses.
    ServerStreaming,
    /// A stream of requests, one response.
    ClientStreaming,
    /// Streams both ways.
    BidiStreaming,
}

/// A method of a service, as the generated [`Dispatch`] lists it.
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    /// Its proto name (`Say`).
    pub name: &'static str,
    /// Its shape.
    pub kind: Kind,
    /// `idempotency_level = NO_SIDE_EFFECTS`: it may be called with GET.
    pub no_side_effects: bool,
}

impl MethodInfo {
    /// Whether its client sends one message and ends its request: unary and
    /// server-streaming methods.
    pub fn takes_one_message(&self) -> bool {
        matches!(self.kind, Kind::Unary | Kind::ServerStreaming)
    }
}

/// A service's Connect side, generated per service: its methods, and a call routed to one.
pub trait Dispatch: Clone + Send + Sync + 'static {
    /// The service's full name (`pkg.Service`).
    const SERVICE: &'static str;
    /// Its methods, in declaration order.
    const METHODS: &'static [MethodInfo];
    /// Whether its messages are read and written as ProtoJSON too.
    const JSON: bool;

    /// Calls method `METHODS[method]` with `call`, through the method's shape
    /// ([`Call::unary`], ...).
    fn call(&self, method: usize, call: Call) -> BoxFuture;
}

/// What the Connect side reads and writes.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The largest message read, before and after decompression: 4 MiB, tonic's default.
    max_message_size: usize,
    /// The limits a request's decode runs under.
    limits: crate::DecodeLimits,
    /// Responses from this size on are compressed when the client takes gzip: 1 KiB.
    compress_min_bytes: usize,
    /// The most of a request left unread that is read before answering: 16 MiB.
    drain_limit: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message_size: 4 << 20,
            limits: crate::DecodeLimits::DEFAULT,
            compress_min_bytes: 1024,
            drain_limit: body::DRAIN_LIMIT,
        }
    }
}

/// One service answering Connect, gRPC and gRPC-Web: `D` is its generated Connect side, `G`
/// the tonic server of the same implementation.
#[derive(Clone)]
pub struct Server<D, G> {
    dispatch: D,
    grpc: G,
    grpc_web: tonic_web::GrpcWebService<crate::tonic::ResourceExhausted<G>>,
    config: Arc<Config>,
}

impl<D: core::fmt::Debug, G> core::fmt::Debug for Server<D, G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("dispatch", &self.dispatch)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<D: Dispatch, G: Clone> Server<D, G> {
    /// Serves Connect requests with `dispatch` and gRPC and gRPC-Web requests with `grpc`.
    pub fn new(dispatch: D, grpc: G) -> Self {
        use tower_layer::Layer as _;
        let web = crate::tonic::ResourceExhaustedLayer.layer(grpc.clone());
        Server {
            dispatch,
            grpc_web: tonic_web::GrpcWebLayer::new().layer(web),
            grpc,
            config: Arc::new(Config::default()),
        }
    }

    /// The largest Connect request message, compressed or not (4 MiB by default); larger
    /// ones are answered `resource_exhausted`. The gRPC side keeps the tonic server's own
    /// limit (`max_decoding_message_size`).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.config).max_message_size = bytes;
        self
    }

    /// The limits Connect requests are decoded under ([`DecodeLimits`](crate::DecodeLimits));
    /// a request past one is answered `resource_exhausted`.
    pub fn decode_limits(mut self, limits: crate::DecodeLimits) -> Self {
        Arc::make_mut(&mut self.config).limits = limits;
        self
    }

    /// Connect responses from this size on are gzipped for clients that take gzip (1 KiB by
    /// default; `usize::MAX` never compresses).
    pub fn compress_min_bytes(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.config).compress_min_bytes = bytes;
        self
    }

    /// How much of a request left unread by an early answer is read before it is sent (16 MiB
    /// by default): past it, the connection is closed.
    pub fn drain_limit(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.config).drain_limit = bytes;
        self
    }
}

impl<D: Dispatch, G> NamedService for Server<D, G> {
    const NAME: &'static str = D::SERVICE;
}

impl<D, G> Service<http::Request<Body>> for Server<D, G>
where
    D: Dispatch,
    G: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    G::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture<G::Future>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let protocol = Protocol::of(request.method(), request.headers());
        let method = method_index::<D>(request.uri().path());
        if let Protocol::Grpc { web } = protocol {
            return self.grpc(request, web, method.map(|i| &D::METHODS[i]));
        }
        let config = self.config.clone();
        let (parts, body) = request.into_parts();
        let Some(index) = method else {
            return other(async move {
                let call = Call {
                    parts,
                    body,
                    protocol,
                    config,
                    method: &UNKNOWN,
                };
                let mut response = call.unimplemented().await;
                *response.status_mut() = http::StatusCode::NOT_FOUND;
                Ok(response)
            });
        };
        let method = &D::METHODS[index];
        let unary = method.kind == Kind::Unary;
        let allow = if unary && method.no_side_effects {
            "GET, POST"
        } else {
            "POST"
        };
        let refusal = match protocol {
            Protocol::Get if !unary || !method.no_side_effects => {
                Some((http::StatusCode::METHOD_NOT_ALLOWED, ("allow", allow)))
            }
            // A GET's encoding is its content type: one this service does not read is 415.
            Protocol::Get
                if !matches!(
                    (
                        protocol::get_encoding(parts.uri.query().unwrap_or("")),
                        D::JSON
                    ),
                    (Some(Format::Proto), _) | (Some(Format::Json), true)
                ) =>
            {
                Some((
                    http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    ("accept-post", accept_post(unary, D::JSON)),
                ))
            }
            Protocol::Unary(_) | Protocol::Stream(_) if protocol.is_stream() == unary => Some((
                http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ("accept-post", accept_post(unary, D::JSON)),
            )),
            Protocol::Unary(Format::Json) | Protocol::Stream(Format::Json) if !D::JSON => Some((
                http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ("accept-post", accept_post(unary, false)),
            )),
            Protocol::Unsupported if parts.method == http::Method::POST => Some((
                http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ("accept-post", accept_post(unary, D::JSON)),
            )),
            Protocol::Unsupported => Some((http::StatusCode::METHOD_NOT_ALLOWED, ("allow", allow))),
            _ => None,
        };
        let call = Call {
            parts,
            body,
            protocol,
            config,
            method,
        };
        if let Some((status, (name, value))) = refusal {
            return other(async move {
                let mut call = call;
                if call.parts.version < http::Version::HTTP_2 || unary {
                    body::drain_body(&mut call.body, call.config.drain_limit).await;
                }
                let mut response = http::Response::new(Body::empty());
                *response.status_mut() = status;
                response
                    .headers_mut()
                    .insert(name, HeaderValue::from_static(value));
                Ok(response)
            });
        }
        ResponseFuture {
            answer: Answer::Connect {
                future: self.dispatch.call(index, call),
            },
        }
    }
}

/// The content types a method takes, for `Accept-Post`.
fn accept_post(unary: bool, json: bool) -> &'static str {
    match (unary, json) {
        (true, true) => "application/proto, application/json",
        (true, false) => "application/proto",
        (false, true) => "application/connect+proto, application/connect+json",
        (false, false) => "application/connect+proto",
    }
}

/// What an unknown method's call says of itself.
static UNKNOWN: MethodInfo = MethodInfo {
    name: "",
    kind: Kind::Unary,
    no_side_effects: false,
};

/// The index of the method `/pkg.Service/Method` names, if it is `D`'s.
fn method_index<D: Dispatch>(path: &str) -> Option<usize> {
    let rest = path.strip_prefix('/')?.strip_prefix(D::SERVICE)?;
    let name = rest.strip_prefix('/')?;
    D::METHODS.iter().position(|m| m.name == name)
}

impl<D, G> Server<D, G>
where
    G: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    G::Future: Send + 'static,
{
    /// A gRPC or gRPC-Web call, answered by tonic. What tonic leaves unread of the request (it
    /// answers an unknown method or a message over its limit at once) is read when the client
    /// is known to be sending it all, before the answer goes: over HTTP/1.1, and for the
    /// methods whose client sends one message. A streaming client may be waiting for the
    /// answer with its request open, so its request is not awaited.
    fn grpc(
        &mut self,
        request: http::Request<Body>,
        web: bool,
        method: Option<&'static MethodInfo>,
    ) -> ResponseFuture<G::Future> {
        let http1 = request.version() < http::Version::HTTP_2;
        let drains = http1 || method.is_some_and(MethodInfo::takes_one_message);
        let drain = self.config.drain_limit;
        let (parts, body) = request.into_parts();
        let fails_early = method.is_none() && http1;
        if !web && !fails_early {
            // A request already read to its end (most small ones) has nothing to give back;
            // the tonic server's future is polled in place, not boxed.
            let (body, back) = if drains {
                body::Reclaim::unless_ended(body)
            } else {
                (body, None)
            };
            let future = self.grpc.call(http::Request::from_parts(parts, body));
            return ResponseFuture {
                answer: Answer::Grpc {
                    future,
                    back,
                    drain,
                    streamed: !method.is_some_and(|m| m.kind == Kind::Unary),
                },
            };
        }
        let mut grpc_web = self.grpc_web.clone();
        let mut grpc = self.grpc.clone();
        other(async move {
            let mut body = body;
            if fails_early {
                body::drain_body(&mut body, drain).await;
            }
            let (body, back) = if drains {
                body::Reclaim::unless_ended(body)
            } else {
                (body, None)
            };
            let request = http::Request::from_parts(parts, body);
            let response = if web {
                grpc_web.call(request).await
            } else {
                grpc.call(request).await.map(|r| over_limit(r, true))
            };
            if let Some(mut left) = back.and_then(|mut b| b.try_recv().ok()) {
                body::drain_body(&mut left, drain).await;
            }
            response
        })
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Server`]'s answer.
    pub struct ResponseFuture<F> {
        #[pin]
        answer: Answer<F>,
    }
}

pin_project_lite::pin_project! {
    /// Where an answer comes from: a gRPC call answered by the tonic server with nothing to
    /// do after it (not boxed), a Connect call's handler (boxed once, by the generated
    /// dispatch), or anything else.
    #[project = AnswerProjection]
    enum Answer<F> {
        Grpc {
            #[pin]
            future: F,
            back: Option<tokio::sync::oneshot::Receiver<Body>>,
            drain: usize,
            // Whether the call streams either way (all but unary), so that a status may
            // come in the answer's trailers.
            streamed: bool,
        },
        Connect { future: BoxFuture },
        Other {
            future: core::pin::Pin<
                Box<
                    dyn core::future::Future<Output = Result<http::Response<Body>, Infallible>>
                        + Send,
                >,
            >,
        },
    }
}

impl<F> core::fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ResponseFuture").finish_non_exhaustive()
    }
}

impl<F> core::future::Future for ResponseFuture<F>
where
    F: core::future::Future<Output = Result<http::Response<Body>, Infallible>>,
{
    type Output = Result<http::Response<Body>, Infallible>;

    fn poll(self: core::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut answer = self.project().answer;
        loop {
            let next = match answer.as_mut().project() {
                AnswerProjection::Grpc {
                    future,
                    back,
                    drain,
                    streamed,
                } => {
                    let Poll::Ready(response) = future.poll(cx) else {
                        return Poll::Pending;
                    };
                    let response = response.map(|r| over_limit(r, *streamed));
                    let Some(mut left) = back.take().and_then(|mut b| b.try_recv().ok()) else {
                        return Poll::Ready(response);
                    };
                    // What tonic left unread is read before the answer goes.
                    let drain = *drain;
                    Answer::Other {
                        future: Box::pin(async move {
                            body::drain_body(&mut left, drain).await;
                            response
                        }),
                    }
                }
                AnswerProjection::Connect { future } => return future.as_mut().poll(cx).map(Ok),
                AnswerProjection::Other { future } => return future.as_mut().poll(cx),
            };
            answer.set(next);
        }
    }
}

/// tonic's answer with its over-limit status given gRPC's code
/// ([`ResourceExhaustedLayer`](crate::tonic::ResourceExhaustedLayer)). A unary call's
/// status, an over-limit request's included, is in the headers of a trailers-only answer:
/// its answer's body is passed on as it is, without a wrapper to look at its trailers.
fn over_limit(mut response: http::Response<Body>, streamed: bool) -> http::Response<Body> {
    if streamed {
        return crate::tonic::resource_exhausted::watch(response).map(Body::new);
    }
    crate::tonic::resource_exhausted::rewrite(response.headers_mut());
    response
}

/// Boxes an answer that is not a Connect handler's.
fn other<F>(
    f: impl core::future::Future<Output = Result<http::Response<Body>, Infallible>> + Send + 'static,
) -> ResponseFuture<F> {
    ResponseFuture {
        answer: Answer::Other {
            future: Box::pin(f),
        },
    }
}
