//! The main job: builds a 2,000-candidate search response (the workload that motivated the
//! project), encodes and decodes it with prost and with rust-vt on the same structs, checks that
//! both agree, and prints sizes, times and allocations.
//!
//! ```sh
//! cargo run --release --example candidates [-- <candidates>]
//! ```

use std::time::{Duration, Instant};

/// `proto/candidates.proto`, compiled by this package's `build.rs`: prost's structs with
/// rust-vt's impls.
mod pb {
    include!(concat!(env!("OUT_DIR"), "/vt.candidates.rs"));
}

use pb::{Candidate, CandidatesResponse};

#[global_allocator]
static ALLOC: alloc_stats::Tracking = alloc_stats::Tracking;

/// The candidates response of the benchmarks, from a fixed seed.
fn response(n: usize) -> CandidatesResponse {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let candidates = (0..n)
        .map(|i| {
            let mut c = Candidate {
                id: format!("cand-{:08x}", next() as u32),
                ..Default::default()
            };
            let meta = [
                ("relevance_score", format!("0.{:07}", next() % 10_000_000)),
                ("cursor", format!("{:016x}", next())),
                ("catalog_id", format!("catalog-{}", next() % 1000)),
                ("product_id", format!("sku-{:010}", next() % 10_000_000_000)),
                (
                    "source",
                    ["search", "ads", "recs"][(next() % 3) as usize].to_string(),
                ),
                ("rank", i.to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    CandidatesResponse { candidates }
}

/// Runs `f` repeatedly for about 200 ms; returns the mean time and allocations per call.
fn measure<T>(mut f: impl FnMut() -> T) -> (Duration, f64) {
    let start = Instant::now();
    let mut runs = 0u32;
    let ((), stats) = alloc_stats::measure(|| {
        while start.elapsed() < Duration::from_millis(200) {
            std::hint::black_box(f());
            runs += 1;
        }
    });
    let per = start.elapsed() / runs;
    (per, stats.count as f64 / f64::from(runs))
}

fn main() {
    let n = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("number of candidates"))
        .unwrap_or(2000);
    let msg = response(n);

    let prost_bytes = prost::Message::encode_to_vec(&msg);
    let vt_bytes = vtproto::Message::encode_to_vec(&msg);
    assert_eq!(vt_bytes.len(), vtproto::Message::size(&msg));
    assert_eq!(vt_bytes.len(), prost_bytes.len());
    // Maps iterate in hash order, so compare decoded values, both ways round.
    let from_vt = <CandidatesResponse as prost::Message>::decode(&vt_bytes[..]).unwrap();
    let from_prost = <CandidatesResponse as vtproto::Message>::decode(&prost_bytes).unwrap();
    assert_eq!(from_vt, msg);
    assert_eq!(from_prost, msg);
    println!(
        "{n} candidates: {} bytes; prost and rust-vt agree both ways",
        vt_bytes.len()
    );

    let (pe, pa) = measure(|| prost::Message::encode_to_vec(&msg));
    let (ve, va) = measure(|| vtproto::Message::encode_to_vec(&msg));
    let mut reuse = Vec::with_capacity(vt_bytes.len());
    let (vr, vra) = measure(|| {
        reuse.clear();
        vtproto::Message::append_to_vec(&msg, &mut reuse);
    });
    let (pd, pda) =
        measure(|| <CandidatesResponse as prost::Message>::decode(&vt_bytes[..]).unwrap());
    let (vd, vda) =
        measure(|| <CandidatesResponse as vtproto::Message>::decode(&vt_bytes).unwrap());

    println!(
        "{:<28} {:>12} {:>10} {:>14}",
        "", "time", "vs prost", "allocations"
    );
    let row = |name: &str, t: Duration, base: Duration, a: f64| {
        println!(
            "{name:<28} {:>10.1}µs {:>9.2}x {a:>14.0}",
            t.as_secs_f64() * 1e6,
            t.as_secs_f64() / base.as_secs_f64()
        );
    };
    row("encode_to_vec  prost", pe, pe, pa);
    row("encode_to_vec  rust-vt", ve, pe, va);
    row("encode, reused buffer", vr, pe, vra);
    row("decode         prost", pd, pd, pda);
    row("decode         rust-vt", vd, pd, vda);
}
