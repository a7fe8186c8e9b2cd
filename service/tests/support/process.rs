//! The real service binary as a child process, for tests that signal or kill it.

use super::ROOT_SECRET;
use asset_alerting_client::Client;
use std::process::{Child, Command, Stdio};
use uuid::Uuid;

pub fn spawn(db: &std::path::Path, port: u16, root: Uuid, extra: &[String]) -> Child {
    let key_file = db.with_extension("db.keys");
    spawn_on(&super::database_url(db), &key_file, port, root, extra)
}

/// The binary on the database `url`, with its keys in `key_file` (instances of one database
/// share it).
pub fn spawn_on(
    url: &str,
    key_file: &std::path::Path,
    port: u16,
    root: Uuid,
    extra: &[String],
) -> Child {
    Command::new(env!("CARGO_BIN_EXE_asset-alerting-service"))
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--database-url", url])
        .arg("--key-file")
        .arg(key_file)
        .args([
            "--root-account-id",
            &root.to_string(),
            "--root-client-secret",
            ROOT_SECRET,
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the service binary starts")
}

/// The binary on a free loopback port, once it answers `/healthz`, and its base URL.
pub async fn running(db: &std::path::Path, root: Uuid, extra: &[String]) -> (Child, String) {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = spawn(db, port, root, extra);
    wait_ready(&base).await;
    (child, base)
}

pub async fn wait_ready(base: &str) {
    for _ in 0..200 {
        if reqwest::get(format!("{base}/healthz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the service did not become ready at {base}");
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn kill9(child: &mut Child) {
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    let _ = child.wait();
}

/// A client of the root account, against the binary at `base`.
pub fn root_client(base: &str, root: Uuid) -> Client {
    Client::builder(base)
        .client_credentials(root.to_string(), ROOT_SECRET)
        .build()
        .unwrap()
}
