//! Python protobuf's `text_format` (upb) as the oracle of our text format (`features=..+text`,
//! `mode=standalone`), on random messages of the project's proto2, proto3 and editions protos
//! (maps of every key type, groups, closed and open enums, extensions, oneofs, `Any`): for
//! each accepted binary input, on one line and pretty,
//!
//! - Python reads our text to the value we read from it, and we read Python's text to that
//!   value too (unknown fields are not printed, so the value compared is the one read back);
//! - then our text with one edit (a value replaced by another kind's, a field doubled, a name
//!   changed, a character dropped): what Python refuses we refuse, and what both read gives
//!   the same value. Where Python reads more than the format (listed in `python_only`), the
//!   difference is counted, not failed;
//! - `vtproto::reflect::DynamicMessage`, built from the descriptor sets alone, writes the
//!   generated code's text byte for byte, reads Python's text to the value, and reads each
//!   edited text as the generated code does (same value, or the same error).
//!
//! Needs `VT_PYTHON` (see `python_oracle.rs`); without it the test passes, unless
//! `VT_REQUIRE_PYTHON=1`.

mod support;

use std::fmt::Debug;

use support::oracle::{python, Oracle};
use support::{Rng, Schema};
use vtproto::json::TypeRegistry;
use vtproto::text::{self, DecodeOptions, EncodeOptions, TextErrorKind, TextMessage};
use vtproto::Message;

/// One message type's check, monomorphized.
type Check = fn(&mut Context<'_>, &str, &[u8]) -> Outcome;

#[derive(Default)]
struct Outcome {
    compared: usize,
    edits: usize,
    python_only: usize,
}

struct Context<'a> {
    oracle: &'a mut Oracle,
    registry: &'a TypeRegistry,
    rng: Rng,
    /// The descriptors of the types checked: `DynamicMessage` answers beside the generated
    /// code, against Python too.
    pools: &'a [vtproto::reflect::DescriptorPool],
}

fn descriptor(cx: &Context<'_>, name: &str) -> vtproto::reflect::MessageDescriptor {
    cx.pools
        .iter()
        .find_map(|p| p.get_message_by_name(name))
        .unwrap_or_else(|| panic!("{name} is in no pool"))
}

fn partial<S: Message>(bytes: &[u8]) -> Option<S> {
    let mut s = S::default();
    s.merge(&mut vtproto::Reader::new(bytes)).ok()?;
    Some(s)
}

fn same<T: PartialEq + Debug>(a: &T, b: &T) -> bool {
    a == b || {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        a.contains("NaN") && a.len() == b.len()
    }
}

fn check<S: Message + TextMessage + PartialEq + Debug>(
    cx: &mut Context<'_>,
    name: &str,
    bytes: &[u8],
) -> Outcome {
    let mut outcome = Outcome::default();
    let Some(s) = partial::<S>(bytes) else {
        return outcome;
    };
    let decode = DecodeOptions {
        registry: Some(cx.registry),
        ..DecodeOptions::default()
    };
    let read = |t: &str| text::from_str_with::<S>(t, &decode);
    for one_line in [true, false] {
        let options = EncodeOptions {
            pretty: !one_line,
            registry: Some(cx.registry),
            ..EncodeOptions::default()
        };
        let context = || {
            format!(
                "{name} one_line {one_line} on {}",
                support::oracle::hex(bytes)
            )
        };
        let ours = text::to_string_with(&s, &options)
            .unwrap_or_else(|e| panic!("{}: we write no text ({e})", context()));
        let theirs = cx
            .oracle
            .write_text(name, bytes, u8::from(one_line))
            .unwrap_or_else(|e| panic!("{}: Python writes no text ({e})", context()));
        let value = read(&ours)
            .unwrap_or_else(|e| panic!("{}: we do not read our text ({e}): {ours}", context()));
        let from_theirs = read(&theirs)
            .unwrap_or_else(|e| panic!("{}: we refuse Python's text ({e}): {theirs}", context()));
        assert!(
            same(&from_theirs, &value),
            "{}: Python's text reads as another value:\n ours   {ours}\n theirs {theirs}",
            context()
        );
        let via_python = cx
            .oracle
            .read_text(name, &ours)
            .unwrap_or_else(|e| panic!("{}: Python refuses our text ({e}): {ours}", context()));
        let via_python = partial::<S>(&via_python).expect("Python's encoding decodes");
        assert!(
            same(&via_python, &value),
            "{}: Python reads another value from our text {ours}",
            context()
        );
        // DynamicMessage, from the descriptors alone: its text is the generated code's, byte
        // for byte, and it reads Python's text to the value.
        let desc = descriptor(cx, name);
        let dynamic = vt_tests::properties::merged(&desc, bytes).unwrap();
        assert_eq!(
            dynamic.to_text_with(&options).ok().as_deref(),
            Some(ours.as_str()),
            "{}: DynamicMessage's text",
            context()
        );
        let dynamic_theirs = vtproto::reflect::DynamicMessage::from_text(desc.clone(), &theirs)
            .unwrap_or_else(|e| {
                panic!("{}: DynamicMessage refuses Python's text ({e})", context())
            });
        assert!(
            same(
                &partial::<S>(&dynamic_theirs.encode_to_vec()).unwrap(),
                &value
            ),
            "{}: DynamicMessage reads another value from Python's text {theirs}",
            context()
        );
        outcome.compared += 1;
        let edited = edit(&ours, &mut cx.rng);
        // DynamicMessage accepts and refuses what the generated code does, reading the same
        // value (so Python's verdicts below hold for it too).
        match (
            vtproto::reflect::DynamicMessage::from_text(desc, &edited),
            read(&edited),
        ) {
            (Ok(d), Ok(a)) => assert!(
                same(&partial::<S>(&d.encode_to_vec()).unwrap(), &a),
                "{}: DynamicMessage reads another value from {edited}",
                context()
            ),
            (Err(d), Err(a)) => assert_eq!(d.kind(), a.kind(), "{}: {edited}", context()),
            (d, a) => panic!(
                "{}: DynamicMessage {:?}, generated code {:?} on {edited}",
                context(),
                d.err(),
                a.err()
            ),
        }
        match (read(&edited), cx.oracle.read_text(name, &edited)) {
            (Ok(a), Ok(b)) => {
                let b = partial::<S>(&b).expect("Python's encoding decodes");
                assert!(
                    same(&a, &b),
                    "{}: an edited text reads differently: {edited}",
                    context()
                );
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(why)) => {
                panic!(
                    "{}: Python refuses ({why}) what we accept: {edited}",
                    context()
                )
            }
            (Err(e), Ok(_)) => {
                // Python reads more than the format (C++ refuses these): an escape the format
                // does not have (`\é` stays a backslash and the character), surrogates.
                let python_only = match e.kind() {
                    TextErrorKind::InvalidEscape => true,
                    TextErrorKind::Type { .. } | TextErrorKind::Syntax { .. } => {
                        python_leniency(&edited)
                    }
                    _ => false,
                };
                assert!(
                    python_only,
                    "{}: we refuse ({e}) what Python accepts: {edited}",
                    context()
                );
                outcome.python_only += 1;
            }
        }
        outcome.edits += 1;
    }
    outcome
}

/// Whether an edit put one of the values Python reads beyond the format in: a number with
/// a fraction or exponent in an integer field, a number for a string.
fn python_leniency(edited: &str) -> bool {
    ["1.5", "1e3", "-0.0", "0x7f"]
        .iter()
        .any(|v| edited.contains(&format!(": {v}")))
}

/// `text` with one edit at a random place: a value swapped for another kind's, a field
/// doubled, a name's first letter changed, a character dropped.
fn edit(text: &str, rng: &mut Rng) -> String {
    let colons: Vec<usize> = text.match_indices(": ").map(|(i, _)| i + 2).collect();
    if colons.is_empty() {
        return format!("{text} x");
    }
    let at = colons[rng.below(colons.len() as u64) as usize];
    let rest = &text[at..];
    // The value's extent: a quoted string (with escapes), or up to the next space or newline.
    let end = if rest.starts_with('"') {
        let mut escaped = false;
        rest.char_indices()
            .skip(1)
            .find(|&(_, c)| {
                let close = !escaped && c == '"';
                escaped = !escaped && c == '\\';
                close
            })
            .map_or(rest.len(), |(i, _)| i + 1)
    } else {
        rest.find([' ', '\n']).unwrap_or(rest.len())
    };
    let name_start = text[..at - 2].rfind([' ', '\n']).map_or(0, |i| i + 1);
    let field = &text[name_start..at + end];
    match rng.below(8) {
        0..=3 => {
            const OTHERS: [&str; 14] = [
                "true",
                "0",
                "-1",
                "1.5",
                "\"\"",
                "\"x\"",
                "{}",
                "[]",
                "inf",
                "1e3",
                "0x7f",
                "18446744073709551616",
                "-0.0",
                "FOO",
            ];
            let other = OTHERS[rng.below(OTHERS.len() as u64) as usize];
            format!("{}{other}{}", &text[..at], &rest[end..])
        }
        4 => format!("{}{field} {}", &text[..name_start], &text[name_start..]),
        5 => format!("{}x{}", &text[..name_start], &text[name_start + 1..]),
        _ => {
            let i = rng.below(text.len() as u64) as usize;
            let mut s = text.to_string();
            if s.is_char_boundary(i) && s.is_char_boundary(i + 1) {
                s.remove(i);
            }
            s
        }
    }
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$(($name, super::check::<Standalone::$($seg)::+> as super::Check)),*]
        }

        pub fn register(registry: &mut vtproto::json::TypeRegistry) {
            $(registry.add_text::<Standalone::$($seg)::+>();)*
        }
    };
}

mod own {
    #[allow(unused_imports)]
    use vt_tests::own_standalone as Standalone;
    include!(concat!(env!("OUT_DIR"), "/own-standalone/_registry.rs"));
}

mod editions {
    #[allow(unused_imports)]
    use vt_tests::editions as Standalone;
    include!(concat!(
        env!("OUT_DIR"),
        "/editions-standalone/_registry.rs"
    ));
}

#[test]
fn our_text_and_pythons_read_alike() {
    let Some(python) = python() else { return };
    let mut oracle = Oracle::for_project(&python, "text");
    let mut registry = TypeRegistry::new();
    own::register(&mut registry);
    editions::register(&mut registry);
    let pools = [
        vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap(),
        vtproto::reflect::DescriptorPool::decode(vt_tests::EDITIONS_DESCRIPTORS).unwrap(),
    ];
    let mut cx = Context {
        pools: &pools,
        oracle: &mut oracle,
        registry: &registry,
        rng: Rng::new(30),
    };
    let mut total = Outcome::default();
    for (schema, types) in [
        (Schema::new(vt_tests::OWN_DESCRIPTORS), own::all()),
        (Schema::new(vt_tests::EDITIONS_DESCRIPTORS), editions::all()),
    ] {
        for seed in 0..40u64 {
            for (name, check) in &types {
                let mut rng = Rng::new(seed * 7919 + name.len() as u64);
                let bytes = schema.random_message(name, &mut rng);
                let o = check(&mut cx, name, &bytes);
                total.compared += o.compared;
                total.edits += o.edits;
                total.python_only += o.python_only;
            }
        }
    }
    eprintln!(
        "{} values compared, {} edited inputs ({} read by Python alone)",
        total.compared, total.edits, total.python_only
    );
    assert!(
        total.compared > 1000,
        "too few values compared: {}",
        total.compared
    );
    assert!(total.edits > 1000);
}

/// The spec's edge cases, each with its verdict, ours and Python's (`text_format.Parse`), the
/// list the README's "Text format" section stands on. Where both read a case, they read the
/// same value. Ours follows the spec and the C++ parser where Python differs: Python reads an
/// escape the format does not have (`\q` as a backslash and `q`; and `\?`, which the spec
/// reads as `?`, as a backslash and `?`), and refuses a space between `-` and the number, which
/// C++ reads (`-` is a token of its own).
#[test]
fn the_specs_edge_cases() {
    let Some(python) = python() else { return };
    let mut oracle = Oracle::for_project(&python, "text-edges");
    use vt_tests::own_standalone::vt::test::proto3 as p3;
    // (message, input, we read it, Python reads it)
    const S: &str = "vt.test.proto3.Scalars";
    const O: &str = "vt.test.proto3.Optionals";
    const R: &str = "vt.test.proto3.Repeateds";
    let cases: &[(&str, &str, bool, bool)] = &[
        // Integers: decimal, hex, octal, signs, ranges.
        (S, "f_int32: 2147483647", true, true),
        (S, "f_int32: -0x80000000", true, true),
        (S, "f_int32: 0x80000000", false, false),
        (S, "f_int32: 017", true, true),
        (S, "f_int32: 08", false, false),
        (S, "f_int64: -9223372036854775808", true, true),
        (S, "f_int64: 9223372036854775808", false, false),
        (S, "f_uint64: 0xFFFFFFFFFFFFFFFF", true, true),
        (S, "f_uint64: 18446744073709551616", false, false),
        (S, "f_uint32: -1", false, false),
        (S, "f_int32: 1.0", false, false),
        (S, "f_int32: 1f", false, false),
        (S, "f_int32: 1e3", false, false),
        (S, "f_int64: - 5", true, false),
        // Floats: forms, suffixes, infinities, NaN, overflow.
        (S, "f_float: 1.5f", true, true),
        (S, "f_float: 1F", true, true),
        (S, "f_double: .5", true, true),
        (S, "f_double: 1.", true, true),
        (S, "f_double: 1e9999", true, true),
        (S, "f_double: -1e-9999", true, true),
        (S, "f_float: 1e50", true, true),
        (S, "f_float: -inf", true, true),
        (S, "f_float: Infinity", true, true),
        (S, "f_double: nan", true, true),
        (S, "f_double: NaN", true, true),
        (S, "f_float: 0x1", false, false),
        (S, "f_double: infinit", false, false),
        // Bools.
        (S, "f_bool: t", true, true),
        (S, "f_bool: True", true, true),
        (S, "f_bool: 1", true, true),
        (S, "f_bool: TRUE", false, false),
        (S, "f_bool: 2", false, false),
        // Strings and bytes: quotes, joining, escapes, UTF-8.
        (S, "f_string: 'a' \"b\"", true, true),
        (S, r#"f_string: "\x41\101\u00e9\U0001F600\a\v""#, true, true),
        (S, "f_string: \"a\nb\"", false, false),
        (S, r#"f_string: "\300""#, false, false),
        (S, r#"f_bytes: "\300\xff""#, true, true),
        (S, r#"f_string: "\q""#, false, true),
        (S, r#"f_string: "\ud83d\ude00""#, false, false),
        (S, r#"f_string: "\ud800""#, false, false),
        (S, r#"f_bytes: "\x""#, false, false),
        (S, "f_string: \"abc", false, false),
        // Enums (open): names, numbers.
        (S, "f_enum: 99", true, true),
        (S, "f_enum: -1", true, true),
        (S, "f_enum: NO_SUCH_VALUE", false, false),
        // Names, separators, comments, presence.
        (S, "f_int32 1", false, false),
        (S, "f_int32: 1, f_int64: 2; f_bool: true", true, true),
        (S, "f_int32: 1;;", false, false),
        (S, "# a comment\nf_int32: 1 # another", true, true),
        (S, "no_such_field: 1", false, false),
        (S, "f_int32: 1 f_int32: 2", false, false),
        (S, "f_int32: 0 f_int32: 2", true, true),
        (O, "o_int32: 0 o_int32: 0", false, false),
        // Lists.
        (R, "r_int32: [1, 2] r_int32: 3", true, true),
        (R, "r_int32: []", true, true),
        (R, "r_int32: [1,]", false, false),
        (R, "r_int32: [1 2]", false, false),
        (R, "r_string: [\"a\" \"b\", 'c']", true, true),
    ];
    fn ours(name: &str, input: &str) -> Result<Vec<u8>, vtproto::text::TextError> {
        Ok(match name {
            "vt.test.proto3.Scalars" => text::from_str::<p3::Scalars>(input)?.encode_to_vec(),
            "vt.test.proto3.Optionals" => text::from_str::<p3::Optionals>(input)?.encode_to_vec(),
            _ => text::from_str::<p3::Repeateds>(input)?.encode_to_vec(),
        })
    }
    let mut wrong = Vec::new();
    for &(name, input, we_read, python_reads) in cases {
        let mine = ours(name, input);
        let theirs = oracle.read_text(name, input);
        if mine.is_ok() != we_read || theirs.is_ok() != python_reads {
            wrong.push(format!("{input}: ours {mine:?}, Python's {theirs:?}"));
            continue;
        }
        if let (Ok(a), Ok(b)) = (mine, theirs) {
            // Compared as values (Python's encoding is deterministic, ours in field order).
            let (a, b) = match name {
                "vt.test.proto3.Scalars" => (
                    format!("{:?}", p3::Scalars::decode(&a[..]).unwrap()),
                    format!("{:?}", p3::Scalars::decode(&b[..]).unwrap()),
                ),
                "vt.test.proto3.Optionals" => (
                    format!("{:?}", p3::Optionals::decode(&a[..]).unwrap()),
                    format!("{:?}", p3::Optionals::decode(&b[..]).unwrap()),
                ),
                _ => (
                    format!("{:?}", p3::Repeateds::decode(&a[..]).unwrap()),
                    format!("{:?}", p3::Repeateds::decode(&b[..]).unwrap()),
                ),
            };
            assert_eq!(a, b, "{input}: read as another value");
        }
    }
    assert!(wrong.is_empty(), "verdicts differ:\n{}", wrong.join("\n"));
    eprintln!("{} edge cases, each verdict as listed", cases.len());
}
