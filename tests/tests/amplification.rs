//! The amplification corpus: for every message type of the project's protos (both syntaxes,
//! editions), inputs built from its descriptor that turn the fewest input bytes into the most
//! memory: repeated empty messages, packed 1-byte (zero) varints, repeated empty strings, map
//! entries with distinct keys and default values, unknown fields, and repeated messages that
//! each hold a repeated empty message; in binary, ProtoJSON and the text format. Every decode
//! path reads each input under the default limits with a small memory budget, while a counting
//! allocator measures the peak bytes held: each input either decodes within the budget or fails
//! with the budget's error, and the peak stays under `PEAK_FACTOR` times the budget (the input's
//! size included) plus `PEAK_SLACK`. With `--nocapture` the test prints the worst amplification
//! (peak bytes / input bytes) per path, with and without the budget: the table in
//! `benches/RESULTS.md`.

use std::collections::BTreeMap;

use vtproto::reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor};
use vtproto::{DecodeErrorKind, DecodeLimits, Message, MessageView, Reader};

#[global_allocator]
static A: alloc_stats::Tracking = alloc_stats::Tracking;

/// The input size each shape aims at.
const TARGET: usize = 48 * 1024;
/// The memory budget beyond the input's size.
const BUDGET: usize = 16 * 1024;
/// What a decode may hold at its peak, in multiples of its budget (input included): what is
/// charged is what the values hold, a `Vec` or a map holds up to twice that while it grows,
/// and a `Vec`'s old buffer is held while its new one is filled.
const PEAK_FACTOR: usize = 4;
/// And beyond that: the decode's own frames and error, a `DynamicMessage`'s descriptors.
const PEAK_SLACK: usize = 64 * 1024;

/// How a path ended: decoded, over the budget, or another error (an enum value the type does
/// not take, a required field missing: the input is still read, and still counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Ok,
    OverBudget,
    Other,
}

fn binary(r: Result<(), vtproto::DecodeError>) -> Verdict {
    match r {
        Ok(()) => Verdict::Ok,
        Err(e) if matches!(e.kind(), DecodeErrorKind::MemoryBudget { .. }) => Verdict::OverBudget,
        Err(_) => Verdict::Other,
    }
}

fn json<T>(r: Result<T, vtproto::json::JsonError>) -> Verdict {
    match r {
        Ok(_) => Verdict::Ok,
        Err(e) if matches!(e.kind(), vtproto::json::JsonErrorKind::MemoryBudget { .. }) => {
            Verdict::OverBudget
        }
        Err(_) => Verdict::Other,
    }
}

fn text<T>(r: Result<T, vtproto::text::TextError>) -> Verdict {
    match r {
        Ok(_) => Verdict::Ok,
        Err(e) if matches!(e.kind(), vtproto::text::TextErrorKind::MemoryBudget { .. }) => {
            Verdict::OverBudget
        }
        Err(_) => Verdict::Other,
    }
}

/// One input: its bytes in one format.
enum Form {
    Binary(Vec<u8>),
    Json(String),
    Text(String),
}

impl Form {
    fn len(&self) -> usize {
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

/// How many copies of a `unit`-byte record make the target size.
fn count(unit: usize) -> usize {
    (TARGET / unit.max(1)).max(1)
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

/// The amplifying inputs of `desc`, by shape.
fn corpus(desc: &MessageDescriptor) -> Vec<(String, Form)> {
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
            while b.len() < TARGET {
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

/// A decode path of one generated type: `Some` verdict where the path reads the form.
type Path = fn(&Form, &DecodeLimits, &MessageDescriptor) -> Option<Verdict>;

fn owned<M: Message>(form: &Form, limits: &DecodeLimits, _: &MessageDescriptor) -> Option<Verdict> {
    let Form::Binary(b) = form else { return None };
    Some(binary(M::decode_with_limits(b, limits).map(drop)))
}

fn decode_into<M: Message>(
    form: &Form,
    limits: &DecodeLimits,
    _: &MessageDescriptor,
) -> Option<Verdict> {
    let Form::Binary(b) = form else { return None };
    let mut m = M::default();
    Some(binary(m.decode_into_with_limits(b, limits)))
}

fn view<'a, V: MessageView<'a>>(
    form: &'a Form,
    limits: &DecodeLimits,
    _: &MessageDescriptor,
) -> Option<Verdict> {
    let Form::Binary(b) = form else { return None };
    Some(binary(V::decode_view_with_limits(b, limits).map(drop)))
}

fn json_path<M: vtproto::json::JsonMessage>(
    form: &Form,
    limits: &DecodeLimits,
    _: &MessageDescriptor,
) -> Option<Verdict> {
    let Form::Json(s) = form else { return None };
    let options = vtproto::json::DecodeOptions {
        limits: *limits,
        ..Default::default()
    };
    Some(json(vtproto::json::from_str_with::<M>(s, &options)))
}

fn text_path<M: vtproto::text::TextMessage>(
    form: &Form,
    limits: &DecodeLimits,
    _: &MessageDescriptor,
) -> Option<Verdict> {
    let Form::Text(s) = form else { return None };
    let options = vtproto::text::DecodeOptions {
        limits: *limits,
        ..Default::default()
    };
    Some(text(vtproto::text::from_str_with::<M>(s, &options)))
}

fn dynamic(form: &Form, limits: &DecodeLimits, desc: &MessageDescriptor) -> Option<Verdict> {
    Some(match form {
        Form::Binary(b) => {
            let mut m = DynamicMessage::new(desc.clone());
            binary(m.merge(&mut Reader::new(b).with_limits(limits)))
        }
        Form::Json(s) => {
            let options = vtproto::json::DecodeOptions {
                limits: *limits,
                ..Default::default()
            };
            json(DynamicMessage::from_json_with(desc.clone(), s, &options))
        }
        Form::Text(s) => {
            let options = vtproto::text::DecodeOptions {
                limits: *limits,
                ..Default::default()
            };
            text(DynamicMessage::from_text_with(desc.clone(), s, &options))
        }
    })
}

fn prost_mode<M: Message>(
    form: &Form,
    limits: &DecodeLimits,
    d: &MessageDescriptor,
) -> Option<Verdict> {
    owned::<M>(form, limits, d)
}

/// Each type's paths, by name.
type Paths = Vec<(&'static str, Vec<(&'static str, Path)>)>;

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> super::Paths {
            vec![$(($name, vec![
                ("binary, owned", super::owned::<Standalone::$($seg)::+> as super::Path),
                ("binary, decode_into", super::decode_into::<Standalone::$($seg)::+>),
                ("binary, view", |f, l, d| super::view::<Standalone::$($view)::+>(f, l, d)),
                ("ProtoJSON", super::json_path::<Standalone::$($seg)::+>),
                ("text format", super::text_path::<Standalone::$($seg)::+>),
            ])),*]
        }
    };
}

macro_rules! registry {
    ($($name:literal => $ty:path, $view:path),* $(,)?) => {
        pub fn all() -> super::Paths {
            vec![$(($name, vec![("binary, mode=prost", super::prost_mode::<$ty> as super::Path)])),*]
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

mod own_prost {
    #[allow(unused_imports)]
    use vt_tests::own::*;
    include!(concat!(env!("OUT_DIR"), "/own/_registry.rs"));
}

/// The worst amplification seen per path, with and without the budget.
#[derive(Default)]
struct Worst {
    limited: f64,
    unlimited: f64,
    shape: String,
    unlimited_shape: String,
    inputs: usize,
    over_budget: usize,
}

fn run(pool: &DescriptorPool, suites: Vec<Paths>, table: &mut BTreeMap<&'static str, Worst>) {
    let limited = DecodeLimits {
        memory_budget: BUDGET,
        ..DecodeLimits::default()
    };
    let unlimited = DecodeLimits {
        memory_budget: usize::MAX,
        ..DecodeLimits::default()
    };
    for (name, mut paths) in suites.into_iter().flatten() {
        let Some(desc) = pool.get_message_by_name(name) else {
            continue;
        };
        if desc.is_map_entry() {
            continue;
        }
        paths.push(("DynamicMessage", dynamic as Path));
        for (shape, form) in corpus(&desc) {
            for (path, decode) in &paths {
                let label = match (&form, *path) {
                    (Form::Json(_), "DynamicMessage") => "DynamicMessage, JSON",
                    (Form::Text(_), "DynamicMessage") => "DynamicMessage, text",
                    (_, "DynamicMessage") => "DynamicMessage, binary",
                    (_, p) => p,
                };
                let (verdict, stats) = alloc_stats::measure(|| decode(&form, &limited, &desc));
                let Some(verdict) = verdict else { continue };
                let bound = PEAK_FACTOR * (form.len() + BUDGET) + PEAK_SLACK;
                assert!(
                    stats.peak <= bound,
                    "{name} ({shape}), {label}: {} bytes held at the peak, over {bound} \
                     ({} input bytes, {verdict:?})",
                    stats.peak,
                    form.len()
                );
                let (_, free) = alloc_stats::measure(|| decode(&form, &unlimited, &desc));
                let w = table.entry(label).or_default();
                w.inputs += 1;
                w.over_budget += usize::from(verdict == Verdict::OverBudget);
                let ratio = stats.peak as f64 / form.len() as f64;
                if ratio > w.limited {
                    w.limited = ratio;
                    w.shape = format!("{name} ({shape})");
                }
                let ratio = free.peak as f64 / form.len() as f64;
                if ratio > w.unlimited {
                    w.unlimited = ratio;
                    w.unlimited_shape = format!("{name} ({shape})");
                }
            }
        }
    }
}

#[test]
fn every_path_holds_amplifying_inputs_to_the_budget() {
    let mut table = BTreeMap::new();
    let own = DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    run(&own, vec![own::all(), own_prost::all()], &mut table);
    let editions = DescriptorPool::decode(vt_tests::EDITIONS_DESCRIPTORS).unwrap();
    run(&editions, vec![editions::all()], &mut table);
    println!(
        "| path | inputs | over budget | worst peak / input, budget {} KiB | worst without a budget |",
        BUDGET / 1024
    );
    println!("|---|---:|---:|---:|---:|");
    for (path, w) in &table {
        println!(
            "| {path} | {} | {} | {:.1} ({}) | {:.1} ({}) |",
            w.inputs, w.over_budget, w.limited, w.shape, w.unlimited, w.unlimited_shape
        );
    }
    // Every path was exercised, and the corpus does amplify.
    for path in [
        "binary, owned",
        "binary, decode_into",
        "binary, view",
        "binary, mode=prost",
        "ProtoJSON",
        "text format",
        "DynamicMessage, binary",
        "DynamicMessage, JSON",
        "DynamicMessage, text",
    ] {
        let w = &table[path];
        assert!(w.over_budget > 0, "{path}: no input went over the budget");
        assert!(
            w.unlimited > w.limited,
            "{path}: the budget changed nothing"
        );
    }
}
