//! Workloads and peer types for the benchmarks: the same protos compiled for prost + rust-vt,
//! buffa and rust-protobuf, and seeded generators that build identical data for all of them
//! (built once as prost structs, then decoded by each peer from prost's bytes).
#![allow(clippy::all, missing_docs)]

/// prost's structs with rust-vt's impls.
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/_prost.rs"));
}

/// Our own structs (`mode=standalone`) for the same protos.
pub mod sa {
    include!(concat!(env!("OUT_DIR"), "/standalone/_standalone.rs"));
}

pub mod interleave;

/// prost's structs with pbjson's serde impls (ProtoJSON the common Rust way).
pub mod pj {
    pub mod vt {
        pub mod candidates {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.candidates.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.candidates.serde.rs"));
        }
        pub mod event {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.event.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.event.serde.rs"));
        }
        pub mod deep {
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.deep.rs"));
            include!(concat!(env!("OUT_DIR"), "/pbjson/vt.deep.serde.rs"));
        }
    }
}

/// buffa's owned and view types.
pub mod bf {
    include!(concat!(env!("OUT_DIR"), "/buffa/_buffa.rs"));
}

/// rust-protobuf's types.
pub mod rp {
    include!(concat!(env!("OUT_DIR"), "/rust_protobuf/mod.rs"));
}

pub use alloc_stats::{steady_state_allocations as allocations, Tracking};

/// xorshift64: the data is the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Workload A: `n` candidates with the six metadata entries of the motivating service.
pub fn candidates(n: usize) -> pb::vt::candidates::CandidatesResponse {
    let mut rng = Rng::new(0xC0FFEE);
    let candidates = (0..n)
        .map(|i| {
            let mut c = pb::vt::candidates::Candidate {
                id: format!("cand-{:016x}", rng.next()),
                ..Default::default()
            };
            let meta = [
                (
                    "relevance_score",
                    format!("0.{:07}", rng.next() % 10_000_000),
                ),
                (
                    "cursor",
                    format!(
                        "{:032x}",
                        u128::from(rng.next()) << 64 | u128::from(rng.next())
                    ),
                ),
                (
                    "catalog_id",
                    format!("catalog-{:06}", rng.next() % 1_000_000),
                ),
                (
                    "product_id",
                    format!("sku-{:012}", rng.next() % 1_000_000_000_000),
                ),
                (
                    "source",
                    ["search", "ads", "recommendations"][(rng.next() % 3) as usize].into(),
                ),
                ("rank", i.to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    pb::vt::candidates::CandidatesResponse { candidates }
}

/// Workload A as the write-up describes its data: a 36-byte id and six entries per candidate
/// (`relevance_score` 9 B, `cursor` 62 B, `catalog_id` 36 B, `product_id` 24 B, `source` 8 B,
/// `rank`); 2,000 of them encode to 540,893 bytes, as there. Longer strings than
/// [`candidates`], so more of the time is copying.
pub fn candidates_seed(n: usize) -> pb::vt::candidates::CandidatesResponse {
    let mut rng = Rng::new(0x5EED);
    let uuid = |rng: &mut Rng| {
        let (a, b) = (rng.next(), rng.next());
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    };
    let candidates = (0..n)
        .map(|i| {
            let mut c = pb::vt::candidates::Candidate {
                id: uuid(&mut rng),
                ..Default::default()
            };
            let cursor: String = (0..62)
                .map(|_| {
                    char::from(
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                            [(rng.next() % 62) as usize],
                    )
                })
                .collect();
            let meta = [
                (
                    "relevance_score",
                    format!("0.{:07}", rng.next() % 10_000_000),
                ),
                ("cursor", cursor),
                ("catalog_id", uuid(&mut rng)),
                (
                    "product_id",
                    format!("prod-{:019}", rng.next() % 10_000_000_000_000_000_000),
                ),
                (
                    "source",
                    ["retrieve", "semantic", "keywords"][(rng.next() % 3) as usize].into(),
                ),
                ("rank", (i + 1).to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    pb::vt::candidates::CandidatesResponse { candidates }
}

/// Workload B: one event.
pub fn event(rng: &mut Rng) -> pb::vt::event::Event {
    let mut e = pb::vt::event::Event {
        id: format!("evt-{:016x}", rng.next()),
        ts: 1_700_000_000_000 + (rng.next() % 1_000_000) as i64,
        region: ["eu-west-1", "us-east-1", "ap-south-1"][(rng.next() % 3) as usize].into(),
        readings: (0..4)
            .map(|_| (rng.next() % 100_000) as f64 / 100.0)
            .collect(),
        ..Default::default()
    };
    for (k, v) in [
        ("host", format!("host-{}", rng.next() % 500)),
        ("service", "checkout".to_string()),
        (
            "version",
            format!("1.{}.{}", rng.next() % 20, rng.next() % 10),
        ),
    ] {
        e.attrs.insert(k.into(), v);
    }
    e
}

/// Workload B: a batch of `n` events.
pub fn event_batch(n: usize) -> pb::vt::event::EventBatch {
    let mut rng = Rng::new(0xE7E47);
    pb::vt::event::EventBatch {
        events: (0..n).map(|_| event(&mut rng)).collect(),
    }
}

/// Workload C: a chain of `depth` nested nodes.
pub fn deep(depth: usize) -> pb::vt::deep::Node {
    let mut node = pb::vt::deep::Node {
        child: None,
        value: 0,
        label: "leaf".into(),
    };
    for i in 1..depth {
        node = pb::vt::deep::Node {
            child: Some(Box::new(node)),
            value: i as i64 * 1_000_003,
            label: format!("level-{i}"),
        };
    }
    node
}

/// Workload C's smallest case as a service sends it: a node with one child, an int and a short
/// label, 20 bytes encoded.
pub fn node20() -> pb::vt::deep::Node {
    pb::vt::deep::Node {
        child: Some(Box::new(pb::vt::deep::Node {
            child: None,
            value: 7,
            label: "leaf".into(),
        })),
        value: 1_234_567,
        label: "data".into(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seed_shape_is_the_write_ups() {
        let bytes = prost::Message::encode_to_vec(&super::candidates_seed(2000));
        assert_eq!(bytes.len(), 540_893);
        assert_eq!(prost::Message::encode_to_vec(&super::node20()).len(), 20);
    }
}
