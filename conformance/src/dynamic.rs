//! The testee for the official protobuf conformance suite on `vtproto::reflect` alone: the
//! test messages have no generated code here; their descriptors are loaded into a
//! `DescriptorPool` when the testee starts (a descriptor set `build.rs` wrote) and every
//! request is read and written as a `DynamicMessage`, in binary, ProtoJSON and the text format
//! (an `Any`'s type looked up in the same pool). Run it with `scripts/conformance.sh`.

#[cfg(vt_conformance)]
fn main() -> std::io::Result<()> {
    vt_conformance::serve(respond)
}

/// The conformance protocol itself (`conformance.proto` alone), generated in `mode=standalone`.
#[cfg(vt_conformance)]
#[allow(clippy::all, dead_code, missing_docs)]
mod pb {
    include!(concat!(env!("OUT_DIR"), "/protocol/_includes.rs"));
}

#[cfg(vt_conformance)]
fn pool() -> &'static vtproto::reflect::DescriptorPool {
    static POOL: std::sync::OnceLock<vtproto::reflect::DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let set = include_bytes!(concat!(env!("OUT_DIR"), "/test_messages.fds"));
        vtproto::reflect::DescriptorPool::decode(set).expect("the test messages' descriptors")
    })
}

/// The test message types the standalone testee serves, served here from the pool.
#[cfg(vt_conformance)]
const SERVED: &[&str] = &[
    "protobuf_test_messages.proto3.TestAllTypesProto3",
    "protobuf_test_messages.proto2.TestAllTypesProto2",
    "protobuf_test_messages.editions.TestAllTypesEdition2023",
    "protobuf_test_messages.editions.proto2.TestAllTypesProto2",
    "protobuf_test_messages.editions.proto3.TestAllTypesProto3",
];

#[cfg(vt_conformance)]
fn respond(request: &[u8]) -> Vec<u8> {
    use pb::conformance::{
        conformance_response::Result as Outcome, ConformanceRequest, ConformanceResponse,
        FailureSet,
    };
    use vtproto::Message;

    let outcome = match ConformanceRequest::decode(request) {
        Err(e) => Outcome::RuntimeError(format!("bad ConformanceRequest: {e}")),
        Ok(req) if req.message_type == "conformance.FailureSet" => {
            Outcome::ProtobufPayload(FailureSet::default().encode_to_vec())
        }
        Ok(req) => match pool().get_message_by_name(&req.message_type) {
            Some(desc) if SERVED.contains(&req.message_type.as_str()) => round_trip(desc, &req),
            _ => Outcome::Skipped(format!("message type {} is not served", req.message_type)),
        },
    };
    #[allow(clippy::needless_update)]
    let response = ConformanceResponse {
        result: Some(outcome),
        ..Default::default()
    };
    response.encode_to_vec()
}

/// Reads the request's payload as a `DynamicMessage` of type `desc` and writes it in the
/// requested format.
#[cfg(vt_conformance)]
fn round_trip(
    desc: vtproto::reflect::MessageDescriptor,
    req: &pb::conformance::ConformanceRequest,
) -> pb::conformance::conformance_response::Result {
    use pb::conformance::{
        conformance_request::Payload, conformance_response::Result as Outcome, TestCategory,
        WireFormat,
    };
    use vtproto::reflect::DynamicMessage;

    let msg = match &req.payload {
        Some(Payload::ProtobufPayload(bytes)) => match DynamicMessage::decode(desc, bytes) {
            Ok(msg) => msg,
            Err(e) => return Outcome::ParseError(e.to_string()),
        },
        Some(Payload::JsonPayload(json)) => {
            let options = vtproto::json::DecodeOptions {
                ignore_unknown_fields: req.test_category
                    == TestCategory::JsonIgnoreUnknownParsingTest as i32,
                ..Default::default()
            };
            match DynamicMessage::from_json_with(desc, json, &options) {
                Ok(msg) => msg,
                Err(e) => return Outcome::ParseError(e.to_string()),
            }
        }
        Some(Payload::TextPayload(text)) => match DynamicMessage::from_text(desc, text) {
            Ok(msg) => msg,
            Err(e) => return Outcome::ParseError(e.to_string()),
        },
        _ => return Outcome::Skipped("only binary, JSON and text input are supported".into()),
    };
    match req.requested_output_format {
        f if f == WireFormat::Protobuf as i32 => Outcome::ProtobufPayload(msg.encode_to_vec()),
        f if f == WireFormat::Json as i32 => match msg.to_json() {
            Ok(json) => Outcome::JsonPayload(json),
            Err(e) => Outcome::SerializeError(e.to_string()),
        },
        f if f == WireFormat::TextFormat as i32 => {
            let options = vtproto::text::EncodeOptions {
                print_unknown_fields: req.print_unknown_fields,
                ..Default::default()
            };
            match msg.to_text_with(&options) {
                Ok(text) => Outcome::TextPayload(text),
                Err(e) => Outcome::SerializeError(e.to_string()),
            }
        }
        _ => Outcome::Skipped("only binary, JSON and text output are supported".into()),
    }
}

#[cfg(not(vt_conformance))]
fn main() {
    vt_conformance::stub()
}
