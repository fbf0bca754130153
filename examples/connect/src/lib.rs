//! One implementation of `vt.connect.v1.SayService`, served to Connect, gRPC and gRPC-Web
//! clients on one port (`say_service_connect::server`), with the CORS layer a browser page
//! from another origin needs.

use std::pin::Pin;
use std::time::Duration;

use tokio_stream::{Stream, StreamExt as _};
use tonic::{Request, Response, Status, Streaming};

/// The generated messages, stubs and Connect side.
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/vt.connect.v1.rs"));
}

use pb::say_service_server::SayService;
use pb::{SayRequest, SayResponse};

/// The service: says sentences back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Say;

type Answers = Pin<Box<dyn Stream<Item = Result<SayResponse, Status>> + Send>>;

/// The answer to one request: its sentence, `repeat` times over, or the error it asks for
/// (the request as the error's detail), after its delay.
async fn answer(request: &SayRequest, number: u32) -> Result<SayResponse, Status> {
    if request.delay_ms > 0 {
        // At most 10 s: a client's request cannot hold the server's task longer.
        let ms = request.delay_ms.min(10_000);
        tokio::time::sleep(Duration::from_millis(ms.into())).await;
    }
    if !request.fail_with.is_empty() {
        return Err(fail(request));
    }
    // At most 4 MiB of answer, whatever the request asks.
    let one = request.sentence.len() + 1;
    let times = (request.repeat.max(1) as usize).min((4 << 20) / one);
    if times == 0 {
        return Err(Status::invalid_argument("the sentence is over 4 MiB"));
    }
    Ok(SayResponse {
        sentence: vec![request.sentence.as_str(); times].join(" "),
        number,
        ..Default::default()
    })
}

/// The error a request asks for, with itself as a `google.rpc.Status` detail.
fn fail(request: &SayRequest) -> Status {
    use vtproto::Message as _;
    let code = vtproto::connect::code_of_name(&request.fail_with).unwrap_or(tonic::Code::Unknown);
    let detail = encode_any(
        "type.googleapis.com/vt.connect.v1.SayRequest",
        &request.encode_to_vec(),
    );
    let mut status_bytes = Vec::new();
    push_field(1, 0, &[code as u8], &mut status_bytes);
    push_field(
        2,
        2,
        format!("asked to fail with {}", request.fail_with).as_bytes(),
        &mut status_bytes,
    );
    push_field(3, 2, &detail, &mut status_bytes);
    let mut status = Status::with_details(
        code,
        format!("asked to fail with {}", request.fail_with),
        status_bytes.into(),
    );
    status
        .metadata_mut()
        .insert("x-failed", "yes".parse().expect("an ASCII value"));
    status
}

fn encode_any(type_url: &str, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    push_field(1, 2, type_url.as_bytes(), &mut out);
    push_field(2, 2, value, &mut out);
    out
}

/// Appends a field: a varint of one byte (`wire` 0) or length-delimited bytes (`wire` 2).
fn push_field(number: u8, wire: u8, bytes: &[u8], out: &mut Vec<u8>) {
    out.push(number << 3 | wire);
    if wire == 2 {
        let mut n = bytes.len();
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    out.extend_from_slice(bytes);
}

/// Copies the request's `x-echo` header into the response's metadata.
fn echo_header<T>(from: &tonic::metadata::MetadataMap, mut response: Response<T>) -> Response<T> {
    if let Some(v) = from.get("x-echo") {
        response.metadata_mut().insert("x-echo", v.clone());
    }
    response
}

#[tonic::async_trait]
impl SayService for Say {
    async fn say(&self, request: Request<SayRequest>) -> Result<Response<SayResponse>, Status> {
        let answer = answer(request.get_ref(), 1).await?;
        Ok(echo_header(request.metadata(), Response::new(answer)))
    }

    type WordsStream = Answers;

    async fn words(&self, request: Request<SayRequest>) -> Result<Response<Answers>, Status> {
        let metadata = request.metadata().clone();
        let request = request.into_inner();
        if !request.fail_with.is_empty() && request.sentence.is_empty() {
            // Failing before the first answer.
            return Err(fail(&request));
        }
        let words: Vec<String> = request
            .sentence
            .split_whitespace()
            .map(String::from)
            .collect();
        let each = request.clone();
        let stream = tokio_stream::iter(words.into_iter().enumerate()).then(move |(i, word)| {
            let one = SayRequest {
                sentence: word,
                fail_with: String::new(),
                ..each.clone()
            };
            async move { answer(&one, i as u32 + 1).await }
        });
        // A failure asked for with a sentence comes after its words.
        let end = (!request.fail_with.is_empty()).then(|| Err(fail(&request)));
        let stream = stream.chain(tokio_stream::iter(end));
        Ok(echo_header(
            &metadata,
            Response::new(Box::pin(stream) as Answers),
        ))
    }

    async fn collect(
        &self,
        request: Request<Streaming<SayRequest>>,
    ) -> Result<Response<SayResponse>, Status> {
        let metadata = request.metadata().clone();
        let mut stream = request.into_inner();
        let mut sentences = Vec::new();
        while let Some(one) = stream.next().await {
            let one = one?;
            if !one.fail_with.is_empty() {
                return Err(fail(&one));
            }
            sentences.push(one.sentence);
        }
        let answer = SayResponse {
            sentence: sentences.join(" "),
            number: sentences.len() as u32,
            ..Default::default()
        };
        Ok(echo_header(&metadata, Response::new(answer)))
    }

    type ChatStream = Answers;

    async fn chat(
        &self,
        request: Request<Streaming<SayRequest>>,
    ) -> Result<Response<Answers>, Status> {
        let metadata = request.metadata().clone();
        let stream = request.into_inner();
        let mut number = 0;
        let answers = stream.then(move |one| {
            number += 1;
            async move { answer(&one?, number).await }
        });
        Ok(echo_header(
            &metadata,
            Response::new(Box::pin(answers) as Answers),
        ))
    }
}

/// The CORS layer a page from another origin needs to call the server: any origin, the
/// Connect, gRPC-Web and gRPC headers allowed, their answers' headers exposed.
pub fn cors() -> tower_http::cors::CorsLayer {
    use http::header::HeaderName;
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let names = |list: &[&'static str]| {
        list.iter()
            .map(|n| HeaderName::from_static(n))
            .collect::<Vec<_>>()
    };
    CorsLayer::new()
        .allow_origin(AllowOrigin::mirror_request())
        .allow_methods([http::Method::GET, http::Method::POST])
        .allow_headers(names(&[
            "content-type",
            "connect-protocol-version",
            "connect-timeout-ms",
            "connect-content-encoding",
            "connect-accept-encoding",
            "grpc-timeout",
            "x-grpc-web",
            "x-user-agent",
            "x-echo",
        ]))
        .expose_headers(names(&[
            "grpc-status",
            "grpc-message",
            "grpc-status-details-bin",
            "connect-content-encoding",
            "x-echo",
            "x-failed",
        ]))
        .max_age(std::time::Duration::from_secs(7200))
}

/// Serves the say service on `listener`: Connect, gRPC and gRPC-Web, HTTP/1.1 and HTTP/2,
/// behind [`cors`], with `ConnectLayer` answering Connect clients of services the server does
/// not have.
pub async fn serve(listener: tokio::net::TcpListener) -> Result<(), tonic::transport::Error> {
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    tonic::transport::Server::builder()
        .accept_http1(true)
        .layer(vtproto::connect::ConnectLayer)
        .layer(cors())
        .add_service(pb::say_service_connect::server(Say).max_message_size(1 << 20))
        .serve_with_incoming(incoming)
        .await
}
