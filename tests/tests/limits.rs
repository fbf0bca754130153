//! Protobuf's 2 GiB limit: a length prefix over it is refused however large the input is, and
//! a message over it is refused by the encoding entry points that can say so, without writing
//! it. (The system allocator, not the test's counting one: the 2 GiB zeroed buffers here are
//! never touched, so they cost address space, not memory.)

use vt_tests::own::vt::test::proto3::Bytes as BytesMessage;
use vtproto::wire::MAX_MESSAGE_SIZE;
use vtproto::{DecodeErrorKind, EncodeError, Message};

#[test]
fn length_prefixes_over_2_gib_are_refused() {
    // Field 1 (bytes) claiming 2 GiB, in an input that holds them.
    let len = MAX_MESSAGE_SIZE + 1;
    let mut input = vec![0u8; len + 16];
    let prefix = [0x0a, 0x80, 0x80, 0x80, 0x80, 0x08]; // key, then varint 2^31
    input[..prefix.len()].copy_from_slice(&prefix);
    let err = BytesMessage::decode(&input).unwrap_err();
    assert_eq!(*err.kind(), DecodeErrorKind::LengthOutOfBounds(len as u64));
}

#[test]
fn messages_over_2_gib_are_refused_by_encode() {
    let msg = BytesMessage {
        shared: vec![0u8; MAX_MESSAGE_SIZE].into(),
        ..BytesMessage::default()
    };
    let size = msg.size();
    assert!(size > MAX_MESSAGE_SIZE);
    assert_eq!(msg.try_encode_to_vec(), Err(EncodeError::TooLarge { size }));
    let mut buf = bytes::BytesMut::new();
    assert_eq!(msg.encode(&mut buf), Err(EncodeError::TooLarge { size }));
    assert!(buf.is_empty());
    // Under the limit, the same entry points encode.
    let small = BytesMessage {
        shared: vec![1u8; 10].into(),
        ..BytesMessage::default()
    };
    assert_eq!(small.try_encode_to_vec().unwrap(), small.encode_to_vec());
}
