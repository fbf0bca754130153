//! The properties of one message type on one input, for every generated type: against prost
//! on prost's structs and between our decoders: prost and our impls accept and reject alike
//! and agree on the value; an accepted value re-encodes in exactly `size()` bytes, through
//! every encode entry point, to an encoding of prost's length that decodes back to it; the
//! view and `decode_into` agree with the owned decode, also into a value that held another
//! input before (`check_reuse`: every pair, the input thinned at every level); our own structs (`mode=standalone`)
//! accept what prost's accept (and declared fields with another wire type, which the spec
//! keeps as unknown), keep what they read, and round-trip too. Each check panics when a
//! property fails.
//!
//! Depends on the runtime, prost, bytes and serde_json alone, so that crates generated at test time
//! (`tests/tests/random_schemas.rs`) include it too.

use std::fmt::Debug;

use vtproto::{DecodeError, DecodeErrorKind, Message, MessageView, Reader, ViewFamily};

/// Equal, or equal but for NaNs (which never equal themselves) and signs of zero.
pub fn same<T: PartialEq + Debug>(a: &T, b: &T) -> bool {
    a == b || {
        // A NaN is unequal to itself: then the Debug forms (maps in any order) are compared
        // by length, a -0.0 as the 0.0 that `==` takes it for (mode=prost's reflection hands
        // out an implicit field's -0.0 as unset, as prost writes it).
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        let zeros = |s: &str| s.matches("-0.0").count();
        a.contains("NaN") && a.len() - zeros(&a) == b.len() - zeros(&b)
    }
}

/// A declared field number arriving with another wire type: an error for prost, an unknown
/// field for the spec and `mode=standalone`.
fn mismatch(e: &DecodeError) -> bool {
    matches!(e.kind(), DecodeErrorKind::WireTypeMismatch { .. })
}

/// An error inside a declared extension (its path names `[full.name]`).
pub fn in_extension(e: &DecodeError) -> bool {
    e.path().any(|(_, field)| field.starts_with('['))
}

/// ProtoJSON on an accepted value (`features=..+json`): what we write reads back, with each
/// writing option, and the value read back is a fixed point (written and read again, it is
/// the same). Writing may refuse only values that have no JSON form (a Timestamp out of
/// range, a Value with no kind, an Any of an unknown type, ...), never with an error of ours.
pub fn check_json<S: Message + vtproto::json::JsonMessage + PartialEq + Debug>(data: &[u8]) {
    use vtproto::json::{self, EncodeOptions, JsonErrorKind};
    let Ok(s) = partial::<S>(data) else {
        return;
    };
    let text = match json::to_string(&s) {
        Ok(text) => text,
        Err(e) => {
            assert!(
                matches!(
                    e.kind(),
                    JsonErrorKind::InvalidValue { .. }
                        | JsonErrorKind::UnknownAnyType { .. }
                        | JsonErrorKind::Decode(_)
                ),
                "JSON refuses a value with {e}"
            );
            return;
        }
    };
    let back: S = json::from_str(&text)
        .unwrap_or_else(|e| panic!("our JSON does not read back: {e}\n{text}"));
    let again = json::to_string(&back).expect("JSON writes what it read");
    let again: S = json::from_str(&again).expect("JSON reads what it wrote");
    assert!(
        same(&back, &again),
        "JSON is not a fixed point:\n{back:?}\n{again:?}"
    );
    let options = EncodeOptions {
        emit_unpopulated: true,
        use_proto_names: true,
        enums_as_ints: true,
        indent: 2,
        ..EncodeOptions::default()
    };
    let other = json::to_string_with(&back, &options).expect("JSON writes with options");
    let other: S = json::from_str(&other)
        .unwrap_or_else(|e| panic!("our JSON with options does not read back: {e}"));
    assert!(
        same(&back, &other),
        "JSON with options reads back another value"
    );
}

/// The text format on an accepted value (`features=..+text`): what we write, on one line and
/// pretty, reads back, and the value read back is a fixed point. Writing may refuse only a
/// value whose extension payload does not decode.
pub fn check_text<S: Message + vtproto::text::TextMessage + PartialEq + Debug>(data: &[u8]) {
    use vtproto::text::{self, TextErrorKind};
    let Ok(s) = partial::<S>(data) else {
        return;
    };
    let line = match text::to_string(&s) {
        Ok(line) => line,
        Err(e) => {
            assert!(
                matches!(e.kind(), TextErrorKind::Decode(_)),
                "the text format refuses a value with {e}"
            );
            return;
        }
    };
    let back: S = text::from_str(&line)
        .unwrap_or_else(|e| panic!("our text does not read back: {e}\n{line}"));
    let again = text::to_string(&back).expect("text writes what it read");
    let again: S = text::from_str(&again).expect("text reads what it wrote");
    assert!(
        same(&back, &again),
        "text is not a fixed point:\n{back:?}\n{again:?}"
    );
    let pretty = text::to_string_pretty(&back).expect("text writes pretty");
    let pretty: S = text::from_str(&pretty)
        .unwrap_or_else(|e| panic!("our pretty text does not read back: {e}"));
    assert!(same(&back, &pretty), "pretty text reads back another value");
}

/// The serde impls on an accepted value (`features=..+json+serde`): through `serde_json`,
/// `Serialize` writes JSON the direct path reads to the value the direct path's own JSON gives,
/// and `Deserialize` reads the direct path's JSON to it; where the direct path finds no JSON
/// form, serde fails too.
pub fn check_serde<S>(data: &[u8])
where
    S: Message + vtproto::json::JsonMessage + PartialEq + Debug,
    S: vtproto::json::serde_impls::serde::Serialize,
    S: for<'de> vtproto::json::serde_impls::serde::Deserialize<'de>,
{
    use vtproto::json;
    let Ok(s) = partial::<S>(data) else {
        return;
    };
    let Ok(direct) = json::to_string(&s) else {
        assert!(
            serde_json::to_string(&s).is_err(),
            "serde writes a value JSON has no form for"
        );
        return;
    };
    let via_serde = serde_json::to_string(&s).expect("serde writes what JSON writes");
    let a: S = json::from_str(&direct).expect("JSON reads what it wrote");
    let b: S = json::from_str(&via_serde)
        .unwrap_or_else(|e| panic!("serde's JSON does not read: {e}\n{via_serde}"));
    assert!(
        same(&a, &b),
        "serde writes another value:\n{direct}\n{via_serde}"
    );
    let c: S = serde_json::from_str(&direct)
        .unwrap_or_else(|e| panic!("serde does not read our JSON: {e}\n{direct}"));
    assert!(same(&a, &c), "serde reads another value from {direct}");
}

/// What the generated code (the `mode=standalone` struct `S`) makes of one input, in every
/// form, for [`check_dynamic`] to compare a `DynamicMessage` with.
pub struct Generated {
    /// The deterministic encoding of what `merge` reads, or its error.
    pub binary: Result<Vec<u8>, DecodeError>,
    /// Whether `decode` (which checks required fields too) accepts the input.
    pub decodes: bool,
    /// ProtoJSON with the default options and with every option on (`None`: no JSON form
    /// without a registry, or the type has no JSON code).
    pub json: [Option<Result<String, vtproto::json::JsonError>>; 2],
    /// The value read back from `json[0]`, encoded.
    pub json_read: Option<Vec<u8>>,
    /// The text format on one line, and pretty with unknown fields.
    pub text: [Result<String, vtproto::text::TextError>; 2],
    /// The value read back from `text[0]`, encoded.
    pub text_read: Option<Vec<u8>>,
}

/// The encodings of `S` for [`check_dynamic`].
pub fn generated<S>(data: &[u8]) -> Option<Generated>
where
    S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage,
{
    use vtproto::{json, text};
    let s = match partial::<S>(data) {
        Ok(s) => s,
        Err(e) => {
            return Some(Generated {
                binary: Err(e),
                decodes: false,
                json: [None, None],
                json_read: None,
                text: [Ok(String::new()), Ok(String::new())],
                text_read: None,
            })
        }
    };
    let json_options = dynamic_json_options();
    let json = json_options.map(|o| match json::to_string_with(&s, &o) {
        // The generated code's registry is empty here; the pool knows every type.
        Err(e) if matches!(e.kind(), json::JsonErrorKind::UnknownAnyType { .. }) => None,
        other => Some(other),
    });
    let json_read = match &json[0] {
        Some(Ok(text)) => Some(
            json::from_str::<S>(text)
                .unwrap_or_else(|e| panic!("our JSON does not read back: {e}\n{text}"))
                .encode_deterministic_to_vec(),
        ),
        _ => None,
    };
    let text_options = dynamic_text_options();
    let text = text_options.map(|o| text::to_string_with(&s, &o));
    let text_read = text[0].as_ref().ok().map(|line| {
        text::from_str::<S>(line)
            .unwrap_or_else(|e| panic!("our text does not read back: {e}\n{line}"))
            .encode_deterministic_to_vec()
    });
    Some(Generated {
        binary: Ok(s.encode_deterministic_to_vec()),
        decodes: S::decode(data).is_ok(),
        json,
        json_read,
        text,
        text_read,
    })
}

fn dynamic_json_options() -> [vtproto::json::EncodeOptions<'static>; 2] {
    use vtproto::json::EncodeOptions;
    [
        EncodeOptions::default(),
        EncodeOptions {
            emit_unpopulated: true,
            use_proto_names: true,
            enums_as_ints: true,
            indent: 2,
            ..EncodeOptions::default()
        },
    ]
}

fn dynamic_text_options() -> [vtproto::text::EncodeOptions<'static>; 2] {
    use vtproto::text::EncodeOptions;
    [
        EncodeOptions::default(),
        EncodeOptions {
            pretty: true,
            print_unknown_fields: true,
            ..EncodeOptions::default()
        },
    ]
}

/// A `DynamicMessage` of type `desc` reads `data` as the generated `mode=standalone` struct
/// `S` of the same type does: it accepts and refuses alike, writes the struct's deterministic
/// encoding byte for byte (unknown fields, extensions, closed enums, groups, MessageSet items,
/// packing, map entries in key order), and reads what it wrote back to the same bytes; it
/// writes the same ProtoJSON (compared as JSON values: generated maps may be hash maps) and
/// the same text format, byte for byte, with each option, and reads the generated code's
/// JSON and text to the value the generated code reads.
pub fn check_dynamic<S>(desc: &vtproto::reflect::MessageDescriptor, data: &[u8])
where
    S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage,
{
    if let Some(generated) = generated::<S>(data) {
        compare_dynamic(desc, data, &generated);
    }
}

/// A `DynamicMessage` of type `desc` merged from `data` (required fields not checked).
pub fn merged(
    desc: &vtproto::reflect::MessageDescriptor,
    data: &[u8],
) -> Result<vtproto::reflect::DynamicMessage, DecodeError> {
    let mut m = vtproto::reflect::DynamicMessage::new(desc.clone());
    m.merge(&mut Reader::new(data))?;
    Ok(m)
}

/// The non-generic half of [`check_dynamic`].
pub fn compare_dynamic(desc: &vtproto::reflect::MessageDescriptor, data: &[u8], g: &Generated) {
    use vtproto::reflect::DynamicMessage;
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let name = desc.full_name();
    // `decode` checks required fields, as the generated `decode` does.
    assert_eq!(
        DynamicMessage::decode(desc.clone(), data).is_ok(),
        g.decodes,
        "{name}: decode's verdict on {}",
        hex(data)
    );
    let d = match (merged(desc, data), &g.binary) {
        (Ok(d), Ok(expected)) => {
            let written = d.encode_to_vec();
            assert!(
                written == *expected,
                "{name}: the dynamic message writes other bytes for {}\n ours {}\n gen  {}",
                hex(data),
                hex(&written),
                hex(expected)
            );
            let again = merged(desc, &written)
                .unwrap_or_else(|e| panic!("{name}: what it wrote does not read: {e}"));
            assert_eq!(again.encode_to_vec(), *expected, "{name}: round trip");
            d
        }
        (Err(_), Err(_)) => return,
        (d, s) => panic!(
            "{name}: dynamic {:?} but generated {:?} on {}",
            d.as_ref().err(),
            s.as_ref().err(),
            hex(data)
        ),
    };
    for (options, expected) in dynamic_json_options().iter().zip(&g.json) {
        let Some(expected) = expected else { continue };
        match (d.to_json_with(options), expected) {
            (Ok(ours), Ok(theirs)) => {
                let a: serde_json::Value = serde_json::from_str(&ours)
                    .unwrap_or_else(|e| panic!("{name}: our JSON is not JSON ({e}): {ours}"));
                let b: serde_json::Value = serde_json::from_str(theirs).unwrap();
                assert!(
                    a == b,
                    "{name}: other JSON for {}\n ours {ours}\n gen  {theirs}",
                    hex(data)
                );
            }
            // Both find no JSON form; which value they report may differ where two map
            // entries have none (the generated code's hash maps iterate in any order).
            (Err(_), Err(_)) => {}
            (ours, theirs) => panic!(
                "{name}: JSON {ours:?} where the generated code gives {theirs:?} for {}",
                hex(data)
            ),
        }
    }
    if let (Some(Ok(text)), Some(expected)) = (&g.json[0], &g.json_read) {
        let read = DynamicMessage::from_json(desc.clone(), text)
            .unwrap_or_else(|e| panic!("{name}: the generated JSON does not read: {e}\n{text}"));
        assert!(
            read.encode_to_vec() == *expected,
            "{name}: reads other values from {text}"
        );
    }
    for (options, expected) in dynamic_text_options().iter().zip(&g.text) {
        match (d.to_text_with(options), expected) {
            (Ok(ours), Ok(theirs)) => assert!(
                ours == *theirs,
                "{name}: other text for {}\n ours {ours:?}\n gen  {theirs:?}",
                hex(data)
            ),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}: text errors"),
            (ours, theirs) => panic!(
                "{name}: text {ours:?} where the generated code gives {theirs:?} for {}",
                hex(data)
            ),
        }
    }
    if let (Ok(text), Some(expected)) = (&g.text[0], &g.text_read) {
        let read = DynamicMessage::from_text(desc.clone(), text)
            .unwrap_or_else(|e| panic!("{name}: the generated text does not read: {e}\n{text}"));
        assert!(
            read.encode_to_vec() == *expected,
            "{name}: reads other values from {text}"
        );
    }
}

/// Decodes without the required-field check (merge alone).
pub fn partial<S: Message>(data: &[u8]) -> Result<S, DecodeError> {
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
        assert_eq!(
            bytes.len(),
            prost::Message::encoded_len(value),
            "the encoding's length is not prost's"
        );
        entry_points(value, &bytes);
        let back = <P as Message>::decode(&bytes).expect("our encoding decodes");
        let again = <P as Message>::decode(&Message::encode_to_vec(&back)).unwrap();
        assert!(same(&back, &again), "the round trip is not stable");
    }

    let standalone = partial::<S>(data);
    match (&ours, &standalone) {
        (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) if mismatch(e) => {}
        // prost has no extensions: it skips what our structs read as a declared extension.
        (Ok(_), Err(e)) if in_extension(e) => {}
        (o, s) => panic!(
            "mode=prost {:?} but mode=standalone {:?}",
            o.as_ref().err(),
            s.as_ref().err()
        ),
    }
    // The standalone view reads as prost's structs do (it skips unknown fields), but the
    // messages it holds owned (well-known types) are standalone ones, which keep a field with
    // another wire type as an unknown field.
    let sview = view_of::<SV>(data);
    assert!(
        sview.is_ok() == ours.is_ok() || matches!((&sview, &ours), (Ok(_), Err(e)) if mismatch(e)),
        "the standalone view disagrees: {:?} against {:?}",
        sview.as_ref().err(),
        ours.as_ref().err()
    );
    if let Ok(s) = &standalone {
        standalone_round_trip(s);
    }
    // Under Miri (scripts/miri.sh's sample) the decoders' unsafe paths are what is checked:
    // the pairs add decodes, not unsafe code.
    if !cfg!(miri) {
        check_reuse_one::<P>(data);
        check_reuse_one::<S>(data);
    }
}

/// The checks on one input for a type that exists in `mode=standalone` alone (editions): the
/// view and `decode_into` agree with the owned decode, and the value round-trips through every
/// encode entry point.
pub fn check_standalone<S, SV>(data: &[u8])
where
    S: Message + PartialEq + Debug,
    SV: ViewFamily,
    for<'a> SV::View<'a>: MessageView<'a, Owned = S>,
{
    let standalone = partial::<S>(data);
    let mut reused = S::default();
    let into = reused.decode_into(data).map(|()| reused);
    match (&standalone, &into) {
        (Ok(s), Ok(i)) => assert!(same(s, i), "decode_into differs:\n{s:?}\n{i:?}"),
        // decode_into also checks required fields; merge alone does not.
        (Ok(_), Err(e)) if matches!(e.kind(), DecodeErrorKind::MissingRequired { .. }) => {}
        (Err(_), Err(_)) => {}
        (s, i) => panic!(
            "merge {:?} but decode_into {:?}",
            s.as_ref().err(),
            i.as_ref().err()
        ),
    }
    if let Ok(s) = &standalone {
        standalone_round_trip(s);
    }
    check_reuse_one::<S>(data);
}

/// An accepted `mode=standalone` value: its encoding is `size()` long through every entry
/// point, decodes back to it, and is stable.
fn standalone_round_trip<S: Message + PartialEq + Debug>(s: &S) {
    let bytes = s.encode_to_vec();
    assert_eq!(bytes.len(), s.size(), "standalone size()");
    entry_points(s, &bytes);
    let back = partial::<S>(&bytes).expect("standalone decodes its encoding");
    assert!(same(s, &back), "the standalone round trip differs");
    assert!(
        back.encode_deterministic_to_vec() == s.encode_deterministic_to_vec(),
        "the standalone encoding is not stable"
    );
}

/// Every encode entry point writes `bytes` (what `encode_to_vec` wrote): the scratch and
/// exact paths, into a `BytesMut` (new and reused), a `BufMut` with room, at the end of a
/// `Vec`, length-delimited and deterministic (equal length; order may differ for maps).
fn entry_points<M: Message>(value: &M, bytes: &[u8]) {
    assert_eq!(
        value.try_encode_to_vec().unwrap(),
        bytes,
        "try_encode_to_vec"
    );
    assert_eq!(&value.encode_to_bytes()[..], bytes, "encode_to_bytes");
    let mut fresh = bytes::BytesMut::new();
    value.encode_to_bytes_mut(&mut fresh);
    assert_eq!(&fresh[..], bytes, "encode_to_bytes_mut (new)");
    value.encode_to_bytes_mut(&mut fresh);
    assert_eq!(&fresh[bytes.len()..], bytes, "encode_to_bytes_mut (reused)");
    let mut room = bytes::BytesMut::with_capacity(bytes.len() + 3);
    value.encode(&mut room).unwrap();
    assert_eq!(&room[..], bytes, "encode into a BufMut");
    let mut tail = vec![7u8; 3];
    value.append_to_vec(&mut tail);
    assert_eq!(&tail[3..], bytes, "append_to_vec");
    let delimited = value.encode_length_delimited_to_vec();
    let mut prefixed = Reader::new(&delimited);
    let body = prefixed.read_len_delimited().expect("a length prefix");
    assert!(body == bytes && prefixed.is_empty(), "length-delimited");
    assert_eq!(
        value.encode_deterministic_to_vec().len(),
        bytes.len(),
        "deterministic"
    );
}

/// The owned message of the view of `data`.
fn view_of<'a, F: ViewFamily>(
    data: &'a [u8],
) -> Result<<F::View<'a> as MessageView<'a>>::Owned, DecodeError> {
    Ok(<F::View<'a> as MessageView<'a>>::decode_view(data)?.to_owned_message())
}

/// `decode_into` one value over every ordered pair of `inputs`, and over all of them in turn
/// and back: after any earlier input, good or bad, the value equals a fresh decode of the next
/// one (or both fail). Each input that parses as records is also paired with two thinned
/// copies of itself ([`thin`]), in both orders, so that a value meets an input naming fewer
/// map keys, repeated elements and fields than the one before, at every level.
pub fn check_reuse<M: Message + PartialEq + Debug>(inputs: &[&[u8]]) {
    let step = reuse_step::<M>;
    for a in inputs {
        for b in inputs {
            let mut value = M::default();
            let _ = value.decode_into(a);
            step(&mut value, &[a], b);
        }
    }
    let order: Vec<&[u8]> = inputs.iter().chain(inputs.iter().rev()).copied().collect();
    let mut value = M::default();
    for i in 0..order.len() {
        step(&mut value, &order[..i], order[i]);
    }
    for (i, data) in inputs.iter().enumerate() {
        for salt in [i as u64, !(i as u64)] {
            let thinned = thin(data, salt);
            if thinned == *data {
                continue;
            }
            let mut value = M::default();
            let _ = value.decode_into(data);
            step(&mut value, &[data], &thinned);
            let _ = value.decode_into(data);
            step(&mut value, &[&thinned], data);
        }
    }
}

/// `decode_into` over the pairs a single input (a fuzz input, a random message) makes: `data`
/// after itself, a thinned copy ([`thin`]) after `data` and back, and its two halves after one
/// another and after `data`.
pub fn check_reuse_one<M: Message + PartialEq + Debug>(data: &[u8]) {
    let salt = data
        .iter()
        .fold(0u64, |h, &b| h.rotate_left(5) ^ u64::from(b));
    let thinned = thin(data, salt);
    let (first, second) = data.split_at(data.len() / 2);
    for (a, b) in [
        (data, data),
        (data, &thinned[..]),
        (&thinned[..], data),
        (first, second),
        (second, data),
        (data, first),
    ] {
        let mut value = M::default();
        let _ = value.decode_into(a);
        reuse_step(&mut value, &[a], b);
    }
}

/// Decodes `data` into `value` (which held the last of `before`): the value equals a fresh
/// decode of `data`, or both fail.
fn reuse_step<M: Message + PartialEq + Debug>(value: &mut M, before: &[&[u8]], data: &[u8]) {
    let into = value.decode_into(data);
    match (&into, M::decode(data)) {
        (Ok(()), Ok(f)) => assert!(
            same(value, &f),
            "decode_into after {} inputs differs from a fresh decode:\n{value:?}\n{f:?}\ninputs {}",
            before.len(),
            hex_list(before, data)
        ),
        (Err(_), Err(_)) => {}
        (i, f) => panic!(
            "decode_into {:?} but a fresh decode {:?}; inputs {}",
            i.as_ref().err(),
            f.as_ref().err(),
            hex_list(before, data)
        ),
    }
}

fn hex_list(before: &[&[u8]], last: &[u8]) -> String {
    before
        .iter()
        .chain([&last])
        .map(|d| d.iter().map(|b| format!("{b:02x}")).collect::<String>())
        .collect::<Vec<_>>()
        .join(" then ")
}

/// `data` with some of its records dropped, chosen by `salt`, at every level: a
/// length-delimited record whose body parses as records is thinned in turn (nested messages
/// and map entries; a string that happens to parse may change, which only makes another
/// input). Where `data` does not parse as records, it is returned as it is.
pub fn thin(data: &[u8], salt: u64) -> Vec<u8> {
    thin_level(data, salt, 0).unwrap_or_else(|| data.to_vec())
}

fn thin_level(data: &[u8], salt: u64, depth: u32) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len());
    let mut r = Reader::new(data);
    let mut index = 0u64;
    while !r.is_empty() {
        let at = data.len() - r.remaining();
        let key = r.read_key().ok()?;
        let head = &data[at..data.len() - r.remaining()];
        let value = r.skip_field_raw(key).ok()?;
        index += 1;
        let mut h = salt ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (u64::from(depth) << 56);
        h ^= h >> 31;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
        if h % 3 == 0 {
            continue;
        }
        out.extend_from_slice(head);
        if key & 7 == 2 && depth < 16 {
            let body = Reader::new(value).read_len_delimited().ok()?;
            if let Some(thinned) = thin_level(body, h, depth + 1) {
                let mut len = thinned.len() as u64;
                while len >= 0x80 {
                    out.push(len as u8 | 0x80);
                    len >>= 7;
                }
                out.push(len as u8);
                out.extend_from_slice(&thinned);
                continue;
            }
        }
        out.extend_from_slice(value);
    }
    Some(out)
}

/// Reflection over a generated struct `S` (`features=..+reflect`) on an accepted value:
/// `to_dynamic` gives the message the struct encodes (the same deterministic bytes, or in
/// `mode=prost` the same value; in
/// `mode=standalone`, the `DynamicMessage` of type `desc` that reads `data`, with the same
/// JSON and text), and `merge_dynamic` of it gives the struct back: conversion is the
/// identity, with no bytes in between.
pub fn check_reflect<S>(desc: Option<&vtproto::reflect::MessageDescriptor>, data: &[u8])
where
    S: Message + vtproto::reflect::ReflectMessageMut + PartialEq + Debug,
{
    let Ok(s) = partial::<S>(data) else {
        return;
    };
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let d = s.to_dynamic();
    let name = d.descriptor().full_name().to_string();
    let expected = s.encode_deterministic_to_vec();
    // mode=prost leaves default keys and values out of map entries, DynamicMessage writes
    // them: the same value, compared as such.
    let written = d.encode_to_vec();
    let same_value = || desc.is_none() && partial::<S>(&written).is_ok_and(|v| same(&v, &s));
    assert!(
        written == expected || same_value(),
        "{name}: to_dynamic writes other bytes for {}\n dyn {}\n gen {}",
        hex(data),
        hex(&d.encode_to_vec()),
        hex(&expected)
    );
    if let Some(desc) = desc {
        let read = merged(desc, data).expect("DynamicMessage reads what the struct reads");
        assert_eq!(
            d.to_json().ok(),
            read.to_json().ok(),
            "{name}: JSON of to_dynamic and of the message read, on {}",
            hex(data)
        );
        let options = vtproto::text::EncodeOptions {
            print_unknown_fields: true,
            ..Default::default()
        };
        assert_eq!(
            d.to_text_with(&options).ok(),
            read.to_text_with(&options).ok(),
            "{name}: text of to_dynamic and of the message read, on {}",
            hex(data)
        );
    }
    let mut back = S::default();
    back.merge_dynamic(&d).expect("the struct's own type");
    assert!(
        same(&back, &s),
        "{name}: merge_dynamic(to_dynamic(x)) is not x on {}:\n{back:?}\n{s:?}",
        hex(data)
    );
    // clear_field, field by field, against DynamicMessage's.
    use vtproto::reflect::FieldRef;
    for f in d.descriptor().fields() {
        let mut cleared = partial::<S>(data).expect("read once already");
        cleared.clear_field(f.number());
        let clear = match cleared.field(f.number()) {
            None | Some(FieldRef::Optional(None)) => true,
            Some(FieldRef::List(l)) => l.is_empty(),
            Some(FieldRef::Map(m)) => m.is_empty(),
            // Its default, which the comparison below checks.
            Some(FieldRef::Single(_)) => true,
            Some(FieldRef::Optional(Some(_))) => false,
            Some(_) => panic!("{name}: a field's storage of a kind this check does not know"),
        };
        let mut expected = d.clone();
        match cleared.field(f.number()) {
            // prost's required fields are always held: cleared, they hold their default.
            Some(FieldRef::Single(_)) if f.has_presence() => {
                expected.set_field(&f, vtproto::reflect::Value::default_for(&f))
            }
            _ => expected.clear_field(&f),
        }
        assert!(
            clear && cleared.to_dynamic().encode_to_vec() == expected.encode_to_vec(),
            "{name}: clear_field({}) on {} left {:?}",
            f.name(),
            hex(data),
            cleared.to_dynamic()
        );
    }
}

/// JSON and text served by the reflection tables (`vtproto::reflect::write_json` and friends,
/// what `tables=` paths generate) against the generated code of the same struct `S`, on an
/// accepted value: the same JSON (as JSON values: the generated code iterates hash maps) and
/// the same text, byte for byte, with each option; on the generated JSON and text, and on
/// each of their edits (a value swapped for another kind's, a key renamed or doubled, the
/// text cut short), the same value read or the same error.
pub fn check_tables<S>(data: &[u8])
where
    S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage + PartialEq + Debug,
    S: vtproto::reflect::ReflectMessageMut,
{
    use vtproto::{json, reflect, text};
    let Ok(s) = partial::<S>(data) else {
        return;
    };
    let name = <S as Message>::NAME;
    for options in dynamic_json_options() {
        let generated = json::to_string_with(&s, &options);
        if matches!(&generated, Err(e) if matches!(e.kind(), json::JsonErrorKind::UnknownAnyType { .. }))
        {
            // The tables find an Any's type in the package's descriptors too.
            continue;
        }
        let mut out = String::new();
        let tables =
            reflect::write_json(&s, &mut json::JsonWriter::new(&mut out, &options)).map(|()| out);
        match (&generated, &tables) {
            (Ok(a), Ok(b)) => {
                let a: serde_json::Value = serde_json::from_str(a).unwrap();
                let b: serde_json::Value = serde_json::from_str(b)
                    .unwrap_or_else(|e| panic!("{name}: the tables' JSON is not JSON ({e}): {b}"));
                assert!(a == b, "{name}: the tables write other JSON\n{a}\n{b}");
            }
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}: JSON errors"),
            (a, b) => panic!("{name}: generated JSON {a:?}, tables {b:?}"),
        }
    }
    for options in dynamic_text_options() {
        let generated = text::to_string_with(&s, &options);
        let mut out = String::new();
        let tables =
            reflect::write_text(&s, &mut text::TextWriter::new(&mut out, &options)).map(|()| {
                if options.pretty && !out.is_empty() {
                    out.push('\n');
                }
                out
            });
        match (&generated, &tables) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: the tables write other text"),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}: text errors"),
            (a, b) => panic!("{name}: generated text {a:?}, tables {b:?}"),
        }
    }
    if let Ok(written) = json::to_string(&s) {
        // With unknown names ignored too: an enum's name it does not declare is then skipped,
        // leaving the field, list or map as it was.
        let ignoring = json::DecodeOptions {
            ignore_unknown_fields: true,
            ..Default::default()
        };
        // Under memory budgets that run out along the way, with and without unknown names
        // ignored: the same error at the same place (the tables charge what generated code
        // charges, for the same storage). Not with an extension set (its key, `"[..]"`, after
        // `{` or `,`): its value is read into a `DynamicMessage` (the tables know its type by
        // descriptor only, not as a Rust type), and charged as one.
        let extended = written.contains("{\"[") || written.contains(",\"[");
        let budgets = (!extended).then_some(BUDGETS).into_iter().flatten();
        let budgets = budgets.flat_map(|budget| {
            [json::DecodeOptions::default(), ignoring].map(|mut options| {
                options.limits.memory_budget = budget;
                (options, false)
            })
        });
        let edits = json_edits(&written);
        let plain = [(json::DecodeOptions::default(), true), (ignoring, true)];
        for (options, edited) in plain.into_iter().chain(budgets) {
            let edited = edits.iter().filter(|_| edited).cloned();
            for input in std::iter::once(written.clone()).chain(edited) {
                let generated = json::from_str_with::<S>(&input, &options);
                let mut r = json::JsonReader::new(&input, &options);
                let mut t = S::default();
                let tables = reflect::merge_json(&mut t, &mut r)
                    .and_then(|()| r.finish())
                    .map(|()| t);
                match (generated, tables) {
                    (Ok(a), Ok(b)) => assert!(
                        same(&a, &b),
                        "{name}: the tables read {input} as\n{b:?}\nnot\n{a:?}"
                    ),
                    (Err(a), Err(b)) => {
                        assert_eq!(a.to_string(), b.to_string(), "{name}: on {input}")
                    }
                    (a, b) => panic!(
                        "{name}: on {input}: generated {:?}, tables {:?}",
                        a.err(),
                        b.err()
                    ),
                }
            }
        }
    }
    if let Ok(written) = text::to_string(&s) {
        // The edits with the default options, the text itself under memory budgets too: not
        // with an extension set, as for JSON, nor an `Any` expanded (`[type.googleapis.com/..]`,
        // read as a `DynamicMessage` by the tables), both named in brackets.
        let extended = written.starts_with('[') || written.contains(" [") || written.contains("{[");
        let budgets = (!extended).then_some(BUDGETS).into_iter().flatten();
        let budgets = budgets.map(|budget| {
            let mut options = text::DecodeOptions::default();
            options.limits.memory_budget = budget;
            (options, written.clone())
        });
        let edits = text_edits(&written).into_iter();
        let plain = std::iter::once(written.clone()).chain(edits);
        let inputs = plain.map(|input| (text::DecodeOptions::default(), input));
        for (options, input) in inputs.chain(budgets) {
            let generated = text::from_str_with::<S>(&input, &options);
            let mut r = text::TextReader::new(&input, &options);
            let mut t = S::default();
            let tables = reflect::merge_text(&mut t, &mut r)
                .and_then(|()| r.finish())
                .map(|()| t);
            match (generated, tables) {
                (Ok(a), Ok(b)) => assert!(
                    same(&a, &b),
                    "{name}: the tables read {input:?} as\n{b:?}\nnot\n{a:?}"
                ),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{name}: on {input:?}")
                }
                (a, b) => panic!(
                    "{name}: on {input:?}: generated {:?}, tables {:?}",
                    a.err(),
                    b.err()
                ),
            }
        }
    }
}

/// The memory budgets the tables' readers are checked under against generated code's: from
/// none to more than a random value takes.
const BUDGETS: [usize; 9] = [0, 16, 40, 100, 200, 400, 800, 1600, 3200];

/// Whether prost's struct for `desc` holds every value `mode=standalone` does, at any depth:
/// no required field (prost's is a plain value, always present) and no closed enum (prost's
/// field holds an undeclared number that the spec puts among the unknown fields).
pub fn prost_holds_alike(desc: &vtproto::reflect::MessageDescriptor) -> bool {
    use vtproto::reflect::Kind;
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![desc.clone()];
    while let Some(m) = todo.pop() {
        if !seen.insert(m.full_name().to_string()) {
            continue;
        }
        for f in m.fields() {
            if f.is_required() {
                return false;
            }
            match f.kind() {
                Kind::Enum(e) if e.is_closed() => return false,
                Kind::Message(inner) => todo.push(inner),
                _ => {}
            }
        }
    }
    true
}

/// A `mode=prost` struct whose JSON and text the reflection tables serve (`tables=.`, `P`)
/// against the generated code of the `mode=standalone` struct of the same type (`S`), for
/// types whose values prost's structs hold alike ([`prost_holds_alike`]): on the value both
/// read from the bytes `P` writes (so that what prost's struct cannot hold, unknown fields,
/// or its bytes leave out, a `-0.0` where prost writes no zero, is not compared), the same JSON with each option
/// set (as JSON values) and the same text; on `S`'s JSON and text and their edits, the same
/// value read (compared through `P`'s bytes) or the same error.
pub fn check_prost_tables<P, S>(desc: &vtproto::reflect::MessageDescriptor, data: &[u8])
where
    P: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage + Debug,
    S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage + PartialEq + Debug,
{
    use vtproto::{json, text};
    if !prost_holds_alike(desc) {
        return;
    }
    let Ok(p) = partial::<P>(data) else {
        return;
    };
    // What prost's bytes carry, read back by each (prost's struct can hold a `-0.0` its bytes
    // leave out: an implicit field's, a map entry's value).
    let bytes = p.encode_to_vec();
    let p: P = partial(&bytes).expect("prost's struct reads its own bytes");
    let s: S = partial(&bytes).expect("the standalone struct reads prost's bytes");
    let name = <S as Message>::NAME;
    let any_unknown =
        |e: &json::JsonError| matches!(e.kind(), json::JsonErrorKind::UnknownAnyType { .. });
    for options in dynamic_json_options() {
        match (
            json::to_string_with(&s, &options),
            json::to_string_with(&p, &options),
        ) {
            (Ok(a), Ok(b)) => {
                let a: serde_json::Value = serde_json::from_str(&a).unwrap();
                let b: serde_json::Value = serde_json::from_str(&b)
                    .unwrap_or_else(|e| panic!("{name}: the tables' JSON is not JSON ({e}): {b}"));
                assert!(a == b, "{name}: prost's struct writes other JSON\n{a}\n{b}");
            }
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}: JSON errors"),
            // The tables find an Any's type in the package's descriptors too.
            (Err(a), Ok(_)) if any_unknown(&a) => {}
            (a, b) => panic!("{name}: generated JSON {a:?}, prost's struct {b:?}"),
        }
    }
    for options in dynamic_text_options() {
        match (
            text::to_string_with(&s, &options),
            text::to_string_with(&p, &options),
        ) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: prost's struct writes other text"),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name}: text errors"),
            (a, b) => panic!("{name}: generated text {a:?}, prost's struct {b:?}"),
        }
    }
    // What each read, as `S` reads it from the bytes written: the same value or error.
    let alike = |input: &str, a: Result<S, String>, b: Result<P, String>| match (a, b) {
        (Ok(a), Ok(b)) => {
            let a: S = partial(&a.encode_to_vec()).expect("our bytes read back");
            let b: S = partial(&b.encode_to_vec()).expect("prost's bytes read back");
            assert!(
                same(&a, &b),
                "{name}: prost's struct reads {input:?} as\n{b:?}\nnot\n{a:?}"
            )
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{name}: on {input:?}"),
        (a, b) => panic!(
            "{name}: on {input:?}: generated {:?}, prost's struct {:?}",
            a.err(),
            b.err()
        ),
    };
    if let Ok(written) = json::to_string(&s) {
        for input in std::iter::once(written.clone()).chain(json_edits(&written)) {
            let a = json::from_str::<S>(&input).map_err(|e| e.to_string());
            alike(
                &input,
                a,
                json::from_str::<P>(&input).map_err(|e| e.to_string()),
            );
        }
    }
    if let Ok(written) = text::to_string(&s) {
        for input in std::iter::once(written.clone()).chain(text_edits(&written)) {
            let a = text::from_str::<S>(&input).map_err(|e| e.to_string());
            alike(
                &input,
                a,
                text::from_str::<P>(&input).map_err(|e| e.to_string()),
            );
        }
    }
}

/// Edits of a JSON object: at each of its first keys, the value swapped for each of a few
/// values of other kinds, the key renamed, the pair doubled; and the text cut short.
pub fn json_edits(text: &str) -> Vec<String> {
    const OTHERS: [&str; 7] = ["null", "true", "-1", "\"x\"", "{}", "[1.5]", "[\"x\"]"];
    let mut out = Vec::new();
    for (at, _) in text.match_indices("\":").take(4) {
        let value = at + 2;
        let end = value + value_len(&text[value..]);
        let key = text[..at].rfind('"').unwrap_or(0);
        for other in OTHERS {
            out.push(format!("{}{other}{}", &text[..value], &text[end..]));
        }
        out.push(format!("{}\"zz{}", &text[..key], &text[key + 1..]));
        out.push(format!(
            "{}{},{}",
            &text[..key],
            &text[key..end],
            &text[key..]
        ));
    }
    out.push(half(text));
    out
}

/// Edits of a text-format message: a value swapped, a name changed, a field twice, the text
/// cut short.
pub fn text_edits(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(": ").take(4) {
        let end = at + 2 + value_len(&text[at + 2..]);
        for other in ["\"x\"", "-1", "{ }", "[1.5]", "true"] {
            out.push(format!("{}: {other}{}", &text[..at], &text[end..]));
        }
        let name = text[..at].rfind([' ', '{', '<']).map_or(0, |i| i + 1);
        out.push(format!("{}zz{}", &text[..name], &text[name..]));
        // The field twice: an error once the first left it set (held, or present), and a
        // `-0` first, which a float holds (its bits are not zero's).
        let field = &text[name..end];
        out.push(format!("{} {field}{}", &text[..end], &text[end..]));
        let key = &text[name..at];
        out.push(format!(
            "{}{key}: -0 {field}{}",
            &text[..name],
            &text[end..]
        ));
    }
    out.push(half(text));
    out
}

/// The first half of `text` (cut at a character boundary).
fn half(text: &str) -> String {
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_string()
}

/// The length of the JSON or text value `s` starts with: up to a `,`, space, `}` or `]` at
/// its own depth, strings skipped.
fn value_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut depth, mut i) = (0i32, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' | b'<' => depth += 1,
            b'}' | b']' | b'>' if depth > 0 => depth -= 1,
            b',' | b'}' | b']' | b'>' | b' ' | b'\n' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len().min(i)
}

// The amplification corpus (see `amplifying_inputs`).

use vtproto::reflect::{FieldDescriptor, Kind, MessageDescriptor};

/// One input: its bytes in one format.
pub enum Form {
    /// Binary.
    Binary(Vec<u8>),
    /// ProtoJSON.
    Json(String),
    /// The text format.
    Text(String),
}

impl Form {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Form::Binary(b) => b.len(),
            Form::Json(s) | Form::Text(s) => s.len(),
        }
    }
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, number: u32, wire: u8) {
    varint(out, u64::from(number) << 3 | u64::from(wire));
}

/// A scalar's default in JSON and in the text format (an enum's first value).
fn default_forms(kind: &Kind) -> (String, String) {
    match kind {
        Kind::Bool => ("false".into(), "false".into()),
        Kind::String | Kind::Bytes => ("\"\"".into(), "\"\"".into()),
        Kind::Enum(e) => {
            let name = e.values().next().map(|v| v.name().to_string());
            let name = name.unwrap_or_else(|| "0".into());
            (format!("\"{name}\""), name)
        }
        Kind::Message(_) => ("{}".into(), "{}".into()),
        _ => ("0".into(), "0".into()),
    }
}

/// A distinct map key `i` of `kind`: its binary record (field 1), its JSON key, its text.
fn map_key(kind: &Kind, i: u64) -> Option<(Vec<u8>, String, String)> {
    let mut b = Vec::new();
    let (json, text) = match kind {
        Kind::String => {
            let s = format!("{i:x}");
            key(&mut b, 1, 2);
            varint(&mut b, s.len() as u64);
            b.extend_from_slice(s.as_bytes());
            (s.clone(), format!("\"{s}\""))
        }
        Kind::Fixed32 | Kind::Sfixed32 => {
            key(&mut b, 1, 5);
            b.extend_from_slice(&(i as u32).to_le_bytes());
            (i.to_string(), i.to_string())
        }
        Kind::Fixed64 | Kind::Sfixed64 => {
            key(&mut b, 1, 1);
            b.extend_from_slice(&i.to_le_bytes());
            (i.to_string(), i.to_string())
        }
        Kind::Sint32 | Kind::Sint64 => {
            key(&mut b, 1, 0);
            varint(&mut b, i << 1);
            (i.to_string(), i.to_string())
        }
        Kind::Bool => return None,
        _ => {
            key(&mut b, 1, 0);
            varint(&mut b, i);
            (i.to_string(), i.to_string())
        }
    };
    Some((b, json, text))
}

/// The field's name in the text format (a group's is its type's name).
fn text_name(f: &FieldDescriptor) -> String {
    match (f.is_group(), f.kind()) {
        (true, Kind::Message(m)) => m.name().to_string(),
        _ => f.name().to_string(),
    }
}

/// The amplifying inputs of `desc` of about `target` bytes each, by shape: for each repeated
/// field, empty messages (and messages holding one empty element of their own first repeated
/// message field), packed zeros, or empty strings; for each map, entries with distinct keys
/// and default values; unknown fields; in binary, ProtoJSON and the text format (a group's
/// nested shape and unknown fields in binary alone).
pub fn amplifying_inputs(desc: &MessageDescriptor, target: usize) -> Vec<(String, Form)> {
    let count = |unit: usize| (target / unit.max(1)).max(1);
    let mut out = Vec::new();
    for f in desc.fields() {
        let (n, jn, tn) = (f.number(), f.json_name().to_string(), text_name(&f));
        let kind = f.kind();
        if f.is_map() {
            let Kind::Message(entry) = &kind else {
                continue;
            };
            let (Some(k), Some(v)) = (entry.map_entry_key_field(), entry.map_entry_value_field())
            else {
                continue;
            };
            let (key_kind, value_kind) = (k.kind(), v.kind());
            let (jv, _) = default_forms(&value_kind);
            let (mut b, mut j, mut t) = (Vec::new(), String::new(), String::new());
            let mut i = 0;
            while b.len() < target {
                let Some((entry, jk, tk)) = map_key(&key_kind, i) else {
                    break;
                };
                key(&mut b, n, 2);
                varint(&mut b, entry.len() as u64);
                b.extend_from_slice(&entry);
                j.push_str(&format!("{}\"{jk}\":{jv}", if i == 0 { "" } else { "," }));
                t.push_str(&format!("{tn}{{key:{tk}}}"));
                i += 1;
            }
            if i > 0 {
                let shape = format!("{}: map entries", f.name());
                out.push((shape.clone(), Form::Binary(b)));
                out.push((shape.clone(), Form::Json(format!("{{\"{jn}\":{{{j}}}}}"))));
                out.push((shape, Form::Text(t)));
            }
            continue;
        }
        if !f.is_list() {
            continue;
        }
        let (jv, tv) = default_forms(&kind);
        match &kind {
            Kind::Message(m) => {
                let (b, unit) = if f.is_group() {
                    let mut r = Vec::new();
                    key(&mut r, n, 3);
                    key(&mut r, n, 4);
                    (r.clone(), r.len())
                } else {
                    let mut r = Vec::new();
                    key(&mut r, n, 2);
                    r.push(0);
                    (r.clone(), r.len())
                };
                let k = count(unit);
                let shape = format!("{}: empty messages", f.name());
                out.push((shape.clone(), Form::Binary(b.repeat(k))));
                let items = vec!["{}"; count(3)].join(",");
                out.push((shape.clone(), Form::Json(format!("{{\"{jn}\":[{items}]}}"))));
                out.push((shape, Form::Text(format!("{tn}: [{items}]"))));
                // Each element holding an empty element of its own first repeated message.
                let inner = m
                    .fields()
                    .find(|g| g.is_list() && !g.is_map() && !g.is_group())
                    .filter(|g| matches!(g.kind(), Kind::Message(_)));
                if let (Some(g), false) = (inner, f.is_group()) {
                    let mut r = Vec::new();
                    key(&mut r, n, 2);
                    let mut body = Vec::new();
                    key(&mut body, g.number(), 2);
                    body.push(0);
                    varint(&mut r, body.len() as u64);
                    r.extend_from_slice(&body);
                    let shape = format!("{}: nested empty messages", f.name());
                    out.push((shape.clone(), Form::Binary(r.repeat(count(r.len())))));
                    let el = format!("{{\"{}\":[{{}}]}}", g.json_name());
                    let items = vec![el.as_str(); count(el.len() + 1)].join(",");
                    out.push((shape, Form::Json(format!("{{\"{jn}\":[{items}]}}"))));
                }
            }
            Kind::String | Kind::Bytes => {
                let mut r = Vec::new();
                key(&mut r, n, 2);
                r.push(0);
                let shape = format!("{}: empty strings", f.name());
                out.push((shape.clone(), Form::Binary(r.repeat(count(r.len())))));
                let items = vec![jv.as_str(); count(3)].join(",");
                out.push((shape.clone(), Form::Json(format!("{{\"{jn}\":[{items}]}}"))));
                out.push((shape, Form::Text(format!("{tn}: [{items}]"))));
            }
            _ => {
                let width = match kind {
                    Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => 4,
                    Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => 8,
                    _ => 1,
                };
                // A closed enum's first value may not be 0: its number, as varints.
                let value = match &kind {
                    Kind::Enum(e) => e.values().next().map_or(0, |v| v.number() as i64 as u64),
                    _ => 0,
                };
                let mut one = Vec::new();
                if width == 1 {
                    varint(&mut one, value);
                } else {
                    one.resize(width, 0);
                }
                let body = one.repeat(count(one.len()));
                let mut b = Vec::new();
                key(&mut b, n, 2);
                varint(&mut b, body.len() as u64);
                b.extend_from_slice(&body);
                let shape = format!("{}: packed zeros", f.name());
                out.push((shape.clone(), Form::Binary(b)));
                let items = vec![jv.as_str(); count(jv.len() + 1)].join(",");
                out.push((shape.clone(), Form::Json(format!("{{\"{jn}\":[{items}]}}"))));
                let items = vec![tv.as_str(); count(tv.len() + 1)].join(",");
                out.push((shape, Form::Text(format!("{tn}: [{items}]"))));
            }
        }
    }
    // Unknown fields: a number the message does not declare, a varint 0 each.
    let unused = desc.fields().map(|f| f.number()).max().unwrap_or(0) + 1;
    if !desc
        .extension_ranges()
        .any(|r| r.contains(&(unused as i32)))
    {
        let mut r = Vec::new();
        key(&mut r, unused, 0);
        r.push(0);
        out.push((
            "unknown fields".into(),
            Form::Binary(r.repeat(count(r.len()))),
        ));
    }
    out
}

/// The memory budget on every decode path of `S` (owned, `decode_into`, view, ProtoJSON, the
/// text format) and of a `DynamicMessage` of `desc` (in the three forms), over `desc`'s
/// amplification corpus ([`amplifying_inputs`]) under a small budget: each input decodes or
/// fails, never panics, and holds at most four times its budget (input included) plus 64 KiB
/// at its peak (measured where `alloc_stats` is the global allocator).
pub fn check_amplification<S, SV>(desc: &MessageDescriptor)
where
    S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage,
    SV: ViewFamily,
    for<'a> SV::View<'a>: MessageView<'a, Owned = S>,
{
    use vtproto::reflect::DynamicMessage;
    use vtproto::{json, text, DecodeLimits};
    const TARGET: usize = 8 * 1024;
    const BUDGET: usize = 2048;
    let limits = DecodeLimits {
        memory_budget: BUDGET,
        ..DecodeLimits::default()
    };
    let jopts = json::DecodeOptions {
        limits,
        ..Default::default()
    };
    let topts = text::DecodeOptions {
        limits,
        ..Default::default()
    };
    for (shape, form) in amplifying_inputs(desc, TARGET) {
        let bound = 4 * (form.len() + BUDGET) + 64 * 1024;
        let held = |path: &str, decode: &dyn Fn()| {
            let ((), stats) = crate::alloc_stats::measure(decode);
            assert!(
                stats.peak <= bound,
                "{} ({shape}), {path}: {} bytes held for {} input bytes under a budget of {BUDGET}",
                S::NAME,
                stats.peak,
                form.len()
            );
        };
        match &form {
            Form::Binary(b) => {
                held("owned", &|| drop(S::decode_with_limits(b, &limits)));
                held("decode_into", &|| {
                    let mut m = S::default();
                    let _ = m.decode_into_with_limits(b, &limits);
                });
                held("view", &|| {
                    drop(<SV::View<'_> as MessageView<'_>>::decode_view_with_limits(
                        b, &limits,
                    ))
                });
                held("DynamicMessage", &|| {
                    let mut m = DynamicMessage::new(desc.clone());
                    let _ = m.merge(&mut Reader::new(b).with_limits(&limits));
                });
            }
            Form::Json(t) => {
                held("ProtoJSON", &|| drop(json::from_str_with::<S>(t, &jopts)));
                held("DynamicMessage, JSON", &|| {
                    drop(DynamicMessage::from_json_with(desc.clone(), t, &jopts))
                });
            }
            Form::Text(t) => {
                held("text format", &|| drop(text::from_str_with::<S>(t, &topts)));
                held("DynamicMessage, text", &|| {
                    drop(DynamicMessage::from_text_with(desc.clone(), t, &topts))
                });
            }
        }
    }
}

/// [`check_amplification`]'s binary corpus through our impls on prost's struct `P`.
pub fn check_amplification_prost<P: Message>(desc: &MessageDescriptor) {
    let limits = vtproto::DecodeLimits {
        memory_budget: 2048,
        ..vtproto::DecodeLimits::default()
    };
    for (shape, form) in amplifying_inputs(desc, 8 * 1024) {
        let Form::Binary(b) = form else { continue };
        let bound = 4 * (b.len() + 2048) + 64 * 1024;
        let ((), stats) = crate::alloc_stats::measure(|| drop(P::decode_with_limits(&b, &limits)));
        assert!(
            stats.peak <= bound,
            "{} ({shape}), mode=prost: {} bytes held for {} input bytes",
            P::NAME,
            stats.peak,
            b.len()
        );
    }
}
