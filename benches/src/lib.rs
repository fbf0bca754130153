//! Workloads and peer types for the benchmarks: the same protos compiled for prost + rust-vt,
//! buffa and rust-protobuf, and seeded generators that build identical data for all of them
//! (built once as prost structs, then decoded by each peer from prost's bytes).
#![allow(clippy::all, missing_docs)]

/// prost's structs with rust-vt's impls.
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/_prost.rs"));
}

/// Our own structs (`mode=standalone`) for the same protos.
pub mod sa {
    include!(concat!(env!("OUT_DIR"), "/standalone/_standalone.rs"));
}

/// The JSON workloads' types in `mode=standalone` with their ProtoJSON served by the
/// reflection tables (`features=..+reflect`, `tables=.`).
pub mod tb {
    include!(concat!(env!("OUT_DIR"), "/tables/_tables.rs"));
}

pub mod interleave;

/// Process CPU time (user + system) so far, for the load benchmarks.
pub fn cpu_time() -> std::time::Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` fills the `rusage` it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| std::time::Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The threads one tokio runtime runs on, registered by [`ThreadSet::register`] from the
/// runtime's `on_thread_start`, so a load benchmark can count the CPU time of its servers
/// apart from its client's.
#[derive(Clone, Default)]
pub struct ThreadSet(std::sync::Arc<std::sync::Mutex<Vec<i32>>>);

impl ThreadSet {
    /// Registers the calling thread.
    pub fn register(&self) {
        // SAFETY: `gettid` takes no arguments and cannot fail.
        let tid = unsafe { libc::gettid() };
        self.0.lock().unwrap().push(tid);
    }

    /// The CPU time the registered threads have run so far, in nanoseconds as the scheduler
    /// counts it (`/proc/self/task/<tid>/schedstat`); threads that have ended count nothing.
    pub fn cpu_time(&self) -> std::time::Duration {
        let tids = self.0.lock().unwrap().clone();
        let ns: u64 = tids
            .iter()
            .filter_map(|tid| {
                std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()
            })
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        std::time::Duration::from_nanos(ns)
    }
}

/// The search service with our Connect side (`mode=standalone`, `connect`), for the Connect
/// load benchmark.
pub mod vc {
    include!(concat!(env!("OUT_DIR"), "/connect_vt/_connect_vt.rs"));
}

/// The small event of the Connect benchmarks' `record` call: a few fields of each kind.
pub fn small_event() -> vc::vt::event::Event {
    vc::vt::event::Event {
        id: "evt-1".into(),
        ts: 1_700_000_000_000,
        region: "eu-west-1".into(),
        readings: vec![0.5, 1.25, 2.0, 3.5],
        attrs: [("host", "a1"), ("rack", "r7"), ("zone", "z")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    }
}

/// The `record` call's answer to `event`: how many attributes and readings it holds.
pub fn record_ack(event: &vc::vt::event::Event) -> vc::vt::search::Ack {
    vc::vt::search::Ack {
        count: event.attrs.len() as u32,
        entries: event.readings.len() as u32,
        ..Default::default()
    }
}

/// `payload` in one uncompressed gRPC / Connect envelope.
pub fn envelope(payload: &[u8]) -> bytes::Bytes {
    let mut out = vec![0];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out.into()
}

/// One gRPC call answered in process, without a network: what the Connect server adds to
/// a gRPC call is measured with it (`benches/connect.rs`, `examples/connect_ratio.rs`).
pub mod grpc_call {
    use std::convert::Infallible;

    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Full};
    use tonic::body::Body;
    use tonic::{Request, Response, Status};
    use tower_service::Service;

    use crate::vc::vt::candidates::{Candidate, CandidatesResponse};
    use crate::vc::vt::event::Event;
    use crate::vc::vt::search::search_server::Search;
    use crate::vc::vt::search::{Ack, IngestRequestOwnedView, SearchRequest};

    /// The search service answering `Record` only.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Recorder;

    type Candidates =
        std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Candidate, Status>> + Send>>;

    #[tonic::async_trait]
    impl Search for Recorder {
        async fn find(
            &self,
            _: Request<SearchRequest>,
        ) -> Result<Response<CandidatesResponse>, Status> {
            Err(Status::unimplemented("find"))
        }

        type StreamStream = Candidates;

        async fn stream(&self, _: Request<SearchRequest>) -> Result<Response<Candidates>, Status> {
            Err(Status::unimplemented("stream"))
        }

        async fn ingest(
            &self,
            _: Request<IngestRequestOwnedView>,
        ) -> Result<Response<Ack>, Status> {
            Err(Status::unimplemented("ingest"))
        }

        async fn record(&self, request: Request<Event>) -> Result<Response<Ack>, Status> {
            Ok(Response::new(crate::record_ack(request.get_ref())))
        }
    }

    /// The gRPC request body: one enveloped event.
    pub fn record_body() -> Bytes {
        use vtproto::Message as _;
        crate::envelope(&crate::small_event().encode_to_vec())
    }

    /// The `Record` request over HTTP/2 with `body`.
    pub fn request(body: &Bytes) -> http::Request<Body> {
        let mut request = http::Request::post("/vt.search.Search/Record")
            .version(http::Version::HTTP_2)
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(Body::new(Full::new(body.clone())))
            .unwrap();
        request
            .headers_mut()
            .insert("user-agent", "bench".parse().unwrap());
        request
    }

    /// One call: the answer read whole, trailers included; its `grpc-status` must be 0.
    /// Returns the answer's length.
    pub async fn call<S>(service: &mut S, body: &Bytes) -> usize
    where
        S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    {
        let response = service.call(request(body)).await.unwrap();
        let collected = response.into_body().collect().await.unwrap();
        let status = collected
            .trailers()
            .and_then(|t| t.get("grpc-status"))
            .map(|v| v.as_bytes().to_vec());
        assert_eq!(status.as_deref(), Some(&b"0"[..]));
        collected.to_bytes().len()
    }
}

/// connectrpc 0.9's search service on its own buffa types, the Connect load benchmark's peer.
#[allow(refining_impl_trait, clippy::all)]
pub mod cr {
    include!(concat!(env!("OUT_DIR"), "/connectrpc/_connectrpc.rs"));
}

/// prost's structs with pbjson's serde impls (ProtoJSON the common Rust way).
pub mod pj {
    pub mod vt {
        pub mod candidates {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.candidates.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.candidates.serde.rs"));
        }
        pub mod event {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.event.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.event.serde.rs"));
        }
        pub mod deep {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.deep.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.deep.serde.rs"));
        }
    }
    pub mod benchmarks {
        include!(concat!(env!("OUT_DIR"), "/pbjson/benchmarks.rs"));
        include!(concat!(env!("OUT_DIR"), "/pbjson/benchmarks.serde.rs"));
        pub mod proto2 {
            include!(concat!(env!("OUT_DIR"), "/pbjson/benchmarks.proto2.rs"));
            include!(concat!(
                env!("OUT_DIR"),
                "/pbjson/benchmarks.proto2.serde.rs"
            ));
        }
        pub mod proto3 {
            include!(concat!(env!("OUT_DIR"), "/pbjson/benchmarks.proto3.rs"));
            include!(concat!(
                env!("OUT_DIR"),
                "/pbjson/benchmarks.proto3.serde.rs"
            ));
        }
    }
    pub mod opentelemetry {
        pub mod proto {
            pub mod common {
                pub mod v1 {
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.common.v1.rs"
                    ));
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.common.v1.serde.rs"
                    ));
                }
            }
            pub mod resource {
                pub mod v1 {
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.resource.v1.rs"
                    ));
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.resource.v1.serde.rs"
                    ));
                }
            }
            pub mod trace {
                pub mod v1 {
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.trace.v1.rs"
                    ));
                    include!(concat!(
                        env!("OUT_DIR"),
                        "/pbjson/opentelemetry.proto.trace.v1.serde.rs"
                    ));
                }
            }
            pub mod collector {
                pub mod trace {
                    pub mod v1 {
                        include!(concat!(
                            env!("OUT_DIR"),
                            "/pbjson/opentelemetry.proto.collector.trace.v1.rs"
                        ));
                        include!(concat!(
                            env!("OUT_DIR"),
                            "/pbjson/opentelemetry.proto.collector.trace.v1.serde.rs"
                        ));
                    }
                }
            }
        }
    }
}

/// buffa's owned and view types.
pub mod bf {
    include!(concat!(env!("OUT_DIR"), "/buffa/_buffa.rs"));
}

/// rust-protobuf's types.
pub mod rp {
    include!(concat!(env!("OUT_DIR"), "/rust_protobuf/mod.rs"));
}

pub use alloc_stats::{steady_state_allocations as allocations, Tracking};

/// xorshift64: the data is the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Workload A: `n` candidates with the six metadata entries of the motivating service.
pub fn candidates(n: usize) -> pb::vt::candidates::CandidatesResponse {
    let mut rng = Rng::new(0xC0FFEE);
    let candidates = (0..n)
        .map(|i| {
            let mut c = pb::vt::candidates::Candidate {
                id: format!("cand-{:016x}", rng.next()),
                ..Default::default()
            };
            let meta = [
                (
                    "relevance_score",
                    format!("0.{:07}", rng.next() % 10_000_000),
                ),
                (
                    "cursor",
                    format!(
                        "{:032x}",
                        u128::from(rng.next()) << 64 | u128::from(rng.next())
                    ),
                ),
                (
                    "catalog_id",
                    format!("catalog-{:06}", rng.next() % 1_000_000),
                ),
                (
                    "product_id",
                    format!("sku-{:012}", rng.next() % 1_000_000_000_000),
                ),
                (
                    "source",
                    ["search", "ads", "recommendations"][(rng.next() % 3) as usize].into(),
                ),
                ("rank", i.to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    pb::vt::candidates::CandidatesResponse { candidates }
}

/// Workload A as the write-up describes its data: a 36-byte id and six entries per candidate
/// (`relevance_score` 9 B, `cursor` 62 B, `catalog_id` 36 B, `product_id` 24 B, `source` 8 B,
/// `rank`); 2,000 of them encode to 540,893 bytes, as there. Longer strings than
/// [`candidates`], so more of the time is copying.
pub fn candidates_seed(n: usize) -> pb::vt::candidates::CandidatesResponse {
    let mut rng = Rng::new(0x5EED);
    let uuid = |rng: &mut Rng| {
        let (a, b) = (rng.next(), rng.next());
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    };
    let candidates = (0..n)
        .map(|i| {
            let mut c = pb::vt::candidates::Candidate {
                id: uuid(&mut rng),
                ..Default::default()
            };
            let cursor: String = (0..62)
                .map(|_| {
                    char::from(
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                            [(rng.next() % 62) as usize],
                    )
                })
                .collect();
            let meta = [
                (
                    "relevance_score",
                    format!("0.{:07}", rng.next() % 10_000_000),
                ),
                ("cursor", cursor),
                ("catalog_id", uuid(&mut rng)),
                (
                    "product_id",
                    format!("prod-{:019}", rng.next() % 10_000_000_000_000_000_000),
                ),
                (
                    "source",
                    ["retrieve", "semantic", "keywords"][(rng.next() % 3) as usize].into(),
                ),
                ("rank", (i + 1).to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    pb::vt::candidates::CandidatesResponse { candidates }
}

/// Workload B: one event.
pub fn event(rng: &mut Rng) -> pb::vt::event::Event {
    let mut e = pb::vt::event::Event {
        id: format!("evt-{:016x}", rng.next()),
        ts: 1_700_000_000_000 + (rng.next() % 1_000_000) as i64,
        region: ["eu-west-1", "us-east-1", "ap-south-1"][(rng.next() % 3) as usize].into(),
        readings: (0..4)
            .map(|_| (rng.next() % 100_000) as f64 / 100.0)
            .collect(),
        ..Default::default()
    };
    for (k, v) in [
        ("host", format!("host-{}", rng.next() % 500)),
        ("service", "checkout".to_string()),
        (
            "version",
            format!("1.{}.{}", rng.next() % 20, rng.next() % 10),
        ),
    ] {
        e.attrs.insert(k.into(), v);
    }
    e
}

/// Workload B: a batch of `n` events.
pub fn event_batch(n: usize) -> pb::vt::event::EventBatch {
    let mut rng = Rng::new(0xE7E47);
    pb::vt::event::EventBatch {
        events: (0..n).map(|_| event(&mut rng)).collect(),
    }
}

/// Workload C: a chain of `depth` nested nodes.
pub fn deep(depth: usize) -> pb::vt::deep::Node {
    let mut node = pb::vt::deep::Node {
        child: None,
        value: 0,
        label: "leaf".into(),
    };
    for i in 1..depth {
        node = pb::vt::deep::Node {
            child: Some(Box::new(node)),
            value: i as i64 * 1_000_003,
            label: format!("level-{i}"),
        };
    }
    node
}

/// Workload C's smallest case as a service sends it: a node with one child, an int and a short
/// label, 20 bytes encoded.
pub fn node20() -> pb::vt::deep::Node {
    pb::vt::deep::Node {
        child: Some(Box::new(pb::vt::deep::Node {
            child: None,
            value: 7,
            label: "leaf".into(),
        })),
        value: 1_234_567,
        label: "data".into(),
    }
}

/// Google's benchmark datasets (`benchmarks.BenchmarkDataset`, as published with protobuf's
/// benchmarks): the payloads of `google_message1_proto2`, `google_message1_proto3` or
/// `google_message2`, each an encoded message of the dataset's type.
pub fn google_dataset(name: &str) -> Vec<Vec<u8>> {
    let bytes: &[u8] = match name {
        "google_message1_proto2" => {
            include_bytes!("../proto/benchmarks/dataset.google_message1_proto2.pb")
        }
        "google_message1_proto3" => {
            include_bytes!("../proto/benchmarks/dataset.google_message1_proto3.pb")
        }
        "google_message2" => include_bytes!("../proto/benchmarks/dataset.google_message2.pb"),
        _ => panic!("no dataset {name}"),
    };
    let set: pb::benchmarks::BenchmarkDataset = prost::Message::decode(bytes).unwrap();
    set.payload
}

/// [`google_dataset`]'s payloads decoded as `M`, the dataset's message type.
pub fn google_messages<M: prost::Message + Default>(name: &str) -> Vec<M> {
    google_dataset(name)
        .iter()
        .map(|payload| M::decode(&payload[..]).unwrap())
        .collect()
}

/// The OpenTelemetry trace export request a collector receives: `resources` resources (services),
/// two instrumentation scopes each, `spans` spans per scope. Spans vary as real ones do: root and
/// child spans, 4-12 attributes of every common value kind (strings, ints, bools, doubles, an
/// array now and then), events with attributes on some, a link on a few, status codes.
pub fn otel_request(
    resources: usize,
    spans: usize,
    seed: u64,
) -> pb::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest {
    use pb::opentelemetry::proto::common::v1::{
        any_value::Value, AnyValue, ArrayValue, InstrumentationScope, KeyValue,
    };
    use pb::opentelemetry::proto::resource::v1::Resource;
    use pb::opentelemetry::proto::trace::v1::{
        span, status, ResourceSpans, ScopeSpans, Span, Status,
    };
    let mut rng = Rng::new(seed);
    let kv = |key: &str, value: Value| KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    };
    let id = |rng: &mut Rng, n: usize| -> Vec<u8> { (0..n).map(|_| rng.next() as u8).collect() };
    let routes = [
        "/api/v1/users/{id}",
        "/api/v1/orders",
        "/checkout",
        "/health",
        "/api/v2/search",
    ];
    let methods = ["GET", "POST", "PUT", "DELETE"];
    let services = [
        "frontend",
        "checkout",
        "payments",
        "inventory",
        "search-api",
        "recommendations",
    ];
    let resource_spans = (0..resources)
        .map(|r| {
            let service = services[r % services.len()];
            let resource = Resource {
                attributes: vec![
                    kv("service.name", Value::StringValue(service.into())),
                    kv(
                        "service.version",
                        Value::StringValue(format!("1.{}.{}", rng.next() % 30, rng.next() % 10)),
                    ),
                    kv(
                        "host.name",
                        Value::StringValue(format!(
                            "ip-10-0-{}-{}.ec2.internal",
                            rng.next() % 256,
                            rng.next() % 256
                        )),
                    ),
                    kv(
                        "k8s.pod.name",
                        Value::StringValue(format!(
                            "{service}-{:010x}-{:05x}",
                            rng.next() % (1 << 40),
                            rng.next() % (1 << 20)
                        )),
                    ),
                    kv("process.pid", Value::IntValue((rng.next() % 65_536) as i64)),
                    kv(
                        "telemetry.sdk.language",
                        Value::StringValue(
                            ["rust", "go", "java", "python"][(rng.next() % 4) as usize].into(),
                        ),
                    ),
                ],
                ..Default::default()
            };
            let scope_spans = ["opentelemetry-http", "sqlx"]
                .iter()
                .map(|scope| {
                    let trace_id = id(&mut rng, 16);
                    let mut parent = Vec::new();
                    let spans = (0..spans)
                        .map(|s| {
                            let start = 1_700_000_000_000_000_000 + rng.next() % 1_000_000_000_000;
                            let route = routes[(rng.next() % routes.len() as u64) as usize];
                            let method = methods[(rng.next() % methods.len() as u64) as usize];
                            let code =
                                [200, 200, 200, 201, 204, 404, 500][(rng.next() % 7) as usize];
                            let mut attributes = vec![
                                kv("http.request.method", Value::StringValue(method.into())),
                                kv("http.route", Value::StringValue(route.into())),
                                kv("http.response.status_code", Value::IntValue(code)),
                                kv(
                                    "server.address",
                                    Value::StringValue(format!("{service}.svc.cluster.local")),
                                ),
                            ];
                            for extra in 0..rng.next() % 9 {
                                attributes.push(match extra % 4 {
                                    0 => kv(
                                        "url.full",
                                        Value::StringValue(format!(
                                            "https://example.com{route}?page={}&q=item-{:x}",
                                            rng.next() % 100,
                                            rng.next()
                                        )),
                                    ),
                                    1 => kv(
                                        "network.peer.port",
                                        Value::IntValue((rng.next() % 65_536) as i64),
                                    ),
                                    2 => kv(
                                        "sampling.ratio",
                                        Value::DoubleValue((rng.next() % 1000) as f64 / 997.0),
                                    ),
                                    _ => kv("cache.hit", Value::BoolValue(rng.next() % 2 == 0)),
                                });
                            }
                            if rng.next() % 8 == 0 {
                                attributes.push(kv(
                                    "db.tags",
                                    Value::ArrayValue(ArrayValue {
                                        values: (0..1 + rng.next() % 4)
                                            .map(|i| AnyValue {
                                                value: Some(Value::StringValue(format!("tag-{i}"))),
                                            })
                                            .collect(),
                                    }),
                                ));
                            }
                            let events = (0..rng.next() % 3)
                                .map(|e| span::Event {
                                    time_unix_nano: start + e * 1_000_000,
                                    name: ["retry", "cache.miss", "exception"][(e % 3) as usize]
                                        .into(),
                                    attributes: vec![
                                        kv("attempt", Value::IntValue(e as i64 + 1)),
                                        kv(
                                            "message",
                                            Value::StringValue(
                                                "upstream timed out \"after\" 250ms\n".into(),
                                            ),
                                        ),
                                    ],
                                    ..Default::default()
                                })
                                .collect();
                            let links = if rng.next() % 10 == 0 {
                                vec![span::Link {
                                    trace_id: id(&mut rng, 16),
                                    span_id: id(&mut rng, 8),
                                    flags: 1,
                                    ..Default::default()
                                }]
                            } else {
                                Vec::new()
                            };
                            let span_id = id(&mut rng, 8);
                            let span = Span {
                                trace_id: trace_id.clone(),
                                span_id: span_id.clone(),
                                parent_span_id: parent.clone(),
                                flags: 0x101,
                                name: format!("{method} {route}"),
                                kind: if s == 0 {
                                    span::SpanKind::Server
                                } else {
                                    span::SpanKind::Client
                                } as i32,
                                start_time_unix_nano: start,
                                end_time_unix_nano: start + rng.next() % 2_000_000_000,
                                attributes,
                                events,
                                links,
                                status: Some(Status {
                                    code: if code >= 500 {
                                        status::StatusCode::Error
                                    } else {
                                        status::StatusCode::Ok
                                    } as i32,
                                    message: if code >= 500 {
                                        "internal error".into()
                                    } else {
                                        String::new()
                                    },
                                }),
                                ..Default::default()
                            };
                            if s % 4 == 0 {
                                parent = span_id;
                            }
                            span
                        })
                        .collect();
                    ScopeSpans {
                        scope: Some(InstrumentationScope {
                            name: (*scope).into(),
                            version: "0.27.1".into(),
                            ..Default::default()
                        }),
                        spans,
                        schema_url: "https://opentelemetry.io/schemas/1.24.0".into(),
                    }
                })
                .collect();
            ResourceSpans {
                resource: Some(resource),
                scope_spans,
                schema_url: "https://opentelemetry.io/schemas/1.24.0".into(),
            }
        })
        .collect();
    pb::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest { resource_spans }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seed_shape_is_the_write_ups() {
        let bytes = prost::Message::encode_to_vec(&super::candidates_seed(2000));
        assert_eq!(bytes.len(), 540_893);
        assert_eq!(prost::Message::encode_to_vec(&super::node20()).len(), 20);
    }
}
