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
/// protocol's types in module `$pb` (`mode=prost`'s or `mode=standalone`'s): binary requests
/// for the listed message types are decoded and re-encoded, the round trip every binary test
/// checks; anything else is answered `skipped`.
#[macro_export]
macro_rules! testee {
    ($pb:path, { $($name:literal => $ty:ty),* $(,)? }) => {
        mod testee {
            use $pb as pb;
            use pb::conformance::{
                conformance_request::Payload, conformance_response::Result as Outcome,
                ConformanceRequest, ConformanceResponse, FailureSet, WireFormat,
            };
            use vtproto::Message;

            fn round_trip<M: Message>(payload: &[u8]) -> Outcome {
                match M::decode(payload) {
                    Ok(msg) => Outcome::ProtobufPayload(msg.encode_to_vec()),
                    Err(e) => Outcome::ParseError(e.to_string()),
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
                let Some(Payload::ProtobufPayload(payload)) = &req.payload else {
                    return Outcome::Skipped("only the binary wire format is supported".into());
                };
                if req.requested_output_format != WireFormat::Protobuf as i32 {
                    return Outcome::Skipped("only the binary wire format is supported".into());
                }
                match req.message_type.as_str() {
                    $($name => round_trip::<$ty>(payload),)*
                    other => Outcome::Skipped(format!("message type {other} is not supported")),
                }
            }
        }
    };
}
