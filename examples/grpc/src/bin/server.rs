//! `cargo run -p vt-grpc-example --bin server [-- 127.0.0.1:50051]`: serves Search with
//! rust-vt's codec.

use vt_grpc_example::{vt_codec::search_server::SearchServer, SearchService};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50051".into());
    println!("serving Search with VtCodec on {addr}");
    tonic::transport::Server::builder()
        .add_service(SearchServer::new(SearchService))
        .serve(addr.parse()?)
        .await?;
    Ok(())
}
