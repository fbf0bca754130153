//! A tonic server's throughput and CPU with rust-vt's codec against prost's, end to end.
//!
//! ```sh
//! cargo run --release -p vt-benches --example grpc_load              # every call, ~1 minute
//! cargo run --release -p vt-benches --example grpc_load -- find      # calls whose name contains it
//! cargo run --release -p vt-benches --example grpc_load -- profile prost 10  # one server, for perf
//! cargo run --release -p vt-benches --example grpc_load -- memory vt          # RSS under mixed load
//! ```
//!
//! The `examples/grpc` service runs on a multi-threaded tokio runtime (2 workers) with its
//! clients, over 127.0.0.1: 64 concurrent calls over 4 HTTP/2 connections, for three calls:
//!
//! - `find`: a 20-byte request, the 2,000-candidate response (encode-heavy on the server);
//! - `ingest`: 2,000 candidates sent to the server, which reads each one (decode-heavy; our
//!   server takes the request as an owned view of tonic's buffer);
//! - `record`: one small event, a small answer (per-call overhead dominates).
//!
//! `vt` servers and clients run on the stubs our generator writes (`examples/grpc`'s
//! `vt_view`: the `services` feature, `mode=prost`); `standalone` ones on our structs and stubs
//! with no prost at all (`search_standalone`, `mode=standalone`); `prost` ones on
//! tonic-prost-build's.
//! Each row is a pairing of server and client codecs: `prost`, `vt` (ours), and `raw` (a
//! client that sends pre-encoded bytes and skips decoding, to show the server alone). The
//! pairings alternate in rounds (1 s each after a 0.2 s warm-up, 3 rounds) so machine noise
//! spreads over all of them. Each row gives requests per second, p50 and p99 latency, and the
//! process's CPU time per request (`getrusage`: user + system, server and clients together).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, BufMut, Bytes};
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Server};
use tonic::Status;
use vt_benches::cpu_time;
use vt_grpc_example::pb::vt::event::Event;
use vt_grpc_example::pb::vt::search::{IngestRequest, SearchRequest};
use vt_grpc_example::search_standalone::pb::vt as sa;
use vt_grpc_example::{answer, prost_codec, vt_view, SearchService, ViewSearchService};

/// `mode=standalone`'s stubs, as `client_call!` names them.
mod standalone_stubs {
    pub use vt_grpc_example::search_standalone::pb::vt::search::search_client;
}

const TASKS: usize = 64;
const CONNECTIONS: usize = 4;
const ROUNDS: usize = 3;
const WARM_UP: Duration = Duration::from_millis(200);
const MEASURE: Duration = Duration::from_secs(1);
/// At most this many calls per task and measurement (a bound for very fast calls).
const MAX_CALLS: usize = 200_000;

/// Sends pre-encoded bytes and skips the answer's decoding.
#[derive(Clone, Copy, Default)]
struct RawCodec;
struct Raw;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = ();
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Bytes;
    type Error = Status;
    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = ();
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<()>, Status> {
        src.advance(src.remaining());
        Ok(Some(()))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Prost,
    Vt,
    /// `mode=standalone`: our structs and stubs, no prost.
    Standalone,
    Raw,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Prost => "prost",
            Side::Vt => "vt",
            Side::Standalone => "standalone",
            Side::Raw => "raw",
        }
    }
}

type Call = Arc<dyn Fn(usize) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// The search service in `mode=standalone` (`examples/grpc`'s `search_standalone`).
async fn serve_standalone() -> SocketAddr {
    use vt_grpc_example::search_standalone::pb::vt::search::search_server::SearchServer;
    use vt_grpc_example::search_standalone::StandaloneSearchService;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = TcpListenerStream::new(listener);
    tokio::spawn(async move {
        Server::builder()
            .add_service(SearchServer::new(StandaloneSearchService))
            .serve_with_incoming(incoming)
            .await
            .unwrap();
    });
    addr
}

async fn serve(vt: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = TcpListenerStream::new(listener);
    tokio::spawn(async move {
        let mut server = Server::builder();
        let result = if vt {
            server
                .add_service(vt_view::search_server::SearchServer::new(ViewSearchService))
                .serve_with_incoming(incoming)
                .await
        } else {
            server
                .add_service(prost_codec::search_server::SearchServer::new(SearchService))
                .serve_with_incoming(incoming)
                .await
        };
        result.unwrap();
    });
    addr
}

async fn channels(addr: SocketAddr) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..CONNECTIONS {
        let channel = Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        out.push(channel);
    }
    out
}

/// The workload's requests, built once (and as our own structs, read from prost's bytes).
struct Requests {
    find: SearchRequest,
    ingest: IngestRequest,
    ingest_bytes: Bytes,
    record: Event,
    standalone: StandaloneRequests,
}

struct StandaloneRequests {
    find: sa::search::SearchRequest,
    record: sa::event::Event,
}

impl Requests {
    fn new() -> Self {
        let find = SearchRequest {
            query: "load".into(),
            count: 2000,
        };
        let ingest = IngestRequest {
            candidates: answer(&find).candidates,
        };
        let ingest_bytes = Bytes::from(prost::Message::encode_to_vec(&ingest));
        let mut record = Event {
            id: "evt-0001".into(),
            ts: 1_700_000_000_000,
            region: "eu-west-1".into(),
            readings: vec![0.5, 1.25, 3.0],
            ..Default::default()
        };
        record.attrs.insert("host".into(), "web-17".into());
        record.attrs.insert("status".into(), "200".into());
        let standalone = StandaloneRequests {
            find: vtproto::Message::decode(&prost::Message::encode_to_vec(&find)).unwrap(),
            record: vtproto::Message::decode(&prost::Message::encode_to_vec(&record)).unwrap(),
        };
        Requests {
            find,
            ingest,
            ingest_bytes,
            record,
            standalone,
        }
    }
}

macro_rules! client_call {
    ($module:ident, $channels:expr, $method:ident, $request:expr) => {{
        let clients: Vec<_> = $channels
            .iter()
            .map(|c| $module::search_client::SearchClient::new(c.clone()))
            .collect();
        let request = $request;
        let call: Call = Arc::new(move |task| {
            let mut client = clients[task % clients.len()].clone();
            let request = request.clone();
            Box::pin(async move {
                client.$method(request).await.unwrap();
            })
        });
        call
    }};
}

fn raw_call(channels: &[Channel], path: &'static str, body: Bytes) -> Call {
    let clients: Vec<_> = channels
        .iter()
        .map(|c| tonic::client::Grpc::new(c.clone()))
        .collect();
    Arc::new(move |task| {
        let mut client = clients[task % clients.len()].clone();
        let body = body.clone();
        Box::pin(async move {
            client.ready().await.unwrap();
            client
                .unary::<Bytes, (), _>(
                    tonic::Request::new(body),
                    PathAndQuery::from_static(path),
                    RawCodec,
                )
                .await
                .unwrap();
        })
    })
}

/// The call `name` with `client` codec over `channels`.
fn make_call(name: &str, client: Side, channels: &[Channel], r: &Requests) -> Call {
    let encode = |m: &dyn Fn() -> Vec<u8>| Bytes::from(m());
    match (name, client) {
        ("find", Side::Prost) => client_call!(prost_codec, channels, find, r.find.clone()),
        ("find", Side::Vt) => client_call!(vt_view, channels, find, r.find.clone()),
        ("find", Side::Standalone) => {
            client_call!(standalone_stubs, channels, find, r.standalone.find.clone())
        }
        ("find", Side::Raw) => raw_call(
            channels,
            "/vt.search.Search/Find",
            encode(&|| prost::Message::encode_to_vec(&r.find)),
        ),
        ("ingest", Side::Prost) => client_call!(prost_codec, channels, ingest, r.ingest.clone()),
        ("ingest", Side::Vt) => client_call!(vt_view, channels, ingest, r.ingest.clone()),
        ("ingest", Side::Raw) => {
            raw_call(channels, "/vt.search.Search/Ingest", r.ingest_bytes.clone())
        }
        ("record", Side::Prost) => client_call!(prost_codec, channels, record, r.record.clone()),
        ("record", Side::Vt) => client_call!(vt_view, channels, record, r.record.clone()),
        ("record", Side::Standalone) => client_call!(
            standalone_stubs,
            channels,
            record,
            r.standalone.record.clone()
        ),
        ("record", Side::Raw) => raw_call(
            channels,
            "/vt.search.Search/Record",
            encode(&|| prost::Message::encode_to_vec(&r.record)),
        ),
        _ => unreachable!("unknown call {name}"),
    }
}

/// What one pairing measured over its rounds.
#[derive(Default)]
struct Tally {
    calls: u64,
    wall: Duration,
    cpu: Duration,
    latencies_us: Vec<u32>,
}

/// Runs `call` from `TASKS` tasks for `time` (or `MAX_CALLS` each); returns the calls made and
/// their latencies.
async fn drive(call: &Call, time: Duration) -> (u64, Vec<u32>) {
    let end = Instant::now() + time;
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let call = call.clone();
        handles.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while Instant::now() < end && latencies.len() < MAX_CALLS {
                let start = Instant::now();
                call(task).await;
                latencies.push(start.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    (all.len() as u64, all)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p) as usize] as f64 / 1000.0
}

/// The pairings (server, client) each call runs with. Ingest's client always sends the same
/// pre-encoded bytes, so only its server's codec varies.
fn pairings(call: &str) -> Vec<(Side, Side)> {
    use Side::*;
    match call {
        "ingest" => vec![(Prost, Raw), (Vt, Raw), (Standalone, Raw)],
        _ => vec![
            (Prost, Prost),
            (Vt, Vt),
            (Standalone, Standalone),
            (Vt, Prost),
            (Prost, Vt),
            (Prost, Raw),
            (Vt, Raw),
            (Standalone, Raw),
        ],
    }
}

async fn run(filter: &str) {
    let requests = Requests::new();
    let prost_addr = serve(false).await;
    let vt_addr = serve(true).await;
    let standalone_addr = serve_standalone().await;
    let prost_channels = channels(prost_addr).await;
    let vt_channels = channels(vt_addr).await;
    let standalone_channels = channels(standalone_addr).await;
    println!(
        "{:<8} {:<21} {:>10} {:>9} {:>9} {:>12}",
        "call", "server/client", "req/s", "p50 ms", "p99 ms", "CPU us/req"
    );
    let mut summary = Vec::new();
    for name in ["find", "ingest", "record"] {
        if !name.contains(filter) {
            continue;
        }
        let pairs = pairings(name);
        let calls: Vec<Call> = pairs
            .iter()
            .map(|(server, client)| {
                let channels = match server {
                    Side::Vt => &vt_channels,
                    Side::Standalone => &standalone_channels,
                    _ => &prost_channels,
                };
                make_call(name, *client, channels, &requests)
            })
            .collect();
        let mut tallies: Vec<Tally> = pairs.iter().map(|_| Tally::default()).collect();
        for _ in 0..ROUNDS {
            for (call, tally) in calls.iter().zip(&mut tallies) {
                drive(call, WARM_UP).await;
                let (cpu0, t0) = (cpu_time(), Instant::now());
                let (n, latencies) = drive(call, MEASURE).await;
                tally.wall += t0.elapsed();
                tally.cpu += cpu_time() - cpu0;
                tally.calls += n;
                tally.latencies_us.extend(latencies);
            }
        }
        let mut rows = Vec::new();
        for ((server, client), tally) in pairs.iter().zip(&mut tallies) {
            tally.latencies_us.sort_unstable();
            let rps = tally.calls as f64 / tally.wall.as_secs_f64();
            let cpu = tally.cpu.as_secs_f64() * 1e6 / tally.calls as f64;
            println!(
                "{:<8} {:<21} {:>10.0} {:>9.2} {:>9.2} {:>12.1}",
                name,
                format!("{}/{}", server.name(), client.name()),
                rps,
                percentile(&tally.latencies_us, 0.50),
                percentile(&tally.latencies_us, 0.99),
                cpu
            );
            rows.push(((*server, *client), rps, cpu));
        }
        let find = |pair: (Side, Side)| rows.iter().find(|(p, _, _)| *p == pair);
        for (ours, theirs) in [
            ((Side::Vt, Side::Vt), (Side::Prost, Side::Prost)),
            ((Side::Vt, Side::Raw), (Side::Prost, Side::Raw)),
            (
                (Side::Standalone, Side::Standalone),
                (Side::Prost, Side::Prost),
            ),
            ((Side::Standalone, Side::Raw), (Side::Prost, Side::Raw)),
        ] {
            if let (Some(o), Some(t)) = (find(ours), find(theirs)) {
                summary.push(format!(
                    "{name:<8} {}/{} vs {}/{}: {:+.0}% requests/s, {:+.0}% CPU per request",
                    ours.0.name(),
                    ours.1.name(),
                    theirs.0.name(),
                    theirs.1.name(),
                    (o.1 / t.1 - 1.0) * 100.0,
                    (o.2 / t.2 - 1.0) * 100.0
                ));
            }
        }
    }
    println!();
    for line in summary {
        println!("{line}");
    }
}

/// The process's resident memory now and at its peak, in MiB (`/proc/self/status`).
fn rss_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// One server (`prost` or `vt`) under mixed load for `seconds`: of every 10 calls from the 64
/// concurrent clients, 9 ask for 20 candidates (2 KB) and one for 40,000 (3 MB); the clients
/// skip decoding. Prints the process's peak resident memory, and what it settles to one
/// second after the load stops (the scratch buffers kept by the server's threads included).
async fn memory(vt: bool, seconds: u64) {
    let addr = serve(vt).await;
    let channels = channels(addr).await;
    let large = raw_call(
        &channels,
        "/vt.search.Search/Find",
        Bytes::from(prost::Message::encode_to_vec(&SearchRequest {
            query: "big".into(),
            count: 40_000,
        })),
    );
    let small_request = Bytes::from(prost::Message::encode_to_vec(&SearchRequest {
        query: "small".into(),
        count: 20,
    }));
    let small = raw_call(&channels, "/vt.search.Search/Find", small_request);
    let mixed: Call = Arc::new(move |task| {
        // One call in ten is large.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if (n + task).is_multiple_of(10) {
            large(task)
        } else {
            small(task)
        }
    });
    let (before, _) = rss_mib();
    let (calls, _) = drive(&mixed, Duration::from_secs(seconds)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (settled, peak) = rss_mib();
    println!(
        "{} server: {calls} calls, RSS {before:.0} MiB before, peak {peak:.0} MiB, settled {settled:.0} MiB; scratch buffers keep {:.1} MiB",
        if vt { "vt" } else { "prost" },
        vtproto::scratch_bytes_retained() as f64 / (1 << 20) as f64
    );
}

/// One server (`prost` or `vt`) answering `find` to raw clients for `seconds`, nothing else:
/// a clean process for `perf record`.
async fn profile(vt: bool, seconds: u64) {
    let requests = Requests::new();
    let addr = serve(vt).await;
    let channels = channels(addr).await;
    let call = make_call("find", Side::Raw, &channels, &requests);
    let (n, _) = drive(&call, Duration::from_secs(seconds)).await;
    println!("{n} find calls");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    match args.first().map(String::as_str) {
        Some("memory") => {
            let vt = args.get(1).is_some_and(|s| s == "vt");
            let seconds = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
            runtime.block_on(memory(vt, seconds));
        }
        Some("profile") => {
            let vt = args.get(1).is_some_and(|s| s == "vt");
            let seconds = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
            runtime.block_on(profile(vt, seconds));
        }
        filter => runtime.block_on(run(filter.unwrap_or(""))),
    }
}
