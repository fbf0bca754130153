//! What the conformance testees share: the runner's protocol on stdin/stdout (a 4-byte
//! little-endian length, then a `ConformanceRequest`; answered the same way with a
//! `ConformanceResponse`).

use std::io::{Read, Write};

/// Answers requests with `respond` (request bytes in, response bytes out) until stdin ends.
pub fn serve(respond: impl Fn(&[u8]) -> Vec<u8>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let (mut input, mut output) = (stdin.lock(), stdout.lock());
    loop {
        let mut len = [0u8; 4];
        match input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let mut request = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut request)?;
        let response = respond(&request);
        output.write_all(&(response.len() as u32).to_le_bytes())?;
        output.write_all(&response)?;
        output.flush()?;
    }
}

/// The testee built without the conformance protos: says how to get them.
pub fn stub() -> ! {
    eprintln!(
        "this conformance testee was built without the conformance protos: run \
         scripts/fetch-corpora.sh, then build it again (the build notices them)"
    );
    std::process::exit(2);
}
