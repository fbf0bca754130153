//! The standalone `Echo` server (`mode=standalone`, no prost): `Echo`, health and reflection
//! on the address given (default `127.0.0.1:50051`).
//!
//! ```sh
//! cargo run -p vt-grpc-example --bin echo_standalone -- 127.0.0.1:50051
//! grpcurl -plaintext 127.0.0.1:50051 list
//! ```

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50051".into())
        .parse()?;
    println!("serving vt.test.services.Echo, health and reflection on {addr}");
    vt_grpc_example::standalone::router().serve(addr).await?;
    Ok(())
}
