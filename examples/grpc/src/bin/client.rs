//! `cargo run -p vt-grpc-example --bin client [-- http://127.0.0.1:50051 <count>]`: calls Find
//! and Stream with rust-vt's codec and prints what came back.

use vt_grpc_example::pb::vt::search::SearchRequest;
use vt_grpc_example::vt_codec::search_client::SearchClient;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:50051".into());
    let count: u32 = args.next().map_or(Ok(3), |s| s.parse())?;
    let mut client = SearchClient::connect(addr).await?;
    let request = SearchRequest {
        query: "shoes".into(),
        count,
    };
    let found = client.find(request.clone()).await?.into_inner();
    println!("find: {} candidates", found.candidates.len());
    let mut stream = client.stream(request).await?.into_inner();
    let mut streamed = 0;
    while let Some(candidate) = stream.message().await? {
        streamed += 1;
        if streamed == 1 {
            println!("stream: first candidate {}", candidate.id);
        }
    }
    println!("stream: {streamed} candidates");
    Ok(())
}
