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

use vt_tests::properties::{amplifying_inputs, Form};
use vtproto::reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
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
        for (shape, form) in amplifying_inputs(&desc, TARGET) {
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
