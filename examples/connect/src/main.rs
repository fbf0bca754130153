//! `cargo run -p vt-connect-example [-- 127.0.0.1:8080]`: serves `vt.connect.v1.SayService`
//! to Connect, gRPC and gRPC-Web clients on one port, and prints curl lines that call it.

use std::net::SocketAddr;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".into())
        .parse()?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let url = format!("http://{addr}/vt.connect.v1.SayService");
    println!("serving vt.connect.v1.SayService (Connect, gRPC, gRPC-Web) on {addr}");
    println!("a JSON POST:\n  curl -sS -H 'Content-Type: application/json' -d '{{\"sentence\":\"hello\"}}' {url}/Say");
    println!(
        "a GET:\n  curl -sS '{url}/Say?encoding=json&message=%7B%22sentence%22%3A%22hello%22%7D'"
    );
    println!("an error's JSON body:\n  curl -sS -H 'Content-Type: application/json' -d '{{\"failWith\":\"not_found\"}}' {url}/Say");
    vt_connect_example::serve(listener).await?;
    Ok(())
}
