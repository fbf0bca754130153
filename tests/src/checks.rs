//! The properties the fuzz targets (`fuzz/`) check, shared with the stable replay of their
//! corpora (`tests/tests/fuzz_corpus.rs`). Each check panics when a property fails.
//!
//! For one input and one message type, against prost on prost's structs and between our
//! decoders: prost and our impls accept and reject alike and agree on the value; an accepted
//! value re-encodes in exactly `size()` bytes to an encoding that decodes back to it; the view
//! and `decode_into` agree with the owned decode; our own structs (`mode=standalone`) accept
//! what prost's accept (and declared fields with another wire type, which the spec keeps as
//! unknown), keep what they read, and round-trip too.

use std::fmt::Debug;

use vtproto::{DecodeError, DecodeErrorKind, Message, MessageView, Reader, ViewFamily};

/// Equal, or equal but for NaNs (which never equal themselves).
fn same<T: PartialEq + Debug>(a: &T, b: &T) -> bool {
    a == b || {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        a.contains("NaN") && a.len() == b.len()
    }
}

/// A declared field number arriving with another wire type: an error for prost, an unknown
/// field for the spec and `mode=standalone`.
fn mismatch(e: &DecodeError) -> bool {
    matches!(e.kind(), DecodeErrorKind::WireTypeMismatch { .. })
}

/// Decodes without the required-field check (merge alone).
fn partial<S: Message>(data: &[u8]) -> Result<S, DecodeError> {
    let mut s = S::default();
    s.merge(&mut Reader::new(data))?;
    Ok(s)
}

/// The checks on one input for a type: `P` (prost's struct with our impls, views `PV`) and
/// `S` (ours, views `SV`).
pub fn check<P, PV, S, SV>(data: &[u8])
where
    P: prost::Message + Message + PartialEq + Debug + Default,
    PV: ViewFamily,
    for<'a> PV::View<'a>: MessageView<'a, Owned = P>,
    S: Message + PartialEq + Debug,
    SV: ViewFamily,
    for<'a> SV::View<'a>: MessageView<'a, Owned = S>,
{
    let theirs = <P as prost::Message>::decode(data);
    let ours = <P as Message>::decode(data);
    match (&theirs, &ours) {
        (Ok(t), Ok(o)) => assert!(same(t, o), "values differ:\n{t:?}\n{o:?}"),
        (Err(_), Err(_)) => {}
        (t, o) => panic!("prost {:?} but rust-vt {:?}", t.is_ok(), o.as_ref().err()),
    }
    let view = view_of::<PV>(data);
    assert_eq!(
        view.is_ok(),
        ours.is_ok(),
        "the view disagrees: {:?}",
        view.err()
    );
    let mut reused = P::default();
    let into = reused.decode_into(data).map(|()| reused);
    assert_eq!(into.is_ok(), ours.is_ok(), "decode_into disagrees");
    if let Ok(value) = &ours {
        assert!(
            same(value, &view.unwrap()),
            "the view's owned message differs"
        );
        assert!(same(value, &into.unwrap()), "decode_into differs");
        let bytes = Message::encode_to_vec(value);
        assert_eq!(bytes.len(), value.size(), "size()");
        let back = <P as Message>::decode(&bytes).expect("our encoding decodes");
        let again = <P as Message>::decode(&Message::encode_to_vec(&back)).unwrap();
        assert!(same(&back, &again), "the round trip is not stable");
    }

    let standalone = partial::<S>(data);
    match (&ours, &standalone) {
        (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) if mismatch(e) => {}
        (o, s) => panic!(
            "mode=prost {:?} but mode=standalone {:?}",
            o.as_ref().err(),
            s.as_ref().err()
        ),
    }
    let sview = view_of::<SV>(data);
    assert_eq!(sview.is_ok(), ours.is_ok(), "the standalone view disagrees");
    if let Ok(s) = &standalone {
        let bytes = s.encode_to_vec();
        assert_eq!(bytes.len(), s.size(), "standalone size()");
        let back = partial::<S>(&bytes).expect("standalone decodes its encoding");
        assert!(same(s, &back), "the standalone round trip differs");
        assert!(
            back.encode_deterministic_to_vec() == s.encode_deterministic_to_vec(),
            "the standalone encoding is not stable"
        );
    }
}

/// The owned message of the view of `data`.
fn view_of<'a, F: ViewFamily>(
    data: &'a [u8],
) -> Result<<F::View<'a> as MessageView<'a>>::Owned, DecodeError> {
    Ok(<F::View<'a> as MessageView<'a>>::decode_view(data)?.to_owned_message())
}

/// The conformance suite's TestAllTypes messages, proto3 and proto2: the first byte picks one.
#[cfg(vt_conformance)]
pub fn conformance(data: &[u8]) {
    use crate::conformance::protobuf_test_messages as p;
    use crate::conformance_standalone::protobuf_test_messages as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        check::<
            p::proto3::TestAllTypesProto3,
            p::proto3::TestAllTypesProto3ViewFamily,
            s::proto3::TestAllTypesProto3,
            s::proto3::TestAllTypesProto3ViewFamily,
        >(rest);
    } else {
        check::<
            p::proto2::TestAllTypesProto2,
            p::proto2::TestAllTypesProto2ViewFamily,
            s::proto2::TestAllTypesProto2,
            s::proto2::TestAllTypesProto2ViewFamily,
        >(rest);
    }
}

/// The project's workload and test messages: the first byte picks one.
pub fn workloads(data: &[u8]) {
    use crate::own::vt as p;
    use crate::own_standalone::vt as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 6 {
        0 => check::<
            p::candidates::CandidatesResponse,
            p::candidates::CandidatesResponseViewFamily,
            s::candidates::CandidatesResponse,
            s::candidates::CandidatesResponseViewFamily,
        >(rest),
        1 => check::<
            p::event::EventBatch,
            p::event::EventBatchViewFamily,
            s::event::EventBatch,
            s::event::EventBatchViewFamily,
        >(rest),
        2 => {
            check::<p::deep::Node, p::deep::NodeViewFamily, s::deep::Node, s::deep::NodeViewFamily>(
                rest,
            )
        }
        3 => check::<
            p::test::proto3::Maps,
            p::test::proto3::MapsViewFamily,
            s::test::proto3::Maps,
            s::test::proto3::MapsViewFamily,
        >(rest),
        4 => check::<
            p::test::proto2::Groups,
            p::test::proto2::GroupsViewFamily,
            s::test::proto2::Groups,
            s::test::proto2::GroupsViewFamily,
        >(rest),
        _ => check::<
            p::test::proto3::Repeateds,
            p::test::proto3::RepeatedsViewFamily,
            s::test::proto3::Repeateds,
            s::test::proto3::RepeatedsViewFamily,
        >(rest),
    }
}
