//! The testee for the official protobuf conformance suite (`conformance_test_runner`).
//!
//! Speaks the runner's protocol on stdin/stdout: a 4-byte little-endian length, then a
//! `ConformanceRequest`; answered the same way with a `ConformanceResponse`. Binary requests for
//! the proto2 and proto3 test messages are decoded and re-encoded with rust-vt's generated impls
//! (`mode=prost`, on prost-build's structs); JSON, text and editions are answered `skipped`.
//! Run it with `scripts/conformance.sh`.

#[cfg(vt_conformance)]
fn main() -> std::io::Result<()> {
    use std::io::{Read, Write};

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
        let response = testee::respond(&request);
        output.write_all(&(response.len() as u32).to_le_bytes())?;
        output.write_all(&response)?;
        output.flush()?;
    }
}

#[cfg(vt_conformance)]
mod testee {
    use rust_vt::conformance::conformance::{
        conformance_request::Payload, conformance_response::Result as Outcome, ConformanceRequest,
        ConformanceResponse, FailureSet, WireFormat,
    };
    use rust_vt::conformance::protobuf_test_messages::{proto2, proto3};
    use vtproto::Message;

    /// Decodes with `M`, then re-encodes: the round trip every binary test checks.
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
        ConformanceResponse {
            result: Some(outcome),
        }
        .encode_to_vec()
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
            "protobuf_test_messages.proto3.TestAllTypesProto3" => {
                round_trip::<proto3::TestAllTypesProto3>(payload)
            }
            "protobuf_test_messages.proto2.TestAllTypesProto2" => {
                round_trip::<proto2::TestAllTypesProto2>(payload)
            }
            other => Outcome::Skipped(format!("message type {other} is not supported")),
        }
    }
}

#[cfg(not(vt_conformance))]
fn main() {
    eprintln!("conformance-testee was built without the conformance protos: run scripts/fetch-corpora.sh, then rebuild");
    std::process::exit(2);
}
