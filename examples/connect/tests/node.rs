//! Real clients nobody here wrote, against the example's server on a loopback port:
//! connect-node 2.x over the Connect, gRPC and gRPC-Web transports (`node/clients.mjs`), and
//! connect-web 2.x in headless Chromium from another origin (`node/browser.mjs`).
//!
//! They run from the folder `scripts/node-env.sh` makes (`VT_NODE_CLIENTS`); without it the
//! tests say so and pass, unless `VT_REQUIRE_NODE=1` (the test command's setting). Chromium is
//! `VT_CHROMIUM` or `/usr/bin/chromium` (Debian's `chromium`), required with
//! `VT_REQUIRE_BROWSER=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn clients_dir() -> Option<PathBuf> {
    match std::env::var_os("VT_NODE_CLIENTS") {
        Some(dir) if Path::new(&dir).join("node_modules").is_dir() => Some(dir.into()),
        _ if std::env::var("VT_REQUIRE_NODE").as_deref() == Ok("1") => {
            panic!(
                "VT_REQUIRE_NODE=1 and no clients: export VT_NODE_CLIENTS=$(scripts/node-env.sh)"
            )
        }
        _ => {
            eprintln!("skipped: no Node clients (export VT_NODE_CLIENTS=$(scripts/node-env.sh))");
            None
        }
    }
}

/// Serves the example on a loopback port in a runtime of its own; returns its URL.
fn start_server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            vt_connect_example::serve(listener).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().expect("the server's address"))
}

/// Runs a client script against a fresh server; returns its output, and fails with it if
/// the script failed or passed fewer than `at_least` checks.
fn run(dir: &Path, script: &str, at_least: usize, envs: &[(&str, &str)]) -> String {
    let url = start_server();
    // At most 5 minutes: a script that hangs fails the test instead of stalling it.
    let out = Command::new("timeout")
        .arg("300")
        .arg("node")
        .arg(dir.join(script))
        .arg(&url)
        .envs(envs.iter().copied())
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "{script} failed:\n{text}");
    let last = text
        .lines()
        .rev()
        .find(|l| l.ends_with(" failed"))
        .unwrap_or_else(|| panic!("{script} printed no summary:\n{text}"));
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert!(last.ends_with(", 0 failed") && passed >= at_least, "{last}");
    text
}

#[test]
fn connect_node_clients_pass_over_every_transport() {
    let Some(dir) = clients_dir() else { return };
    let text = run(&dir, "clients.mjs", 120, &[]);
    for transport in [
        "connect proto http/1.1",
        "connect json http/2",
        "grpc-web proto http/1.1",
        "grpc-web proto http/2",
        "grpc proto http/2",
        "connect json http/1.1 GET+gzip",
    ] {
        assert!(
            text.contains(&format!("ok   {transport}: unary")),
            "{transport}"
        );
    }
}

#[test]
fn connect_web_in_headless_chromium_passes() {
    let Some(dir) = clients_dir() else { return };
    let chromium = std::env::var("VT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        assert_ne!(
            std::env::var("VT_REQUIRE_BROWSER").as_deref(),
            Ok("1"),
            "VT_REQUIRE_BROWSER=1 and no Chromium at {chromium} (apt install chromium)"
        );
        eprintln!("skipped: no Chromium at {chromium}");
        return;
    }
    let text = run(&dir, "browser.mjs", 25, &[("VT_CHROMIUM", &chromium)]);
    assert!(text.contains("Chrome/"), "{text}");
}
