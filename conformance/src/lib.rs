//! What the conformance testees share: the runner's protocol on stdin/stdout (a 4-byte
//! little-endian length, then a `ConformanceRequest`; answered the same way with a
//! `ConformanceResponse`).

use std::io::{Read, Write};

/// Answers requests with `respond` (request bytes in, response bytes out) until stdin ends.
pub fn serve(respond: impl Fn(&[u8]) -> Vec<u8>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let (mut input, mut output) = (stdin.lock(), stdout.lock());
    loop {
        let mut len = [0u8; 4];
        match input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let mut request = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut request)?;
        let response = respond(&request);
        output.write_all(&(response.len() as u32).to_le_bytes())?;
        output.write_all(&response)?;
        output.flush()?;
    }
}

/// The testee built without the conformance protos: says how to get them.
pub fn stub() -> ! {
    eprintln!(
        "this conformance testee was built without the conformance protos: run \
         scripts/fetch-corpora.sh, then build it again (the build notices them)"
    );
    std::process::exit(2);
}

/// A testee's `testee::respond` (request bytes in, response bytes out), over the conformance
/// protocol's types in module `$pb` (`mode=prost`'s or `mode=standalone`'s): requests for the
/// listed message types are read from binary or JSON and written in the requested format
/// (binary, JSON or text; `Any` resolved through the packages' `register_json_types` and
/// `register_text_types`); anything
/// else is answered `skipped`.
#[macro_export]
macro_rules! testee {
    (
        $pb:path,
        registry: [$($register:path),* $(,)?],
        text_registry: [$($register_text:path),* $(,)?],
        { $($name:literal => $ty:ty),* $(,)? }
    ) => {
        mod testee {
            use $pb as pb;
            use pb::conformance::{
                conformance_request::Payload, conformance_response::Result as Outcome,
                ConformanceRequest, ConformanceResponse, FailureSet, TestCategory, WireFormat,
            };
            use vtproto::json::{DecodeOptions, EncodeOptions, JsonMessage, TypeRegistry};
            use vtproto::text::TextMessage;
            use vtproto::Message;

            fn registry() -> &'static TypeRegistry {
                static REGISTRY: std::sync::OnceLock<TypeRegistry> = std::sync::OnceLock::new();
                REGISTRY.get_or_init(|| {
                    let mut registry = TypeRegistry::new();
                    $($register(&mut registry);)*
                    $($register_text(&mut registry);)*
                    registry
                })
            }

            fn round_trip<M: Message + JsonMessage + TextMessage>(
                req: &ConformanceRequest,
            ) -> Outcome {
                let msg: M = match &req.payload {
                    Some(Payload::ProtobufPayload(payload)) => match M::decode(payload) {
                        Ok(msg) => msg,
                        Err(e) => return Outcome::ParseError(e.to_string()),
                    },
                    Some(Payload::JsonPayload(json)) => {
                        let options = DecodeOptions {
                            ignore_unknown_fields: req.test_category
                                == TestCategory::JsonIgnoreUnknownParsingTest as i32,
                            registry: Some(registry()),
                            ..DecodeOptions::default()
                        };
                        match vtproto::json::from_str_with::<M>(json, &options) {
                            Ok(msg) => msg,
                            Err(e) => return Outcome::ParseError(e.to_string()),
                        }
                    }
                    Some(Payload::TextPayload(text)) => {
                        let options = vtproto::text::DecodeOptions {
                            registry: Some(registry()),
                            ..Default::default()
                        };
                        match vtproto::text::from_str_with::<M>(text, &options) {
                            Ok(msg) => msg,
                            Err(e) => return Outcome::ParseError(e.to_string()),
                        }
                    }
                    _ => return Outcome::Skipped("only binary, JSON and text input are supported".into()),
                };
                match req.requested_output_format {
                    f if f == WireFormat::Protobuf as i32 => {
                        Outcome::ProtobufPayload(msg.encode_to_vec())
                    }
                    f if f == WireFormat::Json as i32 => {
                        let options = EncodeOptions {
                            registry: Some(registry()),
                            ..EncodeOptions::default()
                        };
                        match vtproto::json::to_string_with(&msg, &options) {
                            Ok(json) => Outcome::JsonPayload(json),
                            Err(e) => Outcome::SerializeError(e.to_string()),
                        }
                    }
                    f if f == WireFormat::TextFormat as i32 => {
                        let options = vtproto::text::EncodeOptions {
                            print_unknown_fields: req.print_unknown_fields,
                            registry: Some(registry()),
                            ..Default::default()
                        };
                        match vtproto::text::to_string_with(&msg, &options) {
                            Ok(text) => Outcome::TextPayload(text),
                            Err(e) => Outcome::SerializeError(e.to_string()),
                        }
                    }
                    _ => Outcome::Skipped("only binary, JSON and text output are supported".into()),
                }
            }

            pub fn respond(request: &[u8]) -> Vec<u8> {
                let outcome = match ConformanceRequest::decode(request) {
                    Err(e) => Outcome::RuntimeError(format!("bad ConformanceRequest: {e}")),
                    Ok(req) => outcome(&req),
                };
                #[allow(clippy::needless_update)]
                let response = ConformanceResponse {
                    result: Some(outcome),
                    ..Default::default()
                };
                response.encode_to_vec()
            }

            fn outcome(req: &ConformanceRequest) -> Outcome {
                if req.message_type == "conformance.FailureSet" {
                    return Outcome::ProtobufPayload(FailureSet::default().encode_to_vec());
                }
                match req.message_type.as_str() {
                    $($name => round_trip::<$ty>(req),)*
                    other => Outcome::Skipped(format!("message type {other} is not supported")),
                }
            }
        }
    };
}
