//! The real binary: SIGTERM while writes are in flight loses no acknowledged write, and the data is
//! there after a restart.

#![cfg(unix)]

use crate::support;

use std::process::Command;
use std::time::Duration;
use support::asset_input;
use support::process::{root_client, running};
use uuid::Uuid;

#[tokio::test]
async fn sigterm_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.db");
    let root = Uuid::new_v4();
    let (mut service, base) = running(&db, root, &[]).await;
    let client = root_client(&base, root);
    client.list_assets(root).send().await.unwrap();

    // Writers keep creating assets; SIGTERM arrives while they run.
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let client = client.clone();
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for i in 0..10_000 {
                    match client
                        .create_asset(root, asset_input(&format!("w{w}-{i:05}")))
                        .send()
                        .await
                    {
                        Ok(asset) => acknowledged.push(asset.id),
                        Err(_) => break,
                    }
                }
                acknowledged
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = service.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = tokio::task::spawn_blocking(move || service.wait().unwrap())
        .await
        .unwrap();
    assert!(
        status.success(),
        "the service exits cleanly on SIGTERM: {status}"
    );
    let mut acknowledged = Vec::new();
    for writer in writers {
        acknowledged.extend(writer.await.unwrap());
    }
    assert!(
        !acknowledged.is_empty(),
        "some writes happened before the signal"
    );

    // Everything acknowledged is still there after a restart.
    let (mut again, base) = running(&db, root, &[]).await;
    let client = root_client(&base, root);
    let mut stored = Vec::new();
    let mut skip = 0;
    loop {
        let page = client
            .list_assets(root)
            .skip(skip)
            .take(500)
            .send()
            .await
            .unwrap();
        stored.extend(page.iter().map(|a| a.id));
        if page.len() < 500 {
            break;
        }
        skip += 500;
    }
    let missing: Vec<_> = acknowledged
        .iter()
        .filter(|id| !stored.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged writes were lost: {missing:?}",
        missing.len()
    );
    let _ = again.kill();
    let _ = again.wait();
}
