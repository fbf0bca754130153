//! A search service over the candidates workload, with stubs for both codecs.

/// Messages: prost's structs with rust-vt's impls.
pub mod pb {
    pub mod vt {
        pub mod candidates {
            include!(concat!(env!("OUT_DIR"), "/vt.candidates.rs"));
        }
        pub mod event {
            include!(concat!(env!("OUT_DIR"), "/vt.event.rs"));
        }
        pub mod search {
            include!(concat!(env!("OUT_DIR"), "/vt.search.rs"));
        }
    }
}

/// tonic-prost-build's stubs using `vtproto::tonic::VtCodec` (owned requests).
pub mod vt_codec {
    include!(concat!(env!("OUT_DIR"), "/vt/vt.search.rs"));
}

/// Our generator's stubs (the `services` feature, `vtproto::tonic::VtCodec`), whose server
/// handlers receive the request as an owned view (`server_views`: `SearchRequestOwnedView`,
/// `IngestRequestOwnedView`; its strings borrow tonic's buffer, no copy). Clients send owned
/// messages.
pub mod vt_view {
    pub use crate::pb::vt::search::{search_client, search_server};
}

/// A codec passing bytes through both ways, for tests that send hand-made bodies (malformed
/// ones, say) and read the answer's bytes.
pub mod raw {
    use bytes::{Buf, BufMut};
    use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
    use tonic::Status;

    /// Sends a `Vec<u8>` as the message body; answers the body as it came.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct RawCodec;

    /// [`RawCodec`]'s encoder and decoder.
    #[derive(Debug)]
    pub struct Raw;

    impl Codec for RawCodec {
        type Encode = Vec<u8>;
        type Decode = Vec<u8>;
        type Encoder = Raw;
        type Decoder = Raw;
        fn encoder(&mut self) -> Raw {
            Raw
        }
        fn decoder(&mut self) -> Raw {
            Raw
        }
    }

    impl Encoder for Raw {
        type Item = Vec<u8>;
        type Error = Status;
        fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
            dst.put_slice(&item);
            Ok(())
        }
    }

    impl Decoder for Raw {
        type Item = Vec<u8>;
        type Error = Status;
        fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
            Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
        }
    }
}

/// The same stubs using `tonic_prost::ProstCodec`.
pub mod prost_codec {
    include!(concat!(env!("OUT_DIR"), "/prost/vt.search.rs"));
}

use pb::vt::candidates::{Candidate, CandidatesResponse};
use pb::vt::event::Event;
use pb::vt::search::{Ack, IngestRequest, SearchRequest};

/// `answer(query, count)` over the candidate types in scope: `count` candidates matching
/// `query`, the same for prost's structs and ours.
macro_rules! answer_fn {
    () => {
        // Our structs have one more field (`unknown_fields`) than prost's.
        #[allow(clippy::needless_update)]
        /// The deterministic answer to a query: `count` candidates matching it.
        pub fn answer_query(query: &str, count: u32) -> CandidatesResponse {
            let candidates = (0..count)
                .map(|i| {
                    let mut c = Candidate {
                        id: format!("{query}-{i}"),
                        ..Default::default()
                    };
                    for (k, v) in [
                        (
                            "relevance_score",
                            format!("0.{:07}", (i * 7919) % 10_000_000),
                        ),
                        ("rank", i.to_string()),
                        ("source", "search".to_string()),
                    ] {
                        c.meta_data.insert(k.to_string(), v);
                    }
                    c
                })
                .collect();
            CandidatesResponse {
                candidates,
                ..Default::default()
            }
        }
    };
}

answer_fn!();

/// The deterministic answer to a request: `count` candidates matching `query`.
pub fn answer(request: &SearchRequest) -> CandidatesResponse {
    answer_query(&request.query, request.count)
}

/// What the server answers to an ingest: the candidates and metadata entries it read.
pub fn ingest_ack(request: &IngestRequest) -> Ack {
    Ack {
        count: request.candidates.len() as u32,
        entries: request
            .candidates
            .iter()
            .map(|c| c.meta_data.len() as u32)
            .sum(),
    }
}

/// What the server answers to an event: the attributes it read.
pub fn record_ack(event: &Event) -> Ack {
    Ack {
        count: event.attrs.len() as u32,
        entries: event.readings.len() as u32,
    }
}

/// The service, implemented once and served with either codec.
#[derive(Clone, Copy, Default)]
pub struct SearchService;

type CandidateStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Candidate, tonic::Status>> + Send>>;

fn check(request: &SearchRequest) -> Result<(), tonic::Status> {
    if request.count > 100_000 {
        return Err(tonic::Status::invalid_argument(
            "count must be at most 100000",
        ));
    }
    Ok(())
}

macro_rules! impl_service {
    ($module:ident) => {
        #[tonic::async_trait]
        impl $module::search_server::Search for SearchService {
            async fn find(
                &self,
                request: tonic::Request<SearchRequest>,
            ) -> Result<tonic::Response<CandidatesResponse>, tonic::Status> {
                check(request.get_ref())?;
                Ok(tonic::Response::new(answer(request.get_ref())))
            }

            type StreamStream = CandidateStream;

            async fn stream(
                &self,
                request: tonic::Request<SearchRequest>,
            ) -> Result<tonic::Response<CandidateStream>, tonic::Status> {
                check(request.get_ref())?;
                let items = answer(request.get_ref()).candidates.into_iter().map(Ok);
                Ok(tonic::Response::new(Box::pin(tokio_stream::iter(items))))
            }

            async fn ingest(
                &self,
                request: tonic::Request<IngestRequest>,
            ) -> Result<tonic::Response<Ack>, tonic::Status> {
                Ok(tonic::Response::new(ingest_ack(request.get_ref())))
            }

            async fn record(
                &self,
                request: tonic::Request<Event>,
            ) -> Result<tonic::Response<Ack>, tonic::Status> {
                Ok(tonic::Response::new(record_ack(request.get_ref())))
            }
        }
    };
}

impl_service!(vt_codec);
impl_service!(prost_codec);

/// The service reading its request as a view owning tonic's buffer.
#[derive(Clone, Copy, Default)]
pub struct ViewSearchService;

#[tonic::async_trait]
impl vt_view::search_server::Search for ViewSearchService {
    async fn find(
        &self,
        request: tonic::Request<pb::vt::search::SearchRequestOwnedView>,
    ) -> Result<tonic::Response<CandidatesResponse>, tonic::Status> {
        let request = request.into_inner();
        // The view crosses an await: it owns the buffer its strings borrow.
        tokio::task::yield_now().await;
        let view = request.get();
        let owned = SearchRequest {
            query: view.query.to_string(),
            count: view.count,
        };
        check(&owned)?;
        Ok(tonic::Response::new(answer(&owned)))
    }

    type StreamStream = CandidateStream;

    async fn stream(
        &self,
        request: tonic::Request<pb::vt::search::SearchRequestOwnedView>,
    ) -> Result<tonic::Response<CandidateStream>, tonic::Status> {
        let owned = request.get_ref().to_owned_message();
        check(&owned)?;
        let items = answer(&owned).candidates.into_iter().map(Ok);
        Ok(tonic::Response::new(Box::pin(tokio_stream::iter(items))))
    }

    async fn ingest(
        &self,
        request: tonic::Request<pb::vt::search::IngestRequestOwnedView>,
    ) -> Result<tonic::Response<Ack>, tonic::Status> {
        // Reads every candidate in tonic's buffer: the ids and metadata are borrowed.
        let view = request.get_ref().get();
        Ok(tonic::Response::new(Ack {
            count: view.candidates.len() as u32,
            entries: view
                .candidates
                .iter()
                .map(|c| c.meta_data.len() as u32)
                .sum(),
        }))
    }

    async fn record(
        &self,
        request: tonic::Request<Event>,
    ) -> Result<tonic::Response<Ack>, tonic::Status> {
        Ok(tonic::Response::new(record_ack(request.get_ref())))
    }
}

/// The search service in `mode=standalone` (no prost): our structs and stubs for
/// `proto/search.proto`, handlers taking `find`, `stream` and `ingest` requests as owned views,
/// for the load benchmark's standalone rows.
pub mod search_standalone {
    /// The generated messages and stubs.
    pub mod pb {
        include!(concat!(env!("OUT_DIR"), "/search_standalone/mod.rs"));
    }

    use pb::vt::candidates::{Candidate, CandidatesResponse};
    use pb::vt::event::Event;
    use pb::vt::search::{Ack, IngestRequestOwnedView, SearchRequestOwnedView};
    use tonic::{Request, Response, Status};

    answer_fn!();

    /// The search service on our own structs.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct StandaloneSearchService;

    type CandidateStream =
        std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Candidate, Status>> + Send>>;

    fn checked(request: &SearchRequestOwnedView) -> Result<CandidatesResponse, Status> {
        let view = request.get();
        if view.count > 100_000 {
            return Err(Status::invalid_argument("count must be at most 100000"));
        }
        Ok(answer_query(view.query, view.count))
    }

    #[tonic::async_trait]
    impl pb::vt::search::search_server::Search for StandaloneSearchService {
        async fn find(
            &self,
            request: Request<SearchRequestOwnedView>,
        ) -> Result<Response<CandidatesResponse>, Status> {
            checked(request.get_ref()).map(Response::new)
        }

        type StreamStream = CandidateStream;

        async fn stream(
            &self,
            request: Request<SearchRequestOwnedView>,
        ) -> Result<Response<CandidateStream>, Status> {
            let items = checked(request.get_ref())?.candidates.into_iter().map(Ok);
            Ok(Response::new(Box::pin(tokio_stream::iter(items))))
        }

        async fn ingest(
            &self,
            request: Request<IngestRequestOwnedView>,
        ) -> Result<Response<Ack>, Status> {
            let view = request.get_ref().get();
            Ok(Response::new(Ack {
                count: view.candidates.len() as u32,
                entries: view
                    .candidates
                    .iter()
                    .map(|c| c.meta_data.len() as u32)
                    .sum(),
                ..Default::default()
            }))
        }

        async fn record(&self, request: Request<Event>) -> Result<Response<Ack>, Status> {
            let event = request.get_ref();
            Ok(Response::new(Ack {
                count: event.attrs.len() as u32,
                entries: event.readings.len() as u32,
                ..Default::default()
            }))
        }
    }
}

/// gRPC without prost (`mode=standalone`): our own structs and tonic's stubs for
/// `proto/test/services.proto`, from rust-vt's generator alone, and an `Echo` service.
pub mod standalone {
    /// The generated messages and stubs (`echo_client`, `echo_server`).
    pub mod pb {
        include!(concat!(env!("OUT_DIR"), "/standalone/mod.rs"));
    }

    use std::pin::Pin;

    use pb::vt::test::services::echo_server::Echo;
    use pb::vt::test::services::{EchoRequest, EchoResponse, Payload};
    use tokio_stream::{Stream, StreamExt};
    use tonic::{Request, Response, Status, Streaming};

    /// Echoes payloads: `fail_with` answers with that status code instead, `response_size`
    /// asks for a body of that many zeros. A unary call's `x-grpc-test-echo-initial` metadata
    /// comes back in the response's (gRPC's `custom_metadata` interop case).
    #[derive(Debug, Default, Clone)]
    pub struct EchoService;

    /// The `Echo` service with gzip both ways, gRPC health (`Echo` and the server serving)
    /// and reflection (v1 and v1alpha, from the generated `FILE_DESCRIPTOR_SET`), ready to
    /// serve; over-limit requests get gRPC's `RESOURCE_EXHAUSTED`
    /// ([`vtproto::tonic::ResourceExhaustedLayer`]).
    pub fn router() -> tonic::transport::server::Router<
        tower_layer::Stack<vtproto::tonic::ResourceExhaustedLayer, tower_layer::Identity>,
    > {
        use pb::vt::test::services::echo_server::EchoServer;
        use tonic::codec::CompressionEncoding;
        let (reporter, health) = tonic_health::server::health_reporter();
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(pb::vt::test::services::FILE_DESCRIPTOR_SET)
        };
        tokio::spawn(async move {
            reporter.set_serving::<EchoServer<EchoService>>().await;
        });
        tonic::transport::Server::builder()
            .layer(vtproto::tonic::ResourceExhaustedLayer)
            .add_service(health)
            .add_service(reflection().build_v1().expect("our descriptors"))
            .add_service(reflection().build_v1alpha().expect("our descriptors"))
            .add_service(
                EchoServer::new(EchoService)
                    .accept_compressed(CompressionEncoding::Gzip)
                    .send_compressed(CompressionEncoding::Gzip),
            )
    }

    fn answer(request: EchoRequest) -> Result<EchoResponse, Status> {
        if request.fail_with != 0 {
            return Err(Status::new(
                tonic::Code::from_i32(request.fail_with),
                request.fail_message,
            ));
        }
        let mut payload = request.payload.unwrap_or_default();
        if request.response_size > 0 {
            payload.body = vec![0; request.response_size as usize];
        }
        Ok(EchoResponse {
            payload: Some(payload),
            ..Default::default()
        })
    }

    type EchoStream = Pin<Box<dyn Stream<Item = Result<EchoResponse, Status>> + Send + 'static>>;

    #[tonic::async_trait]
    impl Echo for EchoService {
        /// Takes its request as a view (`server_views`): its strings and bytes borrow tonic's
        /// buffer until the handler makes an owned message of it.
        async fn unary(
            &self,
            request: Request<pb::vt::test::services::EchoRequestOwnedView>,
        ) -> Result<Response<EchoResponse>, Status> {
            use vtproto::MessageView;
            let echo = request.metadata().get("x-grpc-test-echo-initial").cloned();
            let owned = request.get_ref().get().to_owned_message();
            let mut response = answer(owned).map(Response::new)?;
            if let Some(v) = echo {
                response
                    .metadata_mut()
                    .insert("x-grpc-test-echo-initial", v);
            }
            Ok(response)
        }

        async fn client_stream(
            &self,
            request: Request<Streaming<EchoRequest>>,
        ) -> Result<Response<EchoResponse>, Status> {
            let mut stream = request.into_inner();
            let mut body = Vec::new();
            while let Some(r) = stream.next().await {
                body.extend(r?.payload.unwrap_or_default().body);
            }
            Ok(Response::new(EchoResponse {
                payload: Some(Payload {
                    body,
                    ..Default::default()
                }),
                ..Default::default()
            }))
        }

        type ServerStreamStream = EchoStream;

        async fn server_stream(
            &self,
            request: Request<EchoRequest>,
        ) -> Result<Response<Self::ServerStreamStream>, Status> {
            let payload = request.into_inner().payload.unwrap_or_default();
            let each = payload.body.into_iter().map(|b| {
                Ok(EchoResponse {
                    payload: Some(Payload {
                        body: vec![b],
                        ..Default::default()
                    }),
                    ..Default::default()
                })
            });
            Ok(Response::new(Box::pin(tokio_stream::iter(each))))
        }

        type BidiStream = EchoStream;

        async fn bidi(
            &self,
            request: Request<Streaming<EchoRequest>>,
        ) -> Result<Response<Self::BidiStream>, Status> {
            let stream = request.into_inner();
            let out = stream.map(|r| r.and_then(answer));
            Ok(Response::new(Box::pin(out)))
        }

        async fn ping(
            &self,
            _: Request<vtproto::types::Empty>,
        ) -> Result<Response<vtproto::types::Empty>, Status> {
            Ok(Response::new(vtproto::types::Empty::default()))
        }

        #[allow(deprecated)]
        async fn r#type(
            &self,
            request: Request<EchoRequest>,
        ) -> Result<Response<EchoResponse>, Status> {
            answer(request.into_inner()).map(Response::new)
        }
    }
}
