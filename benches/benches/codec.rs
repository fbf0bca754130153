//! rust-vt against prost, buffa and rust-protobuf, on the same data, in one run.
//!
//! ```sh
//! scripts/fetch-corpora.sh --bench     # for workload R (googleapis descriptors); optional
//! cargo bench -p vt-benches
//! python3 benches/report.py            # ratio and allocation tables for RESULTS.md
//! ```
//!
//! Group names are `<workload>_<size>_<op>`; functions are the peers. Allocations per operation
//! are counted once per (group, peer) with a counting allocator and written to
//! `target/criterion/allocations.tsv`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use buffa::view::MessageView;
use criterion::{criterion_group, criterion_main, Criterion};
use vt_benches::{allocations, bf, pb, rp, Tracking};

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// Rows of `group\tpeer\tallocations`.
static ALLOCS: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

fn record(group: &str, peer: &str, n: usize) {
    writeln!(ALLOCS.lock().unwrap(), "{group}\t{peer}\t{n}").unwrap();
}

/// rust-vt's exact strategy alone: one `size` walk, one allocation of that size, one backward
/// write in place (what `encode_to_vec` does for flat messages, and tonic's codec always).
fn encode_exact<M: vtproto::Message>(msg: &M) -> bytes::BytesMut {
    let mut buf = bytes::BytesMut::new();
    msg.encode_to_bytes_mut(&mut buf);
    buf
}

/// Benchmarks encoding `msg` with every peer. `B` and `R` are buffa's and rust-protobuf's types
/// for the same message, decoded from prost's bytes so the data is identical.
macro_rules! encode_group {
    ($c:expr, $group:expr, $msg:expr, $bf:ty, $rp:ty) => {{
        let group: String = $group;
        let msg = $msg;
        let bytes = prost::Message::encode_to_vec(msg);
        let bf_msg = <$bf as buffa::Message>::decode_from_slice(&bytes).unwrap();
        let rp_msg = <$rp as protobuf::Message>::parse_from_bytes(&bytes).unwrap();
        assert_eq!(vtproto::Message::encode_to_vec(msg).len(), bytes.len());
        let mut g = $c.benchmark_group(&group);
        let mut reuse = Vec::with_capacity(bytes.len());
        let mut bf_cache = buffa::SizeCache::default();
        let mut bf_buf = Vec::with_capacity(bytes.len());

        record(
            &group,
            "prost",
            allocations(|| prost::Message::encode_to_vec(msg)),
        );
        g.bench_function("prost", |b| {
            b.iter(|| prost::Message::encode_to_vec(black_box(msg)))
        });
        record(
            &group,
            "vtproto",
            allocations(|| vtproto::Message::encode_to_vec(msg)),
        );
        g.bench_function("vtproto", |b| {
            b.iter(|| vtproto::Message::encode_to_vec(black_box(msg)))
        });
        record(
            &group,
            "vtproto_reuse",
            allocations(|| {
                reuse.clear();
                vtproto::Message::append_to_vec(msg, &mut reuse)
            }),
        );
        g.bench_function("vtproto_reuse", |b| {
            b.iter(|| {
                reuse.clear();
                vtproto::Message::append_to_vec(black_box(msg), &mut reuse)
            })
        });
        record(&group, "vtproto_exact", allocations(|| encode_exact(msg)));
        g.bench_function("vtproto_exact", |b| b.iter(|| encode_exact(black_box(msg))));
        record(
            &group,
            "buffa",
            allocations(|| buffa::Message::encode_to_vec(&bf_msg)),
        );
        g.bench_function("buffa", |b| {
            b.iter(|| buffa::Message::encode_to_vec(black_box(&bf_msg)))
        });
        let mut bf_reuse = || {
            bf_cache.clear();
            bf_buf.clear();
            buffa::Message::compute_size(black_box(&bf_msg), &mut bf_cache);
            buffa::Message::write_to(&bf_msg, &mut bf_cache, &mut bf_buf);
        };
        record(&group, "buffa_reuse", allocations(&mut bf_reuse));
        g.bench_function("buffa_reuse", |b| b.iter(&mut bf_reuse));
        record(
            &group,
            "protobuf",
            allocations(|| protobuf::Message::write_to_bytes(&rp_msg)),
        );
        g.bench_function("protobuf", |b| {
            b.iter(|| protobuf::Message::write_to_bytes(black_box(&rp_msg)).unwrap())
        });
        g.finish();
    }};
}

/// Benchmarks decoding prost's encoding of a `P` with every peer: rust-vt also with
/// `decode_into` one value over and over (`vtproto_reuse`, the steady state) and, when a view
/// type is given, as a view; buffa also as a view.
macro_rules! decode_group {
    ($c:expr, $group:expr, $bytes:expr, $p:ty, $bf:ty, $bfv:ident, $rp:ty $(, $vv:ty)?) => {{
        let group: String = $group;
        let bytes: &[u8] = $bytes;
        let mut g = $c.benchmark_group(&group);
        record(
            &group,
            "prost",
            allocations(|| <$p as prost::Message>::decode(bytes).unwrap()),
        );
        g.bench_function("prost", |b| {
            b.iter(|| <$p as prost::Message>::decode(black_box(bytes)).unwrap())
        });
        record(
            &group,
            "vtproto",
            allocations(|| <$p as vtproto::Message>::decode(bytes).unwrap()),
        );
        g.bench_function("vtproto", |b| {
            b.iter(|| <$p as vtproto::Message>::decode(black_box(bytes)).unwrap())
        });
        let mut reused = <$p>::default();
        record(
            &group,
            "vtproto_reuse",
            allocations(|| vtproto::Message::decode_into(&mut reused, bytes).unwrap()),
        );
        g.bench_function("vtproto_reuse", |b| {
            b.iter(|| vtproto::Message::decode_into(&mut reused, black_box(bytes)).unwrap())
        });
        $(
            record(
                &group,
                "vtproto_view",
                allocations(|| <$vv as vtproto::MessageView>::decode_view(bytes).unwrap()),
            );
            g.bench_function("vtproto_view", |b| {
                b.iter(|| <$vv as vtproto::MessageView>::decode_view(black_box(bytes)).unwrap())
            });
        )?
        record(
            &group,
            "buffa",
            allocations(|| <$bf as buffa::Message>::decode_from_slice(bytes).unwrap()),
        );
        g.bench_function("buffa", |b| {
            b.iter(|| <$bf as buffa::Message>::decode_from_slice(black_box(bytes)).unwrap())
        });
        record(
            &group,
            "buffa_view",
            allocations(|| $bfv::decode_view(bytes).unwrap()),
        );
        g.bench_function("buffa_view", |b| {
            b.iter(|| $bfv::decode_view(black_box(bytes)).unwrap())
        });
        record(
            &group,
            "protobuf",
            allocations(|| <$rp as protobuf::Message>::parse_from_bytes(bytes).unwrap()),
        );
        g.bench_function("protobuf", |b| {
            b.iter(|| <$rp as protobuf::Message>::parse_from_bytes(black_box(bytes)).unwrap())
        });
        g.finish();
    }};
}

/// Encode and decode groups for one candidates response, named `<name>_encode`/`_decode`.
fn candidates_groups(c: &mut Criterion, name: &str, msg: &pb::vt::candidates::CandidatesResponse) {
    use bf::vt::candidates::CandidatesResponseView;
    encode_group!(
        c,
        format!("{name}_encode"),
        msg,
        bf::vt::candidates::CandidatesResponse,
        rp::candidates::CandidatesResponse
    );
    let bytes = prost::Message::encode_to_vec(msg);
    decode_group!(
        c,
        format!("{name}_decode"),
        &bytes,
        pb::vt::candidates::CandidatesResponse,
        bf::vt::candidates::CandidatesResponse,
        CandidatesResponseView,
        rp::candidates::CandidatesResponse,
        pb::vt::candidates::CandidatesResponseView
    );
}

fn workload_a(c: &mut Criterion) {
    for n in [100, 500, 2000, 5000] {
        candidates_groups(c, &format!("A_candidates_{n}"), &vt_benches::candidates(n));
    }
}

/// Workload A with the write-up's data shape (540,893 bytes at 2,000 candidates).
fn workload_a_seed(c: &mut Criterion) {
    candidates_groups(c, "A_seed_2000", &vt_benches::candidates_seed(2000));
}

fn workload_b(c: &mut Criterion) {
    use bf::vt::event::{EventBatchView, EventView};
    let one = vt_benches::event(&mut vt_benches::Rng::new(7));
    encode_group!(
        c,
        "B_event_1_encode".into(),
        &one,
        bf::vt::event::Event,
        rp::event::Event
    );
    let bytes = prost::Message::encode_to_vec(&one);
    decode_group!(
        c,
        "B_event_1_decode".into(),
        &bytes,
        pb::vt::event::Event,
        bf::vt::event::Event,
        EventView,
        rp::event::Event,
        pb::vt::event::EventView
    );
    let batch = vt_benches::event_batch(10_000);
    encode_group!(
        c,
        "B_event_10000_encode".into(),
        &batch,
        bf::vt::event::EventBatch,
        rp::event::EventBatch
    );
    let bytes = prost::Message::encode_to_vec(&batch);
    decode_group!(
        c,
        "B_event_10000_decode".into(),
        &bytes,
        pb::vt::event::EventBatch,
        bf::vt::event::EventBatch,
        EventBatchView,
        rp::event::EventBatch,
        pb::vt::event::EventBatchView
    );
}

fn workload_c(c: &mut Criterion) {
    use bf::vt::deep::NodeView;
    encode_group!(
        c,
        "C_node20_encode".into(),
        &vt_benches::node20(),
        bf::vt::deep::Node,
        rp::deep::Node
    );
    for depth in [1, 8, 32, 64, 100] {
        let node = vt_benches::deep(depth);
        encode_group!(
            c,
            format!("C_deep_{depth}_encode"),
            &node,
            bf::vt::deep::Node,
            rp::deep::Node
        );
        if [1, 32, 100].contains(&depth) {
            let bytes = prost::Message::encode_to_vec(&node);
            decode_group!(
                c,
                format!("C_deep_{depth}_decode"),
                &bytes,
                pb::vt::deep::Node,
                bf::vt::deep::Node,
                NodeView,
                rp::deep::Node,
                pb::vt::deep::NodeView
            );
        }
    }
}

/// Workload R: the descriptors of Google's public APIs, compiled by protoc here, decoded and
/// re-encoded with each library's own `descriptor.proto` types.
fn workload_r(c: &mut Criterion) {
    use buffa_descriptor::generated::descriptor::__buffa::view::FileDescriptorSetView;
    let Some(bytes) = googleapis_descriptors() else {
        eprintln!("workload R skipped: run scripts/fetch-corpora.sh --bench first");
        return;
    };
    decode_group!(
        c,
        "R_googleapis_decode".into(),
        &bytes,
        prost_types::FileDescriptorSet,
        buffa_descriptor::generated::descriptor::FileDescriptorSet,
        FileDescriptorSetView,
        protobuf::descriptor::FileDescriptorSet
    );
    let msg = <prost_types::FileDescriptorSet as prost::Message>::decode(&bytes[..]).unwrap();
    encode_group!(
        c,
        "R_googleapis_encode".into(),
        &msg,
        buffa_descriptor::generated::descriptor::FileDescriptorSet,
        protobuf::descriptor::FileDescriptorSet
    );
}

/// Runs protoc over google-proto-files' APIs (without its copy of protobuf's own protos) once,
/// caching the descriptor set in `target/`.
fn googleapis_descriptors() -> Option<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = root.join("target/corpora/google-proto-files");
    let cache = root.join("target/bench-googleapis.fds");
    if let Ok(bytes) = std::fs::read(&cache) {
        return Some(bytes);
    }
    if !corpus.exists() {
        return None;
    }
    let mut files = Vec::new();
    // 386 files plus imports: large enough to be real, small enough for every peer's limits.
    for dir in [
        "google/api",
        "google/rpc",
        "google/type",
        "google/longrunning",
        "google/cloud/aiplatform/v1",
        "google/cloud/bigquery",
        "google/cloud/dialogflow/cx/v3",
    ] {
        collect(&corpus.join(dir), &mut files);
    }
    let rel: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&corpus).unwrap().display().to_string())
        .collect();
    let status = std::process::Command::new(env!("VT_BENCH_PROTOC"))
        .arg("-I")
        .arg(&corpus)
        .arg("-I")
        .arg(env!("VT_BENCH_WKT"))
        .arg("--include_imports")
        .arg("-o")
        .arg(&cache)
        .args(&rel)
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        eprintln!("workload R: protoc failed");
        return None;
    }
    std::fs::read(&cache).ok()
}

fn collect(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "proto") {
            out.push(p);
        }
    }
}

fn save_allocations(_: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(
        path.join("allocations.tsv"),
        ALLOCS.lock().unwrap().as_str(),
    )
    .unwrap();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = workload_a, workload_a_seed, workload_b, workload_c, workload_r, save_allocations
}
criterion_main!(benches);
